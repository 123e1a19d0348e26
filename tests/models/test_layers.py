"""Whole layers as one multi-head flow: the flow's right-hand side against the toolkit's own derivation,
the exact subspace reduction against the full flow, certified verdicts of modified layers re-checked,
the UNDECIDED reason of a full-rank layer, and the ``symtf layers`` command on tiny checkpoints."""
from __future__ import annotations

import json

import numpy as np
import pytest

import symbolic_tf as stf
import tiny_checkpoints as tiny
from symbolic_tf.models._heads import attention_affine
from symbolic_tf.models.layers import (covariance_rhs, integrate_covariance, layer_flow, layer_verdict,
                                       reduced_problem)
from symbolic_tf.models.loader import load_model
from symbolic_tf.models.modified import modify_values, run_modified, top_subspace
from symbolic_tf.spec.errors import InvalidParameters


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder, _ = tiny.bert(tmp_path_factory.mktemp("m") / "bert16", d=16, heads=2, layers=1, ff=32)
    return load_model(folder)


def _spd(d, seed):
    G = np.random.default_rng(seed).standard_normal((d, d))
    return G @ G.T / d + 0.1 * np.eye(d)


@pytest.mark.parametrize("writer", ["bert", "gpt2"])
def test_rhs_is_the_toolkits_multihead_closure(tmp_path, writer):
    """Σ̇ = JΣ + ΣJᵀ with J = Σ_h C_hΣA_h from the symbolic multi-head derivation (compiled)."""
    model = load_model(tiny.WRITERS[writer](tmp_path / writer, d=8, heads=2)[0])
    S = _spd(8, 1)
    J, _ = attention_affine(model, 0, np.zeros(8), S)
    expected = J @ S + S @ J.T
    got = covariance_rhs(layer_flow(model, 0), S)
    assert np.allclose(got, expected, rtol=1e-11, atol=1e-13 * np.abs(expected).max())


def test_reduction_to_the_value_span_is_exact(small):
    """Σ(t) of the full d = 16 flow from Σ₀ = √d_h·BX₀Bᵀ equals √d_h·BX(t)Bᵀ, X(t) the toolkit's own
    integration of the reduced 2×2 problem (independent integrators)."""
    U = top_subspace(small, 0, 2)
    mod = modify_values(small, 0, U, -1.0)
    flow = layer_flow(mod, 0)
    X0 = [["1/4", "1/16"], ["1/16", "1/8"]]
    problem, info = reduced_problem(flow, U, cov0=X0)
    assert info["r"] == 2 and problem.d == 2
    T = 0.5
    sol = stf.integrate(problem, T)
    XT = np.asarray(sol.Sigma, dtype=np.float64).reshape(-1, 2, 2)[-1]
    B = info["basis"]
    X0f = np.array([[0.25, 0.0625], [0.0625, 0.125]])
    full = integrate_covariance(flow, info["sigma0_scale"] * B @ X0f @ B.T, T, 400)[-1]
    assert np.allclose(full, info["sigma0_scale"] * B @ XT @ B.T, rtol=1e-7, atol=1e-9 * np.abs(full).max())


def test_basis_outside_the_value_span_is_refused(small):
    U = top_subspace(small, 0, 2)
    flow = layer_flow(modify_values(small, 0, U, 1.0), 0)
    V = np.zeros((16, 2))
    V[0, 0] = V[1, 1] = 1.0
    with pytest.raises(InvalidParameters, match="not inside span B"):
        reduced_problem(flow, V)
    with pytest.raises(InvalidParameters, match="power of two"):
        modify_values(small, 0, U, 3.0)


def test_full_rank_layer_is_undecided_with_its_reason(small):
    v = layer_verdict(layer_flow(small, 0))
    assert v["status"] == "UNDECIDED" and v["r"] == 16 and v["certificate"] is None
    assert "r = 16 of d = 16" in v["reason"] and "136" in v["reason"]   # svec dimension 16·17/2


def test_opposite_signs_certified_bounded_and_the_tokens_agree(small):
    r = run_modified(small, 0, k=2, v=-1.0, steps=10, samples=512, seq_len=256)
    v = r["verdict"]
    assert v["status"] == "PROVED" and v["regime"] == "BOUNDED"
    assert stf.check(v["certificate"]).ok
    # bounded: the tokens' covariance shrinks with the flow (no growth anywhere along the run)
    assert max(r["trace_tokens"]) <= r["trace_tokens"][0] * (1 + 1e-9)


@pytest.mark.heavy
def test_same_signs_certified_blowup_and_the_tokens_grow(small):
    r = run_modified(small, 0, k=2, v=1.0, steps=20, samples=512, seq_len=256)
    v = r["verdict"]
    assert v["status"] == "PROVED" and v["regime"] == "BLOWUP" and 0 < v["T_lo"] <= v["T_hi"]
    assert stf.check(v["certificate"]).ok
    assert r["t"][-1] < v["T_lo"] and np.all(np.diff(r["trace_tokens"]) > 0)


def test_cli_layers_on_a_tiny_gpt2(capsys, tmp_path):
    from test_cli import run_cli

    folder, _ = tiny.gpt2(tmp_path / "g", d=16, heads=2)
    status, out, err = run_cli(capsys, "layers", folder, "--layers", "1", "--samples", "128", "--seq-len", "16",
                               "--steps", "2", "--out", tmp_path / "o", "--json")
    assert status == 0, err
    data = json.loads(out)["layers"]
    assert [r["layer"] for r in data["layers"]] == [1] and data["layers"][0]["verdict"]["status"] == "UNDECIDED"
    assert (tmp_path / "o" / "layers.json").exists() and (tmp_path / "o" / "layers.png").exists()


@pytest.mark.heavy
def test_cli_layers_modified_writes_checked_certificates(capsys, tmp_path):
    from test_cli import run_cli

    folder, _ = tiny.bert(tmp_path / "b", d=16, heads=2, layers=1, ff=32)
    status, out, err = run_cli(capsys, "layers", folder, "--samples", "256", "--seq-len", "128", "--modified",
                               "--out", tmp_path / "o")
    assert status == 0, err
    assert "BLOWUP (PROVED)" in out and "BOUNDED (PROVED)" in out
    status, out, err = run_cli(capsys, "check", tmp_path / "o" / "modified.json")
    assert status == 0 and "2 embedded certificate(s) verified" in out, (out, err)


@pytest.mark.heavy
def test_minilm_layer_against_its_flow():
    """The real MiniLM layer 0 (attention sub-block, centred sequences of 512 tokens) follows the
    multi-head flow: the covariance error is a fraction of the change it predicts."""
    from symbolic_tf.models.layers import layers_report

    rep = layers_report(layers=[0], T=1.0, steps=4)
    row = rep.rows[0]
    assert row["verdict"]["status"] == "UNDECIDED" and row["verdict"]["r"] == 384
    assert row["measured"]["rel_error"][-1] < 0.25
    assert row["seconds"] < 120


def test_affine_drift_alone_is_exact_in_the_network_and_the_flow(small):
    """With the attention switched off (W_O = 0) each repeated block with the affine MLP is
    x ↦ (I + εF)x + const, F = ½W₂W₁: the tokens' covariance is exactly (I + εF)^K Σ̂₀ (·)ᵀ; and the
    flow Σ̇ = FΣ + ΣFᵀ integrates to e^{tF}Σ₀e^{tFᵀ}."""
    import dataclasses

    from scipy.linalg import expm

    from symbolic_tf.models.layers import affine_drift, measured_depth

    lw = dataclasses.replace(small.layers[0], Wo=np.zeros_like(small.layers[0].Wo))
    model = dataclasses.replace(small, layers=(lw,))
    F = affine_drift(model, 0)
    S0 = _spd(16, 3)
    K, T = 4, 0.4
    m = measured_depth(model, 0, np.zeros(16), S0, T=T, steps=K, samples=256, seq_len=64, drift=True)
    step = np.eye(16) + (T / K) * F
    P = np.linalg.matrix_power(step, K)
    assert np.isclose(m["trace_tokens"][-1], np.trace(P @ S0 @ P.T), rtol=1e-10)
    E = expm(T * F)
    flow = integrate_covariance(layer_flow(model, 0), S0, T, 200, F=F)[-1]
    assert np.allclose(flow, E @ S0 @ E.T, rtol=1e-9, atol=1e-12)
    assert np.isclose(m["trace_flow"][-1], np.trace(E @ S0 @ E.T), rtol=1e-8)
