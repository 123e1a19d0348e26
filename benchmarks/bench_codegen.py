"""Generated matrix-form RHS vs a lambdified *expanded* SymPy RHS (the naive route).

For each d in 2, 4, 8, 16: build the softmax covariance equation Σ̇ = VΣAΣ + ΣAᵀΣVᵀ both
ways, check they agree, and time one evaluation over a batch of 256 parameter sets.
The naive route lambdifies the fully expanded entries (d² polynomials of degree 4 with d³
monomials each) and evaluates them member by member; the generated route is batched BLAS.

Run:  .venv/bin/python benchmarks/bench_codegen.py [--dims 2,4,8,16] [--batch 256]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402

from symbolic_tf.numeric.codegen import compile_system  # noqa: E402
from symbolic_tf.symbolic.moments import derive  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", default="2,4,8,16")
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args()
    system = derive("softmax")
    comp = compile_system(derive("softmax", scale=None))
    rng = np.random.default_rng(0)
    print(f"{'d':>4}{'expand+lambdify (s)':>22}{'naive eval (s)':>16}{'generated eval (s)':>20}{'ratio':>9}{'max rel diff':>14}")
    for d in (int(t) for t in args.dims.split(",")):
        B = args.batch
        A = rng.normal(size=(B, d, d))
        V = rng.normal(size=(B, d, d))
        L = rng.normal(size=(B, d, d))
        S = L @ L.transpose(0, 2, 1) / d
        t0 = time.perf_counter()
        _, cov = system.entries(d)
        syms = system.explicit_symbols(d)
        order = [m for s_, M in sorted(syms.items(), key=lambda kv: kv[0].name) for m in M]
        uniq = list(dict.fromkeys(order))
        expanded = [sp.expand(cov[i, j]) for i in range(d) for j in range(d)]
        fn = sp.lambdify(uniq, expanded, "numpy")
        t_build = time.perf_counter() - t0
        names = {s_.name: M for s_, M in syms.items()}

        def member_values(b):
            vals = {}
            for name, M in names.items():
                src = {"A": A[b], "V": V[b], "Sigma": S[b], "alpha": np.zeros((d, 1))}[name]
                for (i, j), sym in np.ndenumerate(np.array(M.tolist(), dtype=object)):
                    vals[sym] = src[i, j]
            return [vals[u] for u in uniq]

        args_b = [member_values(b) for b in range(B)]
        t0 = time.perf_counter()
        naive = np.array([np.array(fn(*a), dtype=float).reshape(d, d) for a in args_b])
        t_naive = time.perf_counter() - t0
        t0 = time.perf_counter()
        _, gen = comp.rhs(np.zeros((B, d)), S, {"A": A, "V": V, "tau": 1.0})
        t_gen = time.perf_counter() - t0
        diff = np.max(np.abs(gen - naive)) / np.max(np.abs(naive))
        print(f"{d:>4}{t_build:>22.2f}{t_naive:>16.4f}{t_gen:>20.5f}{t_naive / t_gen:>8.0f}x{diff:>14.1e}", flush=True)


if __name__ == "__main__":
    main()
