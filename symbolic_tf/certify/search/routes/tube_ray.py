"""Route: (multi-head) softmax with a general V, with or without drift — a validated tube from the
problem's Σ₀ enters the certified basin of an attracting ray of the projective field, which proves
BLOWUP for this Σ₀ with a bracket [T_lo, T_hi] (kind ``tube-ray``,
:mod:`symbolic_tf.certify.search.validated.tube_ray`).  Runs after the global blow-up LMI (50), which
decides every Σ₀ at once when it applies; float trouble gives UNDECIDED with the reason."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeRay(Route):
    name = "tube-ray"
    order = 60
    regimes = ("BLOWUP",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow and a tube-ready Σ₀, drift or not (:func:`tube_ready`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic, Σ₀ is given and d is within the tubes' limit, else the reason the
            route does not apply.
        """
        return tube_ready(problem)

    def search(self, problem, ctx: Context):
        """Integrate a validated tube from Σ₀ (16 s budget for d ≤ 2, else 25 s, and for its projective
        continuation 12 s for d ≤ 2, else 60 s: a slowly attracting ray in d = 3 is reached at τ ≈ 440 in
        seed 1 #52 of the general-V set) into the certified basin of an attracting ray of the projective
        field (:func:`symbolic_tf.certify.search.validated.tube_ray.find_ray_blowup`).

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
            PROVED with ``evidence["certificate"]`` (kind ``tube-ray``: BLOWUP with a bracket [T_lo, T_hi]),
            else UNDECIDED with the reason.
        """
        from ..validated.tube_ray import find_ray_blowup

        small = problem.d <= 2
        return ctx.skip(problem, "settles") or find_ray_blowup(problem, seconds=16.0 if small else 25.0,
                                                               projective_seconds=12.0 if small else 60.0)
