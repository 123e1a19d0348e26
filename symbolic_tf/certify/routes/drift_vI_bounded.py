"""Route: V = vI, R = v(A + Aᵀ) ⪯ 0 and a drift that does not expand in some exact metric X ≻ 0
(FᵀX + XF ⪯ 0: rotations, F = 0, Hurwitz F) — every Σ₀ ⪰ 0 stays bounded
(kind ``bounded-drift-vI-nsd``).  Decides, e.g., V = 0 with a rotating F exactly."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class DriftVIBounded(Route):
    name = "drift-vI-bounded"
    order = 22
    regimes = ("BOUNDED",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        return riccati_ready(problem)

    def search(self, problem, ctx: Context):
        from ..riccati import bounded_nsd

        return bounded_nsd(problem)
