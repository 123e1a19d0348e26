"""A precision context for python-flint (arb balls) and mpmath.

python-flint and mpmath keep their working precision in a process-global context
(``flint.ctx.prec``, ``mpmath.mp.prec``).  Setting it by hand and restoring it in a
``finally`` block is easy to get wrong; :func:`working_precision` does both.
"""
from __future__ import annotations

import contextlib
import math
from typing import Iterator

__all__ = ["working_precision", "bits_of_digits"]


def bits_of_digits(dps: int) -> int:
    """Binary precision that carries ``dps`` decimal digits.

    Parameters
    ----------
    dps : int
        Decimal digits, ≥ 1.

    Returns
    -------
    int
        ``round((dps + 1) · log2 10)`` bits, mpmath's own conversion (one guard digit).
    """
    return max(1, int(round((int(dps) + 1) * math.log2(10))))


@contextlib.contextmanager
def working_precision(bits: int | None = None, *, dps: int | None = None,
                      mpmath_too: bool = False) -> Iterator[int]:
    """Run a block with python-flint (and optionally mpmath) at a given precision.

    Parameters
    ----------
    bits : int, optional
        Binary precision of arb balls inside the block.
    dps : int, optional
        Decimal digits instead of ``bits`` (converted by :func:`bits_of_digits`).
    mpmath_too : bool
        Also set ``mpmath.mp.prec`` to the same number of bits.

    Yields
    ------
    int
        The precision in bits in force inside the block.  The previous precisions are
        restored on exit, also when the block raises.

    Examples
    --------
    >>> import flint
    >>> with working_precision(200):
    ...     flint.ctx.prec
    200
    """
    import flint

    if (bits is None) == (dps is None):
        raise TypeError("give exactly one of bits= and dps=")
    prec = int(bits) if bits is not None else bits_of_digits(int(dps))
    if prec < 2:
        raise ValueError(f"precision must be at least 2 bits, got {prec}")
    old = flint.ctx.prec
    if mpmath_too:
        import mpmath
        old_mp = mpmath.mp.prec
    flint.ctx.prec = prec
    if mpmath_too:
        mpmath.mp.prec = prec
    try:
        yield prec
    finally:
        flint.ctx.prec = old
        if mpmath_too:
            mpmath.mp.prec = old_mp
