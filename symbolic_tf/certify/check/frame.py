"""Rotated coordinate frames for the a priori enclosure and the Lagrange remainder of a covariance
tube step (used by the checker's replay, :mod:`symbolic_tf.certify.check.tube_replay`, and by the search's
step, :mod:`symbolic_tf.certify.search.validated.flow`).

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
:mod:`~symbolic_tf.certify.check.projective` (X' = QᵀXQ, u and s unchanged) is again the projective
field of the rotated heads.  The Taylor coefficients are covariant, σ_n' = Qᵀσ_nQ, so the Lagrange
remainder R of the order-k Taylor polynomial satisfies R = QR'Qᵀ.  Q is **exactly** orthogonal and
rational: the Cayley transform Q = (I − K)(I + K)⁻¹ of a rational skew K (dyadic, 2⁻⁴⁰), K rounded
from the Cayley transform of the float eigenvectors of mid(S) (columns signed so that det = 1 and
the trace is largest, which keeps I + U invertible).  The eigenvectors come from Jacobi rotations in
plain Python floats and everything after them is exact, so the frame is the same on every platform.  The rotated heads are exact; states move
between frames by ball products with arb(Q), which enclose the exact images.  Any orthogonal Q is
sound — the frame only changes how tight the enclosure is — so the checker chooses its own (the same
deterministic rule as the search, from its own box) and a certificate stores none.
"""
from __future__ import annotations

import itertools
import math

import flint

__all__ = ["Frame", "eigen_frame", "jacobi_eigenvectors", "rational_rotation"]

_K_BITS = 40        # K's entries are rounded to multiples of 2^-40
_MIN_DET = 1e-6     # the smallest |det(I + U)| accepted for the Cayley transform
_SWEEPS = 12        # the most Jacobi sweeps (quadratic convergence: 4–6 suffice in double precision)


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


def jacobi_eigenvectors(M):
    """Orthonormal eigenvectors (the columns) of a symmetric float matrix by cyclic Jacobi rotations,
    in plain Python floats.  Only +, −, ×, ÷ and sqrt are used — each correctly rounded in IEEE
    arithmetic — so every platform computes the same bits, and a checker's frame does not depend on
    the LAPACK it runs on (like the Lohner basis of :mod:`~symbolic_tf.certify.check.tube_replay`).

    Parameters
    ----------
    M : list of list of float
        A symmetric d×d matrix with finite entries.

    Returns
    -------
    list of list of float
        V with the eigenvectors as columns (VᵀMV nearly diagonal).
    """
    d = len(M)
    top = max(abs(x) for row in M for x in row) or 1.0
    A = [[x / top for x in row] for row in M]
    V = [[float(i == j) for j in range(d)] for i in range(d)]
    for _ in range(_SWEEPS):
        off = sum(A[i][j] * A[i][j] for i in range(d) for j in range(i + 1, d))
        if off <= 1e-32 * sum(A[i][i] * A[i][i] for i in range(d)) or off == 0.0:
            break
        for p in range(d - 1):
            for q in range(p + 1, d):
                apq = A[p][q]
                if apq == 0.0:
                    continue
                theta = (A[q][q] - A[p][p]) / (2.0 * apq)
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1.0))
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for X in (A, V):            # columns p, q ← (c·p − s·q, s·p + c·q)
                    for row in X:
                        xp, xq = row[p], row[q]
                        row[p], row[q] = c * xp - s * xq, s * xp + c * xq
                rp, rq = A[p], A[q]         # rows p, q of A likewise (A ← PᵀAP)
                A[p] = [c * x - s * y for x, y in zip(rp, rq)]
                A[q] = [s * x + c * y for x, y in zip(rp, rq)]
    return V


def rational_rotation(U):
    """An exactly orthogonal rational matrix near the float orthogonal U (up to the signs of its
    columns), by the Cayley transform of a rounded rational skew matrix; None when no column signing
    of U with det = 1 keeps I + U far from singular.  Deterministic: U is rounded to dyadic rationals
    (2⁻⁵²) and everything after that is exact.

    Parameters
    ----------
    U : list of list of float or numpy.ndarray
        A d×d float matrix with orthonormal columns.

    Returns
    -------
    flint.fmpq_mat or None
        Q with QᵀQ = I exactly.
    """
    d = len(U)
    unit = 2 ** 52
    Uq = flint.fmpq_mat(d, d, [flint.fmpq(int(round(float(U[i][j]) * unit)), unit)
                               for i in range(d) for j in range(d)])
    if Uq.det() < 0:
        for i in range(d):
            Uq[i, d - 1] = -Uq[i, d - 1]
    best, best_tr = None, None
    for mask in itertools.product((1, -1), repeat=d - 1):
        signs = mask + (math.prod(mask),)      # an even number of flips keeps det = 1
        tr = sum((Uq[k, k] * signs[k] for k in range(d)), flint.fmpq(0))
        if best is None or tr > best_tr:
            best, best_tr = signs, tr
    W = flint.fmpq_mat(d, d, [Uq[i, j] * best[j] for i in range(d) for j in range(d)])
    Iq = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    if not abs(float((Iq + W).det())) > _MIN_DET:   # I + W nearly singular: an eigenvalue near −1
        return None
    K = (Iq - W) * (Iq + W).inv()                   # nearly skew: W is nearly orthogonal
    scale = 2 ** _K_BITS
    Kq = flint.fmpq_mat(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            k = flint.fmpq(int(round(float((K[i, j] - K[j, i]) / 2) * scale)), scale)
            Kq[i, j], Kq[j, i] = k, -k
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
    M = [[float(S[i, j].mid()) for j in range(d)] for i in range(d)]
    if not all(math.isfinite(x) and abs(x) < 1e300 for row in M for x in row):
        return None
    U = jacobi_eigenvectors([[0.5 * (M[i][j] + M[j][i]) for j in range(d)] for i in range(d)])
    if not all(math.isfinite(x) for row in U for x in row):
        return None
    Q = rational_rotation(U)
    return None if Q is None else Frame(Q, extra)
