"""Shared driver of the proof scripts: derive a closure claim with the library and write a
small JSON certificate that ``tests/test_proofs.py`` re-checks independently.

Closed variants: the certificate holds the closure rule, J, c, α̇ and Σ̇ in matrix form
(SymPy strings) and the docs/mathematics.md §3 formula the claim is about; the checker parses them and
verifies, at fresh random rational instances, that JΣ + ΣJᵀ equals the stated formula
exactly.  Non-closed variants: the exact witness (instance, order, derivative expression and
its arb ball), which the checker re-evaluates by ball arithmetic and by quadrature.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.atomic import write_json_atomic  # noqa: E402
from symbolic_tf.symbolic.closure import decide_invariance  # noqa: E402
from symbolic_tf.symbolic.moments import derive  # noqa: E402


def run(name: str, claim: str, source: str, formula: dict | None = None, drift: bool = False,
        closed: bool = True) -> dict:
    """Decide the closure of ``name`` and write the certificate of the proposition ``claim``.

    ``closed`` says which way the proposition goes: it is PROVED when the invariance verdict
    is PROVED (closed=True) or REFUTED with a witness (closed=False), REFUTED when the verdict
    goes the other way, UNDECIDED otherwise.
    """
    parser = argparse.ArgumentParser(description=claim)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "certificates"))
    args = parser.parse_args()
    verdict = decide_invariance(name)
    if verdict.status == "UNDECIDED":
        status = "UNDECIDED"
    else:
        status = "PROVED" if (verdict.status == "PROVED") == closed else "REFUTED"
    cert = {"proposition": claim, "source": source, "variant": name, "drift": drift,
            "status": status, "invariance_status": verdict.status, "argument": verdict.argument, "evidence": verdict.evidence,
            "reason": verdict.reason}
    if verdict.status == "PROVED":
        system = derive(name, drift=drift)
        cert["system"] = {"mean_rhs": str(system.mean_rhs), "cov_rhs": str(system.cov_rhs),
                          "J": str(system.closure.J), "c": str(system.closure.c)}
        cert["stated_formula"] = formula or {}
    label = name + ("_drift" if drift else "")
    path = write_json_atomic(Path(args.out) / f"{label}.json", cert)
    print(f"{status}: {claim}\n  certificate: {path}")
    return cert
