"""Linear (un-normalised, polynomial) attention: Γ(x) = ∫ (yᵀAx) V y dμ(y)  (docs/mathematics.md §2)."""
from __future__ import annotations

from .base import NONE, Variant, bilinear, register


@register
class Linear(Variant):
    name = "linear"
    summary = "Γ(x) = V ∫ (yᵀAx) y dμ"
    reference = "Katharopoulos et al. (2020); Castin et al. §2; docs/mathematics.md §3"
    normalisation = NONE
    matrices = ("A", "V")
    order = 3

    def kernel(self, x, y, P):
        """k(x, y) = τ yᵀAx.

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
        return bilinear(x, y, P)

    def velocity(self, Xq, Y, params, w=None, **kw):
        """Γ(x) = V Σ_j w_j (y_jᵀ A x) y_j = V M₂ A x, M₂ = Σ_j w_j y_j y_jᵀ.

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
            Accepted and ignored.

        Returns
        -------
        ndarray, shape (M, d)
            Γ at each query.
        """
        from .velocity import linear_velocity

        return linear_velocity(Xq, Y, params["A"], params["V"], w=w)
