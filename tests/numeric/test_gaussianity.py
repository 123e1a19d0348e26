"""Tests of symbolic_tf.numeric.gaussianity: moments, Bures–Wasserstein, kurtosis, Mardia."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import sqrtm

from symbolic_tf.numeric.gaussianity import (
    bures_wasserstein,
    empirical_moments,
    excess_kurtosis_principal,
    loglog_slope,
    mardia,
)
from symbolic_tf.spec.errors import InvalidParameters


def _spd(rng, d, rank=None):
    B = rng.standard_normal((d, rank if rank is not None else d))
    return B @ B.T + (0.1 * np.eye(d) if rank is None else 0.0)


def _w2_sqrtm(m1, S1, m2, S2):
    """The textbook trace formula with scipy's matrix square root."""
    r1 = sqrtm(S1).real
    cross = sqrtm(r1 @ S2 @ r1).real
    return np.sum((m1 - m2) ** 2) + np.trace(S1) + np.trace(S2) - 2 * np.trace(cross)


# --------------------------------------------------------------------------- moments


def test_empirical_moments_population_covariance_and_weights():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3))
    m, S = empirical_moments(X)
    np.testing.assert_allclose(m, X.mean(axis=0), atol=1e-15)
    np.testing.assert_allclose(S, np.cov(X.T, bias=True), atol=1e-14)
    assert np.array_equal(S, S.T)
    # integer weights = repeating rows
    w = rng.integers(1, 4, 50)
    mw, Sw = empirical_moments(X, w)
    Xr = np.repeat(X, w, axis=0)
    np.testing.assert_allclose(mw, Xr.mean(axis=0), atol=1e-14)
    np.testing.assert_allclose(Sw, np.cov(Xr.T, bias=True), atol=1e-13)
    with pytest.raises(InvalidParameters):
        empirical_moments(X, -np.ones(50))
    with pytest.raises(InvalidParameters):
        empirical_moments(np.array([[np.nan, 0.0]]))


# --------------------------------------------------------------------------- Bures–Wasserstein


def test_bw_zero_for_identical_and_tiny_for_near_identical():
    rng = np.random.default_rng(1)
    for d in (1, 3, 6):
        m = rng.standard_normal(d)
        S = _spd(rng, d)
        assert bures_wasserstein(m, S, m, S) <= 1e-12 * np.sqrt(np.trace(S))
        S0 = _spd(rng, d, rank=1)  # singular
        assert bures_wasserstein(m, S0, m, S0) <= 1e-12 * np.sqrt(np.trace(S0))


def test_bw_commuting_closed_form():
    rng = np.random.default_rng(2)
    for _ in range(20):
        d = int(rng.integers(1, 6))
        a = rng.uniform(0, 3, d)
        b = rng.uniform(0, 3, d)
        a[0] = 0.0  # a singular one
        m1, m2 = rng.standard_normal(d), rng.standard_normal(d)
        Q, _ = np.linalg.qr(rng.standard_normal((d, d)))  # common eigenbasis
        S1, S2 = Q @ np.diag(a) @ Q.T, Q @ np.diag(b) @ Q.T
        expect = np.sum((np.sqrt(a) - np.sqrt(b)) ** 2) + np.sum((m1 - m2) ** 2)
        assert bures_wasserstein(m1, S1, m2, S2) ** 2 == pytest.approx(expect, rel=1e-10, abs=1e-12)


def test_bw_symmetric_and_triangle_inequality():
    rng = np.random.default_rng(3)
    for _ in range(40):
        d = int(rng.integers(1, 5))
        pts = [(rng.standard_normal(d), _spd(rng, d, rank=int(rng.integers(1, d + 1))))
               for _ in range(3)]
        (m1, S1), (m2, S2), (m3, S3) = pts
        d12 = bures_wasserstein(m1, S1, m2, S2)
        assert d12 == pytest.approx(bures_wasserstein(m2, S2, m1, S1), rel=1e-10, abs=1e-12)
        d13 = bures_wasserstein(m1, S1, m3, S3)
        d23 = bures_wasserstein(m2, S2, m3, S3)
        assert d13 <= d12 + d23 + 1e-10
        assert min(d12, d13, d23) >= 0


def test_bw_against_scipy_sqrtm_on_random_spd():
    rng = np.random.default_rng(4)
    for _ in range(20):
        d = int(rng.integers(1, 7))
        m1, m2 = rng.standard_normal(d), rng.standard_normal(d)
        S1, S2 = _spd(rng, d), _spd(rng, d)
        assert bures_wasserstein(m1, S1, m2, S2) ** 2 == pytest.approx(
            _w2_sqrtm(m1, S1, m2, S2), rel=1e-9, abs=1e-10)


def test_bw_singular_matrices():
    # rank-1 Gaussians on lines through 0: W2 between N(0, u uᵀ) and N(0, v vᵀ) is the
    # distance between the two Gaussians on ℝ: |u| z and |v| z coupled optimally along
    # the angle: W2² = |u|² + |v|² − 2|uᵀv|.
    rng = np.random.default_rng(5)
    for _ in range(20):
        u, v = rng.standard_normal(3), rng.standard_normal(3)
        expect = u @ u + v @ v - 2 * abs(u @ v)
        got = bures_wasserstein(np.zeros(3), np.outer(u, u), np.zeros(3), np.outer(v, v))
        assert got**2 == pytest.approx(expect, rel=1e-9, abs=1e-12)
    # the zero matrix: W2(N(0,0), N(0,S))² = tr S
    S = _spd(rng, 4)
    assert bures_wasserstein(np.zeros(4), np.zeros((4, 4)), np.zeros(4), S) ** 2 == pytest.approx(np.trace(S))
    with pytest.raises(InvalidParameters):
        bures_wasserstein(np.zeros(2), np.eye(3), np.zeros(2), np.eye(2))


# --------------------------------------------------------------------------- kurtosis, Mardia


def test_excess_kurtosis_gaussian_and_uniform():
    rng = np.random.default_rng(6)
    N, d = 40000, 4
    C = _spd(rng, d)
    X = rng.standard_normal((N, d)) @ np.linalg.cholesky(C).T + 3.0
    se = np.sqrt(24 / N)
    k = excess_kurtosis_principal(X)
    assert k.shape == (d,)
    assert np.all(np.abs(k) < 5 * se), k
    # uniform on a box: −6/5 along the axes; principal directions are the axes when the
    # side lengths differ (se for the uniform: sd of m4/m2² − 3 ≈ √(1.54/N))
    U = rng.uniform(-1, 1, (N, 3)) * np.array([3.0, 2.0, 1.0])
    ku = excess_kurtosis_principal(U)
    np.testing.assert_allclose(ku, -1.2, atol=5 * np.sqrt(1.6 / N))
    # zero-variance direction: NaN
    Z = np.column_stack([rng.standard_normal(100), np.zeros(100)])
    kz = excess_kurtosis_principal(Z)
    assert np.isfinite(kz[0]) and np.isnan(kz[1])


def test_mardia_gaussian_and_rotation_invariant():
    rng = np.random.default_rng(7)
    for d in (1, 3, 5):
        N = 10000
        C = _spd(rng, d)
        X = rng.standard_normal((N, d)) @ np.linalg.cholesky(C).T
        b1, b2 = mardia(X)
        target = d * (d + 2)
        assert abs(b2 - target * (N - 1) / (N + 1)) < 5 * np.sqrt(8 * d * (d + 2) / N)
        # N b1 / 6 ~ χ²(k): mean k, sd √(2k)
        k = d * (d + 1) * (d + 2) / 6
        assert abs(N * b1 / 6 - k) < 5 * np.sqrt(2 * k)
        # affine invariance (exact up to rounding), chunking independence
        M = rng.standard_normal((d, d)) + 3 * np.eye(d)
        b1a, b2a = mardia(X @ M.T + 1.0)
        assert b1a == pytest.approx(b1, rel=1e-8) and b2a == pytest.approx(b2, rel=1e-10)
    # direct O(N²) formula on a small sample (any whitening S^{-1/2}·orthogonal works)
    for N, d in ((60, 2), (30, 7), (500, 3)):
        X = rng.exponential(size=(N, d))
        m, S = empirical_moments(X)
        Y = (X - m) @ np.linalg.inv(np.linalg.cholesky(S)).T
        G = Y @ Y.T
        for method in ("auto", "gram", "tensor"):
            b1, b2 = mardia(X, method=method)
            assert b1 == pytest.approx(np.mean(G**3), rel=1e-10)
            assert b2 == pytest.approx(np.mean(np.diag(G) ** 2), rel=1e-10)
    # singular covariance: whitened on the range, d → rank
    Z = rng.standard_normal((4000, 2))
    b1s, b2s = mardia(np.column_stack([Z, Z[:, 0] - Z[:, 1]]))
    b1r, b2r = mardia(Z)
    assert b1s == pytest.approx(b1r, rel=1e-6) and b2s == pytest.approx(b2r, rel=1e-8)


def test_loglog_slope():
    Ns = np.array([100, 400, 1600, 6400])
    s, c = loglog_slope(Ns, 3.0 * Ns**-0.5)
    assert s == pytest.approx(-0.5, abs=1e-12) and np.exp(c) == pytest.approx(3.0)
    with pytest.raises(InvalidParameters):
        loglog_slope([1, 2], [0.0, 1.0])
    with pytest.raises(InvalidParameters):
        loglog_slope([5], [1.0])
