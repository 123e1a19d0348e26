"""Clustering of *this* Σ₀ onto a rank-deficient equilibrium of the drift model (kind
``tube-singular-equilibrium``, :mod:`symbolic_tf.certify.check.kinds.tube_singular_equilibrium`).

The float solution from Σ₀ settles on an equilibrium Σ∞ of rank d − 1 (a numerically singular
limit); Newton refines it, a Lyapunov solve of the linearisation gives W, and a validated tube is
run until its end lies in the contracting ellipsoid; the checker's own procedure verifies each
candidate and the final certificate is re-checked independently."""
from __future__ import annotations

import time

import numpy as np

from ....exact.rational import dyadic_matrix_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ....numeric.quadratic_field import FloatField
from ._float_field import float_settle

__all__ = ["KIND", "find_singular_equilibrium"]

KIND = "tube-singular-equilibrium"
ARGUMENT = "validated-tube+contracting-ellipsoid-at-a-singular-equilibrium"
_CLAIM0 = "for this Σ₀: the solution is global and converges to an equilibrium of rank d − 1 (validated tube + basin)"


def _upper(d):
    return [(i, j) for i in range(d) for j in range(i, d)]


def find_singular_equilibrium(problem, *, order: int = 14, prec: int = 128, seconds: float = 6.0,
                              horizon: float = 200.0, max_steps: int = 20000) -> Verdict:
    """PROVED (CLUSTERING, rank d − 1, for this Σ₀) or UNDECIDED with the reason; never raises on
    float trouble.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem, with Σ₀.
    order : int
        The Taylor order k of the tube (14: the tube's steps near a large, nearly singular Σ are limited
        by the field's speed, not by accuracy, and a lower order makes each step cheaper).
    prec : int
        The arb working precision in bits (tube and ball checks).
    seconds : float
        The wall-clock budget of the search.
    horizon : float
        The end time of the float guess (SciPy) that precedes the tube.
    max_steps : int
        The largest number of tube steps.

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED (CLUSTERING, rank d − 1, THIS) with ``evidence["certificate"]`` of kind
        ``tube-singular-equilibrium``, else UNDECIDED with the reason.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, horizon, max_steps, t0), _CLAIM0, "search")


def _find(problem, order, prec, seconds, horizon, max_steps, t0) -> Verdict:
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_singular_equilibrium import check_singular_end
    from .lyapunov import (Throttle, certify_and_check, ellipsoid_fields, entry_ellipsoid, lyapunov_guess,
                           robust_lyapunov_guess, tube_missed)
    from .tube import flow_inputs_or_stop
    from .tube_end import passes, tube_entry

    # the preamble every drift-model tube search has (tube_collapse's too): the exact flow, or the reason
    heads, F, S0q = flow_inputs_or_stop(problem, True, "needs a drift F (without it singular equilibria are not isolated)")
    d = problem.d
    up = _upper(d)
    ff = FloatField(heads, F, d)

    sol = float_settle(ff.sigma_rhs, qmat_to_float(S0q), horizon, rtol=1e-10, atol=1e-13)
    S = sol.y[:, -1].reshape(d, d)
    if sol.status != 0 or not np.all(np.isfinite(S)):
        return Verdict(UNDECIDED, _CLAIM0, reason="the float solution does not settle")
    w = np.linalg.eigvalsh(0.5 * (S + S.T))
    if not (w[0] < 1e-8 * w[-1] and (d == 1 or w[1] > 1e-6 * w[-1])):
        return Verdict(UNDECIDED, _CLAIM0, reason="the float limit does not have rank d − 1")

    def G(x):
        M = np.zeros((d, d))
        for k, (i, j) in enumerate(up):
            M[i, j] = M[j, i] = x[k]
        R = ff.sigma_rhs(0, M.ravel()).reshape(d, d)
        return np.array([R[i, j] for i, j in up]), M

    def jac(M):
        cols = []
        for i, j in up:
            E = np.zeros((d, d))
            E[i, j] = E[j, i] = 1.0
            DG = ff.L(E) + ff.dQ(M, E)
            cols.append([DG[a, b] for a, b in up])
        return np.array(cols).T

    x = np.array([S[i, j] for i, j in up])
    for _ in range(30):
        g, M = G(x)
        try:
            dx = np.linalg.solve(jac(M), -g)
        except np.linalg.LinAlgError:
            # a zero eigenvalue of the linearisation: the limit is not an isolated, hyperbolic equilibrium
            # (e.g. a Σ₀ exactly on the stable manifold of a saddle inside a family of rest points)
            return Verdict(UNDECIDED, _CLAIM0, reason="the float limit is a degenerate equilibrium (its linearisation "
                           "is singular): not hyperbolically attracting")
        x = x + dx
        if np.abs(dx).max() < 1e-15 * max(1.0, np.abs(x).max()):
            break
    _, Ms = G(x)
    J = jac(Ms)
    if np.linalg.eigvals(J).real.max() >= -1e-9:
        return Verdict(UNDECIDED, _CLAIM0, reason="the singular equilibrium is not hyperbolically attracting")
    # the most perturbation-tolerant Lyapunov guess first: a larger certified ellipsoid, an earlier entry
    guesses = [g for g in (robust_lyapunov_guess(J), lyapunov_guess(J)) if g is not None]
    if not guesses:
        return Verdict(UNDECIDED, _CLAIM0, reason="no float Lyapunov matrix / contraction rate")
    S_str = dyadic_matrix_str(Ms)
    throttle = Throttle()

    def entered(Sb, t):
        if not throttle.due(t):
            return None
        z = np.array([float(Sb[i, j].mid()) - Ms[i, j] for i, j in up])
        return entry_ellipsoid(z, guesses, lambda guess, rho: ellipsoid_fields("Sigma_star", S_str, guess, rho),
                               lambda data: passes(check_singular_end, heads, F, Sb, data, d, prec))

    left = max(0.5, 0.5 * (seconds - (time.perf_counter() - t0)))
    numerical = {}
    entry = tube_entry(heads, F, S0q, entered, numerical, order=order, prec=prec, max_steps=max_steps, seconds=left)
    if entry.t is None:
        return tube_missed(entry.tube, _CLAIM0, numerical, t0, "enter the contracting ellipsoid")
    data = dict(entry.found, prec=prec, **entry.fields)
    claim = Claim("CLUSTERING", Quantifier.THIS, {"rank": d - 1})
    note = (f"validated order-{order} Taylor tube over {entry.steps} steps to t = {float(entry.t):.10g}, "
            f"ending in a contracting ellipsoid around a rank-{d - 1} equilibrium")
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "CLUSTERING", "rank": d - 1},
                             f"validated tube from Σ₀ ({entry.steps} steps) into a contracting ellipsoid around an "
                             f"equilibrium on which det Σ decays: the limit has rank {d - 1}")


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

declare("tube-singular-equilibrium", 59, ("CLUSTERING",), tube_applies(True),
        searching(find_singular_equilibrium, unless=("blowup",), seconds=20.0),
        doc="CLUSTERING (rank d − 1) of this Σ₀: a validated tube enters a contracting ellipsoid around an "
            "equilibrium on which det Σ decays; quadratic flows with drift.")
