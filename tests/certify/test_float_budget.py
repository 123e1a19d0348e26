"""The capped float guesses of the tube searches (:mod:`symbolic_tf.certify.search.validated.float_budget`):
an explicit method that exhausts the cap on a stiff flow hands over to LSODA, whose answer matches
the closed form; when every method exhausts it the search gets FloatBudgetExceeded, which
``guarded`` turns into UNDECIDED with the reason."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symbolic_tf.certify.search.validated.float_budget import FloatBudgetExceeded, guarded, solve_capped

LAM = 1e6   # y' = −λ(y − cos t): stiff; y(t) = cos t + O(1/λ) after a transient of length 1/λ


def _stiff(_t, y):
    return -LAM * (y - math.cos(_t))


def _closed_form(t):
    # y(0) = 0: y = (λ² cos t + λ sin t − λ² e^{−λt})/(λ² + 1)
    return (LAM ** 2 * math.cos(t) + LAM * math.sin(t) - LAM ** 2 * math.exp(-LAM * t)) / (LAM ** 2 + 1)


def test_explicit_method_exhausts_the_cap_and_lsoda_takes_over():
    with pytest.raises(FloatBudgetExceeded):
        solve_capped(_stiff, (0.0, 2.0), np.array([0.0]), rtol=1e-8, atol=1e-10, methods=("DOP853",),
                     max_evals=20_000)
    sol = solve_capped(_stiff, (0.0, 2.0), np.array([0.0]), rtol=1e-8, atol=1e-10, max_evals=20_000)
    assert sol.status == 0
    assert abs(sol.y[0, -1] - _closed_form(2.0)) < 1e-6


def test_terminal_event_is_kept():
    # y' = y², y(0) = 1 blows up at t = 1; the event y = 10⁸ fires at t = 1 − 10⁻⁸
    def big(_t, y):
        return 1e8 - y[0]

    big.terminal = True
    sol = solve_capped(lambda _t, y: y * y, (0.0, 5.0), np.array([1.0]), rtol=1e-10, atol=1e-12, events=big)
    assert sol.status == 1
    assert abs(sol.t[-1] - (1 - 1e-8)) < 1e-9


def test_every_method_exhausted_becomes_undecided_with_the_reason():
    def run(_t0):
        solve_capped(_stiff, (0.0, 2.0), np.array([0.0]), rtol=1e-8, atol=1e-10, max_evals=50)
        raise AssertionError("unreachable")

    v = guarded(run, "claim", "test search")
    assert v.status == "UNDECIDED"
    assert "FloatBudgetExceeded" in v.reason and "test search gave up" in v.reason
