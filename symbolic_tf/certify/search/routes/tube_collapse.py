"""Route: softmax / multi-head with a Hurwitz drift F and a general V — a validated tube from the
problem's Σ₀ enters {tr(PΣ) < lam/c}, where the linear Lyapunov functional of F dominates the
attention term, which proves CLUSTERING with rank 0 (Σ(t) → 0) for this Σ₀ (kind
``tube-collapse``, :mod:`symbolic_tf.certify.search.validated.tube_collapse`)."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeCollapse(Route):
    name = "tube-collapse"
    order = 57
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
        """Integrate a validated tube from Σ₀ (6 s budget) into {tr(PΣ) < lam/c}, where the linear
        Lyapunov functional of F dominates (:func:`symbolic_tf.certify.search.validated.tube_collapse.find_collapse`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-collapse``: CLUSTERING with rank 0), else
            UNDECIDED with the reason.
        """
        from ..validated.tube_collapse import find_collapse

        return ctx.skip(problem, "blowup") or find_collapse(problem, seconds=6.0)
