"""Unnormalised exponential attention: Γ(x) = V ∫ e^{yᵀAx} y dμ(y)  (docs/mathematics.md §2).

Gaussians are *not* preserved: Γ is e^{quadratic(x)} times an affine map."""
from __future__ import annotations

import sympy as sp

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
        return sp.exp(bilinear(x, y, P))

    def velocity(self, Xq, Y, params, w=None, **kw):
        from .velocity import unnormalised_velocity

        return unnormalised_velocity(Xq, Y, params["A"], params["V"], w=w, **kw)
