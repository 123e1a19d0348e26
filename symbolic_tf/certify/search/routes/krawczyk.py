"""Route: the drift model with a general V — a Krawczyk-certified equilibrium Σ* ≻ 0 with a
Lyapunov certificate of local exponential stability (:mod:`symbolic_tf.certify.search.equilibrium_krawczyk`).

Local stability is a property of the parameters, not the regime of a given Σ₀: it is reported
as its own proved claim and decides nothing about a Σ₀ that is not shown to lie in a certified
basin (a far-away Σ₀ may flow to 0; a singular Σ₀ can never reach a PD Σ*)."""
from __future__ import annotations

from . import Context, Route, single_head_drift, route


@route
class Krawczyk(Route):
    name = "krawczyk-equilibrium"
    order = 90
    regimes = ()
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: the drift model with one quadratic head (:func:`single_head_drift`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is one quadratic head with a drift F, else the reason the route does not
            apply.
        """
        return single_head_drift(problem)

    def search(self, problem, ctx: Context):
        """Find a Krawczyk-certified equilibrium Σ* ≻ 0 with a Lyapunov certificate of local exponential
        stability (:func:`symbolic_tf.certify.search.equilibrium_krawczyk.find_equilibrium`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (a side claim of local stability, no regime of Σ₀), else
            UNDECIDED with the reason.
        """
        from ..equilibrium_krawczyk import find_equilibrium

        return find_equilibrium(problem)
