"""Route: a singular Σ₀ whose range is invariant under the drift and the value maps — decide
the reduced flow on that range with the whole registry and map the claim back
(:mod:`symbolic_tf.certify.search.stratum`).  Before the V = vI drift routes, whose sharpest results
("every Σ₀ ≻ 0 → Σ*") do not cover a singular Σ₀."""
from __future__ import annotations

from . import Context, Route, quadratic_family, route


@route
class Stratum(Route):
    name = "invariant-stratum"
    order = 15
    regimes = ("BLOWUP", "CLUSTERING", "EQUILIBRIUM", "BOUNDED", "EXPONENTIAL_GROWTH")

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow and a singular, nonzero Σ₀ (0 < rank Σ₀ < d, decided exactly).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic and Σ₀ is singular and nonzero, else the reason the route does not
            apply.
        """
        if problem.cov is None:
            return "needs Σ₀"
        why = quadratic_family(problem)
        if why is not None:
            return why
        from ....exact.definiteness import definiteness
        from ....exact.rational import qmat

        S = definiteness(qmat(problem.cov))
        return None if 0 < S.pos < problem.d else "Σ₀ is zero or nonsingular"

    def search(self, problem, ctx: Context):
        """Decide the reduced flow on the invariant range of Σ₀ with the whole registry and map the claim
        back (:func:`symbolic_tf.certify.search.stratum.stratum`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context, passed on to the registry run on the reduced problem.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (the mapped-back claim), else UNDECIDED with the reason.
        """
        from ..stratum import stratum

        return stratum(problem, ctx)
