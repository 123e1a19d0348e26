"""Attention variants: one module per variant, each registering itself by name.

``variants.get("softmax")`` returns the declaration; ``variants.names()`` lists them.
A new variant is one new module in this package (it is discovered automatically).
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import BISTOCHASTIC, NONE, ROW, Variant, all_variants, get, names, register

__all__ = ["Variant", "register", "get", "names", "all_variants", "bind", "ROW", "NONE", "BISTOCHASTIC"]

_NOT_VARIANTS = {"base", "velocity", "drift"}
_loaded = False


def _load_all() -> None:
    """Import every variant module of this package once (registration happens on import)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name not in _NOT_VARIANTS and not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


def bind(problem) -> Variant:
    """The variant of ``problem``, after checking the problem gives what it needs."""
    v = get(problem.variant)
    v.check_problem(problem)
    return v
