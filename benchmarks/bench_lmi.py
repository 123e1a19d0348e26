"""LMI certificate search: reused parametrised cvxpy problem vs a fresh problem per call, and
the fraction of random problems decided.

1. Timing (d = 2, 4, 8): problems whose certificate needs the SDP (P = I and the other exact
   candidates fail): A = −(I + LLᵀ/(4d)) + skew, V = I + U with U strictly upper triangular
   (V + Vᵀ indefinite, spectrum {1}).  Each problem is solved with the cached DPP problem of
   its dimension (``reuse=True``, warmed up once) and with a freshly built cvxpy problem
   (``reuse=False``); the time per certificate includes rounding and exact verification.
2. Decided fraction: bounded family (V = Vᵀ ≻ 0, A + Aᵀ ⪯ 0 with rank-deficient parts), a
   non-symmetric bounded family (A + Aᵀ ≺ 0, V = I + E) and the blow-up family
   (A + Aᵀ ≻ 0, V = I + E with a small non-symmetric E), per d.

Run:  .venv/bin/python benchmarks/bench_lmi.py [--dims 2,4,8] [--n 8] [--seed 0]
"""
from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from symbolic_tf.certify.search._lmi import find_blowup_certificate, find_bounded_certificate  # noqa: E402
from symbolic_tf.spec.problem import parse_problem  # noqa: E402


def fr(rng, r, c, scale=1.0, den=8):
    """A random r×c matrix of exact Fractions (normal entries rounded to 1/den)."""
    return np.array([[Fraction(int(round(rng.normal() * scale * den)), den) for _ in range(c)]
                     for _ in range(r)], dtype=object)


def eye(d, s=1):
    return np.array([[Fraction(s) if i == j else Fraction(0) for j in range(d)] for i in range(d)], dtype=object)


def problem(A, V, cov=None):
    doc = {"variant": "softmax", "d": len(A), "A": [[str(x) for x in r] for r in A],
           "V": [[str(x) for x in r] for r in V]}
    if cov is not None:
        doc["initial"] = {"cov": [[str(x) for x in r] for r in cov]}
    return parse_problem(doc)


def sym_psd(rng, d, rank=None):
    L = fr(rng, d, rank or d)
    return L @ L.T


def skew(rng, d, s=1.0):
    K = fr(rng, d, d, s)
    return K - K.T


def timing_family(rng, d):
    A = -(eye(d) + sym_psd(rng, d) / (4 * d)) + skew(rng, d, 0.5)
    U = np.triu(fr(rng, d, d, 2.0), 1)
    return problem(A, eye(d) + U, eye(d))


def bounded_family(rng, d):
    r = int(rng.integers(0, d + 1))
    A = (-(sym_psd(rng, d, r) / d) if r else eye(d, 0)) + skew(rng, d)
    V = sym_psd(rng, d) / d + eye(d, Fraction(1, 4))
    return problem(A, V, sym_psd(rng, d) / d + eye(d, Fraction(1, 10)))


def bounded_ns_family(rng, d):
    """Not in the theorem: A + Aᵀ ≺ 0, V = I + E non-symmetric (the SDP usually decides)."""
    A = -(sym_psd(rng, d) / d + eye(d, Fraction(1, 2))) + skew(rng, d)
    V = eye(d) + fr(rng, d, d, 0.4 / np.sqrt(d), den=16)
    return problem(A, V, eye(d))


def blowup_family(rng, d):
    A = sym_psd(rng, d) / d + eye(d, Fraction(1, 2)) + skew(rng, d, 0.5)
    V = eye(d) + fr(rng, d, d, 0.1 / np.sqrt(d), den=16)
    return problem(A, V, sym_psd(rng, d) / d + eye(d, Fraction(1, 4)))


def sdp_times(v):
    calls = v.numerical.get("solver_calls", [])
    return (sum(c.get("compile_s") or 0 for c in calls), sum(c.get("solve_s") or 0 for c in calls))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", default="2,4,8")
    ap.add_argument("--n", type=int, default=8, help="problems per dimension and family")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    dims = [int(t) for t in args.dims.split(",")]
    print(f"# bench_lmi  dims={dims} n={args.n} seed={args.seed}")
    print("\n## time per bounded certificate (the SDP is needed: P = I and P = V⁻¹ fail)")
    print("   reused = the cached DPP problem of dimension d; fresh = a new cvxpy problem per call;")
    print("   compile = cvxpy canonicalisation, solve = Clarabel; total includes rounding + exact checks")
    print(f"{'d':>3}{'m':>5}{'proved':>8}{'reused total':>14}{'compile':>9}{'solve':>8}"
          f"{'fresh total':>13}{'compile':>9}{'solve':>8}{'fresh/reused':>14}")
    for d in dims:
        rng = np.random.default_rng(args.seed + d)
        probs, tries = [], 0
        while len(probs) < args.n and tries < 20 * args.n:
            tries += 1
            p = timing_family(rng, d)
            v = find_bounded_certificate(p, reuse=True)  # also warms the cached problem up
            if v.numerical.get("solver_calls"):
                probs.append(p)
        rows = {True: [], False: []}
        proved = 0
        for p in probs:
            for reuse in (True, False):
                t0 = time.perf_counter()
                v = find_bounded_certificate(p, reuse=reuse)
                rows[reuse].append((time.perf_counter() - t0, *sdp_times(v)))
                proved += reuse and v.status == "PROVED"
        r = np.mean(rows[True], axis=0)
        f = np.mean(rows[False], axis=0)
        print(f"{d:>3}{d * (d + 1) // 2:>5}{proved:>5}/{len(probs):<2}{r[0]:>14.4f}{r[1]:>9.4f}{r[2]:>8.4f}"
              f"{f[0]:>13.4f}{f[1]:>9.4f}{f[2]:>8.4f}{f[0] / r[0]:>14.2f}")

    print("\n## fraction decided (not UNDECIDED) and mean time per call")
    print(f"{'d':>3}{'family':>12}{'decided':>10}{'mean (s)':>10}{'via':>40}")
    for d in dims:
        for name, fam, find in (("bounded", bounded_family, find_bounded_certificate),
                                ("bnd-nonsym", bounded_ns_family, find_bounded_certificate),
                                ("blow-up", blowup_family, find_blowup_certificate)):
            rng = np.random.default_rng(args.seed + 100 + d)
            ok, ts, via = 0, [], {}
            for _ in range(args.n):
                p = fam(rng, d)
                t0 = time.perf_counter()
                v = find(p)
                ts.append(time.perf_counter() - t0)
                ok += v.status != "UNDECIDED"
                key = v.numerical.get("method", v.reason[:30]).split(" + ")[0].replace("structured candidate ", "")
                via[key] = via.get(key, 0) + 1
            vs = ", ".join(f"{k}: {n}" for k, n in sorted(via.items()))
            print(f"{d:>3}{name:>12}{ok:>6}/{args.n:<3}{float(np.mean(ts)):>10.4f}   {vs}")


if __name__ == "__main__":
    main()
