"""UNDECIDED rate of ``classify`` on a fixed random mix, for this tree or another checkout.

Issue 14 asks that the soundness work does not raise the UNDECIDED rate by more than a few
points; issue 15 measures how much the general-V routes lower it.  Run the same stream against
two trees and compare (the problem stream depends only on the seed):

    python benchmarks/undecided_rate.py --n 300 --seed 0 --out new.json
    python benchmarks/undecided_rate.py --n 300 --seed 0 --tree /path/to/old/checkout --out old.json
    python benchmarks/undecided_rate.py --compare old.json new.json

Per problem: family, d, regime, status (a classification over the per-problem time budget
counts as UNDECIDED, "timeout").  The generator is tests/soundness/strategies.random_document.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import signal
import sys
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
ROOT = Path(__file__).resolve().parents[1]


class _Timeout(BaseException):
    pass


def _alarm(*_):
    raise _Timeout()


def _init(tree, tests):
    sys.path.insert(0, tree)
    sys.path.insert(0, tests)
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)


def _one(args):
    i, seed, budget = args
    import numpy as np
    from soundness.strategies import random_document
    from symbolic_tf.regimes.classify import classify
    from symbolic_tf.spec.problem import parse_problem

    rng = np.random.default_rng([seed, i])
    doc = general_v_document(rng, i) if _MIX == "general-v" else random_document(rng)
    rec = {"i": i, "family": doc.get("variant", "?") + ("+drift" if "F" in doc or "b" in doc else "") + f" d={doc.get('d')}",
           "d": doc.get("d")}
    t0 = time.perf_counter()
    try:
        p = parse_problem(doc)
        signal.setitimer(signal.ITIMER_REAL, budget)
        try:
            c = classify(p)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        rec.update(regime=str(c.regime), status=c.status)
    except _Timeout:
        rec.update(regime="UNDECIDED", status="timeout")
    except Exception as exc:  # noqa: BLE001 - recorded, a crash is a finding
        rec.update(regime="UNDECIDED", status=f"crash: {type(exc).__name__}")
    rec["s"] = time.perf_counter() - t0
    return rec


_MIX = "mixed"


def general_v_document(rng, i):
    """Issue 15's fixed set: general (non-symmetric) V, entries p/q in [−2, 2] with q ≤ 4;
    cycles softmax d = 2, softmax d = 3, drift model d = 2; a random Σ₀ ≻ 0 (LLᵀ + I/4)."""
    from fractions import Fraction

    import numpy as np

    kind = ("softmax2", "softmax3", "drift2")[i % 3]
    d = 3 if kind == "softmax3" else 2

    def q():
        den = int(rng.integers(1, 5))
        return str(Fraction(int(rng.integers(-2 * den, 2 * den + 1)), den))

    def mat():
        return [[q() for _ in range(d)] for _ in range(d)]

    L = np.array([[float(Fraction(q())) for _ in range(d)] for _ in range(d)])
    S = L @ L.T
    cov = [[str(Fraction(S[a, b]).limit_denominator(64) + (Fraction(1, 4) if a == b else 0)) for b in range(d)]
           for a in range(d)]
    doc = {"variant": "softmax", "d": d, "A": mat(), "V": mat(), "initial": {"cov": cov}}
    if kind == "drift2":
        doc["F"] = mat()
    return doc


def _summary(recs):
    by = defaultdict(Counter)
    for r in recs:
        by[r["family"]][r["status"] == "PROVED"] += 1
    tot = Counter(r["status"] == "PROVED" for r in recs)
    rows = {f: {"n": c[True] + c[False], "undecided": c[False]} for f, c in sorted(by.items())}
    rows["ALL"] = {"n": tot[True] + tot[False], "undecided": tot[False]}
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per classification")
    ap.add_argument("--tree", default=str(ROOT), help="checkout whose symbolic_tf is measured")
    ap.add_argument("--out", default="undecided.json")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--mix", choices=("mixed", "general-v"), default="mixed",
                    help="the boundary-heavy soundness mix, or issue 15's general-V set")
    a = ap.parse_args(argv)
    if a.compare:
        old, new = (json.loads(Path(f).read_text()) for f in a.compare)
        so, sn = old["summary"], new["summary"]
        print(f"{'family':22s} {'n':>5s} {'old UNDEC':>10s} {'new UNDEC':>10s}")
        for f in sorted(set(so) | set(sn), key=lambda k: (k == "ALL", k)):
            o, n = so.get(f, {"n": 0, "undecided": 0}), sn.get(f, {"n": 0, "undecided": 0})
            po = 100 * o["undecided"] / max(o["n"], 1)
            pn = 100 * n["undecided"] / max(n["n"], 1)
            print(f"{f:22s} {n['n']:5d} {po:9.1f}% {pn:9.1f}%")
        return 0
    global _MIX
    _MIX = a.mix
    t0 = time.time()
    with mp.get_context("fork").Pool(a.workers, _init, (a.tree, str(ROOT / "tests"))) as pool:
        recs = list(pool.imap_unordered(_one, [(i, a.seed, a.budget) for i in range(a.n)]))
    recs.sort(key=lambda r: r["i"])
    out = {"tree": a.tree, "seed": a.seed, "n": a.n, "seconds": time.time() - t0, "summary": _summary(recs),
           "statuses": dict(Counter(r["status"] for r in recs)), "records": recs}
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(json.dumps({k: out[k] for k in ("n", "seconds", "summary", "statuses")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
