"""Tests of symbolic_tf.variants.velocity: the NumPy token velocities of an empirical measure.

Each velocity is checked against a naive double loop in mpmath (40 digits), for stability
in the large-logit regime, for chunk independence, and (fast Monte Carlo) against the
Gaussian closures of docs/mathematics.md §3.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from symbolic_tf.variants.velocity import (
    SinkhornResult,
    drift_velocity,
    l2_velocity,
    linear_velocity,
    masked_velocity,
    sigmoid_velocity,
    sinkhorn_potential,
    sinkhorn_velocity,
    softmax_velocity,
    unnormalised_velocity,
)

mp.mp.dps = 40


# --------------------------------------------------------------------------- references


def _mpm(a):
    """float array -> nested lists of exact mpf."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        return [mp.mpf(float(v)) for v in a]
    return [[mp.mpf(float(v)) for v in row] for row in a]


def _dot(u, v):
    return mp.fsum(a * b for a, b in zip(u, v))


def _matvec(Mx, v):
    return [_dot(row, v) for row in Mx]


def _bilinear(y, A, x):
    """yᵀ A x."""
    return _dot(y, _matvec(A, x))


def _to_float(rows):
    return np.array([[float(v) for v in row] for row in rows])


def _weights(w, N):
    return [mp.mpf(1) / N] * N if w is None else _mpm(w)


def ref_weighted(X, Y, V, w, kernel, normalise, include=None):
    """Naive double loop: V Σ_j w_j k(x, y_j) y_j  (divided by Σ_j w_j k(x, y_j) if normalise)."""
    X, Y, V = _mpm(X), _mpm(Y), _mpm(V)
    W = _weights(w, len(Y))
    out = []
    for i, x in enumerate(X):
        d = len(x)
        num = [mp.mpf(0)] * d
        den = mp.mpf(0)
        for j, y in enumerate(Y):
            if include is not None and not include(i, j):
                continue
            k = W[j] * kernel(x, y, j)
            den += k
            num = [n + k * yc for n, yc in zip(num, y)]
        if normalise:
            num = [n / den for n in num] if den != 0 else [mp.mpf(0)] * d
        out.append(_matvec(V, num))
    return _to_float(out)


def ref_softmax(X, Y, A, V, w=None):
    Am = _mpm(A)
    return ref_weighted(X, Y, V, w, lambda x, y, j: mp.exp(_bilinear(y, Am, x)), True)


def ref_l2(X, Y, Q, K, V, w=None, scale=1.0):
    Qm, Km, s = _mpm(Q), _mpm(K), mp.mpf(scale)

    def kern(x, y, j):
        diff = [a - b for a, b in zip(_matvec(Qm, x), _matvec(Km, y))]
        return mp.exp(-s * _dot(diff, diff))

    return ref_weighted(X, Y, V, w, kern, True)


def ref_unnormalised(X, Y, A, V, w=None):
    Am = _mpm(A)
    return ref_weighted(X, Y, V, w, lambda x, y, j: mp.exp(_bilinear(y, Am, x)), False)


def ref_sigmoid(X, Y, A, V, bias, w=None):
    Am, b = _mpm(A), mp.mpf(bias)
    return ref_weighted(
        X, Y, V, w, lambda x, y, j: 1 / (1 + mp.exp(-(_bilinear(y, Am, x) + b))), False
    )


def ref_linear(X, Y, A, V, w=None):
    Am = _mpm(A)
    return ref_weighted(X, Y, V, w, lambda x, y, j: _bilinear(y, Am, x), False)


def ref_masked(X, sq, Y, sy, A, V, w=None):
    Am = _mpm(A)
    return ref_weighted(
        X, Y, V, w, lambda x, y, j: mp.exp(_bilinear(y, Am, x)), True,
        include=lambda i, j: sy[j] <= sq[i],
    )


def ref_sinkhorn_g(Y, A, w=None, iters=400):
    """High-precision Sinkhorn column potential g (mpmath, plain alternating updates)."""
    Ym, Am = _mpm(Y), _mpm(A)
    N = len(Ym)
    W = _weights(w, N)
    Kmat = [[mp.exp(_bilinear(Ym[j], Am, Ym[i])) for j in range(N)] for i in range(N)]  # [i][j]
    g = [mp.mpf(0)] * N
    for _ in range(iters):
        f = [-mp.log(mp.fsum(W[j] * mp.exp(g[j]) * Kmat[i][j] for j in range(N))) for i in range(N)]
        g = [-mp.log(mp.fsum(W[i] * mp.exp(f[i]) * Kmat[i][j] for i in range(N))) for j in range(N)]
    return g


def ref_sinkhorn_velocity(X, Y, A, V, w=None):
    g = ref_sinkhorn_g(Y, A, w)
    Am = _mpm(A)
    return ref_weighted(
        X, Y, V, w, lambda x, y, j: mp.exp(g[j] + _bilinear(y, Am, x)), True
    )


def assert_rel(got, ref, rtol):
    """|got − ref| ≤ rtol · max|ref| entrywise (a norm-wise relative bound)."""
    got = np.asarray(got)
    assert got.shape == ref.shape and got.dtype == np.float64
    scale = np.max(np.abs(ref))
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * scale)


def _problem(d, seed, N=5, M=3, weighted=False):
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(N, d))
    X = rng.normal(size=(M, d))
    A = 0.7 * rng.normal(size=(d, d))
    V = rng.normal(size=(d, d))
    w = rng.uniform(0.1, 1.0, size=N) if weighted else None
    return X, Y, A, V, w, rng


CASES = [(2, 0, False), (3, 1, False), (2, 2, True), (3, 3, True)]


# --------------------------------------------------------------------------- naive checks


@pytest.mark.parametrize("d,seed,weighted", CASES)
def test_softmax_matches_naive(d, seed, weighted):
    X, Y, A, V, w, _ = _problem(d, seed, weighted=weighted)
    assert_rel(softmax_velocity(X, Y, A, V, w=w), ref_softmax(X, Y, A, V, w), 1e-12)


@pytest.mark.parametrize("d,seed,weighted", CASES)
@pytest.mark.parametrize("k,scale", [(None, 1.0), (4, 0.3)])
def test_l2_matches_naive(d, seed, weighted, k, scale):
    X, Y, A, V, w, rng = _problem(d, seed, weighted=weighted)
    k = d if k is None else k
    Q = 0.8 * rng.normal(size=(k, d))
    K = 0.8 * rng.normal(size=(k, d))
    assert_rel(
        l2_velocity(X, Y, Q, K, V, w=w, scale=scale), ref_l2(X, Y, Q, K, V, w, scale), 1e-12
    )


@pytest.mark.parametrize("d,seed,weighted", CASES)
def test_unnormalised_matches_naive(d, seed, weighted):
    X, Y, A, V, w, _ = _problem(d, seed, weighted=weighted)
    assert_rel(unnormalised_velocity(X, Y, A, V, w=w), ref_unnormalised(X, Y, A, V, w), 1e-12)


@pytest.mark.parametrize("d,seed,weighted", CASES)
@pytest.mark.parametrize("bias", [0.0, -1.25])
def test_sigmoid_matches_naive(d, seed, weighted, bias):
    X, Y, A, V, w, _ = _problem(d, seed, weighted=weighted)
    assert_rel(
        sigmoid_velocity(X, Y, A, V, bias=bias, w=w), ref_sigmoid(X, Y, A, V, bias, w), 1e-12
    )


@pytest.mark.parametrize("d,seed,weighted", CASES)
def test_linear_matches_naive(d, seed, weighted):
    X, Y, A, V, w, _ = _problem(d, seed, weighted=weighted)
    assert_rel(linear_velocity(X, Y, A, V, w=w), ref_linear(X, Y, A, V, w), 1e-12)


@pytest.mark.parametrize("d,seed,weighted", CASES)
def test_masked_matches_naive(d, seed, weighted):
    X, Y, A, V, w, rng = _problem(d, seed, weighted=weighted)
    sy = np.array([0.0, 0.25, 0.5, 0.5, 1.0])
    sq = np.array([0.1, 0.5, 1.0])  # cones of size 1, 4 (ties included), 5
    assert_rel(
        masked_velocity(X, sq, Y, sy, A, V, w=w), ref_masked(X, sq, Y, sy, A, V, w), 1e-12
    )


@pytest.mark.parametrize("d,seed,weighted", CASES)
def test_sinkhorn_velocity_matches_naive(d, seed, weighted):
    X, Y, A, V, w, _ = _problem(d, seed, weighted=weighted)
    Xq = np.vstack([X, Y[:2]])  # fresh queries and support points
    got = sinkhorn_velocity(Xq, Y, A, V, w=w, tol=1e-14, max_iter=100000)
    assert_rel(got, ref_sinkhorn_velocity(Xq, Y, A, V, w), 1e-11)


def test_drift():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4, 3))
    F = rng.normal(size=(3, 3))
    b = rng.normal(size=3)
    np.testing.assert_allclose(drift_velocity(X, F, b), np.array([F @ x + b for x in X]), rtol=1e-14)
    np.testing.assert_array_equal(drift_velocity(X, None, None), np.zeros((4, 3)))
    np.testing.assert_array_equal(drift_velocity(X, None, b), np.tile(b, (4, 1)))
    np.testing.assert_allclose(drift_velocity(X, F, None), X @ F.T, rtol=1e-15)


# --------------------------------------------------------------------------- stability


def _large_logit_problem(seed=16):
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(5, 2))
    X = rng.normal(size=(3, 2))
    A = 1000.0 * np.array([[0.8, -0.3], [0.5, 0.6]])
    V = rng.normal(size=(2, 2))
    return X, Y, A, V


def test_softmax_large_logits_argmax_limit():
    X, Y, A, V = _large_logit_problem()
    logits = X @ (Y @ A).T  # (M, N), entries of order 1e3
    assert np.max(np.abs(logits)) > 500
    top2 = np.sort(logits, axis=1)[:, -2:]
    assert np.all(top2[:, 1] - top2[:, 0] > 40)  # precondition: e^{-gap} < 1e-17
    got = softmax_velocity(X, Y, A, V)
    assert np.all(np.isfinite(got))
    expected = Y[np.argmax(logits, axis=1)] @ V.T
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15)
    # an exact tie at the top splits the mass evenly: add y' with the winner's logit
    x0, win = X[0], Y[np.argmax(logits[0])]
    n = np.array([-(A @ x0)[1], (A @ x0)[0]])  # n ⊥ A x0, so y'ᵀ A x0 = y_winᵀ A x0
    y_new = win + 0.5 * n / np.linalg.norm(n)
    # dyadic coordinates are not needed: the two logits agree to rounding, ~1e-13 ≪ 1
    got_t = softmax_velocity(X[:1], np.vstack([Y, y_new]), A, V)
    np.testing.assert_allclose(got_t[0], V @ (0.5 * (win + y_new)), rtol=1e-10, atol=1e-12)
    # large logits whose top two are only ~15 apart: still equal to the exact value
    X7, Y7, A7, V7 = _large_logit_problem(seed=7)
    assert np.max(np.abs(X7 @ (Y7 @ A7).T)) > 500
    assert_rel(softmax_velocity(X7, Y7, A7, V7), ref_softmax(X7, Y7, A7, V7), 1e-12)


def test_l2_large_scale_nearest_neighbour_limit():
    rng = np.random.default_rng(8)
    Y = rng.normal(size=(5, 2))
    X = rng.normal(size=(3, 2))
    Q = np.array([[1.0, 0.2], [-0.3, 0.9]])
    K = np.array([[0.7, -0.4], [0.1, 1.1]])
    V = rng.normal(size=(2, 2))
    scale = 2000.0
    sq = scale * np.sum(((X @ Q.T)[:, None, :] - (Y @ K.T)[None, :, :]) ** 2, axis=2)
    assert np.max(sq) > 1000
    srt = np.sort(sq, axis=1)
    assert np.all(srt[:, 1] - srt[:, 0] > 40)
    got = l2_velocity(X, Y, Q, K, V, scale=scale)
    assert np.all(np.isfinite(got))
    expected = Y[np.argmin(sq, axis=1)] @ V.T
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15)


def test_unnormalised_overflow_only_when_true_value_overflows():
    Y = np.array([[1.0, 0.5], [0.9, -0.2], [-0.4, 0.3]])
    V = np.array([[1.0, 0.3], [-0.2, 0.8]])
    x = np.array([[1.0, 0.0]])
    # logits ≈ 710 (e^710 overflows float64) but tiny weights keep the result finite
    A = np.array([[710.0, 0.0], [0.0, 0.0]])
    w = np.array([1e-10, 1e-10, 1e-10])
    got = unnormalised_velocity(x, Y, A, V, w=w)
    assert np.all(np.isfinite(got)) and np.max(np.abs(got)) > 1e290
    assert_rel(got, ref_unnormalised(x, Y, A, V, w), 1e-12)
    # with e^{800}: the true value is beyond float64 and the result is ±inf, never nan
    A2 = np.array([[800.0, 0.0], [0.0, 0.0]])
    big = unnormalised_velocity(x, Y, A2, V)
    assert not np.any(np.isnan(big))
    ref = ref_unnormalised(x, Y, A2, V)  # float() of an mpf beyond range is ±inf
    np.testing.assert_array_equal(big, ref)
    # and deep underflow gives 0, not nan
    tiny = unnormalised_velocity(x, Y, -A2, V)
    assert np.all(np.isfinite(tiny))


@pytest.mark.parametrize("name", ["softmax", "l2", "unnormalised", "sigmoid", "masked", "sinkhorn"])
def test_chunking_does_not_change_result(name):
    rng = np.random.default_rng(11)
    N, M, d = 40, 17, 3
    Y = rng.normal(size=(N, d))
    X = rng.normal(size=(M, d))
    A = 0.9 * rng.normal(size=(d, d))
    V = rng.normal(size=(d, d))
    w = rng.uniform(0.0, 1.0, size=N)
    Q, K = rng.normal(size=(2, d)), rng.normal(size=(2, d))
    sq, sy = rng.uniform(size=M), rng.uniform(size=N)
    pot = sinkhorn_potential(Y, A, w)
    call = {
        "softmax": lambda c: softmax_velocity(X, Y, A, V, w=w, chunk=c),
        "l2": lambda c: l2_velocity(X, Y, Q, K, V, w=w, chunk=c),
        "unnormalised": lambda c: unnormalised_velocity(X, Y, A, V, w=w, chunk=c),
        "sigmoid": lambda c: sigmoid_velocity(X, Y, A, V, bias=0.3, w=w, chunk=c),
        "masked": lambda c: masked_velocity(X, sq, Y, sy, A, V, w=w, chunk=c),
        "sinkhorn": lambda c: sinkhorn_velocity(X, Y, A, V, w=w, potential=pot, chunk=c),
    }[name]
    full = call(None)
    assert full.shape == (M, d)
    for c in (1, 5, 1000):
        np.testing.assert_allclose(call(c), full, rtol=1e-14, atol=1e-14 * np.max(np.abs(full)))


# --------------------------------------------------------------------------- linear


def test_linear_is_V_M2_A_x_exactly():
    # integer / dyadic data: every float operation is exact, so equality is bitwise
    rng = np.random.default_rng(3)
    Y = rng.integers(-4, 5, size=(8, 3)).astype(float)
    X = rng.integers(-3, 4, size=(4, 3)).astype(float)
    A = rng.integers(-2, 3, size=(3, 3)).astype(float)
    V = rng.integers(-2, 3, size=(3, 3)).astype(float)
    w = rng.integers(0, 5, size=8) / 16.0
    for weights in (w, None):
        W = np.diag(np.full(8, 1 / 8) if weights is None else weights)
        expected = np.array([V @ (Y.T @ W @ Y) @ A @ x for x in X])
        np.testing.assert_array_equal(linear_velocity(X, Y, A, V, w=weights), expected)
    # generic floats: agreement to rounding
    Yf, Xf = rng.normal(size=(30, 3)), rng.normal(size=(5, 3))
    wf = rng.uniform(size=30)
    expected = np.array([V @ (Yf.T @ np.diag(wf) @ Yf) @ A @ x for x in Xf])
    np.testing.assert_allclose(linear_velocity(Xf, Yf, A, V, w=wf), expected, rtol=1e-13, atol=1e-13)


# --------------------------------------------------------------------------- masked


def test_masked_equal_positions_is_softmax():
    X, Y, A, V, w, _ = _problem(3, 21, N=9, M=4, weighted=True)
    for s in (0.0, 0.4, 1.0):
        got = masked_velocity(X, np.full(4, s), Y, np.full(9, s), A, V, w=w)
        np.testing.assert_allclose(got, softmax_velocity(X, Y, A, V, w=w), rtol=1e-15, atol=1e-15)


def test_masked_empty_cone_is_zero():
    X, Y, A, V, w, _ = _problem(2, 22, N=5, M=3)
    sy = np.array([0.3, 0.5, 0.6, 0.9, 1.0])
    sq = np.array([0.0, 0.29, 0.3])
    got = masked_velocity(X, sq, Y, sy, A, V)
    np.testing.assert_array_equal(got[:2], 0.0)
    np.testing.assert_allclose(got[2], V @ Y[0], rtol=1e-15)  # cone {0}: its own point
    # a cone with only zero-weight points carries no mass either
    wz = np.array([0.0, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(masked_velocity(X, sq, Y, sy, A, V, w=wz)[2], 0.0)
    # empty support
    np.testing.assert_array_equal(
        masked_velocity(X, sq, np.zeros((0, 2)), np.zeros(0), A, V), np.zeros((3, 2))
    )


def test_masked_depends_only_on_the_cone():
    X, Y, A, V, w, rng = _problem(3, 23, N=12, M=5, weighted=True)
    sy = rng.uniform(size=12)
    sq = np.sort(rng.uniform(size=5))
    for i, s in enumerate(sq):
        base = masked_velocity(X[i:i + 1], sq[i:i + 1], Y, sy, A, V, w=w)
        outside = sy > s
        Y2, w2 = Y.copy(), w.copy()
        Y2[outside] += 10.0 * rng.normal(size=(int(outside.sum()), 3))
        w2[outside] *= 7.0
        got = masked_velocity(X[i:i + 1], sq[i:i + 1], Y2, sy, A, V, w=w2)
        assert 0 < np.sum(outside) < 12
        np.testing.assert_array_equal(got, base)  # bitwise: masked terms are exact zeros


# --------------------------------------------------------------------------- Sinkhorn


def _coupling(Y, A, w, res):
    C = Y @ A.T @ Y.T  # C_ij = y_jᵀ A y_i
    return w[:, None] * w[None, :] * np.exp(res.f[:, None] + res.g[None, :] + C)


@pytest.mark.parametrize("weighted", [False, True])
def test_sinkhorn_marginals(weighted):
    _, Y, A, V, w, rng = _problem(3, 31, N=30, weighted=weighted)
    w = np.full(30, 1 / 30) if w is None else w / w.sum()
    res = sinkhorn_potential(Y, A, w=None if not weighted else w)
    assert isinstance(res, SinkhornResult) and res.converged and res.marginal_error < 1e-10
    pi = _coupling(Y, A, w, res)
    np.testing.assert_allclose(pi.sum(axis=1), w, atol=1e-9, rtol=0)
    np.testing.assert_allclose(pi.sum(axis=0), w, atol=1e-9, rtol=0)
    assert np.sum(np.abs(pi.sum(axis=1) - w)) < 1e-9
    assert np.sum(np.abs(pi.sum(axis=0) - w)) < 1e-9
    # at support points the velocity is the conditional of the discrete coupling
    got = sinkhorn_velocity(Y, Y, A, V, w=w, potential=res)
    expected = (pi @ Y / w[:, None]) @ V.T
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    # passing g as an array is the same as passing the result
    np.testing.assert_array_equal(sinkhorn_velocity(Y, Y, A, V, w=w, potential=np.array(res.g)), got)


def test_sinkhorn_unnormalised_weights_have_mass_marginals():
    _, Y, A, _, _, rng = _problem(2, 32, N=10)
    w = rng.uniform(0.5, 2.0, size=10)  # total mass ≠ 1: both marginals are still w
    w[3] = 0.0
    res = sinkhorn_potential(Y, A, w=w)
    assert res.converged
    pi = _coupling(Y, A, w, res)
    np.testing.assert_allclose(pi.sum(axis=1), w, atol=1e-9, rtol=0)
    np.testing.assert_allclose(pi.sum(axis=0), w, atol=1e-9, rtol=0)
    assert np.all(np.isfinite(res.f)) and np.all(np.isfinite(res.g))


def test_sinkhorn_A_zero_gives_mean():
    X, Y, _, V, w, _ = _problem(3, 33, N=15, M=6, weighted=True)
    A = np.zeros((3, 3))
    expected = V @ (w @ Y / w.sum())
    got = sinkhorn_velocity(X, Y, A, V, w=w)
    np.testing.assert_allclose(got, np.tile(expected, (6, 1)), rtol=1e-13, atol=1e-13)


def test_sinkhorn_symmetric_A_symmetric_coupling():
    _, Y, A, _, w, _ = _problem(3, 34, N=25, weighted=True)
    S = 0.5 * (A + A.T)
    res = sinkhorn_potential(Y, S, w=w, tol=1e-13)
    assert res.converged
    diff = res.f - res.g
    assert np.ptp(diff) < 1e-10  # f = g up to a constant ...
    np.testing.assert_allclose(res.f, res.g, atol=1e-10)  # ... which the gauge makes 0
    pi = _coupling(Y, S, w, res)
    np.testing.assert_allclose(pi, pi.T, rtol=1e-10, atol=1e-14)


def test_sinkhorn_nonconvergence_is_reported_not_raised():
    _, Y, A, V, _, _ = _problem(2, 35, N=20)
    res = sinkhorn_potential(Y, 3.0 * A, max_iter=1)
    assert res.iterations == 1 and not res.converged and res.marginal_error > 1e-10
    with pytest.warns(RuntimeWarning, match="did not converge"):
        sinkhorn_velocity(Y, Y, 3.0 * A, V, max_iter=1)


# --------------------------------------------------------------------------- validation


def test_shape_validation():
    X, Y, A, V, w, _ = _problem(2, 41)
    with pytest.raises(ValueError, match="Xq"):
        softmax_velocity(X[:, :1], Y, A, V)
    with pytest.raises(ValueError, match="Xq"):
        softmax_velocity(X[0], Y, A, V)
    with pytest.raises(ValueError, match="A"):
        softmax_velocity(X, Y, np.eye(3), V)
    with pytest.raises(ValueError, match="V"):
        linear_velocity(X, Y, A, np.eye(3))
    with pytest.raises(ValueError, match="w"):
        softmax_velocity(X, Y, A, V, w=np.ones(4))
    with pytest.raises(ValueError, match="w"):
        softmax_velocity(X, Y, A, V, w=-np.ones(5))
    with pytest.raises(ValueError, match="w"):
        softmax_velocity(X, Y, A, V, w=np.zeros(5))
    with pytest.raises(ValueError, match="finite"):
        softmax_velocity(X, Y, A * np.nan, V)
    with pytest.raises(ValueError, match="chunk"):
        softmax_velocity(X, Y, A, V, chunk=0)
    with pytest.raises(ValueError, match="K"):
        l2_velocity(X, Y, np.eye(2), np.eye(3)[:2], V)
    with pytest.raises(ValueError, match="scale"):
        l2_velocity(X, Y, np.eye(2), np.eye(2), V, scale=-1.0)
    with pytest.raises(ValueError, match="sq"):
        masked_velocity(X, np.zeros(2), Y, np.zeros(5), A, V)
    with pytest.raises(ValueError, match="sy"):
        masked_velocity(X, np.zeros(3), Y, np.full(5, 1.5), A, V)
    with pytest.raises(ValueError, match="potential"):
        sinkhorn_velocity(X, Y, A, V, potential=np.zeros(4))
    with pytest.raises(ValueError, match="b"):
        drift_velocity(X, None, np.zeros(3))
    with pytest.raises(ValueError, match="max_iter"):
        sinkhorn_potential(Y, A, max_iter=0)
    # non-normalised velocities of an empty measure are 0; normalised ones refuse
    E = np.zeros((0, 2))
    np.testing.assert_array_equal(unnormalised_velocity(X, E, A, V), np.zeros((3, 2)))
    np.testing.assert_array_equal(sigmoid_velocity(X, E, A, V), np.zeros((3, 2)))
    np.testing.assert_array_equal(linear_velocity(X, E, A, V), np.zeros((3, 2)))
    with pytest.raises(ValueError):
        softmax_velocity(X, E, A, V)


# --------------------------------------------------------------------------- Gaussian closure (Monte Carlo)


ALPHA = np.array([0.4, -0.2])
SIGMA = np.array([[1.0, 0.3], [0.3, 0.5]])
AMAT = np.array([[0.3, -0.2], [0.25, 0.3]])
VMAT = np.array([[1.0, 0.4], [-0.3, 0.8]])
QMAT = np.array([[0.5, 0.2], [-0.1, 0.4]])
KMAT = np.array([[0.3, -0.2], [0.2, 0.35]])
XQ = np.array([[0.0, 0.0], [1.0, -0.5], [-0.7, 0.9]])


@pytest.fixture(scope="module")
def gaussian_sample():
    rng = np.random.default_rng(0)
    return rng.multivariate_normal(ALPHA, SIGMA, size=200_000)


def _self_normalised_se(logits, Z):
    """Delta-method standard error of Σ p_j z_j, p ∝ e^{logits} (per query and component)."""
    se = []
    for row in logits:
        p = np.exp(row - row.max())
        p /= p.sum()
        R = p @ Z
        se.append(np.sqrt((p**2) @ (Z - R) ** 2))
    return np.array(se)


def test_gaussian_closure_softmax_mc(gaussian_sample):
    Y = gaussian_sample
    got = softmax_velocity(XQ, Y, AMAT, VMAT)
    theory = np.array([VMAT @ (ALPHA + SIGMA @ AMAT @ x) for x in XQ])
    se = _self_normalised_se(XQ @ (Y @ AMAT).T, Y @ VMAT.T)
    assert np.all(np.abs(got - theory) < 5 * se), (got, theory, se)
    assert np.max(se) < 0.01  # the check has teeth


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_gaussian_closure_l2_mc(gaussian_sample, scale):
    Y = gaussian_sample
    got = l2_velocity(XQ, Y, QMAT, KMAT, VMAT, scale=scale)
    KtK, KtQ = KMAT.T @ KMAT, KMAT.T @ QMAT
    Minv = np.linalg.inv(np.eye(2) + 2 * scale * SIGMA @ KtK)
    theory = np.array([VMAT @ Minv @ (ALPHA + 2 * scale * SIGMA @ KtQ @ x) for x in XQ])
    logits = -scale * np.sum(((XQ @ QMAT.T)[:, None, :] - (Y @ KMAT.T)[None]) ** 2, axis=2)
    se = _self_normalised_se(logits, Y @ VMAT.T)
    assert np.all(np.abs(got - theory) < 5 * se), (got, theory, se)
    assert np.max(se) < 0.01


def test_gaussian_closure_linear_mc(gaussian_sample):
    Y = gaussian_sample
    got = linear_velocity(XQ, Y, AMAT, VMAT)
    theory = np.array([VMAT @ (SIGMA + np.outer(ALPHA, ALPHA)) @ AMAT @ x for x in XQ])
    # plain sample mean of z_j = (y_jᵀ A x) V y_j; batch standard error over 20 batches
    for x, g, t in zip(XQ, got, theory):
        z = (Y @ (AMAT @ x))[:, None] * (Y @ VMAT.T)
        batches = z.reshape(20, -1, 2).mean(axis=1)
        se = batches.std(axis=0, ddof=1) / np.sqrt(20)
        se_direct = z.std(axis=0, ddof=1) / np.sqrt(len(z))
        np.testing.assert_allclose(g, z.mean(axis=0), rtol=1e-10, atol=1e-12)
        if np.all(se_direct == 0):  # x = 0: Γ = 0 exactly
            np.testing.assert_allclose(g, t, atol=1e-15)
            continue
        assert np.all(np.abs(g - t) < 5 * np.maximum(se, se_direct)), (g, t, se)


def _sinkhorn_gaussian_theory(A):
    """V(α + (Σ⁻¹+R)⁻¹A(x − α)) with P = Aᵀ(Σ⁻¹+R)⁻¹A, R = A(Σ⁻¹+P)⁻¹Aᵀ (docs/mathematics.md §3)."""
    Si = np.linalg.inv(SIGMA)
    P = R = np.zeros((2, 2))
    for _ in range(200):
        P = A.T @ np.linalg.inv(Si + R) @ A
        R = A @ np.linalg.inv(Si + P) @ A.T
    Jc = np.linalg.inv(Si + R) @ A
    return np.array([VMAT @ (ALPHA + Jc @ (x - ALPHA)) for x in XQ])


def test_gaussian_closure_sinkhorn_mc_loose():
    """Sinkhorn on 800 samples vs the Gaussian fixed point of docs/mathematics.md §3 (loose: the
    discrete entropic coupling converges like N^{-1/2}; observed error ≈ 0.03–0.055 over
    seeds 0–4, while the transposed orientation Aᵀ is off by ≈ 0.7)."""
    rng = np.random.default_rng(0)
    Y = rng.multivariate_normal(ALPHA, SIGMA, size=800)
    got = sinkhorn_velocity(XQ, Y, AMAT, VMAT)
    assert np.max(np.abs(got - _sinkhorn_gaussian_theory(AMAT))) < 0.1
    assert np.max(np.abs(got - _sinkhorn_gaussian_theory(AMAT.T))) > 0.3


def test_small_work_budget_paths(monkeypatch):
    """The chunked Sinkhorn kernel (no stored N×N matrix) and tiny default chunks agree."""
    import symbolic_tf.variants.velocity as vel

    X, Y, A, V, w, _ = _problem(3, 51, N=30, M=7, weighted=True)
    res_full = sinkhorn_potential(Y, A, w=w, tol=1e-13)
    v_full = sinkhorn_velocity(X, Y, A, V, w=w, potential=res_full)
    s_full = softmax_velocity(X, Y, A, V, w=w)
    monkeypatch.setattr(vel, "_WORK_ELEMENTS", 64)  # chunk of 2 rows …
    monkeypatch.setattr(vel, "_MIN_ROWS", 1)
    monkeypatch.setattr(vel, "_STORE_ELEMENTS", 64)  # … and the kernel not stored
    res_chunk = sinkhorn_potential(Y, A, w=w, tol=1e-13)
    assert res_chunk.converged and res_chunk.iterations == res_full.iterations
    np.testing.assert_allclose(res_chunk.f, res_full.f, rtol=0, atol=1e-13)
    np.testing.assert_allclose(res_chunk.g, res_full.g, rtol=0, atol=1e-13)
    np.testing.assert_allclose(
        sinkhorn_velocity(X, Y, A, V, w=w, potential=res_chunk), v_full, rtol=1e-12, atol=1e-13
    )
    np.testing.assert_allclose(softmax_velocity(X, Y, A, V, w=w), s_full, rtol=1e-14, atol=1e-15)
