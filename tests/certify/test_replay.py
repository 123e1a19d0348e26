"""The ball Jacobian of a validated Taylor step (:func:`symbolic_tf.certify.check.tube_replay.jacobian_series`):
the orders past p are replaced by a Frobenius-norm majorant ±ε, so the enclosure must still contain the
exact full-order sum Σ_{n≤k} D_n hⁿ — checked against an exact rational recurrence, against random
point matrices inside ball coefficients, and (for the projective field) against a high-precision
central difference of the Taylor map itself; and the series product :func:`~symbolic_tf.certify.check.tube_replay.cauchy_sum`
of the Taylor recurrences against its exact rational value."""
from __future__ import annotations

import random

import flint
import pytest

from symbolic_tf.certify.check.projective import ProjectiveSeries
from symbolic_tf.certify.check.tube_replay import JACOBIAN_TAIL, jacobian_series, jacobian_terms
from symbolic_tf.exact.precision import working_precision


def _holds(J, exact):
    """Every exact rational entry lies in J's ball (compared at a precision far above J's, so that
    converting the rational adds nothing)."""
    with working_precision(3000):
        return all(J[a, b].contains(flint.arb(exact[a, b])) for a in range(J.nrows()) for b in range(J.ncols()))


def _exact_sum(G, h, p=None):
    """Σ_{n≤p} D_n hⁿ over ℚ (p = k by default), D_0 = I, D_{n+1} = Σ_{j≤n} G_jD_{n−j}/(n + 1)."""
    m = G[0].nrows()
    D = [flint.fmpq_mat(m, m, [int(i == j) for i in range(m) for j in range(m)])]
    for n in range(len(G) if p is None else p):
        acc = G[0] * D[n]
        for j in range(1, n + 1):
            acc += G[j] * D[n - j]
        D.append(acc * flint.fmpq(1, n + 1))
    total = D[-1]
    for n in reversed(range(len(D) - 1)):
        total = total * h + D[n]
    return total


def _rand_mat(rng, m, scale):
    return flint.fmpq_mat(m, m, [flint.fmpq(rng.randint(-40, 40), 8) * scale for _ in range(m * m)])


@pytest.mark.parametrize("m, k, h", [(3, 20, flint.fmpq(1, 40)), (7, 20, flint.fmpq(1, 16)),
                                     (6, 14, flint.fmpq(1, 8)), (4, 25, flint.fmpq(1, 3))])
def test_the_truncated_jacobian_contains_the_exact_full_order_sum(m, k, h):
    rng = random.Random(m * 100 + k)
    # Taylor coefficients that decay like those of an analytic field (radius of convergence ≈ 1)
    G = [_rand_mat(rng, m, flint.fmpq(1, 2 ** j)) for j in range(k)]
    exact = _exact_sum(G, h)
    with working_precision(128):
        Gb = [flint.arb_mat(g) for g in G]
        J = jacobian_series(Gb, flint.arb(h))
        D, eps = jacobian_terms(Gb, flint.arb(h))
    assert _holds(J, exact)
    assert eps <= JACOBIAN_TAIL
    if len(D) <= k:      # truncated: the tail is really bounded, not dropped
        assert eps > 0
        assert not all(_exact_sum(G, h, len(D) - 1)[a, b] == exact[a, b] for a in range(m) for b in range(m))


def test_a_small_step_is_truncated_and_a_long_one_is_not():
    rng = random.Random(7)
    G = [_rand_mat(rng, 5, flint.fmpq(1, 2 ** j)) for j in range(20)]
    with working_precision(128):
        Gb = [flint.arb_mat(g) for g in G]
        short, eps_short = jacobian_terms(Gb, flint.arb(flint.fmpq(1, 64)))
        long_, eps_long = jacobian_terms(Gb, flint.arb(2))
    assert len(short) - 1 < 20 and 0 < eps_short <= JACOBIAN_TAIL
    assert len(long_) - 1 == 20 and eps_long == 0


def test_ball_coefficients_cover_every_point_matrix_inside():
    rng = random.Random(11)
    m, k, h = 4, 18, flint.fmpq(1, 20)
    G = [_rand_mat(rng, m, flint.fmpq(1, 2 ** j)) for j in range(k)]
    rad = flint.fmpq(1, 2 ** 12)
    with working_precision(128):
        Gb = [flint.arb_mat(m, m, [flint.arb(g[a, b], rad) for a in range(m) for b in range(m)]) for g in G]
        J = jacobian_series(Gb, flint.arb(h))
    for _ in range(5):
        Gp = [g + flint.fmpq_mat(m, m, [rad * flint.fmpq(rng.randint(-64, 64), 64) for _ in range(m * m)])
              for g in G]
        exact = _exact_sum(Gp, h)
        assert _holds(J, exact)


def test_the_projective_jacobian_contains_the_taylor_maps_central_difference():
    # seed 0 #46 of the general-V set (d = 3), at a point state; the Taylor map z ↦ Σ_n Z_n(z)hⁿ
    A = flint.fmpq_mat([[flint.fmpq(-1, 3), -1, flint.fmpq(3, 2)], [flint.fmpq(-3, 4), flint.fmpq(-5, 3),
                        flint.fmpq(-2, 3)], [flint.fmpq(7, 4), flint.fmpq(-3, 2), flint.fmpq(-1, 3)]])
    V = flint.fmpq_mat([[flint.fmpq(1, 3), flint.fmpq(5, 3), flint.fmpq(3, 2)], [flint.fmpq(1, 2), flint.fmpq(-1, 3),
                        flint.fmpq(-3, 2)], [-1, -2, flint.fmpq(-5, 3)]])
    k, h, delta = 20, flint.fmpq(1, 30), flint.fmpq(1, 2 ** 90)
    with working_precision(400):
        field = ProjectiveSeries([(V, A)])
        X = flint.arb_mat([[flint.fmpq(1, 2), flint.fmpq(1, 10), 0], [flint.fmpq(1, 10), flint.fmpq(3, 10),
                                                                       flint.fmpq(1, 20)], [0, flint.fmpq(1, 20),
                                                                                           flint.fmpq(1, 5)]])
        z = field.vec(field.join(X, flint.arb(flint.fmpq(1, 7)), flint.arb(0)))
        n = z.nrows()

        def taylor_map(v):
            sig = field.coefficients(field.unvec(v, None), k)
            total = sig[k]
            for i in reversed(range(k)):
                total = total * flint.arb(h) + sig[i]
            return field.vec(total)

        J = field.jacobian(field.coefficients(field.unvec(z, None), k), flint.arb(h))
        for b in range(n):
            e = flint.arb_mat(n, 1, [delta if i == b else 0 for i in range(n)])
            fd = (taylor_map(z + e) - taylor_map(z - e)) * flint.arb(1 / (2 * delta))
            for a in range(n):
                gap = abs(J[a, b].mid() - fd[a, 0].mid())
                assert gap <= flint.arb(J[a, b].rad()) + flint.arb(flint.fmpq(1, 2 ** 150)), (a, b)


@pytest.mark.parametrize("heads, with_start", [(1, False), (1, True), (3, False), (2, True)])
def test_cauchy_sum_is_the_exact_series_product(heads, with_start):
    """cauchy_sum's ball contains the exact Σ_{j≤n} Σ_h L_{j,h}R_{n−j} (+ start) over ℚ, and it is exactly
    the loop of additions it replaces (the same operations in the same order)."""
    from symbolic_tf.certify.check.tube_replay import cauchy_sum

    rng = random.Random(heads * 10 + with_start)
    n, d = 7, 3
    q = [[[flint.fmpq(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(d * d)] for _ in range(heads)]
         for _ in range(n + 1)]
    r = [[flint.fmpq(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(d * d)] for _ in range(n + 1)]
    s = [flint.fmpq(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(d * d)]
    with working_precision(64):
        left = [[flint.arb_mat(d, d, [flint.arb(x) for x in e]) for e in row] for row in q]
        right = [flint.arb_mat(d, d, [flint.arb(x) for x in e]) for e in r]
        start = flint.arb_mat(d, d, [flint.arb(x) for x in s]) if with_start else None
        got = cauchy_sum(left, right, n, start)
        loop = start
        for j in range(n + 1):
            for L in left[j]:
                loop = L * right[n - j] if loop is None else loop + L * right[n - j]
    exact = flint.fmpq_mat(d, d, s) if with_start else flint.fmpq_mat(d, d)
    for j in range(n + 1):
        for e in q[j]:
            exact += flint.fmpq_mat(d, d, e) * flint.fmpq_mat(d, d, r[n - j])
    assert _holds(got, exact)
    assert all(a.mid() == b.mid() and a.rad() == b.rad() for a, b in zip(got.entries(), loop.entries()))
