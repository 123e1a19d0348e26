"""Sigmoid attention: Γ(x) = V ∫ σ(yᵀAx + b₀) y dμ(y), σ(z) = 1/(1 + e^{−z})  (docs/mathematics.md §2)."""
from __future__ import annotations

import sympy as sp

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
        z = bilinear(x, y, P) + P["sigmoid_bias"]
        return 1 / (1 + sp.exp(-z))

    def velocity(self, Xq, Y, params, w=None, **kw):
        from .velocity import sigmoid_velocity

        return sigmoid_velocity(Xq, Y, params["A"], params["V"],
                                bias=params.get("sigmoid_bias", 0.0), w=w, **kw)
