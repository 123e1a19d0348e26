r"""Declared Transformer architectures: ``config.json``'s ``model_type`` → a block structure.

A checkpoint folder (``config.json`` + ``model.safetensors``) is read by the declaration
registered for its ``model_type``; every other ``model_type`` is refused with one line
(:class:`~symbolic_tf.spec.errors.ModelError`).  One file of this package per architecture
declares

* its **block** (:class:`Block`): where the LayerNorms sit (``"post"``: BERT,
  x ↦ LN₂(h + MLP(h)), h = LN₁(x + attn(x)); ``"pre"``: ViT / GPT-2 / ModernBERT,
  h = x + attn(LN₁(x)), x ↦ h + MLP(LN₂(h)), with a final LayerNorm after the last block),
  the attention mask (none, causal j ≤ i, or a sliding window |i − j| ≤ w/2 on some layers),
  rotary positions (queries and keys rotated by the position, HF ``rotate_half`` convention),
  and the feed-forward (``plain``: W₂ g(W₁x + b₁) + b₂; ``gated``: W₂(g(a) ⊙ c) with
  (a, c) the two halves of W₁x);
* its **weight names** in ``model.safetensors`` and how they map onto the uniform
  :class:`~symbolic_tf.models.loader.LayerWeights` (PyTorch (out, in) layout; fused QKV
  projections split by rows, GPT-2's ``Conv1D`` (in, out) weights transposed — both exact);
* its **embedding** (token ids, or image patches for ViT/DeiT) and the default input law of
  the probe.

A new architecture is one new module here that calls :func:`register`; the package imports
every module it contains.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

from ...spec.errors import ModelError

__all__ = ["Block", "Architecture", "register", "lookup", "supported"]


@dataclass(frozen=True)
class Block:
    """The structure of one Transformer block (see the module docstring)."""

    norm: str = "post"          # "post" (BERT) or "pre"
    causal: bool = False        # attention to keys j ≤ i only
    rotary: bool = False        # rotary position embedding of queries and keys
    gated: bool = False         # gated feed-forward W₂(g(a) ⊙ c)
    final_norm: bool = False    # a LayerNorm after the last block

    def to_dict(self) -> dict:
        """The JSON face of the block.

        Returns
        -------
        dict
            norm, causal, rotary, gated, final_norm.
        """
        return {"norm": self.norm, "causal": self.causal, "rotary": self.rotary, "gated": self.gated,
                "final_norm": self.final_norm}


@dataclass(frozen=True)
class Architecture:
    """One declared architecture: its block, weight-name prefixes and readers.

    ``read_config(cfg, path) -> ModelConfig``; ``read_layer(get, i, config) -> LayerWeights``;
    ``read_embeddings(get, config) -> dict``; ``read_final(get, config) -> (γ, β) or None``;
    ``embed(model, inputs, token_type_ids, dtype) -> (B, n, d)``;
    ``input_moments(model) -> (mean, cov)`` (the probe's default Gaussian).  ``get(key, shape)``
    returns the float32 tensor ``key`` (prefix stripped) or raises :class:`ModelError`;
    ``get.has(key)`` tells whether it exists.
    """

    model_types: tuple
    block: Block
    read_config: Callable
    read_layer: Callable
    read_embeddings: Callable
    embed: Callable
    input_moments: Callable
    read_final: Callable | None = None
    prefixes: tuple = field(default_factory=tuple)
    summary: str = ""


_REGISTRY: dict[str, Architecture] = {}


def register(arch: Architecture) -> Architecture:
    """Add an architecture to the registry under each of its ``model_types``.

    Parameters
    ----------
    arch : Architecture
        The declaration.

    Returns
    -------
    Architecture
        ``arch`` itself.
    """
    for t in arch.model_types:
        if t in _REGISTRY and _REGISTRY[t] is not arch:
            raise ValueError(f"model_type {t!r} declared twice")
        _REGISTRY[t] = arch
    return arch


def _load_all() -> None:
    if _REGISTRY:
        return
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def supported() -> list[str]:
    """The declared ``model_type`` values, sorted.

    Returns
    -------
    list of str
        e.g. ``["bert", "deit", "gpt2", "modernbert", "vit"]``.
    """
    _load_all()
    return sorted(_REGISTRY)


def lookup(model_type, where: str = "config.json") -> Architecture:
    """The declaration of ``model_type``, or one readable refusal.

    Parameters
    ----------
    model_type : object
        ``config.json``'s ``model_type``.
    where : str
        The file named in the error message.

    Returns
    -------
    Architecture
        The registered declaration.

    Raises
    ------
    ModelError
        For any ``model_type`` that no module of this package declares.
    """
    _load_all()
    if not isinstance(model_type, str) or model_type not in _REGISTRY:
        raise ModelError(f"{where}: model_type {model_type!r} is not a supported architecture "
                         f"(declared: {', '.join(sorted(_REGISTRY))})")
    return _REGISTRY[model_type]
