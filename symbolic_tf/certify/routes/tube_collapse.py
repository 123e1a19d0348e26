"""Route: softmax / multi-head with a Hurwitz drift F and a general V — a validated tube from the
problem's Σ₀ enters {tr(PΣ) < lam/c}, where the linear Lyapunov functional of F dominates the
attention term, which proves CLUSTERING with rank 0 (Σ(t) → 0) for this Σ₀ (kind
``tube-collapse``, :mod:`symbolic_tf.certify.validated.collapse_tube`)."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeCollapse(Route):
    name = "tube-collapse"
    order = 57
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        return tube_ready(problem, drift=True)

    def search(self, problem, ctx: Context):
        from ..validated.collapse_tube import find_collapse

        return ctx.skip(problem, "blowup") or find_collapse(problem, seconds=6.0)
