"""Route: Sinkhorn, and ℓ2 with KᵀK ≻ 0 — ‖Σ̇‖ ≤ γ‖Σ‖, so every Σ₀ has a global solution that
grows at most exponentially (:mod:`symbolic_tf.certify.growth`)."""
from __future__ import annotations

from . import Context, Route, route


@route
class GrowthBound(Route):
    name = "growth-bound"
    order = 30
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        from ...variants import growth_bound_of

        return None if growth_bound_of(problem) else "the variant declares no growth bound (Sinkhorn, ℓ2 do)"

    def search(self, problem, ctx: Context):
        from ..growth import no_blowup

        return no_blowup(problem)
