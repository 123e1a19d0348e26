"""Closed-form Gaussian flows: softmax attention with V = v·I, with or without the drift F = f·I.

With V = vI the covariance equation of softmax attention plus the affine drift (F = fI; F = 0
without drift) reads, with R := vτ(A + Aᵀ) (docs/mathematics.md §4, §6),

    Σ̇ = 2fΣ + ΣRΣ,      so for P = Σ⁻¹:  Ṗ = −2fP − R   (linear),

whence, written without Σ₀⁻¹ so that singular Σ₀ is covered (rank is invariant),

    Σ(t) = e^{2ft} Σ₀ (I − g(t) R Σ₀)⁻¹,      g(t) = (e^{2ft} − 1)/(2f)   (g(t) = t for f = 0).

The solution exists while g(t)·λ < 1, λ := λ_max(Σ₀^{1/2} R Σ₀^{1/2}); for λ > 0 it blows up at

    T* = ln(1 + 2f/λ)/(2f)   (T* = 1/λ for f = 0),   finite exactly when f > −λ/2,

the formula of docs/mathematics.md §6 with ρ = λ/2 (§4 for f = 0, v = 1).  The mean starts and
stays at 0 when α₀ = 0 and b = 0 (α ≡ 0 solves α̇ = (F + V + VΣA)α + b); other means have no
closed form, and :func:`closed_form` declines them.
"""
from __future__ import annotations

import numpy as np

from .solution import BLOWUP, HORIZON, Solution

__all__ = ["closed_form", "applies"]


def _scalar_identity(M, d: int, B: int):
    """(B,) multipliers m with M_b = m_b·I for every member, or None."""
    M = np.asarray(M, dtype=float)
    if M.ndim == 2:
        M = M[None]
    if M.ndim != 3 or M.shape[1:] != (d, d):
        return None
    m = M[:, 0, 0]
    if not np.array_equal(M, m[:, None, None] * np.eye(d)[None]):
        return None
    return np.broadcast_to(m, (B,)) if M.shape[0] in (1, B) else None


def _batch_scalar(x, B: int):
    x = np.asarray(x, dtype=float).reshape(-1)
    return np.broadcast_to(x, (B,)) if x.shape[0] in (1, B) else None


def applies(system, alpha0, params: dict, d: int, B: int) -> str | None:
    """None when :func:`closed_form` covers the system and parameters, else why not.

    Parameters
    ----------
    system : MomentSystem
    alpha0 : array_like
        Initial means (the closed form needs α₀ = 0).
    params : dict
        Float parameters by name.
    d, B : int
        Dimension and batch size.

    Returns
    -------
    str or None
        The reason the closed form does not apply, or None.
    """
    from ..variants import single_quadratic_factor

    if system.heads or single_quadratic_factor(system.variant) != 1:
        return "the closed form covers one quadratic head Σ̇ = VΣ(τA)Σ + Σ(τA)ᵀΣVᵀ (softmax)"
    if "V" not in params or _scalar_identity(params["V"], d, B) is None:
        return "V is not a multiple of the identity"
    if system.drift:
        if _scalar_identity(params.get("F", np.zeros((d, d))), d, B) is None:
            return "F is not a multiple of the identity"
        if np.any(np.asarray(params.get("b", 0.0), dtype=float) != 0):
            return "b ≠ 0 (the mean has no closed form)"
    if np.any(np.asarray(alpha0) != 0):
        return "α₀ ≠ 0 (the mean has no closed form)"
    if _batch_scalar(params.get("tau", 1.0), B) is None:
        return "τ must be one value or one per member"
    return None


def closed_form(system, alpha0, Sigma0, params: dict, T: float, t_eval):
    """The solution of the moment flow in closed form (module docstring), or None.

    Parameters
    ----------
    system : MomentSystem (softmax, optionally with drift)
    alpha0 : (B, d) initial means (must be 0)
    Sigma0 : (B, d, d) initial covariances, PSD (singular allowed)
    params : float parameters as for :func:`symbolic_tf.numeric.integrate.integrate`
    T : horizon; t_eval : sample times in [0, T]

    Returns
    -------
    Solution or None
        ``method == "closed form"``.  A member that blows up before T has status ``BLOWUP`` and
        ``t_end`` = T* exactly; Σ does not exist from T* on, so its samples at t ≥ T* and its
        ``Sigma_end`` are NaN.  Other members have status ``HORIZON``.  Step counts are 0.
    """
    Sigma0 = np.asarray(Sigma0, dtype=float)
    B, d, _ = Sigma0.shape
    if applies(system, alpha0, params, d, B) is not None:
        return None
    v = _scalar_identity(params["V"], d, B)
    tau = _batch_scalar(params.get("tau", 1.0), B)
    f = _scalar_identity(params["F"], d, B) if system.drift and "F" in params else np.zeros(B)
    A = np.asarray(params["A"], dtype=float)
    A = np.broadcast_to(A if A.ndim == 3 else A[None], (B, d, d))
    R = (v * tau)[:, None, None] * (A + np.swapaxes(A, 1, 2))
    lam, U = np.linalg.eigh(0.5 * (Sigma0 + np.swapaxes(Sigma0, 1, 2)))
    L = U * np.sqrt(np.clip(lam, 0.0, None))[:, None, :]
    M = np.swapaxes(L, 1, 2) @ R @ L
    mu = np.linalg.eigvalsh(0.5 * (M + np.swapaxes(M, 1, 2)))[:, -1]   # λ_max(Σ₀^{1/2}RΣ₀^{1/2})
    Tstar = np.full(B, np.inf)
    pos = mu > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        arg = 1 + 2 * f / np.where(pos, mu, 1.0)
        lin = np.where(f == 0, 1 / np.where(pos, mu, 1.0), np.log(np.where(arg > 0, arg, 1.0)) / np.where(f == 0, 1.0, 2 * f))
    finite = pos & ((f == 0) | (arg > 0))
    Tstar[finite] = lin[finite]

    def sigma_at(t):
        t_in = np.broadcast_to(np.asarray(t, dtype=float), (B,))
        gone = t_in >= Tstar            # past the blow-up: no solution (NaN below)
        t = np.where(gone, 0.0, t_in)
        with np.errstate(over="ignore", invalid="ignore"):
            g = np.where(f == 0, t, np.expm1(2 * f * t) / np.where(f == 0, 1.0, 2 * f))
            X = np.eye(d)[None] - g[:, None, None] * (R @ Sigma0)
            S = np.exp(2 * f * t)[:, None, None] * np.swapaxes(np.linalg.solve(np.swapaxes(X, 1, 2),
                                                                               np.swapaxes(Sigma0, 1, 2)), 1, 2)
        S = 0.5 * (S + np.swapaxes(S, 1, 2))
        S[gone] = np.nan
        return S

    t_eval = np.asarray(t_eval, dtype=float)
    n = len(t_eval)
    out_S = np.empty((B, n, d, d))
    for j, t in enumerate(t_eval):
        out_S[:, j] = Sigma0 if t == 0 else sigma_at(t)
    blow = Tstar <= T
    status = np.where(blow, BLOWUP, HORIZON)
    t_end = np.where(blow, Tstar, T)
    Sig_end = sigma_at(t_end)
    zeros_a = np.zeros((B, n, d))
    return Solution(t_eval, zeros_a, out_S, status, t_end, np.zeros((B, d)), Sig_end, np.zeros(B, dtype=int),
                    np.zeros(B, dtype=int), method="closed form")
