"""Sinkhorn (doubly stochastic) attention, ε = 1: Γ(x) = V ∫ y π(dy|x), π the entropic
self-coupling of μ with kernel e^{yᵀAx} (both marginals μ)  (docs/mathematics.md §2–3)."""
from __future__ import annotations

from .base import BISTOCHASTIC, Variant, bilinear, register


@register
class Sinkhorn(Variant):
    name = "sinkhorn"
    summary = "Γ(x) = V ∫ y π(dy|x), π ∝ e^{yᵀAx} μ⊗μ with both marginals μ"
    reference = "Sander et al. (2022) Sinkformers; Castin et al. §2; docs/mathematics.md §3"
    normalisation = BISTOCHASTIC
    matrices = ("A", "V")
    order = 2
    gradient_flow_metrics = ("bures-wasserstein",)
    growth_bound = "coupling"  # ‖Σ̇‖ ≤ 2‖V‖‖Σ‖: the coupling's cross-covariance is bounded by Σ
    moment_assumptions = ("principal square root; I + 4ΣGᵀΣG has real spectrum ≥ 1 for Σ ⪰ 0",)

    def kernel(self, x, y, P):
        """k(x, y) = e^{τ yᵀAx} (normalised bistochastically, in the velocity).

        Parameters
        ----------
        x, y : sympy.Matrix or MatrixSymbol, shape (d, 1)
            Query and key token.
        P : Mapping
            Symbolic parameters (see :meth:`Variant.kernel`).

        Returns
        -------
        sympy.Expr
            The scalar kernel.
        """
        import sympy as sp  # here, not at the top: listing the variants stays light
        return sp.exp(bilinear(x, y, P))

    def velocity(self, Xq, Y, params, w=None, **kw):
        """Γ(x) = V ∫ y π(dy|x) for the Sinkhorn self-coupling π ∝ e^{yᵀAx} μ⊗μ (ε = 1).

        Parameters
        ----------
        Xq : ndarray, shape (M, d)
            Query points.
        Y : ndarray, shape (N, d)
            Support of μ^N.
        params : dict
            Float parameters from :meth:`numeric_params`.
        w : ndarray, shape (N,), optional
            Non-negative weights with positive sum (default uniform).
        **kw
            Passed on (``potential``, ``tol``, ``max_iter``, ``chunk``).

        Returns
        -------
        ndarray, shape (M, d)
            Γ at each query.
        """
        from .velocity import sinkhorn_velocity

        return sinkhorn_velocity(Xq, Y, params["A"], params["V"], w=w, **kw)
