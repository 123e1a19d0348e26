"""ℓ2 self-attention: weight e^{−|Qx − Ky|²} instead of e^{⟨Qx, Ky⟩}  (docs/mathematics.md §2)."""
from __future__ import annotations

import sympy as sp

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
        r = P["Q"] * x - P["K"] * y
        return sp.exp(-P["scale"] * sp.Trace(r.T * r))

    def numeric_params(self, P):
        out = super().numeric_params(P)
        out.pop("A", None)
        return out

    def velocity(self, Xq, Y, params, w=None, **kw):
        from .velocity import l2_velocity

        return l2_velocity(Xq, Y, params["Q"], params["K"], params["V"], w=w,
                           scale=params.get("scale", 1.0), **kw)
