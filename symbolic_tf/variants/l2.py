"""ℓ2 self-attention: weight e^{−|Qx − Ky|²} instead of e^{⟨Qx, Ky⟩}  (docs/mathematics.md §2)."""
from __future__ import annotations

from .base import ROW, Variant, register


@register
class L2(Variant):
    name = "l2"
    aliases = ("ℓ2", "l2-attention")
    summary = "Γ(x) = V ∫ e^{−|Qx−Ky|²} y dμ / ∫ e^{−|Qx−Ky|²} dμ"
    reference = "Kim et al. (2021), Castin et al. §2; docs/mathematics.md §2–3"
    normalisation = ROW
    matrices = ("Q", "K", "V")
    order = 1
    growth_bound = "inverse-kernel"  # ‖Σ̇‖ ≤ 2τ‖V‖‖A‖‖Σ‖/λ_min(τKᵀK) for K of full column rank
    moment_assumptions = ("A = KᵀQ; the inverse (I + 2τΣKᵀK)⁻¹ exists for Σ ⪰ 0",)
    energy_kernel = "l2-distance"  # W = e^{−|Qx−Ky|²}

    def kernel(self, x, y, P):
        """k(x, y) = e^{−τ|Qx − Ky|²}.

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
        r = P["Q"] * x - P["K"] * y
        return sp.exp(-P["scale"] * sp.Trace(r.T * r))

    def numeric_params(self, P):
        """Float parameters (Q, K, V, scale); the ℓ2 kernel uses Q and K, so no ``A`` is kept.

        Parameters
        ----------
        P : Mapping
            Exact parameters.

        Returns
        -------
        dict
            As :meth:`Variant.numeric_params` without ``A``.
        """
        out = super().numeric_params(P)
        out.pop("A", None)
        return out

    def velocity(self, Xq, Y, params, w=None, **kw):
        """Γ(x) = V Σ_j w_j e^{−τ|Qx − Ky_j|²} y_j / Σ_j w_j e^{−τ|Qx − Ky_j|²}.

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
        from .velocity import l2_velocity

        return l2_velocity(Xq, Y, params["Q"], params["K"], params["V"], w=w,
                           scale=params.get("scale", 1.0), **kw)
