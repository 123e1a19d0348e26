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

from ....exact.definiteness import definiteness
from ....exact.rational import frac_str, qmat
from ....spec.errors import CertificationFailed, InvalidParameters, SymtfError
from ..flows import get as get_variant, quadratic_heads
from .. import Hypothesis, check, kind
from ..claims import Claim, Quantifier

_T = "tests/soundness/forgeries/test_stratum.py::"
HYPOTHESES = (
    Hypothesis("sigma0-given", "The problem states its Gaussian initial covariance Σ₀; the claim is about this Σ₀.",
               _T + "test_no_sigma0"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t (the reduced problem is built from "
               "one set of matrices).", _T + "test_schedule"),
    Hypothesis("quadratic-field", "The flow is softmax or multi-head softmax with or without the affine drift: "
               "Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ), C_h = W_hV_h, Ã_h = τA_h, independent of the mean.",
               _T + "test_not_quadratic"),
    Hypothesis("B-full-rank", "B is d×r of full column rank with 0 < r < d, so Σ = BSBᵀ determines S, keeps its rank, "
               "and ‖BSBᵀ‖ is unbounded exactly when ‖S‖ is.", _T + "test_B_not_full_rank"),
    Hypothesis("S0-pd", "S₀ = S₀ᵀ ≻ 0 (r×r): the reduced Σ₀ is regular, and Σ₀ = BS₀Bᵀ has rank r.",
               _T + "test_S0_not_positive_definite"),
    Hypothesis("factor", "BS₀Bᵀ = Σ₀ exactly.", _T + "test_factor_not_sigma0"),
    Hypothesis("invariant-range", "range(B) is invariant under F and every C_h: XB = BM exactly with "
               "M = (BᵀB)⁻¹BᵀXB.  Then Σ(t) = BS(t)Bᵀ where S solves the reduced flow with F' = M_F, "
               "C'_h = M_(C_h), Ã'_h = BᵀÃ_hB, S(0) = S₀ (substitute and use uniqueness).",
               _T + "test_range_not_invariant"),
    Hypothesis("reduced-problem", "The embedded reduced certificate is about exactly that reduced problem (its "
               "problem hash is the one of the problem rebuilt here).", _T + "test_reduced_about_other_problem"),
    Hypothesis("reduced-kind", "The reduced certificate is a certificate of another kind than stratum.",
               _T + "test_reduced_is_stratum"),
    Hypothesis("reduced-valid", "The reduced certificate passes the full check and is PROVED.",
               _T + "test_reduced_fails_check"),
    Hypothesis("reduced-covers", "Its claim is a regime whose quantifier covers the reduced Σ₀ = S₀ (a property of "
               "the parameters, another Σ₀ or a cell does not).", _T + "test_reduced_does_not_cover"),
    Hypothesis("map-back", "The claim is the reduced one mapped back by Σ = BSBᵀ: blow-up bracket, limit rank and "
               "stationarity unchanged, Σ* = BS*Bᵀ, an entrywise enclosure radius r scaled by "
               "(max_i Σ_k ∣B_ik∣)²; any other reduced claim is refused.", _T + "test_claim_not_mapped"),
)


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
    doc = {"variant": problem.variant, "d": B.ncols(), "initial": {"cov": _mat(S0)}}
    if problem.F is not None:
        doc["F"] = _mat(_restrict(problem.exact.F, B))
    try:
        pairs = quadratic_heads(problem)
    except InvalidParameters as exc:
        _fail(f"the flow is not a sum of quadratic (softmax-type) heads: {exc.reason}")
    # the reduced flow is written with softmax heads carrying (C_h, Ã_h) restricted to range(B)
    heads = [{"variant": "softmax", "A": _mat(B.transpose() * At * B), "V": _mat(_restrict(C, B))}
             for C, At in pairs]
    if get_variant(problem.variant).composite:
        doc["heads"] = heads
    else:
        doc.update({"variant": "softmax", "A": heads[0]["A"], "V": heads[0]["V"]})
    return doc


@kind("stratum", {"B": "rat[][]", "S0": "rat[][]", "reduced": "obj"}, hypotheses=HYPOTHESES)
def check_stratum(cert, problem):
    """PROVED: this singular Σ₀'s regime, from the reduced problem on its invariant range.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem with a singular Σ₀ = BS₀Bᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim(regime, THIS, params))``: the reduced claim mapped back (bracket and rank
        unchanged, Σ* = BS*Bᵀ, the enclosure radius scaled by (max_i Σ_k|B_ik|)²).

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When B, S₀ or the reduced problem do not re-derive, or the reduced certificate fails or does not
        cover the reduced Σ₀.
    """
    from ....spec.problem import parse_problem

    if problem.cov is None:
        _fail("the problem has no Σ₀")
    d = problem.d
    B, S0 = qmat(cert.data["B"]), qmat(cert.data["S0"])
    r = B.ncols()
    if B.nrows() != d or not 0 < r < d or B.rank() != r:
        _fail("B must be d×r of full column rank with 0 < r < d")
    if S0.nrows() != r or S0.ncols() != r or S0 != S0.transpose() or not definiteness(S0).pd:
        _fail("S0 must be symmetric positive definite r×r")
    if B * S0 * B.transpose() != problem.exact.Sigma0:
        _fail("B·S0·Bᵀ ≠ Σ₀")
    try:
        reduced = parse_problem(_reduced_doc(problem, B, S0))
    except CertificationFailed:
        raise
    except SymtfError as exc:
        _fail(f"the reduced problem is invalid: {exc}")
    sub = cert.data["reduced"]
    if not isinstance(sub, dict) or sub.get("kind") == "stratum":
        _fail("the reduced certificate must be a (non-stratum) certificate")
    if sub.get("problem_hash") != reduced.content_hash():
        _fail("the reduced certificate is not about the reduced problem")
    try:
        res = check(sub)
    except CertificationFailed as exc:
        _fail(f"the reduced certificate fails its check: {str(exc)[:300]}")
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
    if subj == "GLOBAL_EXISTENCE":
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
