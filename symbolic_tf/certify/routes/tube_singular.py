"""Route: (multi-head) softmax with drift, general V — a validated tube from the problem's Σ₀
enters a contracting ellipsoid around an equilibrium on which det Σ decays, which proves
CLUSTERING with rank d − 1 for this Σ₀ (kind ``tube-singular-equilibrium``,
:mod:`symbolic_tf.certify.validated.singular_tube`)."""
from __future__ import annotations

from . import Context, Route, route, tube_ready


@route
class TubeSingular(Route):
    name = "tube-singular-equilibrium"
    order = 59
    regimes = ("CLUSTERING",)
    modes = ("point",)

    def applies(self, problem, ctx: Context):
        return tube_ready(problem, drift=True)

    def search(self, problem, ctx: Context):
        from ..validated.singular_tube import find_singular_equilibrium

        return ctx.skip(problem, "blowup") or find_singular_equilibrium(problem, seconds=6.0)
