"""Checker of ``stationary`` certificates: Σ̇(Σ₀) = 0 exactly, so Σ(t) = Σ₀ for all t.

The covariance equation is an autonomous ODE with a locally Lipschitz right-hand side; if it
vanishes at Σ₀, the constant Σ(t) ≡ Σ₀ is a solution and, by uniqueness, *the* solution.  The
right-hand side is recomputed here exactly from the embedded problem:

* softmax / multi-head softmax (± drift): Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ),
  C_h = W_hV_h, A_h scaled by the temperature (docs/certification.md);
* any other Gaussian-closed variant (ℓ2, Sinkhorn, linear) only at Σ₀ = 0, where the
  congruence form Σ(t) = Φ(t)Σ₀Φ(t)ᵀ gives Σ ≡ 0 whatever J is.
"""
from __future__ import annotations

import flint

from ...exact.rational import qmat
from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier

_CONGRUENCE = ("softmax", "multihead", "l2", "sinkhorn", "linear")


def _fail(msg):
    raise CertificationFailed(f"stationary certificate: {msg}")


def covariance_rhs_exact(problem, S):
    """Σ̇ at Σ = S for softmax / multi-head softmax (± drift), exactly; None for other variants."""
    d = problem.d
    s = flint.fmpq(problem.scale.numerator, problem.scale.denominator)
    pairs = []
    if problem.variant == "softmax" and not problem.heads:
        if problem.A is None or problem.V is None:
            return None
        pairs.append((qmat(problem.V), qmat(problem.A) * s))
    elif problem.variant == "multihead" and problem.heads:
        for h in problem.heads:
            if h.variant != "softmax" or h.attention is None or h.V is None:
                return None
            C = qmat(h.V) if h.W is None else qmat(h.W) * qmat(h.V)
            pairs.append((C, qmat(h.attention) * s))
    else:
        return None
    G = flint.fmpq_mat(d, d)
    if problem.F is not None:
        F = qmat(problem.F)
        G += F * S + S * F.transpose()
    for C, A in pairs:
        G += C * S * A * S + S * A.transpose() * S * C.transpose()
    return G


@kind("stationary", {})
def check_stationary(cert, problem):
    """PROVED: for this Σ₀, Σ(t) = Σ₀ for all t (an equilibrium of rank rank Σ₀)."""
    if problem.cov is None:
        _fail("the problem has no Σ₀")
    if problem.variant not in _CONGRUENCE:
        _fail(f"variant {problem.variant!r} is not covered")
    S = qmat(problem.cov)
    zero = all(S[i, j] == 0 for i in range(problem.d) for j in range(problem.d))
    if not zero:
        G = covariance_rhs_exact(problem, S)
        if G is None:
            _fail("the right-hand side can be evaluated exactly only for softmax / multi-head softmax (Σ₀ ≠ 0)")
        if any(G[i, j] != 0 for i in range(problem.d) for j in range(problem.d)):
            _fail("Σ̇(Σ₀) ≠ 0")
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": S.rank()})
