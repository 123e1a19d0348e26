import mpmath
import sympy as sp

from symbolic_tf.spec.verdict import PROVED, REFUTED, UNDECIDED
from symbolic_tf.symbolic.ball import sign_of, to_arb
from symbolic_tf.symbolic._convexity import bw_displacement_norm2, energy_dirac
from symbolic_tf.symbolic.convexity_bounds import (
    gaussian_bw_convexity_1d, gaussian_bw_factored_1d, gaussian_bw_finite_difference,
    gaussian_bw_second_variation_1d, gaussian_bw_symbols, twisted_convexity_witness,
    twisted_second_variation_dirac, twisted_second_variation_dirac_hessian)


def test_factorisation_equals_derived_exactly():
    a, S, t = gaussian_bw_symbols()
    derived, factored = gaussian_bw_second_variation_1d(), gaussian_bw_factored_1d()
    base = (1 - a**2 * S**2) ** sp.Rational(5, 2)
    num = sp.expand(derived * base)
    assert num.is_polynomial(a, S, t)
    assert sp.expand(num - 3 * a**2 * S**2 * (t - 1)**2 * (1 + a**2 * S**2)) == 0
    assert sp.expand((derived - factored) * base) == 0
    assert sp.expand(bw_displacement_norm2(S, t) - S * (t - 1)**2) == 0


def test_gaussian_verdict_proved_and_lambda_zero():
    v = gaussian_bw_convexity_1d()
    assert v.status == PROVED
    assert "0" in v.evidence["lambda_lower_bound"]
    for c in v.numerical["finite_differences"]:
        assert mpmath.mpf(c["abs_err"]) < mpmath.mpf("1e-8")


def test_gaussian_finite_differences_at_rationals():
    a, S, t = gaussian_bw_symbols()
    F = gaussian_bw_factored_1d()
    for av, Sv, tv in [(sp.Rational(1, 3), sp.Rational(3, 2), sp.Rational(5, 2)),
                       (sp.Rational(-2, 7), sp.Rational(2), sp.Rational(1, 4))]:
        exact = F.subs({a: av, S: Sv, t: tv})
        assert sign_of(exact) == 1
        fd = gaussian_bw_finite_difference(av, Sv, tv)
        assert abs(fd - mpmath.mpf(sp.N(exact, 40))) < mpmath.mpf("1e-10")


def _fd_dirac(A, V, xs, xis, h="1e-15"):
    from symbolic_tf.symbolic.convexity_bounds import twisted_displacements
    from symbolic_tf.symbolic._convexity import as_matrix, as_points
    A = as_matrix(A)
    ys = twisted_displacements(A, V, xis)
    s = sp.Symbol("s")
    f = sp.lambdify(s, energy_dirac(A, as_points(xs, A.rows), ys, s), "mpmath")
    with mpmath.workdps(60):
        hh = mpmath.mpf(h)
        return (f(hh) - 2 * f(0) + f(-hh)) / hh**2


def test_twisted_second_variation_routes_agree():
    cases = [(-1, 1, [0, sp.Rational(1, 2)], [1, -1]),
             ([[1, 2], [0, 1]], [[2, 1], [1, 3]], [[0, 1], [sp.Rational(1, 2), -1]], [[1, 0], [1, 1]]),
             ([[-1, 0], [0, -1]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], [[0, 1], [1, 1]])]
    for A, V, xs, xis in cases:
        by_s = twisted_second_variation_dirac(A, V, xs, xis)
        hess = twisted_second_variation_dirac_hessian(A, V, xs, xis)
        assert sp.expand(by_s - hess) == 0
        fd = _fd_dirac(A, V, xs, xis)
        assert abs(fd - mpmath.mpf(sp.N(by_s, 40))) < mpmath.mpf("1e-10")


def test_minus_identity_refuted_with_certified_sign():
    for A, V in [(-1, 1), ([[-1, 0], [0, -1]], [[1, 0], [0, 1]])]:
        w = twisted_convexity_witness(A, V)
        assert w.status == REFUTED
        ev = w.evidence
        val = twisted_second_variation_dirac(A, V, ev["xs"], ev["xis"])
        assert sp.expand(val - sp.sympify(ev["second_variation"])) == 0
        assert sign_of(val) == -1 and to_arb(val) < 0
        assert ev["hessian_route_equal"]
        assert ev["xs"][0] != ev["xs"][1]


def test_singular_A_undecided():
    assert twisted_convexity_witness(0, 1).status == UNDECIDED
