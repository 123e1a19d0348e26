"""Route: softmax / multi-head without drift, general V — a trace functional tr(PΣ), P ≻ 0,
with q_P ⪯ 0 (an LMI, rounded and decided exactly): every Σ₀ stays bounded."""
from __future__ import annotations

from . import Context, Route, driftless_softmax_family, route


@route
class LMIBounded(Route):
    name = "lmi-bounded"
    order = 40
    regimes = ("BOUNDED",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        return driftless_softmax_family(problem)

    def search(self, problem, ctx: Context):
        from ..lmi import find_bounded_certificate

        return ctx.skip(problem, "blowup") or find_bounded_certificate(problem)
