"""The pieces of the moving-centre ``tube-ray`` end of ``cell-tube-param`` against independent float computations:
the projective ray field (X, x, y, u, s) — its Taylor series against an ODE solver of the covariance flow itself
(Σ = X/u at time t = s), its ball Jacobian against finite differences of its own Taylor map —, the centred ray
Jacobian as an enclosure at random points of the box and of the cell, and the end energy of a replayed projective
tube against float integrations from random points of the cell."""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check.cell_enclosures import MatPoly
from symbolic_tf.certify.check.kinds.cell_tube_param import (ball_heads, centred_ray_jacobian, moving_centre,
                                                             projective_ray_offset)
from symbolic_tf.certify.check.kinds.tube_ray import ProjectiveField, centre_box
from symbolic_tf.certify.check.param_tube import ProjRayParamField, param_start, sigma_block
from symbolic_tf.certify.check.tube_replay import replay_step
from symbolic_tf.exact.precision import working_precision

UP = [(0, 0), (0, 1), (1, 1)]


def _heads(seed):
    rng = np.random.default_rng(seed)

    def M():
        return flint.fmpq_mat(2, 2, [flint.fmpq(int(rng.integers(-9, 10)), 8) for _ in range(4)])
    return [(MatPoly.affine(M(), M(), M()), MatPoly.affine(M(), M(), M()))]


def _fl(M):
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def _Q(C, A, X):
    T = C @ X @ A @ X
    return T + T.T


def _embed(X, x, y, u, s):
    Z = np.zeros((6, 6))
    Z[:2, :2] = X
    Z[2, 2], Z[3, 3], Z[4, 4], Z[5, 5] = x, y, u, s
    return flint.arb_mat([[flint.arb(float(v)) for v in row] for row in Z])


def test_series_is_the_covariance_flow():
    """Summed Taylor series of (X, u, s) over a short τ step against Σ(t) of the covariance flow at t = s: X = Σ/tr Σ,
    u = 1/tr Σ (the reduction the ray end rests on)."""
    heads = _heads(1)
    field = ProjRayParamField(heads, 2, flint.fmpq(1))
    x, y = 0.3, -0.2
    C, A = (_fl(P.at(flint.fmpq(3, 10), flint.fmpq(-1, 5))) for P in heads[0])
    S0 = np.array([[1.0, 0.25], [0.25, 0.5]])
    with working_precision(128):
        sig = field.coefficients(_embed(S0 / np.trace(S0), x, y, 1 / np.trace(S0), 0.0), 24)
        h = 0.05
        Z = sig[0]
        for n in range(1, 25):
            Z = Z + sig[n] * flint.arb(h) ** n
    X, u, s = _fl(sigma_block(Z, 2).mid()), float(Z[4, 4].mid()), float(Z[5, 5].mid())
    sol = solve_ivp(lambda _t, v: _Q(C, A, v.reshape(2, 2)).ravel(), (0, s), S0.ravel(), rtol=1e-12, atol=1e-14)
    S = sol.y[:, -1].reshape(2, 2)
    assert np.abs(X - S / np.trace(S)).max() < 1e-8 and abs(u - 1 / np.trace(S)) < 1e-8


def test_jacobian_against_differences():
    """The ball Jacobian of the order-k Taylor map against central differences of the same map (all 7 coordinates:
    svec X, x, y, u, s)."""
    heads = _heads(2)
    field = ProjRayParamField(heads, 2, flint.fmpq(1))
    h, K = flint.arb(flint.fmpq(1, 20)), 12
    v0 = np.array([0.6, 0.1, 0.4, 0.5, -0.3, 0.6, 0.1])

    def tmap(v):
        sig = field.coefficients(_embed(np.array([[v[0], v[1]], [v[1], v[2]]]), *v[3:]), K)
        out = sig[0]
        for n in range(1, K + 1):
            out = out + sig[n] * h ** n
        return np.array([float(field.vec(out)[i, 0].mid()) for i in range(7)])

    with working_precision(200):
        J = field.jacobian(field.coefficients(_embed(np.array([[v0[0], v0[1]], [v0[1], v0[2]]]), *v0[3:]), K), h)
        Jn = np.zeros((7, 7))
        for k in range(7):
            e = np.zeros(7)
            e[k] = 1e-6
            Jn[:, k] = (tmap(v0 + e) - tmap(v0 - e)) / 2e-6
    for i in range(7):
        for j in range(7):
            assert abs(float(J[i, j].mid()) - Jn[i, j]) < 1e-6 + float(J[i, j].rad()), (i, j)


def test_centred_ray_jacobian_encloses():
    """At random p of a sub-box and random (X, u) of the box X* ± R × [0, R_u], the float Jacobian of
    Φ(X, u) = (Q(X) − tr Q(X)·X, −tr Q(X)·u) (central differences) lies in the centred ball Jacobian."""
    heads = _heads(3)
    rng = np.random.default_rng(0)
    box = (flint.fmpq(1, 4), flint.fmpq(5, 16), flint.fmpq(-1, 2), flint.fmpq(-7, 16))
    Xs = flint.fmpq_mat([[flint.fmpq(3, 5), flint.fmpq(1, 7)], [flint.fmpq(1, 7), flint.fmpq(2, 5)]])
    R = [flint.fmpq(1, 50), flint.fmpq(1, 40), flint.fmpq(1, 60), flint.fmpq(1, 10)]
    with working_precision(128):
        pairs, F = ball_heads(heads, MatPoly(2, 2), box)
        H = centre_box(Xs, R, UP)
        uH = flint.arb(R[3] / 2) + flint.arb(0, flint.arb(R[3] / 2).upper())
        J = centred_ray_jacobian(ProjectiveField(pairs, None, flint.arb_mat), Xs, H, R, uH)
    for _ in range(20):
        x = float(box[0]) + rng.random() * float(box[1] - box[0])
        y = float(box[2]) + rng.random() * float(box[3] - box[2])
        C, A = (_fl(P.at(flint.fmpq(Fraction(x).limit_denominator(10 ** 9).numerator,
                                    Fraction(x).limit_denominator(10 ** 9).denominator),
                         flint.fmpq(Fraction(y).limit_denominator(10 ** 9).numerator,
                                    Fraction(y).limit_denominator(10 ** 9).denominator))) for P in heads[0])
        z = np.array([float(Xs[i, j]) + float(R[k]) * (2 * rng.random() - 1) for k, (i, j) in enumerate(UP)]
                     + [rng.random() * float(R[3])])

        def phi(v):
            X = np.array([[v[0], v[1]], [v[1], v[2]]])
            Q = _Q(C, A, X)
            c = np.trace(Q)
            top = Q - c * X
            return np.array([top[0, 0], top[0, 1], top[1, 1], -c * v[3]])

        for k in range(4):
            e = np.zeros(4)
            e[k] = 1e-7
            col = (phi(z + e) - phi(z - e)) / 2e-7
            for r in range(4):
                assert abs(col[r] - float(J[r, k].mid())) <= float(J[r, k].rad()) + 1e-6, (r, k)


def test_end_energy_against_floats():
    """A projective ray tube replayed over a small cell: at random p of the cell the float solution (X, u, s)(τ_N) of
    the covariance flow has its energy zᵀWz, z = (svec(X − X*(p)), u), u and s inside the balls of
    :func:`projective_ray_offset`."""
    heads = _heads(4)
    box = (flint.fmpq(1, 8), flint.fmpq(5, 32), flint.fmpq(1, 4), flint.fmpq(9, 32))
    field = ProjRayParamField(heads, 2, flint.fmpq(1))
    S0q = flint.fmpq_mat([[1, flint.fmpq(1, 4)], [flint.fmpq(1, 4), flint.fmpq(1, 2)]])
    Xs = flint.fmpq_mat([[flint.fmpq(1, 2), flint.fmpq(1, 5)], [flint.fmpq(1, 5), flint.fmpq(1, 2)]])
    Gx = flint.fmpq_mat([[flint.fmpq(1, 3), 0], [0, flint.fmpq(-1, 3)]])
    Gy = flint.fmpq_mat([[0, flint.fmpq(1, 4)], [flint.fmpq(1, 4), 0]])
    W = flint.fmpq_mat([[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, flint.fmpq(1, 4)]])
    Xp = moving_centre(Xs, Gx, Gy, box)
    h, n = flint.fmpq(1, 32), 8
    with working_precision(128):
        st = param_start(field, S0q, box)
        for _ in range(n):
            st = replay_step(field, st, flint.arb(h), 12, "qr")
            assert not isinstance(st, str)
        E, u, s = projective_ray_offset(st, Xp, flint.arb_mat(W), 2)
    tau = float(h) * n
    rng = np.random.default_rng(5)
    S0 = _fl(S0q)
    for _ in range(8):
        fx, fy = rng.random(), rng.random()
        xq = box[0] + (box[1] - box[0]) * flint.fmpq(int(fx * 1000), 1000)
        yq = box[2] + (box[3] - box[2]) * flint.fmpq(int(fy * 1000), 1000)
        C, A = (_fl(P.at(xq, yq)) for P in heads[0])

        def rhs(_t, v):
            X, uu = v[:4].reshape(2, 2), v[4]
            Q = _Q(C, A, X)
            c = np.trace(Q)
            return np.concatenate([(Q - c * X).ravel(), [-c * uu, uu]])

        v0 = np.concatenate([(S0 / np.trace(S0)).ravel(), [1 / np.trace(S0), 0.0]])
        v = solve_ivp(rhs, (0, tau), v0, rtol=1e-12, atol=1e-14).y[:, -1]
        Xc = _fl(Xp.at(xq, yq))
        X = v[:4].reshape(2, 2)
        z = np.array([X[0, 0] - Xc[0, 0], X[0, 1] - Xc[0, 1], X[1, 1] - Xc[1, 1], v[4]])
        e = float(z @ _fl(W) @ z)
        assert float(E.lower()) - 1e-9 <= e <= float(E.upper()) + 1e-9
        assert float(u.lower()) - 1e-9 <= v[4] <= float(u.upper()) + 1e-9
        assert float(s.lower()) - 1e-9 <= v[5] <= float(s.upper()) + 1e-9
