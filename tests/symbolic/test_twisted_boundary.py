"""The d = 2 boundary family of twisted non-convexity, symbolically for every member: the limit of
(1 − r²)(t₁² + 2t₂ − 2t₃) at the boundary is 4σ₁''(0) = −8c²s²(3τ − 1)/(1 + τ) identically in the
circle's parameter m and in τ; the symbolic sign term agrees exactly with the checker's matrix
formula (traces of X⁻¹X', X⁻¹X'') at rational points; the limit is regular (G(1) ≠ 0 for |τ| < 1);
and the two congruence families reach every 1/3 < τ < 1 in explicit parameter ranges."""
from fractions import Fraction

import pytest
import sympy as sp

from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data
from symbolic_tf.certify.search.twisted_gaussian import boundary_plane_curvature
from symbolic_tf.exact.rational import qmat
from symbolic_tf.symbolic.twisted_boundary import boundary_plane_limit, congruence_ratio_ranges


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


def test_the_limit_is_regular_on_the_whole_family(family):
    m, tau = family["m"], family["tau"]
    assert sp.expand(family["G_at_1"] - 2 * (1 + m ** 2) ** 24 * (tau ** 2 - 1)) == 0


def test_congruence_families_reach_the_breaking_ratio():
    r = congruence_ratio_ranges()
    p, w, t = r["p"], r["omega"], r["t"]
    # C_p: 10·det − 3·tr = 4ω²p + (3p − 1)(3 − p) > 0 and tr − 2·det = (p − 1)² > 0 on 1/3 < p < 1
    assert sp.expand(r["above_p"] - 4 * w ** 2 * p - (3 * p - 1) * (3 - p)) == 0
    assert sp.expand(r["below_p"] - (p - 1) ** 2) == 0
    # C_t: 10·det − 3·tr = 4t² − 3 > 0 for |t| > √3/2, and tr − 2·det = 1
    assert sp.expand(r["above_t"] - (4 * t ** 2 - 3)) == 0 and r["below_t"] == 1
    # κ = τ/(1 + τ²) against the singular values themselves at a rational member of each family
    for C, kappa in ((sp.Matrix([[1, 2 * sp.Rational(4, 5)], [-2 * sp.Rational(4, 5), sp.Rational(16, 25)]]),
                      r["kappa_p"].subs({p: sp.Rational(16, 25), w: 2})),
                     (sp.Matrix([[1, 1], [-1, 0]]), r["kappa_t"].subs(t, 1))):
        s1, s2 = sorted(sp.sqrt(x) for x in (C.T * C).eigenvals())[::-1]
        ratio = sp.nsimplify(s2 / s1)
        assert sp.simplify(ratio / (1 + ratio ** 2) - kappa) == 0
        assert sp.Rational(1, 3) < ratio < 1
