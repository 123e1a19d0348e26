"""Input limits: the one place where the size of what a user may feed in is bounded.

Rule (docs/architecture.md): inputs have limits (digits, exponents, nesting, file size, dimension)
checked where they are read; a hostile file gets one line and exit status 2, never a hang or
a traceback.  Every reader of a user file goes through :func:`read_text_file` and
:func:`load_json_text` / :func:`load_toml_text`; every user number goes through
:mod:`symbolic_tf.spec.rational`, which applies :data:`MAX_DIGITS` and
:data:`MAX_DECIMAL_EXPONENT`.  The checks take time proportional to the size of the input.
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

from .errors import ProblemFileError

__all__ = [
    "MAX_FILE_BYTES", "MAX_MAP_FILE_BYTES", "MAX_DEPTH", "MAX_NODES", "MAX_STRING_CHARS",
    "MAX_DIGITS", "MAX_INT_BITS", "MAX_DECIMAL_EXPONENT", "MAX_DIM", "MAX_TOKENS",
    "read_text_file", "load_json_text", "load_toml_text", "check_json_limits", "int_digits_exceed", "brief",
]

MAX_FILE_BYTES = 8 * 2**20
"""Largest problem, spec, conjecture, target or certificate file: 8 MiB."""

MAX_MAP_FILE_BYTES = 64 * 2**20
"""Largest regime-map file (``map.json`` holds one certificate per cell): 64 MiB."""

MAX_DEPTH = 64
"""Deepest nesting of arrays/tables/objects in a JSON or TOML document."""

MAX_NODES = 4_000_000
"""Most values (containers, keys excluded, plus scalars) in one decoded document."""

MAX_STRING_CHARS = 1_000_000
"""Longest string value or key in a decoded document."""

MAX_DIGITS = 2000
"""Most decimal digits of an integer, or of the numerator or denominator of an exact rational
(written ``"p/q"``, as a decimal mantissa, or as the value that results).  A run of more
digits inside any string of a document is refused when the document is read."""

MAX_INT_BITS = math.ceil(MAX_DIGITS * math.log2(10))
"""Bits of the largest integer with :data:`MAX_DIGITS` digits (a cheap pre-check)."""

MAX_DECIMAL_EXPONENT = 9999
"""Largest |exponent| of a decimal string such as ``"1.5e-3"`` (four digits: ``"1e1000000000"``
would otherwise build a 10^(10^9) integer).  The value must still fit :data:`MAX_DIGITS`."""

MAX_DIM = 64
"""Largest token dimension ``d`` of a problem (matrices are d×d, decided exactly)."""

MAX_TOKENS = 10**7
"""Most tokens (samples) a command-line option may ask to simulate (``--N``, ``--tokens``,
``--samples``): beyond this the arrays alone would not fit in memory."""

_DIGIT_RUN = re.compile(r"[0-9]+")
_JSON_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class _Constant(Exception):
    """Raised by the JSON decoder hook on NaN/Infinity (turned into a located error)."""


def _constant_error(text: str, name: str, what: str) -> ProblemFileError:
    """A one-line error for a NaN/Infinity literal, located by a linear scan that skips strings."""
    where = ""
    for m in _JSON_CONSTANT.finditer(text):
        if m.group(1):
            line = text.count("\n", 0, m.start(1)) + 1
            col = m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1) + 1
            where = f" at line {line}, column {col}"
            break
    return ProblemFileError(f"{what}: invalid JSON{where}: {name} is not a number (JSON numbers must be finite)")


def brief(value, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for one-line error messages about
    user input (a hostile value may be megabytes long).

    Parameters
    ----------
    value : object
        Any user value.
    limit : int
        The target length in characters.

    Returns
    -------
    str
        A short repr (huge integers as their digit count, long strings with their length).
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    if isinstance(value, str) and len(value) > 4 * limit:
        return repr(value[:2 * limit])[:limit] + f"… ({len(value)} characters)"
    if isinstance(value, (list, tuple, dict)):
        text = _container_repr(value, limit)
        return text if len(text) <= limit else text[:limit] + "…"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def _container_repr(value, limit: int) -> str:
    """repr of a (possibly huge, deeply nested) container, never building more than ~limit chars."""
    out, stack, size = [], [value], 0
    while stack and size <= limit:
        node = stack.pop()
        if isinstance(node, str) and node in ("]", "}", ", "):
            piece = node
        elif isinstance(node, (list, tuple)):
            piece = "["
            stack.append("]")
            for i, v in enumerate(reversed(node[: limit])):
                stack.append(v)
                if i < min(len(node), limit) - 1:
                    stack.append(", ")
        elif isinstance(node, dict):
            piece = "{"
            stack.append("}")
            items = list(node.items())[: limit]
            for i, (k, v) in enumerate(reversed(items)):
                stack.append(v)
                stack.append(_Key(k))
                if i < len(items) - 1:
                    stack.append(", ")
        elif isinstance(node, _Key):
            piece = repr(node.k)[:limit] + ": "
        else:
            piece = brief(node, limit)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    return text if not stack else text + "…"


class _Key:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def int_digits_exceed(n: int, max_digits: int = MAX_DIGITS) -> bool:
    """True when ``|n|`` has more than ``max_digits`` decimal digits (no quadratic ``str``).

    Parameters
    ----------
    n : int
        The integer.
    max_digits : int
        The limit.

    Returns
    -------
    bool
        Whether n has more than ``max_digits`` decimal digits.
    """
    bits = abs(n).bit_length()
    limit = math.ceil(max_digits * math.log2(10))
    if bits <= limit - 4:
        return False
    if bits > limit + 4:
        return True
    return len(str(abs(n))) > max_digits  # near the boundary: the number is small, str is cheap


def read_text_file(path: str | Path, what: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """Read a UTF-8 text file of at most ``max_bytes`` bytes.

    The size is checked with ``os.stat`` before reading, and at most ``max_bytes + 1`` bytes
    are ever read (so ``/dev/zero`` or a growing file cannot exhaust memory).  A leading
    byte-order mark is dropped.

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        What the file is, for error messages.
    max_bytes : int
        The size limit.

    Returns
    -------
    str
        The decoded text (without a byte-order mark).

    Raises
    ------
    ProblemFileError
        One line: missing/unreadable file, a directory, too large, not valid UTF-8.
    """
    label = f"{what} {str(path)!r}"
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise ProblemFileError(f"cannot read {label}: it is a directory")
        if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
            raise ProblemFileError(f"cannot read {label}: {st.st_size} bytes is too large "
                                   f"(at most {max_bytes} bytes)")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise ProblemFileError(f"cannot read {label}: {exc.strerror or exc}") from None
    except ValueError as exc:  # e.g. an embedded NUL byte in the path
        raise ProblemFileError(f"cannot read {label}: {exc}") from None
    if len(data) > max_bytes:
        raise ProblemFileError(f"cannot read {label}: too large (at most {max_bytes} bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProblemFileError(f"{path}: not valid UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text[1:] if text.startswith("\ufeff") else text


def _hooks(what: str):
    def parse_int(s: str) -> int:
        digits = len(s) - (s[0] in "+-")
        if digits > MAX_DIGITS:
            raise ProblemFileError(f"{what}: an integer literal has {digits} digits (at most {MAX_DIGITS})")
        return int(s)

    def parse_float(s: str) -> float:
        if len(s) > MAX_DIGITS + 16:
            raise ProblemFileError(f"{what}: a number literal has {len(s)} characters (at most {MAX_DIGITS})")
        x = float(s)
        if not math.isfinite(x):
            raise ProblemFileError(f"{what}: the number {s[:40]} overflows a float (write exact "
                                   "values as strings: \"p/q\" or a decimal)")
        return x

    def parse_constant(s: str):
        raise _Constant(s)

    return parse_int, parse_float, parse_constant


def load_json_text(text: str, what: str, *, limits: bool = True) -> object:
    """Decode JSON text with the project's limits.

    Integer literals longer than :data:`MAX_DIGITS` digits, float literals that overflow,
    ``NaN``/``Infinity``, nesting deeper than :data:`MAX_DEPTH` and syntax errors all raise
    one-line :class:`ProblemFileError` (syntax errors with line and column).  Then
    :func:`check_json_limits` walks the result (unless ``limits=False``).

    Parameters
    ----------
    text : str
        The JSON text.
    what : str
        The document's name, for error messages.
    limits : bool
        Whether to run :func:`check_json_limits` on the result.

    Returns
    -------
    object
        The decoded value (floats exact in their binary value).
    """
    parse_int, parse_float, parse_constant = _hooks(what)
    try:
        obj = json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except json.JSONDecodeError as exc:
        raise ProblemFileError(f"{what}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ProblemFileError(f"{what}: JSON nested too deeply (at most {MAX_DEPTH} levels)") from None
    except _Constant as exc:
        raise _constant_error(text, str(exc), what) from None
    except ValueError as exc:  # int() digit limit of Python itself, or any other literal error
        raise ProblemFileError(f"{what}: invalid JSON: {str(exc).split(';')[0]}") from None
    if limits:
        check_json_limits(obj, what)
    return obj


def load_toml_text(text: str, what: str) -> dict:
    """Decode TOML text with the project's limits (see :func:`load_json_text`).

    TOML's own ``inf``/``nan`` are kept as floats (the number parser names the field that
    holds them); integers longer than Python's 4300-digit conversion limit, too-deep nesting
    and syntax errors raise one-line :class:`ProblemFileError`.

    Parameters
    ----------
    text : str
        The TOML text.
    what : str
        The document's name, for error messages.

    Returns
    -------
    dict
        The decoded table.
    """
    import tomllib

    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProblemFileError(f"{what}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ProblemFileError(f"{what}: invalid TOML: nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # Python's int() refuses > 4300 digits
        raise ProblemFileError(f"{what}: invalid TOML: {str(exc).split(';')[0]}") from None
    check_json_limits(obj, what)
    return obj


def check_json_limits(obj: object, what: str) -> None:
    """Walk a decoded document iteratively and refuse what exceeds the limits.

    Depth (:data:`MAX_DEPTH`), number of values (:data:`MAX_NODES`), string length
    (:data:`MAX_STRING_CHARS`), digits of integers and digit runs inside strings
    (:data:`MAX_DIGITS`).  Time is linear in the size of the document.

    Parameters
    ----------
    obj : object
        A decoded JSON/TOML value.
    what : str
        The document's name, for error messages.

    Raises
    ------
    ProblemFileError
        One line naming the limit.
    """
    stack = [(obj, 1)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise ProblemFileError(f"{what}: more than {MAX_NODES} values")
        if isinstance(node, dict):
            if depth > MAX_DEPTH:
                raise ProblemFileError(f"{what}: nested too deeply (at most {MAX_DEPTH} levels)")
            for k, v in node.items():
                if isinstance(k, str):
                    _check_string(k, what)
                stack.append((v, depth + 1))
        elif isinstance(node, (list, tuple)):
            if depth > MAX_DEPTH:
                raise ProblemFileError(f"{what}: nested too deeply (at most {MAX_DEPTH} levels)")
            stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, str):
            _check_string(node, what)
        elif isinstance(node, int) and not isinstance(node, bool):
            if int_digits_exceed(node):
                raise ProblemFileError(f"{what}: an integer has more than {MAX_DIGITS} digits")


def _check_string(s: str, what: str) -> None:
    if len(s) > MAX_STRING_CHARS:
        raise ProblemFileError(f"{what}: a string of {len(s)} characters (at most {MAX_STRING_CHARS})")
    if len(s) > MAX_DIGITS:
        for m in _DIGIT_RUN.finditer(s):
            if m.end() - m.start() > MAX_DIGITS:
                raise ProblemFileError(f"{what}: a number with {m.end() - m.start()} digits "
                                       f"(at most {MAX_DIGITS})")
