"""Route (uniform mode): softmax with V = vI — the sign of R = v(A + Aᵀ) decides every Σ₀
(R ≻ 0: every Σ₀ ≠ 0 blows up; R ⪯ 0: every Σ₀ ≻ 0 clusters; drift with R ≺ 0 and F
anti-Hurwitz: every Σ₀ ≻ 0 converges to Σ*)."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class UniformVI(Route):
    name = "uniform-vI"
    order = 5
    regimes = ("BLOWUP", "CLUSTERING", "EQUILIBRIUM")
    modes = ("uniform",)

    def applies(self, problem, ctx: Context):
        return riccati_ready(problem)

    def search(self, problem, ctx: Context):
        from ...spec.verdict import UNDECIDED, Verdict
        from ..uniform import uniform_vI

        v = uniform_vI(problem)
        return v if v is not None else Verdict(UNDECIDED, "", reason="V = vI: the regime depends on Σ₀")
