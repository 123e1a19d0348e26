"""Clustering of *this* Σ₀ to a rank-one limit (single-head softmax, d = 2, no drift, general V;
kind ``tube-cluster``, :mod:`symbolic_tf.certify.check.kinds.tube_cluster`).

The float solution from Σ₀ is followed until it settles; its limit direction is matched to an
isotropic rank-one point X_iso of A + Aᵀ (a line of equilibria).  A quadratic Lyapunov function
of the projective field (with the trace direction made attracting by κ = 1) around a rational
X_star ≈ X_iso certifies a contracting ellipsoid containing X_iso, and a validated tube from Σ₀
is run until its end enters the ellipsoid.  Every float is a guess verified by the checker's own
procedure; the final certificate is re-checked independently.
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ....exact.rational import dyadic_matrix_str, frac_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ....numeric.quadratic_field import head_rhs
from ._float_field import float_settle, isotropic_points

__all__ = ["KIND", "find_cluster"]

KIND = "tube-cluster"
ARGUMENT = "validated-tube+projective-lyapunov-at-an-isotropic-equilibrium-line"
_CLAIM0 = "for this Σ₀: the solution is global and Σ(t) converges to a rank-one limit (validated tube + basin)"
_UP = [(0, 0), (0, 1), (1, 1)]
_KAPPA = Fraction(1)


def _float_field(V, A, kappa):
    def Q(X):
        H = V @ X @ A @ X
        return H + H.T

    def dQ(X, E):
        H = V @ E @ A @ X + V @ X @ A @ E
        return H + H.T

    def jac(X):
        ct = np.trace(Q(X)) + kappa * (np.trace(X) - 1)
        cols = []
        for i, j in _UP:
            E = np.zeros((2, 2))
            E[i, j] = E[j, i] = 1.0
            dq = dQ(X, E)
            dc = np.trace(dq) + kappa * np.trace(E)
            top = dq - dc * X - ct * E
            cols.append([top[a, b] for a, b in _UP])
        return np.array(cols).T

    return Q, jac


def find_cluster(problem, *, order: int = 14, prec: int = 128, seconds: float = 6.0, horizon: float = 400.0,
                 max_steps: int = 20000) -> Verdict:
    """PROVED (CLUSTERING, rank 1, for this Σ₀) with a ``tube-cluster`` certificate, or UNDECIDED with
    the reason.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, horizon, max_steps, t0),
                   _CLAIM0, "tube-cluster search")


def _find(problem, order, prec, seconds, horizon, max_steps, t0) -> Verdict:
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_cluster import check_cluster_end
    from .lyapunov import (Throttle, certify_and_check, ellipsoid_fields, entry_ellipsoid, lyapunov_guess,
                           robust_lyapunov_guess)
    from ....variants import get as get_variant
    from .tube import flow_inputs_or_stop
    from .tube_end import passes, tube_entry

    if problem.d != 2 or get_variant(problem.variant).composite:
        return Verdict(UNDECIDED, _CLAIM0, reason="the clustering certificate covers one quadratic (softmax) head "
                       "in d = 2")
    heads, _F, S0q = flow_inputs_or_stop(problem, False, "the clustering certificate covers the flow without drift")
    V, A = qmat_to_float(heads[0][0]), qmat_to_float(heads[0][1])
    iso = isotropic_points(A)
    if not iso:
        return Verdict(UNDECIDED, _CLAIM0, reason="A + Aᵀ is not indefinite: no line of rank-one equilibria")

    sol = float_settle(head_rhs(V, A, 2), qmat_to_float(S0q), horizon, rtol=1e-10, atol=1e-13)
    S_end = sol.y[:, -1].reshape(2, 2)
    if sol.status != 0 or not np.all(np.isfinite(S_end)) or np.trace(S_end) <= 0:
        # tr Σ may pass 10⁸ on its way to a rank-one limit of trace e^25–e^43 (a Jordan-block V reached from
        # the repelling side of its ray: a float 'blow-up' that is not one); the scale-free form tells
        X_end = _projective_settle(head_rhs(V, A, 2), qmat_to_float(S0q))
        if X_end is None:
            return Verdict(UNDECIDED, _CLAIM0, reason="the float solution does not settle (it blows up or fails)",
                           numerical={"seconds": time.perf_counter() - t0})
    else:
        X_end = S_end / np.trace(S_end)
    dist = [float(np.abs(X_end - P).max()) for P in iso]
    k = int(np.argmin(dist))
    numerical = {"float_distance_to_isotropic": dist[k]}
    if dist[k] > 1e-3:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=f"the float solution does not approach an isotropic rank-one line (distance {dist[k]:.3g})")
    X = iso[k]
    Q, jac = _float_field(V, A, float(_KAPPA))
    J = jac(X)
    ev = np.linalg.eigvals(J)
    numerical["spectral_abscissa"] = float(ev.real.max())
    if ev.real.max() >= -1e-9:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=f"the rank-one equilibrium line is not attracting transversally (abscissa {ev.real.max():.3g})")
    # the most perturbation-tolerant Lyapunov guess first (a larger certified ellipsoid: an earlier entry,
    # before the stiff approach to a large rank-one limit makes the tube's steps short)
    guesses = [g for g in (robust_lyapunov_guess(J), lyapunov_guess(J)) if g is not None]
    if not guesses:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="no float Lyapunov matrix / contraction rate")
    Xs_str = dyadic_matrix_str(X)
    throttle = Throttle()

    def entered(S, t, gate=throttle):
        if not gate.due(t):
            return None
        tr = float(S[0, 0].mid() + S[1, 1].mid())
        if not tr > 0:
            return None
        z = np.array([float(S[i, j].mid()) / tr - X[i, j] for i, j in _UP])
        return entry_ellipsoid(z, guesses,
                               lambda guess, rho: dict(ellipsoid_fields("X_star", Xs_str, guess, rho),
                                                       kappa=frac_str(_KAPPA)),
                               lambda data: passes(check_cluster_end, heads, S, data, prec))

    def end_data(found, fields):
        return dict(found, prec=prec, **fields)

    # the tube in t gets a share of the budget; a transient that is stiff in t (rates proportional to
    # the size of Σ, which grows by orders of magnitude on the way to the rank-one line) is continued
    # in projective form, where the scale-free time dτ = tr Σ·dt keeps the rates of order one
    left = max(0.5, _T_SHARE * (seconds - (time.perf_counter() - t0)))
    entry = tube_entry(heads, None, S0q, entered, numerical, order=order, prec=prec, max_steps=max_steps,
                       seconds=left)
    if entry.t is None:
        return _continue_projective(problem, heads, entry.tube, entered, numerical, order, prec, t0, seconds,
                                    end_data)
    data = end_data(entry.found, entry.fields)
    claim = Claim("CLUSTERING", Quantifier.THIS, {"rank": 1})
    note = (f"validated order-{order} Taylor tube over {entry.steps} steps to t = {float(entry.t):.10g}, "
            "ending in the contracting ellipsoid around an isotropic rank-one equilibrium line of the projective field")
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "CLUSTERING", "rank": 1},
                             f"validated tube from Σ₀ ({entry.steps} steps) into a contracting neighbourhood of a "
                             "rank-one equilibrium line; the limit has rank 1")


def _projective_settle(rhs, S0: np.ndarray, tau_end: float = 4000.0):
    """X = Σ/tr Σ at the end of a float run of the scale-free flow X′ = Q(X) − cX, u′ = −cu (c = tr Q(X),
    u = 1/tr Σ, dτ = tr Σ·dt) when it settles with u bounded away from 0 (Σ converges: no blow-up), else None."""
    from scipy.integrate import solve_ivp

    from .float_budget import capped

    def field(_tau, y):
        X = y[:4].reshape(2, 2)
        Q = rhs(0.0, X.ravel()).reshape(2, 2)
        c = np.trace(Q)
        return np.concatenate([(Q - c * X).ravel(), [-c * y[4]]])

    tr = float(np.trace(S0))
    if not tr > 0:
        return None
    with np.errstate(all="ignore"):
        sol = solve_ivp(capped(field), (0.0, tau_end), np.concatenate([(S0 / tr).ravel(), [1 / tr]]), method="LSODA",
                        rtol=1e-10, atol=1e-14)
    y = sol.y[:, -1]
    if sol.status != 0 or not np.all(np.isfinite(y)) or not y[4] > 1e-300:
        return None
    X = y[:4].reshape(2, 2)
    # settled: the field is negligible and the scale no longer moves (c ≈ 0 at a rank-one equilibrium line)
    if np.abs(field(0.0, y)[:4]).max() > 1e-9 or abs(np.trace(rhs(0.0, X.ravel()).reshape(2, 2))) > 1e-9:
        return None
    return X


_T_SHARE = 0.05      # the share of the budget for the tube in t before the projective continuation (past the switch width its time is spent only if it enters)
_PROJ_ORDER = 20     # the Taylor order of the projective continuation
_PROJ_TOL = 1e-15    # the largest Lagrange remainder radius of one of its steps
_PROJ_WIDE = 1e-6    # stop when its state is wider than this (the basin's ellipsoid is far wider)
_PROJ_CAPS = (0.5, 0.25)   # the step caps in τ tried in turn (seed 2754558644 #169: 1.0 needs 147 rejected steps, 0.25 twice the steps)


def _continue_projective(problem, heads, tube, entered, numerical, order, prec, t0, seconds, end_data) -> Verdict:
    """After a tube in t that missed: its continuation in projective (scale-free) form from the last
    box of relative width ≤ 10⁻¹² (Σ₀ itself if none) (the kind's check 1′), each accepted step's X
    tried as the entry of the basin (X/tr X = Σ/tr Σ at the same instant, by homogeneity)."""
    from ...check.certificate import vec_str
    from ...check.claims import Claim, Quantifier
    from .lyapunov import certify_and_check, tube_fields, tube_missed
    from ._projective_tube import integrate_projective_capped, switch_index

    from .lyapunov import Throttle

    hits = []

    def fresh():
        gate = Throttle()

        def until(X, u, s, tau):
            got = entered(X, tau, gate)
            if got is None:
                return False
            hits.append(got)
            return True
        return until

    if time.perf_counter() - t0 > seconds - 0.5:
        return tube_missed(tube, _CLAIM0, numerical, t0, "enter a certified basin of the rank-one line")
    k = switch_index(tube)
    run = integrate_projective_capped(heads, None, tube.ends[k], fresh, prec=prec, order=_PROJ_ORDER,
                                      deadline=t0 + seconds, tol=_PROJ_TOL, wide=_PROJ_WIDE, apriori="taylor",
                                      watch_time=False, caps=_PROJ_CAPS)
    numerical["projective"] = dict(run.summary(), switch_t=float(tube.times[k]), h_max=getattr(run, "h_max", None))
    if not hits:
        numerical["seconds"] = time.perf_counter() - t0
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=f"neither the validated tube in t ({numerical.get('stop', '?')}, t ≈ "
                              f"{numerical.get('t_final', float('nan')):.4g}) nor its projective continuation "
                              f"({run.stop}, τ = {float(run.taus[-1]):.4g}) entered a certified basin of the "
                              "rank-one line")
    times, fields = tube_fields(tube, tube.times[k], order, prec)
    data = dict(end_data(hits[-1], fields), proj_steps=vec_str(run.taus), proj_order=_PROJ_ORDER,
                proj_apriori="taylor")
    claim = Claim("CLUSTERING", Quantifier.THIS, {"rank": 1})
    note = (f"validated order-{order} Taylor tube over {len(times) - 1} steps to t = {float(tube.times[k]):.10g}, "
            f"continued by an order-{_PROJ_ORDER} tube of the projective flow over {len(run.taus) - 1} steps to "
            f"τ = {float(run.taus[-1]):.10g} (dτ = tr Σ dt), ending in the contracting ellipsoid around an "
            "isotropic rank-one equilibrium line of the projective field")
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "CLUSTERING", "rank": 1},
                             f"validated tube from Σ₀ ({len(times) - 1} steps in t, {len(run.taus) - 1} projective) "
                             "into a contracting neighbourhood of a rank-one equilibrium line; the limit has rank 1")


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# its float pre-check is cheap, so it runs before the blow-up tubes (60, 61)
declare("tube-cluster", 58, ("CLUSTERING",), tube_applies(False, single=True, d=2, what="the clustering certificate"),
        # not skipped on a float 'blow-up': its pre-check reads the scale-free flow, where a limit of trace e^40
        # (the float outlook's 'blow-up') settles
        searching(find_cluster, seconds=20.0),
        doc="CLUSTERING (rank 1) of this Σ₀: a validated tube enters a contracting neighbourhood of an isotropic "
            "rank-one equilibrium line; one quadratic head, no drift, d = 2.")
