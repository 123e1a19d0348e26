"""Route: single-head softmax in d = 2 without drift, general V, A + Aᵀ indefinite — a validated
tube from the problem's Σ₀ enters a contracting neighbourhood of an isotropic rank-one equilibrium
line, which proves CLUSTERING (rank 1) for this Σ₀ (kind ``tube-cluster``,
:mod:`symbolic_tf.certify.search.validated.tube_cluster`).  Its float pre-check (does the solution settle
on an isotropic line?) is cheap, so it runs before the blow-up tubes (60, 61)."""
from __future__ import annotations

from . import Context, Route, route, single_quadratic, tube_ready


@route
class TubeCluster(Route):
    name = "tube-cluster"
    order = 58
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: one quadratic head, no drift, Σ₀ given, d = 2 (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is single-head softmax-type without drift in d = 2 with Σ₀, else the reason
            the route does not apply.
        """
        why = single_quadratic(problem)
        if why is not None:
            return why
        return tube_ready(problem, drift=False) or (None if problem.d == 2 else "the clustering certificate covers d = 2")

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (20 s budget) into a contracting neighbourhood of an isotropic
        rank-one equilibrium line (:func:`symbolic_tf.certify.search.validated.tube_cluster.find_cluster`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-cluster``: CLUSTERING with rank 1), else
            UNDECIDED with the reason.
        """
        from ..validated.tube_cluster import find_cluster

        return ctx.skip(problem, "blowup") or find_cluster(problem, seconds=20.0)
