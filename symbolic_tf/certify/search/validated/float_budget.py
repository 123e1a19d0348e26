"""A cap on the float integrations that guide the searches (search side only).

Every tube-end search first integrates the covariance flow in floats (SciPy) to *guess* what
happens — the guess is never part of a proof.  Some flows grow for a long time without blowing
up (‖Σ‖ ~ 10⁴ at t = 1 and rising), and an adaptive integrator then needs ever smaller steps:
to t = 50 that can take minutes.  :func:`capped` wraps a right-hand side so that the guess gives
up after a fixed number of evaluations by raising :class:`FloatBudgetExceeded` (a RuntimeError,
which every search turns into UNDECIDED with the reason)."""
from __future__ import annotations

import time

import numpy as np

from ....spec.verdict import UNDECIDED, Verdict

__all__ = ["FloatBudgetExceeded", "Undecided", "capped", "guarded", "solve_capped", "MAX_EVALS"]

#: evaluations of a d ≤ 6 right-hand side: a few seconds at most
MAX_EVALS = 200_000


class FloatBudgetExceeded(RuntimeError):
    """The float guess used up its evaluation budget (the search gives up: UNDECIDED)."""


def capped(rhs, max_evals: int = MAX_EVALS):
    """``rhs`` that raises :class:`FloatBudgetExceeded` on its ``max_evals + 1``-th call.

    Parameters
    ----------
    rhs : callable
        The right-hand side ``rhs(t, y)`` of a SciPy integration.
    max_evals : int
        The evaluation budget.

    Returns
    -------
    callable
        ``wrapped(t, y)`` = ``rhs(t, y)`` until the budget is spent.
    """
    from ..budget import check_budget

    count = [0]

    def wrapped(t, y):
        count[0] += 1
        if count[0] & 63 == 0:  # the classification's wall-clock budget, every 64 evaluations
            check_budget()
        if count[0] > max_evals:
            raise FloatBudgetExceeded(f"the float guess needed more than {max_evals} right-hand-side evaluations "
                                      "(the solution grows for a long time without a clear outcome)")
        return rhs(t, y)

    return wrapped


def solve_capped(rhs, span, y0, *, rtol: float, atol: float, events=None, methods=("DOP853", "LSODA"),
                 max_evals: int = MAX_EVALS):
    """``solve_ivp`` under the evaluation cap, method by method: the first method that finishes within
    ``max_evals`` evaluations gives the result.

    An explicit method (DOP853) is accurate and cheap on most flows, but a flow that contracts one
    direction of Σ fast while another grows (Σ heading for the boundary of the cone Σ ⪰ 0) is stiff,
    and the explicit method then exhausts the cap; LSODA switches to a stiff (BDF) method there.

    Parameters
    ----------
    rhs : callable
        The right-hand side ``rhs(t, y)``.
    span : tuple of float
        The time interval.
    y0 : numpy.ndarray
        The initial state.
    rtol, atol : float
        The tolerances.
    events : callable or None
        The terminal event, as for ``solve_ivp``.
    methods : sequence of str
        The methods to try, in order.
    max_evals : int
        The evaluation budget of each method.

    Returns
    -------
    scipy.integrate.OdeResult
        The first run that stayed within the cap.

    Raises
    ------
    FloatBudgetExceeded
        When every method exhausted the cap.
    """
    from scipy.integrate import solve_ivp

    exc = None
    for method in methods:
        try:
            with np.errstate(all="ignore"):
                return solve_ivp(capped(rhs, max_evals), span, y0, method=method, rtol=rtol, atol=atol, events=events)
        except FloatBudgetExceeded as e:
            exc = e
    raise exc


class Undecided(Exception):
    """Raised inside a :func:`guarded` search to stop it with UNDECIDED and this reason (a precondition
    that fails, not float trouble: no numerical record)."""


def guarded(run, claim, what):
    """Run a search, turning float and arithmetic trouble into UNDECIDED: ``run(t0)`` with t0 =
    ``time.perf_counter()`` at the start; an ArithmeticError, ValueError, RuntimeError (e.g.
    :class:`FloatBudgetExceeded`), LinAlgError or MemoryError gives
    ``Verdict(UNDECIDED, claim, reason="<what> gave up (<error>)", numerical={"seconds": …})``.

    Parameters
    ----------
    run : callable
        ``run(t0)`` performs the search and returns its Verdict.
    claim : str
        The claim's text of the UNDECIDED verdict.
    what : str
        The search's name in the reason (e.g. "tube-ray search").

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        ``run(t0)``, or UNDECIDED with the reason when it raised one of those errors.
    """
    t0 = time.perf_counter()
    try:
        return run(t0)
    except Undecided as exc:
        return Verdict(UNDECIDED, claim, reason=str(exc))
    except (ArithmeticError, ValueError, RuntimeError, np.linalg.LinAlgError, MemoryError) as exc:
        return Verdict(UNDECIDED, claim, reason=f"{what} gave up ({type(exc).__name__}: {str(exc)[:160]})",
                       numerical={"seconds": time.perf_counter() - t0})
