"""The exact and ball linear-algebra core.

Everything in symbolic_tf that *decides* — a definiteness, a rank, an inertia, a bound —
calls this package; it imports nothing else of symbolic_tf.

* :mod:`symbolic_tf.exact.precision` — :func:`working_precision`, the one way to set the
  working precision of python-flint balls and of mpmath for a block of code.
"""
from .precision import working_precision

__all__ = ["working_precision"]
