"""Route: softmax with V = vI, no drift — exact Radon linearisation for the problem's Σ₀
(blow-up bracket, stationary Σ₀ or clustering with the exact limit rank); see
:mod:`symbolic_tf.certify.search.riccati`."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class RiccatiVI(Route):
    name = "riccati-vI"
    order = 10
    regimes = ("BLOWUP", "CLUSTERING", "EQUILIBRIUM")

    def applies(self, problem, ctx: Context):
        """Preconditions: one quadratic head with V = v·I (:func:`riccati_ready`) and no drift.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is single-head softmax-type with V = v·I and no drift, else the reason the
            route does not apply.
        """
        return riccati_ready(problem) or ("only without drift" if problem.has_drift else None)

    def search(self, problem, ctx: Context):
        """Classify Σ₀ by the exact Radon linearisation (:func:`symbolic_tf.certify.search.riccati.classify_vI`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; ``ctx.horizon`` is the float horizon hint of the Radon linearisation.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (blow-up bracket, stationary Σ₀ or clustering with the
            exact limit rank), else UNDECIDED with the reason.
        """
        from ..riccati import classify_vI

        return classify_vI(problem, ctx.horizon)
