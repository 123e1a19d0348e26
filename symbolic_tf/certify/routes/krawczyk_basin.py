"""Route: the drift model with a general V — the problem's Σ₀ lies in a certified basin of a
Krawczyk-certified equilibrium Σ* ≻ 0 (a Lyapunov sublevel set on which the quadratic
remainder is dominated; :mod:`symbolic_tf.certify.basin`).  Proves EQUILIBRIUM for this Σ₀;
runs before ``krawczyk-equilibrium``, which only reports local stability as a side claim."""
from __future__ import annotations

from . import Context, Route, single_head_drift, route


@route
class KrawczykBasin(Route):
    name = "krawczyk-basin"
    order = 85
    regimes = ("EQUILIBRIUM",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        return single_head_drift(problem)

    def search(self, problem, ctx: Context):
        skipped = ctx.skip(problem, "blowup")
        if skipped:
            return skipped
        from ..basin import find_basin

        return find_basin(problem)
