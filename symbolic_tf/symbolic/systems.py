"""One cache of derived moment systems.

Deriving a moment system (:func:`symbolic_tf.symbolic.moments.derive`) costs SymPy work; the
result depends only on the variant, its heads, the drift flag and the temperature, so every
engine that needs a system asks :func:`system_for` (or :func:`system_for_problem`) and gets the
one derived for those options in this process.
"""
from __future__ import annotations

import functools

from .moments import MomentSystem, derive

__all__ = ["system_for", "system_for_problem"]


@functools.lru_cache(maxsize=None)
def _derived(variant: str, heads, drift: bool, scale) -> MomentSystem:
    return derive(variant, heads=list(heads) if isinstance(heads, tuple) else heads, drift=drift, scale=scale)


def system_for(variant: str, *, heads: int | list | tuple | None = None, drift: bool = False,
               scale=1) -> MomentSystem:
    """The moment system α̇ = mean_rhs(α, Σ), Σ̇ = cov_rhs(α, Σ) of a variant, derived once per
    process and set of options.

    Parameters
    ----------
    variant : str
        Registered variant name.
    heads : int or sequence of str, optional
        Multi-head only: the number of softmax heads or the head variant names.
    drift : bool
        Add the affine feed-forward drift F x + b.
    scale : number or None
        The temperature τ substituted into the system (1 by default); ``None`` keeps the symbol τ.

    Returns
    -------
    MomentSystem
        The same object for the same options (treat it as immutable).
    """
    key = tuple(heads) if isinstance(heads, (list, tuple)) else heads
    return _derived(variant, key, bool(drift), scale)


def system_for_problem(problem) -> MomentSystem:
    """The moment system of a problem: its variant, its heads, the drift if F or b is given,
    the temperature kept as the symbol τ.

    Parameters
    ----------
    problem : Problem
        A Gaussian-closed problem (its variant is checked against the problem's data).

    Returns
    -------
    MomentSystem
        As :func:`symbolic_tf.symbolic.moments.derive_for_problem`, from the cache of
        :func:`system_for`.
    """
    from ..spec.relu import refuse_relu
    from ..variants import bind

    refuse_relu(problem)
    v = bind(problem)
    heads = [h.variant for h in problem.heads] if v.composite else None
    return system_for(v.name, heads=heads, drift=problem.has_drift, scale=None)
