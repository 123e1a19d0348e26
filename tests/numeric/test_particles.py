"""Tests of symbolic_tf.numeric.particles: the finite-N token ODE ẋ_i = Γ_{μ^N}(x_i) + F x_i + b.

Exact solutions checked:
* softmax with A = 0: every token moves with V·m (m the mean), so ṁ = V m and
  x_i(t) = x_i(0) − m(0) + e^{Vt} m(0);
* drift only (V = 0): x(t) = e^{Ft} x(0) + ∫_0^t e^{Fs} ds b (augmented-matrix expm);
* RK4 error ∝ h⁴ (error ratio ≈ 16 when halving h), Euler ∝ h;
* mean field: for softmax with V = I the covariance of N = 4000 tokens follows the Gaussian
  closed form Σ(t) = Σ₀^{1/2}(I − tΣ₀^{1/2}(A+Aᵀ)Σ₀^{1/2})⁻¹Σ₀^{1/2} (docs/mathematics.md §4) to O(1/√N).
"""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from scipy.linalg import expm

from symbolic_tf import variants
from symbolic_tf.numeric.gaussianity import empirical_moments
from symbolic_tf.numeric.particles import ParticleRun, sample_initial, simulate
from symbolic_tf.spec import parse_problem
from symbolic_tf.spec.errors import InvalidParameters


def _problem(variant="softmax", d=2, **fields):
    doc = {"variant": variant, "d": d}
    for k, v in fields.items():
        doc[k] = np.asarray(v, dtype=float).tolist() if isinstance(v, np.ndarray) else v
    return parse_problem(doc)


def _rk4_error(problem, X0, T, steps, ref):
    return float(np.max(np.abs(simulate(problem, X0, T, steps=steps).final - ref)))


# --------------------------------------------------------------------------- exact flows


def test_softmax_A0_mean_flow_exact():
    rng = np.random.default_rng(0)
    d, N, T = 3, 40, 1.0
    V = 0.7 * rng.standard_normal((d, d))
    p = _problem(d=d, A=np.zeros((d, d)), V=V)
    X0 = rng.standard_normal((N, d)) + 1.0
    run = simulate(p, X0, T, steps=50, save_every=10)
    assert run.t.tolist() == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0], abs=1e-15)
    assert run.X.shape == (6, N, d) and np.array_equal(run.final, run.X[-1])
    m0 = X0.mean(axis=0)
    for t, X in zip(run.t, run.X):
        exact = X0 - m0 + expm(V * t) @ m0
        np.testing.assert_allclose(X, exact, atol=1e-9, rtol=0)
        # every token gets the same increment: the shape of the cloud is frozen exactly
        np.testing.assert_allclose(X - X[0], X0 - X0[0], atol=1e-13, rtol=0)
    assert not run.nonfinite and run.steps == 50 and run.N == N and run.d == d
    assert run.info["evaluations"] == 4 * 50


def test_drift_only_affine_flow_exact():
    rng = np.random.default_rng(1)
    d, N, T = 3, 20, 1.5
    F = 0.6 * rng.standard_normal((d, d))
    b = rng.standard_normal(d)
    p = _problem(d=d, A=rng.standard_normal((d, d)), V=np.zeros((d, d)), F=F, b=b)
    X0 = rng.standard_normal((N, d))
    run = simulate(p, X0, T, steps=60)
    H = np.zeros((d + 1, d + 1))
    H[:d, :d], H[:d, d] = F, b
    E = expm(H * T)  # [[e^{FT}, ∫_0^T e^{Fs} ds b], [0, 1]]
    exact = X0 @ E[:d, :d].T + E[:d, d]
    np.testing.assert_allclose(run.final, exact, atol=1e-8, rtol=0)


def test_rk4_order_four_and_euler_order_one():
    rng = np.random.default_rng(2)
    d, N, T = 2, 30, 1.0
    p = _problem(d=d, A=0.8 * rng.standard_normal((d, d)), V=rng.standard_normal((d, d)),
                 F=0.3 * rng.standard_normal((d, d)), b=[0.5, -0.2])
    X0 = rng.standard_normal((N, d))
    ref = simulate(p, X0, T, steps=1024).final
    errs = [_rk4_error(p, X0, T, s, ref) for s in (8, 16, 32)]
    ratios = [errs[0] / errs[1], errs[1] / errs[2]]
    assert all(10 <= r <= 22 for r in ratios), (errs, ratios)
    e = [float(np.max(np.abs(simulate(p, X0, T, steps=s, method="euler").final - ref)))
         for s in (64, 128)]
    assert 1.7 <= e[0] / e[1] <= 2.3, e


def test_dt_gives_the_same_grid_as_steps():
    rng = np.random.default_rng(3)
    p = _problem(A=np.eye(2), V=np.eye(2))
    X0 = rng.standard_normal((10, 2))
    a = simulate(p, X0, 1.0, steps=7)
    b = simulate(p, X0, 1.0, dt=1 / 7)  # ⌈7 − tiny⌉ = 7 steps
    c = simulate(p, X0, 1.0, dt=0.15)  # ⌈6.67⌉ = 7 steps of 1/7
    assert a.steps == b.steps == c.steps == 7 and c.dt == pytest.approx(1 / 7)
    assert np.array_equal(a.final, b.final) and np.array_equal(a.final, c.final)
    assert np.array_equal(X0, simulate(p, X0, 1.0, steps=2).X[0])


# --------------------------------------------------------------------------- every variant


def _variant_problem(name, d, rng):
    # small A: with larger A the unnormalised flow (|Γ| ~ e^{c|x|²}) blows up within t ~ 0.05
    A = 0.2 * rng.standard_normal((d, d))
    V = rng.standard_normal((d, d))
    cov = np.eye(d).tolist()
    if name == "l2":
        return _problem(name, d, Q=rng.standard_normal((1, d)), K=rng.standard_normal((1, d)),
                        V=V, initial={"cov": cov})
    if name == "multihead":
        heads = [{"A": A.tolist(), "V": V.tolist()},
                 {"variant": "sinkhorn", "A": (0.3 * A.T).tolist(), "V": np.eye(d).tolist(),
                  "W": (0.5 * np.eye(d)).tolist()}]
        return _problem(name, d, heads=heads, initial={"cov": cov})
    extra = {"sigmoid_bias": "1/2"} if name == "sigmoid" else {}
    return _problem(name, d, A=A, V=V, F=0.1 * np.eye(d), b=[0.1] * d, initial={"cov": cov}, **extra)


@pytest.mark.parametrize("name", variants.names())
def test_every_variant_runs(name):
    rng = np.random.default_rng(4)
    p = _variant_problem(name, 2, rng)
    X0, pos = sample_initial(p, 50, rng)
    assert (pos is not None) == variants.get(name).causal
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Sinkhorn must converge, nothing may overflow
        run = simulate(p, X0, 0.2, steps=4, positions=pos, save_every=2)
    assert isinstance(run, ParticleRun) and run.variant == variants.get(name).name
    assert not run.nonfinite and np.all(np.isfinite(run.X))
    assert run.X.shape == (3, 50, 2) and run.t.tolist() == pytest.approx([0, 0.1, 0.2])
    assert not np.array_equal(run.final, X0)
    if name in ("sinkhorn", "multihead"):
        assert run.info["sinkhorn_max_marginal_error"] < 1e-10


def test_masked_with_equal_positions_is_softmax_and_causality():
    rng = np.random.default_rng(5)
    d, N = 2, 30
    A, V = rng.standard_normal((d, d)), rng.standard_normal((d, d))
    X0 = rng.standard_normal((N, d))
    soft = simulate(_problem("softmax", d, A=A, V=V), X0, 0.5, steps=5)
    pm = _problem("masked", d, A=A, V=V)
    masked = simulate(pm, X0, 0.5, steps=5, positions=np.full(N, 0.5))
    np.testing.assert_allclose(masked.final, soft.final, atol=1e-13, rtol=0)
    # causality: the first k tokens (in position order) evolve as a k-token system alone
    pos = np.sort(rng.uniform(size=N))
    full = simulate(pm, X0, 0.5, steps=5, positions=pos)
    k = 12
    head = simulate(pm, X0[:k], 0.5, steps=5, positions=pos[:k])
    np.testing.assert_allclose(full.final[:k], head.final, atol=1e-13, rtol=0)
    # the first token attends only to itself: ẋ = V x
    np.testing.assert_allclose(full.final[0], expm(0.5 * V) @ X0[0], atol=1e-6, rtol=0)


def test_multihead_equal_heads_is_softmax():
    rng = np.random.default_rng(6)
    d, N = 3, 25
    A, V = rng.standard_normal((d, d)), rng.standard_normal((d, d))
    X0 = rng.standard_normal((N, d))
    head = {"A": A.tolist(), "V": V.tolist(), "W": (0.5 * np.eye(d)).tolist()}
    mh = simulate(_problem("multihead", d, heads=[head, head]), X0, 0.5, steps=5)
    soft = simulate(_problem("softmax", d, A=A, V=V), X0, 0.5, steps=5)
    np.testing.assert_allclose(mh.final, soft.final, atol=1e-12, rtol=0)


# --------------------------------------------------------------------------- blow-up


def test_softmax_growth_stops_cleanly():
    """V = I, A = I, wide cloud (the Gaussian closure blows up at T* = 1/50): finite-N
    tokens grow only exponentially, until the logits overflow float64 near t ≈ 350."""
    rng = np.random.default_rng(7)
    p = _problem(A=np.eye(2), V=np.eye(2))
    X0 = 5.0 * rng.standard_normal((50, 2))
    run = simulate(p, X0, 1000.0, steps=500)
    assert np.all(np.isfinite(run.final)) and np.all(np.isfinite(run.X))
    if run.nonfinite:
        assert run.t[-1] < 1000.0 and run.steps < 500 and run.t_final == run.t[-1]
        assert run.t[-1] == pytest.approx(run.steps * run.dt)
        assert "nonfinite_reason" in run.info
    assert run.nonfinite  # with these numbers the overflow does happen (t ≈ 350)


def test_unnormalised_blowup_flags_nonfinite():
    rng = np.random.default_rng(8)
    p = _problem("unnormalised", A=np.eye(2), V=np.eye(2))
    X0 = 3.0 * rng.standard_normal((40, 2))
    run = simulate(p, X0, 50.0, steps=200, save_every=1)
    assert run.nonfinite and run.t[-1] < 50.0
    assert np.all(np.isfinite(run.final))
    assert run.X.shape[0] == run.steps + 1 and run.t[-1] == pytest.approx(run.steps * run.dt)


# --------------------------------------------------------------------------- mean field


def test_mean_field_covariance_matches_gaussian_closed_form():
    rng = np.random.default_rng(9)
    N, T = 4000, 0.5
    A = np.array([[0.3, 0.2], [-0.1, 0.25]])
    p = _problem(A=A, V=np.eye(2), initial={"mean": [0, 0], "cov": [[1, "1/4"], ["1/4", "1/2"]]})
    X0, _ = sample_initial(p, N, rng)
    _, S0 = empirical_moments(X0)
    w, U = np.linalg.eigh(S0)
    R = (U * np.sqrt(w)) @ U.T
    predicted = R @ np.linalg.inv(np.eye(2) - T * R @ (A + A.T) @ R) @ R
    run = simulate(p, X0, T, steps=2)  # RK4 error ~1e-4 here, far below 1/√N
    _, ST = empirical_moments(run.final)
    err = np.max(np.abs(ST - predicted))
    assert err < 2 / np.sqrt(N), (err, ST, predicted)  # seeds 0–3 give 0.2–0.6 / √N
    assert np.max(np.abs(predicted - S0)) > 10 / np.sqrt(N)  # the test is informative


# --------------------------------------------------------------------------- sampling


def test_sample_initial_exact_factor_and_positions():
    rng = np.random.default_rng(10)
    p = _problem(d=3, A=np.eye(3), V=np.eye(3),
                 initial={"mean": [0, 0, 3], "cov": [[1, 1, 0], [1, 1, 0], [0, 0, "1/4"]]})
    X, pos = sample_initial(p, 20000, rng)
    assert pos is None and X.shape == (20000, 3)
    assert np.array_equal(X[:, 0], X[:, 1])  # exact rank 2: x₁ = x₂ exactly
    m, S = empirical_moments(X)
    np.testing.assert_allclose(m, [0, 0, 3], atol=5 / np.sqrt(20000))
    np.testing.assert_allclose(S, [[1, 1, 0], [1, 1, 0], [0, 0, 0.25]], atol=0.05)
    a, _ = sample_initial(p, 5, 123)
    b, _ = sample_initial(p, 5, np.random.default_rng(123))
    assert np.array_equal(a, b)
    pm = _problem("masked", A=np.eye(2), V=np.eye(2), initial={"cov": [[0, 0], [0, 0]]})
    X, pos = sample_initial(pm, 100, rng)
    assert np.all(X == 0) and np.all(np.diff(pos) >= 0) and 0 <= pos[0] and pos[-1] <= 1
    with pytest.raises(InvalidParameters, match="initial.cov"):
        sample_initial(_problem(A=np.eye(2), V=np.eye(2)), 10, rng)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("kwargs, field", [
    (dict(X0=np.zeros((5, 3))), "X0"),
    (dict(X0=np.array([[np.nan, 0.0]])), "X0"),
    (dict(T=0.0), "T"),
    (dict(T=float("inf")), "T"),
    (dict(steps=0), "steps"),
    (dict(steps=None), "steps"),
    (dict(steps=2.5), "steps"),
    (dict(steps=4, dt=0.3), "dt"),
    (dict(method="rk45"), "method"),
    (dict(positions=np.zeros(5)), "positions"),
    (dict(save_every=0), "save_every"),
    (dict(chunk=0), "chunk"),
])
def test_invalid_inputs(kwargs, field):
    p = _problem(A=np.eye(2), V=np.eye(2))
    args = dict(X0=np.zeros((5, 2)), T=1.0, steps=4)
    args.update(kwargs)
    X0, T = args.pop("X0"), args.pop("T")
    with pytest.raises(InvalidParameters) as exc:
        simulate(p, X0, T, **args)
    assert exc.value.field == field


def test_masked_needs_positions_and_variant_needs_parameters():
    pm = _problem("masked", A=np.eye(2), V=np.eye(2))
    with pytest.raises(InvalidParameters, match="positions"):
        simulate(pm, np.zeros((4, 2)), 1.0, steps=1)
    with pytest.raises(InvalidParameters, match="positions"):
        simulate(pm, np.zeros((4, 2)), 1.0, steps=1, positions=[0, 0.5, 1, 2])
    with pytest.raises(InvalidParameters, match="V"):
        simulate(_problem(A=np.eye(2)), np.zeros((4, 2)), 1.0, steps=1)


# --------------------------------------------------------------------------- memory


@pytest.mark.slow
def test_memory_bounded_at_N_1e4_d_16():
    """One Euler step (one velocity evaluation) of softmax at N = 10⁴, d = 16 stays within memory bounds.

    Its speed is measured, not asserted: benchmarks/bench_particles.py times the same step."""
    d, N = 16, 10_000
    rng = np.random.default_rng(11)
    p = _problem(d=d, A=0.1 * np.eye(d), V=np.eye(d))
    X0 = rng.standard_normal((N, d))
    tracemalloc.start()
    try:
        run = simulate(p, X0, 0.01, steps=1, method="euler")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.all(np.isfinite(run.final))
    assert peak < 2 * 2**30, f"peak {peak / 2**20:.0f} MiB"
    assert peak < 512 * 2**20  # one 4 MB (chunk, N) block at a time
