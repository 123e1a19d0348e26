"""Exact rational linear algebra used for validation: symmetry and semidefiniteness.

The PSD decision is a symmetric Gaussian elimination carried out as a *congruence*
R = Tᵀ M T over ℚ (Python ``Fraction``), so a failure comes with a rational witness v
(vᵀ M v < 0, checkable by hand).  It never looks at a float eigenvalue.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["PSDResult", "psd_decision", "is_symmetric", "quad_form", "identity", "matmul", "transpose"]


@dataclass(frozen=True)
class PSDResult:
    """Outcome of :func:`psd_decision`.

    Attributes
    ----------
    psd : bool
        M ⪰ 0, decided exactly.
    pd : bool
        M ≻ 0.
    rank : int
        Rank of M (exact); meaningful when ``psd``.
    witness : tuple of Fraction or None
        When not PSD, a rational v with vᵀ M v < 0.
    """

    psd: bool
    pd: bool
    rank: int
    witness: tuple | None = None


def identity(n: int) -> tuple:
    """The n × n identity as a tuple of ``Fraction`` rows.

    Parameters
    ----------
    n : int
        The size.

    Returns
    -------
    tuple of tuple of Fraction
        I_n.
    """
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))


def transpose(M) -> tuple:
    """Mᵀ of a matrix given as rows.

    Parameters
    ----------
    M : sequence of sequences
        An m × n matrix, row by row.

    Returns
    -------
    tuple of tuple
        The n × m transpose (same entries, no conversion).
    """
    return tuple(zip(*M))


def matmul(X, Y) -> tuple:
    """The exact product XY of two rational matrices given as rows.

    Parameters
    ----------
    X, Y : sequence of sequences of Fraction (or int)
        m × k and k × n matrices.

    Returns
    -------
    tuple of tuple of Fraction
        (XY)_ij = Σ_l X_il Y_lj, exactly.
    """
    Yt = transpose(Y)
    return tuple(tuple(sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in Yt) for row in X)


def quad_form(M, v) -> Fraction:
    """The quadratic form vᵀ M v, exactly.

    Parameters
    ----------
    M : sequence of sequences of Fraction
        An n × n matrix.
    v : sequence of Fraction
        A vector of length n.

    Returns
    -------
    Fraction
        Σ_ij v_i M_ij v_j.
    """
    n = len(v)
    return sum((v[i] * M[i][j] * v[j] for i in range(n) for j in range(n)), Fraction(0))


def is_symmetric(M) -> bool:
    """Is M square and equal to its transpose (exact comparison)?

    Parameters
    ----------
    M : sequence of sequences
        A matrix given as rows.

    Returns
    -------
    bool
        True iff every row has length n = len(M) and M_ij = M_ji.
    """
    n = len(M)
    return all(len(r) == n for r in M) and all(M[i][j] == M[j][i] for i in range(n) for j in range(i))


def psd_decision(M) -> PSDResult:
    """Decide M ⪰ 0 for a symmetric rational matrix by exact congruence elimination.

    At each step a remaining index k with the largest-magnitude diagonal pivot is chosen
    (any choice is exact; this one keeps the numbers small).  A negative pivot, or a zero
    pivot with a nonzero off-diagonal entry in its row, proves M is not PSD and yields a
    witness.

    Parameters
    ----------
    M : sequence of sequences of Fraction (or int)
        A symmetric rational n × n matrix (not modified).

    Returns
    -------
    PSDResult
        ``psd``, ``pd``, the exact ``rank`` and, when not PSD, a rational ``witness`` v with
        vᵀ M v < 0.
    """
    n = len(M)
    R = [[Fraction(x) for x in row] for row in M]
    T = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]  # columns are the basis
    remaining = list(range(n))
    rank = 0

    def col(k):
        return tuple(T[i][k] for i in range(n))

    while remaining:
        # A negative diagonal entry is an immediate witness.
        neg = [k for k in remaining if R[k][k] < 0]
        if neg:
            return PSDResult(False, False, rank, col(neg[0]))
        pos = [k for k in remaining if R[k][k] > 0]
        if not pos:
            # all remaining diagonal entries zero: PSD iff the remaining block vanishes
            for k in remaining:
                for j in remaining:
                    if j != k and R[k][j] != 0:
                        t = -(R[j][j] + 1) / (2 * R[k][j])
                        v = tuple(t * T[i][k] + T[i][j] for i in range(n))
                        return PSDResult(False, False, rank, v)
            return PSDResult(True, False, rank, None)
        k = max(pos, key=lambda i: abs(R[i][i]))
        piv = R[k][k]
        remaining.remove(k)
        rank += 1
        for j in remaining:
            f = R[k][j] / piv
            if f == 0:
                continue
            # column operation col_j -= f col_k, then the same row operation (congruence)
            for i in range(n):
                R[i][j] -= f * R[i][k]
                T[i][j] -= f * T[i][k]
            for i in range(n):
                R[j][i] -= f * R[k][i]
    return PSDResult(True, rank == n, rank, None)
