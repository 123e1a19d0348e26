"""Examples per second of a typical regime conjecture (classify + certify each draw), d = 2 and 4.

Conjecture: V = I and A + Aᵀ ⪯ 0 ⇒ no blow-up (true; every draw is classified and certified).
Baseline in the same run: the bare hypothesis draw of the same problems (generation cost only),
so the ratio says how much of the time is certification.

Run:  .venv/bin/python benchmarks/bench_conjectures.py [--examples 60]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from symbolic_tf.conjectures import strategies as S  # noqa: E402
from symbolic_tf.conjectures.catalogue import _identity  # noqa: E402
from symbolic_tf.conjectures.core import RegimeConjecture, verify  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=60)
    args = ap.parse_args()
    for d in (2, 4):
        strat = S.problems(d=d, value=_identity, attention=S.a_with_nsd_sym, cov=S.psd)
        conj = RegimeConjecture(f"nsd-d{d}", "V = I, A + Aᵀ ⪯ 0 ⇒ no blow-up", "bench", strat, "no_blowup")
        t0 = time.perf_counter()
        rep = verify(conj, examples=args.examples, seed=0)
        t = time.perf_counter() - t0
        n = [0]

        @settings(max_examples=args.examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
        @given(strat)
        def draw(p):
            n[0] += 1

        t0 = time.perf_counter()
        draw()
        tg = time.perf_counter() - t0
        print(f"d = {d}: {rep.examples} examples in {t:.2f} s = {rep.examples / t:.1f} examples/s "
              f"({rep.verdict}); generation alone {n[0] / tg:.0f} draws/s (certification is {t / tg:.0f}× the draw cost)")


if __name__ == "__main__":
    main()
