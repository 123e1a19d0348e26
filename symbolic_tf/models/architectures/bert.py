r"""Post-LN BERT encoders (``model_type = "bert"``; all-MiniLM-L6-v2 is one).

Block: h = LN₁(x + attn(x)), out = LN₂(h + W₂ g(W₁h + b₁) + b₂), g the erf GELU; no mask
beyond padding, absolute position embeddings.  Weight names (a ``bert.`` prefix of
``BertFor*`` checkpoints is stripped; heads on top of the encoder are ignored):
``encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias}``,
``encoder.layer.{i}.attention.output.dense``, ``….attention.output.LayerNorm``,
``encoder.layer.{i}.intermediate.dense``, ``encoder.layer.{i}.output.dense``,
``encoder.layer.{i}.output.LayerNorm``, and ``embeddings.{word,position,token_type}_embeddings``,
``embeddings.LayerNorm``.  Embedding: LN(E_word[t_i] + E_pos[i] + E_type[s_i]).
"""
from __future__ import annotations

import numpy as np

from ...spec.errors import InvalidParameters, ModelError
from . import Architecture, Block, register

__all__ = ["ARCH"]

_KEYS = {"Wq": "attention.self.query.weight", "bq": "attention.self.query.bias",
         "Wk": "attention.self.key.weight", "bk": "attention.self.key.bias",
         "Wv": "attention.self.value.weight", "bv": "attention.self.value.bias",
         "Wo": "attention.output.dense.weight", "bo": "attention.output.dense.bias",
         "ln1_weight": "attention.output.LayerNorm.weight", "ln1_bias": "attention.output.LayerNorm.bias",
         "W1": "intermediate.dense.weight", "b1": "intermediate.dense.bias",
         "W2": "output.dense.weight", "b2": "output.dense.bias",
         "ln2_weight": "output.LayerNorm.weight", "ln2_bias": "output.LayerNorm.bias"}


def _config(cfg, path):
    from ..loader import config_numbers

    archs = cfg.get("architectures") or []
    if not all(isinstance(a, str) and a.startswith("Bert") for a in archs):
        raise ModelError(f"{str(path)!r}: model_type 'bert' with architectures {archs} is not a BERT encoder "
                         "(expected Bert* classes)")
    if cfg.get("is_decoder"):
        raise ModelError(f"{str(path)!r}: a BERT decoder (is_decoder = true) is not supported, only encoders")
    act = cfg.get("hidden_act", "gelu")
    if act != "gelu":
        raise ModelError(f"{str(path)!r}: hidden_act {act!r} is not supported (only the erf GELU 'gelu')")
    return config_numbers(cfg, path, ARCH, {
        "hidden_size": ("hidden_size", ..., int), "num_heads": ("num_attention_heads", ..., int),
        "num_layers": ("num_hidden_layers", ..., int), "intermediate_size": ("intermediate_size", ..., int),
        "layer_norm_eps": ("layer_norm_eps", 1e-12, float), "vocab_size": ("vocab_size", ..., int),
        "max_position": ("max_position_embeddings", 512, int), "type_vocab_size": ("type_vocab_size", 2, int),
        "name": ("_name_or_path", path.parent.name, str)}, hidden_act=act, model_type="bert")


def _layer(get, i, c):
    from ..loader import LayerWeights

    d, ff = c.hidden_size, c.intermediate_size
    shapes = {"Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d), "W1": (ff, d), "W2": (d, ff), "b1": (ff,)}
    return LayerWeights(**{n: get(f"encoder.layer.{i}.{k}", shapes.get(n, (d,))) for n, k in _KEYS.items()})


def _embeddings(get, c):
    from ..loader import Embeddings

    d = c.hidden_size
    return Embeddings(word=get("embeddings.word_embeddings.weight", (c.vocab_size, d)),
                      position=get("embeddings.position_embeddings.weight", (c.max_position, d)),
                      token_type=get("embeddings.token_type_embeddings.weight", (c.type_vocab_size, d)),
                      ln_weight=get("embeddings.LayerNorm.weight", (d,)), ln_bias=get("embeddings.LayerNorm.bias", (d,)))


def token_ids(model, input_ids) -> np.ndarray:
    """Integer ids (B, n) checked against the vocabulary and the position table.

    Parameters
    ----------
    model : Encoder
        The model (its ``config.vocab_size`` and ``config.max_position``).
    input_ids : array_like
        Token ids, shape (B, n).

    Returns
    -------
    numpy.ndarray
        The ids as an integer array.
    """
    ids = np.asarray(input_ids)
    cfg = model.config
    if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
        raise InvalidParameters("input_ids", f"expected an integer array (B, n), got shape {ids.shape}")
    if cfg.max_position and ids.shape[1] > cfg.max_position:
        raise InvalidParameters("input_ids", f"sequence length {ids.shape[1]} exceeds max_position_embeddings "
                                f"{cfg.max_position}")
    if ids.min(initial=0) < 0 or ids.max(initial=0) >= cfg.vocab_size:
        raise InvalidParameters("input_ids", f"token ids must lie in 0..{cfg.vocab_size - 1}")
    return ids


def _embed(model, input_ids, token_type_ids, dt):
    from .._forward import layer_norm

    ids = token_ids(model, input_ids)
    e, cfg = model.embeddings, model.config
    n = ids.shape[1]
    tt = np.zeros_like(ids) if token_type_ids is None else np.asarray(token_type_ids)
    x = (e.word[ids].astype(dt) + e.position[:n].astype(dt)[None] + e.token_type[tt].astype(dt))
    return layer_norm(x, e.ln_weight.astype(dt), e.ln_bias.astype(dt), cfg.layer_norm_eps)


def word_moments(model):
    """Mean and population covariance of the rows of the token-embedding table (float64).

    Parameters
    ----------
    model : Encoder
        A model whose ``embeddings.word`` is its token table.

    Returns
    -------
    tuple of numpy.ndarray
        (mean (d,), covariance (d, d)).
    """
    from ...numeric.gaussianity import empirical_moments

    return empirical_moments(np.asarray(model.embeddings.word, dtype=np.float64))


ARCH = register(Architecture(
    model_types=("bert",), block=Block(norm="post"), read_config=_config, read_layer=_layer,
    read_embeddings=_embeddings, embed=_embed, input_moments=word_moments, prefixes=("bert.",),
    summary="post-LN BERT encoder (erf GELU, absolute positions)"))
