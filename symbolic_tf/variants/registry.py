"""The variant registry with discovery: every module of this package that declares a variant
registers it on import; :func:`get` and :func:`names` import them all first."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from .base import Variant, lookup, registered

__all__ = ["get", "names", "all_variants", "bind", "load_all"]

#: modules of this package that declare no variant
NOT_VARIANTS = frozenset({"base", "registry", "structure", "velocity", "drift"})
_loaded = False


def load_all() -> None:
    """Import every variant module of this package once (registration happens on import)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
        if mod.name not in NOT_VARIANTS and not mod.name.startswith("_"):
            importlib.import_module(f"{__package__}.{mod.name}")


def names() -> list[str]:
    """Registered variant names, in listing order.

    Returns
    -------
    list of str
        Every variant of the package (and any registered since), by ``order`` then name.
    """
    load_all()
    return registered()


def get(name: str) -> Variant:
    """The registered variant called ``name`` (case-insensitive; aliases like ``"ℓ2"``).

    Parameters
    ----------
    name : str
        A variant name or alias.

    Returns
    -------
    Variant
        The declaration.

    Raises
    ------
    UnknownVariant
        If no variant has that name.
    """
    load_all()
    return lookup(name)


def all_variants() -> list[Variant]:
    """Every registered variant, in listing order.

    Returns
    -------
    list of Variant
        One instance per registered name.
    """
    return [get(n) for n in names()]


def bind(problem) -> Variant:
    """The variant of ``problem``, after checking the problem gives what it needs.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    Variant
        Its declaration.

    Raises
    ------
    InvalidParameters
        If the problem lacks a matrix the variant needs (or gives heads to a single head).
    """
    v = get(problem.variant)
    v.check_problem(problem)
    return v
