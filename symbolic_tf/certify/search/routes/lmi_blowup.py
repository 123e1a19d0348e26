"""Route: softmax / multi-head without drift, general V — q_P(Σ) ≥ c·tr(PΣ)² (an LMI): every
Σ₀ ≠ 0 blows up; for the problem's Σ₀ the bracket [T_lo, T_hi] is tightened by a validated
interval Taylor integration (:mod:`symbolic_tf.certify.search.blowup_taylor_lmi`)."""
from __future__ import annotations

from . import Context, Route, driftless_softmax_family, route


@route
class LMIBlowup(Route):
    name = "lmi-blowup"
    order = 50
    regimes = ("BLOWUP",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic flow (softmax / multi-head softmax) without drift
        (:func:`driftless_softmax_family`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the flow is quadratic without drift, else the reason the route does not apply.
        """
        return driftless_softmax_family(problem)

    def search(self, problem, ctx: Context):
        """Find P ≻ 0 with q_P(Σ) ≥ c·tr(PΣ)² (an LMI): in uniform mode for every Σ₀ ≠ 0; in point mode
        for Σ₀, with the bracket [T_lo, T_hi] tightened by a validated Taylor integration when it succeeds
        (:func:`symbolic_tf.certify.search.blowup_taylor_lmi.tighten_blowup_bracket`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; ``ctx.uniform`` selects every Σ₀ (the problem's Σ₀ dropped), and in point
            mode the search is skipped when the float outlook of Σ₀ is ``"settles"``.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (BLOWUP), else UNDECIDED with the reason.
        """
        from ....spec.problem import with_updates
        from ....spec.verdict import PROVED
        from ..lmi import find_blowup_certificate

        if ctx.uniform:
            return find_blowup_certificate(with_updates(problem, cov=None))
        skipped = ctx.skip(problem, "settles")
        if skipped:
            return skipped
        u = find_blowup_certificate(problem)
        if u.status == PROVED:
            from ..blowup_taylor_lmi import tighten_blowup_bracket

            tight = tighten_blowup_bracket(problem, lmi_verdict=u)
            if tight.status == PROVED:
                return tight
        return u
