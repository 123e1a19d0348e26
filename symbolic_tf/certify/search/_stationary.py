"""Search side of the ``stationary`` route: Σ̇(Σ₀) = 0 exactly ⇒ Σ(t) ≡ Σ₀ (Σ₀ = 0 included).

Decides exactly the stationary initial covariances: Σ₀ = 0 for every Gaussian-closed variant
of congruence form whose point mass moves globally (normalised heads, or α₀ = 0 and b = 0: with
linear attention δ_α obeys α̇ = (αᵀAα)Vα, which may escape in finite time), and every exact equilibrium of softmax / multi-head softmax (± drift), e.g.
the threshold case of a blow-up/collapse dichotomy, where Σ₀ sits on the unstable equilibrium.
"""
from __future__ import annotations

from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ...spec.errors import InvalidParameters
from ...variants import quadratic_heads
from ..check.certificate import Certificate
from ..check.claims import Claim, Quantifier
from ..check.kinds.stationary import point_mass_reason

__all__ = ["stationary"]


def _rhs(problem, S):
    import flint

    d = problem.d
    heads = quadratic_heads(problem)
    G = flint.fmpq_mat(d, d)
    if problem.F is not None:
        F = problem.exact.F
        G += F * S + S * F.transpose()
    for C, A in heads:
        CSA = C * S * A * S
        G += CSA + CSA.transpose()
    return G


def stationary(problem) -> Verdict:
    """PROVED EQUILIBRIUM (stationary) when Σ̇(Σ₀) = 0 exactly, else UNDECIDED."""
    S = problem.exact.Sigma0
    d = problem.d
    zero = all(S[i, j] == 0 for i in range(d) for j in range(d))
    if zero and (why := point_mass_reason(problem)) is not None:
        return Verdict(UNDECIDED, "", reason=why)
    if not zero:
        try:
            G = _rhs(problem, S)
        except InvalidParameters as exc:
            return Verdict(UNDECIDED, "", reason=f"Σ₀ ≠ 0 and the right-hand side is not the quadratic "
                           f"softmax-type field: {exc}")
        if any(G[i, j] != 0 for i in range(d) for j in range(d)):
            return Verdict(UNDECIDED, "", reason="Σ̇(Σ₀) ≠ 0")
    claim = Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": S.rank()})
    cert = Certificate.for_problem(problem, "stationary", claim, PROVED, {})
    return Verdict(PROVED, claim.text(), "exact-rhs", evidence={"certificate": cert.to_dict()},
                   reason="Σ₀ = 0" if zero else "Σ̇(Σ₀) = 0 exactly: Σ₀ is an equilibrium (uniqueness of solutions)")


# ---- route ----
from .routes import declare, searching  # noqa: E402 - the route is declared after the search it runs


def _stationary_applies(problem, ctx):
    if problem.cov is None:
        return "needs Σ₀"
    from ...variants import get

    # Σ₀ = 0 stays 0 under a Gaussian-closed flow (Σ̇ = JΣ + ΣJᵀ); Σ₀ ≠ 0 needs Σ̇(Σ₀) = 0 exactly
    return None if get(problem.variant).expected_closed else "variant not covered"


# first, because it is exact and cheap
declare("stationary", 1, ("EQUILIBRIUM",), _stationary_applies, searching(stationary),
        doc="EQUILIBRIUM of this Σ₀ when Σ̇(Σ₀) = 0 exactly (Σ₀ = 0 included); needs Σ₀ and a Gaussian-closed "
            "variant.")
