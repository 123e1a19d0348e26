"""Certified blow-up brackets for the ≈1200 Σ₀ of the blow-up experiment vs integrating them.

Softmax, V = I, A + Aᵀ ≻ 0, Σ₀ = [[a, c], [c, b]] trace 1 on a 40×40 grid of (u, w) = (a−b, 2c)
in [−1, 1]² inside the unit disk, exact rationals.  Ours: one batched float guess, then an
exact rational bracket per Σ₀ (``symbolic_tf.certify.search._batch``) and the independent check.
Baseline: the reference code's projected Euler integration until tr Σ > 10³ (timed on a
subset and scaled), at dt = 1e-2 and 1e-3.

Run:  .venv/bin/python benchmarks/bench_certify.py [--smoke]   (--smoke: a 6×6 grid, for CI)
"""
from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from bench_integrate import baseline_member  # noqa: E402

from symbolic_tf.certify.search._batch import blowup_brackets_batch  # noqa: E402
from symbolic_tf.certify.check import check  # noqa: E402


def grid(n=40):
    vals = [Fraction(-1) + Fraction(2 * i, n - 1) for i in range(n)]
    out = []
    for u in vals:
        for w in vals:
            if u * u + w * w < 1:
                a, b, c = (1 + u) / 2, (1 - u) / 2, w / 2
                out.append(((a, c), (c, b)))
    return out


def main():
    smoke = "--smoke" in sys.argv[1:]  # toy size (the bench_smoke pytest marker)
    Ss = grid(6 if smoke else 40)
    A = [[Fraction(1), Fraction(7, 10)], [Fraction(-1, 10), Fraction(3, 5)]]
    t0 = time.perf_counter()
    brackets, cert = blowup_brackets_batch(A, 1, Ss)
    t_cert = time.perf_counter() - t0
    t0 = time.perf_counter()
    check(cert)
    t_check = time.perf_counter() - t0
    widths = [float((h - lo) / h) for lo, h in (b for b in brackets if b)]
    decided = sum(b is not None for b in brackets)
    Af = np.array(A, dtype=float)
    Sf = np.array(Ss, dtype=float)
    Ts = [float(h) for _, h in (b for b in brackets if b)]
    print(f"{len(Ss)} Σ0: certified {decided} brackets in {t_cert:.3f} s "
          f"(independent check {t_check:.3f} s); median relative width {np.median(widths):.1e}, max {max(widths):.1e}")
    rng = np.random.default_rng(0)
    sub = rng.choice(len(Ss), min(40, len(Ss)), replace=False)
    for dt in (1e-2, 1e-3):
        t0 = time.perf_counter()
        for i in sub:
            baseline_member(Sf[i], Af, np.eye(2), dt, 2 * max(Ts))
        t_base = (time.perf_counter() - t0) * len(Ss) / len(sub)
        print(f"baseline projected Euler dt={dt:g}: {t_base:.2f} s to integrate all (timed on {len(sub)}, scaled); "
              f"certification is {t_base / t_cert:.1f}x faster")


if __name__ == "__main__":
    main()
