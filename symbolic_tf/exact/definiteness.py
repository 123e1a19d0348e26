"""Exact (ℚ) matrix decisions — definiteness, inertia, rank, factorisations.

* :func:`inertia` — (n₊, n₋, n₀) of a rational symmetric matrix from the characteristic
  polynomial: a real symmetric matrix has only real eigenvalues, so Descartes' rule of signs
  is *exact* for its characteristic polynomial (#positive roots = sign changes of p(x),
  #negative roots = sign changes of p(−x)).
* :func:`definiteness` — PD / PSD / ND / NSD / indefinite / zero, with a rational witness
  vector for every negative claim (vᵀMv < 0 or > 0), from the exact congruence elimination
  of :mod:`symbolic_tf.exact.congruence`.
* :func:`is_pd`, :func:`is_psd` — the yes/no questions, exactly.
* :func:`pd_or_witness`, :func:`exact_factor` — a rational witness of non-PD-ness; S = B D Bᵀ.

Ball matrices (arb) are decided by :func:`symbolic_tf.exact.ball.ball_pd`.

No float eigenvalue is ever used to decide.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

import flint

if TYPE_CHECKING:
    import numpy as np

from .congruence import psd_decision, quad_form
from .rational import fraction_of, qmat, qmat_to_fractions

__all__ = ["pd_or_witness", "first_kernel_vector", "kernel_basis", "inertia", "definiteness", "Definiteness", "is_pd", "is_psd", "sym_part", "rank",
           "exact_factor", "float_factor"]


def sym_part(M: flint.fmpq_mat) -> flint.fmpq_mat:
    """The symmetric part (M + Mᵀ)/2, exactly.

    Parameters
    ----------
    M : flint.fmpq_mat
        A square rational matrix.

    Returns
    -------
    flint.fmpq_mat
        (M + Mᵀ)/2.
    """
    return (M + M.transpose()) / 2


def rank(M) -> int:
    """The exact rank of a rational matrix.

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        Exact entries.

    Returns
    -------
    int
        rank M over ℚ.
    """
    return qmat(M).rank()


def _sign_changes(coeffs: Sequence) -> int:
    signs = [c > 0 for c in coeffs if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def inertia(M) -> tuple[int, int, int]:
    """The inertia of a rational *symmetric* matrix, exactly (Descartes' rule of signs).

    All eigenvalues of a real symmetric matrix are real, so the sign changes of the
    characteristic polynomial p(x) count the positive roots and those of p(−x) the negative
    ones; the multiplicity of the root 0 is the lowest nonzero coefficient's degree.

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        A symmetric rational n × n matrix.

    Returns
    -------
    tuple of int
        (n₊, n₋, n₀): the numbers of positive, negative and zero eigenvalues.

    Raises
    ------
    ValueError
        If M is not symmetric.
    """
    A = qmat(M)
    n = A.nrows()
    if A != A.transpose():
        raise ValueError("inertia needs a symmetric matrix")
    p = A.charpoly()
    c = [p[i] for i in range(n + 1)]  # c[i] = coefficient of x^i
    zero = next(i for i, v in enumerate(c) if v != 0)
    pos = _sign_changes(c)
    neg = _sign_changes([v if i % 2 == 0 else -v for i, v in enumerate(c)])
    assert pos + neg + zero == n, "a symmetric matrix has real eigenvalues"
    return pos, neg, zero


def is_pd(M) -> bool:
    """Is M a symmetric positive definite rational matrix?  Decided exactly: Sylvester's criterion
    (a > 0, ac − b² > 0) for n ≤ 2, the inertia otherwise.

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        An exact square matrix.

    Returns
    -------
    bool
        True iff M = Mᵀ and all its eigenvalues are > 0 (False for a non-symmetric M).
    """
    A = qmat(M)
    n = A.nrows()
    if n == 1:
        return A.ncols() == 1 and A[0, 0] > 0
    if n == 2 and A.ncols() == 2:
        a, b, b2, c = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
        return b == b2 and a > 0 and a * c > b * b
    return A == A.transpose() and inertia(A)[0] == n


def is_psd(M) -> bool:
    """Is M a symmetric positive semidefinite rational matrix?  Decided exactly: the principal minors
    (a ≥ 0, c ≥ 0, ac − b² ≥ 0) for n ≤ 2, the inertia otherwise.

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        An exact square matrix.

    Returns
    -------
    bool
        True iff M = Mᵀ and no eigenvalue is < 0 (False for a non-symmetric M).
    """
    A = qmat(M)
    n = A.nrows()
    if n == 1:
        return A.ncols() == 1 and A[0, 0] >= 0
    if n == 2 and A.ncols() == 2:
        a, b, b2, c = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
        return b == b2 and a >= 0 and c >= 0 and a * c >= b * b
    return A == A.transpose() and inertia(A)[1] == 0


class Definiteness:
    """Result of :func:`definiteness`: inertia, the class name and witnesses."""

    def __init__(self, pos, neg, zero, neg_witness=None, pos_witness=None):
        self.pos, self.neg, self.zero = pos, neg, zero
        self.neg_witness = neg_witness  # v with vᵀMv < 0 (exists iff neg > 0)
        self.pos_witness = pos_witness  # v with vᵀMv > 0 (exists iff pos > 0)

    @property
    def n(self):
        """The size n = n₊ + n₋ + n₀."""
        return self.pos + self.neg + self.zero

    @property
    def kind(self) -> str:
        """One of ``"PD"``, ``"ND"``, ``"zero"``, ``"PSD"``, ``"NSD"``, ``"indefinite"``."""
        if self.pos == self.n:
            return "PD"
        if self.neg == self.n:
            return "ND"
        if self.neg == 0 and self.pos == 0:
            return "zero"
        if self.neg == 0:
            return "PSD"
        if self.pos == 0:
            return "NSD"
        return "indefinite"

    @property
    def psd(self):
        """M ⪰ 0 (no negative eigenvalue)."""
        return self.neg == 0

    @property
    def nsd(self):
        """M ⪯ 0 (no positive eigenvalue)."""
        return self.pos == 0

    @property
    def pd(self):
        """M ≻ 0 (every eigenvalue positive)."""
        return self.pos == self.n

    @property
    def nd(self):
        """M ≺ 0 (every eigenvalue negative)."""
        return self.neg == self.n

    def __repr__(self):
        return f"Definiteness({self.kind}, inertia=({self.pos}, {self.neg}, {self.zero}))"


def definiteness(M) -> Definiteness:
    """Exact definiteness of a rational symmetric matrix with rational witnesses.

    Inertia from :func:`inertia`; the witnesses from the congruence elimination (their
    quadratic forms are re-checked exactly here, so a witness is never wrong).

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        A symmetric rational matrix.

    Returns
    -------
    Definiteness
        The inertia (``pos``, ``neg``, ``zero``), the class (``kind``, ``pd``, ``psd``, …),
        ``neg_witness`` (v with vᵀMv < 0, when n₋ > 0) and ``pos_witness`` (vᵀMv > 0, when
        n₊ > 0), tuples of Fractions.
    """
    A = qmat(M)
    pos, neg, zero = inertia(A)
    F = qmat_to_fractions(A)
    negF = tuple(tuple(-e for e in r) for r in F)
    nw = pw = None
    if neg:
        nw = psd_decision(F).witness
        assert nw is not None and quad_form(F, nw) < 0
    if pos:
        pw = psd_decision(negF).witness
        assert pw is not None and quad_form(F, pw) > 0
    return Definiteness(pos, neg, zero, nw, pw)


def exact_factor(S, *, largest_pivot: bool = False) -> tuple[flint.fmpq_mat, flint.fmpq_mat]:
    """S = B D Bᵀ for a rational PSD S by symmetric elimination over ℚ.

    Parameters
    ----------
    S : flint.fmpq_mat or nested sequence
        A rational symmetric positive semidefinite matrix (n × n).
    largest_pivot : bool
        Pivot on the largest remaining diagonal entry (first one on ties) instead of the
        first nonzero one.  Both are exact; they give different (equally valid) factors.

    Returns
    -------
    B : flint.fmpq_mat
        n × r, rational, of full column rank r = rank S; column k is the k-th pivot column
        divided by its pivot (so B has a unit entry in each pivot row).
    D : flint.fmpq_mat
        r × r rational diagonal ≻ 0, the pivots.

    Raises
    ------
    ValueError
        If S is not PSD (a negative pivot, or a zero diagonal with a nonzero off-diagonal).
    """
    A = qmat(S)
    n = A.nrows()
    R = [[A[i, j] for j in range(n)] for i in range(n)]
    cols, piv = [], []
    remaining = list(range(n))
    while remaining:
        if largest_pivot:
            k = max(remaining, key=lambda i: R[i][i])
            k = k if R[k][k] != 0 else next((i for i in remaining if R[i][i] != 0), None)
        else:
            k = next((i for i in remaining if R[i][i] != 0), None)
        if k is None:  # all remaining pivots zero: PSD iff the remaining block is zero
            if any(R[i][j] != 0 for i in remaining for j in remaining):
                raise ValueError("not PSD")
            break
        p = R[k][k]
        if p < 0:
            raise ValueError("not PSD")
        remaining.remove(k)
        col = [R[i][k] / p for i in range(n)]  # eliminated rows hold 0 in column k
        for i in remaining:
            for j in remaining:
                R[i][j] = R[i][j] - col[i] * R[k][j]
        for i in range(n):
            R[i][k] = R[k][i] = flint.fmpq(0)
        cols.append(col)
        piv.append(p)
    r = len(cols)
    B = flint.fmpq_mat(n, r, [cols[j][i] for i in range(n) for j in range(r)])
    D = flint.fmpq_mat(r, r, [piv[i] if i == j else 0 for i in range(r) for j in range(r)])
    return B, D


def float_factor(cov) -> np.ndarray:
    r"""A *float* factor B (n × r) with B Bᵀ = cov up to rounding, from the exact LDLᵀ.

    For sampling N(mean, cov) — a float helper, not a decision.  cov = Σ_k D_k ℓ_k ℓ_kᵀ
    exactly (:func:`exact_factor` with the largest pivot first), r = rank cov exactly, and
    B = [√D_k ℓ_k]_k rounded to floats.  A singular covariance gives exactly degenerate samples
    (cov = [[1, 1], [1, 1]] gives x₁ = x₂ exactly): the zero rows/relations of ℓ_k are exact.

    Parameters
    ----------
    cov : nested sequence of exact numbers or flint.fmpq_mat
        A rational PSD matrix (n × n).

    Returns
    -------
    numpy.ndarray
        B, shape (n, r).

    Raises
    ------
    ValueError
        If cov is not PSD.
    """
    import numpy as np

    B, D = exact_factor(cov, largest_pivot=True)
    n, r = B.nrows(), B.ncols()
    out = np.zeros((n, r))
    for c in range(r):
        piv = fraction_of(D[c, c])
        out[:, c] = math.sqrt(piv) * np.array([float(fraction_of(B[i, c])) for i in range(n)])
    return out


def pd_or_witness(M) -> tuple[bool, tuple | None]:
    """Is the rational symmetric M positive definite?  If not, a rational witness.

    2 × 2: the closed form (a > 0 and det > 0; witness (1, 0) when a ≤ 0, else (−b, a) with
    wᵀMw = a·det ≤ 0).  Larger: the congruence elimination's negative direction, or an exact
    kernel vector when M is PSD but singular.

    Parameters
    ----------
    M : flint.fmpq_mat or nested sequence
        A rational symmetric matrix.

    Returns
    -------
    tuple
        (True, None) if M ≻ 0, else (False, w) with w a tuple of Fractions, w ≠ 0, wᵀMw ≤ 0.
    """
    F = qmat_to_fractions(qmat(M))
    if len(F) == 2:
        a, b, c = F[0][0], F[0][1], F[1][1]
        det = a * c - b * b
        if a > 0 and det > 0:
            return True, None
        if a <= 0:
            return False, (Fraction(1), Fraction(0))
        return False, (-b, a)
    res = psd_decision(F)
    if res.pd:
        return True, None
    if res.witness is not None:
        return False, res.witness
    return False, first_kernel_vector(qmat(F))


def kernel_basis(M) -> list[list]:
    """The RREF basis of ker M: for each free column f of the reduced row echelon form R, the vector with
    1 at f, −R[i, f] at the pivot column of row i, 0 elsewhere.

    Parameters
    ----------
    M : flint.fmpq_mat
        A rational matrix.

    Returns
    -------
    list of list of flint.fmpq
        The basis vectors (n − rank M of them), each of length n = M.ncols().
    """
    R, rk = M.rref()
    n = M.ncols()
    pivots, row = [], 0
    for col in range(n):
        if row < rk and R[row, col] != 0:
            pivots.append(col)
            row += 1
    basis = []
    for f in (c for c in range(n) if c not in pivots):
        v = [flint.fmpq(0)] * n
        v[f] = flint.fmpq(1)
        for i, pc in enumerate(pivots):
            v[pc] = -R[i, f]
        basis.append(v)
    return basis


def first_kernel_vector(M) -> tuple:
    """The first vector of the RREF basis of ker M (M singular): 1 at the first free column f,
    −R[i, f] at the pivot column of row i of the reduced row echelon form R, 0 elsewhere.

    The RREF of a rational matrix is unique, so this is the vector SymPy's ``nullspace()[0]`` gives.

    Parameters
    ----------
    M : flint.fmpq_mat
        A singular square rational matrix.

    Returns
    -------
    tuple of Fraction
        w ≠ 0 with Mw = 0.
    """
    R, rank = M.rref()
    n = M.ncols()
    pivots = []
    for i in range(rank):
        pivots.append(next(j for j in range(n) if R[i, j] != 0))
    f = next(j for j in range(n) if j not in pivots)
    w = [Fraction(0)] * n
    w[f] = Fraction(1)
    for i, pc in enumerate(pivots):
        w[pc] = -fraction_of(R[i, f])
    return tuple(w)
