"""The float projective field of Σ̇ = L(Σ) + Q(Σ) (Q homogeneous quadratic from the heads, L from
the drift F): the float *guesses* the validated tube searches share (blow-up integration,
Newton on rays, Jacobians).  Nothing here decides; the checkers redo every claim exactly.
"""
from __future__ import annotations

import numpy as np

from ....exact.rational import qmat_to_float
from ...check.tube_replay import svec_pairs

__all__ = ["FloatField", "float_blowup", "float_settle", "head_rhs", "isotropic_points"]


class FloatField:
    """Float model of Σ̇ = L(Σ) + Q(Σ), Q(X) = Σ_h (C_h X A_h X + (C_h X A_h X)ᵀ), L(X) = FX + XFᵀ.

    Parameters
    ----------
    heads : sequence of (flint.fmpq_mat, flint.fmpq_mat)
        The pairs (C_h, A_h) of the quadratic part.
    F : flint.fmpq_mat or None
        The drift (None: no drift).
    d : int
        The dimension.
    """

    def __init__(self, heads, F, d):
        self.pairs = [(qmat_to_float(C), qmat_to_float(A)) for C, A in heads]
        self.F = qmat_to_float(F) if F is not None else np.zeros((d, d))
        self.d = d

    def Q(self, X):
        """The quadratic part Q(X) = Σ_h C_h X A_h X + (C_h X A_h X)ᵀ.

        Parameters
        ----------
        X : numpy.ndarray
            A d × d matrix.

        Returns
        -------
        numpy.ndarray
            Q(X), symmetric.
        """
        acc = sum(C @ X @ A @ X for C, A in self.pairs)
        return acc + acc.T

    def dQ(self, X, E):
        """The derivative of Q at X in the direction E.

        Parameters
        ----------
        X, E : numpy.ndarray
            d × d matrices.

        Returns
        -------
        numpy.ndarray
            DQ(X)[E] = Σ_h (C_h E A_h X + C_h X A_h E) + transpose.
        """
        acc = sum(C @ E @ A @ X + C @ X @ A @ E for C, A in self.pairs)
        return acc + acc.T

    def L(self, X):
        """The linear (drift) part L(X) = FX + XFᵀ.

        Parameters
        ----------
        X : numpy.ndarray
            A d × d matrix.

        Returns
        -------
        numpy.ndarray
            L(X).
        """
        return self.F @ X + X @ self.F.T

    def sigma_rhs(self, _t, y):
        """The moment ODE Σ̇ = L(Σ) + Q(Σ) in ``solve_ivp`` form.

        Parameters
        ----------
        _t : float
            Time (unused: the field is autonomous).
        y : numpy.ndarray
            Σ flattened (length d²).

        Returns
        -------
        numpy.ndarray
            Σ̇ flattened.
        """
        S = y.reshape(self.d, self.d)
        return (self.L(S) + self.Q(S)).ravel()

    def jacobian(self, X, u=0.0):
        """Jacobian of the projective field at (X, u) in svec-upper coordinates.

        The field is X' = Q(X) + u·L(X) − c·X, u' = −c·u with c = tr Q(X) + u·tr L(X).

        Parameters
        ----------
        X : numpy.ndarray
            The d × d point.
        u : float
            The projective coordinate u = 1/tr Σ (0 on the ray at infinity).

        Returns
        -------
        numpy.ndarray
            (m + 1) × (m + 1), m = d(d+1)/2: columns are the derivatives along each svec
            basis direction E_ij and then along u.
        """
        d = self.d
        up = svec_pairs(d)
        QX, LX = self.Q(X), self.L(X)
        trL = np.trace(LX)
        c = np.trace(QX) + u * trL
        cols = []
        for i, j in up:
            E = np.zeros((d, d))
            E[i, j] = E[j, i] = 1.0
            dQE, LE = self.dQ(X, E), self.L(E)
            dc = np.trace(dQE) + u * np.trace(LE)
            top = dQE + u * LE - dc * X - c * E
            cols.append([top[a, b] for a, b in up] + [-u * dc])
        top = LX - trL * X
        cols.append([top[a, b] for a, b in up] + [-c - u * trL])
        return np.array(cols).T


def float_blowup(ff: FloatField, S0: np.ndarray, horizon: float):
    """Integrate Σ̇ = L(Σ) + Q(Σ) in floats until tr Σ ≥ 1e8 (a float blow-up), or give up.

    Parameters
    ----------
    ff : FloatField
        The field.
    S0 : numpy.ndarray
        The float initial Σ₀ (d×d).
    horizon : float
        Latest time integrated to.

    Returns
    -------
    tuple of (float, numpy.ndarray) or None
        (t, Σ(t)) late on the blow-up (tr Σ ≥ 1e8), or None if it did not blow up by
        ``horizon`` or the integration failed.
    """
    from .float_budget import solve_capped

    def big(_t, y):
        return 1e8 - abs(np.trace(y.reshape(ff.d, ff.d)))

    big.terminal = True
    sol = solve_capped(ff.sigma_rhs, (0.0, horizon), S0.ravel(), rtol=1e-10, atol=1e-12, events=big)
    if sol.status != 1 or not np.all(np.isfinite(sol.y[:, -1])):
        return None
    return float(sol.t[-1]), sol.y[:, -1].reshape(ff.d, ff.d)


def head_rhs(V, A, d: int):
    """The moment ODE Σ̇ = VΣAΣ + (VΣAΣ)ᵀ of one head without drift, in ``solve_ivp`` form.

    Parameters
    ----------
    V, A : numpy.ndarray
        The head's value and attention matrices (d × d floats).
    d : int
        The dimension.

    Returns
    -------
    callable
        ``rhs(t, y)``: Σ̇ flattened, for Σ = y.reshape(d, d).
    """
    def rhs(_t, y):
        S = y.reshape(d, d)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    return rhs


def float_settle(rhs, S0: np.ndarray, horizon: float, *, rtol: float, atol: float):
    """The float guess of where Σ₀ settles: LSODA under the evaluation cap up to ``horizon``, stopped when
    an entry of Σ exceeds 10⁸.

    Parameters
    ----------
    rhs : callable
        The right-hand side ``rhs(t, y)`` (Σ flattened).
    S0 : numpy.ndarray
        The float Σ₀.
    horizon : float
        The end time.
    rtol, atol : float
        The tolerances.

    Returns
    -------
    scipy.integrate._ivp.ivp.OdeResult
        The solution (``status`` 1 when it stopped at 10⁸).
    """
    from scipy.integrate import solve_ivp

    from .float_budget import capped

    def big(_t, y):
        return 1e8 - np.abs(y).max()

    big.terminal = True
    with np.errstate(all="ignore"):
        return solve_ivp(capped(rhs), (0.0, horizon), S0.ravel(), method="LSODA", rtol=rtol, atol=atol, events=big)


def isotropic_points(A) -> list:
    """The trace-one rank-one points X = wwᵀ/|w|² with wᵀ(A + Aᵀ)w = 0 (d = 2), in floats.

    Parameters
    ----------
    A : numpy.ndarray
        The 2 × 2 matrix A.

    Returns
    -------
    list of numpy.ndarray
        The two isotropic points, or [] when A + Aᵀ is not indefinite.
    """
    import math

    S = A + A.T
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    if b * b - a * c <= 0:
        return []
    ws = [np.array([0.0, 1.0]), np.array([1.0, -a / (2 * b)])] if c == 0 else \
        [np.array([1.0, (-b + s * math.sqrt(b * b - a * c)) / c]) for s in (1, -1)]
    return [np.outer(w, w) / (w @ w) for w in ws]
