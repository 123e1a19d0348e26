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
        """Preconditions: one quadratic head with V = v·I (:func:`riccati_ready`).

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
        """Decide every Σ₀ from the sign of R = v(A + Aᵀ) (:func:`symbolic_tf.certify.search.uniform_vI.uniform_vI`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (a class claim: BLOWUP, CLUSTERING or EQUILIBRIUM), else
            UNDECIDED when the regime depends on Σ₀.
        """
        from ....spec.verdict import UNDECIDED, Verdict
        from ..uniform_vI import uniform_vI

        v = uniform_vI(problem)
        return v if v is not None else Verdict(UNDECIDED, "", reason="V = vI: the regime depends on Σ₀")
