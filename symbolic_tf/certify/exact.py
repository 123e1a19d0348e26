"""Exact (ℚ) and ball (arb) matrix decisions — the arithmetic primitives certificates use.

* :func:`inertia` — (n₊, n₋, n₀) of a rational symmetric matrix from the characteristic
  polynomial: a real symmetric matrix has only real eigenvalues, so Descartes' rule of signs
  is *exact* for its characteristic polynomial (#positive roots = sign changes of p(x),
  #negative roots = sign changes of p(−x)).
* :func:`definiteness` — PD / PSD / ND / NSD / indefinite / zero, with a rational witness
  vector for every negative claim (vᵀMv < 0 or > 0), from the exact congruence elimination
  of :mod:`symbolic_tf.spec.linalg`.
* :func:`ball_pd` — strict positive definiteness of a symmetric *ball/interval* matrix by a
  Cholesky (LDLᵀ) factorisation in arb arithmetic: True only if every pivot ball is > 0.

No float eigenvalue is ever used to decide.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import flint

from ..spec.linalg import psd_decision, quad_form

__all__ = ["pd_or_witness", "Q", "qmat", "qmat_to_fractions", "inertia", "definiteness", "Definiteness", "ball_pd",
           "arb_matrix", "frac_str", "parse_frac", "sym_part", "rank", "exact_factor"]


def parse_frac(s) -> Fraction:
    """"p/q" (or int) → Fraction."""
    return Fraction(s) if not isinstance(s, Fraction) else s


def frac_str(q) -> str:
    """Exact "p/q" string of an int, Fraction, fmpq or SymPy Rational."""
    if hasattr(q, "p") and hasattr(q, "q") and not isinstance(q, Fraction):
        q = Fraction(int(q.p), int(q.q))
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def Q(x) -> flint.fmpq:
    """An exact flint rational from int, Fraction, "p/q" string, fmpq or a SymPy Rational."""
    if isinstance(x, flint.fmpq):
        return x
    if isinstance(x, str):
        x = Fraction(x)
    if hasattr(x, "p") and hasattr(x, "q") and not isinstance(x, Fraction):  # sympy Rational
        return flint.fmpq(int(x.p), int(x.q))
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def qmat(M) -> flint.fmpq_mat:
    """An exact ``fmpq_mat`` from nested sequences of exact numbers."""
    if isinstance(M, flint.fmpq_mat):
        return M
    if hasattr(M, "tolist") and not isinstance(M, (list, tuple)):
        M = M.tolist()
    rows = [[Q(e) for e in r] for r in M]
    return flint.fmpq_mat(len(rows), len(rows[0]) if rows else 0, [e for r in rows for e in r])


def qmat_to_fractions(M: flint.fmpq_mat) -> tuple:
    return tuple(tuple(Fraction(int(M[i, j].p), int(M[i, j].q)) for j in range(M.ncols()))
                 for i in range(M.nrows()))


def sym_part(M: flint.fmpq_mat) -> flint.fmpq_mat:
    """(M + Mᵀ)/2, exactly."""
    return (M + M.transpose()) / 2


def rank(M) -> int:
    return qmat(M).rank()


def _sign_changes(coeffs: Sequence) -> int:
    signs = [c > 0 for c in coeffs if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def inertia(M) -> tuple[int, int, int]:
    """(#positive, #negative, #zero) eigenvalues of a rational *symmetric* matrix, exactly."""
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


class Definiteness:
    """Result of :func:`definiteness`: inertia, the class name and witnesses."""

    def __init__(self, pos, neg, zero, neg_witness=None, pos_witness=None):
        self.pos, self.neg, self.zero = pos, neg, zero
        self.neg_witness = neg_witness  # v with vᵀMv < 0 (exists iff neg > 0)
        self.pos_witness = pos_witness  # v with vᵀMv > 0 (exists iff pos > 0)

    @property
    def n(self):
        return self.pos + self.neg + self.zero

    @property
    def kind(self) -> str:
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
        return self.neg == 0

    @property
    def nsd(self):
        return self.pos == 0

    @property
    def pd(self):
        return self.pos == self.n

    @property
    def nd(self):
        return self.neg == self.n

    def __repr__(self):
        return f"Definiteness({self.kind}, inertia=({self.pos}, {self.neg}, {self.zero}))"


def definiteness(M) -> Definiteness:
    """Exact definiteness of a rational symmetric matrix with rational witnesses.

    Inertia from :func:`inertia`; the witnesses from the congruence elimination (their
    quadratic forms are re-checked exactly here, so a witness is never wrong).
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


def arb_matrix(M, rad=None, prec: int = 128) -> flint.arb_mat:
    """A ball matrix from exact midpoints (and optional exact radii per entry)."""
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
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
    finally:
        flint.ctx.prec = old


def ball_pd(M: flint.arb_mat) -> bool | None:
    """True if every symmetric matrix in the ball matrix M is PD (ball LDLᵀ pivots > 0);
    False if a pivot is certainly ≤ 0 ... which for balls only proves failure of *this*
    elimination, so False is returned only when the first pivot (a diagonal entry) is < 0;
    otherwise ``None`` (undecided)."""
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


def exact_factor(S) -> tuple[flint.fmpq_mat, flint.fmpq_mat]:
    """S = B D Bᵀ for a rational PSD S: B (n×r) rational of full column rank, D (r×r) rational
    diagonal ≻ 0, r = rank S (symmetric elimination).  Raises ValueError if S is not PSD."""
    A = qmat(S)
    n = A.nrows()
    R = [[A[i, j] for j in range(n)] for i in range(n)]
    cols, piv = [], []
    remaining = list(range(n))
    while remaining:
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


def pd_or_witness(M) -> tuple[bool, tuple | None]:
    """(True, None) if the rational symmetric M is PD, else (False, w) with a rational w ≠ 0,
    wᵀMw ≤ 0 (a negative direction from the congruence elimination, or a kernel vector)."""
    F = qmat_to_fractions(qmat(M))
    res = psd_decision(F)
    if res.pd:
        return True, None
    if res.witness is not None:
        return False, res.witness
    import sympy as sp  # PSD but singular: an exact kernel vector

    w = sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in r] for r in F]).nullspace()[0]
    return False, tuple(Fraction(int(sp.Rational(e).p), int(sp.Rational(e).q)) for e in w)
