"""Route: (multi-head) softmax, with or without a drift F, d ≤ 4 — the float solution from Σ₀ keeps
oscillating; a validated tube from Σ₀ reaches a box on a Poincaré section that the validated flow maps
into itself, which proves BOUNDED (global existence and boundedness) for this Σ₀ (kind
``tube-return``, :mod:`symbolic_tf.certify.search.validated.tube_return`).  Runs after the equilibrium and
basin routes (85, 86), which say more when the solution settles."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeReturn(Route):
    name = "tube-return"
    order = 87
    regimes = ("BOUNDED",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow (with or without drift), a tube-ready Σ₀ (:func:`tube_ready`), d ≤ 4.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic, Σ₀ is given and d ≤ 4, else the reason the route does not apply.
        """
        return tube_ready(problem) or (None if problem.d <= 4 else "the return certificate covers d ≤ 4")

    def search(self, problem, ctx: Context):
        """Follow the float solution to a Poincaré section through its oscillation, then integrate
        validated tubes from a small box on it (back into the box) and from Σ₀ (into the box)
        (:func:`symbolic_tf.certify.search.validated.tube_return.find_return`, 20 s budget).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; in point mode the search is skipped when the float outlook of Σ₀ is
            ``"settles"`` or ``"blowup"`` (:meth:`Context.skip`).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (kind ``tube-return``: BOUNDED for this Σ₀), else
            UNDECIDED with the reason.
        """
        from ..validated.tube_return import find_return

        return ctx.skip(problem, "settles") or ctx.skip(problem, "blowup") or find_return(problem, seconds=20.0)
