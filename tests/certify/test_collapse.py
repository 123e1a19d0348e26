"""Collapse of this Σ₀ to 0 under a Hurwitz drift (kind ``tube-collapse``): the 40-digit reference
decays along the certified solution, the claim is refused when F is not Hurwitz or the float
solution blows up, and tampered certificates are rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated.tube_collapse import find_collapse
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

DOC = {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, "1/2"], ["-1/2", 1]],
       "F": [[-2, "1/2"], [0, "-3/2"]], "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}


def _p(**kw):
    return parse_problem({**DOC, **kw})


def test_collapse_and_the_reference_decays():
    v = find_collapse(_p(), seconds=120.0)
    assert v.status == "PROVED" and v.evidence["rank"] == 0, v.reason
    ref = reference_solve_problem(_p(), T=20, times=[10, 20], dps=40)
    S10, S20 = ref.Sigma
    assert mpmath.norm(S20) < 1e-10 and mpmath.norm(S20) < mpmath.norm(S10)


def test_multihead_collapse():
    doc = {"variant": "multihead", "d": 2, "F": [[-2, 0], [1, -2]], "initial": {"cov": [["1/2", 0], [0, "1/2"]]},
           "heads": [{"A": [["1/4", 0], [0, "1/4"]], "V": [[1, 1], [0, 1]]},
                     {"A": [[0, "1/4"], [0, 0]], "V": [[1, 0], [0, -1]]}]}
    v = find_collapse(parse_problem(doc), seconds=120.0)
    assert v.status == "PROVED", v.reason


@pytest.mark.parametrize("F", [[[1, 0], [0, -1]], [[0, 1], [-1, 0]]])
def test_no_claim_without_a_hurwitz_drift(F):
    assert find_collapse(_p(F=F)).status == "UNDECIDED"


def test_no_claim_when_the_solution_blows_up():
    # a large Σ₀ with strong attention escapes the attracting region of the drift and blows up
    assert find_collapse(_p(A=[[4, 0], [0, 4]], V=[[2, 0], [0, 2]], initial={"cov": [[50, 0], [0, 50]]})).status == "UNDECIDED"


@pytest.fixture(scope="module")
def cert():
    v = find_collapse(_p(), seconds=120.0)
    assert v.status == "PROVED", v.reason
    return v.evidence["certificate"]


@pytest.mark.parametrize("what", ["c", "lam", "n", "P", "steps"])
def test_tampered_certificate_is_rejected(cert, what):
    c = copy.deepcopy(cert)
    d = c["data"]
    if what == "c":
        d["c"] = str(Fraction(d["c"]) / 10)
    elif what == "lam":
        d["lam"] = str(Fraction(d["lam"]) * 10)
    elif what == "n":
        d["n"] = ["0"]
    elif what == "P":
        d["P"][0][1] = d["P"][1][0] = str(Fraction(d["P"][0][1]) + 5)
    else:
        d["steps"] = d["steps"][:2]   # the tube ends too early, outside the level set
    with pytest.raises(CertificationFailed):
        check(Certificate.from_dict(c))
