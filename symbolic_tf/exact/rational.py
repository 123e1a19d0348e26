"""Exact rationals: conversions between Python ``Fraction``, python-flint ``fmpq``/``fmpq_mat``,
SymPy ``Rational``, ``"p/q"`` strings and floats.

A float becomes a rational by its *exact* binary value (``Fraction(0.1)`` is
3602879701896397/36028797018963968, not 1/10): :func:`Q` and :func:`float_fraction` never
round.  Short dyadic roundings (:func:`dyadic`, :func:`round_out`) are explicit and named.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # flint and numpy are imported where used: spec/ imports this module and stays light
    import flint
    import numpy as np

__all__ = ["parse_frac", "frac_str", "float_fraction", "sympy_rational", "sympy_exact", "Q", "qmat", "qmat_to_fractions",
           "qmat_to_float", "dyadic", "dyadic_matrix_str", "round_out"]


def parse_frac(s) -> Fraction:
    """An exact ``Fraction`` from a ``"p/q"`` string, an int or a ``Fraction``.

    Parameters
    ----------
    s : str, int or Fraction
        ``"p/q"``, ``"p"`` or a decimal string (``"0.1"`` is 1/10), an int, or a Fraction
        (returned as is).

    Returns
    -------
    Fraction
        The same number, exactly.
    """
    return Fraction(s) if not isinstance(s, Fraction) else s


def frac_str(q) -> str:
    """The exact ``"p/q"`` string (``"p"`` for an integer) of a rational.

    Parameters
    ----------
    q : int, Fraction, flint.fmpq or sympy.Rational
        An exact rational (anything with integer ``p``, ``q`` attributes, or accepted by
        ``Fraction``).

    Returns
    -------
    str
        ``"p/q"`` in lowest terms with q > 0, or ``"p"`` when q = 1.
    """
    if hasattr(q, "p") and hasattr(q, "q") and not isinstance(q, Fraction):
        q = Fraction(int(q.p), int(q.q))
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def float_fraction(x: float) -> Fraction:
    """The exact value of a finite float as a ``Fraction`` (its binary value, no rounding).

    Parameters
    ----------
    x : float
        A finite float (a NumPy float is accepted).

    Returns
    -------
    Fraction
        m·2^e exactly, e.g. ``float_fraction(0.1) == Fraction(3602879701896397, 2**55)``.
    """
    return Fraction(float(x))


def sympy_rational(x):
    """A SymPy ``Rational`` equal to an exact number or to a float's exact binary value.

    Parameters
    ----------
    x : int, Fraction, float, flint.fmpq or sympy.Rational
        A float is taken at its exact binary value (never ``nsimplify``-ed or rounded).

    Returns
    -------
    sympy.Rational
        p/q with the same value.
    """
    import sympy as sp

    if isinstance(x, sp.Rational):
        return x
    if hasattr(x, "p") and hasattr(x, "q") and not isinstance(x, Fraction):
        return sp.Rational(int(x.p), int(x.q))
    import numpy as np

    f = Fraction(float(x)) if isinstance(x, (float, np.floating)) else Fraction(x)
    return sp.Rational(f.numerator, f.denominator)


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
    import sympy as sp

    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(sympy_exact)
    floats = expr.atoms(sp.Float) if isinstance(expr, sp.Basic) else ()
    return expr.xreplace({f: sp.Rational(f) for f in floats}) if floats else expr


def Q(x) -> flint.fmpq:
    """An exact flint rational.

    Parameters
    ----------
    x : int, Fraction, str, float, flint.fmpq or sympy.Rational
        ``"p/q"`` strings are parsed exactly; a float is taken at its exact binary value.

    Returns
    -------
    flint.fmpq
        The same number.
    """
    import flint

    if isinstance(x, flint.fmpq):
        return x
    if isinstance(x, str):
        x = Fraction(x)
    if hasattr(x, "p") and hasattr(x, "q") and not isinstance(x, Fraction):  # sympy Rational
        return flint.fmpq(int(x.p), int(x.q))
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def qmat(M) -> flint.fmpq_mat:
    """An exact ``fmpq_mat`` from nested sequences of exact numbers.

    Parameters
    ----------
    M : flint.fmpq_mat, nested sequence or array-like with ``tolist``
        Entries accepted by :func:`Q`.  An ``fmpq_mat`` is returned as is.

    Returns
    -------
    flint.fmpq_mat
        The matrix, entry by entry exact.
    """
    import flint

    if isinstance(M, flint.fmpq_mat):
        return M
    if hasattr(M, "tolist") and not isinstance(M, (list, tuple)):
        M = M.tolist()
    rows = [[Q(e) for e in r] for r in M]
    return flint.fmpq_mat(len(rows), len(rows[0]) if rows else 0, [e for r in rows for e in r])


def qmat_to_fractions(M: flint.fmpq_mat) -> tuple:
    """A flint rational matrix as a tuple of tuples of ``Fraction``.

    Parameters
    ----------
    M : flint.fmpq_mat
        An exact matrix.

    Returns
    -------
    tuple of tuple of Fraction
        Row by row, the same entries.
    """
    return tuple(tuple(Fraction(int(M[i, j].p), int(M[i, j].q)) for j in range(M.ncols()))
                 for i in range(M.nrows()))


def qmat_to_float(M) -> np.ndarray:
    """The float matrix nearest (entry by entry, p/q rounded once) to an exact matrix.

    A float *guess* for numerics, never used to decide.

    Parameters
    ----------
    M : flint.fmpq_mat
        An exact matrix.

    Returns
    -------
    numpy.ndarray
        Its entries as floats, shape (nrows, ncols).
    """
    import numpy as np

    return np.array([[int(M[i, j].p) / int(M[i, j].q) for j in range(M.ncols())] for i in range(M.nrows())])


def dyadic(x: float, bits: int = 50) -> Fraction:
    """A short dyadic rational near a float: its mantissa rounded to ``bits`` bits.

    Used to turn float guesses into exact data of moderate size (a checker then verifies them).

    Parameters
    ----------
    x : float
        The float guess; 0 and non-finite values give 0.
    bits : int
        Mantissa bits kept (the relative rounding error is at most 2^-bits).

    Returns
    -------
    Fraction
        round(m·2^bits)·2^(e−bits) where x = m·2^e, ½ ≤ |m| < 1.
    """
    if x == 0 or not math.isfinite(x):
        return Fraction(0)
    mnt, e = math.frexp(x)
    return Fraction(round(mnt * (1 << bits))) * Fraction(2) ** (e - bits)


def dyadic_matrix_str(M) -> list:
    """``"p/q"`` strings of the :func:`dyadic` roundings (50 bits) of a float matrix.

    Parameters
    ----------
    M : array-like
        A float matrix (rows of numbers).

    Returns
    -------
    list of list of str
        ``frac_str(dyadic(float(x)))`` entry by entry.
    """
    return [[frac_str(dyadic(float(x))) for x in row] for row in M]


def round_out(q, up: bool, bits: int = 64) -> Fraction:
    """A short dyadic rational ≥ q (``up``) or ≤ q (not ``up``).

    Parameters
    ----------
    q : flint.fmpq
        The exact rational to round.
    up : bool
        Round toward +∞ (True) or −∞ (False).
    bits : int
        About ``bits`` significant bits are kept: the step is 2^(⌊log2|q|⌋ − bits).

    Returns
    -------
    Fraction
        A dyadic bound on q in the requested direction (q itself when q = 0).
    """
    f = Fraction(int(q.p), int(q.q))
    if f == 0:
        return f
    e = math.floor(math.log2(abs(f))) - bits
    scale = Fraction(2) ** e
    k = f / scale
    n = math.ceil(k) if up else math.floor(k)
    return n * scale
