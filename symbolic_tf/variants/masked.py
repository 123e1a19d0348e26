"""Masked (causal) softmax attention.

Tokens carry a position s ∈ [0, 1]; a query at s attends only to keys at s' ≤ s, normalised
over that cone:  Γ(x, s) = V ∫_{s'≤s} e^{yᵀAx} y dμ(y, s') / ∫_{s'≤s} e^{yᵀAx} dμ(y, s').
If the law of x does not depend on the position this is softmax; with position-dependent
Gaussian laws the attended cone law is a Gaussian *mixture* and Gaussians are not preserved.
"""
from __future__ import annotations

from .base import ROW, Variant, bilinear, register


@register
class Masked(Variant):
    name = "masked"
    aliases = ("causal",)
    summary = "Γ(x,s) = V ∫_{s'≤s} e^{yᵀAx} y dμ(y,s') / ∫_{s'≤s} e^{yᵀAx} dμ(y,s')"
    reference = "Castin et al. §2 (causal masking); docs/mathematics.md §2–3"
    normalisation = ROW
    matrices = ("A", "V")
    causal = True
    expected_closed = False
    order = 7

    def kernel(self, x, y, P):
        """k(x, y) = e^{τ yᵀAx} (the mask acts on positions, in the velocity).

        Parameters
        ----------
        x, y : sympy.Matrix or MatrixSymbol, shape (d, 1)
            Query and key token.
        P : Mapping
            Symbolic parameters (see :meth:`Variant.kernel`).

        Returns
        -------
        sympy.Expr
            The scalar kernel.
        """
        import sympy as sp  # here, not at the top: listing the variants stays light
        return sp.exp(bilinear(x, y, P))

    def velocity(self, Xq, Y, params, w=None, *, sq=None, sy=None, **kw):
        """Needs positions: ``sq`` for the queries and ``sy`` for the support.

        Parameters
        ----------
        Xq : ndarray, shape (M, d)
            Query points.
        Y : ndarray, shape (N, d)
            Support of μ^N.
        params : dict
            Float parameters (``A``, ``V``).
        w : ndarray, shape (N,), optional
            Non-negative weights (default uniform).
        sq : ndarray, shape (M,)
            Positions s ∈ [0, 1] of the queries (required).
        sy : ndarray, shape (N,)
            Positions of the support (required).
        **kw
            Passed on (``chunk``).

        Returns
        -------
        ndarray, shape (M, d)
            Γ(x, s) = V ∫_{s'≤s} e^{yᵀAx} y dμ / ∫_{s'≤s} e^{yᵀAx} dμ at each query.
        """
        from .velocity import masked_velocity

        if sq is None or sy is None:
            raise ValueError("the masked variant needs token positions sq and sy")
        return masked_velocity(Xq, sq, Y, sy, params["A"], params["V"], w=w, **kw)
