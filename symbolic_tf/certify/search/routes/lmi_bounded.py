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
        """Find a trace functional tr(PΣ), P ≻ 0, with q_P ⪯ 0 (an LMI rounded and decided exactly), so
        every Σ₀ stays bounded (:func:`symbolic_tf.certify.search.lmi.find_bounded_certificate`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context; in point mode the search is skipped when the float outlook of Σ₀ is
            ``"blowup"`` (:meth:`Context.skip`).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (BOUNDED for every Σ₀), else UNDECIDED with the reason.
        """
        from ..lmi import find_bounded_certificate

        return ctx.skip(problem, "blowup") or find_bounded_certificate(problem)
