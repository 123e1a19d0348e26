"""Route: the drift model with a general V — a validated tube from the problem's Σ₀ (arb ball
arithmetic, :mod:`symbolic_tf.certify.validated`) ends inside a certified basin of a
Krawczyk-certified stable equilibrium Σ* (kind ``tube-basin``).  Proves EQUILIBRIUM for this Σ₀
when Σ₀ itself is too far for ``krawczyk-basin`` (order 85) but its solution gets there; runs
before ``krawczyk-equilibrium`` (90).  Float trouble gives UNDECIDED with the reason."""
from __future__ import annotations

from . import Context, Route, single_head_drift, route


@route
class TubeBasin(Route):
    name = "tube-basin"
    order = 86
    regimes = ("EQUILIBRIUM",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        return single_head_drift(problem)

    def search(self, problem, ctx: Context):
        skipped = ctx.skip(problem, "blowup")
        if skipped:
            return skipped
        from ..validated.basin_tube import find_tube_basin

        return find_tube_basin(problem, seconds=5.0)
