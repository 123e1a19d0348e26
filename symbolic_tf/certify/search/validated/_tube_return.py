"""Global existence of *this* Σ₀ by returns to a Poincaré section (issue 15 item 2, "global existence
of this Σ₀"; certificate kind ``tube-return``, checker :mod:`symbolic_tf.certify.check.kinds.tube_return`).

Some solutions neither settle, nor grow, nor blow up: the drift model can carry Σ onto a rank-one
limit cycle, where no trace or quadratic functional is monotone.  The search:

1. follows the float solution (``solve_ivp``) and, when it keeps oscillating without settling,
   picks the svec coordinate z_j that oscillates most and the section {z_j = c} through the middle
   of its range, crossed upwards;
2. takes the float crossing points; when they converge (an attracting cycle), a small box B on the
   section around the last one;
3. integrates a validated tube from B (Lohner's QR wrapping: a box of initial values) until it is
   past the section again, and encloses the crossing points
   (:func:`symbolic_tf.certify.check.section.crossing_enclosure`, the checker's own function); B
   is accepted when they lie in B (box sizes are tried from small to large);
4. integrates a validated tube from Σ₀ and checks, at each crossing, whether the crossing
   enclosure lies in B.

The certificate stores the section, B and both tubes' exact step times; the checker replays both.
Float trouble or any failed step gives UNDECIDED with the reason.
"""
from __future__ import annotations

import time

import numpy as np

from ....exact.precision import working_precision
from ....exact.rational import dyadic, frac_str
from ....spec.verdict import UNDECIDED, Verdict
from ...check.certificate import vec_str
from .float_budget import guarded

__all__ = ["KIND", "find_return"]

KIND = "tube-return"
ARGUMENT = "validated-tube+poincare-return"
#: relative half-widths of the section box B tried, in order
BOX_SIZES = (1e-6, 1e-5, 1e-7, 1e-4, 1e-8)
_TOL = 1e-18   #: the largest remainder radius per step (relative)


def _claim0():
    return "for this Σ₀: Σ(t) exists for all t and stays bounded (returns to a box on a Poincaré section)"


def find_return(problem, *, order: int = 20, prec: int = 128, seconds: float = 20.0,
                horizon: float = 200.0) -> Verdict:
    """PROVED (BOUNDED for this Σ₀) with a ``tube-return`` certificate when the solution from Σ₀
    reaches a box on a Poincaré section that the validated flow maps into itself; UNDECIDED (with
    the reason) otherwise.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, horizon, t0), _claim0(), "tube-return search")


def _float_section(problem, heads, F, horizon):
    """(j, c, crossing points, return time) of an oscillating float solution, or a reason (str)."""
    from ....exact.rational import qmat_to_float
    from .float_budget import solve_capped
    from ....numeric.quadratic_field import FloatField
    from ...check.tube_replay import svec_pairs

    d = problem.d
    ff = FloatField(heads, F, d)
    up = svec_pairs(d)

    def rhs(t, y):
        return ff.sigma_rhs(t, y)

    def big(_t, y):
        return 1e8 - np.abs(y).max()

    big.terminal = True
    S0 = qmat_to_float(problem.exact.Sigma0)
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


def _svec_rhs(ff, d):
    """The float covariance field in svec-upper coordinates."""
    from ...check.tube_replay import svec_pairs

    up = svec_pairs(d)

    def rhs(_t, z):
        S = np.zeros((d, d))
        for n, (a, b) in enumerate(up):
            S[a, b] = S[b, a] = z[n]
        f = ff.sigma_rhs(0.0, S.ravel()).reshape(d, d)
        return np.array([f[a, b] for a, b in up])

    return rhs


def _find(problem, order, prec, seconds, horizon, t0) -> Verdict:
    from ....spec.errors import InvalidParameters
    from ...check.claims import Claim, Quantifier
    from ...check.tube_replay import Field, svec_pairs
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
    from ...check.tube_replay import start_state
    from ...check.section import box_matrix
    from ....numeric.quadratic_field import FloatField
    from ._section_tube import box_accept, first_returning_box, fmpq_list, to_section

    rhs = _svec_rhs(FloatField(heads, F, d), d)

    def left():
        return seconds - (time.perf_counter() - t0)

    with working_precision(prec):
        field = Field(heads, F)

        def leg(start, lo, hi, share, once):
            accept = box_accept(field, j, c, order, lo, hi, lambda _E, t_a, t_n: (t_a, t_n))
            return to_section(field, start_state(field, start), j, c, accept, rhs, order=order, apriori="picard",
                              deadline=time.perf_counter() + share * max(0.0, left()), tol=_TOL,
                              max_steps=20_000, once=once)

        box = first_returning_box(point, j, c, BOX_SIZES, scale,
                                  lambda lo, hi: leg(box_matrix(fmpq_list(lo), fmpq_list(hi), d), lo, hi, 0.3, True),
                                  left)
        if box is None:
            numerical["seconds"] = time.perf_counter() - t0
            return Verdict(UNDECIDED, claim0, numerical=numerical,
                           reason="no box on the section around the float crossing point maps into itself "
                                  f"under the validated return map (relative sizes {BOX_SIZES})")
        lo, hi, back, rel, window = box
        tube, ok = leg(S0, lo, hi, 0.55, False)
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


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# after the equilibrium and basin routes (85, 86), which say more when the solution settles
declare("tube-return", 87, ("BOUNDED",), tube_applies(d_max=4, what="the return certificate"),
        searching(find_return, unless=("settles", "blowup"), seconds=20.0),
        doc="BOUNDED for this Σ₀: validated tubes reach a box on a Poincaré section that the flow maps into itself; "
            "quadratic flows, drift or not, d ≤ 4.")
