"""The reference code's integration method, reimplemented as it runs (numpy only).

The seed paper's scripts (Castin et al., arXiv 2501.18322; github.com/vcastin/2025-transformers-PDEs)
integrate the covariance equation Σ̇ = JΣ + ΣJᵀ (docs/mathematics.md §3) one Σ₀ at a time by
**explicit Euler** with an **eigenvalue clipping onto the PSD cone after every step**:

    Σ ← Σ + dt·Σ̇(Σ);   Σ ← U max(λ, 0) Uᵀ  (Σ = U diag λ Uᵀ);   t ← t + dt,

and stop a run with its own rules:

* blow-up experiment: step dt = 0.01; "diverged" as soon as tr Σ > 10³; "converged" when
  ‖Σ̇‖_F < 10⁻⁴; at most 10⁵ steps;
* convergence experiments (softmax, ℓ2, Sinkhorn, 100 Σ₀): step dt = 0.3 or 0.5, "converged"
  when ‖Σ̇‖_F < 10⁻⁵, at most 10⁵ steps.

J is evaluated as the reference code does, in plain numpy per member: softmax J = τVΣA; ℓ2
J = 2τVΣ(I + 2τKᵀKΣ)⁻¹KᵀQ; Sinkhorn J = 2τVΣA(I + (I + 4τ²ΣAᵀΣA)^{1/2})⁻¹ (scipy's sqrtm).
This module is imported by the benchmarks and can be run on its own for whole-process timings:

    python benchmarks/reference_method.py blowup|zero-softmax|zero-l2|zero-sinkhorn [--n N]
"""
from __future__ import annotations

import sys

import numpy as np

DIVERGE_TRACE = 1e3
MAX_STEPS = 100_000


def jacobian(variant: str, S, prm):
    """J(Σ) of the variant (docs/mathematics.md §3) for one member."""
    tau = float(prm.get("tau", 1.0))
    if variant == "softmax":
        return tau * prm["V"] @ S @ prm["A"]
    if variant == "l2":
        K, Q, V = prm["K"], prm["Q"], prm["V"]
        d = S.shape[0]
        return 2 * tau * V @ np.linalg.inv(np.eye(d) + 2 * tau * S @ K.T @ K) @ S @ K.T @ Q
    if variant == "sinkhorn":
        from scipy.linalg import sqrtm

        A, V = prm["A"], prm["V"]
        d = S.shape[0]
        root = np.real(sqrtm(np.eye(d) + 4 * tau ** 2 * S @ A.T @ S @ A))
        return 2 * tau * V @ S @ A @ np.linalg.inv(np.eye(d) + root)
    raise ValueError(variant)


def run_member(variant: str, S0, prm, dt: float, T: float = np.inf, tol: float = 1e-4,
               max_steps: int = MAX_STEPS):
    """One Σ₀, as the reference runs it. Returns (Σ at stop, stop time, 'diverged'|'converged'|'horizon'|'max_steps')."""
    S = np.array(S0, dtype=float)
    t = 0.0
    for _ in range(max_steps):
        if t >= T - 1e-15:
            return S, t, "horizon"
        J = jacobian(variant, S, prm)
        dS = J @ S + S @ J.T
        if np.linalg.norm(dS) < tol:
            return S, t, "converged"
        S = S + dt * dS
        w, U = np.linalg.eigh(0.5 * (S + S.T))
        S = (U * np.clip(w, 0, None)) @ U.T
        t += dt
        if np.trace(S) > DIVERGE_TRACE:
            return S, t, "diverged"
    return S, t, "max_steps"


def _main(argv):
    import argparse
    import time

    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from experiments import blowup_setup, zero_setup

    ap = argparse.ArgumentParser()
    ap.add_argument("experiment", choices=("blowup", "zero-softmax", "zero-l2", "zero-sinkhorn"))
    ap.add_argument("--n", type=int, default=None, help="grid side (default: the experiment's)")
    ap.add_argument("--dt", type=float, default=None)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    if a.experiment == "blowup":
        S0, prm, _ = blowup_setup(a.n or 40)
        out = [run_member("softmax", S, prm, a.dt or 0.01, tol=1e-4) for S in S0]
    else:
        variant = a.experiment.split("-")[1]
        S0, prm, dt = zero_setup(variant, a.n or 10)
        out = [run_member(variant, S, prm, a.dt or dt, tol=1e-5) for S in S0]
    print(f"{len(out)} members, {time.perf_counter() - t0:.3f} s in process")


if __name__ == "__main__":
    _main(sys.argv[1:])
