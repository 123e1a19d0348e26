"""The float *guesses* the validated tube searches share (blow-up integration, settling runs,
isotropic points) on the float field of :mod:`symbolic_tf.numeric.quadratic_field`.  Nothing here
decides; the checkers redo every claim exactly.
"""
from __future__ import annotations

import numpy as np

from ....numeric.quadratic_field import FloatField

__all__ = ["float_blowup", "float_settle", "isotropic_points"]


def float_blowup(ff: FloatField, S0: np.ndarray, horizon: float):
    """Integrate Σ̇ = L(Σ) + Q(Σ) in floats until tr Σ ≥ 1e8 (a float blow-up), or give up."""
    from .float_budget import solve_capped

    def big(_t, y):
        return 1e8 - abs(np.trace(y.reshape(ff.d, ff.d)))

    big.terminal = True
    sol = solve_capped(ff.sigma_rhs, (0.0, horizon), S0.ravel(), rtol=1e-10, atol=1e-12, events=big)
    if sol.status != 1 or not np.all(np.isfinite(sol.y[:, -1])):
        return None
    return float(sol.t[-1]), sol.y[:, -1].reshape(ff.d, ff.d)


def float_settle(rhs, S0: np.ndarray, horizon: float, *, rtol: float, atol: float):
    """The float guess of where Σ₀ settles: LSODA under the evaluation cap up to ``horizon``, stopped when
    an entry of Σ exceeds 10⁸.
    """
    from scipy.integrate import solve_ivp

    from .float_budget import capped

    def big(_t, y):
        return 1e8 - np.abs(y).max()

    big.terminal = True
    with np.errstate(all="ignore"):
        sol = solve_ivp(capped(rhs), (0.0, horizon), S0.ravel(), method="LSODA", rtol=rtol, atol=atol, events=big)
        if sol.status == -1:  # LSODA's own failure ("unexpected istate"), not the flow's: DOP853 instead
            sol = solve_ivp(capped(rhs), (0.0, horizon), S0.ravel(), method="DOP853", rtol=rtol, atol=atol,
                            events=big)
        return sol


def isotropic_points(A) -> list:
    """The trace-one rank-one points X = wwᵀ/|w|² with wᵀ(A + Aᵀ)w = 0 (d = 2), in floats."""
    import math

    S = A + A.T
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    if b * b - a * c <= 0:
        return []
    ws = [np.array([0.0, 1.0]), np.array([1.0, -a / (2 * b)])] if c == 0 else \
        [np.array([1.0, (-b + s * math.sqrt(b * b - a * c)) / c]) for s in (1, -1)]
    return [np.outer(w, w) / (w @ w) for w in ws]
