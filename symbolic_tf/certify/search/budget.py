"""A wall-clock budget for a whole classification (search side only; never part of a proof).

``with time_budget(30):`` sets a deadline that the searches consult cooperatively — the route loop
before each route, the float guesses' right-hand sides (:func:`.validated.float_budget.capped`),
the validated tubes' step loops — through :func:`check_budget`, which raises :class:`BudgetSpent`
(a ``BaseException``, so no search swallows it; the route loop turns it into UNDECIDED).  A search
stuck in code that never reaches a check (a long solver call) is stopped by a backstop: in the
main thread an interval timer raises :class:`BudgetSpent` from ``SIGALRM`` a grace period after
the deadline of the innermost budget (a route's share inside the classification's), and again
on every tick until that block ends.  Spending the budget can only
turn a decision into UNDECIDED: every certificate a route returns is still re-checked whole.
"""
from __future__ import annotations

import contextvars
import signal
import threading
import time
from contextlib import contextmanager

__all__ = ["DEFAULT_BUDGET", "BudgetSpent", "time_budget", "suspended", "check_budget", "remaining", "spent", "capped_seconds"]

#: the default wall-clock budget of one classification, in seconds (``symtf classify --budget``)
DEFAULT_BUDGET = 30.0

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("symtf_deadline", default=None)
_GRACE = 1.0  # seconds past the deadline before the backstop interrupts a search that never checks


class BudgetSpent(BaseException):
    """The classification's time budget is spent: the search in progress stops (UNDECIDED).

    A ``BaseException`` (like ``KeyboardInterrupt``) so that a search's own ``except Exception``
    or ``except RuntimeError`` — written to turn float trouble into "try something else" — does
    not swallow it; the route loop catches it."""


def remaining() -> float | None:
    """Seconds left in the current budget.

    Returns
    -------
    float or None
        ``deadline − now`` (may be negative), or None outside a :func:`time_budget` block.
    """
    d = _deadline.get()
    return None if d is None else d - time.monotonic()


def spent() -> bool:
    """Whether the current budget is spent.

    Returns
    -------
    bool
        True inside a :func:`time_budget` block whose deadline has passed.
    """
    left = remaining()
    return left is not None and left <= 0


def check_budget() -> None:
    """Raise :class:`BudgetSpent` when the current budget is spent (a no-op without a budget).

    Returns
    -------
    None

    Raises
    ------
    BudgetSpent
        Past the deadline.
    """
    if spent():
        raise BudgetSpent("the classification's time budget is spent")


def capped_seconds(seconds: float | None) -> float | None:
    """A search's own time limit, cut to what is left of the budget.

    Parameters
    ----------
    seconds : float or None
        The search's own limit (None: none).

    Returns
    -------
    float or None
        ``min(seconds, remaining())`` (at least 0), or ``seconds`` without a budget.
    """
    left = remaining()
    if left is None:
        return seconds
    left = max(0.0, left)
    return left if seconds is None else min(seconds, left)


_armed = threading.Event()  # set while a backstop may raise (cleared first thing when its block ends)


_TICK = 0.25  # seconds between the backstop's looks at the clock


def _raise_spent(signum, frame):
    # the timer ticks through the whole outermost block; it interrupts only a block whose own
    # (innermost) deadline passed more than the grace period ago
    left = remaining()
    if _armed.is_set() and left is not None and left < -_GRACE:
        raise BudgetSpent("the classification's time budget is spent (interrupted)")


@contextmanager
def time_budget(seconds: float | None):
    """Run a block under a wall-clock budget (nested budgets keep the earlier deadline).

    Parameters
    ----------
    seconds : float or None
        The budget; None runs the block without one.

    Yields
    ------
    None
    """
    if seconds is None:
        yield
        return
    deadline = time.monotonic() + float(seconds)
    outer = _deadline.get()
    if outer is not None:
        deadline = min(deadline, outer)
    token = _deadline.set(deadline)
    # the backstop needs the main thread (signals) and no timer of someone else's already running
    backstop = (threading.current_thread() is threading.main_thread() and outer is None
                and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))
    previous = None
    if backstop:
        previous = signal.signal(signal.SIGALRM, _raise_spent)
        _armed.set()
        signal.setitimer(signal.ITIMER_REAL, _TICK, _TICK)
    try:
        yield
    finally:
        if backstop:
            _armed.clear()
            signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        _deadline.reset(token)


@contextmanager
def suspended():
    """Run a block outside the budget (the independent check of a certificate already found: a
    proof in hand is checked to the end rather than lost to the clock; the budget applies again
    after the block).

    Yields
    ------
    None
    """
    token = _deadline.set(None)
    was_armed = _armed.is_set()
    _armed.clear()
    try:
        yield
    finally:
        if was_armed:
            _armed.set()
        _deadline.reset(token)
