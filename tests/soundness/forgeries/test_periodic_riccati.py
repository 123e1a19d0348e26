"""Forgeries of ``periodic-riccati-vI`` (V = vI, drift F = aI + S with S skew): one per hypothesis,
each consistent in every other field; and the genuine certificates against float integrations.

The genuine certificates come from the search on small problems: a ≠ 0 pure rotation (a = 0,
collapse), a contracting rotation (a < 0, collapse) and an expanding one (a > 0, bounded)."""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import rhs_for, simulate
from .forge import accepts, edited, forge, rejects

V = [["-1/2", "0"], ["0", "-1/2"]]
A = [["1", "-1"], ["1/4", "1/3"]]
S0 = [["2", "1"], ["1", "2"]]


def _doc(F, A=A, V=V, cov=S0):
    return {"variant": "softmax", "d": len(V), "A": A, "V": V, "F": F, "initial": {"cov": cov}}


DOCS = {
    "rotation": _doc([["0", "-1"], ["1", "0"]]),                               # a = 0: Σ → 0 like 1/t
    "contracting": _doc([["-1/4", "-1"], ["1", "-1/4"]]),                      # a < 0: Σ → 0
    "expanding": _doc([["1/3", "-2"], ["2", "1/3"]], A=[["-1/3", "-2"], ["0", "-1/3"]], V=[["1/4", "0"], ["0", "1/4"]],
                      cov=[["4", "-2"], ["-2", "2"]]),                       # a > 0: bounded
}


@pytest.fixture(scope="module")
def certs():
    from symbolic_tf.certify.search._periodic_riccati_vI import find_periodic

    out = {}
    for name, doc in DOCS.items():
        v = find_periodic(parse_problem(doc))
        assert v.status == "PROVED", (name, v.reason)
        out[name] = v.evidence["certificate"]
        accepts(out[name])
    return out


def test_genuine_claims_agree_with_float_integrations(certs):
    # a ≤ 0: Σ(t) → 0; a > 0: bounded (and away from 0 here: the periodic orbit is not Σ = 0)
    for name, cert in certs.items():
        p = parse_problem(DOCS[name])
        run = simulate(p, 60.0, times=(30.0, 60.0), rhs=rhs_for(p))
        norms = [float(np.exp(s)) for _t, s, _U in run.samples]  # ‖Σ‖ = e^s (the oracle's (U, s) form)
        assert run.status != "blowup", name
        if cert["claim"]["subject"] == "CLUSTERING":
            assert norms[1] < norms[0] < 2.0, (name, norms)
        else:
            assert cert["claim"]["subject"] == "BOUNDED" and max(norms) < 100, (name, norms)


def test_periodic_sigma0_zero(certs):
    doc = edited(DOCS["rotation"], initial={"cov": [["0", "0"], ["0", "0"]]})
    rejects(forge(certs["rotation"], problem=doc, data={"B": [], "D": []}), "Σ₀ = 0")


def test_periodic_drift_not_rotating(certs):
    # F with a symmetric off-diagonal part: e^{Ft} is not periodic up to a scalar
    rejects(forge(certs["rotation"], problem=_doc([["0", "1"], ["1", "0"]])), "not a·I plus a nonzero skew")
    rejects(forge(certs["rotation"], problem=_doc([["1", "0"], ["0", "1"]])), "not a·I plus a nonzero skew")


def test_periodic_partition(certs):
    part = certs["rotation"]["data"]["partition"]
    rejects(forge(certs["rotation"], data={"partition": part[:-1]}), "partition must increase from 0 to 1")
    rejects(forge(certs["rotation"], data={"partition": ["0", "1"]}), "not certified positive definite")
    rejects(forge(certs["rotation"], data={"partition": [part[0]] + part[2:]}), "not certified positive definite")


def test_periodic_one_period(certs):
    # the same partition on a problem whose first period is fine but N = −BᵀW(τ)B is not ≻ 0 (the attention
    # term, sign-flipped and small, makes X shrink by a little each period: a blow-up after many periods)
    slow = _doc([["0", "-1"], ["1", "0"]], A=[["-1/20", "1/20"], ["-1/80", "-1/60"]])
    rejects(forge(certs["rotation"], problem=slow), "needs N = −BᵀW\\(τ\\)B ≻ 0")
    # the regime is read from the sign of a: a stated CLUSTERING for the expanding drift is refused
    rejects(forge(certs["expanding"], subject="CLUSTERING", params={"rank": 0}), "not the one the data prove")


def test_riccati_hypotheses_shared(certs):
    # V not v·I for the stored v
    rejects(forge(certs["rotation"], data={"v": "1/3"}), "V is not v·I")
