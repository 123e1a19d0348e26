"""Route: Sinkhorn, and ℓ2 with KᵀK ≻ 0 — ‖Σ̇‖ ≤ γ‖Σ‖, so every Σ₀ has a global solution that
grows at most exponentially (:mod:`symbolic_tf.certify.search.growth`)."""
from __future__ import annotations

from . import Context, Route, route


@route
class GrowthBound(Route):
    name = "growth-bound"
    order = 30
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        """Preconditions: the variant declares a growth bound ‖Σ̇‖ ≤ γ‖Σ‖ (Sinkhorn, ℓ2 with KᵀK ≻ 0).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the variant declares a growth bound, else the reason the route does not apply.
        """
        from ....variants import growth_bound_of

        return None if growth_bound_of(problem) else "the variant declares no growth bound (Sinkhorn, ℓ2 do)"

    def search(self, problem, ctx: Context):
        """Certify ‖Σ̇‖ ≤ γ‖Σ‖, hence a global, at most exponentially growing solution for every Σ₀
        (:func:`symbolic_tf.certify.search.growth.no_blowup`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (exponential growth for every Σ₀), else UNDECIDED with the
            reason.
        """
        from ..growth import no_blowup

        return no_blowup(problem)
