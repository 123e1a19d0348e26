"""Forgeries of ``tube-rotation-collapse`` (kinds/rotation_collapse.py): one per hypothesis of the
rotating collapse argument, each consistent in every other field, plus the review's hunt (the data
reused on a blowing-up problem, a drift, another claim).

The genuine certificate is the library's search on the problem of tests/soundness/test_tampering.py
(A + Aᵀ ≺ 0, V without a real eigenvector: Σ → 0 while its eigenvector turns; under a second).
"""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, forge, q, rejects

DOC = {"variant": "softmax", "d": 2, "A": [["-1", "-1/4"], ["3/2", "-1/2"]], "V": [["1/3", "-2"], ["1", "1/4"]],
       "initial": {"cov": [["17/4", "4"], ["4", "33/4"]]}}
_P = "the stated claim is not the one the data prove"


@pytest.fixture(scope="module")
def genuine():
    from symbolic_tf.certify.search.validated._tube_rotation_collapse import find_rotation_collapse

    v = find_rotation_collapse(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    accepts(c)
    return c


def _eta(cert, a1):
    """η = a1·cos ψ, as coefficient lists of the certificate's length."""
    k = len(cert["data"]["eta_a"])
    return {"eta_a": [q(a1)] + ["0"] * (k - 1), "eta_b": ["0"] * k}


# ---------------------------------------------------------------- one forgery per hypothesis
def test_collapse_needs_the_quadratic_flow(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "variant": "sinkhorn"}),
            r"not the quadratic softmax-type field")
    rejects(forge(genuine, problem={**genuine["problem"], "relu": {"W1": [[1, 0]], "W2": [[1], [0]]}}),
            r"ReLU feed-forward term")
    sched = {**genuine["problem"], "phase": [{"duration": "1/8"}, {"duration": 1, "A": [[1, 0], [0, -1]]}]}
    rejects(forge(genuine, problem=sched), r"constant parameters only")


def test_collapse_refuses_a_drift(genuine):
    """A small drift F = I/1000 (its u·F terms are not in the region checks)."""
    rejects(forge(genuine, problem={**genuine["problem"], "F": [["1/1000", "0"], ["0", "1/1000"]]}),
            r"covers the flow without drift only")


def test_collapse_needs_d_two(genuine):
    p3 = {**genuine["problem"], "d": 3, "A": [[-1, 0, 0], [0, -1, 0], [0, 0, -1]],
          "V": [[1, -2, 0], [2, 1, 0], [0, 0, 1]], "initial": {"cov": [[2, 0, 0], [0, 1, 0], [0, 0, 1]]}}
    rejects(forge(genuine, problem=p3), r"covers d = 2 only")


def test_collapse_sigma0_not_psd(genuine):
    m = copy.deepcopy(genuine)
    m["problem"]["initial"] = {"cov": [["2", "0"], ["0", "-1"]]}
    rejects(m, r"not positive semidefinite")


def test_collapse_D0_out_of_range(genuine):
    for D0 in ("1", "0", "-1/32"):
        rejects(forge(genuine, data={"D0": D0}), r"D0 must lie in \(0, 1\)")


def test_collapse_boundary_leaves_the_disc(genuine):
    """D0 = 99/100, η = −cos(ψ)/20: D0·e^{−η} > 1 around ψ = 0."""
    rejects(forge(genuine, data={"D0": "99/100", **_eta(genuine, Fraction(-1, 20)), "max_depth": 1}),
            r"boundary of N leaves the disc")


def test_collapse_invariance_fails(genuine):
    """η = 3cos ψ (D0·e³ < 1, so the boundary is still in the disc): η'ψ' dominates on the boundary."""
    rejects(forge(genuine, data={**_eta(genuine, 3), "max_depth": 1}), r"invariance of N")


def test_collapse_decay_fails(genuine):
    """φ = 5 sin ψ (N unchanged, still invariant): φ'ψ' makes G' positive somewhere."""
    k = len(genuine["data"]["phi_a"])
    rejects(forge(genuine, data={"phi_a": ["0"] * k, "phi_b": ["5"] + ["0"] * (k - 1), "max_depth": 1}),
            r"decay: G' = c \+ φ'ψ' < 0 is not verified")


def test_collapse_tube_does_not_replay(genuine):
    steps = genuine["data"]["steps"]
    rejects(forge(genuine, data={"steps": [steps[0], steps[-1]]}), r"\(Picard\) enclosure fails on step 1")


def test_collapse_sigma0_zero(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "initial": {"cov": [["0", "0"], ["0", "0"]]}}),
            r"tr Σ\(t_N\) is not certainly positive")


def test_collapse_tube_ends_outside_N(genuine):
    rejects(forge(genuine, data={"steps": genuine["data"]["steps"][:2]}), r"not inside the certified region N")


def test_collapse_claim_rebound(genuine):
    rejects(forge(genuine, params={"rank": 1}), _P)
    rejects(forge(genuine, subject="BLOWUP", params={}), _P)
    rejects(forge(genuine, quantifier="every Σ₀ ⪰ 0"), _P)
    rejects(forge(genuine, status="REFUTED"), r"status must be PROVED")


# ---------------------------------------------------------------- the review's hunt
def test_collapse_data_on_a_blowing_up_problem(genuine):
    """The collapse data with the blow-up rotation A = I, V = I + 2J (T* = 1/(2λ_max(Σ₀)) = 1/4,
    confirmed by DOP853): the forged 'Σ → 0' is false, and G' < 0 (or the invariance) fails."""
    prob = {**genuine["problem"], "A": [["1", "0"], ["0", "1"]], "V": [["1", "-2"], ["2", "1"]],
            "initial": {"cov": [["2", "0"], ["0", "1"]]}}
    res = simulate(parse_problem(prob), 1.0)
    assert res.status == "blowup" and res.t == pytest.approx(0.25, rel=1e-6)
    rejects(forge(genuine, problem=prob, data={"max_depth": 1}), r"decay|invariance")


def test_collapse_data_on_a_scaled_sigma0(genuine):
    """kΣ₀ (still collapsing: Σ(t) ↦ kΣ(kt) by homogeneity): the stored tube is not a tube of that
    solution — 10Σ₀ moves too fast for the first step, Σ₀/2 has not reached N at t_N."""
    def scaled(k):
        cov = [[q(k * Fraction(x)) for x in r] for r in DOC["initial"]["cov"]]
        return forge(genuine, problem={**genuine["problem"], "initial": {"cov": cov}})

    rejects(scaled(10), r"\(Picard\) enclosure fails on step 1")
    rejects(scaled(Fraction(1, 2)), r"not inside the certified region N")
