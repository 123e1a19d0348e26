r"""The ``[masked]`` table of a problem file: the position marginal of masked (causal) attention.

Masked tokens carry a position s ∈ [0, 1], fixed along the flow; the law λ of the positions is
part of the problem (docs/masked_relu.md §1)::

    [masked]
    positions = "uniform"    # or "grid:K": K equally spaced positions k/K, k = 1..K
    sink = "1/20"            # Dirac mass m₀ ∈ [0, 1) at s = 0 (the attention sink), default 0

``uniform``: the tokens off the sink at sorted i.i.d. uniform positions; ``grid:K``: split as
evenly as possible over k/K.  The sink mass is read exactly like every other number of a
problem.  The commands that draw positions (``symtf masked``, ``symtf stability``) use this
table; their options ``--positions`` and ``--sinks`` override it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from ..exact.rational import frac_str
from .errors import InvalidParameters
from .limits import brief
from .rational import to_fraction

__all__ = ["PositionMarginal", "MASKED_FIELDS", "parse_masked", "masked_to_dict", "parse_position_kind"]

MASKED_FIELDS = ("positions", "sink")

#: Largest K of ``grid:K`` (the grid needs K tokens off the sink, which the commands check).
MAX_GRID = 10**6


@dataclass(frozen=True)
class PositionMarginal:
    """The position law λ: ``kind`` ("uniform" or "grid:K") and the exact sink mass m₀ ∈ [0, 1)."""

    kind: str = "uniform"
    sink: Fraction = Fraction(0)


def parse_position_kind(text, field: str = "masked.positions") -> str:
    """Normalise ``"uniform"`` or ``"grid:K"`` (an integer 1 ≤ K ≤ 10⁶).

    Parameters
    ----------
    text : str
        The marginal's name.
    field : str
        The field named in an error.

    Returns
    -------
    str
        ``"uniform"`` or ``"grid:K"`` with K in decimal.

    Raises
    ------
    InvalidParameters
        For anything else.
    """
    if not isinstance(text, str):
        raise InvalidParameters(field, f"expected \"uniform\" or \"grid:K\", got {brief(text)}")
    kind = text.strip().lower()
    if kind == "uniform":
        return kind
    if kind.startswith("grid:"):
        digits = kind[5:].strip()
        if digits.isdigit() and 1 <= int(digits) <= MAX_GRID:
            return f"grid:{int(digits)}"
        raise InvalidParameters(field, f"expected grid:K with an integer 1 ≤ K ≤ {MAX_GRID}, got {brief(text)}")
    raise InvalidParameters(field, f"expected \"uniform\" or \"grid:K\", got {brief(text)}")


def parse_masked(doc) -> PositionMarginal:
    """Validate a ``[masked]`` table.

    Parameters
    ----------
    doc : Mapping
        The table: optional ``positions`` and ``sink``.

    Returns
    -------
    PositionMarginal
        λ = m₀ δ₀ + (1 − m₀)·(the named law off the sink).

    Raises
    ------
    InvalidParameters
        Unknown field, a bad marginal name, a sink mass outside [0, 1).
    """
    if not isinstance(doc, Mapping):
        raise InvalidParameters("masked", f"expected a table/object, got {type(doc).__name__}")
    for key in doc:
        if key not in MASKED_FIELDS:
            raise InvalidParameters(f"masked.{key}", f"unknown field; allowed fields: {', '.join(MASKED_FIELDS)}")
    kind = parse_position_kind(doc.get("positions", "uniform"))
    sink = to_fraction(doc.get("sink", 0), "masked.sink")
    if not 0 <= sink < 1:
        raise InvalidParameters("masked.sink", f"the sink mass must lie in [0, 1), got {frac_str(sink)}")
    return PositionMarginal(kind, sink)


def masked_to_dict(m: PositionMarginal) -> dict:
    """The table as exact JSON-ready data (``parse_masked`` inverts it).

    Parameters
    ----------
    m : PositionMarginal

    Returns
    -------
    dict
        ``{"positions": kind, "sink": "p/q"}``.
    """
    return {"positions": m.kind, "sink": frac_str(m.sink)}
