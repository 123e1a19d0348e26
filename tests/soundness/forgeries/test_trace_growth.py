"""Forgeries of ``trace-growth-lmi`` certificates (symbolic_tf/certify/check/kinds/trace_growth_lmi.py, HYPOTHESES):
each violates one hypothesis of the trace-functional argument on the PSD cone, every other one kept."""
from __future__ import annotations


import pytest

from symbolic_tf.certify.search._trace_growth_lmi import find_trace_growth
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, edited, forge, q, rejects

# seed 0 #23 of the general-V set: a skew A (q_P = 2·tr(PVA)·det Σ, indefinite on Sym(2)), an unstable drift
SKEW = {"variant": "softmax", "d": 2, "A": [["0", "-2"], ["2", "0"]], "V": [["0", "-1"], ["2", "1"]],
        "F": [["0", "1"], ["-1", "3/2"]], "initial": {"cov": [["5/4", "-3/4"], ["-3/4", "77/16"]]}}
# A = V = I blows up from every Σ₀ ≠ 0 (T* = 1/(2λ_max Σ₀), docs/mathematics.md §4)
BLOWUP = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "0"], ["0", "1"]],
          "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}


@pytest.fixture(scope="module")
def cert():
    ver = find_trace_growth(parse_problem(SKEW))
    assert ver.status == "PROVED", ver.reason
    c = ver.evidence["certificate"]
    assert accepts(c).claim.subject == "GLOBAL_EXISTENCE"
    assert c["data"]["P"] == [["1", "0"], ["0", "1"]] and c["data"]["lam"] == ["12"]
    return c


def _doc(base, **kw):
    return edited(base, **kw)


def test_refuted_status(cert):
    rejects(forge(cert, status="REFUTED"), "status must be PROVED")


def test_not_quadratic(cert):
    rejects(forge(cert, problem=_doc(SKEW, variant="sinkhorn")), "not softmax / multi-head softmax")
    rejects(forge(cert, problem=_doc(SKEW, variant="linear")), "not softmax / multi-head softmax")


def test_schedule(cert):
    doc = _doc(SKEW, phase=[{"duration": "1/2"}, {"duration": 1, "A": [["1", "0"], ["0", "1"]]}])
    rejects(forge(cert, problem=doc), "constant parameters only")


def test_P_not_positive_definite(cert):
    # P = 0, λ = 0, κ = 0 satisfy every inequality for any flow: "bounded" for A = V = I, which blows up
    zero = forge(cert, problem=BLOWUP, data={"P": [["0", "0"], ["0", "0"]], "lam": ["0"], "kappa": "0"},
                 subject="BOUNDED")
    rejects(zero, "P is not symmetric positive definite")
    rejects(forge(cert, data={"P": [["1", "1"], ["0", "1"]]}), "P is not symmetric positive definite")


def test_negative_multiplier(cert):
    # V → −V flips tr(PVA): q_P = +24·det Σ ≥ 0 on the cone; λ = −12 makes the form exactly 0 again
    V = [[q(-int(x)) for x in row] for row in SKEW["V"]]
    forged = forge(cert, problem=_doc(SKEW, V=V), data={"lam": ["-12"]})
    rejects(forged, "non-negative multipliers")
    rejects(forge(cert, data={"lam": ["12", "0"]}), "lam needs 1 non-negative multipliers")
    rejects(forge(cert, data={"lam": []}), "lam needs 1 non-negative multipliers")


def test_cone_lmi_fails(cert):
    # the genuine P, λ, κ (κ only involves P and F, kept) reused for a flow that blows up
    rejects(forge(cert, problem=_doc(BLOWUP, F=SKEW["F"])), "not negative semidefinite \\(1 positive")


def test_kappa_too_small(cert):
    # PF + FᵀP = F + Fᵀ = diag(0, 3): κ must be ≥ 3; a forged κ = 0 would claim BOUNDED
    rejects(forge(cert, data={"kappa": "0"}, subject="BOUNDED"), "PF \\+ FᵀP − κP is not negative semidefinite")
    rejects(forge(cert, data={"kappa": "2"}), "PF \\+ FᵀP − κP is not negative semidefinite")
    # the genuine κ ≈ 3 with a stronger drift: F + Fᵀ = diag(8, 3)
    rejects(forge(cert, problem=_doc(SKEW, F=[["4", "1"], ["-1", "3/2"]])), "PF \\+ FᵀP − κP")


def test_regime_label(cert):
    # κ > 0: at most exponential growth, not boundedness
    rejects(forge(cert, subject="BOUNDED"), "not the one the data prove.*grows at most exponentially")


def test_harmless_changes_stay_proved(cert):
    # without the drift the same κ > 0 is still a (weak) true bound; a bias does not enter Σ̇
    accepts(forge(cert, problem=_doc(SKEW, F=None)))
    accepts(forge(cert, problem=_doc(SKEW, b=["1", "-1"])))
    rejects(forge(cert, problem=_doc(SKEW, F=None), data={"kappa": "0"}), "not the one the data prove.*bounded")
    accepts(forge(cert, problem=_doc(SKEW, F=None), data={"kappa": "0"}, subject="BOUNDED"))
