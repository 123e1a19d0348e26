"""Softmax self-attention: Γ_μ(x) = V ∫ e^{yᵀAx} y dμ(y) / ∫ e^{yᵀAx} dμ(y)  (docs/mathematics.md §2)."""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

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

    def kernel(self, x, y, P):
        return sp.exp(bilinear(x, y, P))

    def velocity(self, Xq, Y, params, w=None, **kw):
        from .velocity import softmax_velocity

        return softmax_velocity(Xq, Y, params["A"], params["V"], w=w, **kw)
