"""Route: softmax / multi-head softmax with or without drift, general V — a trace functional tr(PΣ)
whose quadratic part is ≤ 0 on the PSD cone (an S-procedure with the principal 2×2 minors) and
PF + FᵀP ⪯ κP: every Σ₀ ⪰ 0 has a global solution, bounded (κ ≤ 0) or growing at most like e^{κt}
(kind ``trace-growth-lmi``).  It says less than a route that finds an equilibrium, a basin or a
limit, so it runs after all of them (95: after the Krawczyk equilibrium route, 90)."""
from __future__ import annotations

from . import Context, Route, quadratic_family, route

_MAX_D = 8


@route
class TraceGrowth(Route):
    name = "trace-growth"
    order = 95
    regimes = ("BOUNDED", "EXPONENTIAL_GROWTH")
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        """Preconditions: a quadratic covariance flow (softmax, multi-head softmax), any drift
        (:func:`quadratic_family`), d ≤ 8.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the covariance flow is quadratic (plus a linear drift) and d ≤ 8, else the reason.
        """
        if problem.d > _MAX_D:
            return f"d ≤ {_MAX_D} only (the S-procedure LMI and its exact inertia have d(d+1)/2 rows)"
        return quadratic_family(problem)

    def search(self, problem, ctx: Context):
        """Solve the SDP for (P, λ), round, and verify exactly
        (:func:`symbolic_tf.certify.search.trace_growth_lmi.find_trace_growth`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused: the claim is for every Σ₀ ⪰ 0).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (BOUNDED or EXPONENTIAL_GROWTH for every Σ₀ ⪰ 0), else
            UNDECIDED with the reason.
        """
        from ..trace_growth_lmi import find_trace_growth

        return find_trace_growth(problem)
