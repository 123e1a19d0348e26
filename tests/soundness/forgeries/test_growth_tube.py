"""Forgeries of ``tube-growth`` (kinds/growth_tube.py): one per hypothesis of its argument, each
consistent in every other field, plus the reviewer's moves (the optional first-order centre Y_one
dropped, the other isotropic branch, a stretched v_max, another Σ₀ or drift under the genuine
region, a stretched claim).  No forgery was accepted before the hypotheses were declared."""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, forge, q, qm, rejects

# the tampering suite's problem: issue-15 general-V soak #26, Σ/tr Σ settles on an isotropic line
DOC = {"variant": "softmax", "d": 2, "A": [["1/4", "-1/3"], ["-5/3", "-3/4"]], "V": [["-2", "2"], ["0", "0"]],
       "F": [["-4/3", "4/3"], ["-2", "1"]], "initial": {"cov": [["19/8", "-3/2"], ["-3/2", "217/36"]]}}


@pytest.fixture(scope="module")
def genuine():
    """The genuine certificate found by the library's search (about 0.3 s)."""
    from symbolic_tf.certify.search.validated._tube_growth import find_growth

    v = find_growth(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    assert "Y_one" in c["data"]
    accepts(c)
    return c


def _f(M):
    return np.array([[float(Fraction(x)) for x in r] for r in M])


def _phi(V, A, F, P, Y, v):
    """φ(Y, v) = tr DQ(P)[Y] + tr L(P) + v·(tr Q(Y) + tr L(Y)), written out from docs/mathematics.md §8."""
    def Q(X):
        H = V @ X @ A @ X
        return H + H.T

    def L(X):
        return F @ X + X @ F.T

    H = V @ Y @ A @ P + V @ P @ A @ Y
    return np.trace(H + H.T) + np.trace(L(P)) + v * (np.trace(Q(Y)) + np.trace(L(Y)))


def _isotropic(A, branch):
    S = A + A.T
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    w = np.array([1.0, (-b + (1, -1)[branch] * math.sqrt(b * b - a * c)) / c])
    return np.outer(w, w) / (w @ w)


def test_growth_without_drift(genuine):
    prob = {k: v for k, v in genuine["problem"].items() if k != "F"}
    rejects(forge(genuine, problem=prob), r"covers d = 2 with a drift F ≠ 0 only")


def test_growth_other_problem_classes(genuine):
    p = genuine["problem"]
    two = {"variant": "multihead", "d": 2, "F": p["F"], "initial": p["initial"],
           "heads": [{"A": p["A"], "V": p["V"]}, {"A": p["A"], "V": p["V"]}]}
    rejects(forge(genuine, problem=two), r"covers single-head softmax only")
    rejects(forge(genuine, problem={**p, "variant": "sinkhorn"}), r"not the quadratic softmax-type field")
    phases = [{"duration": "1/2"}, {"duration": "1", "F": [["-1", "0"], ["0", "-1"]]}]
    rejects(forge(genuine, problem={**p, "phase": phases}), r"constant parameters only")
    eye = qm(np.eye(3, dtype=int))
    d3 = {"variant": "softmax", "d": 3, "A": eye, "V": eye, "F": eye, "initial": {"cov": eye}}
    rejects(forge(genuine, problem=d3), r"covers d = 2 with a drift F ≠ 0 only")


def test_growth_sigma0_not_psd(genuine):
    c = copy.deepcopy(genuine)
    c["problem"]["initial"] = {"cov": [["1", "1/4"], ["1/4", "-1/100"]]}
    rejects(c, r"not positive semidefinite")


def test_growth_A_not_indefinite(genuine):
    """A = I: A + Aᵀ ≻ 0 has no isotropic direction, so there is no P with Q(P) = 0."""
    rejects(forge(genuine, problem={**genuine["problem"], "A": [["1", "0"], ["0", "1"]]}),
            r"A \+ Aᵀ is not indefinite: no isotropic rank-one point")


def test_growth_other_branch(genuine):
    """The region certified around one isotropic point, P taken on the other line."""
    rejects(forge(genuine, data={"branch": 1 - genuine["data"]["branch"]}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0")


def test_growth_centre_not_trace_zero(genuine):
    """Y₁₁ moved by 10⁻³⁰ (the coordinates (Y₀₀, Y₀₁) unchanged, every ball check still passes)."""
    eps = Fraction(1, 10 ** 30)
    for key in ("Y_star", "Y_one"):
        Y = genuine["data"][key]
        bad = [Y[0], [Y[1][0], q(Fraction(Y[1][1]) + eps)]]
        rejects(forge(genuine, data={key: bad}), rf"{key} must (be symmetric with )?(have )?trace zero")


def test_growth_W_not_positive_definite(genuine):
    W = genuine["data"]["W"]
    rejects(forge(genuine, data={"W": [W[0], [W[1][0], q(-Fraction(W[1][1]))]]}), r"W is not positive definite")


def test_growth_ellipsoid_leaves_the_box(genuine):
    R = [q(Fraction(x) / 2) for x in genuine["data"]["R"]]
    rejects(forge(genuine, data={"R": R}), r"leaves the box in coordinate 0")


def test_growth_contraction_rate_too_large(genuine):
    """mu × 1000 (the residual bound only gets easier) and v_max × 2 (a region reaching smaller
    tr Σ, where the drift's v-terms dominate): the contraction fails."""
    d = genuine["data"]
    rejects(forge(genuine, data={"mu": q(Fraction(d["mu"]) * 1000)}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")
    rejects(forge(genuine, data={"v_max": q(Fraction(d["v_max"]) * 2)}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")


def test_growth_constant_centre_residual_too_large(genuine):
    """The optional first-order centre dropped (the branch without Y_one): with c(v) = Y_star the
    residual v·R(Y_star) is too large for this v_max — the residual is still checked on that branch."""
    rejects(forge(genuine, data={"Y_one": None}), r"the centre's residual is too large")
    rejects(forge(genuine, data={"rho": q(Fraction(genuine["data"]["rho"]) / 100)}), r"the centre's residual is too large")


def test_growth_rate_not_positive(genuine):
    """The drift F − I: tr L(P) drops by 2 and nothing else in the contraction or the residual gets
    worse (the added −2v·Y only contracts).  φ becomes negative at the corner (v_max, +R) of the
    region (independent float evaluation), so tr Σ need not grow there."""
    d = genuine["data"]
    F = [[q(Fraction(genuine["problem"]["F"][i][j]) - (i == j)) for j in range(2)] for i in range(2)]
    V, A, Ys, Y1 = _f(DOC["V"]), _f(DOC["A"]), _f(d["Y_star"]), _f(d["Y_one"])
    R, v = [float(Fraction(x)) for x in d["R"]], float(Fraction(d["v_max"]))
    Y = Ys + v * Y1 + np.array([[R[0], R[1]], [R[1], -R[0]]])
    P = _isotropic(A, d["branch"])
    assert abs(np.trace(V @ P @ A @ P)) < 1e-12
    assert _phi(V, A, _f(F), P, Y, v) < 0 < _phi(V, A, _f(DOC["F"]), P, Y, v)
    rejects(forge(genuine, problem={**genuine["problem"], "F": F}), r"growth rate φ = \(log tr Σ\)˙ is not positive")


def test_growth_tube_step_too_long(genuine):
    steps = genuine["data"]["steps"]
    rejects(forge(genuine, data={"steps": steps[:2] + [q(Fraction(steps[-1]) * 1000)]}),
            r"a priori \(Picard\) enclosure fails on step 2")


def test_growth_tube_ends_below_one_over_v_max(genuine):
    """v_max / 10⁶: the region checks hold on the smaller range, the tube's end is not in it."""
    rejects(forge(genuine, data={"v_max": q(Fraction(genuine["data"]["v_max"]) / 10 ** 6)}),
            r"tr Σ\(t_N\) is not above 1/v_max")
    rejects(forge(genuine, data={"v_max": "0"}), r"v_max must be positive")


def test_growth_sigma0_zero(genuine):
    """Σ₀ = 0 stays 0 (no growth along the cone); its tube's end has tr Σ = 0 < 1/v_max."""
    prob = {**genuine["problem"], "initial": {"cov": [["0", "0"], ["0", "0"]]}}
    rejects(forge(genuine, problem=prob), r"tr Σ\(t_N\) is not above 1/v_max")


def test_growth_tube_ends_outside(genuine):
    """The tube cut after its first step: tr Σ is above 1/v_max, but Σ/tr Σ is not yet in the cone."""
    rejects(forge(genuine, data={"steps": genuine["data"]["steps"][:2]}), r"the tube's end is not inside")
    rejects(forge(genuine, data={"rho": q(Fraction(genuine["data"]["rho"]) / 2)}), r"the tube's end is not inside")


def test_growth_claim_for_this_sigma0(genuine):
    rejects(forge(genuine, quantifier="every Σ₀ ≻ 0"), r"stated claim is not the one the data prove")
    rejects(forge(genuine, subject="BOUNDED"), r"stated claim is not the one the data prove")
    rejects(forge(genuine, subject="CLUSTERING", params={"rank": 1}), r"stated claim is not the one the data prove")
    rejects(forge(genuine, status="REFUTED"), r"status")
