"""Head extraction (A_h, C_h, biases) against the forward pass, and the mean-field map of a layer."""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.models._forward import attention_heads, encoder_layer
from symbolic_tf.models._heads import (attention_affine, head_logits, head_output, head_params, layer_heads,
                                      moment_step, sequence_closure)
from symbolic_tf.models.loader import load_bert
from symbolic_tf.numeric.gaussianity import empirical_moments
from symbolic_tf.spec.errors import InvalidParameters


@pytest.fixture(scope="module")
def model():
    return load_bert()


@pytest.mark.parametrize("layer,head", [(0, 0), (2, 7), (5, 11)])
def test_A_C_reproduce_logits_and_outputs(model, layer, head):
    rng = np.random.default_rng(layer * 12 + head)
    X = rng.standard_normal((1, 24, 384)) * 0.8 + 0.1
    lw = model.layers[layer]
    hp = head_params(model, layer, head)
    sl = slice(32 * head, 32 * head + 32)
    # logits from the raw projections, in float64 (the definition)
    q = X[0] @ lw.Wq.T.astype(np.float64) + lw.bq
    k = X[0] @ lw.Wk.T.astype(np.float64) + lw.bk
    logits = q[:, sl] @ k[:, sl].T / np.sqrt(32)
    L = head_logits(hp, X[0], X[0])
    assert np.abs(L - logits).max() <= 1e-12 * np.abs(logits).max()
    # the model's own float32 attention probabilities and head outputs
    P32, ctx32 = attention_heads(lw, X.astype(np.float32), num_heads=12)
    P = np.exp(L - L.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    assert np.abs(P32[0, head] - P).max() <= 1e-5 * P.max()
    out32 = ctx32[0][:, sl] @ lw.Wo[:, sl].T
    ho = head_output(hp, X[0], X[0])
    assert np.abs(out32 - ho).max() <= 1e-5 * np.abs(ho).max()
    # float64 path: exact to rounding
    _, ctx64 = attention_heads(lw.cast(np.float64), X, num_heads=12)
    assert np.abs(ctx64[0][:, sl] @ lw.Wo[:, sl].T.astype(np.float64) - ho).max() <= 1e-12 * np.abs(ho).max()


def test_heads_sum_to_the_attention_branch(model):
    X = np.random.default_rng(3).standard_normal((1, 16, 384))
    lw = model.layers[1].cast(np.float64)
    tr = encoder_layer(lw, X, config=model.config)
    total = sum(head_output(hp, X[0], X[0]) for hp in layer_heads(model, 1)) + lw.bo
    assert np.abs((tr.attn_residual[0] - X[0]) - total).max() <= 1e-11 * np.abs(total).max()


def test_convention_and_rank(model):
    hp = head_params(model, 0, 3)
    x, y = np.random.default_rng(4).standard_normal((2, 384))
    # ⟨Q x, K y⟩ = yᵀ A x with A = W_Kᵀ W_Q / √d_h (docs/mathematics.md §1, x the query)
    assert np.isclose(y @ hp.A @ x, (hp.Wq @ x) @ (hp.Wk @ y) / np.sqrt(32), rtol=1e-12)
    assert np.linalg.matrix_rank(hp.A) <= 32 and np.linalg.matrix_rank(hp.C) <= 32
    with pytest.raises(InvalidParameters, match="head"):
        head_params(model, 0, 12)


def test_affine_map_is_the_multihead_closure_plus_biases(model):
    """attention_affine (the toolkit's derived, compiled closure) vs docs/mathematics.md §3 written out."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(384) * 0.1
    B = rng.standard_normal((384, 384)) * 0.05
    S = B @ B.T
    J, c = attention_affine(model, 2, a, S)
    hs = layer_heads(model, 2)
    lw = model.layers[2]
    J_ref = sum(hp.C @ S @ hp.A for hp in hs)
    c_ref = sum(hp.C @ (a + S @ hp.u) + hp.value_shift for hp in hs) + lw.bo
    assert np.abs(J - J_ref).max() <= 1e-12 * np.abs(J_ref).max()
    assert np.abs(c - c_ref).max() <= 1e-12 * np.abs(c_ref).max()
    steps = moment_step(model, 2, a, S, eps=0.3)
    (a_e, S_e), (a_p, S_p) = steps["euler"], steps["pushforward"]
    assert np.allclose(a_e, a + 0.3 * (J @ a + c)) and np.array_equal(a_e, a_p)
    assert np.allclose(S_e, S + 0.3 * (J @ S + S @ J.T), rtol=0, atol=1e-14)
    I = np.eye(384)
    assert np.allclose(S_p, (I + 0.3 * J) @ S @ (I + 0.3 * J).T, rtol=0, atol=1e-14)


def test_sequence_closure_is_the_closure_at_each_sequence_law(model):
    X = np.random.default_rng(6).standard_normal((3, 40, 384)) * 0.3
    Y = sequence_closure(model, 4, X, eps=0.5)
    for s in range(3):
        a, S = empirical_moments(X[s])
        J, c = attention_affine(model, 4, a, S)
        ref = X[s] + 0.5 * (X[s] @ J.T + c)
        assert np.abs(ref - Y[s]).max() <= 1e-11 * np.abs(Y[s] - X[s]).max()


def test_sequence_closure_predicts_a_weak_attention_layer(model):
    """Word-embedding-scale Gaussian tokens (tr Σ ≈ 1.2): logits are O(0.1), the softmax is
    close to its linearisation, and the closure predicts each token's update to < 1 %."""
    from symbolic_tf.models.probe import default_input_moments, gaussian_tokens

    m, S = default_input_moments(model)
    X = gaussian_tokens(m, S, 8 * 64, np.random.default_rng(7)).reshape(8, 64, 384)
    Y = encoder_layer(model.layers[0].cast(np.float64), X, config=model.config, layernorm=False,
                      mlp="off").attn_residual
    Yh = sequence_closure(model, 0, X)
    assert np.linalg.norm(Yh - Y) <= 1e-2 * np.linalg.norm(Y - X)
