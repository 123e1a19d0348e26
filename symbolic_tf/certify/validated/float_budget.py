"""A cap on the float integrations that guide the searches (search side only).

Every tube-end search first integrates the covariance flow in floats (SciPy) to *guess* what
happens — the guess is never part of a proof.  Some flows grow for a long time without blowing
up (‖Σ‖ ~ 10⁴ at t = 1 and rising), and an adaptive integrator then needs ever smaller steps:
to t = 50 that can take minutes.  :func:`capped` wraps a right-hand side so that the guess gives
up after a fixed number of evaluations by raising :class:`FloatBudgetExceeded` (a RuntimeError,
which every search turns into UNDECIDED with the reason)."""
from __future__ import annotations

__all__ = ["FloatBudgetExceeded", "capped", "MAX_EVALS"]

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
    count = [0]

    def wrapped(t, y):
        count[0] += 1
        if count[0] > max_evals:
            raise FloatBudgetExceeded(f"the float guess needed more than {max_evals} right-hand-side evaluations "
                                      "(the solution grows for a long time without a clear outcome)")
        return rhs(t, y)

    return wrapped
