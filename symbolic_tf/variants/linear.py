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
        return bilinear(x, y, P)

    def velocity(self, Xq, Y, params, w=None, **kw):
        from .velocity import linear_velocity

        return linear_velocity(Xq, Y, params["A"], params["V"], w=w)
