"""Route: the drift model with a general V — a validated tube from the problem's Σ₀ (arb ball
arithmetic, :mod:`symbolic_tf.certify.search.validated`) ends inside a certified basin of a
Krawczyk-certified stable equilibrium Σ* (kind ``tube-basin``).  Proves EQUILIBRIUM for this Σ₀
when Σ₀ itself is too far for ``krawczyk-basin`` (order 85) but its solution gets there; runs
before ``krawczyk-equilibrium`` (90).  Float trouble gives UNDECIDED with the reason."""
from __future__ import annotations

from . import Context, Route, single_head_drift, route


@route
class TubeBasin(Route):
    name = "tube-basin"
    order = 86
    regimes = ("EQUILIBRIUM",)
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
        """Integrate a validated tube from Σ₀ (10 s budget: a slow approach needs
        a few thousand steps) until it lies inside a certified basin of a
        Krawczyk-certified equilibrium Σ* (:func:`symbolic_tf.certify.search.validated.tube_basin.find_tube_basin`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; in point mode the search is skipped when the float outlook of Σ₀ is
            ``"blowup"`` (:meth:`Context.skip`).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (kind ``tube-basin``: EQUILIBRIUM for this Σ₀), else
            UNDECIDED with the reason.
        """
        from ..validated.tube_basin import find_tube_basin

        return ctx.skip(problem, "blowup") or find_tube_basin(problem, seconds=10.0)
