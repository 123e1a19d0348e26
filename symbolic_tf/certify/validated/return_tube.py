"""Global existence of *this* Σ₀ by returns to a Poincaré section (issue 15 item 2, "global existence
of this Σ₀"; certificate kind ``tube-return``, checker :mod:`symbolic_tf.certify.kinds.tube_return`).

Some solutions neither settle, nor grow, nor blow up: the drift model can carry Σ onto a rank-one
limit cycle, where no trace or quadratic functional is monotone.  The search:

1. follows the float solution (``solve_ivp``) and, when it keeps oscillating without settling,
   picks the svec coordinate z_j that oscillates most and the section {z_j = c} through the middle
   of its range, crossed upwards;
2. takes the float crossing points; when they converge (an attracting cycle), a small box B on the
   section around the last one;
3. integrates a validated tube from B (Lohner's QR wrapping: a box of initial values) until it is
   past the section again, and encloses the crossing points
   (:func:`symbolic_tf.certify.kinds.section.crossing_enclosure`, the checker's own function); B
   is accepted when they lie in B (box sizes are tried from small to large);
4. integrates a validated tube from Σ₀ and checks, at each crossing, whether the crossing
   enclosure lies in B.

The certificate stores the section, B and both tubes' exact step times; the checker replays both.
Float trouble or any failed step gives UNDECIDED with the reason.
"""
from __future__ import annotations

import time
from fractions import Fraction

import flint
import numpy as np

from ...exact.precision import working_precision
from ...exact.rational import dyadic, frac_str
from ...spec.verdict import UNDECIDED, Verdict
from ..certificate import vec_str
from .float_budget import guarded

__all__ = ["KIND", "find_return"]

KIND = "tube-return"
ARGUMENT = "validated-tube+poincare-return"
#: relative half-widths of the section box B tried, in order
BOX_SIZES = (1e-6, 1e-5, 1e-7, 1e-4, 1e-8)


class _Miss(Exception):
    """A crossing window that the checker's function refuses (raised by its ``fail``)."""


def _miss(msg):
    raise _Miss(msg)


def _claim0():
    return "for this Σ₀: Σ(t) exists for all t and stays bounded (returns to a box on a Poincaré section)"


def find_return(problem, *, order: int = 20, prec: int = 128, seconds: float = 20.0,
                horizon: float = 200.0) -> Verdict:
    """PROVED (BOUNDED for this Σ₀) with a ``tube-return`` certificate when the solution from Σ₀
    reaches a box on a Poincaré section that the validated flow maps into itself; UNDECIDED (with
    the reason) otherwise.  Never raises on float trouble.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem: (multi-head) softmax, with or without drift, d ≤ 4, with Σ₀.
    order : int
        The Taylor order of both tubes.
    prec : int
        The arb working precision in bits.
    seconds : float
        The wall-clock budget of the search (the independent check included).
    horizon : float
        The float integration's horizon (the oscillation must be visible by then).

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED (BOUNDED, THIS) with ``evidence["certificate"]`` of kind ``tube-return``, else UNDECIDED.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, horizon, t0), _claim0(), "tube-return search")


def _float_section(problem, heads, F, horizon):
    """(j, c, crossing points, return time) of an oscillating float solution, or a reason (str)."""
    from ...exact.rational import qmat, qmat_to_float
    from .float_budget import solve_capped
    from .float_field import FloatField
    from ..kinds.replay import svec_pairs

    d = problem.d
    ff = FloatField(heads, F, d)
    up = svec_pairs(d)

    def rhs(t, y):
        return ff.sigma_rhs(t, y)

    def big(_t, y):
        return 1e8 - np.abs(y).max()

    big.terminal = True
    S0 = qmat_to_float(qmat(problem.cov))
    sol = solve_capped(rhs, (0.0, horizon), S0.ravel(), rtol=1e-11, atol=1e-13, events=big)
    if sol.status != 0:
        return "the float solution grows past 10⁸ or fails: no oscillation to follow"
    half = sol.t >= horizon / 2
    Z = np.array([[sol.y[i * d + k, half][n] for (i, k) in up] for n in range(int(half.sum()))])
    yend = sol.y[:, -1]
    if np.linalg.norm(rhs(0, yend)) <= 1e-6 * max(np.linalg.norm(yend), 1e-300):
        return "the float solution settles: no oscillation"
    spread = Z.max(axis=0) - Z.min(axis=0)
    j = int(np.argmax(spread))
    scale = max(np.abs(Z).max(), 1e-300)
    if spread[j] <= 1e-6 * scale:
        return "the float solution does not oscillate"
    c = dyadic(0.5 * (Z[:, j].max() + Z[:, j].min()), 20)
    i, k = up[j]

    def cross(_t, y):
        return y[i * d + k] - float(c)

    cross.direction = 1
    sol = solve_capped(rhs, (0.0, horizon), S0.ravel(), rtol=1e-12, atol=1e-14 * scale, events=cross)
    pts = [np.array([y[a * d + b] for (a, b) in up]) for y in sol.y_events[0]]
    ts = list(sol.t_events[0])
    if len(pts) < 4:
        return f"only {len(pts)} upward crossings of the section z_{j} = {float(c):.6g} by t = {horizon:g}"
    last = np.abs(pts[-1] - pts[-2]).max()
    if last > 1e-6 * scale:
        return f"the float crossing points of the section do not settle (last change {last:.3g})"
    return j, c, pts[-1], ts[-1] - ts[-2], scale


def _box(point, j, c, rel, scale):
    """Rational corners of the section box around ``point`` (coordinate j = c exactly)."""
    w = dyadic(rel * scale, 8)
    lo, hi = [], []
    for k, x in enumerate(point):
        if k == j:
            lo.append(c)
            hi.append(c)
        else:
            centre = dyadic(float(x), 30)
            lo.append(centre - w)
            hi.append(centre + w)
    return lo, hi


def _window(field, tube_times, boxes, frames, j, c, order, lo, hi):
    """(t_a, t_N) when the tube's end is a crossing window with its crossings in the box (the checker's
    test), else None."""
    from ..kinds.section import column_inside, crossing_enclosure

    ts = [flint.fmpq(t.numerator, t.denominator) for t in tube_times]
    qlo, qhi = [flint.fmpq(x.numerator, x.denominator) for x in lo], [flint.fmpq(x.numerator, x.denominator) for x in hi]
    try:
        E, t_a, t_n = crossing_enclosure(field, boxes, ts, j, qlo[j], 1, order, _miss, frames=frames)
    except _Miss:
        return None
    return (t_a, t_n) if column_inside(E, qlo, qhi, skip=j) else None


class _Run:
    """A validated tube as exact times and the search's states (box + Lohner parallelepiped)."""

    def __init__(self, start):
        from .flow import initial_state

        self.times = [Fraction(0)]
        self.states = [initial_state(flint.arb_mat(start), "qr")]
        self.stop = ""

    @property
    def steps(self) -> int:
        return len(self.times) - 1


def _crossing_tube(heads, F, start, j, c, order, prec, seconds, field, lo, hi, max_steps, once):
    """A validated tube from ``start`` up to its first crossing window (``once``: the return from B,
    whatever it gives) or its first window whose crossings lie in the box; the window is refined
    (:func:`_refine`) so that the crossing enclosure is tight.  Returns (the run, (t_a, t_N) when the
    last window's crossings lie in the box, else None)."""
    from .flow import Flow
    from .tube import integrate_tube

    from .float_field import FloatField

    t0 = time.perf_counter()
    flow = Flow(heads, F)
    ff = FloatField(heads, F, start.nrows())
    i, k = _ij(j, start.nrows())
    cq = flint.arb(flint.fmpq(c.numerator, c.denominator))
    run = _Run(start)
    while True:
        left = seconds - (time.perf_counter() - t0)
        if left <= 0 or run.steps >= max_steps:
            run.stop = run.stop or "time or step budget spent before a crossing window"
            return run, None
        offset, first = run.times[-1], run.states[-1]
        flag = {"before": False}

        def until(state, t, offset=offset, flag=flag):
            if t == 0:
                return False
            run.times.append(offset + t)
            run.states.append(state)
            z = state.S[i, k] - cq
            if z < 0:
                flag["before"] = True
            return bool(z > 0) and flag["before"]

        tube = integrate_tube(heads, F, first.S, None, order=order, prec=prec, method="qr",
                              max_steps=max_steps - run.steps, rel_tol=0.5, seconds=left, until=until,
                              start=(first.xh, first.B, first.r))
        if not tube.stop.startswith("condition met"):
            run.stop = tube.stop
            return run, None
        if not _refine(run, flow, ff, field, i, k, cq, order):
            run.stop = "the refined steps across the section do not validate"
            return run, None
        hit = _window(field, run.times, [st.S for st in run.states], [(st.xh, st.B, st.r) for st in run.states],
                      j, c, order, lo, hi)
        if once or hit is not None:
            run.stop = "crossing window"
            return run, hit


#: fine steps across the section (per window width)
_FINE = 8


def _refine(run, flow, ff, field, i, k, cq, order) -> bool:
    """Replace the last (coarse) step, which jumped over the section, by a step to just before the
    crossing and :data:`_FINE` short steps across it: the window then spans about 8 box widths
    (the spread of z_j over the box, over |f_j|) instead of a whole step, which keeps the crossing
    enclosure's ratio f_y/f_j tight.  False when a step fails."""
    from scipy.integrate import solve_ivp

    from .flow import arb_of, dyadic_down, prepare_step, taylor_step

    run.times.pop()
    run.states.pop()
    state, h_coarse = run.states[-1], float(run.times[-1] - run.times[-2]) if run.steps else 1.0
    d = state.S.nrows()
    mid = np.array([[float(state.S[a, b].mid()) for b in range(d)] for a in range(d)])
    fj = float(field(state.S.mid())[i, k].mid())
    spread = float(state.S[i, k].rad())
    if not fj > 0:
        return False

    def cross(_t, y):
        return y[i * d + k] - float(cq.mid())

    cross.terminal, cross.direction = True, 1
    sol = solve_ivp(ff.sigma_rhs, (0.0, 4 * h_coarse), mid.ravel(), method="DOP853", rtol=1e-13, atol=1e-300,
                    events=cross)
    if not len(sol.t_events[0]):
        return False
    s_star = float(sol.t_events[0][0])   # the centre's float crossing time
    w = max(8 * spread / fj, 1e-6 * h_coarse)
    plan = []
    if s_star - w / 2 > 0:
        plan.append(s_star - w / 2)
    plan += [w / _FINE] * (2 * _FINE) + [w / _FINE * 2 ** (n // 4) for n in range(4, 60)]
    for n, h in enumerate(plan):
        hq = dyadic_down(h)
        new = taylor_step(state, arb_of(hq), flow, order, "qr", None, prepare_step(state, flow, order, "qr"))
        if new is None:
            return False
        state = new
        run.times.append(run.times[-1] + hq)
        run.states.append(state)
        if state.S[i, k] - cq > 0 and n >= 1:
            return True
    return False


def _ij(j, d):
    from ..kinds.replay import svec_pairs

    return svec_pairs(d)[j]


def _find(problem, order, prec, seconds, horizon, t0) -> Verdict:
    from ...spec.errors import InvalidParameters
    from ..claims import Claim, Quantifier
    from ..kinds.replay import Field, svec_pairs
    from ..kinds.section import box_column
    from .lyapunov import certify_and_check
    from .tube import flow_data

    claim0 = _claim0()
    try:
        heads, F = flow_data(problem)
    except InvalidParameters as exc:
        return Verdict(UNDECIDED, claim0, reason=str(exc))
    d = problem.d
    if d > 4:
        return Verdict(UNDECIDED, claim0, reason="the return certificate covers d ≤ 4")
    S0 = problem.exact.Sigma0
    found = _float_section(problem, heads, F, horizon)
    if isinstance(found, str):
        return Verdict(UNDECIDED, claim0, reason=found, numerical={"seconds": time.perf_counter() - t0})
    j, c, point, period, scale = found
    numerical = {"section": j, "level": float(c), "float_return_time": period}
    with working_precision(prec):
        field = Field(heads, F)
        box = None
        for rel in BOX_SIZES:
            left = seconds - (time.perf_counter() - t0)
            if left < 0.5:
                break
            lo, hi = _box(point, j, c, rel, scale)
            B = Field.unvec(box_column([flint.fmpq(x.numerator, x.denominator) for x in lo],
                                       [flint.fmpq(x.numerator, x.denominator) for x in hi]), flint.arb_mat(d, d))
            back, ok = _crossing_tube(heads, F, B, j, c, order, prec, 0.3 * left, field, lo, hi, 20_000, True)
            if ok is not None:
                box = (lo, hi, back, rel, ok)
                break
        if box is None:
            numerical["seconds"] = time.perf_counter() - t0
            return Verdict(UNDECIDED, claim0, numerical=numerical,
                           reason="no box on the section around the float crossing point maps into itself "
                                  f"under the validated return map (relative sizes {BOX_SIZES})")
        lo, hi, back, rel, window = box
        left = 0.55 * (seconds - (time.perf_counter() - t0))
        tube, ok = _crossing_tube(heads, F, S0, j, c, order, prec, max(0.2, left), field, lo, hi, 20_000, False)
    numerical.update(steps=tube.steps, t_final=float(tube.times[-1]), box_relative_size=rel, return_steps=back.steps)
    if ok is None:
        numerical["seconds"] = time.perf_counter() - t0
        return Verdict(UNDECIDED, claim0, numerical=numerical,
                       reason=f"the validated tube from Σ₀ did not cross the section inside the box: {tube.stop}")
    data = {"section": j, "level": frac_str(c), "sense": "increasing", "box_lo": [frac_str(x) for x in lo],
            "box_hi": [frac_str(x) for x in hi], "steps": vec_str(tube.times), "return_steps": vec_str(back.times),
            "order": order, "tube_prec": prec, "method": "qr"}
    claim = Claim("BOUNDED", Quantifier.THIS, {"return_time_lo": str(window[0]), "return_time_hi": str(window[1])})
    pair = svec_pairs(d)[j]
    note = (f"validated order-{order} Taylor tubes ({prec} bits): from Σ₀ ({tube.steps} steps) to the section "
            f"Σ_{pair[0] + 1}{pair[1] + 1} = {float(c):.8g}, and from a box of relative size {rel:g} on it back into "
            f"the box ({back.steps} steps, float return time ≈ {period:.6g})")
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT, {"regime": "BOUNDED"},
                             (f"a validated tube from Σ₀ reaches a box on the section Σ_{pair[0] + 1}{pair[1] + 1} = "
                              f"{float(c):.6g}, and the validated flow maps the box into itself (return time ≈ "
                              f"{period:.4g}): the solution is global and bounded"))
