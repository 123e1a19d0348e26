"""Route: the drift model (softmax + Fx + b) with V = vI — exact Lyapunov/Radon arguments:
stable equilibrium for every Σ₀ ≻ 0 (R ≺ 0, F anti-Hurwitz), collapse of this Σ₀ to 0, or a
blow-up bracket; see :mod:`symbolic_tf.certify.riccati`."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class DriftVI(Route):
    name = "drift-vI"
    order = 20
    regimes = ("EQUILIBRIUM", "CLUSTERING", "BLOWUP")

    def applies(self, problem, ctx: Context):
        return riccati_ready(problem) or (None if problem.has_drift else "needs a drift F")

    def search(self, problem, ctx: Context):
        from ..riccati import classify_vI

        return classify_vI(problem, ctx.horizon)
