"""Ball (arb) enclosures of exact SymPy numbers, to *decide* signs of non-rational constants.

Only the operations that occur in closure witnesses are supported (rationals, +, ×, integer
and half-integer powers, exp, log, π, e).  Anything else raises ``TypeError`` so a caller
returns UNDECIDED rather than guessing.
"""
from __future__ import annotations

import sympy as sp

from ..exact.precision import working_precision

__all__ = ["to_arb", "sign_of", "arb_to_pair"]


def to_arb(expr, prec: int = 256):
    """Enclose a closed-form real SymPy number in an ``flint.arb`` ball.

    Parameters
    ----------
    expr : sympy.Expr or number
        A closed-form real number (rationals, radicals, exp/log, ...).
    prec : int
        The working precision in bits.

    Returns
    -------
    flint.arb
        A ball containing the value (TypeError for an unsupported expression).
    """
    import flint

    with working_precision(prec):
        return _walk(sp.sympify(expr), flint)


def _walk(e, flint):
    arb = flint.arb
    if e.is_Rational:
        return arb(int(e.p)) / int(e.q)
    if e is sp.pi:
        return arb.pi()
    if e is sp.E:
        return arb(1).exp()
    if isinstance(e, sp.Add):
        out = arb(0)
        for a in e.args:
            out += _walk(a, flint)
        return out
    if isinstance(e, sp.Mul):
        out = arb(1)
        for a in e.args:
            out *= _walk(a, flint)
        return out
    if isinstance(e, sp.Pow):
        base = _walk(e.base, flint)
        ex = e.exp
        if ex.is_Integer:
            n = int(ex)
            return base ** n if n >= 0 else 1 / base ** (-n)
        if ex.is_Rational and ex.q == 2:
            root = base.sqrt()
            n = int(ex.p)
            return root ** n if n >= 0 else 1 / root ** (-n)
        raise TypeError(f"unsupported power {e}")
    if isinstance(e, sp.exp):
        return _walk(e.args[0], flint).exp()
    if isinstance(e, sp.log):
        return _walk(e.args[0], flint).log()
    raise TypeError(f"cannot enclose {type(e).__name__}: {e}")


def sign_of(expr) -> int | None:
    """+1, −1 or 0 if decided exactly/by a ball excluding 0; ``None`` if undecided.

    Parameters
    ----------
    expr : sympy.Expr or number
        A closed-form real number.

    Returns
    -------
    int or None
        The sign, or None.
    """
    e = sp.sympify(expr)
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    try:
        ball = to_arb(e)
    except TypeError:
        return None
    if ball > 0:
        return 1
    if ball < 0:
        return -1
    return None


def arb_to_pair(ball) -> list[str]:
    """[midpoint, radius] as decimal strings (the radius rounded up by arb).

    Parameters
    ----------
    ball : flint.arb
        The ball.

    Returns
    -------
    list of str
        [midpoint (30 digits), radius (5 digits)].
    """
    return [ball.mid().str(30, radius=False), ball.rad().str(5, radius=False)]
