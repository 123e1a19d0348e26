r"""GPT-2-style pre-LN decoders (``model_type = "gpt2"``): causal attention.

Block: h = x + attn(LN₁(x)) with the causal mask (query i sees keys j ≤ i), out = h +
W₂ g(W₁LN₂(h) + b₁) + b₂, g the tanh GELU (``activation_function = "gelu_new"``) or the erf
GELU (``"gelu"``); a final LayerNorm ``ln_f``.  Weight names (a ``transformer.`` prefix is
stripped): ``h.{i}.ln_1``, ``h.{i}.attn.c_attn`` (fused Q, K, V), ``h.{i}.attn.c_proj``,
``h.{i}.ln_2``, ``h.{i}.mlp.c_fc``, ``h.{i}.mlp.c_proj``, ``wte``, ``wpe``, ``ln_f``.  GPT-2's
``Conv1D`` stores a weight as (in, out): it is transposed to (out, in), and ``c_attn``'s
output columns are split into W_Q, W_K, W_V (both exact).  Embedding: E_tok[t_i] + E_pos[i].
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...spec.errors import ModelError
from . import Architecture, Block, register
from .bert import token_ids, word_moments

__all__ = ["ARCH"]

GELU_NAMES = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh"}


def _config(cfg, path):
    from ..loader import config_numbers

    act = cfg.get("activation_function", "gelu_new")
    if act not in GELU_NAMES:
        raise ModelError(f"{str(path)!r}: activation_function {act!r} is not supported "
                         f"(only {', '.join(GELU_NAMES)})")
    if cfg.get("scale_attn_by_inverse_layer_idx") or cfg.get("scale_attn_weights") is False:
        raise ModelError(f"{str(path)!r}: only the standard 1/√d_h attention scale is supported")
    d = cfg.get("n_embd")
    return config_numbers(cfg, path, ARCH, {
        "hidden_size": ("n_embd", ..., int), "num_heads": ("n_head", ..., int),
        "num_layers": ("n_layer", ..., int),
        "intermediate_size": ("n_inner", 4 * d if isinstance(d, int) else ..., int),
        "layer_norm_eps": ("layer_norm_epsilon", 1e-5, float), "vocab_size": ("vocab_size", ..., int),
        "max_position": ("n_positions", 1024, int), "name": ("_name_or_path", path.parent.name, str)},
        hidden_act=GELU_NAMES[act], model_type="gpt2")


def _layer(get, i, c):
    from ..loader import LayerWeights

    d, ff = c.hidden_size, c.intermediate_size
    p = f"h.{i}."
    qkv = get(p + "attn.c_attn.weight", (d, 3 * d)).T
    bqkv = get(p + "attn.c_attn.bias", (3 * d,))
    Wq, Wk, Wv = (np.ascontiguousarray(qkv[j * d:(j + 1) * d]) for j in range(3))
    bq, bk, bv = (bqkv[j * d:(j + 1) * d].copy() for j in range(3))
    return LayerWeights(
        Wq=Wq, bq=bq, Wk=Wk, bk=bk, Wv=Wv, bv=bv,
        Wo=np.ascontiguousarray(get(p + "attn.c_proj.weight", (d, d)).T), bo=get(p + "attn.c_proj.bias", (d,)),
        ln1_weight=get(p + "ln_1.weight", (d,)), ln1_bias=get(p + "ln_1.bias", (d,)),
        W1=np.ascontiguousarray(get(p + "mlp.c_fc.weight", (d, ff)).T), b1=get(p + "mlp.c_fc.bias", (ff,)),
        W2=np.ascontiguousarray(get(p + "mlp.c_proj.weight", (ff, d)).T), b2=get(p + "mlp.c_proj.bias", (d,)),
        ln2_weight=get(p + "ln_2.weight", (d,)), ln2_bias=get(p + "ln_2.bias", (d,)))


def _embeddings(get, c):
    d = c.hidden_size
    return SimpleNamespace(word=get("wte.weight", (c.vocab_size, d)), position=get("wpe.weight", (c.max_position, d)))


def _final(get, c):
    return get("ln_f.weight", (c.hidden_size,)), get("ln_f.bias", (c.hidden_size,))


def _embed(model, input_ids, token_type_ids, dt):
    ids = token_ids(model, input_ids)
    e = model.embeddings
    return e.word[ids].astype(dt) + e.position[:ids.shape[1]].astype(dt)[None]


ARCH = register(Architecture(
    model_types=("gpt2",), block=Block(norm="pre", causal=True, final_norm=True), read_config=_config,
    read_layer=_layer, read_embeddings=_embeddings, read_final=_final, embed=_embed, input_moments=word_moments,
    prefixes=("transformer.",), summary="pre-LN causal decoder (GPT-2: fused Conv1D QKV, tanh GELU)"))
