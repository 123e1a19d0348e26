"""Route: single-head softmax in d = 3 without drift, general V, A + Aᵀ indefinite — a validated
tube from the problem's Σ₀ enters a slow–fast funnel around a rank-one limit whose middle
eigenvalue decays only like 1/t, which proves CLUSTERING (rank 1) for this Σ₀ (kind
``tube-cluster-neutral``, :mod:`symbolic_tf.certify.search.validated.tube_cluster_neutral`).  Its tube is long
(the fast directions are stiff), so it runs after every other tube route (63)."""
from __future__ import annotations

from . import Context, Route, route, single_quadratic, tube_ready


@route
class TubeClusterNeutral(Route):
    name = "tube-cluster-neutral"
    order = 63
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: one quadratic head, no drift, Σ₀ given, d = 3 (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is single-head softmax-type without drift in d = 3 with Σ₀, else the
            reason the route does not apply.
        """
        why = single_quadratic(problem)
        if why is not None:
            return why
        return tube_ready(problem, drift=False) or (None if problem.d == 3 else "the chart of a rank-one "
                                                    "limit covers d = 3")

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (90 s budget) into a slow–fast funnel of a rank-one limit
        (:func:`symbolic_tf.certify.search.validated.tube_cluster_neutral.find_neutral_cluster`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-cluster-neutral``: CLUSTERING with
            rank 1), else UNDECIDED with the reason.
        """
        from ..validated.tube_cluster_neutral import find_neutral_cluster

        return ctx.skip(problem, "blowup") or find_neutral_cluster(problem, seconds=90.0)
