"""Route: Σ̇(Σ₀) = 0 exactly (Σ₀ = 0 included) ⇒ Σ(t) ≡ Σ₀ — an exact equilibrium of this Σ₀
(:mod:`symbolic_tf.certify.stationary`).  First, because it is exact and cheap."""
from __future__ import annotations

from . import Context, Route, route


@route
class Stationary(Route):
    name = "stationary"
    order = 1
    regimes = ("EQUILIBRIUM",)

    def applies(self, problem, ctx: Context):
        if problem.cov is None:
            return "needs Σ₀"
        from ...variants import get

        # Σ₀ = 0 stays 0 under a Gaussian-closed flow (Σ̇ = JΣ + ΣJᵀ); Σ₀ ≠ 0 needs Σ̇(Σ₀) = 0 exactly
        return None if get(problem.variant).expected_closed else "variant not covered"

    def search(self, problem, ctx: Context):
        from ..stationary import stationary

        return stationary(problem)
