"""Route: V = vI with R = v(A + Aᵀ) ⪯ 0 (drift or not) — every Σ₀ ⪰ 0, singular ones included,
has a global solution with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{2‖F‖t} (kind ``growth-drift-vI-nsd``).  Decides the
problems the sharper V = vI routes leave open, e.g. a singular Σ₀ under a drift whose PD
equilibrium it can never reach (rank is invariant)."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class DriftVIGrowth(Route):
    name = "drift-vI-growth"
    order = 25
    regimes = ("EXPONENTIAL_GROWTH",)
    modes = ("point", "uniform")

    def applies(self, problem, ctx: Context):
        """Preconditions: one quadratic head with V = v·I (:func:`riccati_ready`), drift or not.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        str or None
            None when the problem is one quadratic head with V = v·I, else the reason the route does not apply.
        """
        return riccati_ready(problem)

    def search(self, problem, ctx: Context):
        """Certify R = v(A + Aᵀ) ⪯ 0, so ‖Σ(t)‖ ≤ ‖Σ₀‖e^{2‖F‖t} for every Σ₀ ⪰ 0
        (:func:`symbolic_tf.certify.search.riccati.growth_nsd`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (kind ``growth-drift-vI-nsd``), else UNDECIDED with the
            reason.
        """
        from ..riccati import growth_nsd

        return growth_nsd(problem)
