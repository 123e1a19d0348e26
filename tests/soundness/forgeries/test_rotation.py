"""Forgeries of ``tube-rotation`` (kinds/rotation.py): one per hypothesis of the rotating blow-up
argument, each consistent in every other field (problem hash recomputed, claim re-rendered), plus
the review's hunt (another Σ₀, a drift added or removed, swapped roles, a stretched bracket).

The genuine certificates are the library's own searches on the closed-form rotation A = I,
V = I + 2J, Σ₀ = diag(2, 1) (T* = 1/(2λ_max(Σ₀)) = 1/4), without and with a drift (about 2 s).
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, forge, q, rejects

I2 = [["1", "0"], ["0", "1"]]
ROT = [["1", "-2"], ["2", "1"]]          # V = I + 2J: no real eigenvector, the top eigenvector keeps turning
DOC = {"variant": "softmax", "d": 2, "A": I2, "V": ROT, "initial": {"cov": [["2", "0"], ["0", "1"]]}}
DRIFT = [["1/4", "-1/2"], ["1/3", "-1/5"]]
_P = "the stated claim is not the one the data prove"


def _rot_Tstar(cov):
    """T* of A = I, V = αI + βJ (α = 1): the eigenvalues obey λ̇ = 2λ², so T* = 1/(2λ_max(Σ₀))
    (docs/mathematics.md §8, "Rotating blow-up")."""
    return 1 / (2 * max(np.linalg.eigvalsh(np.array([[float(Fraction(x)) for x in r] for r in cov]))))


def _search(doc):
    from symbolic_tf.certify.search.validated._tube_rotation import find_rotation_blowup

    v = find_rotation_blowup(parse_problem(doc), rel_width=1e-2)
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    accepts(c)
    return c


@pytest.fixture(scope="module")
def genuine():
    """No drift: T* = 1/4 lies in the stored bracket."""
    c = _search(DOC)
    assert "u_max" not in c["data"]
    assert Fraction(c["data"]["T_lo"]) <= Fraction(1, 4) <= Fraction(c["data"]["T_hi"])
    return c


@pytest.fixture(scope="module")
def drift():
    c = _search({**DOC, "F": DRIFT})
    assert "u_max" in c["data"]
    return c


def _with_bracket(cert, lo, hi, **kw):
    """A forgery whose stored bracket (data and claim) is [lo, hi]."""
    return forge(cert, data={**kw.pop("data", {}), "T_lo": q(lo), "T_hi": q(hi)},
                 params={"T_lo": q(lo), "T_hi": q(hi)}, **kw)


# ---------------------------------------------------------------- one forgery per hypothesis
def test_rotation_needs_the_quadratic_flow(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "variant": "sinkhorn"}),
            r"not the quadratic softmax-type field")
    rejects(forge(genuine, problem={**genuine["problem"], "relu": {"W1": [[1, 0]], "W2": [[1], [0]]}}),
            r"ReLU feed-forward term")
    sched = {**genuine["problem"], "phase": [{"duration": "1/8"}, {"duration": 1, "A": [[1, 0], [0, -1]]}]}
    rejects(forge(genuine, problem=sched), r"constant parameters only")


def test_rotation_needs_d_two(genuine):
    I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    p3 = {**genuine["problem"], "d": 3, "A": I3, "V": [[1, -2, 0], [2, 1, 0], [0, 0, 1]],
          "initial": {"cov": [[2, 0, 0], [0, 1, 0], [0, 0, 0]]}}
    rejects(forge(genuine, problem=p3), r"covers d = 2 only")


def test_rotation_sigma0_not_psd(genuine):
    """An indefinite Σ₀ (r > 1 possible on the plane): the embedded problem itself is refused."""
    m = copy.deepcopy(genuine)
    m["problem"]["initial"] = {"cov": [["2", "0"], ["0", "-1"]]}
    rejects(m, r"not positive semidefinite")


def test_rotation_D0_out_of_range(genuine):
    for D0 in ("1", "0", "3/2"):
        rejects(forge(genuine, data={"D0": D0}), r"D0 must lie in \(0, 1\)")


def test_rotation_boundary_leaves_the_disc(genuine):
    """D0 = 99/100 and η = −cos(ψ)/20: D0·e^{−η} > 1 around ψ = 0, N would reach the centre."""
    k = len(genuine["data"]["eta_a"])
    eta_a = [q(Fraction(-1, 20))] + ["0"] * (k - 1)
    rejects(forge(genuine, data={"D0": "99/100", "eta_a": eta_a, "eta_b": ["0"] * k, "max_depth": 1}),
            r"boundary of N leaves the disc")


def test_rotation_invariance_fails(genuine):
    """η = cos(ψ)/2: η'ψ' outweighs the attraction 2(tr K − c) = −2r² on part of the boundary."""
    k = len(genuine["data"]["eta_a"])
    eta_a = [q(Fraction(1, 2))] + ["0"] * (k - 1)
    rejects(forge(genuine, data={"eta_a": eta_a, "eta_b": ["0"] * k, "max_depth": 1}), r"invariance of N")


def test_rotation_growth_fails(genuine):
    """φ = sin ψ (η, D0 unchanged, so N is still invariant): φ'ψ' ≈ 4cos ψ outweighs c = 1 + r²."""
    k = len(genuine["data"]["phi_a"])
    rejects(forge(genuine, data={"phi_a": ["0"] * k, "phi_b": ["1"] + ["0"] * (k - 1), "max_depth": 1}),
            r"growth: G' = c \+ φ'ψ' > 0 is not verified")


def test_rotation_growth_fails_on_a_collapsing_problem(genuine):
    """The rotating collapse's problem (A + Aᵀ ≺ 0) with the blow-up data: G' > 0 fails."""
    col = {**genuine["problem"], "A": [[-1, "-1/4"], ["3/2", "-1/2"]], "V": [["1/3", -2], [1, "1/4"]],
           "initial": {"cov": [["17/4", 4], [4, "33/4"]]}}
    rejects(forge(genuine, problem=col, data={"max_depth": 1}), r"growth|invariance")


def test_rotation_tube_does_not_replay(genuine):
    steps = genuine["data"]["steps"]
    rejects(forge(genuine, data={"steps": [steps[0], steps[-1]]}), r"\(Picard\) enclosure fails on step 1")


def test_rotation_sigma0_zero(genuine):
    """Σ₀ = 0 is an equilibrium (Σ ≡ 0), it never blows up."""
    rejects(forge(genuine, problem={**genuine["problem"], "initial": {"cov": [["0", "0"], ["0", "0"]]}}),
            r"tr Σ\(t_N\) is not certainly positive")


def test_rotation_tube_ends_outside_N(genuine):
    """The tube cut after three steps: Σ(t_3) is not yet close to the rank-one circle."""
    rejects(forge(genuine, data={"steps": genuine["data"]["steps"][:3]}), r"not inside the certified region N")


def test_rotation_u_max_iff_drift(genuine, drift):
    rejects(forge(drift, data={"u_max": None}), r"a flow with drift needs u_max")
    rejects(forge(genuine, data={"u_max": "1/4"}), r"u_max belongs to a flow with drift only")
    rejects(forge(drift, data={"u_max": "0"}), r"u_max must be positive")


def test_rotation_u_exceeds_u_max(drift):
    """u_max = 1/1000: the region checks only get easier, but u₁ ≈ 1/tr Σ(t_N) is far above it."""
    rejects(forge(drift, data={"u_max": "1/1000"}), r"u₁·e\^\(φ_hi − φ₁\) < u_max fails")


def test_rotation_bracket_stretched(genuine):
    lo, hi = Fraction(genuine["data"]["T_lo"]), Fraction(genuine["data"]["T_hi"])
    rejects(_with_bracket(genuine, hi, hi), r"does not contain the derived one")        # T_lo raised to T_hi
    rejects(_with_bracket(genuine, lo, lo), r"does not contain the derived one")        # T_hi lowered to T_lo
    rejects(_with_bracket(genuine, hi, lo), r"T_lo > T_hi")


def test_rotation_claim_rebound(genuine):
    rejects(forge(genuine, quantifier="every Σ₀ ⪰ 0"), _P)
    rejects(forge(genuine, subject="CLUSTERING", params={"rank": 0}), _P)
    rejects(forge(genuine, status="REFUTED"), r"status must be PROVED")


# ---------------------------------------------------------------- the review's hunt
def test_rotation_other_sigma0_keeps_no_bracket(genuine):
    """The data reused for 3Σ₀ (T* = 1/12): the tube from 3Σ₀ along the stored steps cannot
    replay past its blow-up, nor can the stored bracket (around 1/4) hold."""
    assert _rot_Tstar([["6", "0"], ["0", "3"]]) == pytest.approx(1 / 12)
    rejects(forge(genuine, problem={**genuine["problem"], "initial": {"cov": [["6", "0"], ["0", "3"]]}}),
            r"Picard|not finite|disjoint|does not contain")


def test_rotation_rank_one_sigma0(genuine):
    """Σ₀ = diag(2, 0) is still rank one on the circle (T* = 1/4, a true claim); the data of diag(2, 1)
    replay to another end and are rejected unless they prove their own bracket."""
    cov = [["2", "0"], ["0", "0"]]
    assert _rot_Tstar(cov) == pytest.approx(0.25)
    rejects(forge(genuine, problem={**genuine["problem"], "initial": {"cov": cov}}), r"does not contain the derived one")


def test_rotation_drift_data_on_the_flow_without_drift(drift):
    """The drift certificate's data (u_max dropped) on the problem without F: the tube replays another
    flow and the bracket of the drift flow (T* ≈ 0.247) is not the one derived (T* = 1/4)."""
    prob = {k: v for k, v in drift["problem"].items() if k != "F"}
    rejects(forge(drift, problem=prob, data={"u_max": None}), r"does not contain the derived one")


def test_rotation_drift_added_to_data_without_drift(genuine):
    """A drift added to the problem, the data of the flow without it: refused without u_max; with a
    u_max every inequality is re-derived for the drift flow, so what is accepted is true — here the
    stated bracket [0, 1] holds T* of the drift flow (DOP853 at rtol 1e-12)."""
    F = [["1/1000", "0"], ["0", "1/1000"]]
    prob = {**genuine["problem"], "F": F}
    rejects(forge(genuine, problem=prob), r"a flow with drift needs u_max")
    accepted = _with_bracket(genuine, 0, 1, problem=prob, data={"u_max": "1/4"})
    accepts(accepted)
    res = simulate(parse_problem(prob), 2.0)
    assert res.status == "blowup" and 0 < res.t < 1
