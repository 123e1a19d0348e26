"""The kernel's flint re-derivation of the rotation–scaling family (symbolic_tf/certify/check/rotation_scaling.py)
against the SymPy one (symbolic_tf/symbolic/rotation_scaling_convexity.py): the same sign form, the same facts field
by field, and the statement holds; the Bernstein step is exact and not vacuous."""
from fractions import Fraction
from math import comb

import flint
import pytest
import sympy as sp

from symbolic_tf.certify.check import rotation_scaling as K
from symbolic_tf.exact.rational import fraction_of
from symbolic_tf.symbolic import rotation_scaling_convexity as RS


def test_the_family_statement_holds_in_the_kernel():
    kern = K.rotation_scaling_convexity()
    assert kern["det_divides"] and kern["even_symmetric"] and kern["bernstein_face_positive"]
    assert kern["bernstein_min"] == 0 and isinstance(kern["bernstein_min"], Fraction)
    assert all(m > 0 for m in kern["point_minors"])
    assert kern["converse"] == 0 and kern["holds"]


@pytest.mark.slow  # the SymPy verification takes 10–25 s
def test_every_field_equals_the_sympy_verification():
    kern, sym = K.rotation_scaling_convexity(), RS.identity_v_convexity()
    assert kern.keys() == sym.keys()
    for f in ("det_divides", "even_symmetric", "bernstein_degrees", "bernstein_min", "bernstein_face_positive",
              "holds"):
        assert kern[f] == sym[f], f
    assert [fraction_of(m) for m in sym["point_minors"]] == kern["point_minors"]
    assert (kern["converse"] == 0) and (sym["converse"] == 0)


def test_the_sign_matrix_equals_the_sympy_one():
    """M(x, y, t) and D₀ coefficient by coefficient: the two derivations start from the same form."""
    _, M, D0 = K._sign_matrix()
    data = RS.identity_v_sign_matrix()
    gens, _ = data["symbols"]

    def same(f, e):
        return {m: fraction_of(c) for m, c in f.to_dict().items()} == \
            {m: fraction_of(c) for m, c in sp.Poly(e, *gens).as_dict().items()}
    assert all(same(M[i][j], data["M"][i, j]) for i in range(3) for j in range(3))
    assert same(D0, data["D0"])


def _cube(expr):
    C = flint.fmpq_mpoly_ctx.get(("lam", "z", "v"), "lex")
    return expr(*C.gens())


def test_bernstein_rejects_a_polynomial_negative_inside():
    """The positivity step is not vacuous: (z − ½)² − 1/100 + λv has a negative coefficient."""
    coef, _ = K._bernstein(_cube(lambda lam, z, v: (z - flint.fmpq(1, 2)) ** 2 - flint.fmpq(1, 100) + lam * v))
    assert min(coef.values()) < 0
    coef, _ = K._bernstein(_cube(lambda lam, z, v: lam * (1 - z) + z ** 2 * v))
    assert min(coef.values()) >= 0


def test_bernstein_coefficients_reproduce_the_polynomial():
    """Σ b_ijk B_i(λ)B_j(z)B_k(v) equals the polynomial at rational points (the change of basis is exact)."""
    p = _cube(lambda lam, z, v: 3 * lam ** 2 * z - 5 * z ** 3 * v + 7 * lam * v ** 2 - 2 + lam * z * v)
    coef, degs = K._bernstein(p)

    def basis(n, i, s):
        return comb(n, i) * s ** i * (1 - s) ** (n - i)
    q = flint.fmpq
    for pt in ((q(1, 3), q(2, 5), q(5, 7)), (q(0), q(1), q(1, 2))):
        val = sum(c * basis(degs[0], m[0], pt[0]) * basis(degs[1], m[1], pt[1]) * basis(degs[2], m[2], pt[2])
                  for m, c in coef.items())
        assert val == p(*pt)
