"""Evaluate matrix-form expressions at concrete parameters: exactly when the result is
rational, otherwise to high precision with mpmath (for matrix square roots, Sinkhorn).
"""
from __future__ import annotations

import sympy as sp

from ..exact.multiprecision import mp_sqrtm
from .walk import MatrixWalker, is_matrix

__all__ = ["needs_numeric", "evaluate_exact", "evaluate_mp"]


def needs_numeric(expr) -> bool:
    """True if the expression holds a non-integer matrix power (e.g. a square root)."""
    return any(not p.exp.is_Integer for p in expr.atoms(sp.MatPow))


def evaluate_exact(expr, env: dict, dims: dict):
    """Substitute explicit exact matrices for the symbols and evaluate (an ImmutableMatrix)."""
    e = expr.subs(dims) if dims else expr
    sub = {}
    for sym, val in env.items():
        sub[sym.subs(dims) if hasattr(sym, "subs") and dims else sym] = val
    out = e.xreplace(sub).doit()
    if isinstance(out, sp.MatrixExpr) and not isinstance(out, sp.MatrixBase):
        out = out.as_explicit()
    return sp.ImmutableMatrix(out).applyfunc(sp.simplify)


def evaluate_mp(expr, env: dict, n: int, dps: int = 50):
    """Evaluate a matrix expression tree with mpmath at ``dps`` digits.

    ``env`` maps MatrixSymbol/Symbol → exact SymPy values; ``n`` is the dimension (identity size).
    Supports MatAdd, MatMul (with scalar factors), Transpose, Inverse, MatPow (integer or
    real exponent, through mpmath's ``sqrtm``/``expm``-free ``powm`` on the principal branch),
    Identity and ZeroMatrix (walked by :class:`~symbolic_tf.symbolic.walk.MatrixWalker`).
    """
    import mpmath

    with mpmath.workdps(dps):
        val = MatrixWalker(_MpEvaluator(env, n, dps, mpmath)).walk(expr)
        if not isinstance(val, mpmath.matrix):
            val = mpmath.matrix([[val]])
        return val


class _MpEvaluator:
    """Matrix backend of :class:`~symbolic_tf.symbolic.walk.MatrixWalker`: mpmath values."""

    def __init__(self, env: dict, n: int, dps: int, mpmath):
        self.env, self.n, self.dps, self.mp = env, n, dps, mpmath
        self.env_mp = {}
        for k_, v in env.items():
            if isinstance(v, sp.MatrixBase):
                self.env_mp[k_] = mpmath.matrix([[mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q for e in row]
                                                 for row in v.tolist()])
            else:
                self.env_mp[k_] = mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q

    @staticmethod
    def _unsupported(e):
        return TypeError(f"cannot evaluate {type(e).__name__}: {e}")

    def matrix_symbol(self, e):
        if e in self.env_mp:
            return self.env_mp[e]
        raise self._unsupported(e)

    def identity(self, e):
        return self.mp.eye(self.n)

    def zero(self, e):
        return self.mp.zeros(self.n, 1 if e.shape[1] == 1 else self.n)

    def explicit(self, e):
        raise self._unsupported(e)

    def matadd(self, e, args):
        out = args[0]
        for a in args[1:]:
            out = out + a
        return out

    def matmul(self, e, scalars, mats):
        mats = iter(mats)
        out = None
        for a in e.args:
            val = next(mats) if is_matrix(a) else self.scalar(a)
            out = val if out is None else out * val
        return out

    def transpose(self, e, arg):
        return arg.T

    def inverse(self, e, arg):
        return self.mp.inverse(arg)

    def sqrt(self, e, base):
        return mp_sqrtm(base)

    def integer_power(self, e, base, n, walker):
        return base ** n if n >= 0 else self.mp.inverse(base) ** (-n)

    def real_power(self, e, base, p, walker):
        return self.mp.powm(base, self.mp.mpf(sp.Rational(p).p) / sp.Rational(p).q)

    def scalar(self, e):
        mpmath, dps = self.mp, self.dps
        if e in self.env_mp:
            return self.env_mp[e]
        if e.is_Number:
            return mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q if e.is_Rational else mpmath.mpf(str(sp.N(e, dps)))
        if isinstance(e, (sp.Add, sp.Mul, sp.Pow)):
            return mpmath.mpf(str(sp.N(e.xreplace({k: v for k, v in self.env.items()
                                                    if not isinstance(v, sp.MatrixBase)}), dps)))
        raise self._unsupported(e)
