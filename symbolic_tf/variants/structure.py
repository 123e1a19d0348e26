"""What the engines ask of a problem's variant, answered from the variants' declarations.

The certification routes, kinds and numeric shortcuts call these functions; none of them asks
for a variant by name (docs/architecture.md: variants declare, engines compute).  The logic is
:mod:`symbolic_tf.spec.heads`, shared with the checker's table of trusted flows.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..spec import heads
from .registry import get

__all__ = ["quadratic_heads", "single_quadratic_head", "quadratic_reason", "growth_bound_of", "single_quadratic_factor"]


def single_quadratic_head(problem) -> tuple[Any, Any]:
    """(C, Ã) of a single-head problem whose covariance flow is one quadratic field.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    tuple of flint.fmpq_mat
        Exact C (the value matrix) and Ã (see :attr:`Variant.quadratic_factor`).

    Raises
    ------
    InvalidParameters
        When the variant is multi-head or its flow is not of that form.
    """
    return heads.single_quadratic_head(problem, get)


def quadratic_heads(problem) -> list[tuple[Any, Any]]:
    """The heads (C_h, Ã_h) of a problem whose covariance flow is a sum of quadratic fields.

    Σ̇ = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) + FΣ + ΣFᵀ (docs/mathematics.md §3, §6).  A single-head
    variant contributes :meth:`Variant.quadratic_pair`; a composite (multi-head) variant the
    pairs of its heads, C_h = W_hC_h' for an output weight W_h.  The engines consult this
    declaration; they never ask for a variant by name.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem (its variant, parameters and heads).

    Returns
    -------
    list of (flint.fmpq_mat, flint.fmpq_mat)
        Exact (C_h, Ã_h), one per head.

    Raises
    ------
    InvalidParameters
        With the reason when the problem's flow is not of this form (a variant without a
        quadratic declaration, a head of such a variant, a missing matrix).
    """
    return heads.quadratic_heads(problem, get)


def growth_bound_of(problem) -> str | None:
    """The exponential growth bound a problem's variant declares (:attr:`Variant.growth_bound`).

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        The declared bound's name (``"coupling"``, ``"inverse-kernel"``), or None for a
        variant that declares none or a multi-head problem.
    """
    return heads.growth_bound_of(problem, get)


def single_quadratic_factor(name) -> Fraction | None:
    """The factor c of Ã = c·τ·A when ``name`` is a single-head variant with a quadratic flow.

    Parameters
    ----------
    name : str
        A variant name (or alias), e.g. from a problem or map document.

    Returns
    -------
    Fraction or None
        :attr:`Variant.quadratic_factor`, or None for an unknown, multi-head or
        non-quadratic variant.
    """
    return heads.single_quadratic_factor(name, get)


def quadratic_reason(problem, single: bool = False) -> str | None:
    """Why the problem's covariance flow is not of the quadratic form the certificates need.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    single : bool
        Require one head (:func:`single_quadratic_head`) instead of a sum of heads
        (:func:`quadratic_heads`).

    Returns
    -------
    str or None
        None when the flow has that form, else the reason in one line.
    """
    return heads.quadratic_reason(problem, get, single)
