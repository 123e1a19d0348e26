"""The Gaussianity probe: distances, noise floor, the theory's exact case, and the closure check."""
from __future__ import annotations

import json

import numpy as np
import pytest

from symbolic_tf.numeric.distances import energy_distance, sliced_w2, whiten
from symbolic_tf.models._forward import encoder_layer
from symbolic_tf.models.loader import load_bert
from symbolic_tf.models.probe import (METRICS, closure_check, cloud_metrics, default_input_moments,
                                      gaussian_tokens, noise_floor, probe)
from symbolic_tf.numeric.gaussianity import empirical_moments, loglog_slope
from symbolic_tf.spec.errors import InvalidParameters


@pytest.fixture(scope="module")
def model():
    return load_bert()


# ----- distances ----------------------------------------------------------------------------
def test_energy_distance_matches_the_definition():
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((30, 3)), rng.standard_normal((25, 3)) + 0.5
    dxy = np.mean([np.linalg.norm(x - y) for x in X for y in Y])
    dxx = np.mean([np.linalg.norm(X[i] - X[j]) for i in range(30) for j in range(30) if i != j])
    dyy = np.mean([np.linalg.norm(Y[i] - Y[j]) for i in range(25) for j in range(25) if i != j])
    assert np.isclose(energy_distance(X, Y), 2 * dxy - dxx - dyy, rtol=1e-12)


def test_sliced_w2_and_whitening():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((400, 5))
    assert sliced_w2(X, X[::-1]) == 0.0
    # a 1-D shift c along every direction: SW2² = c² E[θ₁²] = c²/d
    assert np.isclose(sliced_w2(X, X + [2.0, 0, 0, 0, 0], directions=20000), 2.0 / np.sqrt(5), rtol=0.03)
    Z = np.c_[X, X[:, 0] + X[:, 1]]               # rank 5 in ℝ⁶
    W = whiten(Z * 1e3 + 7)
    m, S = empirical_moments(W)
    assert W.shape == (400, 5) and np.allclose(m, 0, atol=1e-10) and np.allclose(S, np.eye(5), atol=1e-10)
    with pytest.raises(InvalidParameters):
        sliced_w2(X, X[:10])


def test_gaussian_tokens_moments():
    rng = np.random.default_rng(2)
    B = rng.standard_normal((4, 4))
    S = B @ B.T
    X = gaussian_tokens(np.arange(4.0), S, 200_000, rng)
    m, Sh = empirical_moments(X)
    assert np.allclose(m, np.arange(4.0), atol=0.03) and np.allclose(Sh, S, atol=0.05 * np.abs(S).max())
    with pytest.raises(InvalidParameters, match="semidefinite"):
        gaussian_tokens(np.zeros(2), -np.eye(2), 10, rng)


# ----- the theory's exact case: at the noise floor ----------------------------------------------
def _z(row, floor, repeats):
    return {m: (row[m] - floor[m]["mean"]) / (floor[m]["sd"] * np.sqrt(1 + 1 / repeats)) for m in METRICS}


@pytest.mark.parametrize("mlp", ["off", "affine"])
def test_one_layer_without_layernorm_stays_at_the_noise_floor(model, mlp):
    """LayerNorm off, MLP affine/off, Gaussian tokens with the word-embedding law: the layer is
    attention (+ an affine map), which is Gaussian-preserving in the mean-field limit; on
    N = 1024 pooled tokens (16 sequences × 64) every metric is within 5 floor-sds of the value
    two exactly Gaussian samples of the same N and rank give.  Under the null z is ≈ N(0, 1)
    for Mardia (asymptotic sds) and Student-t with 7 degrees of freedom for SW2/energy (sample
    sd of 8 repeats): P(|t₇| > 5) ≈ 0.002 per number."""
    res = probe(model, samples=1024, seq_len=64, seed=3, layers=[0], layernorm=False, mlp=mlp,
                floor_repeats=8, closure=False)
    assert [r["name"] for r in res.rows] == ["input", "layer 0"]
    for row in res.rows:
        # (with the affine MLP, I + ½W₂W₁ of layer 0 squeezes one direction below the
        # whitening cut-off: rank 383; the floor is taken at the cloud's own rank)
        assert row["rank"] >= 383
        for m in METRICS:
            assert abs(row["z"][m]) < 5, (mlp, row["name"], m, row["z"])


def test_real_layers_leave_the_floor(model):
    """Contrast: the full model (LayerNorm + GELU MLP) after four layers is far from Gaussian,
    so the floor test above can fail."""
    m, S = default_input_moments(model)
    from symbolic_tf.models._forward import encode

    X = gaussian_tokens(m, S, 1024, np.random.default_rng(4)).reshape(16, 64, 384)
    out = encode(model, X, layers=4).reshape(1024, 384)
    row = cloud_metrics(out, seed=11)
    floor = noise_floor(1024, row["rank"], repeats=2, seed=5)
    z = _z(row, floor, 2)
    assert row["rank"] == 383                       # LayerNorm output: an affine hyperplane
    assert z["sliced_w2"] > 20 and z["energy"] > 20 and z["mardia_b2"] > 20, z


# ----- the moment ODE against a layer ----------------------------------------------------------------
def test_moment_ode_matches_the_layer_up_to_sampling_error(model):
    """One layer (LayerNorm and MLP off), one sequence of N Gaussian tokens, so the keys are the
    whole cloud: the one-step (Euler) prediction of the multi-head closure misses the layer's
    covariance change by a relative error that decays like N^(-1/2) — the Monte Carlo error of
    the softmax average over N keys (the mean-field map is exact for the Gaussian law itself)."""
    mu, S = default_input_moments(model)
    Ns, errs = (256, 1024, 2048), []
    for N in Ns:
        e = []
        for seed in range(2):
            X = gaussian_tokens(mu, S, N, np.random.default_rng([N, seed]))[None]
            Y = encoder_layer(model.layers[0].cast(np.float64), X, config=model.config, layernorm=False,
                              mlp="off").attn_residual
            c = closure_check(model, 0, X, Y)
            assert c["pooled"]["euler"]["mean"] < 1e-3     # the mean is linear: exact up to rounding
            e.append(c["pooled"]["euler"]["cov"])
        errs.append(np.mean(e))
    slope, _ = loglog_slope(Ns, errs)
    assert -0.8 < slope < -0.3, (errs, slope)
    assert errs[-1] < 0.03, errs


def test_probe_result_shape_and_files(model, tmp_path):
    res = probe(model, samples=512, seq_len=64, seed=1, layers=[1], floor_repeats=2, out_dir=tmp_path)
    d = json.loads((tmp_path / "probe.json").read_text())
    assert [r["name"] for r in d["layers"]] == ["input", "layer 1"]
    assert d["settings"]["samples"] == 512 and d["closure"][0]["layer"] == 1
    assert set(d["closure"][0]["pooled"]) == {"euler", "pushforward"}
    assert (tmp_path / "probe_gaussianity.png").stat().st_size > 1000
    assert "noise floor" in res.table()
    with pytest.raises(InvalidParameters, match="samples"):
        probe(model, samples=500, seq_len=64)
    with pytest.raises(InvalidParameters, match="layers"):
        probe(model, layers=[6])
