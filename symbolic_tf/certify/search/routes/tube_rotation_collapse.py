"""Route: softmax or multi-head softmax in d = 2 without drift, general V, when the rank-one circle
attracts on average, carries no rest point and the rotation-averaged growth rate is negative — a
validated tube from the problem's Σ₀ enters a neighbourhood of the circle on which a decay
functional decreases at a certified rate, which proves CLUSTERING with rank 0 (the solution is
global and Σ(t) → 0) for this Σ₀ (kind ``tube-rotation-collapse``,
:mod:`symbolic_tf.certify.search.validated.tube_rotation_collapse`)."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeRotationCollapse(Route):
    name = "tube-rotation-collapse"
    order = 62
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow without drift, a tube-ready Σ₀ and d = 2 (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic without drift, Σ₀ is given and d = 2, else the reason the route
            does not apply.
        """
        return tube_ready(problem, drift=False) or (None if problem.d == 2 else "the rotating-collapse certificate covers d = 2")

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (8 s budget) into a neighbourhood of the rank-one circle
        where a decay functional decreases at a certified rate
        (:func:`symbolic_tf.certify.search.validated.tube_rotation_collapse.find_rotation_collapse`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-rotation-collapse``: CLUSTERING with rank 0),
            else UNDECIDED with the reason.
        """
        from ..validated.tube_rotation_collapse import find_rotation_collapse

        return ctx.skip(problem, "blowup") or find_rotation_collapse(problem, seconds=8.0)
