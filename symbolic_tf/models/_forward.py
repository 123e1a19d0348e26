r"""A numpy forward pass of a BERT encoder (inference: no dropout), float32 or float64.

One layer maps hidden states H ∈ ℝ^{n×d} of a sequence (rows = tokens) to

.. math::

    q_i &= W_Q x_i + b_Q,\quad k_j = W_K x_j + b_K,\quad v_j = W_V x_j + b_V
          \quad\text{(split into H heads of size } d_h = d/H),\\
    P^{(h)}_{ij} &= \operatorname{softmax}_j\Big(\frac{q^{(h)}_i\cdot k^{(h)}_j}{\sqrt{d_h}}
          + m_j\Big),\qquad m_j = 0 \text{ (kept) or } \min_{\text{float}} \text{ (masked key)},\\
    \operatorname{attn}(H)_i &= W_O \big[\textstyle\sum_j P^{(1)}_{ij} v^{(1)}_j;\dots;
          \sum_j P^{(H)}_{ij} v^{(H)}_j\big] + b_O,\\
    Y &= H + \operatorname{attn}(H) \quad\text{(the attention sub-block, one Euler step of size 1)},\\
    H' &= \operatorname{LN}_1(Y),\qquad
    \text{out} = \operatorname{LN}_2\big(H' + W_2\,g(W_1 H' + b_1) + b_2\big),

with the post-LayerNorm of BERT, LN(x) = γ ⊙ (x − x̄)/√(var x + ε) + β (biased variance over
the d features), and g the erf GELU, g(z) = z Φ(z) = ½ z (1 + erf(z/√2)).

Switches (to see which component breaks Gaussianity):

* ``layernorm=False`` — both LayerNorms are the identity: H' = Y, out = H' + MLP(H');
* ``mlp="affine"`` — g is replaced by its first-order Taylor polynomial at 0,
  g(z) ≈ g(0) + g'(0) z = Φ(0) z = z/2, so MLP(h) = ½ W₂(W₁h + b₁) + b₂, an affine map;
* ``mlp="off"`` — the MLP branch is 0: out = LN₂(H') (= H' without LayerNorm).

``dtype=np.float64`` runs the same code on the float32 weights converted exactly to float64
(the reference path; the float32 path is the model's own precision).

The embedding module (token + position + segment embeddings, then LayerNorm) is
:func:`embed`; :func:`sentence_embeddings` adds the mean pooling over unmasked tokens and the
ℓ2 normalisation of sentence-transformers (all-MiniLM-L6-v2's ``1_Pooling`` + ``Normalize``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erf

from ..spec.errors import InvalidParameters

__all__ = ["MLP_MODES", "layer_norm", "gelu", "attention_heads", "LayerTrace", "encoder_layer",
           "encode", "embed", "sentence_embeddings"]

MLP_MODES = ("full", "affine", "off")

_SCORE_BLOCK = 2**24  # attention scores held at once by encoder_layer (query blocks)


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    r"""LN(x) = γ ⊙ (x − x̄)/√(σ² + ε) + β over the last axis (σ² the biased variance)."""
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    return xc / np.sqrt(var + x.dtype.type(eps)) * weight + bias


def gelu(z: np.ndarray) -> np.ndarray:
    r"""The erf GELU g(z) = ½ z (1 + erf(z/√2)) (BERT's ``hidden_act = "gelu"``)."""
    half = z.dtype.type(0.5)
    return half * z * (z.dtype.type(1) + erf(z / z.dtype.type(np.sqrt(2.0))))


def _heads(x: np.ndarray, nh: int) -> np.ndarray:
    """(B, n, d) → (B, nh, n, d_h), contiguous (batched matmul of strided views is slow)."""
    B, n, d = x.shape
    return np.ascontiguousarray(x.reshape(B, n, nh, d // nh).transpose(0, 2, 1, 3))


def _mask_bias(mask, B: int, n: int, dtype) -> np.ndarray:
    """Additive key mask (B, 1, 1, n): 0 for kept keys, the most negative float for masked ones."""
    m = np.asarray(mask)
    if m.shape != (B, n):
        raise InvalidParameters("mask", f"expected shape ({B}, {n}), got {m.shape}")
    return ((1 - m.astype(dtype)) * np.finfo(dtype).min)[:, None, None, :]


def attention_heads(layer, H: np.ndarray, mask=None, *, num_heads: int, keep_probs: bool = True):
    r"""Per-head attention of one layer: probabilities P^{(h)} and the head contexts."""
    B, n, d = H.shape
    scale = H.dtype.type(1.0 / np.sqrt(d // num_heads))
    q = _heads((H @ layer.Wq.T + layer.bq) * scale, num_heads)   # the 1/√d_h folded into q
    k = _heads(H @ layer.Wk.T + layer.bk, num_heads)
    v = _heads(H @ layer.Wv.T + layer.bv, num_heads)
    kT = k.transpose(0, 1, 3, 2)
    bias = None if mask is None else _mask_bias(mask, B, n, H.dtype)
    step = n if keep_probs else max(1, _SCORE_BLOCK // max(1, B * num_heads * n))
    ctx = np.empty_like(q)
    P = None
    for s in range(0, n, step):  # query blocks: long sequences never hold all n×n scores at once
        scores = q[:, :, s:s + step] @ kT
        if bias is not None:
            scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        P = np.exp(scores)
        P /= P.sum(axis=-1, keepdims=True)
        ctx[:, :, s:s + step] = P @ v
    ctx = ctx.transpose(0, 2, 1, 3).reshape(B, n, d)
    return (P if keep_probs else None), ctx


@dataclass
class LayerTrace:
    """The intermediate states of one layer (each (B, n, d)).

    ``attn_residual`` = H + attn(H) (before LN₁), ``mid`` = LN₁ of it, ``out`` the layer output.
    """

    attn_residual: np.ndarray
    mid: np.ndarray
    out: np.ndarray


def _check_mode(mlp):
    if mlp not in MLP_MODES:
        raise InvalidParameters("mlp", f"expected one of {', '.join(MLP_MODES)}, got {mlp!r}")


def encoder_layer(layer, H: np.ndarray, mask=None, *, config, layernorm: bool = True, mlp: str = "full",
                  attn_scale: float = 1.0) -> LayerTrace:
    r"""One encoder layer (see the module docstring for the formulas and switches).

    ``attn_scale`` multiplies the attention branch, Y = H + ε·attn(H) (ε = 1 is the model;
    a small ε is one Euler step of size ε of the attention dynamics, used by the probe to
    separate discretisation from mean-field effects).
    """
    _check_mode(mlp)
    _, ctx = attention_heads(layer, H, mask, num_heads=config.num_heads, keep_probs=False)
    attn = ctx @ layer.Wo.T + layer.bo
    Y = H + attn if attn_scale == 1.0 else H + H.dtype.type(attn_scale) * attn
    eps = config.layer_norm_eps
    mid = layer_norm(Y, layer.ln1_weight, layer.ln1_bias, eps) if layernorm else Y
    if mlp == "off":
        pre = mid
    else:
        z = mid @ layer.W1.T + layer.b1
        g = gelu(z) if mlp == "full" else H.dtype.type(0.5) * z
        pre = mid + (g @ layer.W2.T + layer.b2)
    out = layer_norm(pre, layer.ln2_weight, layer.ln2_bias, eps) if layernorm else pre
    return LayerTrace(Y, mid, out)


def _dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise InvalidParameters("dtype", f"expected float32 or float64, got {dt}")
    return dt


def encode(model, H, mask=None, *, layers=None, dtype=np.float32, layernorm: bool = True, mlp: str = "full",
           attn_scale: float = 1.0, trace: bool = False):
    r"""Run hidden states through the encoder layers."""
    dt = _dtype(dtype)
    X = np.asarray(H, dtype=dt)
    squeeze = X.ndim == 2
    if squeeze:
        X = X[None]
        mask = None if mask is None else np.asarray(mask)[None]
    d = model.config.hidden_size
    if X.ndim != 3 or X.shape[-1] != d:
        raise InvalidParameters("H", f"expected shape (B, n, {d}) or (n, {d}), got {np.shape(H)}")
    idx = _layer_indices(model, layers)
    traces = []
    for i in idx:
        lw = model.layers[i] if dt == np.float32 else model.layers[i].cast(dt)
        tr = encoder_layer(lw, X, mask, config=model.config, layernorm=layernorm, mlp=mlp, attn_scale=attn_scale)
        X = tr.out
        if trace:
            traces.append(tr)
    out = X[0] if squeeze else X
    return (out, traces) if trace else out


def _layer_indices(model, layers) -> list[int]:
    L = model.config.num_layers
    if layers is None:
        return list(range(L))
    if isinstance(layers, (int, np.integer)):
        if not 0 <= int(layers) <= L:
            raise InvalidParameters("layers", f"expected 0..{L}, got {layers}")
        return list(range(int(layers)))
    idx = [int(i) for i in layers]
    if any(not 0 <= i < L for i in idx):
        raise InvalidParameters("layers", f"layer indices must lie in 0..{L - 1}, got {idx}")
    if idx and idx != list(range(idx[0], idx[0] + len(idx))):
        raise InvalidParameters("layers", f"layers must be consecutive (a stack is run in order), got {idx}")
    return idx


def embed(model, input_ids, token_type_ids=None, *, dtype=np.float32) -> np.ndarray:
    r"""BERT embeddings: LN(E_word[t_i] + E_pos[i] + E_type[s_i]) for ids (B, n) → (B, n, d)."""
    dt = _dtype(dtype)
    ids = np.asarray(input_ids)
    if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
        raise InvalidParameters("input_ids", f"expected an integer array (B, n), got shape {ids.shape}")
    e, cfg = model.embeddings, model.config
    n = ids.shape[1]
    if n > cfg.max_position:
        raise InvalidParameters("input_ids", f"sequence length {n} exceeds max_position_embeddings {cfg.max_position}")
    if ids.min(initial=0) < 0 or ids.max(initial=0) >= cfg.vocab_size:
        raise InvalidParameters("input_ids", f"token ids must lie in 0..{cfg.vocab_size - 1}")
    tt = np.zeros_like(ids) if token_type_ids is None else np.asarray(token_type_ids)
    x = (e.word[ids].astype(dt) + e.position[:n].astype(dt)[None] + e.token_type[tt].astype(dt))
    return layer_norm(x, e.ln_weight.astype(dt), e.ln_bias.astype(dt), cfg.layer_norm_eps)


def sentence_embeddings(model, token_ids: list, *, dtype=np.float32) -> np.ndarray:
    r"""Sentence embeddings as sentence-transformers computes them for all-MiniLM-L6-v2.

    The id lists are right-padded with 0 into a batch with mask m, run through
    :func:`embed` and :func:`encode`, mean-pooled over real tokens
    s = Σ_i m_i h_i / Σ_i m_i, then normalised, s/|s|.
    """
    if not token_ids or any(len(t) == 0 for t in token_ids):
        raise InvalidParameters("token_ids", "need at least one non-empty token list")
    n = max(len(t) for t in token_ids)
    ids = np.zeros((len(token_ids), n), dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, t in enumerate(token_ids):
        ids[i, :len(t)] = t
        mask[i, :len(t)] = 1
    H = encode(model, embed(model, ids, dtype=dtype), mask, dtype=dtype)
    m = mask.astype(H.dtype)[:, :, None]
    s = (H * m).sum(axis=1) / m.sum(axis=1)
    return s / np.linalg.norm(s, axis=1, keepdims=True)
