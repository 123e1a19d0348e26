r"""ModernBERT-style encoders (``model_type = "modernbert"``): pre-LN, gated GELU MLP, rotary positions.

Block: h = x + attn(LN₁(x)) with rotary queries and keys, out = h + W_o(g(a) ⊙ c), (a, c) the
two halves of W_i LN₂(h) (g the erf GELU); LayerNorms without bias by default (``norm_bias``),
no linear biases by default (``attention_bias``, ``mlp_bias``); the first layer has no LN₁
(identity); a final LayerNorm.  Attention alternates: layer i is global when
i ≡ 0 (mod ``global_attn_every_n_layers``), rotary base ``global_rope_theta``; the others are
local, keys with |i − j| ≤ ``local_attention``/2, rotary base ``local_rope_theta``.  Weight
names (a ``model.`` prefix is stripped): ``layers.{i}.attn_norm``, ``layers.{i}.attn.Wqkv``
(fused, rows Q, K, V), ``layers.{i}.attn.Wo``, ``layers.{i}.mlp_norm``, ``layers.{i}.mlp.Wi``
(rows a, c), ``layers.{i}.mlp.Wo``, ``embeddings.tok_embeddings``, ``embeddings.norm``,
``final_norm``.  Embedding: LN(E_tok[t_i]) (positions enter only through the rotation).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...spec.errors import ModelError
from . import Architecture, Block, register
from .bert import token_ids, word_moments

__all__ = ["ARCH"]


def _config(cfg, path):
    from ..loader import config_numbers

    act = cfg.get("hidden_activation", "gelu")
    if act != "gelu":
        raise ModelError(f"{str(path)!r}: hidden_activation {act!r} is not supported (only the erf GELU 'gelu')")
    out = config_numbers(cfg, path, ARCH, {
        "hidden_size": ("hidden_size", ..., int), "num_heads": ("num_attention_heads", ..., int),
        "num_layers": ("num_hidden_layers", ..., int), "intermediate_size": ("intermediate_size", ..., int),
        "layer_norm_eps": ("norm_eps", 1e-5, float), "vocab_size": ("vocab_size", ..., int),
        "max_position": ("max_position_embeddings", 8192, int), "name": ("_name_or_path", path.parent.name, str)},
        hidden_act=act, model_type="modernbert")
    try:
        extra = {"norm_bias": bool(cfg.get("norm_bias", False)), "attention_bias": bool(cfg.get("attention_bias", False)),
                 "mlp_bias": bool(cfg.get("mlp_bias", False)),
                 "global_rope_theta": float(cfg.get("global_rope_theta", 160000.0)),
                 "local_rope_theta": float(cfg.get("local_rope_theta", 10000.0)),
                 "local_attention": int(cfg.get("local_attention", 128)),
                 "global_every": int(cfg.get("global_attn_every_n_layers", 3))}
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{str(path)!r}: malformed attention field: {exc}") from None
    if extra["global_every"] < 1 or extra["local_attention"] < 0 or out.head_dim % 2:
        raise ModelError(f"{str(path)!r}: need global_attn_every_n_layers ≥ 1, local_attention ≥ 0 and an even head size")
    out.extra.update(extra)
    return out


def _zeros(n):
    return np.zeros(n, dtype=np.float32)


def _layer(get, i, c):
    from ..loader import LayerWeights

    d, ff, x = c.hidden_size, c.intermediate_size, c.extra
    p = f"layers.{i}."
    qkv = get(p + "attn.Wqkv.weight", (3 * d, d))
    bqkv = get(p + "attn.Wqkv.bias", (3 * d,)) if x["attention_bias"] else _zeros(3 * d)
    nb = (lambda k: get(p + k + ".bias", (d,))) if x["norm_bias"] else (lambda k: _zeros(d))
    ln1 = (get(p + "attn_norm.weight", (d,)), nb("attn_norm")) if i > 0 or get.has(p + "attn_norm.weight") \
        else (None, None)
    glob = i % x["global_every"] == 0
    return LayerWeights(
        Wq=qkv[:d].copy(), bq=bqkv[:d].copy(), Wk=qkv[d:2 * d].copy(), bk=bqkv[d:2 * d].copy(),
        Wv=qkv[2 * d:].copy(), bv=bqkv[2 * d:].copy(),
        Wo=get(p + "attn.Wo.weight", (d, d)), bo=get(p + "attn.Wo.bias", (d,)) if x["attention_bias"] else _zeros(d),
        ln1_weight=ln1[0], ln1_bias=ln1[1],
        W1=get(p + "mlp.Wi.weight", (2 * ff, d)),
        b1=get(p + "mlp.Wi.bias", (2 * ff,)) if x["mlp_bias"] else _zeros(2 * ff),
        W2=get(p + "mlp.Wo.weight", (d, ff)), b2=get(p + "mlp.Wo.bias", (d,)) if x["mlp_bias"] else _zeros(d),
        ln2_weight=get(p + "mlp_norm.weight", (d,)), ln2_bias=nb("mlp_norm"),
        rope_theta=x["global_rope_theta"] if glob else x["local_rope_theta"],
        window=None if glob else x["local_attention"])


def _embeddings(get, c):
    d = c.hidden_size
    b = get("embeddings.norm.bias", (d,)) if c.extra["norm_bias"] else _zeros(d)
    return SimpleNamespace(word=get("embeddings.tok_embeddings.weight", (c.vocab_size, d)),
                           ln_weight=get("embeddings.norm.weight", (d,)), ln_bias=b)


def _final(get, c):
    d = c.hidden_size
    return get("final_norm.weight", (d,)), (get("final_norm.bias", (d,)) if c.extra["norm_bias"] else _zeros(d))


def _embed(model, input_ids, token_type_ids, dt):
    from .._forward import layer_norm

    ids = token_ids(model, input_ids)
    e = model.embeddings
    return layer_norm(e.word[ids].astype(dt), e.ln_weight.astype(dt), e.ln_bias.astype(dt),
                      model.config.layer_norm_eps)


ARCH = register(Architecture(
    model_types=("modernbert",), block=Block(norm="pre", rotary=True, gated=True, final_norm=True),
    read_config=_config, read_layer=_layer, read_embeddings=_embeddings, read_final=_final, embed=_embed,
    input_moments=word_moments, prefixes=("model.",),
    summary="pre-LN encoder, gated GELU MLP, rotary positions, alternating global/local attention"))
