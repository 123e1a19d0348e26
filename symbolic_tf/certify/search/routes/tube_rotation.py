"""Route: softmax or multi-head softmax in d = 2 (with or without a drift F), general V with no real eigenvector
direction on the rank-one circle — a validated tube from the problem's Σ₀ enters an annulus of
the trace-one plane on which a rotation-averaged growth functional increases at a certified
rate, which proves BLOWUP for this Σ₀ with a bracket (kind ``tube-rotation``,
:mod:`symbolic_tf.certify.search.validated.tube_rotation`).  Runs after ``tube-ray`` (60), which covers
the blow-ups that settle on a ray."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeRotation(Route):
    name = "tube-rotation"
    order = 61
    regimes = ("BLOWUP",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow (with or without drift), a tube-ready Σ₀ and d = 2 (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic (drift or not), Σ₀ is given and d = 2, else the reason the route
            does not apply.
        """
        return tube_ready(problem) or (None if problem.d == 2 else "the rotation certificate covers d = 2")

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (10 s budget) into an annulus of the trace-one plane where a
        rotation-averaged growth functional increases at a certified rate
        (:func:`symbolic_tf.certify.search.validated.tube_rotation.find_rotation_blowup`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; in point mode the search is skipped when the float outlook of Σ₀ is
            ``"settles"`` (:meth:`Context.skip`).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (kind ``tube-rotation``: BLOWUP with a bracket), else
            UNDECIDED with the reason.
        """
        from ..validated.tube_rotation import find_rotation_blowup

        return ctx.skip(problem, "settles") or find_rotation_blowup(problem, seconds=10.0)
