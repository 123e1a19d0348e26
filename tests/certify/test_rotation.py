"""Rotating blow-ups (kind ``tube-rotation``, d = 2, with and without drift): the bracket holds the
closed-form T* of a rotating example and the 40-digit reference T* of general ones (also with a
drift F); homogeneity and a rational orthogonal change of basis; tampered certificates are
rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated._tube_rotation import find_rotation_blowup
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("rotation")

I2 = [[1, 0], [0, 1]]
ROT = [[1, -2], [2, 1]]   # V = I + 2J: eigenvalues 1 ± 2i, no real eigenvector


def _p(A, V, S0, F=None):
    doc = {"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": S0}}
    if F is not None:
        doc["F"] = F
    return parse_problem(doc)


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


# ---------------------------------------------------------------------------------------------
# with a drift F: u ∈ [0, u_max] is a third variable of the region
# ---------------------------------------------------------------------------------------------
F1 = [["1/4", "-1/2"], ["1/3", "-1/5"]]
GEN = ([[2, "-7/4"], [0, "1/2"]], [["1/2", "-5/4"], ["3/2", 1]], [["13/2", "-47/24"], ["-47/24", "315/92"]])


def _reference_inside(p, lo, hi):
    ref = reference_solve_problem(p, T=hi * 2, dps=40, blowup_norm=1e30)
    t_end = Fraction(str(mpmath.nstr(ref.t_end, 35)))
    # at ‖Σ‖ = 1e30, T* − t_end is far below 1e−20 (T* − t ≈ 1/(κ‖Σ‖) near the blow-up)
    assert ref.blowup and lo <= t_end + Fraction(1, 10 ** 20) and t_end <= hi


@pytest.mark.parametrize("which", ["rot", "general"])
def test_drift_rotating_blowup_holds_the_reference(which):
    p = _p(I2, ROT, [[2, 0], [0, 1]], F1) if which == "rot" else _p(*GEN, [["1/2", 1], ["-1/3", "-1/4"]])
    v = find_rotation_blowup(p, seconds=120.0)
    assert v.status == "PROVED", v.reason
    cert = v.evidence["certificate"]
    assert "u_max" in cert["data"] and Fraction(cert["data"]["u_max"]) > 0
    lo, hi = Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])
    assert (hi - lo) / lo < Fraction(1, 10 ** 5)
    _reference_inside(p, lo, hi)


def test_drift_change_of_basis_and_homogeneity():
    # Σ ↦ OΣOᵀ maps the flow of (A, V, F) to that of (OAOᵀ, OVOᵀ, OFOᵀ): same T*
    O = [[Fraction(3, 5), Fraction(-4, 5)], [Fraction(4, 5), Fraction(3, 5)]]

    def conj(M):
        M = [[Fraction(x) for x in r] for r in M]
        OM = [[sum(O[i][k] * M[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
        return [[str(sum(OM[i][k] * O[j][k] for k in range(2))) for j in range(2)] for i in range(2)]

    A, S0 = [[1, "1/2"], ["-1/4", 1]], [[2, "1/3"], ["1/3", 1]]
    lo1, hi1 = _bracket(_p(A, ROT, S0, F1), rel_width=1e-4)
    lo2, hi2 = _bracket(_p(conj(A), conj(ROT), conj(S0), conj(F1)), rel_width=1e-4)
    assert max(lo1, lo2) <= min(hi1, hi2)
    # homogeneity with drift: Σ(t) ↦ 3Σ(3t) solves the flow with F ↦ 3F, so T*(3Σ₀, 3F) = T*(Σ₀, F)/3
    F3 = [[str(3 * Fraction(x)) for x in r] for r in F1]
    lo3, hi3 = _bracket(_p(A, ROT, [[6, 1], [1, 3]], F3), rel_width=1e-4)
    assert max(lo1 / 3, lo3) <= min(hi1 / 3, hi3)


@pytest.fixture(scope="module")
def drift_cert():
    v = find_rotation_blowup(_p(I2, ROT, [[2, 0], [0, 1]], F1), rel_width=1e-2)
    assert v.status == "PROVED", v.reason
    return v.evidence["certificate"]


def _with_problem(cert, **changes):
    c = copy.deepcopy(cert)
    c["problem"].update(changes)
    c["problem"] = {k: v for k, v in c["problem"].items() if v is not None}
    c["problem_hash"] = parse_problem(c["problem"]).content_hash()
    return Certificate.from_dict(c)


def test_drift_certificate_checks(drift_cert):
    res = check(Certificate.from_dict(drift_cert))
    assert res.ok and res.claim.subject == "BLOWUP"


@pytest.mark.parametrize("what", ["u_max small", "u_max large", "u_max missing", "u_max zero", "F changed",
                                  "F removed", "tube short", "T_hi"])
def test_tampered_drift_certificate_is_rejected(drift_cert, what):
    d = drift_cert["data"]
    u = Fraction(d["u_max"])
    if what == "u_max small":      # the tube's end no longer lies where u stays below u_max
        c = _mutate(drift_cert, "u_max", str(u / 10 ** 6))
    elif what == "u_max large":    # the drift is no longer a small perturbation: the region fails
        c = _mutate(drift_cert, "u_max", str(u * 10 ** 4))
    elif what == "u_max missing":
        c = copy.deepcopy(drift_cert)
        del c["data"]["u_max"]
        c = Certificate.from_dict(c)
    elif what == "u_max zero":
        c = _mutate(drift_cert, "u_max", "0")
    elif what == "F changed":      # another drift: the stored tube and region are not its
        c = _with_problem(drift_cert, F=[["3", "-1/2"], ["1/3", "-1/5"]])
    elif what == "F removed":      # no drift: u_max has no place, and the tube is another flow's
        c = _with_problem(drift_cert, F=None)
    elif what == "tube short":     # the tube stops early, before entering the region N'
        c = _mutate(drift_cert, "steps", d["steps"][:5])
    else:
        c = _mutate(drift_cert, "T_hi", d["T_lo"])
    reason = {"u_max small": "u_max fails", "u_max missing": "needs u_max", "u_max zero": "positive",
              "F removed": "drift only", "tube short": "not inside"}.get(what)
    with pytest.raises(CertificationFailed, match=reason):
        check(c)


def test_no_drift_certificate_refuses_u_max(cert):
    with pytest.raises(CertificationFailed):
        check(_mutate(cert, "u_max", "1/4"))
