"""Route: single-head softmax in d = 3 without drift, general V, A + Aᵀ indefinite — a validated
tube from the problem's Σ₀ enters a slow–fast funnel in which Σ(t) is a growing rank-one part
beside a bounded middle eigenvalue, which proves EXPONENTIAL_GROWTH (global existence, at most
exponential growth) for this Σ₀ (kind ``tube-growth-neutral``,
:mod:`symbolic_tf.certify.search.validated.tube_growth_neutral`).  Its tube is stiff (the rates grow with σ),
so it runs after every other tube route (64)."""
from __future__ import annotations

from . import Context, route
from .tube_cluster_neutral import TubeClusterNeutral


@route
class TubeGrowthNeutral(TubeClusterNeutral):
    """The chart route of :class:`TubeClusterNeutral` (same preconditions) with the growth mode."""

    name = "tube-growth-neutral"
    order = 64
    regimes = ("EXPONENTIAL_GROWTH",)

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (90 s budget) into a slow–fast funnel of a growing rank-one
        part (:func:`symbolic_tf.certify.search.validated.tube_growth_neutral.find_neutral_growth`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-growth-neutral``: EXPONENTIAL_GROWTH),
            else UNDECIDED with the reason.
        """
        from ..validated.tube_growth_neutral import find_neutral_growth

        return ctx.skip(problem, "settles") or find_neutral_growth(problem, seconds=90.0)
