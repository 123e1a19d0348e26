"""Route: single-head softmax in d = 2 with a drift F, general V, A + Aᵀ indefinite — a validated tube
from the problem's Σ₀ enters a forward-invariant cone around an isotropic rank-one direction on which
(log tr Σ)˙ is positive and bounded, which proves EXPONENTIAL_GROWTH (global existence, at most
exponential growth) for this Σ₀ (kind ``tube-growth``, :mod:`symbolic_tf.certify.search.validated.tube_growth`).
Its float pre-check (is the centre manifold attracting, with a positive rate, and does the float
solution settle on it?) is cheap, so it runs before the cluster and blow-up tubes."""
from __future__ import annotations

from . import Context, Route, route, single_quadratic, tube_ready


@route
class TubeGrowth(Route):
    name = "tube-growth"
    order = 56
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: one quadratic head, a drift F, Σ₀ given, d = 2 (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is single-head softmax-type with a drift in d = 2 with Σ₀, else the reason
            the route does not apply.
        """
        why = single_quadratic(problem)
        if why is not None:
            return why
        return tube_ready(problem, drift=True) or (None if problem.d == 2 else "the growth certificate covers d = 2")

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (30 s budget: some tubes need 6·10³ steps) into a
        forward-invariant cone around an isotropic rank-one direction
        (:func:`symbolic_tf.certify.search.validated.tube_growth.find_growth`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; in point mode the search is skipped when the float outlook of Σ₀ is
            ``"settles"`` (:meth:`Context.skip`): a settling solution does not grow.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (kind ``tube-growth``: EXPONENTIAL_GROWTH), else UNDECIDED
            with the reason.
        """
        from ..validated.tube_growth import find_growth

        return ctx.skip(problem, "settles") or find_growth(problem, seconds=30.0)
