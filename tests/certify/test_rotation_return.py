"""Rotating blow-ups through a Poincaré section of the projective flow (kind ``tube-rotation-return``,
checker :mod:`symbolic_tf.certify.check.kinds.tube_rotation_return`, search
:mod:`symbolic_tf.certify.search.validated._tube_rotation_return`): the bracket holds the closed-form T* of a d = 2
rotation and the 40-digit reference T* of a d = 3 one; homogeneity T*(cΣ₀) = T*(Σ₀)/c; tampered
certificates are rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated._tube_rotation_return import find_rotation_return
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

I2 = [[1, 0], [0, 1]]
ROT = [[1, -2], [2, 1]]   # V = I + 2J: no real eigenvector, the top eigenvector turns forever
# seed 0 #4 of benchmarks/undecided_rate.py's general-V set (d = 3): X = Σ/tr Σ settles on a loop of
# rank-one matrices, tr Σ grows by ≈ 1.1·10⁴ per turn
D3 = {"variant": "softmax", "d": 3, "A": [["3/4", "1", "-1/2"], ["-2", "0", "0"], ["3/2", "1/4", "1"]],
      "V": [["2", "-1/4", "3/2"], ["3/4", "-2", "2"], ["-3/2", "1", "3/2"]],
      "initial": {"cov": [["15/4", "-1", "-7/6"], ["-1", "85/36", "-1/18"], ["-7/6", "-1/18", "85/18"]]}}


def _p2(S0, A=I2, V=ROT):
    return parse_problem({"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": S0}})


def _bracket(v):
    assert v.status == "PROVED", v.reason
    return Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])


@pytest.fixture(scope="module")
def near():
    # Σ₀ close to the rank-one circle: the tube from Σ₀ is one turn long (a cheap certificate)
    return find_rotation_return(_p2([[1, 0], [0, "1/1000000"]]))


def test_closed_form_rotating_blowup():
    # A = I, V = I + 2J: the eigenvalues obey λ̇ = 2λ² while the eigenvectors turn, so T* = 1/(2λ_max(Σ₀))
    lo, hi = _bracket(find_rotation_return(_p2([[2, 0], [0, 1]])))
    assert lo <= Fraction(1, 4) <= hi and (hi - lo) / lo < Fraction(1, 10 ** 6)


def test_homogeneity_on_the_closed_form(near):
    lo1, hi1 = _bracket(near)
    lo3, hi3 = _bracket(find_rotation_return(_p2([[3, 0], [0, "3/1000000"]])))   # Σ₀ ↦ 3Σ₀: T* ↦ T*/3
    assert lo1 <= Fraction(1, 2) <= hi1 and lo3 <= Fraction(1, 6) <= hi3
    assert max(lo1 / 3, lo3) <= min(hi1 / 3, hi3)


def test_d3_rotation_holds_the_reference():
    p = parse_problem(D3)
    ver = find_rotation_return(p)
    lo, hi = _bracket(ver)
    assert (hi - lo) / lo < Fraction(1, 10 ** 6)
    assert check(copy.deepcopy(ver.evidence["certificate"])).status == "PROVED"
    ref = reference_solve_problem(p, T=hi * 2, dps=40, blowup_norm=1e30)
    t_end = Fraction(str(mpmath.nstr(ref.t_end, 35)))
    # the reference stops at ‖Σ‖ = 10³⁰, within about 10⁻²⁹ before T*
    assert ref.blowup and lo <= t_end + Fraction(1, 10 ** 20) and t_end <= hi


def _edit(cert, edit):
    m = copy.deepcopy(cert)
    edit(m)
    return m


def _shrink(m):
    d = m["data"]
    j = d["section"]
    k = next(k for k in range(3) if k != j)
    lo, hi = Fraction(d["box_lo"][k]), Fraction(d["box_hi"][k])
    d["box_hi"][k] = str(lo + (hi - lo) / 100)


@pytest.mark.parametrize("label,edit", [
    ("box shrunk", _shrink),
    ("return tube cut before the section", lambda m: m["data"].update(return_steps=m["data"]["return_steps"][:-8])),
    ("Σ₀ tube cut before the section", lambda m: m["data"].update(proj_steps=m["data"]["proj_steps"][:-8])),
    ("T_lo above the derived bracket", lambda m: m["data"].update(T_lo=m["data"]["T_hi"])),
    ("T_hi below the derived bracket", lambda m: m["data"].update(T_hi=m["data"]["T_lo"])),
    ("sense flipped", lambda m: m["data"].update(sense="decreasing")),
    ("a drift added", lambda m: m["problem"].update(F=[["1/4", "0"], ["0", "1/4"]])),
    ("proj_order lowered", lambda m: m["data"].update(proj_order=4)),
])
def test_tamperings_are_rejected(near, label, edit):
    with pytest.raises(CertificationFailed):
        check(_edit(near.evidence["certificate"], edit))


def test_a_ray_gets_no_rotation_certificate():
    # V = A = I: X = Σ/tr Σ settles on the top eigendirection (a ray), nothing rotates
    ver = find_rotation_return(_p2([[2, 0], [0, 1]], V=I2))
    assert ver.status == "UNDECIDED" and "does not rotate" in ver.reason
