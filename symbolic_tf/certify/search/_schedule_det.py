"""det(I − W(τ)S) of a ``riccati`` schedule segment as a SymPy polynomial, for root isolation.

The checker (:func:`symbolic_tf.certify.check.kinds.schedule_phases.riccati_poly`) computes p and W
exactly with flint and counts roots by Sturm sequences.  The search brackets the first root of p
with SymPy's real-root isolation; the brackets enter certificates, so the isolation stays SymPy's
and only the polynomial is converted here.
"""
from __future__ import annotations

__all__ = ["riccati_poly"]


def riccati_poly(seg, problem, S):
    """(p, W, τ) of a ``riccati`` segment as SymPy objects (the checker's exact p and W)."""
    import sympy as sp

    from ..check.kinds.schedule_phases import riccati_poly as exact_riccati_poly

    tau = sp.Symbol("tau")

    def expr(f):
        return sum((sp.Rational(int(c.p), int(c.q)) * tau ** k for k, c in enumerate(f.coeffs())), sp.Integer(0))

    p, W = exact_riccati_poly(seg, problem, S)
    d = len(W)
    return sp.Poly(expr(p), tau, domain=sp.QQ), sp.Matrix(d, d, lambda i, j: expr(W[i][j])), tau
