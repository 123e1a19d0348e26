"""Search-side validated tubes that run to a Poincaré section (shared by the return certificates
``tube-return`` and ``tube-rotation-return``).

Every step is the checker's own :func:`~symbolic_tf.certify.check.tube_replay.replay_step` (Lohner's QR
wrapping) on a field with ``vec`` coordinates z — the covariance field
(:class:`~symbolic_tf.certify.check.tube_replay.Field`, z = svec Σ) or the projective one
(:class:`~symbolic_tf.certify.check.projective.ProjectiveSeries`, z = (svec X, u, s)) — so the
states are those the checker recomputes.  Steps are adaptive (Lagrange remainder radius at most
``tol``·max(1, |z|)).  When a box is past the section {z_j = c} after one was before it, the step that
jumped over the section is replaced by a step to just before the float crossing time and short steps
across it (:func:`_refine`): the crossing window then spans a few box widths, which keeps the ratio
f_y/f_j of :func:`~symbolic_tf.certify.check.section.crossing_enclosure` tight.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint
import numpy as np

from ..budget import check_budget
from ....exact.rational import dyadic, fmpq_of

__all__ = ["SectionRun", "to_section", "crossing_of", "section_box", "box_accept", "first_returning_box", "fmpq_list"]

#: short steps per window width across the section
FINE = 8


class SectionRun:
    """A validated tube as exact times and the checker's states (box and Lohner parallelepiped)."""

    def __init__(self, state0):
        self.times, self.states, self.stop = [Fraction(0)], [state0], ""

    @property
    def steps(self) -> int:
        """The number of steps."""
        return len(self.times) - 1


class _Refused(Exception):
    pass


def _refuse(msg):
    raise _Refused(msg)


def fmpq_list(xs) -> list:
    """Exact flint rationals from Fractions."""
    return [fmpq_of(x) for x in xs]


def crossing_of(field, run, j: int, c: Fraction, order: int):
    """The checker's crossing enclosure at the end of ``run`` (sense +1), or None when its end is not a
    crossing window (:func:`~symbolic_tf.certify.check.section.crossing_of_states`).
    """
    from ...check.section import crossing_of_states

    try:
        return crossing_of_states(field, run.states, fmpq_list(run.times), j, fmpq_of(c),
                                  1, order, _refuse)
    except _Refused:
        return None


def section_box(point, j, c, rel, scale):
    """Rational corners of the section box around ``point``: coordinate j is c exactly, the others the
    point's (30-bit dyadic) ± rel·scale (an 8-bit dyadic).
    """
    w = dyadic(rel * scale, 8)
    lo, hi = [], []
    for k, x in enumerate(point):
        centre = c if k == j else dyadic(float(x), 30)
        lo.append(centre if k == j else centre - w)
        hi.append(centre if k == j else centre + w)
    return lo, hi


def box_accept(field, j: int, c: Fraction, order: int, lo, hi, value):
    """An ``accept`` for :func:`to_section`: at a crossing window whose enclosure's first len(lo)
    coordinates lie in the box [lo, hi], ``value(E, t_a, t_N)`` (None refuses), else None.
    """
    from ...check.section import column_inside

    qlo, qhi = fmpq_list(lo), fmpq_list(hi)
    m = len(lo)

    def accept(run):
        got = crossing_of(field, run, j, c, order)
        if got is None:
            return None
        E, t_a, t_n = got
        if not column_inside(flint.arb_mat(m, 1, [E[k, 0] for k in range(m)]), qlo, qhi, skip=j):
            return None
        return value(E, t_a, t_n)

    return accept


def first_returning_box(point, j, c, sizes, scale, try_box, time_left):
    """The first relative size whose box around ``point`` (:func:`section_box`) the validated flow maps
    into itself.
    """
    for rel in sizes:
        if time_left() < 0.5:
            break
        lo, hi = section_box(point, j, c, rel, scale)
        run, value = try_box(lo, hi)
        if value is not None:
            return lo, hi, run, rel, value
    return None


def to_section(field, state0, j: int, c: Fraction, accept, float_rhs, *, order: int, apriori: str, deadline: float,
               tol: float, max_steps: int, once: bool, h0: float = 1.0 / 64, wide: float = 0.5) -> tuple:
    """Integrate from ``state0`` to the section {z_j = c} (crossed upwards) until ``accept(run)`` returns
    something (or, with ``once``, at the first crossing window whatever it gives).
    """
    from ...check.tube_replay import replay_step
    from .flow import max_rad

    run = SectionRun(state0)
    cq = flint.arb(fmpq_of(c))
    h, before = h0, False
    while True:
        check_budget()
        if time.perf_counter() > deadline or run.steps >= max_steps:
            run.stop = "time or step budget spent before an accepted crossing"
            return run, None
        state = run.states[-1]
        scale = max(1.0, max(abs(float(x.mid())) for x in _entries(field.vec(state.box))))
        hq = dyadic(h, 24)
        step = replay_step(field, state, flint.arb(fmpq_of(hq)), order, "qr", apriori)
        err = max_rad(step.remainder) / scale if not isinstance(step, str) else math.inf
        if err > tol:
            h = float(hq) * (0.5 if isinstance(step, str) else max(0.2, 0.9 * (tol / err) ** (1.0 / (order + 1))))
            if h < 1e-12:
                run.stop = "the step size collapsed"
                return run, None
            continue
        h = float(hq) * (1.5 if err == 0 else min(1.5, 0.9 * (tol / err) ** (1.0 / (order + 1))))
        run.times.append(run.times[-1] + hq)
        run.states.append(step)
        if max_rad(step.box) > wide * scale:
            run.stop = "the enclosure grew too wide"
            return run, None
        z = field.vec(step.box)[j, 0] - cq
        if z < 0:
            before = True
        elif z > 0 and before:
            before = False
            if not _refine(run, field, j, cq, float_rhs, order, apriori):
                run.stop = "the refined steps across the section do not validate"
                return run, None
            hit = accept(run)
            if once or hit is not None:
                run.stop = "crossing window"
                return run, hit


def _entries(v):
    return [v[k, 0] for k in range(v.nrows())]


def _refine(run, field, j, cq, float_rhs, order, apriori) -> bool:
    """Replace the last step, which jumped over the section, by a step to just before the centre's
    float crossing time and :data:`FINE` short steps per window width across it (then steps doubling
    every four until past); the window width is 8·(spread of z_j over the box)/f_j, at least 10⁻⁶ of
    the previous step.  False when a step fails or the section is not passed."""
    from scipy.integrate import solve_ivp

    from ...check.tube_replay import replay_step

    run.times.pop()
    run.states.pop()
    state = run.states[-1]
    h_prev = float(run.times[-1] - run.times[-2]) if run.steps else 1.0
    v = field.vec(state.box)
    mid = np.array([float(x.mid()) for x in _entries(v)])
    fj = float(field.vec(field(state.box.mid()))[j, 0].mid())
    spread = float(v[j, 0].rad())
    if not fj > 0:
        return False

    def cross(_t, y):
        return y[j] - float(cq.mid())

    cross.terminal, cross.direction = True, 1
    sol = solve_ivp(float_rhs, (0.0, 8 * h_prev), mid, method="DOP853", rtol=1e-13, atol=1e-16, events=cross)
    if not len(sol.t_events[0]):
        return False
    s_star = float(sol.t_events[0][0])
    w = max(8 * spread / fj, 1e-6 * h_prev)
    plan = ([s_star - w / 2] if s_star - w / 2 > 0 else []) + [w / FINE] * (2 * FINE)
    plan += [w / FINE * 2 ** (n // 4) for n in range(4, 60)]
    for n, h in enumerate(plan):
        hq = dyadic(h, 24)
        step = replay_step(field, state, flint.arb(fmpq_of(hq)), order, "qr", apriori)
        if isinstance(step, str):
            return False
        state = step
        run.times.append(run.times[-1] + hq)
        run.states.append(state)
        if field.vec(state.box)[j, 0] - cq > 0 and n >= 1:
            return True
    return False
