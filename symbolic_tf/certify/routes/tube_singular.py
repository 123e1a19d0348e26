"""Route: (multi-head) softmax with drift, general V — a validated tube from the problem's Σ₀
enters a contracting ellipsoid around an equilibrium on which det Σ decays, which proves
CLUSTERING with rank d − 1 for this Σ₀ (kind ``tube-singular-equilibrium``,
:mod:`symbolic_tf.certify.validated.singular_tube`)."""
from __future__ import annotations

from . import Context, Route, route


@route
class TubeSingular(Route):
    name = "tube-singular-equilibrium"
    order = 59
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
        from ..validated.singular_tube import find_singular_equilibrium

        return ctx.skip(problem, "blowup") or find_singular_equilibrium(problem, seconds=6.0)
