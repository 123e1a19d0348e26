"""Forgeries of ``rank-one-flow`` certificates (symbolic_tf/certify/check/kinds/rank_one_flow.py, HYPOTHESES): each
violates one hypothesis of the time change Σ = xxᵀ, ẋ = f·x + (xᵀÃx)Cx, along y(σ) = e^{sCσ}w."""
from __future__ import annotations

import pytest

from symbolic_tf.certify.search._rank_one_flow import rank_one_flow
from symbolic_tf.certify.search.routes import Context
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, edited, forge, rejects

# h = s·c·yᵀÃy changes sign: the direction reaches an isotropic line of Ã (rank-one limit)
ZERO = {"variant": "softmax", "d": 2, "A": [["1/3", "2"], ["-1/2", "1"]], "V": [["1/2", "2"], ["1/2", "-2"]],
        "initial": {"cov": [["1", "-1"], ["-1", "1"]]}}
# sym(A) = e₁e₁ᵀ: h = c·(e₁ᵀy)² touches 0 where the rotating y crosses e₂
LINEAR = {"variant": "softmax", "d": 2, "A": [["1", "1/3"], ["-1/3", "0"]], "V": [["1/3", "-1"], ["1/3", "1"]],
          "initial": {"cov": [["4", "4"], ["4", "4"]]}}
# A = I, V = [[2, 1], [0, 1]]: h = c|y|² grows like e^{4σ}: blow-up
BLOWUP = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["2", "1"], ["0", "1"]],
          "initial": {"cov": [["1", "1"], ["1", "1"]]}}
# V Hurwitz, A = I: y → 0 with h > 0 for ever: collapse
DECAY = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["-2", "-1"], ["0", "-1"]],
         "initial": {"cov": [["1", "1"], ["1", "1"]]}}


def _cert(doc):
    v = rank_one_flow(parse_problem(doc), Context())
    assert v.status == "PROVED", v.reason
    return v.evidence["certificate"]


@pytest.fixture(scope="module")
def zero():
    c = _cert(ZERO)
    assert accepts(c).claim.params == {"rank": 1} and c["data"]["end"] == "zero"
    return c


@pytest.fixture(scope="module")
def linear():
    c = _cert(LINEAR)
    assert accepts(c).claim.params == {"rank": 1} and c["data"]["end"] == "zero-linear"
    return c


@pytest.fixture(scope="module")
def blowup():
    c = _cert(BLOWUP)
    assert accepts(c).claim.subject == "BLOWUP" and c["data"]["end"] == "blowup"
    return c


@pytest.fixture(scope="module")
def decay():
    c = _cert(DECAY)
    assert accepts(c).claim.params == {"rank": 0} and c["data"]["end"] == "decay"
    return c


def test_factor_not_sigma0(zero):
    rejects(forge(zero, data={"c": "2"}), "c·wwᵀ ≠ Σ₀")
    rejects(forge(zero, problem=edited(ZERO, initial={"cov": [["1", "0"], ["0", "1"]]})), "c·wwᵀ ≠ Σ₀")
    rejects(forge(zero, data={"w": ["0", "0"]}), "nonzero w")


def test_two_heads(zero):
    heads = [{"variant": "softmax", "A": ZERO["A"], "V": ZERO["V"]}] * 2
    two = {"variant": "multihead", "d": 2, "heads": heads, "initial": ZERO["initial"]}
    rejects(forge(zero, problem=two), "exactly one quadratic head")
    rejects(forge(zero, problem=edited(ZERO, F=[["0", "1"], ["0", "0"]], b=["0", "0"])), "scalar")


def test_wrong_sign(zero):
    rejects(forge(zero, data={"sign": 1}), "h\\(0\\)")
    rejects(forge(zero, data={"sign": 2}), "sign must be")


def test_knots_not_increasing(blowup):
    k = blowup["data"]["knots"]
    rejects(forge(blowup, data={"knots": [k[0], k[2], k[1]] + k[3:]}), "increase strictly")
    rejects(forge(blowup, data={"knots": ["1/2"] + k[1:]}), "increase strictly")


def test_h_not_positive(linear):
    # the touching zero of h: a blow-up end over knots that cross it has an interval where h > 0 fails
    knots = ["0", linear["data"]["knots"][-1], str(2 * int(1 + float(eval(linear["data"]["knots"][-1]))))]
    data = {"end": "blowup", "knots": knots, "G": [["1", "0"], ["0", "0"]], "alpha": "0", "kappa": "1", "beta": "0",
            "T_lo": "0", "T_hi": "1"}
    rejects(forge(linear, data=data), "h is not proved > 0")


def test_no_sign_change(zero):
    rejects(forge(zero, data={"knots": ["0", "1/1000"]}), "no sign change")


def test_linear_no_sign_change(linear):
    rejects(forge(linear, data={"knots": ["0", "1/1000"]}), "does not change sign")
    rejects(forge(linear, data={"a": ["0", "1"]}), "λ·aaᵀ")
    rejects(forge(zero_cert := _cert(ZERO), data={"end": "zero-linear", "a": ["1", "0"]}), "λ·aaᵀ")
    assert zero_cert["data"]["end"] == "zero"


def test_cone_forged(blowup):
    rejects(forge(blowup, data={"kappa": "100"}), "not positive semidefinite")
    rejects(forge(blowup, data={"G": [["-1", "0"], ["0", "-1"]]}), "not inside the cone|not positive semidefinite")
    rejects(forge(blowup, data={"kappa": "0"}), "κ > 0")
    rejects(forge(blowup, data={"beta": "-1"}), "β ≥ 0")


def test_decay_not_hurwitz(decay):
    rejects(forge(decay, data={"P": [["1", "0"], ["0", "-1"]]}), "positive definite")
    # the same data on the growing flow: y does not decay
    rejects(forge(decay, problem=BLOWUP), "negative definite|not proved|not positive semidefinite|inside the cone")


def test_bracket_too_narrow(blowup, zero):
    lo, hi = blowup["data"]["T_lo"], blowup["data"]["T_hi"]
    rejects(forge(blowup, data={"T_hi": lo}, params={"T_lo": lo, "T_hi": lo}), "does not contain the derived one")
    rejects(forge(blowup, data={"T_lo": hi}, params={"T_lo": hi, "T_hi": hi}), "does not contain the derived one")
    rejects(forge(zero, subject="BLOWUP", params={}), "not the one the data prove")
    rejects(forge(zero, params={"rank": 0}), "not the one the data prove")
