"""Exact parsing of user numbers.

Rule (docs/architecture.md): exact in, exact decided.  ``"0.1"`` is 1/10, ``"2/3"`` is 2/3, an
integer is itself, and a float is its *exact binary value* (``0.1`` as a float is
3602879701896397/36028797018963968).  NaN and infinities are rejected.  Never ``nsimplify``.

A float whose exact binary value differs from the shortest decimal that prints as it (``0.1``,
``1/3`` computed in floats; not ``0.5`` or ``2.0``) announces itself: a
:class:`~symbolic_tf.spec.errors.FloatReadWarning`, once per distinct value in a process, shows
the value used and suggests the string to write (``"0.1"`` or ``"1/10"``).  Code of the package
that passes floats on purpose (float guesses, cell centres, numeric results) reads them inside
:func:`floats_read_silently`, or converts them first with the gateway's named rule
(:func:`symbolic_tf.exact.rational.float_fraction`).

Limits (:mod:`symbolic_tf.spec.limits`): a numerator or denominator has at most
``MAX_DIGITS`` digits, as written and as a value; a decimal exponent is at most
``MAX_DECIMAL_EXPONENT`` in absolute value.  Both are checked before any big number is built.
"""
from __future__ import annotations

import math
import sys
import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, Sequence

from .errors import FloatReadWarning, InvalidParameters
from .limits import MAX_DECIMAL_EXPONENT, MAX_DIGITS, brief, int_digits_exceed
from ..exact.rational import decimal_fraction, float_fraction, fraction_of, frac_str

__all__ = ["as_lists", "floats_read_silently", "to_fraction", "to_vector", "to_matrix", "parse_rational_str", "Matrix", "Vector"]

Vector = tuple  # tuple[Fraction, ...]
Matrix = tuple  # tuple[tuple[Fraction, ...], ...]

#: floats already announced in this process (each distinct value is announced once)
_ANNOUNCED: set = set()
#: True inside :func:`floats_read_silently` (a context variable: per thread and per task)
_SILENT: ContextVar[bool] = ContextVar("symbolic_tf_floats_read_silently", default=False)
#: the package's folder: a warning points at the first caller outside it
_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)


@contextmanager
def floats_read_silently() -> Iterator[None]:
    """Read floats as their exact binary value without a :class:`FloatReadWarning`.

    For code of the package that passes floats on purpose (a float guess turned into exact
    data, a cell centre, a numeric result); the value read is the same, x = m·2^e exactly.

    Yields
    ------
    None
        Inside the block, :func:`to_fraction` announces no float.
    """
    token = _SILENT.set(True)
    try:
        yield
    finally:
        _SILENT.reset(token)


def _announce(value: float, exact: Fraction, field: str) -> None:
    """Warn once per distinct float whose binary value is not its shortest decimal."""
    if _SILENT.get() or value in _ANNOUNCED:
        return
    written = decimal_fraction(value)  # the shortest decimal that rounds back to the float
    if written == exact:  # 0.5, 2.0, 0.375: the decimal is the binary value, nothing to say
        return
    _ANNOUNCED.add(value)
    level, frame = 2, sys._getframe(1)  # point at the first caller outside the package
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    warnings.warn(FloatReadWarning(field, value, exact, repr(value), frac_str(written)), stacklevel=level)


def to_fraction(value: Any, field: str) -> Fraction:
    """Parse one number exactly.

    Parameters
    ----------
    value : int, float, str or Fraction
        ``"p/q"`` and decimal strings (``"1.5e-3"``) are exact; floats are exact dyadics
        (announced once by a :class:`~symbolic_tf.spec.errors.FloatReadWarning` when that
        dyadic is not the decimal the float prints as, outside :func:`floats_read_silently`).
    field : str
        Name used in the error message.

    Returns
    -------
    Fraction
        The exact value.
    """
    if isinstance(value, bool):
        raise InvalidParameters(field, f"expected a number, got a boolean {value!r}")
    if isinstance(value, Fraction):
        _check_size(value, field)
        return value
    if isinstance(value, int):
        if int_digits_exceed(value):
            raise InvalidParameters(field, f"an integer with more than {MAX_DIGITS} digits")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameters(field, f"not a finite number: {value!r}")
        value = float(value)  # numpy.float64 is a float subclass: its repr is not the decimal
        exact = float_fraction(value)  # the gateway's rule: the exact binary value of the double
        _announce(value, exact, field)
        return exact
    if isinstance(value, str):
        return parse_rational_str(value, field)
    if getattr(value, "is_Rational", False):  # SymPy Integer / Rational: exact
        return to_fraction(fraction_of(value), field)
    # numpy scalars and the like: accept real integer/float types via their Python value
    item = getattr(value, "item", None)
    if callable(item):
        try:
            inner = item()
        except (TypeError, ValueError):
            inner = None
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return to_fraction(inner, field)
    raise InvalidParameters(field, f"expected a number, got {type(value).__name__} {brief(value)}")


def as_lists(value: Any) -> Any:
    """numpy arrays and SymPy matrices → nested Python lists (their entries read exactly after).

    Parameters
    ----------
    value : object
        A list, tuple, string, numpy array, SymPy matrix or anything with ``tolist()``.

    Returns
    -------
    object
        Nested lists for array-likes; other values unchanged.
    """
    if isinstance(value, (list, tuple, str, bytes)):
        return value
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and getattr(value, "shape", None) is not None:
        try:
            return tolist()
        except (TypeError, ValueError):
            return value
    return value


def to_vector(value: Any, field: str, length: int | None = None) -> tuple:
    """Parse a list of numbers into a tuple of Fractions, checking its length.

    A numpy array or SymPy matrix (any object with ``tolist`` and ``shape``) is read as its
    list; such a column or row (d×1, 1×d) is flattened.  Floats are read exactly (their binary value).

    Parameters
    ----------
    value : sequence of numbers, or array-like
        The entries.
    field : str
        Name used in error messages (entries as ``field[i]``).
    length : int, optional
        The required length.

    Returns
    -------
    tuple of Fraction
        The exact entries.
    """
    array = not isinstance(value, (list, tuple, str, bytes))
    value = as_lists(value)
    if array and isinstance(value, list) and value and all(isinstance(r, list) and len(r) == 1 for r in value):
        value = [r[0] for r in value]  # a column vector (numpy / SymPy d×1)
    elif array and isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]  # a row vector (1×d)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidParameters(field, f"expected a list of numbers, got {type(value).__name__}")
    out = tuple(to_fraction(v, f"{field}[{i}]") for i, v in enumerate(value))
    if length is not None and len(out) != length:
        raise InvalidParameters(field, f"expected length {length}, got {len(out)}")
    return out


def to_matrix(value: Any, field: str, shape: tuple[int | None, int | None] = (None, None)) -> tuple:
    """Parse a list of rows into a tuple of tuples of Fractions, checking the shape.

    A scalar is accepted for a 1x1 shape.  ``shape`` entries may be ``None`` (free).  numpy
    arrays and SymPy matrices are read through their nested lists, every entry exactly.

    Parameters
    ----------
    value : list of rows, array-like or number
        The matrix (a scalar only for shape 1×1).
    field : str
        Name used in error messages (entries as ``field[i][j]``).
    shape : (int or None, int or None)
        Required numbers of rows and columns; None leaves one free.

    Returns
    -------
    tuple of tuple of Fraction
        The exact rows.
    """
    value = as_lists(value)
    rows_expected, cols_expected = shape
    if not isinstance(value, (list, tuple)):
        if rows_expected == 1 and cols_expected == 1:
            return ((to_fraction(value, field),),)
        raise InvalidParameters(field, f"expected a matrix (list of rows), got {type(value).__name__}")
    if len(value) == 0:
        raise InvalidParameters(field, "empty matrix")
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, (list, tuple)):
            raise InvalidParameters(field, f"row {i} is not a list (a matrix is a list of rows)")
        rows.append(tuple(to_fraction(v, f"{field}[{i}][{j}]") for j, v in enumerate(row)))
    ncols = len(rows[0])
    if ncols == 0 or any(len(r) != ncols for r in rows):
        raise InvalidParameters(field, "rows have different lengths or are empty")
    if rows_expected is not None and len(rows) != rows_expected or (
        cols_expected is not None and ncols != cols_expected
    ):
        want = f"{rows_expected if rows_expected is not None else 'k'}x{cols_expected if cols_expected is not None else 'k'}"
        raise InvalidParameters(field, f"expected shape {want}, got {len(rows)}x{ncols}")
    return tuple(rows)


def _check_size(q: Fraction, field: str) -> None:
    if int_digits_exceed(q.numerator) or int_digits_exceed(q.denominator):
        raise InvalidParameters(field, f"numerator or denominator has more than {MAX_DIGITS} digits")


def parse_rational_str(value: str, field: str) -> Fraction:
    """Parse ``"p/q"``, an integer or a decimal string (``"1.5e-3"``) exactly, within limits.

    The digits of the numerator, denominator or mantissa (at most ``MAX_DIGITS``) and the
    exponent (at most ``MAX_DECIMAL_EXPONENT`` in absolute value) are checked on the text
    before ``Fraction`` builds anything; the value's numerator and denominator are checked
    after.  Raises :class:`InvalidParameters` (one line, starting with ``field``).

    Parameters
    ----------
    value : str
        The text.
    field : str
        Name used in the error message.

    Returns
    -------
    Fraction
        The exact value.
    """
    if not isinstance(value, str):
        raise InvalidParameters(field, f"expected a number as a string, got {type(value).__name__}")
    text = value.strip()
    if len(text) > 2 * MAX_DIGITS + 32:
        raise InvalidParameters(field, f"number too long: {len(text)} characters "
                                f"(at most {MAX_DIGITS} digits per numerator/denominator)")
    low = text.lower().lstrip("+-")
    if low in ("nan", "inf", "infinity") or not text:
        raise InvalidParameters(field, f"not a finite number: {brief(value)}")
    num, slash, den = low.partition("/")
    mant, sep, expo = num.partition("e")
    for part in (mant, den):
        if sum(c.isdigit() for c in part) > MAX_DIGITS:
            raise InvalidParameters(field, f"more than {MAX_DIGITS} digits in {brief(value)}")
    if sep and not slash:
        e = expo.strip().lstrip("+-").replace("_", "")
        if e.isdigit() and (len(e.lstrip("0")) > len(str(MAX_DECIMAL_EXPONENT)) or int(e) > MAX_DECIMAL_EXPONENT):
            # "1e1000000000" would build a 10^(10^9) integer: refuse instead of hanging
            raise InvalidParameters(field, f"decimal exponent too large in {brief(value)} "
                                    f"(|exponent| ≤ {MAX_DECIMAL_EXPONENT})")
    try:
        q = Fraction(text)
    except ZeroDivisionError:
        raise InvalidParameters(field, f"zero denominator in {brief(value)}") from None
    except ValueError:
        raise InvalidParameters(
            field, f"cannot read {brief(value)} as a number (use an integer, 'p/q' or a decimal)"
        ) from None
    _check_size(q, field)
    return q
