"""Sinkhorn (doubly stochastic) attention, ε = 1: Γ(x) = V ∫ y π(dy|x), π the entropic
self-coupling of μ with kernel e^{yᵀAx} (both marginals μ)  (docs/mathematics.md §2–3)."""
from __future__ import annotations

import sympy as sp

from .base import BISTOCHASTIC, Variant, bilinear, register


@register
class Sinkhorn(Variant):
    name = "sinkhorn"
    summary = "Γ(x) = V ∫ y π(dy|x), π ∝ e^{yᵀAx} μ⊗μ with both marginals μ"
    reference = "Sander et al. (2022) Sinkformers; Castin et al. §2; docs/mathematics.md §3"
    normalisation = BISTOCHASTIC
    matrices = ("A", "V")
    order = 2
    growth_bound = "coupling"  # ‖Σ̇‖ ≤ 2‖V‖‖Σ‖: the coupling's cross-covariance is bounded by Σ
    moment_assumptions = ("principal square root; I + 4ΣGᵀΣG has real spectrum ≥ 1 for Σ ⪰ 0",)

    def kernel(self, x, y, P):
        return sp.exp(bilinear(x, y, P))

    def velocity(self, Xq, Y, params, w=None, **kw):
        from .velocity import sinkhorn_velocity

        return sinkhorn_velocity(Xq, Y, params["A"], params["V"], w=w, **kw)
