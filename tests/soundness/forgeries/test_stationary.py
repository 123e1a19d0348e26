"""Forgeries of ``stationary`` certificates: each violates one hypothesis of the argument
(symbolic_tf/certify/check/kinds/stationary.py, HYPOTHESES), every other field kept consistent."""
from __future__ import annotations

import math

import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.search._stationary import stationary
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, edited, forge, rejects

SKEW = {"variant": "softmax", "d": 2, "A": [["0", "1"], ["-1", "0"]], "V": [["1", "0"], ["0", "1"]],
        "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}   # Σ(A + Aᵀ)Σ = 0: every Σ₀ is stationary
ZERO = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "1/10"], ["0", "1"]],
        "initial": {"cov": [["0", "0"], ["0", "0"]]}}


def _genuine(doc):
    ver = stationary(parse_problem(doc))
    assert ver.status == "PROVED", ver.reason
    return ver.evidence["certificate"]


@pytest.fixture(scope="module")
def skew():
    c = _genuine(SKEW)
    assert accepts(c).claim.params == {"stationary": True, "rank": 2}
    return c


@pytest.fixture(scope="module")
def zero():
    c = _genuine(ZERO)
    assert accepts(c).claim.params == {"stationary": True, "rank": 0}
    return c


def _doc(base, **kw):
    return edited(base, **kw)


def test_no_sigma0(skew):
    rejects(forge(skew, problem=_doc(SKEW, initial=None)), "no Σ₀")


def test_schedule(skew):
    doc = _doc(SKEW, phase=[{"duration": "1/2"}, {"duration": 1, "A": [["1", "0"], ["0", "1"]]}])
    rejects(forge(skew, problem=doc), "constant parameters only")


def test_variant_not_closed(zero):
    # sigmoid attention is not Gaussian-closed: the covariance ODE does not describe its flow
    rejects(forge(zero, problem=_doc(ZERO, variant="sigmoid")), "not Gaussian-closed")


def test_sigma0_nonzero_not_quadratic(skew):
    # Sinkhorn is closed, but its right-hand side is not the quadratic field evaluated exactly
    rejects(forge(skew, problem=_doc(SKEW, variant="sinkhorn")), "only for softmax")


def test_rhs_not_zero(skew):
    # A no longer skew: Σ̇(Σ₀) = Σ₀(A + Aᵀ)Σ₀ ≠ 0
    rejects(forge(skew, problem=_doc(SKEW, A=[["0", "1"], ["0", "0"]])), "Σ̇\\(Σ₀\\) ≠ 0.*not an equilibrium")


def test_claimed_rank(skew):
    rejects(forge(skew, params={"stationary": True, "rank": 1}), "not the one the data prove.*rank 2")


def test_sigma0_zero_is_stationary_for_normalised_heads(zero):
    # the point mass moves linearly (α̇ = (F + V)α + b): a genuine stationary claim, mean and drift included
    for doc in (_doc(ZERO, initial={"mean": ["1", "-2"], "cov": ZERO["initial"]["cov"]}, b=["1", "1"]),
                _doc(ZERO, variant="l2", A=None, Q=[["1", "0"], ["0", "1"]], K=[["1", "0"], ["0", "1"]],
                     initial={"mean": ["3", "0"], "cov": ZERO["initial"]["cov"]})):
        accepts(_genuine(doc))
        accepts(forge(zero, problem=doc))


LINEAR = {"variant": "linear", "d": 1, "A": [["1"]], "V": [["1"]], "initial": {"mean": ["1"], "cov": [["0"]]}}


def test_point_mass_escapes(zero):
    """A hole (accepted before the point-mass check): linear attention at Σ₀ = 0 with α₀ = 1.

    The law is δ_α with α̇ = (αᵀAα)Vα = α³, so α(t) = (1 − 2t)^(-1/2) leaves every bounded set at t = 1/2:
    the solution is not global, and "Σ(t) = Σ₀ for all t" is false."""
    forged = forge(zero, problem=LINEAR)
    # independent: DOP853 on α̇ = α³ cannot pass t = 1/2 (α is already ≥ 10⁶ before it)
    big = lambda t, y: abs(y[0]) - 1e6  # noqa: E731
    big.terminal = True
    sol = solve_ivp(lambda t, y: y ** 3, (0.0, 1.0), [1.0], method="DOP853", rtol=1e-12, atol=1e-14, events=big)
    assert sol.status == 1 and sol.t_events[0][0] < 0.5
    assert math.isclose(sol.t_events[0][0], 0.5 * (1 - 1e-12), rel_tol=1e-6)   # closed form: α = 10⁶
    rejects(forged, "α₀ = 0 and b = 0.*escape")
    # the same head inside a multi-head problem, and a bias that pushes α off 0
    mh = {"variant": "multihead", "d": 1, "heads": [{"variant": "linear", "A": [["1"]], "V": [["1"]]}],
          "initial": {"mean": ["1"], "cov": [["0"]]}}
    rejects(forge(zero, problem=mh), "α₀ = 0 and b = 0")
    rejects(forge(zero, problem=_doc(LINEAR, initial={"cov": [["0"]]}, b=["1"])), "α₀ = 0 and b = 0")
    # at rest (α₀ = 0, b = 0) the point mass stays at 0: still proved
    accepts(forge(zero, problem=_doc(LINEAR, initial={"mean": ["0"], "cov": [["0"]]})))


def test_search_does_not_propose_the_escaping_point_mass():
    """The search side applies the same condition: for linear attention from α₀ = 1, Σ₀ = 0 the
    route answers UNDECIDED with the reason instead of a certificate the checker refuses."""
    from symbolic_tf.certify.search._stationary import stationary
    from symbolic_tf.spec.problem import parse_problem

    v = stationary(parse_problem({"variant": "linear", "d": 1, "A": [[1]], "V": [[1]],
                                  "initial": {"mean": [1], "cov": [[0]]}}))
    assert v.status == "UNDECIDED" and "escape" in v.reason
