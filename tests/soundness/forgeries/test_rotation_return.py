"""Forgeries of ``tube-rotation-return`` (kinds/rotation_return.py): one per hypothesis of the
Poincaré-return argument for a rotating blow-up, each consistent in every other field, plus the
review's hunt (another Σ₀, a drift, the two tubes' roles swapped, the section's sense reversed, a
collapsing problem).

The genuine certificate is the library's search on the closed-form rotation A = I, V = I + 2J from
Σ₀ = diag(1, 10⁻⁶) near the rank-one circle (T* = 1/(2λ_max(Σ₀)) = 1/2; about 2 s).

Three hypotheses cannot be violated alone by tubes that replay: u₁ > 0 and σ > 0 hold for every
forward projective solution (u = u₀e^{−∫c} > 0, s' = u), and 0 < μ < 1 is forced by a return into
B — along the projective flow (1 − tr X)/u is constant (tr X' = c(1 − tr X), u' = −cu), so the
spread of tr X over B is multiplied by μ at each return.  Their tests show that forgeries aiming at
them fail at the return, and exercise the checks themselves with a leg whose balls are replaced.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import flint
import pytest

from symbolic_tf.certify.check.kinds import tube_rotation_return as rotation_return
from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, forge, q, rejects

I2 = [["1", "0"], ["0", "1"]]
DOC = {"variant": "softmax", "d": 2, "A": I2, "V": [["1", "-2"], ["2", "1"]],
       "initial": {"cov": [["1", "0"], ["0", "1/1000000"]]}}
COLLAPSE = {"variant": "softmax", "d": 2, "A": [["-1", "-1/4"], ["3/2", "-1/2"]], "V": [["1/3", "-2"], ["1", "1/4"]],
            "initial": {"cov": [["17/4", "4"], ["4", "33/4"]]}}
_P = "the stated claim is not the one the data prove"


@pytest.fixture(scope="module")
def genuine():
    from symbolic_tf.certify.search.validated._tube_rotation_return import find_rotation_return

    v = find_rotation_return(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    accepts(c)
    assert Fraction(c["data"]["T_lo"]) <= Fraction(1, 2) <= Fraction(c["data"]["T_hi"])
    return c


def _with_bracket(cert, lo, hi, **kw):
    return forge(cert, data={**kw.pop("data", {}), "T_lo": q(lo), "T_hi": q(hi)},
                 params={"T_lo": q(lo), "T_hi": q(hi)}, **kw)


def _diag(d):
    """The svec-upper indices of the diagonal entries."""
    from symbolic_tf.certify.check.tube_replay import svec_pairs

    return [k for k, (a, b) in enumerate(svec_pairs(d)) if a == b]


# ---------------------------------------------------------------- one forgery per hypothesis
def test_return_needs_the_quadratic_flow(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "variant": "sinkhorn"}),
            r"not the quadratic softmax-type field")
    rejects(forge(genuine, problem={**genuine["problem"], "relu": {"W1": [[1, 0]], "W2": [[1], [0]]}}),
            r"ReLU feed-forward term")
    sched = {**genuine["problem"], "phase": [{"duration": "1/8"}, {"duration": 1, "A": [[1, 0], [0, -1]]}]}
    rejects(forge(genuine, problem=sched), r"constant parameters only")
    I5 = [[int(i == j) for j in range(5)] for i in range(5)]
    rejects(forge(genuine, problem={**genuine["problem"], "d": 5, "A": I5, "V": I5, "initial": {"cov": I5}}),
            r"d ≤ 4 only")


def test_return_refuses_a_drift(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "F": [["1/1000", "0"], ["0", "1/1000"]]}),
            r"needs a flow without drift")


def test_return_sigma0_zero(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "initial": {"cov": [["0", "0"], ["0", "0"]]}}),
            r"tr Σ₀ must be positive")
    m = copy.deepcopy(genuine)
    m["problem"]["initial"] = {"cov": [["1", "0"], ["0", "-1"]]}
    rejects(m, r"not positive semidefinite")


def test_return_section_box_malformed(genuine):
    d = genuine["data"]
    j = d["section"]
    rejects(forge(genuine, data={"section": 3}), r"section must be an integer in \[0, 2\]")
    off = list(d["box_lo"])
    off[j] = q(Fraction(off[j]) - Fraction(1, 10 ** 9))
    rejects(forge(genuine, data={"box_lo": off}), r"box must lie on the section")
    k = next(i for i in range(3) if i != j)
    swapped_lo, swapped_hi = list(d["box_lo"]), list(d["box_hi"])
    swapped_lo[k], swapped_hi[k] = d["box_hi"][k], d["box_lo"][k]
    rejects(forge(genuine, data={"box_lo": swapped_lo, "box_hi": swapped_hi}), r"box_lo must not exceed box_hi")
    rejects(forge(genuine, data={"box_lo": d["box_lo"][:2], "box_hi": d["box_hi"][:2]}), r"m = 3 entries")


def test_return_box_trace_not_positive(genuine):
    """The box's diagonal lower corners lowered until Σ_k lo_kk ≤ 0 (it then contains X = 0 directions)."""
    d = genuine["data"]
    lo = list(d["box_lo"])
    for k in _diag(2):
        if k != d["section"]:
            lo[k] = q(-abs(Fraction(d["box_hi"][k])) - 1)
    assert sum(Fraction(lo[k]) for k in _diag(2)) <= 0
    rejects(forge(genuine, data={"box_lo": lo}), r"tr X must be positive on the box")


def test_return_first_crossing_fails(genuine):
    d = genuine["data"]
    rejects(forge(genuine, data={"proj_steps": d["proj_steps"][:-8]}),
            r"the tube from Σ₀: the tube's end is not past the section")
    # Σ₀ = diag(1, 1/1000), farther from the circle: its tube crosses, but outside the box
    cov = [["1", "0"], ["0", "1/1000"]]
    rejects(forge(genuine, problem={**genuine["problem"], "initial": {"cov": cov}}),
            r"the tube from Σ₀: (its crossing enclosure is not inside the section box|the tube's end is not past)")
    rejects(forge(genuine, data={"proj_steps": [d["proj_steps"][0], d["proj_steps"][-1]]}),
            r"the tube from Σ₀: the projective tube's step 1 does not validate")


def test_return_return_fails(genuine):
    d = genuine["data"]
    rejects(forge(genuine, data={"return_steps": d["return_steps"][:-8]}),
            r"the tube from the box: the tube's end is not past the section")
    # the box tripled around its centre (the Σ₀ tube still lands in it): the return from the larger
    # box is not certified across the section by the stored steps
    j = d["section"]
    lo, hi = list(d["box_lo"]), list(d["box_hi"])
    for k in range(3):
        if k != j:
            a, b = Fraction(lo[k]), Fraction(hi[k])
            mid, half = (a + b) / 2, 3 * (b - a) / 2
            lo[k], hi[k] = q(mid - half), q(mid + half)
    rejects(forge(genuine, data={"box_lo": lo, "box_hi": hi}), r"the tube from the box: ")


def _fake_leg(monkeypatch, u1=None, mu=None, sigma=None):
    """The checker with its legs' (u, s) balls replaced where given (every other check as usual)."""
    real = rotation_return._leg
    calls = []

    def leg(field, Z0, steps, name, *args):
        u, s = real(field, Z0, steps, name, *args)
        calls.append(name)
        if name == "Σ₀":
            return (u if u1 is None else flint.arb(u1)), s
        return (u if mu is None else flint.arb(mu)), (s if sigma is None else flint.arb(sigma))

    monkeypatch.setattr(rotation_return, "_leg", leg)
    return calls


def test_return_size_does_not_shrink(genuine, monkeypatch):
    """The rotating collapse (μ ≈ 3.66 per turn in floats, Σ → 0: DOP853) with the genuine data: the
    trace spread of the box grows by μ at each turn, so no return lands in B; and the check itself,
    with the return's μ replaced by 2 and by 0, names the shrink hypothesis."""
    early, late = simulate(parse_problem(COLLAPSE), 20.0), simulate(parse_problem(COLLAPSE), 100.0)
    assert early.status == late.status == "reached" and late.s < early.s < 0 and late.s < -2   # log‖Σ‖ ↓
    rejects(forge(genuine, problem=COLLAPSE), r"the tube from (Σ₀|the box)")
    _fake_leg(monkeypatch, mu=2)
    rejects(genuine, r"the returns do not shrink the size: 0 < μ < 1")
    _fake_leg(monkeypatch, mu=0)
    rejects(genuine, r"the returns do not shrink the size: 0 < μ < 1")


def test_return_first_size_and_return_time(genuine, monkeypatch):
    _fake_leg(monkeypatch, u1=0)
    rejects(genuine, r"u₁ > 0 is not verified")
    monkeypatch.undo()
    _fake_leg(monkeypatch, sigma=0)
    rejects(genuine, r"the return time: σ > 0 is not verified")


def test_return_bracket_stretched(genuine):
    lo, hi = Fraction(genuine["data"]["T_lo"]), Fraction(genuine["data"]["T_hi"])
    rejects(_with_bracket(genuine, hi, hi), r"does not contain the derived one")
    rejects(_with_bracket(genuine, lo, lo), r"does not contain the derived one")
    rejects(_with_bracket(genuine, hi, lo), r"T_lo > T_hi")


def test_return_claim_rebound(genuine):
    rejects(forge(genuine, quantifier="every Σ₀ ⪰ 0"), _P)
    rejects(forge(genuine, subject="BOUNDED", params={}), _P)
    rejects(forge(genuine, status="REFUTED"), r"status must be PROVED")


# ---------------------------------------------------------------- the review's hunt
def test_return_tubes_swapped_or_sense_reversed(genuine):
    d = genuine["data"]
    rejects(forge(genuine, data={"proj_steps": d["return_steps"], "return_steps": d["proj_steps"]}),
            r"the tube from (Σ₀|the box)")
    rejects(forge(genuine, data={"sense": "decreasing"}), r"the tube from Σ₀: the tube's end is not past the section")


def test_return_other_sigma0_is_rederived(genuine):
    """2Σ₀ (T* = 1/4 by homogeneity): the stored tubes are in τ, so they replay; the bracket is
    re-derived for 2Σ₀ — the stored one (around 1/2) is rejected, a bracket around 1/4 accepted."""
    cov = [["2", "0"], ["0", "1/500000"]]
    prob = {**genuine["problem"], "initial": {"cov": cov}}
    rejects(forge(genuine, problem=prob), r"does not contain the derived one")
    lo, hi = Fraction(genuine["data"]["T_lo"]) / 2, Fraction(genuine["data"]["T_hi"]) / 2
    accepts(_with_bracket(genuine, lo - Fraction(1, 10 ** 6), hi + Fraction(1, 10 ** 6), problem=prob))
