"""Evaluate matrix-form expressions at concrete parameters: exactly when the result is
rational, otherwise to high precision with mpmath (for matrix square roots, Sinkhorn).
"""
from __future__ import annotations

import sympy as sp

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
    Identity and ZeroMatrix.
    """
    import mpmath

    with mpmath.workdps(dps):
        env_mp = {}
        for k_, v in env.items():
            if isinstance(v, sp.MatrixBase):
                env_mp[k_] = mpmath.matrix([[mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q for e in row]
                                            for row in v.tolist()])
            else:
                env_mp[k_] = mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q

        def ev(e):
            if e in env_mp:
                return env_mp[e]
            if isinstance(e, sp.Identity):
                return mpmath.eye(n)
            if isinstance(e, sp.ZeroMatrix):
                return mpmath.zeros(n, 1 if e.shape[1] == 1 else n)
            if isinstance(e, sp.MatAdd):
                out = ev(e.args[0])
                for a in e.args[1:]:
                    out = out + ev(a)
                return out
            if isinstance(e, sp.MatMul):
                out = None
                for a in e.args:
                    val = ev(a)
                    out = val if out is None else out * val
                return out
            if isinstance(e, sp.Transpose):
                return ev(e.arg).T
            if isinstance(e, sp.Inverse):
                return mpmath.inverse(ev(e.arg))
            if isinstance(e, sp.MatPow):
                base = ev(e.base)
                if e.exp.is_Integer:
                    return base ** int(e.exp) if int(e.exp) >= 0 else mpmath.inverse(base) ** (-int(e.exp))
                if e.exp == sp.S.Half:
                    return _real_sqrtm(base, mpmath)
                return mpmath.powm(base, mpmath.mpf(sp.Rational(e.exp).p) / sp.Rational(e.exp).q)
            if e.is_Number:
                return mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q if e.is_Rational else mpmath.mpf(str(sp.N(e, dps)))
            if isinstance(e, (sp.Add, sp.Mul, sp.Pow)) and not isinstance(e, sp.MatrixExpr):
                return mpmath.mpf(str(sp.N(e.xreplace({k: v for k, v in env.items() if not isinstance(v, sp.MatrixBase)}), dps)))
            raise TypeError(f"cannot evaluate {type(e).__name__}: {e}")

        val = ev(expr)
        if not isinstance(val, mpmath.matrix):
            val = mpmath.matrix([[val]])
        return val


def _real_sqrtm(M, mpmath):
    """Principal square root of a real matrix with spectrum in Re > 0, in real arithmetic.

    Denman–Beavers iteration Y ← (Y + Z⁻¹)/2, Z ← (Z + Y⁻¹)/2 from (M, I); quadratically
    convergent, and unlike ``mpmath.sqrtm`` it never leaves ℝ (no spurious 1e-54j parts).
    """
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
