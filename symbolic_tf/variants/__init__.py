"""Attention variants: one module per variant, each registering itself by name.

``variants.get("softmax")`` returns the declaration; ``variants.names()`` lists them.
A new variant is one new module in this package (it is discovered automatically); the
engines ask :mod:`symbolic_tf.variants.structure` what its declarations imply.
"""
from __future__ import annotations

from .base import BISTOCHASTIC, NONE, ROW, Variant, register, unregister
from .registry import all_variants, bind, get, names
from .structure import growth_bound_of, quadratic_heads, quadratic_reason, single_quadratic_factor, single_quadratic_head

__all__ = ["Variant", "register", "unregister", "get", "names", "all_variants", "bind", "quadratic_heads", "quadratic_reason",
           "single_quadratic_head", "growth_bound_of", "single_quadratic_factor", "ROW", "NONE", "BISTOCHASTIC"]
