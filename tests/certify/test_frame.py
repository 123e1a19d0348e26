"""Rotated frames of the tube steps (symbolic_tf.certify.check.frame): the rotation is exactly
orthogonal, the rotated fields are the change of variables Σ = QΣ'Qᵀ (exact Taylor coefficients are
enclosed after mapping back), the framed remainder is far tighter on a nearly singular Σ, and a tube
run deep into a general-V blow-up contains the 40-digit reference solution at every step."""
from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

from symbolic_tf.certify.check.frame import Frame, eigen_frame, jacobi_eigenvectors, rational_rotation
from symbolic_tf.certify.check.projective import ProjectiveSeries
from symbolic_tf.certify.check.tube_replay import Field, lagrange_remainder
from symbolic_tf.certify.search.validated.tube import flow_data, integrate_tube
from symbolic_tf.exact.precision import working_precision
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec import parse_problem


def _q(x):
    f = Fraction(x)
    return flint.fmpq(f.numerator, f.denominator)


def _qmat(M):
    return flint.fmpq_mat([[_q(x) for x in row] for row in M])


def _eye(d):
    return flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])


@pytest.mark.parametrize("d", [2, 3, 4, 6])
def test_rational_rotation_is_exactly_orthogonal_and_near_the_eigenvectors(d):
    rng = np.random.default_rng(d)
    for _ in range(40):
        M = rng.standard_normal((d, d))
        _, U = np.linalg.eigh(M @ M.T)
        Q = rational_rotation(U)
        assert Q is not None
        assert Q.transpose() * Q == _eye(d)
        assert Q.det() == 1
        Qf = np.array([[float(Q[i, j]) for j in range(d)] for i in range(d)])
        assert np.allclose(np.abs(Qf), np.abs(U), atol=1e-9)   # the eigenvectors, up to sign


@pytest.mark.parametrize("d", [2, 3, 4, 6])
def test_jacobi_eigenvectors_diagonalise(d):
    """The platform-independent eigenvectors: orthonormal, and VᵀMV diagonal to rounding — also for a
    nearly rank-one M whose small eigenvalue hides in cancellations, and for scales from 10⁻³ to 10⁶."""
    rng = np.random.default_rng(10 + d)
    for n in range(60):
        B = rng.standard_normal((d, d))
        M = B @ B.T * 10.0 ** rng.uniform(-3, 6)
        if n % 3 == 0:
            w = rng.standard_normal(d)
            M = np.outer(w, w) * 1e6 + M * 1e-6
        V = np.array(jacobi_eigenvectors(M.tolist()))
        D = V.T @ M @ V
        assert np.abs(V.T @ V - np.eye(d)).max() < 1e-14
        assert np.abs(D - np.diag(np.diag(D))).max() <= 1e-14 * np.abs(M).max()


def test_eigen_frame_declines_non_finite_boxes():
    S = flint.arb_mat(2, 2)
    S[0, 0] = flint.arb("inf")
    assert eigen_frame(S) is None


def _exact_coefficients(pairs, F, S, K):
    """σ_0..σ_K of Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + transpose) at the exact S (fmpq recursion)."""
    sig = [S]
    for n in range(K):
        M = F * sig[n] if F is not None else flint.fmpq_mat(S.nrows(), S.nrows())
        for j in range(n + 1):
            for C, A in pairs:
                M += C * sig[j] * A * sig[n - j]
        sig.append((M + M.transpose()) * flint.fmpq(1, n + 1))
    return sig


PAIRS = [(_qmat([[Fraction(5, 3), Fraction(-5, 3)], [Fraction(-3, 4), 1]]),
          _qmat([[-1, Fraction(-5, 3)], [Fraction(1, 3), 2]]))]
F2 = _qmat([[Fraction(-4, 3), -2], [Fraction(-3, 2), 1]])
SIGMA = _qmat([[473142, -238590], [-238590, 120313]])   # nearly rank one, as late in a blow-up


@pytest.mark.parametrize("F", [None, F2])
def test_rotated_field_is_the_change_of_variables(F):
    K = 8
    exact = _exact_coefficients(PAIRS, F, SIGMA, K)
    with working_precision(256):
        S = flint.arb_mat(SIGMA)
        frame = eigen_frame(S)
        assert frame is not None
        rotated = Field(frame.pairs(PAIRS), frame.drift(F))   # what lagrange_remainder builds
        back = [frame.back(s) for s in rotated.coefficients(frame.to(S), K)]
        for n in range(K + 1):
            for i in range(2):
                for j in range(2):
                    assert back[n][i, j].contains(exact[n][i, j]), (n, i, j)


def test_rotated_projective_field_keeps_the_growth_rate():
    """Traces are invariant under an orthogonal Q: Φₛ of the rotated heads at QᵀXQ is Qᵀ(Φₛ X)Q."""
    field = ProjectiveSeries(PAIRS, F2)
    with working_precision(256):
        X = flint.arb_mat(SIGMA) / 593455
        Z = field.join(X, flint.arb(flint.fmpq(1, 1000)), flint.arb(0))
        frame = field.frame(Z)
        assert frame is not None and frame.T.nrows() == 4
        lhs = ProjectiveSeries(frame.pairs(PAIRS), frame.drift(F2))(frame.to(Z))
        rhs = frame.to(field(Z))
        for i in range(4):
            for j in range(4):
                assert lhs[i, j].overlaps(rhs[i, j]), (i, j)


class _Unframed:
    """The covariance field without a frame (the old, entrywise enclosure)."""

    def __init__(self, field):
        self.field = field

    def __call__(self, X):
        return self.field(X)

    def coefficients(self, X, upto):
        return self.field.coefficients(X, upto)


def test_framed_remainder_is_far_tighter_near_a_singular_sigma():
    order, h = 20, flint.arb(flint.fmpq(4, 10 ** 8))   # ≈ 0.03 of the distance to the blow-up
    field = Field(PAIRS)
    with working_precision(128):
        S = flint.arb_mat(SIGMA)
        sig = field.coefficients(S, order)
        framed = lagrange_remainder(field, S, S, sig, h, order)
        plain = lagrange_remainder(_Unframed(field), S, S, sig, h, order)
        assert framed is not None and plain is not None
        big = max(abs(float(plain[i, j].mid())) + float(plain[i, j].rad()) for i in range(2) for j in range(2))
        small = max(abs(float(framed[i, j].mid())) + float(framed[i, j].rad()) for i in range(2) for j in range(2))
        assert small < 1e-12 * big
        # a step three times longer: the entrywise Picard test fails, the framed one does not
        h3 = flint.arb(flint.fmpq(12, 10 ** 8))
        assert lagrange_remainder(_Unframed(field), S, S, sig, h3, order) is None
        assert lagrange_remainder(field, S, S, sig, h3, order) is not None


def test_a_tube_deep_into_a_general_v_blowup_contains_the_reference():
    """Seed 1 #36 of the general-V soak set (T* ≈ 0.0351520063): to t = 0.0351 (tr Σ grows ≈ 10⁴-fold),
    where Σ is nearly rank one: a framed search tube (every step's remainder computed in the frame)."""
    doc = {"variant": "softmax", "d": 2, "A": [["-1", "-5/3"], ["1/3", "2"]], "V": [["5/3", "-5/3"], ["-3/4", "1"]],
           "initial": {"cov": [["13/36", "-1/2"], ["-1/2", "77/18"]]}}
    p = parse_problem(doc)
    T = Fraction(351, 10000)
    heads, F = flow_data(p)
    tube = integrate_tube(heads, F, p.exact.Sigma0, T, framed=True)
    assert tube.complete, tube.stop
    ref = reference_solve_problem(p, T=T, times=tube.times, dps=40)
    S_end = tube.ends[-1]
    assert float(S_end[0, 0].mid() + S_end[1, 1].mid()) > 1e4
    old = flint.ctx.prec
    flint.ctx.prec = 256
    try:
        for S, R in zip(tube.ends, ref.Sigma):
            for i in range(2):
                for j in range(2):
                    v = flint.arb(mpmath.nstr(R[i, j], 50))
                    assert S[i, j].overlaps(v + flint.arb(0, (abs(v) + 1) * flint.arb(10) ** -36))
    finally:
        flint.ctx.prec = old
    assert max(tube.widths()) < 1e-8 * float(S_end[0, 0].mid())


def test_frame_maps_are_inverse_enclosures():
    Q = rational_rotation(np.linalg.qr(np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [1.0, 0.0, 1.0]]))[0])
    with working_precision(128):
        frame = Frame(Q)
        X = flint.arb_mat(_qmat([[1, Fraction(1, 3), 0], [Fraction(1, 3), 2, 1], [0, 1, 3]]))
        Y = frame.back(frame.to(X))
        for i in range(3):
            for j in range(3):
                assert Y[i, j].contains(X[i, j]) and float(Y[i, j].rad()) < 1e-30
