"""Route: softmax / multi-head without drift, general V — q_P(Σ) ≥ c·tr(PΣ)² (an LMI): every
Σ₀ ≠ 0 blows up; for the problem's Σ₀ the bracket [T_lo, T_hi] is tightened by a validated
interval Taylor integration (:mod:`symbolic_tf.certify.taylor`)."""
from __future__ import annotations

from . import Context, Route, driftless_softmax_family, route


@route
class LMIBlowup(Route):
    name = "lmi-blowup"
    order = 50
    regimes = ("BLOWUP",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        return driftless_softmax_family(problem)

    def search(self, problem, ctx: Context):
        from ...spec.problem import with_updates
        from ...spec.verdict import PROVED
        from ..lmi import find_blowup_certificate

        if ctx.uniform:
            return find_blowup_certificate(with_updates(problem, cov=None))
        skipped = ctx.skip(problem, "settles")
        if skipped:
            return skipped
        u = find_blowup_certificate(problem)
        if u.status == PROVED:
            from ..taylor import tighten_blowup_bracket

            tight = tighten_blowup_bracket(problem, lmi_verdict=u)
            if tight.status == PROVED:
                return tight
        return u
