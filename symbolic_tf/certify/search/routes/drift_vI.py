"""Route: the drift model (softmax + Fx + b) with V = vI — exact Lyapunov/Radon arguments:
stable equilibrium for every Σ₀ ≻ 0 (R ≺ 0, F anti-Hurwitz), collapse of this Σ₀ to 0, or a
blow-up bracket; see :mod:`symbolic_tf.certify.search.riccati`."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class DriftVI(Route):
    name = "drift-vI"
    order = 20
    regimes = ("EQUILIBRIUM", "CLUSTERING", "BLOWUP")

    def applies(self, problem, ctx: Context):
        """Preconditions: one quadratic head with V = v·I (:func:`riccati_ready`) and a drift F.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is the single-head drift model with V = v·I, else the reason the route does
            not apply.
        """
        return riccati_ready(problem) or (None if problem.has_drift else "needs a drift F")

    def search(self, problem, ctx: Context):
        """Classify Σ₀ by the exact Lyapunov/Radon arguments of :func:`symbolic_tf.certify.search.riccati.classify_vI`.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; ``ctx.horizon`` is the float horizon hint of the Radon linearisation.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (equilibrium, collapse to 0 or blow-up bracket), else
            UNDECIDED with the reason.
        """
        from ..riccati import classify_vI

        return classify_vI(problem, ctx.horizon)
