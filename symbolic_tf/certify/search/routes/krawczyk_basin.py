"""Route: the drift model with a general V — the problem's Σ₀ lies in a certified basin of a
Krawczyk-certified equilibrium Σ* ≻ 0 (a Lyapunov sublevel set on which the quadratic
remainder is dominated; :mod:`symbolic_tf.certify.search.equilibrium_basin`).  Proves EQUILIBRIUM for this Σ₀;
runs before ``krawczyk-equilibrium``, which only reports local stability as a side claim."""
from __future__ import annotations

from . import Context, Route, single_head_drift, route


@route
class KrawczykBasin(Route):
    name = "krawczyk-basin"
    order = 85
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
        """Show that Σ₀ lies in a certified basin (a Lyapunov sublevel set) of a Krawczyk-certified
        equilibrium Σ* ≻ 0 (:func:`symbolic_tf.certify.search.equilibrium_basin.find_basin`).

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
            PROVED with ``evidence["certificate"]`` (EQUILIBRIUM for this Σ₀), else UNDECIDED with the reason.
        """
        from ..equilibrium_basin import find_basin

        return ctx.skip(problem, "blowup") or find_basin(problem)
