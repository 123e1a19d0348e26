"""Route: V = vI, R = v(A + Aᵀ) ⪯ 0 and a drift that does not expand in some exact metric X ≻ 0
(FᵀX + XF ⪯ 0: rotations, F = 0, Hurwitz F) — every Σ₀ ⪰ 0 stays bounded
(kind ``bounded-drift-vI-nsd``).  Decides, e.g., V = 0 with a rotating F exactly."""
from __future__ import annotations

from . import Context, Route, riccati_ready, route


@route
class DriftVIBounded(Route):
    name = "drift-vI-bounded"
    order = 22
    regimes = ("BOUNDED",)
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
        """Certify R = v(A + Aᵀ) ⪯ 0 and FᵀX + XF ⪯ 0 for an exact X ≻ 0, so every Σ₀ ⪰ 0 stays bounded
        (:func:`symbolic_tf.certify.search.riccati.bounded_nsd`).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context (unused).

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with ``evidence["certificate"]`` (kind ``bounded-drift-vI-nsd``), else UNDECIDED with the
            reason.
        """
        from ..riccati import bounded_nsd

        return bounded_nsd(problem)
