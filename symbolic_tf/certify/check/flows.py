"""The covariance flows the checker trusts, stated here as data (docs/architecture.md, the kernel).

The variants (:mod:`symbolic_tf.variants`) declare each attention with a SymPy kernel; the
search reads those declarations.  The checker may not import them (they pull in SymPy), so it
reads the few facts it relies on from this table, where a reviewer sees them at once:

* the normalisation (row, none, bistochastic) and whether the Gaussian closure holds;
* the quadratic factor c: one head's covariance field is Σ̇ = CΣÃΣ + ΣÃᵀΣCᵀ with C = V and
  Ã = c·τ·A (softmax: c = 1, docs/mathematics.md §3), or the variant has no such field;
* the exponential growth bound the variant's Σ̇ obeys (a key of the growth-bound registry);
* whether the variant is composite (multi-head: its heads carry the pairs).

The functions below have the names and signatures of :mod:`symbolic_tf.variants.structure`;
both compute through :mod:`symbolic_tf.spec.heads` (same logic, same error texts), each with its
own table.  tests/certify/test_flows.py checks, for every registered
variant, that this table agrees with the variants' declarations, so a variant the kernel does
not know (or knows differently) fails there, with its name.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from ...spec import heads
from ...spec.errors import UnknownVariant

__all__ = ["Flow", "FLOWS", "ROW", "NONE", "BISTOCHASTIC", "get", "names", "normalisation_of", "quadratic_heads",
           "single_quadratic_head", "quadratic_reason", "growth_bound_of", "single_quadratic_factor"]

ROW = "row"
NONE = "none"
BISTOCHASTIC = "bistochastic"


@dataclass(frozen=True)
class Flow:
    """What the checker knows of one attention variant's covariance flow.

    Attributes
    ----------
    name : str
        The variant's registry name.
    normalisation : {"row", "none", "bistochastic"}
        How the attention weights are normalised.
    matrices : tuple of str
        The parameter matrices the variant needs.
    quadratic_factor : Fraction or None
        c in Ã = c·τ·A when one head's covariance field is the quadratic Riccati field, else None.
    growth_bound : str or None
        The exponential growth bound the covariance velocity obeys for every Σ ⪰ 0, or None.
    composite : bool
        Multi-head: the heads carry the quadratic pairs.
    expected_closed : bool
        The Gaussian closure holds (docs/mathematics.md §3).
    aliases : tuple of str
        Other names of the variant.
    """

    name: str
    normalisation: str
    matrices: tuple[str, ...] = ("A", "V")
    quadratic_factor: Fraction | None = None
    growth_bound: str | None = None
    composite: bool = False
    expected_closed: bool = True
    aliases: tuple[str, ...] = ()

    def quadratic_pair(self, P: Mapping[str, Any]):
        """(C, Ã) of the quadratic covariance field Σ̇ = CΣÃΣ + ΣÃᵀΣCᵀ, if the table says so.

        Parameters
        ----------
        P : mapping
            The head's exact parameters: ``"A"`` and ``"V"`` as rows of rationals, ``"scale"`` τ.

        Returns
        -------
        tuple of (list of rows, list of rows) or None
            C = V and Ã = c·τ·A exactly, or None when the flow is not of that form.
        """
        return heads.quadratic_pair(self.quadratic_factor, P)

    def exact_params(self, problem) -> dict:
        """The exact parameters :meth:`quadratic_pair` reads: the matrices and the temperature.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.

        Returns
        -------
        dict
            Matrix name → rows of rationals (or None), and ``"scale"`` → τ.
        """
        return {m: getattr(problem, m) for m in self.matrices} | {"scale": problem.scale}


#: The table, in the order the variant registry lists unknown names (module order).
FLOWS: tuple[Flow, ...] = (
    # ℓ2: ‖Σ̇‖ ≤ 2τ‖V‖‖A‖‖Σ‖/λ_min(τKᵀK) for K of full column rank
    Flow("l2", ROW, ("Q", "K", "V"), growth_bound="inverse-kernel", aliases=("ℓ2", "l2-attention")),
    Flow("linear", NONE),
    Flow("masked", ROW, expected_closed=False, aliases=("causal",)),
    Flow("multihead", ROW, ("A", "V", "W"), composite=True, aliases=("multi-head", "mha")),
    Flow("sigmoid", NONE, expected_closed=False),
    # Sinkhorn: ‖Σ̇‖ ≤ 2‖V‖‖Σ‖, the coupling's cross-covariance is bounded by Σ
    Flow("sinkhorn", BISTOCHASTIC, growth_bound="coupling"),
    # softmax: Σ̇ = VΣ(τA)Σ + Σ(τA)ᵀΣVᵀ (docs/mathematics.md §3)
    Flow("softmax", ROW, quadratic_factor=Fraction(1)),
    Flow("unnormalised", NONE, expected_closed=False, aliases=("unnormalized", "exp")),
)

_BY_NAME = {f.name: f for f in FLOWS}
_ALIAS = {a: f.name for f in FLOWS for a in f.aliases}


def names() -> list[str]:
    """The variant names the checker knows, in table order.

    Returns
    -------
    list of str
        One name per row of :data:`FLOWS`.
    """
    return [f.name for f in FLOWS]


def get(name: str) -> Flow:
    """The row for ``name`` (case-insensitive, aliases allowed), like ``variants.get``.

    Parameters
    ----------
    name : str
        A variant name or alias.

    Returns
    -------
    Flow
        Its row.

    Raises
    ------
    UnknownVariant
        If the checker does not know the variant.
    """
    key = str(name).strip().lower()
    key = _ALIAS.get(key, key)
    if key not in _BY_NAME:
        raise UnknownVariant(str(name), names())
    return _BY_NAME[key]


def normalisation_of(name: str) -> str:
    """The normalisation of the variant called ``name``.

    Parameters
    ----------
    name : str
        A variant name or alias.

    Returns
    -------
    str
        ``"row"``, ``"none"`` or ``"bistochastic"``.

    Raises
    ------
    UnknownVariant
        If the checker does not know the variant.
    """
    return get(name).normalisation


def single_quadratic_head(problem) -> tuple[Any, Any]:
    """(C, Ã) of a single-head problem whose covariance flow is one quadratic field.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    tuple of flint.fmpq_mat
        Exact C (the value matrix) and Ã = c·τ·A.

    Raises
    ------
    InvalidParameters
        When the variant is multi-head or its flow is not of that form.
    """
    return heads.single_quadratic_head(problem, get=get)


def quadratic_heads(problem) -> list[tuple[Any, Any]]:
    """The heads (C_h, Ã_h) of a problem whose covariance flow is a sum of quadratic fields.

    Σ̇ = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) + FΣ + ΣFᵀ (docs/mathematics.md §3, §6); a multi-head
    problem's head h gives C_h = W_hV_h (V_h without W_h) and Ã_h = c·τ·A_h.

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
        With the reason when the problem's flow is not of this form.
    """
    return heads.quadratic_heads(problem, get=get)


def growth_bound_of(problem) -> str | None:
    """The exponential growth bound of a problem's variant.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        The bound's name (``"coupling"``, ``"inverse-kernel"``), or None for a variant without
        one or a multi-head problem.
    """
    return heads.growth_bound_of(problem, get=get)


def single_quadratic_factor(name) -> Fraction | None:
    """The factor c of Ã = c·τ·A when ``name`` is a single-head variant with a quadratic flow.

    Parameters
    ----------
    name : str
        A variant name (or alias), e.g. from a problem or map document.

    Returns
    -------
    Fraction or None
        c, or None for an unknown, multi-head or non-quadratic variant.
    """
    return heads.single_quadratic_factor(name, get=get)


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
    return heads.quadratic_reason(problem, single, get=get)
