"""Blow-up of *this* Σ₀ with a bracket when the blow-up rotates, in any d ≤ 4, through a Poincaré
section of the projective flow (issue 15 item 2 (ii); certificate kind ``tube-rotation-return``,
checker :mod:`symbolic_tf.certify.check.kinds.tube_rotation_return`).

Without drift, X = Σ/tr Σ of a rotating blow-up settles on a closed loop of rank-one matrices (the top
eigenvector runs round it) while u = 1/tr Σ shrinks by a factor μ < 1 per turn.  The search:

1. follows the float projective flow from Σ₀ (X' = Q(X) − cX, u' = −cu, s' = u, dτ = tr Σ dt); when X
   keeps oscillating, it takes the X coordinate that oscillates most and the section through the
   middle of its range, crossed upwards; the crossing points must converge and u must shrink;
2. around the last float crossing, a small box B of X on the section; a validated projective tube
   from diag(B, 1, 0) (:func:`~symbolic_tf.certify.search.validated._section_tube.to_section`, the checker's
   own steps) must cross again with X in B, 0 < μ < 1 and elapsed time σ > 0;
3. a validated projective tube from Σ₀ must cross inside B.

The bracket is T* ∈ t₁ + u₁·[σ_lo/(1 − μ_lo), σ_hi/(1 − μ_hi)] (the checker derives it again).
"""
from __future__ import annotations

import time

import flint
import numpy as np

from ....exact.precision import working_precision
from ....exact.rational import dyadic, frac_str
from ....spec.verdict import UNDECIDED, Verdict
from ...check.certificate import vec_str
from .float_budget import guarded
from .tube_end import refuse

__all__ = ["KIND", "find_rotation_return"]

KIND = "tube-rotation-return"
ARGUMENT = "validated-projective-tube+poincare-return"
BOX_SIZES = (1e-6, 1e-5, 1e-7, 1e-4)
_ORDER = 20
_TOL = 1e-18


def _claim0():
    return "for this Σ₀: Σ(t) blows up in finite time (a rotating blow-up, through a Poincaré section)"


def find_rotation_return(problem, *, prec: int = 128, seconds: float = 30.0, horizon: float = 60.0) -> Verdict:
    """PROVED (BLOWUP for this Σ₀ with a bracket) with a ``tube-rotation-return`` certificate when the
    projective state of the solution from Σ₀ returns to a box on a section that the validated projective
    flow maps into itself while shrinking u; UNDECIDED (with the reason) otherwise.  Never raises on
    float trouble.
    """
    return guarded(lambda t0: _find(problem, prec, seconds, horizon, t0), _claim0(), "tube-rotation-return search")


def _projective_rhs(ff, d):
    """The float projective field (no drift) in the coordinates z = (svec X, u, s)."""
    from ...check.tube_replay import svec_pairs

    up = svec_pairs(d)
    m = len(up)

    def rhs(_t, z):
        X = np.zeros((d, d))
        for n, (a, b) in enumerate(up):
            X[a, b] = X[b, a] = z[n]
        Q = ff.Q(X)
        c = np.trace(Q)
        G = Q - c * X
        return np.array([G[a, b] for a, b in up] + [-c * z[m], z[m]])

    return rhs


def _float_section(problem, rhs, m, horizon):
    """(j, c, X at the last crossing, μ) of a rotating float projective solution, or a reason (str); a
    slow rotation (fewer than four crossings) is followed again over 8 and 64 times the horizon."""
    found = None
    for span in (horizon, 8 * horizon, 64 * horizon):
        found = _float_crossings(problem, rhs, m, span)
        if not (isinstance(found, str) and found.startswith("only")):
            return found
    return found


def _float_crossings(problem, rhs, m, horizon):
    from ....exact.rational import qmat_to_float
    from ...check.tube_replay import svec_pairs
    from .float_budget import solve_capped

    d = problem.d
    S0 = qmat_to_float(problem.exact.Sigma0)
    tr = np.trace(S0)
    z0 = np.array([S0[a, b] / tr for a, b in svec_pairs(d)] + [1.0 / tr, 0.0])
    sol = solve_capped(rhs, (0.0, horizon), z0, rtol=1e-11, atol=1e-14)
    if sol.status != 0 or not np.all(np.isfinite(sol.y)):
        return "the float projective solution fails"
    half = sol.t >= horizon / 2
    Z = sol.y[:m, half]
    spread = Z.max(axis=1) - Z.min(axis=1)
    j = int(np.argmax(spread))
    if spread[j] <= 1e-6:
        return "the float projective solution does not rotate (X settles: a ray or an equilibrium)"
    c = dyadic(0.5 * (Z[j].max() + Z[j].min()), 20)

    def cross(_t, z):
        return z[j] - float(c)

    cross.direction = 1
    sol = solve_capped(rhs, (0.0, horizon), z0, rtol=1e-12, atol=1e-15, events=cross)
    ys = sol.y_events[0]
    if len(ys) < 4:
        return f"only {len(ys)} upward crossings of the section X_{j} = {float(c):.6g} by τ = {horizon:g}"
    last = np.abs(ys[-1][:m] - ys[-2][:m]).max()
    if last > 1e-6:
        return f"the float crossing points of the section do not settle (last change {last:.3g})"
    mu = ys[-1][m] / ys[-2][m]
    if not 0 < mu < 1:
        return f"the size does not grow per return (u ratio {mu:.3g})"
    return j, c, ys[-1][:m], mu


def _find(problem, prec, seconds, horizon, t0) -> Verdict:
    from ....spec.errors import InvalidParameters
    from ...check.claims import Claim, Quantifier
    from ...check.projective import ProjectiveSeries, projective_start
    from ...check.tube_replay import start_state
    from ...check.kinds.tube_rotation_return import return_bracket
    from ...check.section import box_matrix
    from ....numeric.quadratic_field import FloatField
    from .lyapunov import certify_and_check, stored_bracket
    from ._section_tube import box_accept, first_returning_box, fmpq_list, to_section
    from .tube import flow_data

    claim0 = _claim0()
    try:
        heads, F = flow_data(problem)
    except InvalidParameters as exc:
        return Verdict(UNDECIDED, claim0, reason=str(exc))
    if F is not None and any(e != 0 for e in F.entries()):
        return Verdict(UNDECIDED, claim0, reason="the rotation return covers flows without drift")
    d = problem.d
    if d > 4:
        return Verdict(UNDECIDED, claim0, reason="the rotation return covers d ≤ 4")
    m = d * (d + 1) // 2
    rhs = _projective_rhs(FloatField(heads, None, d), d)
    found = _float_section(problem, rhs, m, horizon)
    if isinstance(found, str):
        return Verdict(UNDECIDED, claim0, reason=found, numerical={"seconds": time.perf_counter() - t0})
    j, c, point, mu_f = found
    numerical = {"section": j, "level": float(c), "float_size_ratio": float(mu_f)}

    def left():
        return seconds - (time.perf_counter() - t0)

    with working_precision(prec):
        field = ProjectiveSeries(heads, None)

        def leg(Z0, lo, hi, value, share, once):
            return to_section(field, start_state(field, Z0), j, c, box_accept(field, j, c, _ORDER, lo, hi, value), rhs,
                              order=_ORDER, apriori="taylor", deadline=time.perf_counter() + share * max(0.0, left()),
                              tol=_TOL, max_steps=20_000, once=once)

        def returns(E, _a, _n):       # the size shrinks per return: 0 < μ < 1, σ > 0
            mu, sigma = E[m, 0], E[m + 1, 0]
            return (mu, sigma) if mu > 0 and mu < 1 and sigma > 0 else None

        def lands(E, _a, _n):
            return (E[m, 0], E[m + 1, 0]) if E[m, 0] > 0 else None

        box = first_returning_box(
            point, j, c, BOX_SIZES, 1.0,
            lambda lo, hi: leg(field.join(box_matrix(fmpq_list(lo), fmpq_list(hi), d), flint.arb(1), flint.arb(0)),
                               lo, hi, returns, 0.3, True), left)
        if box is None:
            numerical["seconds"] = time.perf_counter() - t0
            return Verdict(UNDECIDED, claim0, numerical=numerical,
                           reason="no box on the section around the float crossing point returns into itself "
                                  f"under the validated projective flow (relative sizes {BOX_SIZES})")
        lo, hi, back, rel, (mu, sigma) = box
        run, first = leg(projective_start(field, flint.arb_mat(problem.exact.Sigma0), refuse), lo, hi, lands, 0.55, False)
        numerical.update(steps=run.steps, tau_final=float(run.times[-1]), box_relative_size=rel,
                         return_steps=back.steps)
        if first is None:
            numerical["seconds"] = time.perf_counter() - t0
            return Verdict(UNDECIDED, claim0, numerical=numerical,
                           reason=f"the validated projective tube from Σ₀ did not cross the section inside the box: "
                                  f"{run.stop}")
        u1, s1 = first
        T_lo, T_hi, width = stored_bracket(*return_bracket(s1, u1, mu, sigma))
    data = {"section": j, "level": frac_str(c), "sense": "increasing", "box_lo": [frac_str(x) for x in lo],
            "box_hi": [frac_str(x) for x in hi], "proj_steps": vec_str(run.times), "proj_order": _ORDER,
            "proj_apriori": "taylor", "return_steps": vec_str(back.times), "tube_prec": prec,
            "T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)}
    claim = Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)})
    numerical["relative_width"] = width
    note = (f"validated projective tubes (order {_ORDER}, {prec} bits): from Σ₀ ({run.steps} steps) to the section "
            f"X_{j} = {float(c):.8g}, and from a box of relative size {rel:g} on it back into the box "
            f"({back.steps} steps), u shrinking by μ ≈ {float(mu_f):.6g} per return")
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "BLOWUP", "T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)},
                             (f"the projective state returns to a box on a section with the size multiplied by "
                              f"μ ≈ {float(mu_f):.4g} per return: blow-up at T* ∈ [{float(T_lo):.10g}, {float(T_hi):.10g}]"))


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# after tube-rotation (61), the d = 2 annulus certificate
declare("tube-rotation-return", 62, ("BLOWUP",), tube_applies(False, d_max=4, what="the rotation return"),
        searching(find_rotation_return, unless=("settles",), seconds=30.0),
        doc="BLOWUP of this Σ₀ with a bracket: a validated projective tube returns to a box on a section, grown by "
            "λ > 1 per turn; quadratic flows without drift, d ≤ 4.")
