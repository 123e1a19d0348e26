"""Search side of the ``stationary`` route: Σ̇(Σ₀) = 0 exactly ⇒ Σ(t) ≡ Σ₀ (Σ₀ = 0 included).

Decides exactly the stationary initial covariances: Σ₀ = 0 for every Gaussian-closed variant
of congruence form, and every exact equilibrium of softmax / multi-head softmax (± drift), e.g.
the threshold case of a blow-up/collapse dichotomy, where Σ₀ sits on the unstable equilibrium.
"""
from __future__ import annotations

from ..exact.rational import qmat
from ..spec.verdict import PROVED, UNDECIDED, Verdict
from .certificate import Certificate
from .claims import Claim, Quantifier

__all__ = ["stationary"]


def _rhs(problem, S):
    import flint

    d = problem.d
    s = flint.fmpq(problem.scale.numerator, problem.scale.denominator)
    heads = ([(qmat(problem.V), qmat(problem.A) * s)] if problem.variant == "softmax" and not problem.heads
             else [((qmat(h.W) if h.W is not None else 1) * qmat(h.V), qmat(h.attention) * s) for h in problem.heads])
    G = flint.fmpq_mat(d, d)
    if problem.F is not None:
        F = qmat(problem.F)
        G += F * S + S * F.transpose()
    for C, A in heads:
        CSA = C * S * A * S
        G += CSA + CSA.transpose()
    return G


def stationary(problem) -> Verdict:
    """PROVED EQUILIBRIUM (stationary) when Σ̇(Σ₀) = 0 exactly, else UNDECIDED."""
    S = qmat(problem.cov)
    d = problem.d
    zero = all(S[i, j] == 0 for i in range(d) for j in range(d))
    if not zero:
        if problem.variant not in ("softmax", "multihead") or (problem.variant == "softmax" and problem.heads):
            return Verdict(UNDECIDED, "", reason="Σ₀ ≠ 0 and the right-hand side is not polynomial")
        if problem.variant == "multihead" and any(h.variant != "softmax" for h in problem.heads):
            return Verdict(UNDECIDED, "", reason="non-softmax heads")
        G = _rhs(problem, S)
        if any(G[i, j] != 0 for i in range(d) for j in range(d)):
            return Verdict(UNDECIDED, "", reason="Σ̇(Σ₀) ≠ 0")
    claim = Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": S.rank()})
    cert = Certificate.for_problem(problem, "stationary", claim, PROVED, {})
    return Verdict(PROVED, claim.text(), "exact-rhs", evidence={"certificate": cert.to_dict()},
                   reason="Σ₀ = 0" if zero else "Σ̇(Σ₀) = 0 exactly: Σ₀ is an equilibrium (uniqueness of solutions)")
