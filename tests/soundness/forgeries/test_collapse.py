"""Forgeries of ``tube-collapse`` (kinds/collapse.py): one per hypothesis of its argument, each
consistent in every other field, plus the reviewer's moves (another variant, a schedule, several
heads, Σ₀ = 0, a Σ₀ that blows up under the genuine data).  No forgery was accepted before the
hypotheses were declared; the checks only got one message per hypothesis."""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, forge, q, rejects

DOC = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "1/2"], ["-1/2", "1"]],
       "F": [["-2", "1/2"], ["0", "-3/2"]], "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}


@pytest.fixture(scope="module")
def genuine():
    """The tampering suite's genuine certificate (the library's search, about 1 s)."""
    from symbolic_tf.certify.search.validated.tube_collapse import find_collapse

    v = find_collapse(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    accepts(c)
    return c


def _scaled(x, f):
    return q(Fraction(x) * f)


def test_collapse_other_variant(genuine):
    """The same matrices under a flow that is not the softmax quadratic field, or with a schedule."""
    for variant in ("sinkhorn", "masked"):
        rejects(forge(genuine, problem={**genuine["problem"], "variant": variant}),
                r"not the quadratic softmax-type field")
    phases = [{"duration": "1/2"}, {"duration": "1", "A": [["1", "0"], ["0", "2"]]}]
    rejects(forge(genuine, problem={**genuine["problem"], "phase": phases}), r"constant parameters only")


def test_collapse_two_heads_need_two_bounds(genuine):
    p = genuine["problem"]
    two = {"variant": "multihead", "d": 2, "F": p["F"], "initial": p["initial"],
           "heads": [{"A": p["A"], "V": p["V"]}, {"A": p["A"], "V": p["V"]}]}
    rejects(forge(genuine, problem=two), r"n needs one bound per head \(2\)")


def test_collapse_without_drift(genuine):
    prob = {k: v for k, v in genuine["problem"].items() if k != "F"}
    rejects(forge(genuine, problem=prob), r"needs a drift F")


def test_collapse_sigma0_not_psd(genuine):
    """A Σ₀ that is not ⪰ 0 cannot even be embedded: the problem parser refuses it (so no hash can
    be recomputed for it), and the checker decides Σ₀ ⪰ 0 exactly on top."""
    c = copy.deepcopy(genuine)
    c["problem"]["initial"] = {"cov": [["1", "1/4"], ["1/4", "-1/100"]]}
    rejects(c, r"not positive semidefinite")


def test_collapse_p_lo_too_large(genuine):
    # λ_min(P) ≈ 0.69; p_lo = 1 only helps c·p_lo² ≥ 2Σn_h, so P − p_lo·I ⪰ 0 fails alone
    rejects(forge(genuine, data={"p_lo": "1"}), r"P − p_lo·I is not positive semidefinite")
    P = genuine["data"]["P"]
    bent = [[P[0][0], _scaled(P[0][1], 2)], P[1]]
    rejects(forge(genuine, data={"P": bent}), r"P is not symmetric")


def test_collapse_lam_too_large(genuine):
    """lam = 3 (the level lam/c rises, so the tube's end is even further below it): the drift decays
    at most like e^{−3t} in tr(PΣ) for this P, the Lyapunov inequality fails."""
    rejects(forge(genuine, data={"lam": "3"}), r"−\(PF \+ FᵀP\) − lam·P is not positive semidefinite")
    rejects(forge(genuine, data={"lam": "0"}), r"lam must be positive")


def test_collapse_head_bound_too_small(genuine):
    n = genuine["data"]["n"]
    rejects(forge(genuine, data={"n": [_scaled(n[0], Fraction(1, 2))]}), r"head bound n\[0\]² < ‖PC‖_F²·‖A‖_F²")
    rejects(forge(genuine, data={"n": ["-1"]}), r"head bound n_h must be ≥ 0")


def test_collapse_c_too_small(genuine):
    """c/10 raises the level lam/c tenfold; the quadratic rate bound fails."""
    rejects(forge(genuine, data={"c": _scaled(genuine["data"]["c"], Fraction(1, 10))}), r"c·p_lo² < 2·Σ n_h")
    rejects(forge(genuine, data={"c": "0"}), r"c must be positive")


def test_collapse_tube_step_too_long(genuine):
    steps = genuine["data"]["steps"]
    rejects(forge(genuine, data={"steps": steps[:2] + [_scaled(steps[-1], 1000)]}),
            r"a priori \(Picard\) enclosure fails on step 2")


def test_collapse_tube_ends_above_the_level(genuine):
    """The tube cut after its first step: a genuine enclosure, still above the level lam/c."""
    rejects(forge(genuine, data={"steps": genuine["data"]["steps"][:2]}),
            r"not below the level: tr\(PΣ\) < lam/c fails")


def test_collapse_blowing_up_sigma0_under_the_genuine_bounds(genuine):
    """The genuine P, lam, c with Σ₀ = 20·I and a short validated tube: the file claims collapse,
    the solution blows up (independent DOP853 integration); the tube's end is far above the level."""
    prob = {**genuine["problem"], "initial": {"cov": [["20", "0"], ["0", "20"]]}}
    sim = simulate(parse_problem(prob), 10.0)
    assert sim.status == "blowup" and sim.t < 1, sim
    forged = forge(genuine, problem=prob, data={"steps": ["0", "1/1024"]})
    rejects(forged, r"not below the level")


def test_collapse_sigma0_zero_is_a_true_collapse(genuine):
    """Σ₀ = 0 is the equilibrium 0: "Σ(t) → 0" is true, and the checker may accept it."""
    prob = {**genuine["problem"], "initial": {"cov": [["0", "0"], ["0", "0"]]}}
    accepts(forge(genuine, problem=prob))


def test_collapse_claim_for_every_sigma0(genuine):
    rejects(forge(genuine, quantifier="every Σ₀ ⪰ 0"), r"stated claim is not the one the data prove")
    rejects(forge(genuine, params={"rank": 1}), r"stated claim is not the one the data prove")
    rejects(forge(genuine, subject="BOUNDED", params={}), r"stated claim is not the one the data prove")
    rejects(forge(genuine, status="REFUTED"), r"status")
