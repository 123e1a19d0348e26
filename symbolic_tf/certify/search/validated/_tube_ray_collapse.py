"""Collapse of *this* Σ₀ to a point along an attracting collapsing ray Σ ≈ C/(t + t₀), Q(C) = −C
((multi-head) softmax without drift, general V; kind ``tube-ray-collapse``,
:mod:`symbolic_tf.certify.check.kinds.tube_ray_collapse`).

Every eigenvalue of such a Σ(t) decays only like 1/t, so the collapse is not hyperbolic in Σ; in
the projective coordinates Σ = vX, dτ = v dt of the kind it is.  The float solution is followed to
a late time; when Σ/tr Σ has settled and t·tr Σ(t) is nearly constant, Newton refines the ray point
X* (Q(X*) = tr Q(X*)·X*, tr X* = 1, tr Q(X*) < 0), κ = 2|tr Q(X*)|, and a Lyapunov matrix of the
projective Jacobian is chosen, block-diagonal with a small weight ε on v (X' does not depend on v,
so a small ε lets the ellipsoid hold large v at no cost to the contraction).  A validated tube from
Σ₀ then runs until its end box lies in the ellipsoid.  Every float is a guess verified by the
checker's own procedure; the certificate is re-checked independently.
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ....exact.rational import dyadic, float_of, fmpq_of, frac_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded

__all__ = ["KIND", "find_collapse_ray"]

KIND = "tube-ray-collapse"
ARGUMENT = "validated-tube+projective-collapsing-ray-lyapunov"
_CLAIM0 = "for this Σ₀: the solution is global and Σ(t) → 0 along a collapsing ray (validated tube + ray basin)"


def find_collapse_ray(problem, *, order: int = 20, prec: int = 128, seconds: float = 20.0,
                      horizon: float = 2000.0, max_steps: int = 20000) -> Verdict:
    """PROVED (CLUSTERING, rank 0, for this Σ₀) with a ``tube-ray-collapse`` certificate, or
    UNDECIDED with the reason.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, horizon, max_steps, t0), _CLAIM0,
                   "tube-ray-collapse search")


def _region(heads, d, Xf, prec):
    """Rational region data around a float ray point Xf (tr Xf = 1, tr Q(Xf) < 0), or the reason."""
    import flint

    from ....exact.rational import dyadic_matrix_str, qmat
    from ....spec.errors import CertificationFailed
    from ...check.kinds.tube_ray_collapse import CollapseField, check_collapse_region
    from ...check.tube_replay import svec_basis, svec_pairs
    from .lyapunov import lyapunov_guess
    from .tube_end import refuse

    up = svec_pairs(d)
    m = len(up)
    Xs_str = dyadic_matrix_str(0.5 * (Xf + Xf.T))
    Xs = qmat(Xs_str)
    ex = CollapseField(heads, flint.fmpq_mat, flint.fmpq(0))
    cstar = float(ex.c(Xs, 0).p) / float(ex.c(Xs, 0).q)
    if not cstar < 0:
        return "tr Q(X*) is not negative: no collapsing ray"
    kappa = dyadic(2 * abs(cstar), 20)
    fb = CollapseField(heads, flint.arb_mat, flint.arb(fmpq_of(kappa)))
    J = np.array([[float(x.mid()) for x in row]
                  for row in fb.jacobian(flint.arb_mat(Xs), flint.arb(0), svec_basis(d))])
    ly = lyapunov_guess(J[:m, :m])
    if ly is None or np.linalg.eigvals(J[:m, :m]).real.max() >= 0:
        return "the collapsing ray is not attracting in projective coordinates"
    mu = min(float(ly.mu), abs(cstar) / 4)
    base = {"X_star": Xs_str, "kappa": frac_str(kappa), "mu": frac_str(dyadic(mu, 20)), "prec": prec}

    last = "no ellipsoid size passed"
    for rho in (1e-4, 1e-6, 1e-8, 1e-10, 1e-12):
        for eps in (1e-12, 1e-8, 1e-4, 1e-2):   # a small weight on v first: it lets the ellipsoid hold a large v
            W = np.zeros((m + 1, m + 1))
            W[:m, :m] = ly.W
            W[m, m] = eps
            # one rounding of the upper triangle, mirrored: W stays exactly symmetric (a float W may be
            # asymmetric in its last bits) and W⁻¹ is that of the stored W
            Wq = [[Fraction(0)] * (m + 1) for _ in range(m + 1)]
            for i in range(m + 1):
                for j in range(i, m + 1):
                    Wq[i][j] = Wq[j][i] = dyadic(float(W[i, j]), 30)
            Wstr = [[frac_str(q) for q in row] for row in Wq]
            Winv = np.linalg.inv(np.array([[float(q) for q in row] for row in Wq]))
            R = [frac_str(dyadic(1.001 * np.sqrt(rho * Winv[k, k]) + 1e-300, 20)) for k in range(m + 1)]
            data = dict(base, W=Wstr, rho=frac_str(dyadic(rho, 20)), R=R)
            try:
                check_collapse_region(heads, d, data, prec, refuse)
            except CertificationFailed as exc:
                last = str(exc)
                continue
            return data
    return f"no certified ellipsoid around the collapsing ray ({last})"


def _find(problem, order, prec, seconds, horizon, max_steps, t0) -> Verdict:
    from scipy.integrate import solve_ivp

    from ....spec.errors import CertificationFailed
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_ray_collapse import check_collapse_end
    from ...check.tube_replay import svec_pairs
    from .float_budget import capped
    from ....numeric.quadratic_field import FloatField
    from .lyapunov import Throttle, certify_and_check, tube_missed
    from .tube_ray import newton_ray
    from .tube import flow_inputs_or_stop
    from .tube_end import refuse, tube_entry

    heads, _F, S0q = flow_inputs_or_stop(problem, False, "the collapsing-ray certificate covers the flow without drift")
    d = problem.d
    ff = FloatField(heads, None, d)

    def rhs(_t, y):
        return ff.Q(y.reshape(d, d)).ravel()

    with np.errstate(all="ignore"):
        sol = solve_ivp(capped(rhs), (0.0, horizon), qmat_to_float(S0q).ravel(), method="LSODA", rtol=1e-10,
                        atol=1e-14, dense_output=True)
        if sol.status == -1:  # LSODA's own failure, not the flow's: DOP853 instead
            sol = solve_ivp(capped(rhs), (0.0, horizon), qmat_to_float(S0q).ravel(), method="DOP853", rtol=1e-10,
                            atol=1e-14, dense_output=True)
    numerical = {"seconds": time.perf_counter() - t0}
    if sol.status != 0:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="the float solution does not reach the horizon")
    S_mid, S_end = sol.sol(horizon / 2).reshape(d, d), sol.y[:, -1].reshape(d, d)
    tr_mid, tr_end = np.trace(S_mid), np.trace(S_end)
    if not (tr_end > 0 and np.all(np.isfinite(S_end))):
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="the float solution fails")
    drift = float(np.abs(S_end / tr_end - S_mid / tr_mid).max())
    ratio = float(horizon * tr_end / (horizon / 2 * tr_mid))
    numerical.update(direction_drift=drift, t_trace_ratio=ratio)
    if not (drift < 1e-3 and abs(ratio - 1) < 0.05):
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason="the float solution does not settle on a collapsing ray (Σ ≈ C/t)")
    Xf, res = newton_ray(ff, S_end / tr_end)
    if not res < 1e-10:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="Newton does not converge to a ray point")
    data = _region(heads, d, Xf, prec)
    if isinstance(data, str):
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason=data)
    W = np.array([[float_of(x) for x in row] for row in data["W"]])
    Xs = np.array([[float_of(x) for x in row] for row in data["X_star"]])
    rho = float_of(data["rho"])
    up = svec_pairs(d)
    failures = []
    throttle = Throttle(every=50)

    def entered(S, t):
        if not throttle.due(t):
            return None
        Sf = np.array([[float(S[i, j].mid()) for j in range(d)] for i in range(d)])
        v = np.trace(Sf)
        if not v > 0:
            return None
        z = np.array([Sf[i, j] / v - Xs[i, j] for i, j in up] + [v])
        if not z @ W @ z < 0.5 * rho:
            return None
        try:
            check_collapse_end(heads, S, data, prec, refuse)
        except CertificationFailed as exc:
            failures.append(str(exc))
            return None
        return True

    left = max(0.5, seconds - (time.perf_counter() - t0))
    entry = tube_entry(heads, None, S0q, entered, numerical, order=order, prec=prec, max_steps=max_steps, seconds=left)
    if entry.t is None:
        if failures:
            numerical["last_region_failure"] = failures[-1]
        return tube_missed(entry.tube, _CLAIM0, numerical, t0, "enter the certified basin of the collapsing ray")
    data = dict(data, **entry.fields)
    note = (f"validated order-{order} Taylor tube over {entry.steps} steps to t = {float(entry.t):.10g}, "
            "ending in the basin of an attracting collapsing ray Σ ≈ C/(t + t₀) (projective coordinates)")
    return certify_and_check(problem, KIND, Claim("CLUSTERING", Quantifier.THIS, {"rank": 0}), data, note, numerical,
                             t0, ARGUMENT, {"regime": "CLUSTERING", "rank": 0},
                             f"validated tube from Σ₀ ({entry.steps} steps) into the basin of a collapsing ray: "
                             "Σ(t) → 0 like 1/t")


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

declare("tube-ray-collapse", 65, ("CLUSTERING",), tube_applies(False),
        searching(find_collapse_ray, unless=("blowup",), seconds=30.0),
        doc="CLUSTERING (rank 0) of this Σ₀: a validated tube enters the basin of an attracting collapsing ray "
            "Σ ≈ C/(t + t₀); quadratic flows without drift.")
