"""Softmax self-attention: Γ_μ(x) = V ∫ e^{yᵀAx} y dμ(y) / ∫ e^{yᵀAx} dμ(y)  (docs/mathematics.md §2)."""
from __future__ import annotations

from fractions import Fraction

from .base import ROW, Variant, bilinear, register


@register
class Softmax(Variant):
    name = "softmax"
    summary = "Γ(x) = V ∫ e^{yᵀAx} y dμ / ∫ e^{yᵀAx} dμ"
    reference = "Castin et al. (arXiv 2501.18322) §2; docs/mathematics.md §2–3"
    normalisation = ROW
    matrices = ("A", "V")
    order = 0
    energy_kernel = "bilinear"  # W = e^{yᵀAx}
    quadratic_factor = Fraction(1)
    gradient_flow_metrics = ("twisted", "wasserstein")

    def kernel(self, x, y, P):
        """k(x, y) = e^{τ yᵀAx}.

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

    def velocity(self, Xq, Y, params, w=None, **kw):
        """Γ(x) = V Σ_j w_j e^{y_jᵀ A x} y_j / Σ_j w_j e^{y_jᵀ A x}.

        Parameters
        ----------
        Xq : ndarray, shape (M, d)
            Query points.
        Y : ndarray, shape (N, d)
            Support of μ^N.
        params : dict
            Float parameters from :meth:`numeric_params`.
        w : ndarray, shape (N,), optional
            Non-negative weights with positive sum (default uniform).
        **kw
            Passed on (e.g. ``chunk``, queries per block).

        Returns
        -------
        ndarray, shape (M, d)
            Γ at each query.
        """
        from .velocity import softmax_velocity

        return softmax_velocity(Xq, Y, params["A"], params["V"], w=w, **kw)
