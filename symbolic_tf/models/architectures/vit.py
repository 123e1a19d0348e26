r"""Pre-LN image encoders with a patch embedding: ViT (``model_type = "vit"``) and DeiT (``"deit"``).

Block: h = x + attn(LN₁(x)), out = h + W₂ g(W₁LN₂(h) + b₁) + b₂ (erf GELU), no mask; a final
LayerNorm.  Weight names (a ``vit.`` / ``deit.`` prefix is stripped):
``encoder.layer.{i}.attention.attention.{query,key,value}``, ``….attention.output.dense``,
``encoder.layer.{i}.layernorm_before`` (LN₁), ``….layernorm_after`` (LN₂),
``….intermediate.dense``, ``….output.dense``, ``layernorm`` (final), and the embedding
``embeddings.patch_embeddings.projection`` (a p×p convolution of stride p, weight
(d, C, p, p)), ``embeddings.cls_token`` (and DeiT's ``embeddings.distillation_token``),
``embeddings.position_embeddings`` (1, n_patches + 1 (+1), d).

Embedding of an image (C, H, W): patches P_k ∈ ℝ^{Cp²} (row-major over the patch grid) map to
W_p P_k + b_p; [cls; (dist;) patches] + positions.  The probe's default input law is the image
of white pixel noise, P ~ N(0, I): tokens N(b_p, W_pW_pᵀ) (exactly Gaussian).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...spec.errors import InvalidParameters, ModelError
from . import Architecture, Block, register

__all__ = ["ARCH", "patches"]

_KEYS = {"Wq": "attention.attention.query.weight", "bq": "attention.attention.query.bias",
         "Wk": "attention.attention.key.weight", "bk": "attention.attention.key.bias",
         "Wv": "attention.attention.value.weight", "bv": "attention.attention.value.bias",
         "Wo": "attention.output.dense.weight", "bo": "attention.output.dense.bias",
         "ln1_weight": "layernorm_before.weight", "ln1_bias": "layernorm_before.bias",
         "W1": "intermediate.dense.weight", "b1": "intermediate.dense.bias",
         "W2": "output.dense.weight", "b2": "output.dense.bias",
         "ln2_weight": "layernorm_after.weight", "ln2_bias": "layernorm_after.bias"}


def _config(cfg, path):
    from ..loader import config_numbers

    act = cfg.get("hidden_act", "gelu")
    if act != "gelu":
        raise ModelError(f"{str(path)!r}: hidden_act {act!r} is not supported (only the erf GELU 'gelu')")
    if cfg.get("qkv_bias") is False:
        raise ModelError(f"{str(path)!r}: qkv_bias = false is not supported")
    out = config_numbers(cfg, path, ARCH, {
        "hidden_size": ("hidden_size", ..., int), "num_heads": ("num_attention_heads", ..., int),
        "num_layers": ("num_hidden_layers", ..., int), "intermediate_size": ("intermediate_size", ..., int),
        "layer_norm_eps": ("layer_norm_eps", 1e-12, float), "name": ("_name_or_path", path.parent.name, str)},
        hidden_act=act, model_type=cfg["model_type"])
    try:
        img, p, ch = int(cfg.get("image_size", 224)), int(cfg.get("patch_size", 16)), int(cfg.get("num_channels", 3))
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{str(path)!r}: malformed image_size/patch_size/num_channels: {exc}") from None
    if p < 1 or ch < 1 or img < p or img % p:
        raise ModelError(f"{str(path)!r}: image_size {img} must be a positive multiple of patch_size {p}")
    out.extra.update(image_size=img, patch_size=p, num_channels=ch,
                     special_tokens=2 if cfg["model_type"] == "deit" else 1)
    return out


def _layer(get, i, c):
    from ..loader import LayerWeights

    d, ff = c.hidden_size, c.intermediate_size
    shapes = {"Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d), "W1": (ff, d), "W2": (d, ff), "b1": (ff,)}
    return LayerWeights(**{n: get(f"encoder.layer.{i}.{k}", shapes.get(n, (d,))) for n, k in _KEYS.items()})


def _embeddings(get, c):
    d, x = c.hidden_size, c.extra
    p, ch, n = x["patch_size"], x["num_channels"], (x["image_size"] // x["patch_size"]) ** 2
    sp = x["special_tokens"]
    tokens = [get("embeddings.cls_token", (1, 1, d))[0, 0]]
    if sp == 2:
        tokens.append(get("embeddings.distillation_token", (1, 1, d))[0, 0])
    return SimpleNamespace(
        patch_weight=get("embeddings.patch_embeddings.projection.weight", (d, ch, p, p)),
        patch_bias=get("embeddings.patch_embeddings.projection.bias", (d,)),
        special=np.stack(tokens), position=get("embeddings.position_embeddings", (1, n + sp, d))[0])


def _final(get, c):
    return get("layernorm.weight", (c.hidden_size,)), get("layernorm.bias", (c.hidden_size,))


def patches(images: np.ndarray, p: int) -> np.ndarray:
    """Non-overlapping p×p patches of images (B, C, H, W), flattened per patch as (C, p, p).

    Parameters
    ----------
    images : numpy.ndarray
        Shape (B, C, H, W) with H, W multiples of p.
    p : int
        The patch size.

    Returns
    -------
    numpy.ndarray
        Shape (B, (H/p)(W/p), C·p·p), patches in row-major order over the grid.
    """
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // p, p, W // p, p).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // p) * (W // p), C * p * p)


def _embed(model, pixel_values, token_type_ids, dt):
    e, x = model.embeddings, model.config.extra
    img = np.asarray(pixel_values, dtype=dt)
    shape = (x["num_channels"], x["image_size"], x["image_size"])
    if img.ndim != 4 or img.shape[1:] != shape:
        raise InvalidParameters("pixel_values", f"expected shape (B, {', '.join(map(str, shape))}), got {img.shape}")
    d = model.config.hidden_size
    tok = patches(img, x["patch_size"]) @ e.patch_weight.reshape(d, -1).T.astype(dt) + e.patch_bias.astype(dt)
    sp = np.broadcast_to(e.special.astype(dt), (img.shape[0],) + e.special.shape)
    return np.concatenate([sp, tok], axis=1) + e.position.astype(dt)[None]


def _moments(model):
    e = model.embeddings
    W = np.asarray(e.patch_weight, dtype=np.float64).reshape(model.config.hidden_size, -1)
    return np.asarray(e.patch_bias, dtype=np.float64), W @ W.T


ARCH = register(Architecture(
    model_types=("vit", "deit"), block=Block(norm="pre", final_norm=True), read_config=_config, read_layer=_layer,
    read_embeddings=_embeddings, read_final=_final, embed=_embed, input_moments=_moments,
    prefixes=("vit.", "deit."), summary="pre-LN image encoder with a patch embedding (ViT / DeiT)"))
