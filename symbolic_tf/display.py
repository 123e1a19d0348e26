"""What a reader sees: progress bars for long work, readable numbers and verdicts, JSON tags.

Progress: :func:`progress` wraps an iterable in a `tqdm <https://tqdm.github.io>`_ bar on
standard error.  Bars show only when standard error is a terminal, unless switched on or off
with :func:`set_enabled` (``symtf … --quiet`` switches them off; the environment variable
``SYMTF_PROGRESS=0``/``1`` overrides the terminal test).  A bar never writes to standard
output, so ``--json`` output stays parseable.

Readable numbers: :func:`exact_and_decimal` prints an exact rational with a short decimal
beside it (``212194646999053/430637916466087 (≈ 0.4927449)``).

Output tags: :func:`tagged` puts ``schema`` and ``version`` keys first in a JSON document
(``{"schema": "symbolic_tf.heads/1", "version": "0.1.0", …}``).
"""
from __future__ import annotations

import os
import sys
from fractions import Fraction
from typing import Iterable, Iterator, TypeVar

from .exact.rational import decimal_fraction

__all__ = ["progress", "set_enabled", "enabled", "exact_and_decimal", "short_decimal", "tagged",
           "verdict_label", "matrix_str", "status", "SCHEMA_VERSION"]

T = TypeVar("T")

_ENABLED: bool | None = None
SCHEMA_VERSION = 1


def set_enabled(flag: bool | None) -> None:
    """Force progress bars on (True) or off (False); None restores the terminal test.

    Parameters
    ----------
    flag : bool or None
        True (on), False (off) or None (bars only on a terminal, or as ``SYMTF_PROGRESS`` says).
    """
    global _ENABLED
    _ENABLED = flag


def enabled() -> bool:
    """Whether :func:`progress` draws a bar now.

    Returns
    -------
    bool
        The forced setting, else ``SYMTF_PROGRESS`` ("0"/"1"), else whether stderr is a terminal.
    """
    if _ENABLED is not None:
        return _ENABLED
    env = os.environ.get("SYMTF_PROGRESS")
    if env in ("0", "1"):
        return env == "1"
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress(iterable: Iterable[T], *, total: int | None = None, desc: str = "",
             unit: str = "it") -> Iterator[T]:
    """``iterable`` with a progress bar on stderr (see the module docstring for when it shows).

    Parameters
    ----------
    iterable : iterable
        The work items; consumed lazily.
    total : int, optional
        The number of items, if ``len(iterable)`` is not available.
    desc : str
        A short label (``"heads"``, ``"layers"``).
    unit : str
        The item's name.

    Yields
    ------
    object
        The items of ``iterable``, in order.
    """
    if not enabled():
        yield from iterable
        return
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        yield from iterable
        return
    with tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
              dynamic_ncols=True) as bar:
        yield from bar


class status:
    """A one-line "working…" indicator with the elapsed time, for one long step without
    sub-steps (a symbolic simplification).  Shown on stderr under the same rule as
    :func:`progress`; a no-op otherwise.

    >>> with status("simplifying"):
    ...     pass
    """

    def __init__(self, message: str):
        self.message = message
        self._bar = self._thread = None
        self._stop = None

    def __enter__(self):
        if not enabled():
            return self
        import threading

        from tqdm import tqdm

        self._bar = tqdm(total=None, desc=self.message, bar_format="{desc}: {elapsed} elapsed",
                         file=sys.stderr, leave=False)
        self._stop = threading.Event()

        def tick():
            while not self._stop.wait(1.0):
                self._bar.refresh()

        self._thread = threading.Thread(target=tick, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._stop.set()
            self._thread.join()
            self._bar.close()
        return False


def short_decimal(value, digits: int = 7) -> str:
    """A short decimal of an exact value (``Fraction``, ``"p/q"``, int, SymPy number): ``0.4927449``.

    Parameters
    ----------
    value : Fraction, str, int or SymPy number
        An exact value (anything ``float`` accepts, else it is printed with ``str``).
    digits : int
        The significant digits.

    Returns
    -------
    str
        The value in ``%.{digits}g`` format.
    """
    try:
        q = decimal_fraction(value) if not isinstance(value, Fraction) else value
        return f"{float(q):.{digits}g}"
    except (ValueError, OverflowError, ZeroDivisionError):
        try:
            return f"{float(value):.{digits}g}"
        except (TypeError, ValueError, OverflowError):
            return str(value)


def exact_and_decimal(value, digits: int = 7) -> str:
    """The exact value followed by a short decimal when it is not already short.

    Parameters
    ----------
    value : Fraction, str, int or SymPy number
        An exact value.
    digits : int
        The significant digits of the decimal.

    Returns
    -------
    str
        ``str(value)``, followed by ``(≈ decimal)`` when it is a fraction ``p/q``.

    Examples
    --------
    >>> exact_and_decimal("1/3"), exact_and_decimal("2"), exact_and_decimal("0.5")
    ('1/3 (≈ 0.3333333)', '2', '0.5')
    """
    s = str(value)
    if "/" not in s:
        return s
    return f"{s} (≈ {short_decimal(s, digits)})"


def tagged(name: str, data: dict) -> dict:
    """``data`` with ``schema`` = ``symbolic_tf.NAME/1`` and ``version`` (the package's) first.

    A document that already carries a ``schema`` (certificates, regime maps) is returned
    unchanged: those schemas are checked by their readers.

    Parameters
    ----------
    name : str
        The document's name (e.g. ``"heads"``).
    data : dict
        The document.

    Returns
    -------
    dict
        ``{"schema": "symbolic_tf.NAME/1", "version": …, **data}``, or ``data`` itself.
    """
    if "schema" in data:
        return data
    from .version import __version__

    return {"schema": f"symbolic_tf.{name}/{SCHEMA_VERSION}", "version": __version__, **data}


def verdict_label(regime, status) -> str:
    """``"BLOWUP (PROVED)"``, but a bare ``"UNDECIDED"`` (never ``"UNDECIDED (UNDECIDED)"``).

    Parameters
    ----------
    regime : str or Regime
        The regime (may be empty or None).
    status : str
        The status (PROVED, REFUTED, UNDECIDED, …).

    Returns
    -------
    str
        ``"REGIME (STATUS)"``, or the bare status.
    """
    regime, status = str(regime), str(status)
    if status == "UNDECIDED" or regime in ("", "None", status):
        return status
    return f"{regime} ({status})"


def matrix_str(M) -> str:
    """A matrix as nested brackets, ``[[1, 1/2], [0, -1]]`` (never SymPy's ``Matrix([...])``).

    Accepts SymPy matrices, numpy arrays and nested lists; entries are printed with ``str``
    (SymPy's ``sstr`` for SymPy expressions), so exact values stay exact.

    Parameters
    ----------
    M : sympy.Matrix, numpy.ndarray or nested list
        The matrix (anything else is printed with ``str``).

    Returns
    -------
    str
        The nested-bracket form.
    """
    tolist = getattr(M, "tolist", None)
    rows = tolist() if callable(tolist) else M
    if not isinstance(rows, (list, tuple)):
        return str(rows)

    def one(e):
        if isinstance(e, (list, tuple)):
            return "[" + ", ".join(one(x) for x in e) + "]"
        try:
            import sympy as sp

            return sp.sstr(e) if isinstance(e, sp.Basic) else str(e)
        except ImportError:  # pragma: no cover
            return str(e)

    return one(rows)
