"""Matrix square roots and symmetric matrix functions in mpmath (high precision, not balls).

The one implementation of the multiprecision matrix square root: :func:`mp_sqrtm` (principal
root of a real matrix with spectrum in Re > 0, Denman–Beavers, real arithmetic) and
:func:`mp_symmetric_function` (f applied to the eigenvalues of a real symmetric matrix, e.g.
the PSD square root).  They compute at the current ``mpmath.mp`` precision (set it with
:func:`symbolic_tf.exact.precision.working_precision` or ``mpmath.workdps``); they decide
nothing.  Plain float square roots stay in NumPy/SciPy where they are used.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["mp_sqrtm", "mp_symmetric_function"]


def mp_symmetric_function(M, f: Callable):
    """f(M) = Q diag(f(λ_i)) Qᵀ for a real symmetric mpmath matrix M = Q diag(λ_i) Qᵀ.

    Parameters
    ----------
    M : mpmath.matrix
        Real symmetric (n × n).
    f : callable
        A scalar function of an ``mpf`` (e.g. ``mpmath.sqrt`` for the PSD square root).

    Returns
    -------
    mpmath.matrix
        Q diag(f(λ_1), …, f(λ_n)) Qᵀ from ``mpmath.eigsy`` at the current precision.
    """
    import mpmath

    E, Q = mpmath.eigsy(M)
    n = M.rows
    D = mpmath.zeros(n, n)
    for i in range(n):
        D[i, i] = f(E[i])
    return Q * D * Q.T


def mp_sqrtm(M):
    """Principal square root of a real matrix with spectrum in Re > 0, in real arithmetic.

    Denman–Beavers iteration Y ← (Y + Z⁻¹)/2, Z ← (Z + Y⁻¹)/2 from (M, I); quadratically
    convergent, and unlike ``mpmath.sqrtm`` it never leaves ℝ (no spurious 1e-54j parts).
    Stops when a step changes Y by at most 10^-(dps−5)·max(1, max|Y|).

    Parameters
    ----------
    M : mpmath.matrix
        Real n × n with every eigenvalue in Re > 0.

    Returns
    -------
    mpmath.matrix
        S with S² = M (to the working precision), spectrum in Re > 0.

    Raises
    ------
    ArithmeticError
        If 200 iterations do not converge (spectrum not in Re > 0?).
    """
    import mpmath

    n = M.rows
    Y, Z = M.copy(), mpmath.eye(n)
    tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 5))
    for _ in range(200):
        Yn = (Y + mpmath.inverse(Z)) / 2
        Z = (Z + mpmath.inverse(Y)) / 2
        delta = max(abs(x) for x in (Yn - Y))
        Y = Yn
        if delta <= tol * max(1, max(abs(x) for x in Y)):
            return Y
    raise ArithmeticError("matrix square root iteration did not converge (spectrum not in Re > 0?)")
