"""Global existence with at most exponential growth of *this* Σ₀ (single-head softmax, d = 2, a drift F,
general V; kind ``tube-growth``, :mod:`symbolic_tf.certify.check.kinds.tube_growth`).

In the split Σ = sP + Y (s = tr Σ, P an isotropic rank-one point of A + Aᵀ, Y trace zero) the
flow reads s' = s·φ(Y, 1/s), Y' = s·G(Y, 1/s) with G(Y, 0) = 𝓜Y + b linear.  When 𝓜 is Hurwitz
and the growth rate λ = φ(Y*, 0) at Y* = −𝓜⁻¹b is positive, a float Lyapunov matrix of 𝓜 gives
a candidate ellipsoid around a rational Y_star ≈ Y* and a bound v_max of 1/s; the region is
verified by the checker's own procedure, and a validated tube from Σ₀ is run until its end
enters it.  Every float is a guess; the final certificate is re-checked independently.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from ....exact.rational import dyadic, dyadic_matrix_str, float_of, frac_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ._float_field import isotropic_points

__all__ = ["KIND", "find_growth"]

KIND = "tube-growth"
ARGUMENT = "validated-tube+forward-invariant-cone-around-an-isotropic-direction"
_CLAIM0 = "for this Σ₀: Σ(t) exists for all t and grows at most exponentially (validated tube + invariant cone)"
_BASIS = [np.array([[1.0, 0.0], [0.0, -1.0]]), np.array([[0.0, 1.0], [1.0, 0.0]])]


def _linear_part(V, A, F, P):
    def DQ(X, E):
        H = V @ E @ A @ X + V @ X @ A @ E
        return H + H.T

    LP = F @ P + P @ F.T
    M = np.array([[(DQ(P, E) - np.trace(DQ(P, E)) * P)[k] for E in _BASIS] for k in [(0, 0), (0, 1)]])
    bm = LP - np.trace(LP) * P
    y = -np.linalg.solve(M, np.array([bm[0, 0], bm[0, 1]]))
    Y = y[0] * _BASIS[0] + y[1] * _BASIS[1]
    return M, y, float(np.trace(DQ(P, Y)) + np.trace(LP))


def find_growth(problem, *, order: int = 20, prec: int = 128, seconds: float = 8.0, horizon: float = 20.0,
                max_steps: int = 20000) -> Verdict:
    """PROVED (GLOBAL_EXISTENCE, for this Σ₀) with a ``tube-growth`` certificate, or UNDECIDED with the
    reason.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, horizon, max_steps, t0),
                   _CLAIM0, "tube-growth search")


def _trace_zero_str(y):
    """The exact trace-zero [[y₀, y₁], [y₁, −y₀]] of dyadic roundings, as strings."""
    out = dyadic_matrix_str(np.array([[y[0], y[1]], [y[1], -y[0]]]))
    out[1][1] = frac_str(-Fraction(out[0][0]))
    return out


def _first_order(V, A, F, P, M, y):
    """Y₁ = −𝓜⁻¹R(Y*) (coordinates (Y₀₀, Y₀₁)), R(Y) = Q(Y) + L(Y) minus their traces along P: the
    first-order term of the centre manifold Y*(v) = Y* + v·Y₁ + O(v²); None when not finite."""
    Y = np.array([[y[0], y[1]], [y[1], -y[0]]])
    H = V @ Y @ A @ Y + F @ Y
    R = H + H.T
    R = R - np.trace(R) * P
    try:
        y1 = -np.linalg.solve(M, np.array([R[0, 0], R[0, 1]]))
    except np.linalg.LinAlgError:
        return None
    return y1 if np.all(np.isfinite(y1)) else None


def _float_check(V, A, F, S0, P, y, horizon):
    from scipy.integrate import solve_ivp

    from .float_budget import capped

    def rhs(_t, z):
        S = z.reshape(2, 2)
        H = V @ S @ A @ S + F @ S
        return (H + H.T).ravel()

    def big(_t, z):
        return 1e6 - np.abs(z).max()

    big.terminal = True
    with np.errstate(all="ignore"):
        sol = solve_ivp(capped(rhs), (0.0, horizon), S0.ravel(), method="Radau", rtol=1e-9, atol=1e-10, events=big)
    S = sol.y[:, -1].reshape(2, 2)
    if not np.all(np.isfinite(S)) or np.trace(S) <= 0:
        return math.inf
    Y = S - np.trace(S) * P
    return float(max(abs(Y[0, 0] - y[0]), abs(Y[0, 1] - y[1]))) / (1 + float(np.abs(y).max()))


def _find(problem, order, prec, seconds, horizon, max_steps, t0) -> Verdict:
    from ....spec.errors import CertificationFailed
    from ....variants import get as get_variant
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_growth import check_growth_end, check_growth_region
    from .lyapunov import Throttle, certify_and_check, ellipsoid_fields, lyapunov_guess, tube_missed
    from .tube import flow_inputs_or_stop
    from .tube_end import passes, refuse, tube_entry

    if problem.d != 2 or get_variant(problem.variant).composite:
        return Verdict(UNDECIDED, _CLAIM0, reason="the growth certificate covers one quadratic (softmax) head in d = 2")
    heads, Fq, S0q = flow_inputs_or_stop(problem, True, "the growth certificate covers the flow with a drift F ≠ 0")
    V, A, F = qmat_to_float(heads[0][0]), qmat_to_float(heads[0][1]), qmat_to_float(Fq)
    S0 = qmat_to_float(S0q)
    iso = isotropic_points(A)
    if not iso:
        return Verdict(UNDECIDED, _CLAIM0, reason="A + Aᵀ is not indefinite: no isotropic rank-one direction")
    numerical = {}
    cands = []
    for k, P in enumerate(iso):
        try:
            M, y, lam = _linear_part(V, A, F, P)
        except np.linalg.LinAlgError:
            continue
        if np.linalg.eigvals(M).real.max() < -1e-9 and lam > 1e-9:
            cands.append((k, M, y, lam))
    if not cands:
        return Verdict(UNDECIDED, _CLAIM0, reason="no isotropic direction is transversally attracting with a positive "
                       "growth rate (𝓜 Hurwitz, λ > 0)")
    dist = [_float_check(V, A, F, S0, iso[k], y, horizon) for k, _M, y, _l in cands]
    j = int(np.argmin(dist))
    k, M, y, lam = cands[j]
    numerical.update(float_distance_to_centre=dist[j], growth_rate=lam)
    if not dist[j] < 1e-2:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=f"the float solution does not settle near the centre manifold (distance {dist[j]:.3g})")
    guess = lyapunov_guess(M)
    if guess is None:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="no float Lyapunov matrix / contraction rate")
    ys_str = _trace_zero_str(y)
    # the first-order centre c(v) = Y* + v·Y₁, Y₁ = −𝓜⁻¹R(Y*): its residual is O(v²), so a larger v_max
    y1 = _first_order(V, A, F, iso[k], M, y)
    centres = [{"Y_one": _trace_zero_str(y1)}] if y1 is not None else []
    centres.append({})
    scale = 1.0 + float(y @ y)
    region = None
    for extra in centres:
        for rf in (0.05, 0.01, 0.002, 0.0004, 8e-5, 1.6e-5, 3.2e-6):
            rho = dyadic(rf * scale, 20)
            for e in range(1, 24):
                data = dict(ellipsoid_fields("Y_star", ys_str, guess, rho), v_max=frac_str(Fraction(1, 2 ** e)),
                            branch=k, **extra)
                try:
                    reg = check_growth_region(heads, Fq, data, prec, refuse)
                except CertificationFailed:
                    continue
                if region is None or Fraction(data["v_max"]) > Fraction(region[0]["v_max"]):
                    region = (data, reg)
                break
    if region is None:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="no verified invariant cone around the centre manifold")
    data, (P, Ys, Y1q, W, rho_q, v_max, lam_lo, K) = region
    numerical["first_order_centre"] = "Y_one" in data
    numerical.update(v_max=float_of(data["v_max"]), rho=float_of(data["rho"]),
                     growth_lower=float(lam_lo.mid()), growth_upper=float(K.mid()))
    throttle = Throttle()

    def entered(S, t):
        return True if throttle.due(t) and passes(check_growth_end, P, Ys, Y1q, W, rho_q, v_max, S, prec) else None

    left = max(0.5, seconds - (time.perf_counter() - t0))
    entry = tube_entry(heads, Fq, S0q, entered, numerical, order=order, prec=prec, max_steps=max_steps, seconds=left)
    if entry.t is None:
        return tube_missed(entry.tube, _CLAIM0, numerical, t0, "enter the certified cone")
    data = dict(data, prec=prec, **entry.fields)
    claim = Claim("GLOBAL_EXISTENCE", Quantifier.THIS, {})
    note = (f"validated order-{order} Taylor tube over {entry.steps} steps to t = {float(entry.t):.10g}, "
            "ending in a forward-invariant cone around an isotropic rank-one direction on which "
            "(log tr Σ)˙ ∈ [λ_lo, K], λ_lo > 0")
    # the certificate call and route declaration every tube search ends with (tube_cluster's: the same shape)
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "GLOBAL_EXISTENCE"},
                             f"validated tube from Σ₀ ({entry.steps} steps) into a forward-invariant cone around an "
                             "isotropic rank-one direction: global, with tr Σ growing exponentially at a bounded rate")


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# its float pre-check is cheap, so it runs before the cluster and blow-up tubes; 30 s: some tubes need 6·10³ steps
declare("tube-growth", 56, ("GLOBAL_EXISTENCE",), tube_applies(True, single=True, d=2, what="the growth certificate"),
        searching(find_growth, unless=("settles",), seconds=30.0),
        doc="GLOBAL_EXISTENCE of this Σ₀: a validated tube enters a forward-invariant cone around an isotropic "
            "rank-one direction; one quadratic head with drift, d = 2.")
