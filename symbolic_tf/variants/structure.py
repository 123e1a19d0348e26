"""What the engines ask of a problem's variant, answered from the variants' declarations.

The certification routes, kinds and numeric shortcuts call these functions; none of them asks
for a variant by name (docs/architecture.md: variants declare, engines compute).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..exact.rational import qmat
from ..spec.errors import InvalidParameters
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
    v = get(problem.variant)
    if v.composite:
        raise InvalidParameters("heads", f"needs a single-head variant, not {v.name!r}")
    return quadratic_heads(problem)[0]


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
    v = get(problem.variant)
    if not v.composite:
        if problem.heads:
            raise InvalidParameters("heads", f"variant {v.name!r} is single-head; use variant = \"multihead\"")
        if any(P is None for P in (getattr(problem, m) for m in v.matrices)):
            raise InvalidParameters("variant", f"{v.name} needs {', '.join(v.matrices)}")
        pair = v.quadratic_pair(v.exact_params(problem))
        if pair is None:
            raise InvalidParameters("variant", f"the covariance flow of variant {v.name!r} is not the quadratic "
                                    "softmax-type field")
        return [(qmat(pair[0]), qmat(pair[1]))]
    if not problem.heads:
        raise InvalidParameters("heads", f"{v.name} problem without heads")
    out = []
    for k, h in enumerate(problem.heads):
        sub = get(h.variant)
        P = {"A": h.attention, "V": h.V, "scale": problem.scale}
        if sub.composite or sub.matrices != ("A", "V") or h.attention is None or h.V is None:
            raise InvalidParameters(f"heads[{k}]", f"head {k} is not a single-head (A, V) head with A and V")
        pair = sub.quadratic_pair(P)
        if pair is None:
            raise InvalidParameters(f"heads[{k}]", f"head {k} ({sub.name}) does not have the quadratic "
                                    "softmax-type covariance flow")
        C, At = qmat(pair[0]), qmat(pair[1])
        out.append((C if h.W is None else qmat(h.W) * C, At))
    return out


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
    if problem.heads:
        return None
    return get(problem.variant).growth_bound


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
    try:
        v = get(str(name if name is not None else ""))
    except InvalidParameters:
        return None
    return None if v.composite or v.quadratic_factor is None else Fraction(v.quadratic_factor)


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
    try:
        (single_quadratic_head if single else quadratic_heads)(problem)
    except InvalidParameters as exc:
        what = "one quadratic (softmax-type) head" if single else "a quadratic (softmax-type) covariance flow"
        return f"needs {what}: {exc.reason}"
    return None
