"""Route: Σ̇(Σ₀) = 0 exactly (Σ₀ = 0 included) ⇒ Σ(t) ≡ Σ₀ — an exact equilibrium of this Σ₀
(:mod:`symbolic_tf.certify.search.stationary`).  First, because it is exact and cheap."""
from __future__ import annotations

from . import Context, Route, route


@route
class Stationary(Route):
    name = "stationary"
    order = 1
    regimes = ("EQUILIBRIUM",)

    def applies(self, problem, ctx: Context):
        """Preconditions: Σ₀ is given and the variant is Gaussian-closed (Σ₀ = 0 stays 0).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when Σ₀ is given and the variant's flow is Gaussian-closed, else the reason the route does
            not apply.
        """
        if problem.cov is None:
            return "needs Σ₀"
        from ....variants import get

        # Σ₀ = 0 stays 0 under a Gaussian-closed flow (Σ̇ = JΣ + ΣJᵀ); Σ₀ ≠ 0 needs Σ̇(Σ₀) = 0 exactly
        return None if get(problem.variant).expected_closed else "variant not covered"

    def search(self, problem, ctx: Context):
        """Check Σ̇(Σ₀) = 0 exactly, so Σ(t) ≡ Σ₀ (:func:`symbolic_tf.certify.search.stationary.stationary`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (EQUILIBRIUM: Σ₀ is an exact equilibrium), else UNDECIDED
            with the reason.
        """
        from ..stationary import stationary

        return stationary(problem)
