"""The SymPy side of the conversion gateway: SymPy ``Rational``/``Float`` and mpmath ``mpf`` ↔
``Fraction``.

Kept apart from :mod:`symbolic_tf.exact.rational` (the exact side of the gateway) so that the
checker kernel, which imports ``rational``, never imports SymPy.  Rules: an exact number stays
the same number; a float (Python or SymPy ``Float``) is taken at its exact binary value, never
``nsimplify``-ed or rounded.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

__all__ = ["sympy_rational", "sympy_exact", "sympy_fraction", "mpf_fraction"]


def sympy_rational(x) -> sp.Rational:
    """A SymPy ``Rational`` equal to an exact number or to a float's exact binary value.

    Parameters
    ----------
    x : int, Fraction, str, float, flint.fmpq or sympy.Rational
        A float is taken at its exact binary value (never ``nsimplify``-ed or rounded); a
        ``"p/q"`` or decimal string is read exactly.

    Returns
    -------
    sympy.Rational
        p/q with the same value.
    """
    if isinstance(x, sp.Rational):
        return x
    if hasattr(x, "p") and hasattr(x, "q") and not isinstance(x, Fraction):
        return sp.Rational(int(x.p), int(x.q))
    import numpy as np

    f = Fraction(float(x)) if isinstance(x, (float, np.floating)) else Fraction(x)
    return sp.Rational(f.numerator, f.denominator)


def sympy_fraction(e) -> Fraction:
    """The exact ``Fraction`` of a SymPy rational number (rule: exact; a ``Float`` is refused).

    Parameters
    ----------
    e : sympy.Basic, int, Fraction or str
        Sympified first; it must then be a SymPy ``Rational`` (an ``Integer`` included).

    Returns
    -------
    Fraction
        p/q with the same value.

    Raises
    ------
    ValueError
        When ``e`` is not a rational number (a ``Float``, a symbol, an irrational constant, …).
    """
    e = sp.sympify(e)
    if not e.is_Rational:
        raise ValueError(f"expected an exact rational, got {e}")
    return Fraction(int(e.p), int(e.q))


def sympy_exact(expr):
    """The same SymPy expression (or matrix) with every ``Float`` replaced by its exact value.

    A SymPy ``Float`` is a binary number; ``sympy.Rational(Float)`` is its exact value (never
    the "nice" rational ``nsimplify`` guesses).  Exact atoms are left untouched.

    Parameters
    ----------
    expr : sympy.Basic or sympy.MatrixBase
        Any SymPy object.

    Returns
    -------
    sympy.Basic or sympy.MatrixBase
        ``expr`` with each Float atom f replaced by ``Rational(f)``.
    """
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(sympy_exact)
    floats = expr.atoms(sp.Float) if isinstance(expr, sp.Basic) else ()
    return expr.xreplace({f: sp.Rational(f) for f in floats}) if floats else expr


def mpf_fraction(x) -> Fraction:
    """The exact rational value of an mpmath (or SymPy) binary float (rule: exact binary value).

    An ``mpf`` is read as it is, at its own precision (never re-rounded to the working
    precision: wrap it in ``mpmath.mpf(x)`` first for that); a SymPy ``Float`` or any other
    number is first made an ``mpf`` at the working precision.

    Parameters
    ----------
    x : mpmath.mpf, sympy.Float or number
        A binary floating-point number m·2^e (anything ``mpmath.mpf`` accepts).

    Returns
    -------
    Fraction
        (−1)^sign · m · 2^e exactly (no decimal rounding); 0 when the mantissa is 0.
    """
    if isinstance(x, sp.Float):
        x = mpmath.mpf(x._mpf_)
    elif not isinstance(x, mpmath.mpf):
        x = mpmath.mpf(x)
    sign, man, exp, _ = x._mpf_
    if not man:
        return Fraction(0)
    return (-1) ** sign * Fraction(int(man)) * (Fraction(2) ** int(exp))
