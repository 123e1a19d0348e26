"""Singular Σ₀ on an invariant stratum: reduce the flow to the range of Σ₀ and decide there.

Rank is invariant along the covariance flow (Σ(t) = Φ(t)Σ₀Φ(t)ᵀ).  When the range of
Σ₀ = BS₀Bᵀ (B rational d×r of full column rank, S₀ ≻ 0 r×r) is invariant under the drift F and
every head's value map C_h (FB = BM, C_hB = BN_h, exactly), the solution stays of the form
Σ(t) = BS(t)Bᵀ with

    Ṡ = MS + SMᵀ + Σ_h (N_h S A'_h S + S A'_hᵀ S N_hᵀ),    A'_h = Bᵀ(scale·A_h)B,

a flow of the same family in dimension r with a positive definite S₀ (uniqueness of solutions:
BS(t)Bᵀ solves the original equation).  The reduced problem is decided by the route registry;
its claim maps back: the same blow-up bracket, the same limit rank, Σ* = BS*Bᵀ, bounded stays
bounded.  This decides the singular Σ₀ that results "for every Σ₀ ≻ 0" do not cover (e.g. a
rank-one Σ₀ of an attracting drift model converges to a rank-one equilibrium, never to the PD
one).  Kind ``stratum``; docs/certification.md.
"""
from __future__ import annotations

import flint

from ...exact.definiteness import exact_factor
from ...exact.rational import frac_str, qmat
from ...spec.errors import InvalidParameters
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ...variants import get as get_variant, quadratic_heads
from ..check.certificate import Certificate, mat_str
from ..check.claims import Claim, Quantifier

__all__ = ["restriction", "reduced_problem_doc", "stratum", "map_claim"]


def restriction(X, B):
    """M with XB = BM (exact), or None when the range of B is not X-invariant."""
    BtB = B.transpose() * B
    M = BtB.inv() * B.transpose() * X * B
    return M if X * B == B * M else None


def reduced_problem_doc(problem, B, S0) -> dict | None:
    """The problem on the stratum range(B) (document for parse_problem), or None."""
    doc = {"variant": problem.variant, "d": B.ncols(), "initial": {"cov": mat_str(S0)}}
    if problem.F is not None:
        M = restriction(problem.exact.F, B)
        if M is None:
            return None
        doc["F"] = mat_str(M)
    try:
        pairs = quadratic_heads(problem)
    except InvalidParameters:
        return None
    # the reduced flow is written with softmax heads carrying (C_h, Ã_h) restricted to range(B)
    heads = []
    for C, At in pairs:
        N = restriction(C, B)
        if N is None:
            return None
        heads.append({"variant": "softmax", "A": mat_str(B.transpose() * At * B), "V": mat_str(N)})
    if get_variant(problem.variant).composite:
        doc["heads"] = heads
    else:
        doc.update({"variant": "softmax", "A": heads[0]["A"], "V": heads[0]["V"]})
    return doc


def map_claim(claim: Claim, B) -> Claim | None:
    """The reduced problem's claim, read in the original coordinates Σ = BSBᵀ (this Σ₀)."""
    p = claim.params
    subj = claim.subject
    if subj in ("BLOWUP", "CLUSTERING", "BOUNDED"):
        keep = {k: p[k] for k in ("T_lo", "T_hi", "rank") if k in p}
        return Claim(subj, Quantifier.THIS, keep)
    if subj == "GLOBAL_EXISTENCE":
        return Claim(subj, Quantifier.THIS, {})  # γ is for ‖S‖, not ‖BSBᵀ‖: not restated
    if subj == "EQUILIBRIUM":
        if p.get("stationary"):
            return Claim(subj, Quantifier.THIS, {"stationary": True, "rank": p.get("rank")})
        if "Sigma_star" in p:
            S = qmat(p["Sigma_star"])
            return Claim(subj, Quantifier.THIS, {"Sigma_star": mat_str(B * S * B.transpose())})
        if "Sigma_mid" in p:
            S = qmat(p["Sigma_mid"])
            row = max(sum((abs(B[i, k]) for k in range(B.ncols())), flint.fmpq(0)) for i in range(B.nrows()))
            r = qmat([[p["r"]]])[0, 0] * row * row
            return Claim(subj, Quantifier.THIS, {"Sigma_mid": mat_str(B * S * B.transpose()), "r": frac_str(r)})
    return None


def stratum(problem, ctx) -> Verdict:
    """Reduce a singular Σ₀ to its invariant range and decide the reduced problem."""
    from ...spec.problem import parse_problem
    from . import routes

    B, D = exact_factor(problem.cov)
    r, d = B.ncols(), problem.d
    if r == 0 or r == d:
        return Verdict(UNDECIDED, "", reason="Σ₀ is zero or nonsingular: nothing to reduce")
    doc = reduced_problem_doc(problem, B, D)
    if doc is None:
        return Verdict(UNDECIDED, "", reason="the range of Σ₀ is not invariant under F and the value maps")
    reduced = parse_problem(doc)
    sub = routes.prove(reduced, routes.Context(horizon=ctx.horizon))
    if sub.claim is None:
        return Verdict(UNDECIDED, "", reason=f"the rank-{r} reduced problem is undecided ("
                       + "; ".join(sub.reasons)[:300] + ")")
    claim = map_claim(sub.claim, B)
    if claim is None:
        return Verdict(UNDECIDED, "", reason="the reduced claim does not map back")
    cert = Certificate.for_problem(problem, "stratum", claim, PROVED,
                                   {"B": mat_str(B), "S0": mat_str(D), "reduced": sub.certificate})
    return Verdict(PROVED, claim.text(), "invariant-stratum", evidence={"certificate": cert.to_dict()},
                   numerical=dict(sub.verdict.numerical),
                   reason=f"range(Σ₀) (rank {r}) is invariant: on it, route {sub.route} proved "
                          f"«{sub.claim.text()}»")


# ---- route ----
from .routes import declare, quadratic_family  # noqa: E402 - the route is declared after the search it runs


def _stratum_applies(problem, ctx):
    if problem.cov is None:
        return "needs Σ₀"
    why = quadratic_family(problem)
    if why is not None:
        return why
    from ...exact.definiteness import definiteness

    S = definiteness(problem.exact.Sigma0)
    return None if 0 < S.pos < problem.d else "Σ₀ is zero or nonsingular"


# before the V = vI drift routes, whose sharpest results ("every Σ₀ ≻ 0 → Σ*") do not cover a singular Σ₀
declare("invariant-stratum", 15, ("BLOWUP", "CLUSTERING", "EQUILIBRIUM", "BOUNDED", "GLOBAL_EXISTENCE"),
        _stratum_applies, stratum,
        doc="The regime of a singular Σ₀ ≠ 0 whose range is invariant, decided on that range by the whole registry; "
            "quadratic flows.")
