"""Search-side validated tube of the *projective* (scale-free) covariance flow, run with the checker's
own step (:mod:`symbolic_tf.certify.check.projective`).

With Σ = X/u and dτ = dt/u, the polynomial field

    X' = Q(X) + u·L(X) − c·X,   u' = −c·u,   s' = u,   c = tr Q(X) + u·tr L(X)

has solutions of order one where Σ grows or blows up (u = 1/tr Σ at the start, s the elapsed time
t − t_start).  Without drift, τ is the scale-free time ds = tr Σ dt: a growth that is stiff in t
(fast rates proportional to the size of Σ) is not stiff in τ.  The kinds ``tube-ray`` (blow-up along
a ray) and ``tube-cluster-neutral`` / ``tube-growth-neutral`` (slow–fast funnels in d = 3) accept a
projective continuation of their covariance tube; this module integrates it.

Steps are chosen adaptively from the Lagrange remainder (its radius at most ``tol``); every accepted
step is exactly the checker's :func:`~symbolic_tf.certify.check.tube_replay.replay_step` on the stored
exact τ, so the end state is the one the checker recomputes.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint

from ..budget import check_budget
from ....exact.precision import working_precision
from ....exact.rational import dyadic, fmpq_of
from .tube_end import refuse

__all__ = ["ProjectiveRun", "integrate_projective", "integrate_projective_capped", "switch_index", "SWITCH_WIDTH",
           "STEP_CAPS", "TOO_WIDE", "WIDTH_TARGET"]

SWITCH_WIDTH = 1e-12   #: a tube in t is continued from its last box of relative width ≤ this
STEP_CAPS = (0.25, 0.1)   #: the step caps in τ tried in turn by integrate_projective_capped
WIDTH_TARGET = 1e-12   #: the adaptive cap's largest enclosure width of (X, u) (integrate_projective_capped)
ADAPTIVE_MAX = 16.0    #: the adaptive cap's largest value
TOO_WIDE = "the projective enclosure grew too wide"   #: a run's stop when its enclosure exceeds ``wide``


class ProjectiveRun:
    """The result of :func:`integrate_projective`."""

    def __init__(self, taus, stop, rejected, box=None):
        self.taus, self.stop, self.rejected, self.box = taus, stop, rejected, box

    def summary(self) -> dict:
        """The run's figures for a verdict's ``numerical`` field."""
        from .flow import max_rad

        return {"steps": len(self.taus) - 1, "tau": float(self.taus[-1]), "rejected": self.rejected,
                "stop": self.stop, "width": None if self.box is None else float(max_rad(self.box))}


def integrate_projective(heads, F, S_start, until, *, prec: int, order: int = 16, deadline: float,
                         tol: float = 1e-20, wide: float = 1e-4, max_steps: int = 50_000,
                         h0: float = 1.0 / 64, apriori: str = "picard", watch_time: bool = True,
                         h_max: float = math.inf, width_target: float | None = None) -> ProjectiveRun:
    """Integrate the projective tube from the covariance box ``S_start`` until ``until`` accepts.

    The state starts at Z₀ = diag(S/tr S, 1/tr S, 0) (:func:`~symbolic_tf.certify.check.projective.projective_start`);
    each trial step of length h (a dyadic rational) is the checker's validated step, accepted when
    its Lagrange remainder has radius ≤ ``tol``; the next h is 0.9·h·(tol/err)^{1/(k+1)}, at most
    1.5·h and at most ``h_max``.  After each accepted step ``until(X, u, s, tau)`` (balls, τ a
    Fraction) is called inside the working precision; True ends the run.

    With ``width_target`` the cap is adaptive (:class:`_WidthControl`): Lohner's parallelepiped
    wraps more per unit τ the longer the step (the absolute values of a non-normal step Jacobian),
    and once the enclosure is wide the wrapping feeds itself, so the width of (X, u), not the
    remainder, limits a slow field's steps.  When the width exceeds ``width_target`` and 100 times
    the width at the oldest kept checkpoint (a runaway) the run returns
    to the checkpoint before the last one (every :data:`CHECK_EVERY` steps) and continues with half
    the cap; after :data:`REGROW_STEPS` steps without a rollback the cap grows by 1.25 (from
    :data:`WIDTH_START`, at most ``h_max``, at least :data:`WIDTH_FLOOR`: at the floor the width is
    left to the ``wide`` stop).  A rollback discards the steps after its checkpoint, so the stored
    times are always one chain of accepted steps.
    """
    from ....spec.errors import CertificationFailed
    from ...check.projective import ProjectiveSeries, projective_start
    from ...check.tube_replay import replay_step, start_state
    from .flow import max_rad

    taus, h, rejected = [Fraction(0)], h0, 0
    with working_precision(prec):
        field = ProjectiveSeries(heads, F)
        try:
            state = start_state(field, projective_start(field, flint.arb_mat(S_start), refuse))
        except CertificationFailed:
            return ProjectiveRun(taus, "tr Σ is not positive at the start", 0)
        X, u, _s = field.split(state.box)
        ctl = None if width_target is None else _WidthControl(width_target, h_max, state, taus,
                                                               max(max_rad(X), float(u.rad())))
        stop = "time limit"
        while time.perf_counter() < deadline:
            check_budget()
            if len(taus) > max_steps:
                stop = "step limit"
                break
            hq = dyadic(min(h, h_max if ctl is None else ctl.cap), 24)
            step = replay_step(field, state, flint.arb(fmpq_of(hq)), order, "qr", apriori)
            err = max_rad(step.remainder) if not isinstance(step, str) else math.inf
            if err > tol:
                rejected += 1
                h = float(hq) * (0.5 if isinstance(step, str) else max(0.2, 0.9 * (tol / err) ** (1.0 / (order + 1))))
                if h < 1e-9:
                    stop = "the projective step collapsed"
                    break
                continue
            X, u, s = field.split(step.box)
            w = max(max_rad(X), float(u.rad()))
            if ctl is not None and ctl.too_wide(w):
                rejected += 1
                state = ctl.rollback()
                h = min(h, ctl.cap)
                continue
            state = step
            taus.append(taus[-1] + hq)
            h = float(hq) * (1.5 if err == 0 else min(1.5, 0.9 * (tol / err) ** (1.0 / (order + 1))))
            if ctl is not None:
                ctl.accepted(state)
            if max(w, float(s.rad()) if watch_time else 0.0) > wide:
                stop = TOO_WIDE
                break
            if until(X, u, s, taus[-1]):
                stop = "accepted by until"
                break
    return ProjectiveRun(taus, stop, rejected, state.box)


class _WidthControl:
    """The adaptive step cap of :func:`integrate_projective`, with its checkpoints (state, number of
    stored times); ``taus`` is the run's list of times, truncated in place by a rollback."""

    def __init__(self, target, h_max, state, taus, w0):
        self.target, self.h_max, self.taus = target, h_max, taus
        self.cap = min(h_max, WIDTH_START)
        self.points = [(state, len(taus), w0)]
        self.since, self.w = 0, w0

    def too_wide(self, w: float) -> bool:
        """w above the target and above 100 times the width at the oldest kept checkpoint (a wrapping
        runaway, not an enclosure that is merely wider than the target for good)."""
        self.w = w
        return w > max(self.target, 100.0 * self.points[0][2]) and self.cap > WIDTH_FLOOR

    def rollback(self):
        if len(self.points) > 1:
            self.points.pop()
        state, n, _w = self.points[-1]
        del self.taus[n:]
        self.cap, self.since = max(WIDTH_FLOOR, 0.5 * self.cap), 0
        return state

    def accepted(self, state):
        self.since += 1
        if self.since % CHECK_EVERY == 0:
            self.points.append((state, len(self.taus), self.w))
            del self.points[:-3]
        if self.since >= REGROW_STEPS:
            self.cap, self.since = min(self.h_max, 1.25 * self.cap), 0


WIDTH_START = 2.0    #: the adaptive cap's first value
WIDTH_FLOOR = 0.1    #: the adaptive cap's least value (the smallest of the fixed caps)
CHECK_EVERY = 16     #: accepted steps between two checkpoints of the adaptive cap
REGROW_STEPS = 64    #: accepted steps without a rollback after which the adaptive cap grows by 1.25
# measured on seed 1688874118 #110 (slow ray to τ ≈ 2520): (REGROW_STEPS, CHECK_EVERY) = (200, 25) 1780 steps,
# (100, 25) 1235, (50, 25) 1013 with 38 rollbacks, (64, 16) 1034 with 24; a target of 10⁻¹⁰ instead of 10⁻¹²
# lets the wrapping run further before it is seen: 2002 steps


def integrate_projective_capped(heads, F, S_start, make_until, *, deadline: float, caps=STEP_CAPS,
                                adaptive: float | None = WIDTH_TARGET, **kw) -> ProjectiveRun:
    """:func:`integrate_projective` with the adaptive cap of enclosure width ``adaptive`` first (up to
    :data:`ADAPTIVE_MAX`; None: skipped), then with the fixed step cap ``h_max = caps[0]``, run again
    from the start with each next cap while its enclosure grows too wide and time is left.

    Each step's remainder is computed in its eigenframe (:mod:`~symbolic_tf.certify.check.frame`), so
    the remainder alone lets the steps grow until Lohner's wrapping of a long step's Taylor map
    dominates; how long is too long depends on the flow and on the enclosure's width.  Measured on the
    general-V set: along seed 1 #46's slow drift uncapped steps grow the enclosure too wide by τ ≈ 136,
    while steps ≤ 0.25 keep it near 10⁻¹³ (0.1 would need 33,000 steps); seed 1 #4 (growth) and seed 1
    #52 (a slow ray) need at most 0.1.  On seed 1688874118 #110 (a slow ray, to τ ≈ 2520) the cap 0.5
    takes 5047 steps, caps 2 and 4 grow too wide, the adaptive cap 1034 steps with a narrower end box.

    Returns
    -------
    ProjectiveRun
        The last run, with ``h_max`` its cap ("adaptive" for the adaptive one).
    """
    run = None
    if adaptive is not None:
        run = integrate_projective(heads, F, S_start, make_until(), deadline=deadline, h_max=ADAPTIVE_MAX,
                                   width_target=adaptive, **kw)
        run.h_max = "adaptive"
        if run.stop != TOO_WIDE or time.perf_counter() >= deadline:
            return run
    for cap in caps:
        run = integrate_projective(heads, F, S_start, make_until(), deadline=deadline, h_max=cap, **kw)
        run.h_max = cap
        if run.stop != TOO_WIDE or time.perf_counter() >= deadline:
            break
    return run


def switch_index(tube, rel: float = SWITCH_WIDTH) -> int:
    """The index of the last box of a tube in t whose largest radius is at most ``rel``·max(1, max|mid|)
    — where its projective continuation starts (0, i.e. Σ₀ itself, if no later box is that narrow).
    """
    from .flow import max_mid, max_rad

    k = 0
    for i, S in enumerate(tube.ends):
        if max_rad(S) <= rel * max(1.0, max_mid(S)):
            k = i
    return k
