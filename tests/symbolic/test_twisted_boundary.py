"""The d = 2 boundary family of twisted non-convexity, symbolically for every member: the limit of
(1 − r²)(t₁² + 2t₂ − 2t₃) at the boundary is 4σ₁''(0) = −8c²s²(3τ − 1)/(1 + τ) identically in the
circle's parameter m and in τ; the symbolic sign term agrees exactly with the checker's matrix
formula (traces of X⁻¹X', X⁻¹X'') at rational points."""
from fractions import Fraction

import pytest
import sympy as sp

from symbolic_tf.certify.kinds.twisted_gaussian import second_variation_sign_data
from symbolic_tf.certify.twisted_gaussian import boundary_plane_curvature
from symbolic_tf.exact.rational import qmat
from symbolic_tf.symbolic.twisted_boundary import boundary_plane_limit


@pytest.fixture(scope="module")
def family():
    return boundary_plane_limit()


def test_the_limit_is_the_closed_form_for_every_member(family):
    assert family["divides"]                     # (r − 1) divides D₀ and 3D₁² − 2D₂D₀ exactly
    assert family["difference"] == 0
    # the sign: that of 1/3 − τ wherever cs ≠ 0 (m ∉ {0, ±1})
    m, tau = family["m"], family["tau"]
    factored = sp.factor(family["limit"])
    assert sp.simplify(factored.subs(tau, sp.Rational(1, 3))) == 0
    for mv in (sp.Rational(1, 3), sp.Rational(2), sp.Rational(-5, 7)):
        for tv, sign in ((sp.Rational(1, 10), 1), (sp.Rational(1, 2), -1), (sp.Rational(9, 10), -1)):
            assert sp.sign(family["limit"].subs({m: mv, tau: tv})) == sign


@pytest.mark.parametrize("mv", [Fraction(1, 2), Fraction(-2, 3), Fraction(3)])
@pytest.mark.parametrize("tv", [Fraction(1, 5), Fraction(3, 4)])
def test_sign_term_agrees_with_the_matrix_formula(family, mv, tv):
    c, s = (1 - mv * mv) / (1 + mv * mv), 2 * mv / (1 + mv * mv)
    A = qmat([[c * c - s * s * tv, -c * s * (1 + tv)], [c * s * (1 + tv), c * c * tv - s * s]])
    N = qmat([[s * s, 0], [0, -c * c]])
    r = 1 - Fraction(1, 2 ** 6)
    term, _ = second_variation_sign_data(A, N * A, qmat([[r, 0], [0, r]]), qmat([[1, 0], [0, 1]]))
    sym = family["sign_term"].subs({family["m"]: sp.Rational(mv.numerator, mv.denominator),
                                    family["tau"]: sp.Rational(tv.numerator, tv.denominator),
                                    family["r"]: sp.Rational(r.numerator, r.denominator)})
    assert sp.Rational(int(term.p), int(term.q)) == sym
    lim = family["limit"].subs({family["m"]: sp.Rational(mv.numerator, mv.denominator),
                                family["tau"]: sp.Rational(tv.numerator, tv.denominator)})
    closed = boundary_plane_curvature(c, s, tv)
    assert lim == 4 * sp.Rational(closed.numerator, closed.denominator)
