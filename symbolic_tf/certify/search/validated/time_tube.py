r"""Validated tubes of a covariance flow whose parameters are polynomials in the depth t (one
schedule segment; docs/schedules.md): the search of the ``tube-t`` flow of the certificate kind
``schedule-phases``.

The depth is an extra state with ṫ = 1; each step [t_i, t_i + h] is the checker's own step
(:class:`symbolic_tf.certify.check.tube_time.TimeField` with
:func:`~symbolic_tf.certify.check.tube_replay.replay_step`: Taylor coefficients at t_i, Picard
test and Lagrange remainder over [t_i, t_i + h], Lohner QR), so the search only chooses the
dyadic step lengths: a step that does not validate, or whose remainder is wider than
``rel_tol``·‖Σ‖ (the scale of the box), is halved; two accepted steps in a row double the next
one.  The tube stops (``complete`` False, with the reason) when the step falls below 2⁻³⁰ or an entry
of the box exceeds 10⁸ — typically a blow-up ahead — or the time budget runs out.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import flint

from ....exact.precision import working_precision
from ....exact.rational import fmpq_of
from ...check.tube_replay import Field, replay_step, start_state
from ...check.tube_time import TimeField

__all__ = ["TimeTube", "integrate_time_tube"]

_MIN_STEP = Fraction(1, 2 ** 30)
_MAX_SCALE = 1e8   # the box's largest entry: beyond it the tube stops (a blow-up ahead, never certified here)


@dataclass
class TimeTube:
    """A validated tube of a t-dependent flow from depth ``t_start``.

    Attributes
    ----------
    times : list of Fraction
        Exact step times relative to ``t_start``, 0 = t_0 < … < t_N.
    end : flint.arb_mat
        The box ∋ Σ(t_start + t_N).
    complete : bool
        True when t_N is the requested length.
    stop : str
        Why it stopped early ("" when complete).
    order, prec, method : the replay parameters stored in the certificate.
    """

    times: list
    end: object
    complete: bool
    stop: str
    order: int
    prec: int
    method: str


def _width(box) -> float:
    n = box.nrows()
    return max(float(box[i, j].rad()) for i in range(n) for j in range(n))


def _scale(box) -> float:
    n = box.nrows()
    return max(1.0, max(abs(float(box[i, j].mid())) for i in range(n) for j in range(n)))


def integrate_time_tube(heads, F, t_start: Fraction, S0, length: Fraction, *, order: int = 14, prec: int = 128,
                        method: str = "qr", seconds: float = 60.0, max_steps: int = 20_000,
                        rel_tol: float = 1e-14) -> TimeTube:
    """A validated tube of Σ̇ = f(t, Σ) on [t_start, t_start + length] (module docstring).

    Parameters
    ----------
    heads : list of (list of list of flint.fmpq_poly, list of list of flint.fmpq_poly)
        (C_h(t), A_h(t)), A_h scaled by the temperature (:func:`~symbolic_tf.certify.check.tube_time.poly_matrix`).
    F : list of list of flint.fmpq_poly or None
        The drift F(t).
    t_start : Fraction
        The depth of S0.
    S0 : flint.fmpq_mat or flint.arb_mat
        The start point or box.
    length : Fraction
        The length of the depth interval to cross.
    order, prec, method : int, int, str
        Taylor order, arb precision (bits), ``"qr"`` or ``"direct"``.
    seconds : float
        Time budget.
    max_steps : int
        Step budget.
    rel_tol : float
        Largest accepted width of one step's Lagrange remainder relative to the box's scale.

    Returns
    -------
    TimeTube
        The step times and end box (``complete`` says whether it reached ``length``).
    """
    start = time.monotonic()
    t0 = fmpq_of(t_start)
    ts = [Fraction(0)]
    h = min(length, Fraction(1, 16))
    good = 0
    with working_precision(prec):
        state = start_state(Field([]), S0)
        while ts[-1] < length:
            if time.monotonic() - start > seconds:
                return TimeTube(ts, state.box, False, f"time budget ({seconds:g} s) spent at t = "
                                f"{float(t_start + ts[-1]):.6g}", order, prec, method)
            if len(ts) > max_steps:
                return TimeTube(ts, state.box, False, f"{max_steps} steps", order, prec, method)
            if _scale(state.box) > _MAX_SCALE:
                return TimeTube(ts, state.box, False, f"|Σ_ij| > {_MAX_SCALE:.0e} at t = {float(t_start + ts[-1]):.6g} "
                                "(a blow-up ahead?)", order, prec, method)
            h = min(h, length - ts[-1])
            hq = fmpq_of(h)
            tq = fmpq_of(ts[-1])
            step = replay_step(TimeField(heads, F, t0 + tq, hq, order), state, flint.arb(hq), order, method)
            if isinstance(step, str) or _width(step.remainder) > rel_tol * _scale(state.box):
                h /= 2
                good = 0
                if h < _MIN_STEP:
                    why = step if isinstance(step, str) else "remainder too wide"
                    return TimeTube(ts, state.box, False, f"the step collapsed at t = {float(t_start + ts[-1]):.6g} "
                                    f"({why}; a blow-up ahead?)", order, prec, method)
                continue
            state = step
            ts.append(ts[-1] + h)
            good += 1
            if good >= 2:
                h *= 2
                good = 0
    return TimeTube(ts, state.box, True, "", order, prec, method)
