r"""The ``[relu]`` table of a problem file: a ReLU feed-forward term (docs/masked_relu.md §5).

A problem may add to its velocity field the non-affine feed-forward term

.. math::

    g(x) = W_2\,\mathrm{ReLU}(W_1 x + b_1), \qquad W_1 ∈ ℝ^{m×d},\ b_1 ∈ ℝ^m,\ W_2 ∈ ℝ^{d×m},

so that tokens move by ẋ = Γ_μ(x) + F x + b + g(x)::

    [relu]
    W1 = [[1, 0]]        # m × d (m hidden units, m ≤ MAX_DIM)
    b1 = ["1/2"]         # m, optional (default 0)
    W2 = [[1], [0]]      # d × m

Entries are parsed exactly like every other number of a problem.  A ReLU term makes the flow
leave the Gaussian family, so the moment-ODE and certification paths refuse such a problem
(:func:`refuse_relu`); the token simulator runs it (:mod:`symbolic_tf.numeric.relu`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from ..exact.rational import frac_str
from .errors import InvalidParameters, NotGaussianClosed
from .limits import MAX_DIM
from .rational import to_matrix, to_vector

__all__ = ["ReLUTerm", "RELU_FIELDS", "parse_relu", "relu_to_dict", "refuse_relu"]

RELU_FIELDS = ("W1", "b1", "W2")


@dataclass(frozen=True)
class ReLUTerm:
    """W₂ ReLU(W₁x + b₁), exact (tuples of ``Fraction``)."""

    W1: tuple
    b1: tuple
    W2: tuple

    @property
    def width(self) -> int:
        """The number m of hidden units."""
        return len(self.W1)


def parse_relu(doc, d: int) -> ReLUTerm:
    """Validate a ``[relu]`` table for token dimension ``d``.

    Parameters
    ----------
    doc : Mapping
        The ``[relu]`` table (W1, optional b1, W2).
    d : int
        The token dimension.

    Returns
    -------
    ReLUTerm
        The exact term W₂ReLU(W₁x + b₁) (b₁ = 0 when absent).

    Raises
    ------
    InvalidParameters
        Unknown field, missing W1/W2, wrong shapes (W1 m×d, b1 of length m, W2 d×m), m > MAX_DIM.
    """
    if not isinstance(doc, Mapping):
        raise InvalidParameters("relu", f"expected a table/object, got {type(doc).__name__}")
    for key in doc:
        if key not in RELU_FIELDS:
            raise InvalidParameters(f"relu.{key}", f"unknown field; allowed fields: {', '.join(RELU_FIELDS)}")
    for key in ("W1", "W2"):
        if key not in doc:
            raise InvalidParameters(f"relu.{key}", "missing (the term is W2·ReLU(W1 x + b1))")
    W1 = to_matrix(doc["W1"], "relu.W1", (None, d))
    m = len(W1)
    if m > MAX_DIM:
        raise InvalidParameters("relu.W1", f"at most {MAX_DIM} hidden units (got {m})")
    b1 = to_vector(doc["b1"], "relu.b1", m) if "b1" in doc else (Fraction(0),) * m
    W2 = to_matrix(doc["W2"], "relu.W2", (d, m))
    return ReLUTerm(W1, b1, W2)


def relu_to_dict(r: ReLUTerm) -> dict:
    """Exact serialisation ("p/q" strings); :func:`parse_relu` inverts it.

    Parameters
    ----------
    r : ReLUTerm
        The term.

    Returns
    -------
    dict
        The ``[relu]`` table.
    """
    return {"W1": [[frac_str(x) for x in row] for row in r.W1],
            "b1": [frac_str(x) for x in r.b1],
            "W2": [[frac_str(x) for x in row] for row in r.W2]}


def refuse_relu(problem, what: str = "the Gaussian moment ODE") -> None:
    """Raise :class:`NotGaussianClosed` if ``problem`` carries a ReLU feed-forward term.

    W₂ReLU(W₁x + b₁) is not affine in x, so a Gaussian law does not stay Gaussian and there is
    no moment ODE to derive, integrate or certify; dropping the term silently would answer a
    different problem.  Use the token simulator (``symtf relu``) instead.

    Parameters
    ----------
    problem : Problem
        The problem.
    what : str
        The method that needs an affine drift, for the message.
    """
    if getattr(problem, "relu", None) is not None:
        raise NotGaussianClosed(
            f"the problem has a ReLU feed-forward term W2·ReLU(W1 x + b1), which is not affine in x: "
            f"Gaussians are not preserved and {what} does not apply (simulate tokens: `symtf relu`)")
