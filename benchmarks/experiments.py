"""The experiments the integration benchmarks run (shared by bench_integrate.py, bench_scaling.py
and reference_method.py so every contestant integrates exactly the same problems).

* Blow-up experiment: softmax, V = I, A = (M + N)/√2 with M = [[1, .3], [.3, .6]] and N = [[0, .4],
  [−.4, 0]] (A + Aᵀ ≻ 0), Σ₀ of trace one on a 40×40 grid of (u, w) = (a − b, 2c) in [−1, 1]²
  kept inside the unit disk (1,184 positive definite Σ₀); exact blow-up times
  T* = 1/λ_max(Σ₀^{1/2}(A + Aᵀ)Σ₀^{1/2}) (docs/mathematics.md §4).
* Convergence experiments ("convergence to 0" of the seed paper, experiment 1): K = −Q, Q uniform
  in [0, 1)^{2×2}, V = GGᵀ (G Gaussian), softmax A = KᵀQ/√d, ℓ2 with τ = 1/√d, Sinkhorn A = KᵀQ;
  Σ₀ on a 10×10 grid of [−½, ½]² (100 Σ₀).  Reference steps: 0.3 (softmax, ℓ2), 0.5 (Sinkhorn).
"""
from __future__ import annotations

import numpy as np

REFERENCE_DT = {"softmax": 0.3, "l2": 0.3, "sinkhorn": 0.5}


def disk_grid(n: int, half: float) -> np.ndarray:
    """Trace-one Σ₀ = [[a, c], [c, b]] on an n×n grid of (u, w) ∈ [−half, half]², u² + w² < 1."""
    u, w = np.meshgrid(np.linspace(-half, half, n), np.linspace(-half, half, n))
    u, w = u.ravel(), w.ravel()
    keep = u ** 2 + w ** 2 < 1
    u, w = u[keep], w[keep]
    a, b, c = (1 + u) / 2, (1 - u) / 2, w / 2
    return np.stack([np.stack([a, c], -1), np.stack([c, b], -1)], -2)


def blowup_setup(n: int = 40):
    """(Σ₀ batch, parameters, exact T*) of the blow-up experiment."""
    d = 2
    S0 = disk_grid(n, 1.0)
    M = np.array([[1.0, 0.3], [0.3, 0.6]])
    A = (M + np.array([[0, 0.4], [-0.4, 0]])) / np.sqrt(d)
    Ts = np.empty(len(S0))
    for i, S in enumerate(S0):
        R = np.linalg.cholesky(S)
        Ts[i] = 1 / np.linalg.eigvalsh(R.T @ (A + A.T) @ R).max()
    return S0, {"A": A, "V": np.eye(d), "tau": 1.0}, Ts


def zero_setup(variant: str, n: int = 10, seed: int = 0):
    """(Σ₀ batch, parameters, reference step) of the convergence-to-0 experiment for a variant."""
    d = 2
    rng = np.random.default_rng(seed)
    Q = rng.uniform(size=(d, d))
    K = -Q
    G = rng.normal(size=(d, d))
    V = G @ G.T
    if variant == "softmax":
        prm = {"A": K.T @ Q / np.sqrt(d), "V": V, "tau": 1.0}
    elif variant == "l2":
        prm = {"Q": Q, "K": K, "V": V, "tau": 1 / np.sqrt(d)}
    elif variant == "sinkhorn":
        prm = {"A": K.T @ Q, "V": V, "tau": 1.0}
    else:
        raise ValueError(variant)
    return disk_grid(n, 0.5), prm, REFERENCE_DT[variant]
