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
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))


def transpose(M) -> tuple:
    return tuple(zip(*M))


def matmul(X, Y) -> tuple:
    Yt = transpose(Y)
    return tuple(tuple(sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in Yt) for row in X)


def quad_form(M, v) -> Fraction:
    """vᵀ M v, exactly."""
    n = len(v)
    return sum((v[i] * M[i][j] * v[j] for i in range(n) for j in range(n)), Fraction(0))


def is_symmetric(M) -> bool:
    n = len(M)
    return all(len(r) == n for r in M) and all(M[i][j] == M[j][i] for i in range(n) for j in range(i))


def psd_decision(M) -> PSDResult:
    """Decide M ⪰ 0 for a symmetric rational matrix by exact congruence elimination.

    At each step a remaining index k with the largest-magnitude diagonal pivot is chosen
    (any choice is exact; this one keeps the numbers small).  A negative pivot, or a zero
    pivot with a nonzero off-diagonal entry in its row, proves M is not PSD and yields a
    witness.
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
