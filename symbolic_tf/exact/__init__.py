"""The exact and ball linear-algebra core.

Everything in symbolic_tf that *decides* — a definiteness, a rank, an inertia, a bound —
calls this package; it imports nothing else of symbolic_tf.

* :mod:`symbolic_tf.exact.precision` — :func:`working_precision`, the one way to set the
  working precision of python-flint balls and of mpmath for a block of code.
* :mod:`symbolic_tf.exact.rational` — exact rationals: ``"p/q"`` strings, ``Fraction`` ↔
  ``fmpq``/``fmpq_mat`` ↔ SymPy, floats by their exact binary value, dyadic roundings.
* :mod:`symbolic_tf.exact.congruence` — ``Fraction`` matrices (tuples) and the exact PSD
  decision by congruence elimination, with a rational witness.
* :mod:`symbolic_tf.exact.definiteness` — inertia, definiteness, PD tests, witnesses,
  rank, exact factorisations of rational matrices.
* :mod:`symbolic_tf.exact.ball` — ball (arb) matrices and the ball PD test.
"""
from .precision import working_precision

__all__ = ["working_precision"]
