"""Matrix jets: truncated Taylor series with ``flint.arb_mat`` coefficients, and their arithmetic.

A jet node holds the Taylor coefficients c_0, c_1, … of a matrix-valued function of t (the
entry ``None`` stands for an exact zero coefficient); :meth:`Jet.push` computes coefficient k
from coefficients ≤ k of its inputs (and of itself):

* sums, constant factors and transposes act coefficient-wise;
* products are Cauchy products c_k = Σ_i a_i b_{k−i} (constant factors cost one product);
* inverses Y = X⁻¹: Y_k = −Y_0 Σ_{i≥1} X_i Y_{k−i};
* principal square roots S = M^{1/2}: S_0 by a Denman–Beavers iteration (:func:`arb_sqrtm`),
  then S_0 S_k + S_k S_0 = M_k − Σ_{0<i<k} S_i S_{k−i}, a Sylvester equation solved through its
  (once-inverted) Kronecker matrix.

Midpoints are kept after each operation (``.mid()``): the balls give speed (python-flint is
≈ 40× faster than ``mpmath.matrix``), not enclosures.  The conversions between SymPy, mpmath and
arb values used by the reference integrator (:mod:`symbolic_tf.numeric.reference`) live here too.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath
import sympy as sp
from ..exact.rational import fmpq_of

__all__ = ["arb_of_sympy", "arb_of_mpf", "mpf_of_arb", "arb_of_fraction", "arb_matrix_of_sympy",
           "arb_matrix_of_any", "mp_matrix_of_arb", "log2_norm", "arb_eye", "arb_zeros", "arb_sqrtm",
           "prec_bits", "Jet", "ConstJet", "StateJet", "AddJet", "ScaleJet", "TransposeJet", "MulJet",
           "InvJet", "SqrtJet", "jet_children"]


# ---------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------
def arb_of_sympy(e, dps: int):
    """A real SymPy number as an arb ball: exact for a rational, else its value at dps + 15 digits."""
    e = sp.sympify(e)
    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    f = sp.N(e, dps + 15)
    if not f.is_real or not f.is_number:
        raise TypeError(f"cannot evaluate {e} to a real number")
    return arb_of_mpf(mpmath.mpf(sp.Float(f, dps + 15)._mpf_))


def arb_of_mpf(x):
    """An mpmath number m·2^e as an exact arb ball."""
    sign, man, exp, _bc = mpmath.mpf(x)._mpf_
    if man == 0:
        return flint.arb(0)
    man = -man if sign else man
    q = flint.fmpq(man << exp, 1) if exp >= 0 else flint.fmpq(man, 1 << (-exp))
    return flint.arb(q)


def mpf_of_arb(a):
    """The midpoint of an arb ball as an mpmath number (exactly)."""
    m, e = a.mid().man_exp()
    return mpmath.mpf((int(m), int(e)))


def arb_of_fraction(q: Fraction):
    """A rational p/q as an exact arb ball."""
    return flint.arb(fmpq_of(q))


def arb_matrix_of_sympy(M, dps: int):
    """A SymPy matrix of real numbers as an arb matrix (entries by :func:`arb_of_sympy`)."""
    M = sp.Matrix(M)
    return flint.arb_mat(M.rows, M.cols, [arb_of_sympy(e, dps) for e in M])


def arb_matrix_of_any(M, dps: int):
    """An arb, mpmath or SymPy matrix as an arb matrix."""
    if isinstance(M, flint.arb_mat):
        return M
    if isinstance(M, mpmath.matrix):
        return flint.arb_mat(M.rows, M.cols, [arb_of_mpf(M[i, j]) for i in range(M.rows)
                                              for j in range(M.cols)])
    return arb_matrix_of_sympy(M, dps)


def mp_matrix_of_arb(M):
    """The midpoints of an arb matrix as an mpmath matrix (exactly)."""
    return mpmath.matrix([[mpf_of_arb(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def log2_norm(M) -> float:
    """log2 of the max-entry norm (approximate; −inf for 0, +inf for a non-finite entry)."""
    best = -math.inf
    for e in M.entries():
        if not e.is_finite():
            return math.inf
        m, x = e.mid().man_exp()
        m = int(m)
        if m:
            best = max(best, abs(m).bit_length() + int(x))
    return float(best)


def arb_eye(n):
    """The n×n identity as an arb matrix."""
    return flint.arb_mat(n, n, [flint.arb(1) if i == j else flint.arb(0)
                                for i in range(n) for j in range(n)])


def arb_zeros(r, c):
    """The r×c zero arb matrix."""
    return flint.arb_mat(r, c)


def arb_sqrtm(M, tol_bits: int):
    """Principal square root (spectrum in Re > 0) by the Denman–Beavers iteration, in real
    arithmetic: Y ← (Y + Z⁻¹)/2, Z ← (Z + Y⁻¹)/2 from (M, I), midpoints only.
    """
    n = M.nrows()
    Y, Z = M.mid(), arb_eye(n)
    prev = math.inf
    for _ in range(200):
        Yn = ((Y + Z.inv()) * flint.arb(0.5)).mid()
        Z = ((Z + Y.inv()) * flint.arb(0.5)).mid()
        dl, yl = log2_norm(Yn - Y), log2_norm(Yn)
        Y = Yn
        if dl == -math.inf or dl < yl - tol_bits:
            return Y
        if dl < yl - tol_bits // 2 and dl >= prev:  # converged to rounding level
            return Y
        prev = dl
    raise ArithmeticError("matrix square root iteration did not converge (spectrum not in Re > 0?)")


def prec_bits(dps: int) -> int:
    """Binary precision of the jets for ``dps`` decimal digits: ⌈dps·log2 10⌉ + 16 guard bits."""
    return int(math.ceil(dps * math.log2(10))) + 16


# ---------------------------------------------------------------------------------------
# matrix-jet nodes
# ---------------------------------------------------------------------------------------
def _sum_present(terms):
    """The sum of the terms that are not None, left to right (None when there is none: exact zero)."""
    acc = None
    for p in terms:
        if p is not None:
            acc = p if acc is None else acc + p
    return acc


class Jet:
    """A node of the jet DAG: its Taylor coefficients ``c`` (``None`` = exact zero)."""

    const = False

    def __init__(self):
        self.c = []

    def co(self, i):
        """Coefficient i, or None when it is zero or not computed yet."""
        return self.c[i] if i < len(self.c) else None


class ConstJet(Jet):
    """A constant: c_0 = value, every other coefficient 0."""

    const = True

    def __init__(self, value):
        super().__init__()
        self.c = [value]

    def push(self, k):
        """Nothing to compute (constants have one coefficient)."""


class StateJet(Jet):
    """α or Σ: the integrator appends its coefficients (y_{k+1} = f_k/(k + 1))."""

    def push(self, k):
        """Nothing to compute (the integrator appends the coefficients)."""


class AddJet(Jet):
    """A sum of jets: c_k = Σ_args a_k."""

    def __init__(self, args):
        super().__init__()
        self.args = args

    def push(self, k):
        """Append coefficient k."""
        acc = _sum_present(a.co(k) for a in self.args)
        self.c.append(None if acc is None else acc.mid())


class _UnaryJet(Jet):
    """A jet of one input jet ``arg``."""

    def __init__(self, arg):
        super().__init__()
        self.arg = arg


class _CoefficientwiseJet(_UnaryJet):
    """A linear map of one jet, coefficient by coefficient: c_k = L(a_k) (a zero stays zero)."""

    def push(self, k):
        """Append coefficient k."""
        v = self.arg.co(k)
        self.c.append(None if v is None else self._map(v))


class ScaleJet(_CoefficientwiseJet):
    """A constant scalar times a jet: c_k = s·a_k."""

    def __init__(self, s, arg):
        super().__init__(arg)
        self.s = s

    def _map(self, v):
        return (v * self.s).mid()


class TransposeJet(_CoefficientwiseJet):
    """The transpose of a jet: c_k = a_kᵀ."""

    def _map(self, v):
        return v.transpose()


class MulJet(Jet):
    """A matrix product of jets: the Cauchy product c_k = Σ_{i≤k} a_i b_{k−i} (one product when a
    factor is constant)."""

    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b

    def push(self, k):
        """Append coefficient k."""
        a, b = self.a, self.b
        if a.const:
            v = b.c[k]
            self.c.append(None if v is None else (a.c[0] * v).mid())
            return
        if b.const:
            v = a.c[k]
            self.c.append(None if v is None else (v * b.c[0]).mid())
            return
        ac, bc = a.c, b.c
        acc = _sum_present(ac[i] * bc[k - i] for i in range(k + 1) if ac[i] is not None and bc[k - i] is not None)
        self.c.append(None if acc is None else acc.mid())


class InvJet(_UnaryJet):
    """The inverse Y = X⁻¹ of a jet: Y_0 = X_0⁻¹, Y_k = −Y_0 Σ_{1≤i≤k} X_i Y_{k−i}."""

    def push(self, k):
        """Append coefficient k."""
        X = self.arg.c
        if k == 0:
            self.c.append(X[0].inv().mid())
            return
        acc = _sum_present(X[i] * self.c[k - i] for i in range(1, k + 1) if X[i] is not None)
        self.c.append(None if acc is None else (-(self.c[0] * acc)).mid())


class SqrtJet(_UnaryJet):
    """The principal square root S = M^{1/2} of a jet: S_0 = :func:`arb_sqrtm` (M_0), then
    S_0 S_k + S_k S_0 = M_k − Σ_{0<i<k} S_i S_{k−i} through the inverted Kronecker matrix."""

    def __init__(self, arg, tol_bits):
        super().__init__(arg)
        self.tol_bits = tol_bits

    def push(self, k):
        """Append coefficient k."""
        M = self.arg.c
        if k == 0:
            S0 = arb_sqrtm(M[0], self.tol_bits)
            n = S0.nrows()
            K = flint.arb_mat(n * n, n * n)
            for i in range(n):
                for j in range(n):
                    r = i * n + j
                    for m in range(n):
                        K[r, m * n + j] += S0[i, m]  # (S0 X)_{ij}
                        K[r, i * n + m] += S0[m, j]  # (X S0)_{ij}
            self.Kinv, self.n = K.inv().mid(), n
            self.c = [S0]
            return
        C = M[k]
        for i in range(1, k):
            if self.c[i] is not None and self.c[k - i] is not None:
                p = self.c[i] * self.c[k - i]
                C = -p if C is None else C - p
        if C is None:
            self.c.append(None)
            return
        n = self.n
        x = self.Kinv * flint.arb_mat(n * n, 1, C.entries())
        self.c.append(flint.arb_mat(n, n, x.mid().entries()))


def jet_children(node):
    """The input jets of a node."""
    if isinstance(node, AddJet):
        return node.args
    if isinstance(node, MulJet):
        return [node.a, node.b]
    if isinstance(node, _UnaryJet):
        return [node.arg]
    return []
