"""Unnormalised exponential attention: Γ(x) = V ∫ e^{yᵀAx} y dμ(y)  (docs/mathematics.md §2).

Gaussians are *not* preserved: Γ is e^{quadratic(x)} times an affine map."""
from __future__ import annotations

from .base import NONE, Variant, bilinear, register


@register
class Unnormalised(Variant):
    name = "unnormalised"
    aliases = ("unnormalized", "exp")
    summary = "Γ(x) = V ∫ e^{yᵀAx} y dμ"
    reference = "Castin et al. §2; docs/mathematics.md §3 (not Gaussian-closed)"
    normalisation = NONE
    matrices = ("A", "V")
    expected_closed = False
    order = 5

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
        """Γ(x) = V Σ_j w_j e^{y_jᵀ A x} y_j (no normalisation).

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
        from .velocity import unnormalised_velocity

        return unnormalised_velocity(Xq, Y, params["A"], params["V"], w=w, **kw)
