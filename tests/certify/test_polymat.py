"""Matrix polynomials: exact algebra, and the soundness of the vertex / centred-form enclosures."""
from fractions import Fraction as Fr

from hypothesis import given, strategies as st

from symbolic_tf.certify.search import _polymat as pm
from symbolic_tf.exact.definiteness import inertia

small = st.fractions(min_value=-3, max_value=3, max_denominator=8)


def sym(a, b, c):
    return [[a, b], [b, c]]


@st.composite
def affine_sym(draw):
    return pm.affine(*(sym(draw(small), draw(small), draw(small)) for _ in range(3)))


@st.composite
def boxes(draw):
    x0, y0 = draw(small), draw(small)
    hx = draw(st.fractions(min_value=0, max_value=1, max_denominator=16))
    hy = draw(st.fractions(min_value=0, max_value=1, max_denominator=16))
    return (x0, x0 + hx, y0, y0 + hy)


def _points(box, n=6):
    x0, x1, y0, y1 = box
    for i in range(n + 1):
        for j in range(n + 1):
            yield x0 + (x1 - x0) * Fr(i, n), y0 + (y1 - y0) * Fr(j, n)


def test_algebra_matches_evaluation():
    P = pm.affine(sym(1, 2, 3), sym(0, 1, 0), sym(Fr(1, 2), 0, -1))
    Q = pm.affine(sym(2, 0, 1), sym(1, 1, 1), sym(0, 0, 0))
    PQP = pm.mul(pm.mul(P, Q), P)
    assert pm.degree(PQP) == 3
    for x, y in [(Fr(1, 3), Fr(-2)), (Fr(0), Fr(5, 7))]:
        Pv, Qv = pm.evaluate(P, x, y), pm.evaluate(Q, x, y)
        assert pm.evaluate(PQP, x, y) == Pv * Qv * Pv
        z = [Fr(2), Fr(-1, 3)]
        zq = pm.evaluate(pm.quad(PQP, z), x, y)[0, 0]
        Z = pm.evaluate(pm.const([[2], [Fr(-1, 3)]]), 0, 0)
        assert zq == (Z.transpose() * Pv * Qv * Pv * Z)[0, 0]


@given(affine_sym(), affine_sym(), boxes())
def test_scalar_bounds_are_sound(P, Q, box):
    p = pm.quad(pm.mul(pm.mul(P, Q), P), [Fr(1), Fr(-1, 2)])  # a cubic scalar polynomial
    lo, hi, _ = pm.scalar_bounds(p, box)
    for x, y in _points(box):
        v = pm.evaluate(p, x, y)[0, 0]
        assert lo <= v <= hi


@given(affine_sym(), affine_sym(), boxes())
def test_psd_on_box_is_sound(P, Q, box):
    # P² + Q − c·I style quadratic matrix polynomials: whenever the box claim holds, it holds at points
    M = pm.add(pm.mul(P, P), Q)
    for poly in (M, P):
        ok, _ = pm.psd_on_box(poly, box)
        if ok:
            for x, y in _points(box, 4):
                assert inertia(pm.evaluate(poly, x, y))[1] == 0
        strict, _ = pm.pd_on_open_box(poly, box)
        if strict:
            x0, x1, y0, y1 = box
            for x, y in _points(box, 4):
                interior = (x0 < x < x1 or x0 == x1) and (y0 < y < y1 or y0 == y1)
                if interior:
                    assert inertia(pm.evaluate(poly, x, y))[0] == 2


def test_centred_form_shrinks_with_the_box():
    # the enclosure of a quadratic PD polynomial is decided on small boxes around any PD point
    P = pm.affine(sym(2, 0, 2), sym(1, 0, 0), sym(0, 1, 0))
    M = pm.mul(P, P)
    assert pm.degree(M) == 2
    assert pm.psd_on_box(M, (Fr(0), Fr(1, 64), Fr(0), Fr(1, 64))) == (True, "centred-form")
    C, Lx, Ly, E = pm.centred(M, (Fr(0), Fr(1, 64), Fr(0), Fr(1, 64)))
    # quadratic remainder of P² = [[(2+x)² + y², (4+x)y], [·, y² + 4]] about (h, h), h = 1/128:
    # s² + t², st and t² terms, so e ≤ 2h² entrywise; the constant part is P(h, h)²
    assert all(E[i, j] <= pm.q(Fr(2, 128 ** 2)) for i in range(2) for j in range(2))
    assert C == pm.evaluate(M, Fr(1, 128), Fr(1, 128))


@given(affine_sym(), boxes(), st.lists(small, min_size=2, max_size=2))
def test_affine_scalar_bounds_are_the_extreme_corner_values(P, box, z):
    p = pm.quad(P, z)
    lo, hi, arg = pm.scalar_bounds(p, box)
    vals = [pm.evaluate(p, x, y)[0, 0] for x, y in pm.corners(box)]
    assert (lo, hi, arg) == (min(vals), max(vals), "vertex")


@given(affine_sym(), boxes())
def test_affine_psd_on_box_is_the_corner_test(P, box):
    """Vertex argument for an affine P: ⪰ 0 on the box iff ⪰ 0 at the four corners (and ≻ 0 on the
    open box iff, in addition, ≻ 0 at the centre) — decided here by inertia at evaluated corners."""
    from symbolic_tf.exact.definiteness import is_pd, is_psd

    at_corners = all(is_psd(pm.evaluate(P, x, y)) for x, y in pm.corners(box))
    assert pm.psd_on_box(P, box) == (at_corners, "vertex")
    x0, x1, y0, y1 = box
    centre = is_pd(pm.evaluate(P, (x0 + x1) / 2, (y0 + y1) / 2))
    assert pm.pd_on_open_box(P, box) == (centre and at_corners, "vertex")
