"""The pieces of the moving-centre ``tube-cluster`` end of ``cell-tube-param`` against independent float
computations: the projective parameter field's Taylor series against an ODE solver and its ball Jacobian against
finite differences of its own Taylor map, the centred-form Jacobian and the sub-boxes as enclosures at random
points, the end energy against Σ/tr Σ − X*(p) at random points of the start parallelepiped, and the centre guess
that used to miss a blow-up."""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

from symbolic_tf.certify.check.cell_enclosures import MatPoly
from symbolic_tf.certify.check.kinds.cell_tube_param import (ball_heads, centred_jacobian, end_offset_energy,
                                                             moving_centre, sub_boxes)
from symbolic_tf.certify.check.kinds.tube_cluster import jacobian_and_gradient
from symbolic_tf.certify.check.kinds.tube_ray import ProjectiveField, centre_box
from symbolic_tf.certify.check.param_tube import ProjParamField, param_start, sigma_block
from symbolic_tf.certify.check.tube_replay import svec_basis
from symbolic_tf.exact.precision import working_precision

UP = [(0, 0), (0, 1), (1, 1)]


def _heads(seed):
    rng = np.random.default_rng(seed)

    def M():
        return flint.fmpq_mat(2, 2, [flint.fmpq(int(rng.integers(-9, 10)), 8) for _ in range(4)])
    return [(MatPoly.affine(M(), M(), M()), MatPoly.affine(M(), M(), M()))]


def _fl(M):
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def _phi(C, A, X, kappa=1.0):
    Q = C @ X @ A @ X
    Q = Q + Q.T
    return Q - (np.trace(Q) + kappa * (np.trace(X) - 1)) * X


def _state(v):
    S = flint.arb_mat(2, 2)
    for q, (i, j) in enumerate(UP):
        S[i, j] = S[j, i] = flint.arb(v[q])
    out = flint.arb_mat(4, 4)
    for i in range(2):
        for j in range(2):
            out[i, j] = S[i, j]
    out[2, 2], out[3, 3] = flint.arb(v[3]), flint.arb(v[4])
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_projective_field_series_and_jacobian(seed):
    """σ₁ is Φ_p(X); the order-6 Taylor map matches an ODE solution over h = 1/20 to O(h⁷); the ball Jacobian
    of the Taylor map (state and parameter columns) matches its central differences."""
    from scipy.integrate import solve_ivp

    heads = _heads(seed)
    f = ProjParamField(heads, 2, flint.fmpq(1))
    k, h = 6, flint.arb(flint.fmpq(1, 20))
    v0 = np.array([0.6, -0.2, 0.4, 0.3, -0.7])
    C = _fl(heads[0][0].at(Fraction(3, 10), Fraction(-7, 10)))
    A = _fl(heads[0][1].at(Fraction(3, 10), Fraction(-7, 10)))
    X0 = np.array([[0.6, -0.2], [-0.2, 0.4]])

    def taylor(v, h=h):
        sig = f.coefficients(_state(v), k)
        out = sig[0]
        for n in range(1, k + 1):
            out = out + sig[n] * h ** n
        return np.array([float(out[i, j].mid()) for i, j in UP] + [float(out[2, 2].mid()), float(out[3, 3].mid())])

    with working_precision(200):
        sig = f.coefficients(_state(v0), 1)
        assert np.abs(_fl(sigma_block(sig[1], 2).mid()) - _phi(C, A, X0)).max() < 1e-14
        sol = solve_ivp(lambda _t, z: [_phi(C, A, np.array([[z[0], z[1]], [z[1], z[2]]]))[i, j] for i, j in UP],
                        (0, 0.05), [0.6, -0.2, 0.4], rtol=1e-13, atol=1e-15, dense_output=True)
        # the order-6 Taylor map errs by O(h⁷): halving h divides the error by ≈ 2⁷
        e1 = np.abs(taylor(v0)[:3] - sol.sol(0.05)).max()
        e2 = np.abs(taylor(v0, flint.arb(flint.fmpq(1, 40)))[:3] - sol.sol(0.025)).max()
        assert e1 < 1e-6 and e2 < e1 / 50, (e1, e2)
        J = f.jacobian(f.coefficients(_state(v0), k), h)
        Jn = np.zeros((5, 5))
        for c in range(5):
            dv = np.zeros(5)
            dv[c] = 1e-6
            Jn[:, c] = (taylor(v0 + dv) - taylor(v0 - dv)) / 2e-6
        assert np.abs(_fl(J.mid()) - Jn).max() < 1e-7


def test_centred_jacobian_and_sub_boxes_enclose_random_points():
    """For random X in the box X* ± R and p in each sub-box, the float Jacobian of Φ_p lies in the centred-form
    ball of that sub-box; the sub-boxes tile the cell."""
    heads = _heads(3)
    box = (flint.fmpq(0), flint.fmpq(1, 4), flint.fmpq(1, 2), flint.fmpq(5, 8))
    subs = sub_boxes(box, 2)
    assert len(subs) == 16 and sum((b[1] - b[0]) * (b[3] - b[2]) for b in subs) == (box[1] - box[0]) * (box[3] - box[2])
    Xs = flint.fmpq_mat([[flint.fmpq(2, 3), flint.fmpq(-1, 3)], [flint.fmpq(-1, 3), flint.fmpq(1, 3)]])
    R = [flint.fmpq(1, 50)] * 3
    rng = np.random.default_rng(7)
    with working_precision(128):
        for sub in subs[::5]:
            pairs, _F = ball_heads(heads, MatPoly(2, 2), sub)
            pf = ProjectiveField(pairs, None, flint.arb_mat)
            H = centre_box(Xs, R, UP)
            J = centred_jacobian(pf, Xs, H, R, flint.arb(1))
            Jd, _g = jacobian_and_gradient(pf, H, flint.arb(1), svec_basis(2))
            assert sum(float(J[i, j].rad()) for i in range(3) for j in range(3)) < \
                sum(float(Jd[i][j].rad()) for i in range(3) for j in range(3))
            for _ in range(5):
                x = float(sub[0]) + rng.random() * float(sub[1] - sub[0])
                y = float(sub[2]) + rng.random() * float(sub[3] - sub[2])
                xq, yq = Fraction(x), Fraction(y)
                C, A = _fl(heads[0][0].at(xq, yq)), _fl(heads[0][1].at(xq, yq))
                z = (rng.random(3) * 2 - 1) * 0.02
                X = _fl(Xs) + np.array([[z[0], z[1]], [z[1], z[2]]])
                Jn = np.zeros((3, 3))
                for c, (a, b) in enumerate(UP):
                    E = np.zeros((2, 2))
                    E[a, b] = E[b, a] = 1e-6
                    D = (_phi(C, A, X + E) - _phi(C, A, X - E)) / 2e-6
                    Jn[:, c] = [D[i, j] for i, j in UP]
                for i in range(3):
                    for j in range(3):
                        assert abs(Jn[i, j] - float(J[i, j].mid())) <= float(J[i, j].rad()) + 1e-6


def test_end_offset_energy_encloses_random_points_of_the_start_set():
    """At τ = 0 the parallelepiped is {Σ₀} × the cell: for random p of the cell, zᵀWz with z = svec(Σ₀/tr Σ₀ − X*(p))
    lies in the ball, X*(p) affine with slopes."""
    box = (flint.fmpq(1), flint.fmpq(5, 4), flint.fmpq(0), flint.fmpq(1, 8))
    heads = _heads(4)
    f = ProjParamField(heads, 2, flint.fmpq(1))
    S0 = flint.fmpq_mat([[flint.fmpq(3, 4), flint.fmpq(1, 8)], [flint.fmpq(1, 8), flint.fmpq(1, 4)]])
    Xs = flint.fmpq_mat([[flint.fmpq(1, 2), flint.fmpq(1, 3)], [flint.fmpq(1, 3), flint.fmpq(1, 2)]])
    Gx = flint.fmpq_mat([[flint.fmpq(1, 5), 0], [0, flint.fmpq(-1, 5)]])
    Gy = flint.fmpq_mat([[0, flint.fmpq(2, 3)], [flint.fmpq(2, 3), 0]])
    W = np.array([[1.0, 0.2, 0.0], [0.2, 0.8, 0.1], [0.0, 0.1, 0.5]])
    Wb = flint.arb_mat([[flint.arb(flint.fmpq(Fraction(w).numerator, Fraction(w).denominator)) for w in r] for r in W])
    Xp = moving_centre(Xs, Gx, Gy, box)
    rng = np.random.default_rng(11)
    with working_precision(128):
        st = param_start(f, S0, box)
        energy, trS = end_offset_energy(st, Xp, Wb)
        assert trS.contains(1)
        for _ in range(20):
            x = float(box[0]) + rng.random() * float(box[1] - box[0])
            y = float(box[2]) + rng.random() * float(box[3] - box[2])
            Xc = _fl(Xs) + (x - 9 / 8) * _fl(Gx) + (y - 1 / 16) * _fl(Gy)
            D = _fl(S0) - Xc
            z = np.array([D[i, j] for i, j in UP])
            e = z @ W @ z
            assert float(energy.lower()) - 1e-12 <= e <= float(energy.upper()) + 1e-12


def test_the_centre_guess_sees_a_blow_up_stopped_just_below_the_threshold():
    """Issue 49's map at (−7/4, 1/8): the float trace passes 10⁶ near t ≈ 1.10; the terminal event stops at
    999999.99999…, which the guess used to read as 'neither blows up nor …'."""
    from symbolic_tf.certify.search.cell_tube_param import ParamCells
    from symbolic_tf.spec.mapspec import parse_map_spec

    spec = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 2]},
            "y": {"range": [-1, 1]},
            "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [-1, -1]], "V": [[1, "x"], [0, 1]],
                        "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
    pc = ParamCells(parse_map_spec(spec))
    guess, X = pc._guess(pc._flow(Fraction(-7, 4), Fraction(1, 8)))
    assert guess == "BLOWUP" and abs(np.trace(X) - 1) < 1e-12
