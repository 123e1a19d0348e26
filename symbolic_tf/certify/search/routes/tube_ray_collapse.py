"""Route: (multi-head) softmax without drift, general V — a validated tube from the problem's Σ₀
enters the certified basin of an attracting *collapsing* ray Σ ≈ C/(t + t₀) (Q(C) = −C) in
projective coordinates, which proves CLUSTERING with rank 0 (collapse to a point) for this Σ₀
(kind ``tube-ray-collapse``, :mod:`symbolic_tf.certify.search.validated.tube_ray_collapse`).  Every eigenvalue
decays only like 1/t, which no Lyapunov function of Σ near 0 certifies (65)."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeRayCollapse(Route):
    name = "tube-ray-collapse"
    order = 65
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow without drift and a tube-ready Σ₀ (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic without drift, Σ₀ is given and d is within the tubes' limit,
            else the reason the route does not apply.
        """
        return tube_ready(problem, drift=False)

    def search(self, problem, ctx: Context):
        """Follow the float solution to a collapsing ray, then integrate a validated tube from Σ₀ (30 s
        budget) into its basin (:func:`symbolic_tf.certify.search.validated.tube_ray_collapse.find_collapse_ray`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-ray-collapse``: CLUSTERING, rank 0), else
            UNDECIDED with the reason.
        """
        from ..validated.tube_ray_collapse import find_collapse_ray

        return ctx.skip(problem, "blowup") or find_collapse_ray(problem, seconds=30.0)
