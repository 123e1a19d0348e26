"""Sigmoid attention: Γ(x) = V ∫ σ(yᵀAx + b₀) y dμ(y), σ(z) = 1/(1 + e^{−z})  (docs/mathematics.md §2)."""
from __future__ import annotations

from .base import NONE, Variant, bilinear, register


@register
class Sigmoid(Variant):
    name = "sigmoid"
    summary = "Γ(x) = V ∫ σ(yᵀAx + b₀) y dμ"
    reference = "Ramapuram et al. (2024); Castin et al. §2; docs/mathematics.md §3 (not Gaussian-closed)"
    normalisation = NONE
    matrices = ("A", "V")
    scalars = ("scale", "sigmoid_bias")
    expected_closed = False
    order = 6

    def kernel(self, x, y, P):
        """k(x, y) = σ(τ yᵀAx + b₀), σ(z) = 1/(1 + e^{−z}), b₀ = ``sigmoid_bias``.

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
        z = bilinear(x, y, P) + P["sigmoid_bias"]
        return 1 / (1 + sp.exp(-z))

    def velocity(self, Xq, Y, params, w=None, **kw):
        """Γ(x) = V Σ_j w_j σ(y_jᵀ A x + b₀) y_j.

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
        from .velocity import sigmoid_velocity

        return sigmoid_velocity(Xq, Y, params["A"], params["V"],
                                bias=params.get("sigmoid_bias", 0.0), w=w, **kw)
