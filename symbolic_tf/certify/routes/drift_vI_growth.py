"""Route: V = vI with R = v(A + Aᵀ) ⪯ 0 (drift or not) — every Σ₀ ⪰ 0, singular ones included,
has a global solution with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{2‖F‖t} (kind ``growth-drift-vI-nsd``).  Decides the
problems the sharper V = vI routes leave open, e.g. a singular Σ₀ under a drift whose PD
equilibrium it can never reach (rank is invariant)."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class DriftVIGrowth(Route):
    name = "drift-vI-growth"
    order = 25
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        return riccati_ready(problem)

    def search(self, problem, ctx: Context):
        from ..riccati import growth_nsd

        return growth_nsd(problem)
