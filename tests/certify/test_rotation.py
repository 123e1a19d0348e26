"""Rotating blow-ups (kind ``tube-rotation``, d = 2, no drift): the bracket holds the closed-form
T* of a rotating example and the 40-digit reference T* of a general one; homogeneity and a
rational orthogonal change of basis; tampered certificates are rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.validated.rotation_tube import find_rotation_blowup
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

I2 = [[1, 0], [0, 1]]
ROT = [[1, -2], [2, 1]]   # V = I + 2J: eigenvalues 1 ± 2i, no real eigenvector


def _p(A, V, S0):
    return parse_problem({"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": S0}})


def _bracket(p, **kw):
    v = find_rotation_blowup(p, seconds=120.0, **kw)
    assert v.status == "PROVED", v.reason
    return Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])


def test_closed_form_rotating_blowup():
    # A = I, V = αI + βJ: Σ̇ = 2αΣ² + β[J, Σ²]; the eigenvalues obey λ̇ = 2αλ² while the eigenvectors
    # turn ever faster, so T* = 1/(2α·λ_max(Σ₀)) = 1/4 for Σ₀ = diag(2, 1), α = 1
    lo, hi = _bracket(_p(I2, ROT, [[2, 0], [0, 1]]))
    assert lo <= Fraction(1, 4) <= hi
    assert (hi - lo) / lo < Fraction(1, 10 ** 6)


def test_general_rotating_blowup_holds_the_reference():
    p = _p([[2, "-7/4"], [0, "1/2"]], [["1/2", "-5/4"], ["3/2", 1]], [["13/2", "-47/24"], ["-47/24", "315/92"]])
    lo, hi = _bracket(p)
    assert (hi - lo) / lo < Fraction(1, 10 ** 5)
    ref = reference_solve_problem(p, T=hi * 2, dps=40, blowup_norm=1e30)
    t_end = Fraction(str(mpmath.nstr(ref.t_end, 35)))
    assert ref.blowup and lo <= t_end + Fraction(1, 10 ** 20) and t_end <= hi


def test_homogeneity_and_change_of_basis():
    A, S0 = [[1, "1/2"], ["-1/4", 1]], [[2, "1/3"], ["1/3", 1]]
    lo1, hi1 = _bracket(_p(A, ROT, S0), rel_width=1e-4)
    lo3, hi3 = _bracket(_p(A, ROT, [[6, 1], [1, 3]]), rel_width=1e-4)        # Σ₀ ↦ 3Σ₀: T* ↦ T*/3
    assert max(lo1 / 3, lo3) <= min(hi1 / 3, hi3)
    O = [[Fraction(3, 5), Fraction(-4, 5)], [Fraction(4, 5), Fraction(3, 5)]]

    def conj(M):
        M = [[Fraction(x) for x in r] for r in M]
        OM = [[sum(O[i][k] * M[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
        return [[str(sum(OM[i][k] * O[j][k] for k in range(2))) for j in range(2)] for i in range(2)]

    lo2, hi2 = _bracket(_p(conj(A), conj(ROT), conj(S0)), rel_width=1e-4)
    assert max(lo1, lo2) <= min(hi1, hi2)


@pytest.fixture(scope="module")
def cert():
    v = find_rotation_blowup(_p(I2, ROT, [[2, 0], [0, 1]]), rel_width=1e-2)
    assert v.status == "PROVED", v.reason
    return v.evidence["certificate"]


def _mutate(cert, key, value, index=None):
    c = copy.deepcopy(cert)
    if index is None:
        c["data"][key] = value
    else:
        c["data"][key][index] = value
    return Certificate.from_dict(c)


def test_certificate_checks(cert):
    res = check(Certificate.from_dict(cert))
    assert res.ok and res.claim.subject == "BLOWUP"


@pytest.mark.parametrize("what", ["step", "T_lo", "T_hi", "r0", "phi"])
def test_tampered_certificate_is_rejected(cert, what):
    d = cert["data"]
    if what == "step":
        c = _mutate(cert, "steps", str(Fraction(d["steps"][-1]) * Fraction(101, 100)), len(d["steps"]) - 1)
    elif what == "T_lo":
        c = _mutate(cert, "T_lo", str((Fraction(d["T_lo"]) + Fraction(d["T_hi"])) / 2))
    elif what == "T_hi":
        c = _mutate(cert, "T_hi", d["T_lo"])
    elif what == "r0":   # an annulus reaching the centre: the field does not enter it there
        c = _mutate(cert, "r0", "1/1000")
    else:                # a growth functional that decreases somewhere
        c = _mutate(cert, "phi_a", "40", 0)
    with pytest.raises(CertificationFailed):
        check(c)
