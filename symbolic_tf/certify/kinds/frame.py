"""Rotated coordinate frames for the a priori enclosure and the Lagrange remainder of a covariance
tube step (used by the checker's replay, :mod:`symbolic_tf.certify.kinds.replay`, and by the search's
step, :mod:`symbolic_tf.certify.validated.flow`).

**Why.**  Near a blow-up or a collapse Σ is nearly singular: its entries are of size ‖Σ‖ while its
small eigenvalues are many orders smaller, hidden in cancellations between the entries.  The
a priori box Y = S + [0, h]·f(X) of a step is entrywise, of width h·|f|, which in the original
coordinates is of size h·‖f‖ in *every* entry — far wider than the small eigenvalues — and the
interval Taylor recurrence over such a box loses the cancellations order by order: on a
near-rank-one Σ of a d = 2 blow-up the (k+1)-th coefficient over Y came out 10¹⁶ times the point
coefficient (k = 20), and the Picard test failed at a tenth of the distance to the singularity.
In the eigenbasis of Σ the box is aligned with the solution's shape and both effects disappear.

**The change of variables.**  For an orthogonal Q, Σ = QΣ'Qᵀ maps the solutions of

    Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ)

one-to-one onto those of the same equation with C_h' = QᵀC_hQ, A_h' = QᵀA_hQ, F' = QᵀFQ
(substitute and use QᵀQ = I), and traces are invariant, so the projective field of
:mod:`~symbolic_tf.certify.kinds.projective` (X' = QᵀXQ, u and s unchanged) is again the projective
field of the rotated heads.  The Taylor coefficients are covariant, σ_n' = Qᵀσ_nQ, so the Lagrange
remainder R of the order-k Taylor polynomial satisfies R = QR'Qᵀ.  Q is **exactly** orthogonal and
rational: the Cayley transform Q = (I − K)(I + K)⁻¹ of a rational skew K (dyadic, 2⁻⁴⁰), K rounded
from the Cayley transform of the float eigenvectors of mid(S) (columns signed so that det = 1 and
the trace is largest, which keeps I + U invertible).  The rotated heads are exact; states move
between frames by ball products with arb(Q), which enclose the exact images.  Any orthogonal Q is
sound — the frame only changes how tight the enclosure is — so the checker chooses its own (the same
deterministic rule as the search, from its own box) and a certificate stores none.
"""
from __future__ import annotations

import itertools

import flint
import numpy as np

__all__ = ["Frame", "eigen_frame", "rational_rotation"]

_K_BITS = 40        # K's entries are rounded to multiples of 2^-40
_MIN_DET = 1e-6     # the smallest |det(I + U)| accepted for the Cayley transform


class Frame:
    """The frame X = TX'Tᵀ with T = diag(Q, I_extra): Q an exact rational orthogonal d×d matrix acting
    on the leading d×d block of (d + extra)-square states (T⁻¹ = Tᵀ exactly)."""

    def __init__(self, Q, extra=0):
        d = Q.nrows()
        self.Q = Q
        T = flint.arb_mat(d + extra, d + extra)
        Qa = flint.arb_mat(Q)
        for i in range(d):
            for j in range(d):
                T[i, j] = Qa[i, j]
        for i in range(d, d + extra):
            T[i, i] = 1
        self.T, self.Tt = T, T.transpose()

    def to(self, X):
        """TᵀXT (a ball enclosing every transformed point of the ball X).

        Parameters
        ----------
        X : flint.arb_mat
            A state in the original coordinates.

        Returns
        -------
        flint.arb_mat
            Its image in the frame.
        """
        return self.Tt * X * self.T

    def back(self, X):
        """TXTᵀ (a ball enclosing every original point of the frame's ball X).

        Parameters
        ----------
        X : flint.arb_mat
            A state in the frame's coordinates.

        Returns
        -------
        flint.arb_mat
            Its image in the original coordinates.
        """
        return self.T * X * self.Tt

    def pairs(self, pairs):
        """[(QᵀCQ, QᵀAQ)] for exact pairs (C, A), exactly.

        Parameters
        ----------
        pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
            The heads' exact (C_h, A_h).

        Returns
        -------
        list of (flint.fmpq_mat, flint.fmpq_mat)
            The heads in the frame.
        """
        Qt = self.Q.transpose()
        return [(Qt * C * self.Q, Qt * A * self.Q) for C, A in pairs]

    def drift(self, F):
        """QᵀFQ exactly, or None without drift.

        Parameters
        ----------
        F : flint.fmpq_mat or None
            The exact drift.

        Returns
        -------
        flint.fmpq_mat or None
            The drift in the frame.
        """
        return None if F is None else self.Q.transpose() * F * self.Q


def rational_rotation(U):
    """An exactly orthogonal rational matrix near the float orthogonal U (up to the signs of its
    columns), by the Cayley transform of a rounded rational skew matrix; None when no column signing
    of U with det = 1 keeps I + U far from singular.

    Parameters
    ----------
    U : numpy.ndarray
        A d×d float matrix with orthonormal columns.

    Returns
    -------
    flint.fmpq_mat or None
        Q with QᵀQ = I exactly.
    """
    d = U.shape[0]
    if np.linalg.det(U) < 0:
        U = U.copy()
        U[:, -1] = -U[:, -1]
    best = None
    for mask in itertools.product((1.0, -1.0), repeat=d - 1):
        signs = np.array(mask + (float(np.prod(mask)),))   # an even number of flips keeps det = 1
        W = U * signs
        if best is None or np.trace(W) > np.trace(best):
            best = W
    eye = np.eye(d)
    if not abs(np.linalg.det(eye + best)) > _MIN_DET:   # I + W nearly singular: an eigenvalue near −1
        return None
    K = np.linalg.solve((eye + best).T, (eye - best).T).T     # (I − W)(I + W)⁻¹, skew for orthogonal W
    scale = 2 ** _K_BITS
    Kq = flint.fmpq_mat(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            k = flint.fmpq(int(round(0.5 * (K[i, j] - K[j, i]) * scale)), scale)
            Kq[i, j], Kq[j, i] = k, -k
    Iq = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    return (Iq - Kq) * (Iq + Kq).inv()


def eigen_frame(S, d=None, extra=0):
    """The frame of the eigenvectors of the leading d×d block of mid(S) (module docstring), or None
    when they are not finite or no well-conditioned rotation is found (the caller then keeps the
    original coordinates).

    Parameters
    ----------
    S : flint.arb_mat
        A (d + extra)-square ball matrix; its leading block's midpoint (symmetric part) decides.
    d : int or None
        The block's size (default: all of S).
    extra : int
        The number of trailing coordinates left unchanged.

    Returns
    -------
    Frame or None
        The frame.
    """
    d = S.nrows() - extra if d is None else d
    M = np.array([[float(S[i, j].mid()) for j in range(d)] for i in range(d)])
    if not np.all(np.isfinite(M)) or not np.abs(M).max() < 1e300:
        return None
    _, U = np.linalg.eigh(0.5 * (M + M.T))
    if not np.all(np.isfinite(U)):
        return None
    Q = rational_rotation(U)
    return None if Q is None else Frame(Q, extra)
