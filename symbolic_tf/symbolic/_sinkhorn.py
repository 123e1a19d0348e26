"""The Gaussian entropic self-coupling behind Sinkhorn attention (ε = 1), docs/mathematics.md §3.

For μ = N(α, Σ) and kernel e^{yᵀAx}, the coupling π ∝ e^{yᵀAx} f(x) g(y) μ⊗μ with both
marginals μ is Gaussian with joint precision [[Σ⁻¹+P, −Aᵀ], [−A, Σ⁻¹+R]], where

    P = Aᵀ(Σ⁻¹ + R)⁻¹A,      R = A(Σ⁻¹ + P)⁻¹Aᵀ,

and Γ(x) = V(α + (Σ⁻¹+R)⁻¹A(x − α)).  In whitened coordinates (Ã = Σ^{1/2}AΣ^{1/2}) the
cross-covariance is K̃ = 2Ã(I + (I + 4ÃᵀÃ)^{1/2})⁻¹ (singular values k = 2σ/(1+√(1+4σ²))),
which gives the closed form used by the closure engine,
(Σ⁻¹+R)⁻¹A = 2ΣA(I + (I + 4ΣAᵀΣA)^{1/2})⁻¹.  This module solves the fixed-point equations
independently: symbolically in d = 1, by a monotone iteration in d > 1.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["coupling_1d", "CouplingFixedPoint", "coupling_fixed_point"]


def coupling_1d():
    """Solve P = a²/(1/s + R), R = a²/(1/s + P) for s > 0 symbolically."""
    s, a = sp.symbols("s a", positive=True)
    Pp, Rr = sp.symbols("P R", positive=True)
    sols = sp.solve([sp.Eq(Pp * (1 / s + Rr), a**2), sp.Eq(Rr * (1 / s + Pp), a**2)], [Pp, Rr], dict=True)
    pos = [t for t in sols if t[Pp].is_positive is not False and t[Rr].is_positive is not False]
    sol = pos[0]
    gain = sp.simplify(a / (1 / s + sol[Rr]))
    return {"s": s, "a": a, "P": sp.simplify(sol[Pp]), "R": sp.simplify(sol[Rr]), "gain": gain}


@dataclass(frozen=True)
class CouplingFixedPoint:
    """Result of :func:`coupling_fixed_point` (mpmath matrices)."""

    P: object
    R: object
    gain: object          # (Σ⁻¹ + R)⁻¹ A
    iterations: int
    residual: float       # max |entry| of both fixed-point equations at the returned point
    increment: float      # max |R_n − R_{n−1}| at the last step
    converged: bool


def coupling_fixed_point(Sigma, A, dps: int = 40, tol: float = 1e-30, max_iter: int = 100000) -> CouplingFixedPoint:
    """Monotone fixed-point iteration R ← A(Σ⁻¹ + Aᵀ(Σ⁻¹ + R)⁻¹A)⁻¹Aᵀ from R = 0.

    The map is order-preserving on PSD matrices (R ↑ ⇒ (Σ⁻¹+R)⁻¹ ↓ ⇒ the outer inverse ↑) and
    bounded by AΣAᵀ, so the iterates increase monotonically to the least fixed point; the
    returned point's residual in *both* equations is reported so the caller can check it.
    ``Sigma`` must be positive definite (rank-deficient Σ: use the closed form).
    """
    import mpmath

    with mpmath.workdps(dps):
        S_ = mpmath.matrix(Sigma)
        A_ = mpmath.matrix(A)
        n = S_.rows
        Si = mpmath.inverse(S_)
        R = mpmath.zeros(n, n)
        inc = mpmath.mpf(1)
        it = 0
        while it < max_iter:
            it += 1
            P = A_.T * mpmath.inverse(Si + R) * A_
            Rn = A_ * mpmath.inverse(Si + P) * A_.T
            inc = max(abs(e) for e in (Rn - R))
            R = Rn
            if inc < tol:
                break
        P = A_.T * mpmath.inverse(Si + R) * A_
        res = max(max(abs(e) for e in (P - A_.T * mpmath.inverse(Si + R) * A_)),
                  max(abs(e) for e in (R - A_ * mpmath.inverse(Si + P) * A_.T)))
        gain = mpmath.inverse(Si + R) * A_
        return CouplingFixedPoint(P, R, gain, it, float(res), float(inc), bool(inc < tol))
