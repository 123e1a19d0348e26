"""Route: softmax / multi-head with a Hurwitz drift F and a general V — a validated tube from the
problem's Σ₀ enters {tr(PΣ) < lam/c}, where the linear Lyapunov functional of F dominates the
attention term, which proves CLUSTERING with rank 0 (Σ(t) → 0) for this Σ₀ (kind
``tube-collapse``, :mod:`symbolic_tf.certify.validated.collapse_tube`)."""
from __future__ import annotations

from . import Context, Route, route


@route
class TubeCollapse(Route):
    name = "tube-collapse"
    order = 57
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        from ..validated.tube import MAX_D

        if problem.variant not in ("softmax", "multihead"):
            return "needs softmax or multi-head softmax"
        if not problem.has_drift:
            return "needs a drift F"
        if problem.cov is None:
            return "needs the problem's Σ₀"
        if problem.d > MAX_D:
            return f"validated tubes cover d ≤ {MAX_D}"
        return None

    def search(self, problem, ctx: Context):
        from ..validated.collapse_tube import find_collapse

        return ctx.skip(problem, "blowup") or find_collapse(problem, seconds=6.0)
