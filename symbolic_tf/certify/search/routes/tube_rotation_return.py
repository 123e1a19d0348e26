"""Route: (multi-head) softmax without drift, d ≤ 4 — the float projective state X = Σ/tr Σ keeps
running round a closed loop while tr Σ grows by a factor per turn; a validated projective tube from Σ₀
reaches a box on a Poincaré section that the validated projective flow maps into itself with the size
multiplied by λ > 1, which proves BLOWUP for this Σ₀ with a bracket (kind ``tube-rotation-return``,
:mod:`symbolic_tf.certify.search.validated.tube_rotation_return`).  Runs after ``tube-rotation`` (61), the d = 2
annulus certificate."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeRotationReturn(Route):
    name = "tube-rotation-return"
    order = 62
    regimes = ("BLOWUP",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow without drift, a tube-ready Σ₀ (:func:`tube_ready`), d ≤ 4.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic without drift, Σ₀ is given and d ≤ 4, else the reason the route
            does not apply.
        """
        return tube_ready(problem, drift=False) or (None if problem.d <= 4 else "the rotation return covers d ≤ 4")

    def search(self, problem, ctx: Context):
        """Follow the float projective flow to a section through the rotation, then integrate validated
        projective tubes from a small box on it (back into the box, shrinking u) and from Σ₀ (into the box)
        (:func:`symbolic_tf.certify.search.validated.tube_rotation_return.find_rotation_return`, 30 s budget).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-rotation-return``: BLOWUP with a bracket for
            this Σ₀), else UNDECIDED with the reason.
        """
        from ..validated.tube_rotation_return import find_rotation_return

        return ctx.skip(problem, "settles") or find_rotation_return(problem, seconds=30.0)
