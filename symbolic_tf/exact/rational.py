"""The conversion gateway (exact side): ``"p/q"`` strings ↔ ``Fraction`` ↔ python-flint
``fmpq``/``fmpq_mat`` ↔ floats.  Conversions between these representations happen here and
nowhere else in the package; the SymPy side is :mod:`symbolic_tf.exact.sympy_bridge` (kept apart
so that the checker kernel, which imports this module, never imports SymPy).

Rules, each named by its function:

* exact ↔ exact (str, int, ``Fraction``, ``fmpq``, a SymPy ``Rational``): the same number, never
  rounded — :func:`parse_frac`, :func:`frac_str`, :func:`fraction_of`, :func:`fmpq_of`,
  :func:`fraction_vec`, :func:`fmpq_vec`, :func:`qcol`, :func:`qmat`, :func:`qmat_to_fractions`,
  :func:`qmat_str`.
* float → rational, four distinct rules: the *exact binary value* (:func:`float_fraction`,
  :func:`Q`, :func:`arb_mid_fraction` for a ball's midpoint; ``0.1`` is 3602879701896397/36028797018963968, not 1/10), the *shortest decimal*
  that prints as the float (:func:`decimal_fraction`; ``0.1`` is 1/10), the *nearest fraction
  with a bounded denominator* (:func:`nearest_fraction`), and short *dyadic roundings*
  (:func:`dyadic`, :func:`round_out`).
* rational → float: the nearest float, p/q rounded once (:func:`float_of`, :func:`qmat_to_float`);
  a guess for numerics, never used to decide.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # flint and numpy are imported where used: spec/ imports this module and stays light
    import flint
    import numpy as np

__all__ = ["parse_frac", "frac_str", "fraction_of", "fmpq_of", "fraction_vec", "fmpq_vec", "qcol", "float_fraction",
           "decimal_fraction", "nearest_fraction", "float_of", "Q", "qmat", "qmat_to_fractions", "qmat_str",
           "qmat_to_float", "arb_mid_fraction", "dyadic", "dyadic_matrix_str", "round_out"]


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
    q = fraction_of(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def fraction_of(x) -> Fraction:
    """A ``Fraction`` equal to an exact rational (rule: exact, never rounded).

    Parameters
    ----------
    x : int, Fraction, str, flint.fmpq or sympy.Rational
        Anything with integer ``p``, ``q`` attributes (``fmpq``, SymPy ``Rational``) is read
        as p/q; anything else goes through ``Fraction`` (``"p/q"`` and decimal strings are
        exact; a float would be taken at its exact binary value, as :func:`float_fraction`).

    Returns
    -------
    Fraction
        The same number (``x`` itself when it is a ``Fraction``).
    """
    if isinstance(x, Fraction):
        return x
    if hasattr(x, "p") and hasattr(x, "q"):
        return Fraction(int(x.p), int(x.q))
    return Fraction(x)


def fmpq_of(x) -> flint.fmpq:
    """A python-flint ``fmpq`` equal to an exact rational (rule: exact, never rounded).

    Parameters
    ----------
    x : int, Fraction, str, flint.fmpq or sympy.Rational
        An exact rational: a ``Fraction`` or int is read as numerator/denominator, an ``fmpq``
        is returned as is, a SymPy ``Rational`` is read as p/q, a ``"p/q"`` (or decimal)
        string is parsed exactly.  Floats are refused (use :func:`Q`, which names its rule).

    Returns
    -------
    flint.fmpq
        The same number.
    """
    import flint

    if isinstance(x, (Fraction, int)):
        return flint.fmpq(x.numerator, x.denominator)
    if isinstance(x, flint.fmpq):
        return x
    if isinstance(x, str):
        x = Fraction(x)
        return flint.fmpq(x.numerator, x.denominator)
    if hasattr(x, "p") and hasattr(x, "q"):
        return flint.fmpq(int(x.p), int(x.q))
    raise TypeError(f"not an exact rational: {x!r}")


def fraction_vec(v) -> tuple:
    """A vector of exact rationals as a tuple of ``Fraction`` (entry by entry :func:`fraction_of`).

    Parameters
    ----------
    v : iterable or flint.fmpq_mat
        Exact entries; an ``fmpq_mat`` column or row is read entry by entry.

    Returns
    -------
    tuple of Fraction
        The same entries.
    """
    if hasattr(v, "entries"):
        v = v.entries()
    return tuple(fraction_of(x) for x in v)


def fmpq_vec(v) -> list:
    """A vector of exact rationals as a list of ``fmpq`` (entry by entry :func:`fmpq_of`).

    Parameters
    ----------
    v : iterable
        Exact entries (int, Fraction, str, fmpq or SymPy Rational).

    Returns
    -------
    list of flint.fmpq
        The same entries.
    """
    return [fmpq_of(x) for x in v]


def qcol(v) -> flint.fmpq_mat:
    """A vector of exact rationals as an n × 1 ``fmpq_mat`` column.

    Parameters
    ----------
    v : sequence
        Exact entries (accepted by :func:`fmpq_of`).

    Returns
    -------
    flint.fmpq_mat
        The column, entry by entry exact.
    """
    import flint

    entries = fmpq_vec(v)
    return flint.fmpq_mat(len(entries), 1, entries)


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


def decimal_fraction(x: float) -> Fraction:
    """The shortest decimal that prints as a float, as a ``Fraction`` (``0.1`` gives 1/10).

    The rule ``Fraction(str(x))``: Python's ``repr`` of a float is the shortest decimal string
    that rounds back to it, so the result is a "round" rational near (not equal to) x.

    Parameters
    ----------
    x : float
        A finite float.

    Returns
    -------
    Fraction
        ``Fraction(str(x))``.
    """
    return Fraction(str(x))


def nearest_fraction(x, max_denominator: int) -> Fraction:
    """The closest rational with denominator at most ``max_denominator`` to x's exact value.

    The rule ``Fraction(x).limit_denominator(max_denominator)`` (continued fractions).

    Parameters
    ----------
    x : float, int or Fraction
        A float is first taken at its exact binary value.
    max_denominator : int
        The largest denominator allowed.

    Returns
    -------
    Fraction
        The best approximation of x with a bounded denominator.
    """
    return Fraction(x).limit_denominator(max_denominator)


def significant_fraction(x: float, digits: int = 12) -> Fraction:
    """x rounded to ``digits`` significant decimal digits, as a ``Fraction`` (a round guess near x).

    The rule: with e = ⌊log₁₀|x|⌋, the integer nearest to x·10^(digits − e), over 10^(digits − e).

    Parameters
    ----------
    x : float
        A finite float.
    digits : int
        Significant decimal digits kept.

    Returns
    -------
    Fraction
        0 for x = 0.
    """
    if x == 0:
        return Fraction(0)
    e = math.floor(math.log10(abs(x)))
    scale = 10 ** (digits - e)
    return Fraction(round(x * scale), scale) if scale >= 1 else Fraction(round(x * scale)) / scale


def float_of(x) -> float:
    """The float nearest to an exact rational (p/q rounded once, correctly).

    A float *guess* for numerics, never used to decide.

    Parameters
    ----------
    x : int, Fraction, flint.fmpq or sympy.Rational
        An exact rational.

    Returns
    -------
    float
        ``p / q`` with Python's correctly rounded integer division.
    """
    if hasattr(x, "p") and hasattr(x, "q") and not isinstance(x, Fraction):
        return int(x.p) / int(x.q)
    x = Fraction(x)
    return x.numerator / x.denominator


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
    return tuple(tuple(fraction_of(M[i, j]) for j in range(M.ncols())) for i in range(M.nrows()))


def qmat_str(M) -> list:
    """The ``"p/q"`` strings of an exact matrix, entry by entry (:func:`frac_str`).

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        Exact entries (``Fraction``, int, ``fmpq``, SymPy ``Rational``).

    Returns
    -------
    list of list of str
        Row by row, the same entries as ``"p/q"``.
    """
    if hasattr(M, "nrows") and hasattr(M, "ncols"):
        return [[frac_str(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]
    return [[frac_str(x) for x in row] for row in M]


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


def arb_mid_fraction(x) -> Fraction:
    """The exact value of an arb ball's midpoint (a binary float m·2^e) as a ``Fraction``.

    Parameters
    ----------
    x : flint.arb
        A ball; only its midpoint is read (the radius is ignored).

    Returns
    -------
    Fraction
        m·2^e exactly (rule: exact binary value, as :func:`float_fraction`).
    """
    m, e = x.mid().man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


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
    f = fraction_of(q)
    if f == 0:
        return f
    e = math.floor(math.log2(abs(f))) - bits
    scale = Fraction(2) ** e
    k = f / scale
    n = math.ceil(k) if up else math.floor(k)
    return n * scale
