"""Route: softmax / multi-head without drift, general V — a trace functional tr(PΣ), P ≻ 0,
with q_P ⪯ 0 (an LMI, rounded and decided exactly): every Σ₀ stays bounded."""
from __future__ import annotations

from . import Context, Route, route


@route
class LMIBounded(Route):
    name = "lmi-bounded"
    order = 40
    regimes = ("BOUNDED",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        if problem.variant not in ("softmax", "multihead"):
            return "needs softmax or multi-head"
        return "only without drift" if problem.has_drift else None

    def search(self, problem, ctx: Context):
        from ..lmi import find_bounded_certificate

        return find_bounded_certificate(problem)
