"""The fixed pair A = aI + bJ, V = vI (d = 2): twisted convexity holds exactly when b² ≤ 3a².  The
symbolic verification's facts; its sign form against the checker's trace formula at rational points;
the soundness implication (no rational Σ, B inside the domain breaks a PROVED pair, whatever the
rotation of Σ); the converse's closed form against the exact sign term; and the Bernstein step on a
polynomial that is negative somewhere (it must not pass)."""
from fractions import Fraction

import flint
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data
from symbolic_tf.exact.definiteness import definiteness
from symbolic_tf.exact.rational import qmat
from symbolic_tf.symbolic import rotation_scaling_convexity as RS


@pytest.fixture(scope="module")
def facts():
    return RS.identity_v_convexity()


@pytest.fixture(scope="module")
def form():
    return RS.identity_v_sign_matrix()


def test_every_step_of_the_verification_passes(facts):
    assert facts["det_divides"] and facts["even_symmetric"]
    assert facts["bernstein_min"] == 0 and facts["bernstein_face_positive"]
    assert all(m > 0 for m in facts["point_minors"])
    assert facts["converse"] == 0
    assert facts["holds"]


@pytest.mark.parametrize("x,y,t,b", [
    ("1/4", "1/3", "1/2", (1, 2, -1)),
    ("1/10", "3/5", "3/2", (-2, 1, 3)),
    ("2/7", "1/8", "-1", (0, 1, 1)),
])
def test_the_form_is_the_exact_sign_term(form, x, y, t, b):
    """bᵀMb = D₀²·(1 + t²)²·(t₁² + 2t₂ − 2t₃) along N = A⁻¹B (N' = (1 + t²)N)."""
    (xs, ys, ts), _ = form["symbols"]
    x, y, t = Fraction(x), Fraction(y), Fraction(t)
    sub = {xs: sp.Rational(x), ys: sp.Rational(y), ts: sp.Rational(t)}
    bv = sp.Matrix(b)
    lhs = (bv.T * form["M"].subs(sub) * bv)[0, 0]
    A = qmat([[1, t], [-t, 1]])
    S = qmat([[x, 0], [0, y]])
    B = qmat([[b[0], b[2]], [b[2], b[1]]])
    term, _ = second_variation_sign_data(A, qmat([[1, 0], [0, 1]]), S, B)
    D0 = sp.Rational(form["D0"].subs(sub))
    rhs = D0 ** 2 * (1 + sp.Rational(t) ** 2) ** 2 * sp.Rational(int(term.p), int(term.q))
    assert sp.simplify(lhs - rhs) == 0


def _rational_rotation(m):
    c, s = (1 - m * m) / (1 + m * m), 2 * m / (1 + m * m)
    return qmat([[c, -s], [s, c]])


@given(t=st.fractions(-Fraction(17, 10), Fraction(17, 10), max_denominator=20),
       m=st.fractions(-3, 3, max_denominator=10),
       lam=st.tuples(st.fractions(Fraction(1, 50), 1, max_denominator=50),
                     st.fractions(Fraction(1, 50), 1, max_denominator=50)),
       scale=st.fractions(Fraction(1, 20), Fraction(99, 100), max_denominator=100),
       b=st.tuples(*(st.integers(-3, 3),) * 3).filter(any),
       a=st.sampled_from([1, -2, Fraction(1, 3)]), v=st.sampled_from([1, -3, Fraction(1, 2)]))
def test_no_point_breaks_a_proved_pair(t, m, lam, scale, b, a, v):
    """Soundness: for b² ≤ 3a² (here t = b/a with t² ≤ 2.89) the exact sign term is ≥ 0 at every
    rational Σ of finite energy (any rotation, any scale up to the boundary) and every B."""
    A = qmat([[a, a * t], [-a * t, a]])
    V = qmat([[v, 0], [0, v]])
    R = _rational_rotation(m)
    S0 = R * qmat([[lam[0], 0], [0, lam[1]]]) * R.transpose()
    # the largest admissible scale of S0 is 1/σ₁(S0^{1/2}AS0^{1/2}); bisect it with exact checks
    lo, hi = Fraction(0), Fraction(64)
    for _ in range(30):
        mid = (lo + hi) / 2
        S = S0 * flint.fmpq(mid.numerator, mid.denominator)
        if definiteness(S.inv() - A.transpose() * S * A).pd:
            lo = mid
        else:
            hi = mid
    k = lo * scale
    S = S0 * flint.fmpq(k.numerator, k.denominator)
    assert definiteness(S.inv() - A.transpose() * S * A).pd
    B = qmat([[b[0], b[2]], [b[2], b[1]]])
    term, xi2 = second_variation_sign_data(A, V, S, B)
    assert xi2 > 0 and term >= 0


@pytest.mark.parametrize("t", ["7/4", "2", "5"])
def test_the_converse_breaks_every_pair_beyond_the_threshold(t):
    """t² > 3: at Σ = εI with ε² < (t² − 3)/(1 + t²)², B = AN, N = diag(1, −1), the exact sign term is
    negative, and equals the closed form −16ε²(t² − 3 − (1 + t²)²ε²)/(1 − (1 + t²)ε²)² (docs §7, |N|² = 2)."""
    t = Fraction(t)
    p = 1 + t * t
    eps = Fraction(1, 2) * Fraction(int(((t * t - 3) / (p * p)) ** 0.5 * 1000), 1000)
    A = qmat([[1, t], [-t, 1]])
    B = qmat([[1, -t], [-t, -1]])
    S = qmat([[eps, 0], [0, eps]])
    term, _ = second_variation_sign_data(A, qmat([[1, 0], [0, 1]]), S, B)
    closed = -16 * eps ** 2 * (t * t - 3 - p * p * eps ** 2) / (1 - p * eps ** 2) ** 2
    assert term < 0 and Fraction(int(term.p), int(term.q)) == closed


def test_bernstein_rejects_a_polynomial_negative_inside():
    """The positivity step is not vacuous: (z − ½)² − 1/100 + λv has a negative coefficient."""
    lam, z, v = sp.symbols("lam z v")
    coef, _ = RS._bernstein(sp.Poly((z - sp.Rational(1, 2)) ** 2 - sp.Rational(1, 100) + lam * v, lam, z, v),
                            (lam, z, v))
    assert min(coef.values()) < 0
    coef, _ = RS._bernstein(sp.Poly(lam * (1 - z) + z ** 2 * v, lam, z, v), (lam, z, v))
    assert min(coef.values()) >= 0


def test_bernstein_coefficients_reproduce_the_polynomial():
    """Σ b_ijk B_i(λ)B_j(z)B_k(v) equals the polynomial at rational points (the change of basis is exact)."""
    from math import comb

    lam, z, v = sp.symbols("lam z v")
    p = sp.Poly(3 * lam ** 2 * z - 5 * z ** 3 * v + 7 * lam * v ** 2 - 2 + lam * z * v, lam, z, v)
    coef, degs = RS._bernstein(p, (lam, z, v))

    def basis(n, i, s):
        return comb(n, i) * s ** i * (1 - s) ** (n - i)
    for pt in ((Fraction(1, 3), Fraction(2, 5), Fraction(5, 7)), (Fraction(0), Fraction(1), Fraction(1, 2))):
        val = sum(c * basis(degs[0], m[0], pt[0]) * basis(degs[1], m[1], pt[1]) * basis(degs[2], m[2], pt[2])
                  for m, c in coef.items())
        assert val == p.eval({lam: pt[0], z: pt[1], v: pt[2]})
