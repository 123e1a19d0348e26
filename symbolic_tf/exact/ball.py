"""Ball (arb) matrices: exact midpoints with radii, and the ball positive-definiteness test.

* :func:`arb_matrix` — a ball matrix from exact midpoints (and optional exact radii).
* :func:`ball_pd` — strict positive definiteness of a symmetric *ball/interval* matrix by a
  Cholesky (LDLᵀ) factorisation in arb arithmetic: True only if every pivot ball is > 0.
* :func:`arb_lower`, :func:`arb_upper` — exact rational bounds of a ball.
"""
from __future__ import annotations

import flint

from .precision import working_precision
from .rational import Q, qmat

__all__ = ["arb_matrix", "ball_pd", "arb_lower", "arb_upper"]


def arb_matrix(M, rad=None, prec: int = 128) -> flint.arb_mat:
    """A ball matrix from exact midpoints (and optional exact radii per entry).

    Parameters
    ----------
    M : nested sequence or flint.fmpq_mat
        Exact midpoints (anything :func:`symbolic_tf.exact.rational.qmat` accepts).
    rad : nested sequence, optional
        Exact radii r_ij ≥ 0; entry (i, j) becomes the ball [M_ij − r_ij, M_ij + r_ij]
        (the radius rounded up).
    prec : int
        Working precision in bits while the balls are built.

    Returns
    -------
    flint.arb_mat
        A ball matrix containing every matrix within the radii of M.
    """
    with working_precision(prec):
        A = qmat(M)
        n, m = A.nrows(), A.ncols()
        out = flint.arb_mat(n, m)
        for i in range(n):
            for j in range(m):
                mid = flint.arb(A[i, j])
                if rad is not None:
                    r = Q(rad[i][j])
                    mid = mid + flint.arb(0, flint.arb(r).upper()) if r != 0 else mid
                out[i, j] = mid
        return out


def ball_pd(M: flint.arb_mat) -> bool | None:
    """Positive definiteness of every symmetric matrix in a ball matrix (ball LDLᵀ).

    Parameters
    ----------
    M : flint.arb_mat
        A square ball matrix (its symmetric members are tested).

    Returns
    -------
    bool or None
        True if every pivot ball of the elimination is > 0 (every member is PD); False if
        a pivot ball is certainly < 0 (vᵀMv < 0 for that congruence basis vector: not PSD);
        None (undecided) if a pivot ball contains 0.
    """
    n = M.nrows()
    R = [[M[i, j] for j in range(n)] for i in range(n)]
    for k in range(n):
        piv = R[k][k]
        if not piv > 0:
            if piv < 0:
                return False  # vᵀMv = R_kk < 0 for the congruence basis vector: not PSD
            return None
        for i in range(k + 1, n):
            f = R[i][k] / piv
            for j in range(k + 1, n):
                R[i][j] = R[i][j] - f * R[k][j]
    return True


def arb_lower(x: flint.arb) -> flint.fmpq:
    """An exact rational ≤ every point of a ball.

    Parameters
    ----------
    x : flint.arb
        A ball.

    Returns
    -------
    flint.fmpq
        mid(x) − rad(x), exactly (independent of the context's precision).
    """
    return x.mid().fmpq() - x.rad().mid().fmpq()


def arb_upper(x: flint.arb) -> flint.fmpq:
    """An exact rational ≥ every point of a ball.

    Parameters
    ----------
    x : flint.arb
        A ball.

    Returns
    -------
    flint.fmpq
        mid(x) + rad(x), exactly (independent of the context's precision).
    """
    return x.mid().fmpq() + x.rad().mid().fmpq()


def interval_ball(lo, hi) -> flint.arb:
    """A ball containing the exact interval [lo, hi]: midpoint (lo + hi)/2 plus an exact radius
    bound (hi − lo)/2 rounded up.

    Parameters
    ----------
    lo, hi : flint.fmpq
        The interval's exact ends, lo ≤ hi.

    Returns
    -------
    flint.arb
        A ball ⊇ [lo, hi].
    """
    return flint.arb((lo + hi) / 2) + flint.arb(0, flint.arb((hi - lo) / 2).upper())
