"""Route: a singular Σ₀ whose range is invariant under the drift and the value maps — decide
the reduced flow on that range with the whole registry and map the claim back
(:mod:`symbolic_tf.certify.stratum`).  Before the V = vI drift routes, whose sharpest results
("every Σ₀ ≻ 0 → Σ*") do not cover a singular Σ₀."""
from __future__ import annotations

from . import Context, Route, route


@route
class Stratum(Route):
    name = "invariant-stratum"
    order = 15
    regimes = ("BLOWUP", "CLUSTERING", "EQUILIBRIUM", "BOUNDED", "EXPONENTIAL_GROWTH")

    def applies(self, problem, ctx: Context):
        if problem.cov is None:
            return "needs Σ₀"
        if problem.variant not in ("softmax", "multihead"):
            return "needs softmax or multi-head softmax"
        from ...exact.definiteness import definiteness
        from ...exact.rational import qmat

        S = definiteness(qmat(problem.cov))
        return None if 0 < S.pos < problem.d else "Σ₀ is zero or nonsingular"

    def search(self, problem, ctx: Context):
        from ..stratum import stratum

        return stratum(problem, ctx)
