"""Shared driver of the regime proof scripts: classify an exact problem, check that the
certified verdict is the proposition's, write the certificate (``symtf check`` re-verifies)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.atomic import write_json_atomic  # noqa: E402
from symbolic_tf.regimes.classify import classify  # noqa: E402
from symbolic_tf.spec import parse_problem  # noqa: E402


def run(name: str, proposition: str, doc: dict, expect_regime: str, uniform: bool = False, extra=None):
    ap = argparse.ArgumentParser(description=proposition)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "certificates"))
    args = ap.parse_args()
    problem = parse_problem(doc)
    c = classify(problem, uniform=uniform)
    if c.status != "PROVED" or c.regime != expect_regime:
        print(f"NOT PROVED: {proposition}: got {c.regime} ({c.status}): {c.reason}", file=sys.stderr)
        return 1
    cert = dict(c.certificate)
    cert.setdefault("notes", []).append(proposition)
    if extra is not None:
        msg = extra(c)
        if msg:
            cert["notes"].append(msg)
    path = write_json_atomic(Path(args.out) / f"{name}.json", cert)
    print(f"PROVED: {proposition}\n  {c.regime}" + (f" T* ∈ [{c.T_lo}, {c.T_hi}]" if c.T_lo else "")
          + (f" rank {c.rank}" if c.rank is not None else "") + f"\n  certificate: {path}")
    print(json.dumps({"regime": c.regime, "T_lo": c.T_lo, "T_hi": c.T_hi, "rank": c.rank}))
    return 0
