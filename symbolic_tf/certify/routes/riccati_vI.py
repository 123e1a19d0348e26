"""Route: softmax with V = vI, no drift — exact Radon linearisation for the problem's Σ₀
(blow-up bracket, stationary Σ₀ or clustering with the exact limit rank); see
:mod:`symbolic_tf.certify.riccati`."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class RiccatiVI(Route):
    name = "riccati-vI"
    order = 10
    regimes = ("BLOWUP", "CLUSTERING", "EQUILIBRIUM")

    def applies(self, problem, ctx: Context):
        return riccati_ready(problem) or ("only without drift" if problem.has_drift else None)

    def search(self, problem, ctx: Context):
        from ..riccati import classify_vI

        return classify_vI(problem, ctx.horizon)
