"""Forgeries of ``tube-ray-cusp`` (symbolic_tf/certify/check/kinds/tube_ray_cusp.py, HYPOTHESES): blow-up of this
Σ₀ in d = 2 through a validated tube into a forward-invariant cusp {0 ≤ q ≤ q0, p ≤ K·q²} at a rank-one ray that
attracts without hyperbolic contraction (a Jordan-block V).  One forgery per hypothesis, every other field kept
consistent; each is rejected with a message naming the failed hypothesis.

The genuine certificate: V = [[1, 1/2], [0, 1]], A = [[3/8, 1], [−1, −1]] (issue 49's first map), Σ₀ with a
positive correlation (the side from which the ray e₁e₁ᵀ attracts), found by the library's search with a loose
bracket (a short tube, so that every replay is fast).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from .forge import accepts, edited, forge, q, rejects

JORDAN = {"variant": "softmax", "d": 2, "A": [["3/8", "1"], ["-1", "-1"]], "V": [["1", "1/2"], ["0", "1"]],
          "initial": {"cov": [["1", "1/2"], ["1/2", "1"]]}}


@pytest.fixture(scope="module")
def cusp():
    from symbolic_tf.certify.search.validated._tube_ray_cusp import find_cusp_blowup
    from symbolic_tf.spec.problem import parse_problem

    v = find_cusp_blowup(parse_problem(JORDAN), rel_width=1e-2)
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    assert accepts(c).claim.subject == "BLOWUP"
    assert c["data"]["v"] == ["1", "0"] and c["data"]["side"] == 1
    return c


def test_cusp_other_problem(cusp):
    rejects(forge(cusp, problem=edited(JORDAN, variant="masked")), r"not the quadratic softmax-type field")
    # another problem of the same family: the tube no longer ends where the stored bracket says
    rejects(forge(cusp, problem=edited(JORDAN, A=[["1/2", "1"], ["-1", "-1"]])), r"does not contain|not verified|a priori \(Picard\) enclosure fails")


def test_cusp_general_drift(cusp):
    drift = edited(JORDAN, F=[["0", "1/1000"], ["0", "0"]], b=["0", "0"])
    rejects(forge(cusp, problem=drift), r"F = f·I")


def test_cusp_tube_step_too_long(cusp):
    steps = cusp["data"]["steps"]
    rejects(forge(cusp, data={"steps": [steps[0], steps[-1]]}), r"a priori \(Picard\) enclosure fails on step 1")


def test_cusp_data_out_of_range(cusp):
    rejects(forge(cusp, data={"side": 2}), r"side must be 1 or -1")
    rejects(forge(cusp, data={"K": "0"}), r"K and q0 must be positive")
    rejects(forge(cusp, data={"q0": "-1/8"}), r"K and q0 must be positive")
    rejects(forge(cusp, data={"v": ["0", "0"]}), r"v must be nonzero")
    rejects(forge(cusp, data={"v": ["1", "0", "0"]}), r"v must be a vector of 2")
    rejects(forge(cusp, data={"pieces": 0}), r"pieces must be an integer")


def test_cusp_ray_not_an_equilibrium(cusp):
    # e₂ is no eigenvector of the Jordan block: X = e₂e₂ᵀ moves
    rejects(forge(cusp, data={"v": ["0", "1"]}), r"not an equilibrium")
    rejects(forge(cusp, data={"v": ["1", "1/1000"]}), r"not an equilibrium")


def test_cusp_growth_rate_not_positive(cusp):
    # a cusp so wide in p that it holds indefinite X where tr Q(X) < 0
    rejects(forge(cusp, data={"K": "1000"}), r"growth rate c|c = tr Q\(X\) \+ 2f·u > 0")


def test_cusp_face_not_inward(cusp):
    # K·q² with K = 1 = 1/|v|² is the rank-one curve to second order: the flow does not cross it inward
    rejects(forge(cusp, data={"K": "1"}), r"on the face p = K·q²")


def test_cusp_edge_not_inward(cusp):
    # the other side of the ray repels: q' > 0 at q = q0 when w is flipped
    rejects(forge(cusp, data={"side": -1}), r"q' < 0 on the face q = q0|on the face p = K·q²")


def test_cusp_end_outside(cusp):
    q0 = Fraction(cusp["data"]["q0"])
    rejects(forge(cusp, data={"q0": q(q0 / 4096)}), r"q₁ < q0 is not verified")
    # Σ₀ with the opposite correlation: the genuine cusp is valid, but the tube ends on the repelling side
    other = edited(JORDAN, initial={"cov": [["1", "-1/2"], ["-1/2", "1"]]})
    rejects(forge(cusp, problem=other), r"a priori|q₁ > 0 is not verified|tr Σ")


def test_cusp_bracket_too_tight(cusp):
    lo, hi = Fraction(cusp["data"]["T_lo"]), Fraction(cusp["data"]["T_hi"])
    rejects(forge(cusp, data={"T_hi": q(lo + (hi - lo) / 1000)}), r"does not contain the derived one")
    rejects(forge(cusp, data={"T_lo": q(hi), "T_hi": q(lo)}), r"T_lo > T_hi")
