"""Checker of ``stratum`` certificates: a singular Σ₀ decided on its invariant range.

Re-derived from the embedded problem and the data alone (docs/certification.md): Σ₀ = BS₀Bᵀ
exactly with B of full column rank r < d and S₀ ≻ 0; the range of B is invariant under F and
every head's C_h (XB = BM exactly, M = (BᵀB)⁻¹BᵀXB); the reduced problem (F' = M, C'_h = N_h,
A'_h = Bᵀ(scale·A_h)B, Σ₀' = S₀) is rebuilt here and must be exactly the embedded reduced
certificate's problem; that certificate is checked in full, its claim must cover the reduced
Σ₀, and it is mapped back (Σ = BSBᵀ): blow-up bracket and limit rank unchanged, Σ* = BS*Bᵀ,
an enclosure radius r scaled by (max_i Σ_k|B_ik|)².
"""
from __future__ import annotations

import flint

from ...exact.definiteness import definiteness
from ...exact.rational import frac_str, qmat
from ...spec.errors import CertificationFailed, SymtfError
from ..check import check, kind
from ..claims import Claim, Quantifier


def _fail(msg):
    raise CertificationFailed(f"stratum certificate: {msg}")


def _mat(M):
    return [[frac_str(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]


def _restrict(X, B):
    M = (B.transpose() * B).inv() * B.transpose() * X * B
    if X * B != B * M:
        _fail("the range of Σ₀ is not invariant under the drift or a value map")
    return M


def _reduced_doc(problem, B, S0):
    s = flint.fmpq(problem.scale.numerator, problem.scale.denominator)
    doc = {"variant": problem.variant, "d": B.ncols(), "initial": {"cov": _mat(S0)}}
    if problem.F is not None:
        doc["F"] = _mat(_restrict(qmat(problem.F), B))
    if problem.variant == "softmax" and not problem.heads:
        doc["A"] = _mat(B.transpose() * qmat(problem.A) * s * B)
        doc["V"] = _mat(_restrict(qmat(problem.V), B))
        return doc
    if problem.variant == "multihead" and problem.heads:
        heads = []
        for h in problem.heads:
            if h.variant != "softmax" or h.attention is None or h.V is None:
                _fail("only softmax heads are covered")
            C = qmat(h.V) if h.W is None else qmat(h.W) * qmat(h.V)
            heads.append({"variant": "softmax", "A": _mat(B.transpose() * qmat(h.attention) * s * B),
                          "V": _mat(_restrict(C, B))})
        doc["heads"] = heads
        return doc
    _fail(f"variant {problem.variant!r} is not covered")


@kind("stratum", {"B": "rat[][]", "S0": "rat[][]", "reduced": "obj"})
def check_stratum(cert, problem):
    """PROVED: this singular Σ₀'s regime, from the reduced problem on its invariant range."""
    from ...spec.problem import parse_problem

    if problem.cov is None:
        _fail("the problem has no Σ₀")
    d = problem.d
    B, S0 = qmat(cert.data["B"]), qmat(cert.data["S0"])
    r = B.ncols()
    if B.nrows() != d or not 0 < r < d or B.rank() != r:
        _fail("B must be d×r of full column rank with 0 < r < d")
    if S0.nrows() != r or S0.ncols() != r or S0 != S0.transpose() or not definiteness(S0).pd:
        _fail("S0 must be symmetric positive definite r×r")
    if B * S0 * B.transpose() != qmat(problem.cov):
        _fail("B·S0·Bᵀ ≠ Σ₀")
    try:
        reduced = parse_problem(_reduced_doc(problem, B, S0))
    except SymtfError as exc:
        _fail(f"the reduced problem is invalid: {exc}")
    sub = cert.data["reduced"]
    if not isinstance(sub, dict) or sub.get("kind") == "stratum":
        _fail("the reduced certificate must be a (non-stratum) certificate")
    if sub.get("problem_hash") != reduced.content_hash():
        _fail("the reduced certificate is not about the reduced problem")
    res = check(sub)
    if res.status != "PROVED":
        _fail("the reduced certificate does not prove a regime")
    sub_problem = parse_problem(sub["problem"])
    ok, why = res.claim.covers(reduced, sub_problem)
    if not ok:
        _fail(f"the reduced claim does not cover the reduced Σ₀ ({why})")
    p = res.claim.params
    subj = res.claim.subject
    if subj in ("BLOWUP", "CLUSTERING", "BOUNDED"):
        return "PROVED", Claim(subj, Quantifier.THIS, {k: p[k] for k in ("T_lo", "T_hi", "rank") if k in p})
    if subj == "EXPONENTIAL_GROWTH":
        return "PROVED", Claim(subj, Quantifier.THIS, {})
    if subj == "EQUILIBRIUM":
        if p.get("stationary"):
            return "PROVED", Claim(subj, Quantifier.THIS, {"stationary": True, "rank": p.get("rank")})
        if "Sigma_star" in p:
            return "PROVED", Claim(subj, Quantifier.THIS, {"Sigma_star": _mat(B * qmat(p["Sigma_star"]) * B.transpose())})
        if "Sigma_mid" in p:
            row = max(sum((abs(B[i, k]) for k in range(r)), flint.fmpq(0)) for i in range(d))
            rad = qmat([[p["r"]]])[0, 0] * row * row
            return "PROVED", Claim(subj, Quantifier.THIS, {"Sigma_mid": _mat(B * qmat(p["Sigma_mid"]) * B.transpose()),
                                                           "r": frac_str(rad)})
    _fail(f"the reduced claim ({subj}) does not map back")
