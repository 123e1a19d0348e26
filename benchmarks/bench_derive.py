"""Time the symbolic derivation of every variant: matrix form and explicit entries at d = 2, 4, 8.

Baseline measured in the same run: the naive route a hand-written script would take —
SymPy's generic ``simplify`` of the fully expanded entries (``expand`` of each entry of the
explicit covariance equation) at the same d.  Printed as a ratio (naive / ours).
Targets (issue 2): matrix form < 1 s per variant; explicit entries at d = 8 < 5 s per variant.

Run:  .venv/bin/python benchmarks/bench_derive.py [--dims 2,4,8] [--naive-dim 4]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sympy as sp  # noqa: E402

from symbolic_tf import variants  # noqa: E402
from symbolic_tf.spec.errors import InvalidParameters  # noqa: E402
from symbolic_tf.symbolic.closure import decide_invariance  # noqa: E402
from symbolic_tf.symbolic.moments import derive  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", default="2,4,8")
    ap.add_argument("--naive-dim", type=int, default=4)
    args = ap.parse_args()
    dims = [int(t) for t in args.dims.split(",")]
    print(f"{'variant':<14}{'matrix form':>12}" + "".join(f"{'d=' + str(d):>10}" for d in dims)
          + f"{'naive d=' + str(args.naive_dim):>14}{'ratio':>8}")
    for name in variants.names():
        if decide_invariance(name).status != "PROVED":
            t0 = time.perf_counter()
            decide_invariance(name)
            print(f"{name:<14}{'witness ' + format(time.perf_counter() - t0, '.2f') + 's':>12}  (not closed)")
            continue
        t0 = time.perf_counter()
        system = derive(name)
        t_matrix = time.perf_counter() - t0
        cells = []
        ours_naive_dim = None
        for d in dims:
            t0 = time.perf_counter()
            try:
                system.entries(d)
                dt = time.perf_counter() - t0
                cells.append(f"{dt:10.2f}")
                if d == args.naive_dim:
                    ours_naive_dim = dt
            except InvalidParameters:
                cells.append(f"{'n/a':>10}")
        naive = ""
        if ours_naive_dim is not None and name != "l2":
            t0 = time.perf_counter()
            _, cov = system.entries(args.naive_dim)
            sp.Matrix(cov).applyfunc(sp.expand)
            t_naive = time.perf_counter() - t0
            naive = f"{t_naive:14.2f}{t_naive / max(ours_naive_dim, 1e-9):8.1f}x"
        print(f"{name:<14}{t_matrix:12.3f}" + "".join(cells) + naive, flush=True)
    print("times in seconds; n/a: no entrywise closed form (Sinkhorn's matrix square root, d > 1)")


if __name__ == "__main__":
    main()
