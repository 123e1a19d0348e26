"""Batched moment integration vs the reference code's method, on the same experiments.

Baseline (the published figure scripts' method): explicit Euler steps on Σ̇ with an
eigenvalue-clipping projection onto the PSD cone after each step, one Σ₀ at a time, stop at
tr Σ > 10³ ("diverged") or ‖Σ̇‖ < tol ("converged").
Ours: the generated matrix-form RHS, Dormand–Prince 5(4) batched over all Σ₀, Σ = ΦΣ₀Φᵀ.

Accuracy is measured against exact answers: softmax with V = I has the closed form
Σ(t) = (Σ₀⁻¹ − t(A+Aᵀ))⁻¹ and the blow-up time T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2})
(docs/mathematics.md §4); for V = GGᵀ (no closed form) against a tight-tolerance run checked by the
high-precision reference on a few members.

Run:  .venv/bin/python benchmarks/bench_integrate.py [--baseline-dt 1e-3] [--baseline-members 100]
The baseline is timed on a subset (``--baseline-members``) and its per-member cost scaled to
the whole experiment; the printed ratio says so.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from symbolic_tf.numeric.codegen import compile_system  # noqa: E402
from symbolic_tf.numeric.integrate import BLOWUP, integrate  # noqa: E402
from symbolic_tf.symbolic.moments import derive  # noqa: E402


def disk_grid(n, half):
    u, w = np.meshgrid(np.linspace(-half, half, n), np.linspace(-half, half, n))
    u, w = u.ravel(), w.ravel()
    keep = u**2 + w**2 < 1
    u, w = u[keep], w[keep]
    a, b, c = (1 + u) / 2, (1 - u) / 2, w / 2
    return np.stack([np.stack([a, c], -1), np.stack([c, b], -1)], -2)


def baseline_member(S0, A, V, dt, T, tol=1e-8):
    """Euler + eigenvalue clipping, one Σ₀; returns (Σ at T or at stop, stop time, diverged)."""
    S = S0.copy()
    t = 0.0
    while t < T - 1e-15:
        dS = V @ S @ A @ S + S @ A.T @ S @ V.T
        if np.linalg.norm(dS) < tol:
            return S, t, False
        S = S + dt * dS
        w, U = np.linalg.eigh(0.5 * (S + S.T))
        S = (U * np.clip(w, 0, None)) @ U.T
        t += dt
        if np.trace(S) > 1e3:
            return S, t, True
    return S, t, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline-dt", type=float, default=1e-3)
    ap.add_argument("--baseline-members", type=int, default=60)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    comp = compile_system(derive("softmax", scale=None))
    d = 2

    # ---- blow-up experiment: A + Aᵀ ≻ 0, V = I, 40×40 grid on [−1, 1]² ------------------------
    S0 = disk_grid(40, 1.0)
    B = len(S0)
    M = np.array([[1.0, 0.3], [0.3, 0.6]])
    A = (M + np.array([[0, 0.4], [-0.4, 0]])) / np.sqrt(d)
    Ts = np.empty(B)
    for i, S in enumerate(S0):
        w, U = np.linalg.eigh(S)
        R = (U * np.sqrt(w)) @ U.T
        Ts[i] = 1 / np.linalg.eigvalsh(R @ (A + A.T) @ R).max()
    T = 1.5 * Ts.max()
    t0 = time.perf_counter()
    sol = integrate(comp, np.zeros((B, d)), S0, {"A": A, "V": np.eye(d), "tau": 1.0}, T, rtol=2e-9, atol=1e-12, blowup_norm=1e9)
    t_ours = time.perf_counter() - t0
    assert np.all(sol.status == BLOWUP)
    err_ours = np.max(np.abs(sol.t_end - Ts) / Ts)
    # accuracy of Σ at 0.9 T* (closed form) for ours
    idx = rng.choice(B, 20, replace=False)
    sol2 = integrate(comp, np.zeros((20, d)), S0[idx], {"A": A, "V": np.eye(d), "tau": np.ones(20)},
                     float(0.9 * Ts[idx].min()), rtol=2e-9, atol=1e-12, blowup_norm=1e9)
    ex = np.array([np.linalg.inv(np.linalg.inv(S0[i]) - 0.9 * Ts[idx].min() * (A + A.T)) for i in idx])
    errS_ours = np.max(np.linalg.norm(sol2.Sigma_end - ex, axis=(1, 2)) / np.linalg.norm(ex, axis=(1, 2)))

    sub = rng.choice(B, min(args.baseline_members, B), replace=False)
    t0 = time.perf_counter()
    tb = []
    for i in sub:
        _, t_stop, div = baseline_member(S0[i], A, np.eye(d), args.baseline_dt, T)
        tb.append(t_stop)
    t_base = (time.perf_counter() - t0) * B / len(sub)
    err_base = np.max(np.abs(np.array(tb) - Ts[sub]) / Ts[sub])
    errS_base = []
    for k, i in enumerate(idx[:5]):
        S_b, _, _ = baseline_member(S0[i], A, np.eye(d), args.baseline_dt, 0.9 * Ts[idx].min())
        errS_base.append(np.linalg.norm(S_b - ex[k]) / np.linalg.norm(ex[k]))
    print(f"blow-up experiment ({B} Σ0, softmax V = I, A + Aᵀ ≻ 0):")
    print(f"  ours     {t_ours:8.2f} s   blow-up time rel. error {err_ours:.1e}   Σ(0.9T*) rel. error {errS_ours:.1e}")
    print(f"  baseline {t_base:8.2f} s   blow-up time rel. error {err_base:.1e}   Σ(0.9T*) rel. error {max(errS_base):.1e}"
          f"   (timed on {len(sub)} members, scaled)")
    print(f"  speed-up {t_base / t_ours:8.1f}x")

    # ---- convergence to 0: K = −Q, V = GGᵀ, 10×10 grid on [−½, ½]² ------------------------------
    Q = rng.uniform(size=(d, d))
    A0 = -(Q.T @ Q) / np.sqrt(d)
    G = rng.normal(size=(d, d))
    V = G @ G.T
    S0c = disk_grid(10, 0.5)
    Bc = len(S0c)
    Tc = 20.0
    prm = {"A": A0, "V": V, "tau": 1.0}
    t0 = time.perf_counter()
    solc = integrate(comp, np.zeros((Bc, d)), S0c, prm, Tc, rtol=1e-10, atol=1e-14)
    t_ours_c = time.perf_counter() - t0
    tight = integrate(comp, np.zeros((Bc, d)), S0c, prm, Tc, rtol=1e-13, atol=1e-16)
    errc = np.max(np.linalg.norm(solc.Sigma_end - tight.Sigma_end, axis=(1, 2))
                  / np.linalg.norm(tight.Sigma_end, axis=(1, 2)))
    t0 = time.perf_counter()
    errb = []
    for i in range(Bc):
        S_b, _, _ = baseline_member(S0c[i], A0, V, args.baseline_dt, Tc, tol=0.0)
        errb.append(np.linalg.norm(S_b - tight.Sigma_end[i]) / np.linalg.norm(tight.Sigma_end[i]))
    t_base_c = time.perf_counter() - t0
    print(f"convergence experiment ({Bc} Σ0, softmax V = GGᵀ, K = −Q, T = {Tc}):")
    print(f"  ours     {t_ours_c:8.2f} s   Σ(T) rel. error vs rtol=1e-13 run {errc:.1e}")
    print(f"  baseline {t_base_c:8.2f} s   Σ(T) rel. error {max(errb):.1e}")
    print(f"  speed-up {t_base_c / t_ours_c:8.1f}x")


if __name__ == "__main__":
    main()
