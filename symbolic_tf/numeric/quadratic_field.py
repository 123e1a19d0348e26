"""The float covariance field Σ̇ = L(Σ) + Q(Σ) of quadratic heads and a linear drift, with its
derivative and the Jacobian of its projective form: the right-hand sides the certificate searches
integrate in floats (guesses only; the checkers redo every claim exactly).

Q(X) = Σ_h C_h X A_h X + (C_h X A_h X)ᵀ (the softmax-type heads (C_h, A_h)), L(X) = FX + XFᵀ.
"""
from __future__ import annotations

import numpy as np

from ..exact.rational import qmat_to_float
from ..exact.svec import svec_pairs

__all__ = ["FloatField", "head_rhs"]


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
