"""Route: Sinkhorn, and ℓ2 with KᵀK ≻ 0 — every Σ₀ ⪰ 0 has a global solution growing at most
exponentially, by the matrix-form growth theorems (valid for every d) instantiated with exact
norm bounds (:mod:`symbolic_tf.certify.kinds.growth_theorem`, docs/mathematics.md §10)."""
from __future__ import annotations

from . import Context, Route, route


@route
class GrowthTheorem(Route):
    name = "growth-theorem"
    order = 29
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        from ...variants import growth_bound_of

        if problem.heads:
            return "single head only"
        return None if growth_bound_of(problem) else "the variant declares no growth bound (Sinkhorn, ℓ2 do)"

    def search(self, problem, ctx: Context):
        from ..matrix_proofs.growth import growth_certificate

        return growth_certificate(problem)
