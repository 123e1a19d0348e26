"""Route: Sinkhorn, and ℓ2 with KᵀK ≻ 0 — every Σ₀ ⪰ 0 has a global solution growing at most
exponentially, by the matrix-form growth theorems (valid for every d) instantiated with exact
norm bounds (:mod:`symbolic_tf.certify.check.kinds.exponential_growth_theorem`, docs/mathematics.md §10)."""
from __future__ import annotations

from . import Context, Route, route


@route
class GrowthTheorem(Route):
    name = "growth-theorem"
    order = 29
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        """Preconditions: a single head whose variant declares a growth bound (Sinkhorn, ℓ2 with KᵀK ≻ 0).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is single-head and its variant declares a growth bound, else the reason the
            route does not apply.
        """
        from ....variants import growth_bound_of

        if problem.heads:
            return "single head only"
        return None if growth_bound_of(problem) else "the variant declares no growth bound (Sinkhorn, ℓ2 do)"

    def search(self, problem, ctx: Context):
        """Instantiate the matrix-form growth theorem with exact norm bounds
        (:func:`symbolic_tf.certify.search.matrix_proofs.growth.growth_certificate`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (exponential growth for every Σ₀ ⪰ 0), else UNDECIDED with
            the reason.
        """
        from ..matrix_proofs.growth import growth_certificate

        return growth_certificate(problem)
