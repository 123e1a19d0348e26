"""Time per member against batch size, per dimension, for both integrator paths (the crossover).

Problem: softmax, Σ̇ = VΣAΣ + ΣAᵀΣVᵀ with one A = −½I + (skew part), V = I + ½(random SPD), so every
Σ₀ converges (A + Aᵀ ≺ 0 and V ≻ 0 make tr(V⁻¹Σ) decrease, docs/mathematics.md §4), T = 5,
rtol = 10⁻⁸, atol = 10⁻¹²; Σ₀ = LLᵀ/d + 0.1·I random.  Paths: ``compiled dopri5`` (numba, d ≤ 8),
``compiled dop853`` (the same at order 8, the better choice at tight tolerances), ``numpy dopri5``
(batched BLAS) and ``scipy DOP853 vec.`` (``solve_ivp`` on the whole batch as one system,
the generated batched RHS, same tolerances).  Each cell is timed after one warm-up call on the same runner (so
compile/load cost is excluded here; bench_integrate.py prints it).  Cells whose arrays would
exceed ``--max-cells`` doubles (B·d²) are skipped and say so.

Writes ``--out`` (default ``scaling.png``): seconds per member against batch size, one panel per
d, both paths; prints the table and, per d, the smallest batch from which the compiled path wins.

Run:  python benchmarks/bench_scaling.py [--dims 2,4,8,16] [--batches 100,...,1000000] [--max-seconds 120] [--smoke]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from symbolic_tf.numeric.codegen import compile_system  # noqa: E402
from symbolic_tf.numeric.integrate import integrate  # noqa: E402
from symbolic_tf.numeric.solution import HORIZON  # noqa: E402
from symbolic_tf.numeric._kernels import MAX_COMPILED_D, PARALLEL_MIN_BATCH  # noqa: E402
from symbolic_tf.symbolic.moments import derive  # noqa: E402


PATHS = ("compiled", "compiled dop853", "numpy", "scipy DOP853 vec.")


def problem(d: int, B: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    Wk = rng.normal(size=(d, d))
    A = -0.5 * np.eye(d) + 0.3 * (Wk - Wk.T) / np.sqrt(d)
    G = rng.normal(size=(d, d)) / np.sqrt(d)
    V = np.eye(d) + 0.5 * G @ G.T
    L = rng.normal(size=(B, d, d))
    S0 = L @ np.swapaxes(L, 1, 2) / d + 0.1 * np.eye(d)
    return S0, {"A": A, "V": V, "tau": 1.0}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", default="2,4,8,16")
    ap.add_argument("--batches", default="100,1000,10000,100000,1000000")
    ap.add_argument("--max-seconds", type=float, default=120.0,
                    help="skip a cell when the path's previous cell predicts more than this")
    ap.add_argument("--max-cells", type=float, default=1e7, help="skip cells with B·d² above this")
    ap.add_argument("--max-cells-scipy", type=float, default=2e6, help="the same bound for SciPy (memory)")
    ap.add_argument("--out", default="scaling.png")
    ap.add_argument("--smoke", action="store_true", help="toy size (CI)")
    a = ap.parse_args(argv)
    if a.smoke:
        a.dims, a.batches = "2,9", "4,16"
    dims = [int(x) for x in a.dims.split(",")]
    batches = [int(x) for x in a.batches.split(",")]
    comp = compile_system(derive("softmax", scale=None))
    T, rtol, atol = 5.0, 1e-8, 1e-12
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (one run per cell)")
    res: dict = {}
    print(f"{'d':>3}{'B':>9}{'path':>18}{'s/member':>12}{'total s':>10}{'rel. error vs rtol 1e-13':>26}")
    for d in dims:
        for B in batches:
            if B * d * d > a.max_cells:
                print(f"{d:>3}{B:>9}   skipped (B·d² = {B * d * d:.1e} > --max-cells)")
                continue
            S0, prm = problem(d, B)
            z = np.zeros((B, d))
            ends = {}
            for path in PATHS:
                if path.startswith("compiled") and d > MAX_COMPILED_D:
                    continue
                prev = [res[(d, b, path)] * B for b in batches if b < B and (d, b, path) in res]
                if prev and prev[-1] > a.max_seconds:
                    print(f"{d:>3}{B:>9}{path:>18}   skipped (≈ {prev[-1]:.0f} s expected > --max-seconds)")
                    continue
                if path == "scipy DOP853 vec.":
                    from scipy.integrate import solve_ivp

                    if B * d * d > a.max_cells_scipy:  # solve_ivp keeps ~16 copies of the state
                        print(f"{d:>3}{B:>9}{path:>18}   skipped (B·d² > --max-cells-scipy)")
                        continue

                    def rhs(t, y, B=B, z=z, d=d):
                        return comp.rhs(z, y.reshape(B, d, d), prm)[1].ravel()
                    t0 = time.perf_counter()
                    sol = solve_ivp(rhs, (0, T), S0.ravel(), method="DOP853", rtol=rtol, atol=atol)
                    sec = time.perf_counter() - t0
                    end = sol.y[:, -1].reshape(B, d, d)
                else:
                    w = min(B, PARALLEL_MIN_BATCH)  # warm-up on the runner (serial/threaded) the timed call uses
                    backend, method = (path.split() + ["dopri5"])[:2]
                    integrate(comp, z[:w], S0[:w], prm, T, rtol=rtol, atol=atol, backend=backend, method=method)
                    t0 = time.perf_counter()
                    sol = integrate(comp, z, S0, prm, T, rtol=rtol, atol=atol, backend=backend, method=method)
                    sec = time.perf_counter() - t0
                    assert np.all(sol.status == HORIZON)
                    end = sol.Sigma_end
                ends[path] = end
                res[(d, B, path)] = sec / B
            ref = None
            if B * d * d <= a.max_cells_scipy / 10:   # a tight SciPy solve as the accuracy reference
                from scipy.integrate import solve_ivp

                def rhs(t, y, B=B, z=z, d=d):
                    return comp.rhs(z, y.reshape(B, d, d), prm)[1].ravel()
                ref = solve_ivp(rhs, (0, T), S0.ravel(), method="DOP853", rtol=1e-13, atol=1e-16).y[:, -1].reshape(B, d, d)
            label = "rel. error vs rtol 1e-13" if ref is not None else "rel. ΔΣ(T) vs 1st path"
            ref = ref if ref is not None else ends.get("compiled", ends.get("numpy"))
            for path, end in ends.items():
                dtxt = f"{np.max(np.abs(end - ref)) / np.max(np.abs(ref)):.1e}" + ("" if label.startswith("rel. error") else " (vs 1st)")
                print(f"{d:>3}{B:>9}{path:>18}{res[(d, B, path)]:>12.2e}{res[(d, B, path)] * B:>10.3f}{dtxt:>26}")
    print("crossover (smallest measured B where compiled is faster; speed-up at the largest B):")
    for d in dims:
        bs = [B for B in batches if (d, B, "compiled") in res and (d, B, "numpy") in res]
        if not bs:
            print(f"  d = {d}: numpy only (compiled kernels cover d ≤ {MAX_COMPILED_D})")
            continue
        win = [B for B in bs if res[(d, B, "compiled")] < res[(d, B, "numpy")]]
        big = bs[-1]
        vs = [f"B = {B}: {res[(d, B, 'scipy DOP853 vec.')] / min(res[(d, B, 'compiled')], res.get((d, B, 'compiled dop853'), np.inf)):.1f}x"
              for B in batches if (d, B, "compiled") in res and (d, B, "scipy DOP853 vec.") in res]
        print(f"  d = {d}: compiled wins over numpy from B = {win[0] if win else 'never'}; at B = {big}: "
              f"{res[(d, big, 'numpy')] / res[(d, big, 'compiled')]:.1f}x; vs SciPy DOP853 vectorised (best compiled method) "
              + ", ".join(vs))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(dims), figsize=(3.2 * len(dims), 3), squeeze=False, sharey=True)
    for ax, d in zip(axes[0], dims):
        for path, style in (("compiled", "o-"), ("compiled dop853", "d-"), ("numpy", "s--"), ("scipy DOP853 vec.", "^:")):
            pts = [(B, res[(d, B, path)]) for B in batches if (d, B, path) in res]
            if pts:
                ax.loglog(*zip(*pts), style, label=path)
        ax.set_title(f"d = {d}")
        ax.set_xlabel("batch size B")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("seconds per member")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}; load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
