"""A problem's quadratic heads (C_h, Ã_h), read from a table of variant declarations.

One head's covariance field is Σ̇ = CΣÃΣ + ΣÃᵀΣCᵀ with C = V and Ã = c·τ·A (softmax: c = 1,
docs/mathematics.md §3); a multi-head problem's head h gives C_h = W_hV_h.  Two tables answer
these questions: the variants' registry (:mod:`symbolic_tf.variants.structure`) and the
checker's table of trusted flows (:mod:`symbolic_tf.certify.check.flows`, which may not import
the variants).  Both answer through the functions here, each with its own ``get`` (a keyword, so
``functools.partial(f, get=get)`` keeps the callers' signature), so the logic and the error texts are one.

``get(name)`` returns a declaration with ``name``, ``composite``, ``matrices``,
``quadratic_factor``, ``quadratic_pair(P)`` and ``exact_params(problem)``, and raises
:class:`~symbolic_tf.spec.errors.UnknownVariant` for a name it does not know.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from ..exact.rational import qmat
from .errors import InvalidParameters

__all__ = ["quadratic_pair", "quadratic_heads", "single_quadratic_head", "quadratic_reason", "growth_bound_of",
           "single_quadratic_factor"]


def quadratic_pair(factor: Fraction | None, P: Mapping[str, Any]):
    """(C, Ã) = (V, c·τ·A) of the quadratic covariance field Σ̇ = CΣÃΣ + ΣÃᵀΣCᵀ.

    Parameters
    ----------
    factor : Fraction or None
        c in Ã = c·τ·A, or None when the flow is not of that form.
    P : mapping
        The head's exact parameters: ``"A"`` and ``"V"`` as rows of rationals, ``"scale"`` τ.

    Returns
    -------
    tuple of (list of rows, list of rows) or None
        C = V and Ã = c·τ·A exactly, or None when ``factor`` is None.
    """
    if factor is None:
        return None
    c = Fraction(factor) * Fraction(P["scale"])
    return [list(r) for r in P["V"]], [[c * Fraction(e) for e in r] for r in P["A"]]


def single_quadratic_head(problem, *, get: Callable[[str], Any]) -> tuple[Any, Any]:
    """(C, Ã) of a single-head problem whose covariance flow is one quadratic field.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    get : callable
        Variant name → declaration (see the module text).

    Returns
    -------
    tuple of flint.fmpq_mat
        Exact C (the value matrix) and Ã = c·τ·A.

    Raises
    ------
    InvalidParameters
        When the variant is multi-head or its flow is not of that form.
    """
    v = get(problem.variant)
    if v.composite:
        raise InvalidParameters("heads", f"needs a single-head variant, not {v.name!r}")
    return quadratic_heads(problem, get=get)[0]


def quadratic_heads(problem, *, get: Callable[[str], Any]) -> list[tuple[Any, Any]]:
    """The heads (C_h, Ã_h) of a problem whose covariance flow is a sum of quadratic fields.

    Σ̇ = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) + FΣ + ΣFᵀ (docs/mathematics.md §3, §6).

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem (its variant, parameters and heads).
    get : callable
        Variant name → declaration (see the module text).

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


def growth_bound_of(problem, *, get: Callable[[str], Any]) -> str | None:
    """The exponential growth bound of a problem's variant.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    get : callable
        Variant name → declaration (see the module text).

    Returns
    -------
    str or None
        The bound's name (``"coupling"``, ``"inverse-kernel"``), or None for a variant without
        one or a multi-head problem.
    """
    if problem.heads:
        return None
    return get(problem.variant).growth_bound


def single_quadratic_factor(name, *, get: Callable[[str], Any]) -> Fraction | None:
    """The factor c of Ã = c·τ·A when ``name`` is a single-head variant with a quadratic flow.

    Parameters
    ----------
    name : str
        A variant name (or alias), e.g. from a problem or map document.
    get : callable
        Variant name → declaration (see the module text).

    Returns
    -------
    Fraction or None
        c, or None for an unknown, multi-head or non-quadratic variant.
    """
    try:
        v = get(str(name if name is not None else ""))
    except InvalidParameters:
        return None
    return None if v.composite or v.quadratic_factor is None else Fraction(v.quadratic_factor)


def quadratic_reason(problem, single: bool = False, *, get: Callable[[str], Any]) -> str | None:
    """Why the problem's covariance flow is not of the quadratic form the certificates need.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    single : bool
        Require one head (:func:`single_quadratic_head`) instead of a sum of heads
        (:func:`quadratic_heads`).
    get : callable
        Variant name → declaration (see the module text).

    Returns
    -------
    str or None
        None when the flow has that form, else the reason in one line.
    """
    try:
        (single_quadratic_head if single else quadratic_heads)(problem, get=get)
    except InvalidParameters as exc:
        what = "one quadratic (softmax-type) head" if single else "a quadratic (softmax-type) covariance flow"
        return f"needs {what}: {exc.reason}"
    return None
