"""Route: (multi-head) softmax with drift, general V — a validated tube from the problem's Σ₀
enters a contracting ellipsoid around an equilibrium on which det Σ decays, which proves
CLUSTERING with rank d − 1 for this Σ₀ (kind ``tube-singular-equilibrium``,
:mod:`symbolic_tf.certify.search.validated.tube_singular_equilibrium`)."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeSingular(Route):
    name = "tube-singular-equilibrium"
    order = 59
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow with a drift F and a tube-ready Σ₀ (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic with drift, Σ₀ is given and d is within the tubes' limit, else the
            reason the route does not apply.
        """
        return tube_ready(problem, drift=True)

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (20 s budget) into a contracting ellipsoid around an
        equilibrium on which det Σ decays
        (:func:`symbolic_tf.certify.search.validated.tube_singular_equilibrium.find_singular_equilibrium`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-singular-equilibrium``: CLUSTERING with rank
            d − 1), else UNDECIDED with the reason.
        """
        from ..validated.tube_singular_equilibrium import find_singular_equilibrium

        return ctx.skip(problem, "blowup") or find_singular_equilibrium(problem, seconds=20.0)
