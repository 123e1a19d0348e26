r"""A numpy forward pass of the declared architectures (inference: no dropout), float32 or float64.

The block structure comes from the checkpoint's declaration
(:mod:`symbolic_tf.models.architectures`): post-LN (BERT, written out below) or pre-LN
(ViT/DeiT, GPT-2, ModernBERT: Y = H + attn(LN₁(H)), out = Y + MLP(LN₂(Y)), then a final
LayerNorm after the last block), with a causal mask (GPT-2), a sliding window on ModernBERT's
local layers, rotary queries and keys (ModernBERT, :func:`rotary`) and a gated feed-forward
W₂(g(a) ⊙ c) (ModernBERT).  A post-LN BERT layer maps hidden states H ∈ ℝ^{n×d} of a sequence (rows = tokens) to

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
the d features), and g the erf GELU, g(z) = z Φ(z) = ½ z (1 + erf(z/√2)) (GPT-2: the tanh
GELU, :func:`gelu_tanh`).

Switches (to see which component breaks Gaussianity):

* ``layernorm=False`` — both LayerNorms are the identity: H' = Y, out = H' + MLP(H');
* ``mlp="affine"`` — g is replaced by its first-order Taylor polynomial at 0,
  g(z) ≈ g(0) + g'(0) z = Φ(0) z = z/2, so MLP(h) = ½ W₂(W₁h + b₁) + b₂, an affine map;
* ``mlp="off"`` — the MLP branch is 0: out = LN₂(H') (= H' without LayerNorm).

``dtype=np.float64`` runs the same code on the float32 weights converted exactly to float64
(the reference path; the float32 path is the model's own precision).

The embedding (the architecture's own: token ids, or image patches for ViT/DeiT) is
:func:`embed`; :func:`sentence_embeddings` adds the mean pooling over unmasked tokens and the
ℓ2 normalisation of sentence-transformers (all-MiniLM-L6-v2's ``1_Pooling`` + ``Normalize``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erf

from ..spec.errors import InvalidParameters

__all__ = ["MLP_MODES", "layer_norm", "gelu", "gelu_tanh", "structural_mask", "rotary", "attention_heads",
           "LayerTrace", "feed_forward", "encoder_layer", "encode", "embed", "sentence_embeddings"]

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


def gelu_tanh(z: np.ndarray) -> np.ndarray:
    r"""The tanh GELU ½ z (1 + tanh(√(2/π)(z + 0.044715 z³))) (GPT-2's ``gelu_new``)."""
    t = z.dtype.type
    return t(0.5) * z * (t(1) + np.tanh(t(np.sqrt(2.0 / np.pi)) * (z + t(0.044715) * z * z * z)))


_ACTS = {"gelu": gelu, "gelu_tanh": gelu_tanh}


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


def structural_mask(n: int, *, causal: bool = False, window: int | None = None) -> np.ndarray | None:
    r"""Which keys j a query i may see: j ≤ i (causal) and |i − j| ≤ w/2 (sliding window w).

    Parameters
    ----------
    n : int
        Sequence length.
    causal : bool
        Keep only keys j ≤ i.
    window : int, optional
        Keep only keys with |i − j| ≤ window // 2.

    Returns
    -------
    numpy.ndarray or None
        Boolean (n, n), True = kept; None when every key is kept.
    """
    keep = None
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    if causal:
        keep = j <= i
    if window is not None:
        w = np.abs(i - j) <= window // 2
        keep = w if keep is None else keep & w
    return keep


def rotary(x: np.ndarray, theta: float) -> np.ndarray:
    r"""Rotary position embedding of per-head vectors x (…, n, d_h) at positions 0…n−1.

    With f_k = θ^{−2k/d_h} (k < d_h/2), position p rotates the pair (x_k, x_{k+d_h/2}) by the
    angle p·f_k: x ↦ x cos + rot(x) sin, rot(x) = (−x_{d_h/2:}, x_{:d_h/2}) (the ``rotate_half``
    convention).  Parameters: x the vectors, theta the base.  Returns the rotated array.
    """
    n, dh = x.shape[-2], x.shape[-1]
    inv = 1.0 / theta ** (np.arange(0, dh, 2, dtype=np.float64) / dh)
    ang = np.arange(n, dtype=np.float64)[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=1)
    cos, sin = np.cos(ang).astype(x.dtype), np.sin(ang).astype(x.dtype)
    half = dh // 2
    rot = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rot * sin


def attention_heads(layer, H: np.ndarray, mask=None, *, num_heads: int, keep_probs: bool = True,
                    causal: bool = False):
    r"""Per-head attention of one layer: probabilities P^{(h)} and the head contexts.

    ``causal`` keeps keys j ≤ i; the layer's own ``window`` and ``rope_theta`` (when set) add
    a sliding window and rotary positions.
    """
    B, n, d = H.shape
    scale = H.dtype.type(1.0 / np.sqrt(d // num_heads))
    q = _heads((H @ layer.Wq.T + layer.bq) * scale, num_heads)   # the 1/√d_h folded into q
    k = _heads(H @ layer.Wk.T + layer.bk, num_heads)
    v = _heads(H @ layer.Wv.T + layer.bv, num_heads)
    theta = getattr(layer, "rope_theta", None)
    if theta is not None:
        q, k = rotary(q, theta), rotary(k, theta)
    kT = k.transpose(0, 1, 3, 2)
    bias = None if mask is None else _mask_bias(mask, B, n, H.dtype)
    keep = structural_mask(n, causal=causal, window=getattr(layer, "window", None))
    sbias = None if keep is None else np.where(keep, 0, np.finfo(H.dtype).min).astype(H.dtype)
    step = n if keep_probs else max(1, _SCORE_BLOCK // max(1, B * num_heads * n))
    ctx = np.empty_like(q)
    P = None
    for s in range(0, n, step):  # query blocks: long sequences never hold all n×n scores at once
        scores = q[:, :, s:s + step] @ kT
        if bias is not None:
            scores += bias
        if sbias is not None:
            scores += sbias[s:s + step]
        scores -= scores.max(axis=-1, keepdims=True)
        P = np.exp(scores)
        P /= P.sum(axis=-1, keepdims=True)
        ctx[:, :, s:s + step] = P @ v
    ctx = ctx.transpose(0, 2, 1, 3).reshape(B, n, d)
    return (P if keep_probs else None), ctx


@dataclass
class LayerTrace:
    """The intermediate states of one layer (each (B, n, d)).

    ``attn_residual`` = H + attn(Z) (the residual after the attention, before any LayerNorm),
    ``mid`` the state the feed-forward branch starts from (LN₁ of it in a post-LN block, the
    residual itself in a pre-LN one), ``out`` the layer output, ``attn_input`` = Z the tokens
    the attention sees (H in a post-LN block, LN₁(H) in a pre-LN one).
    """

    attn_residual: np.ndarray
    mid: np.ndarray
    out: np.ndarray
    attn_input: np.ndarray | None = None


def _check_mode(mlp):
    if mlp not in MLP_MODES:
        raise InvalidParameters("mlp", f"expected one of {', '.join(MLP_MODES)}, got {mlp!r}")


def _norm(x, w, b, eps, on: bool):
    return layer_norm(x, w, b, eps) if (on and w is not None) else x


def feed_forward(layer, X: np.ndarray, *, config, mlp: str = "full") -> np.ndarray:
    r"""The feed-forward branch: W₂ g(W₁x + b₁) + b₂, or W₂(g(a) ⊙ c) + b₂ when gated.

    ``mlp="affine"`` replaces it by its tangent at 0: ½W₂(W₁x + b₁) + b₂ (g'(0) = ½ for both
    GELUs), and for a gated block b₂ (the tangent of (a, c) ↦ g(a) ⊙ c at 0 is zero).
    """
    z = X @ layer.W1.T + layer.b1
    half = X.dtype.type(0.5)
    if getattr(config, "gated", False):
        a, c = np.split(z, 2, axis=-1)
        g = _ACTS[config.hidden_act](a) * c if mlp == "full" else np.zeros_like(a)
    else:
        g = _ACTS[config.hidden_act](z) if mlp == "full" else half * z
    return g @ layer.W2.T + layer.b2


def encoder_layer(layer, H: np.ndarray, mask=None, *, config, layernorm: bool = True, mlp: str = "full",
                  attn_scale: float = 1.0, mlp_scale: float = 1.0) -> LayerTrace:
    r"""One block of the declared architecture (module docstring: formulas and switches).

    Post-LN: Y = H + ε·attn(H), mid = LN₁(Y), out = LN₂(mid + MLP(mid)).  Pre-LN:
    Y = H + ε·attn(LN₁(H)), out = Y + MLP(LN₂(Y)).  ``attn_scale`` = ε multiplies the attention
    branch (ε = 1 is the model; a small ε is one Euler step of size ε of the attention
    dynamics, used by the probe to separate discretisation from mean-field effects);
    ``mlp_scale`` likewise multiplies the feed-forward branch (the drift's Euler step).
    """
    _check_mode(mlp)
    eps = config.layer_norm_eps
    pre = getattr(config, "norm", "post") == "pre"
    Z = _norm(H, layer.ln1_weight, layer.ln1_bias, eps, layernorm) if pre else H
    _, ctx = attention_heads(layer, Z, mask, num_heads=config.num_heads, keep_probs=False,
                             causal=getattr(config, "causal", False))
    attn = ctx @ layer.Wo.T + layer.bo
    Y = H + attn if attn_scale == 1.0 else H + H.dtype.type(attn_scale) * attn
    if pre:
        mid = Y
        out = Y if mlp == "off" else Y + H.dtype.type(mlp_scale) * feed_forward(
            layer, _norm(Y, layer.ln2_weight, layer.ln2_bias, eps, layernorm), config=config, mlp=mlp)
        return LayerTrace(Y, mid, out, Z)
    mid = _norm(Y, layer.ln1_weight, layer.ln1_bias, eps, layernorm)
    pre_out = mid if mlp == "off" else mid + H.dtype.type(mlp_scale) * feed_forward(layer, mid, config=config,
                                                                                     mlp=mlp)
    out = _norm(pre_out, layer.ln2_weight, layer.ln2_bias, eps, layernorm)
    return LayerTrace(Y, mid, out, Z)


def _dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise InvalidParameters("dtype", f"expected float32 or float64, got {dt}")
    return dt


def encode(model, H, mask=None, *, layers=None, dtype=np.float32, layernorm: bool = True, mlp: str = "full",
           attn_scale: float = 1.0, trace: bool = False, final: bool = False):
    r"""Run hidden states through the encoder layers (``final``: then the final LayerNorm of a
    pre-LN stack, when the run ends at the last layer)."""
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
    if final and model.final is not None and layernorm and idx and idx[-1] == model.config.num_layers - 1:
        g, b = model.final
        X = layer_norm(X, np.asarray(g, dt), np.asarray(b, dt), model.config.layer_norm_eps)
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
    r"""The architecture's embedding: token ids (B, n) → (B, n, d) (BERT: LN(E_word[t_i] +
    E_pos[i] + E_type[s_i]); GPT-2: E_tok[t_i] + E_pos[i]; ModernBERT: LN(E_tok[t_i])), or for
    ViT/DeiT pixel values (B, C, H, W) → [cls; (dist;) patch tokens] + positions."""
    dt = _dtype(dtype)
    return model.arch.embed(model, input_ids, token_type_ids, dt)


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
