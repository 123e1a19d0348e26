"""Declarative schemas of certificate data: field types and size limits, checked before any
arithmetic so that a hostile file is refused in time proportional to its size.

A schema is a dict ``{field: type}``; a field name ending in ``?`` is optional.  Types:

``"rat"``        a rational as an int or a string ``"p"`` / ``"p/q"`` (each part at most
                 :data:`MAX_DIGITS` digits; no exponents, no decimals)
``"int"``        an integer with |n| ≤ 10⁹
``"str"``        a string of at most 4096 characters
``"bool"``       true / false
``"rat[]"``      a list of rationals; ``"rat[][]"`` a matrix (rows of equal length)
``"int[]"``      a list of integers
``"str[]"``      a list of strings
``"obj"``        an object (its content checked by the kind's checker)
``"obj[]"``      a list of objects
``"any"``        anything JSON (bounded by the file limits)
a dict           a nested object with its own schema
a tuple          ``("enum", a, b, …)`` one of the given strings

Lists hold at most :data:`MAX_LIST` entries.  Unknown fields are refused: a certificate says
exactly what its kind declares.
"""
from __future__ import annotations

import re

from ...spec.errors import CertificationFailed

__all__ = ["validate", "parse_rat", "MAX_DIGITS", "MAX_LIST"]

MAX_DIGITS = 4000
MAX_LIST = 50000  # the longest stored tubes (the d = 3 chart kinds) have up to 50 000 steps
_RAT = re.compile(r"-?[0-9]{1,%d}(/[0-9]{1,%d})?" % (MAX_DIGITS, MAX_DIGITS))


def _fail(where, msg):
    raise CertificationFailed(f"certificate data: {where}: {msg}")


def parse_rat(x, where: str = "value"):
    """An exact rational (``fractions.Fraction``) from a schema-valid value, with limits.

    Parameters
    ----------
    x : int or str
        An integer or a ``"p/q"`` string.
    where : str
        The field's path, for the error message.

    Returns
    -------
    Fraction
        The exact value (CertificationFailed on a malformed or oversized value).
    """
    from fractions import Fraction

    from ...exact.rational import parse_frac

    if isinstance(x, bool):
        _fail(where, "expected a rational, got a boolean")
    if isinstance(x, int):
        if x.bit_length() > 3.33 * MAX_DIGITS:
            _fail(where, "integer too large")
        return Fraction(x)
    if not isinstance(x, str) or len(x) > 2 * MAX_DIGITS + 2 or not _RAT.fullmatch(x):
        _fail(where, f"expected a rational 'p/q', got {str(x)[:40]!r}")
    p, _, q = x.partition("/")
    if q and int(q) == 0:
        _fail(where, "zero denominator")
    return parse_frac(x)


def _check(value, typ, where):
    if isinstance(typ, dict):
        if not isinstance(value, dict):
            _fail(where, "expected an object")
        validate(value, typ, where)
        return
    if isinstance(typ, tuple) and typ and typ[0] == "enum":
        if value not in typ[1:]:
            _fail(where, f"must be one of {', '.join(map(str, typ[1:]))}")
        return
    if typ == "any":
        return
    if typ == "rat":
        parse_rat(value, where)
    elif typ == "int":
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**9:
            _fail(where, "expected an integer")
    elif typ == "str":
        if not isinstance(value, str) or len(value) > 4096:
            _fail(where, "expected a (short) string")
    elif typ == "bool":
        if not isinstance(value, bool):
            _fail(where, "expected true or false")
    elif typ == "obj":
        if not isinstance(value, dict):
            _fail(where, "expected an object")
    elif typ.endswith("[]"):
        if not isinstance(value, list):
            _fail(where, "expected a list")
        if len(value) > MAX_LIST:
            _fail(where, f"list longer than {MAX_LIST}")
        inner = typ[:-2]
        if inner.endswith("[]") and value:
            lens = {len(r) if isinstance(r, list) else -1 for r in value}
            if len(lens) != 1 or -1 in lens:
                _fail(where, "rows must be lists of equal length")
        for i, v in enumerate(value):
            _check(v, inner, f"{where}[{i}]")
    else:  # pragma: no cover - a schema bug, not user input
        raise ValueError(f"unknown schema type {typ!r}")


def validate(data, schema: dict, where: str = "data") -> None:
    """Check ``data`` against ``schema`` (raises :class:`CertificationFailed`).

    Parameters
    ----------
    data : dict
        The certificate's data.
    schema : dict
        Field name (``"name?"`` when optional) → type.
    where : str
        The path, for error messages.
    """
    if not isinstance(data, dict):
        _fail(where, "expected an object")
    fields = {k.rstrip("?"): (k.endswith("?"), t) for k, t in schema.items()}
    extra = [k for k in data if k not in fields]
    if extra:
        _fail(where, f"unknown field(s) {', '.join(sorted(map(str, extra)))[:200]}")
    for name, (optional, typ) in fields.items():
        if name not in data:
            if optional:
                continue
            _fail(where, f"missing field {name!r}")
        _check(data[name], typ, f"{where}.{name}")
