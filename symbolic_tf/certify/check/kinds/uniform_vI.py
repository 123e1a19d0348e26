"""Checker of ``uniform-vI`` certificates: the exact class of R = v(A + Aᵀ)."""
from __future__ import annotations


import flint

from ....exact.definiteness import definiteness
from ....spec.errors import CertificationFailed, InvalidParameters
from ..flows import single_quadratic_head
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ....exact.rational import fmpq_of, parse_frac


_T = "tests/soundness/forgeries/test_uniform.py::"
HYPOTHESES = (
    Hypothesis("one-softmax-head", "The embedded problem is one softmax head (not ℓ2, Sinkhorn, multi-head…), so "
               "Σ̇ = VΣÃΣ + ΣÃᵀΣVᵀ with Ã = τA (τ the temperature).", _T + "test_uniform_not_one_softmax_head"),
    Hypothesis("constant-parameters", "A and V do not depend on depth t (no schedule).",
               _T + "test_uniform_refuses_a_schedule"),
    Hypothesis("no-drift", "F = 0: with V = v·I, P = Σ⁻¹ solves Ṗ = −R, so for Σ₀ = BDBᵀ (B of full column rank r) "
               "Σ(t) = B(D⁻¹ − t·BᵀRB)⁻¹Bᵀ.", _T + "test_uniform_refuses_a_drift"),
    Hypothesis("V-scalar", "V = v·I exactly for the stored v; R = v(Ã + Ãᵀ).", _T + "test_uniform_V_not_v_identity"),
    Hypothesis("R-class", "The stored class of R holds exactly: PD means R ≻ 0 (then BᵀRB ≻ 0 for every B of full "
               "column rank, so every Σ₀ ≠ 0 reaches a singular D⁻¹ − t·BᵀRB: blow-up); NSD means R ⪯ 0 (then "
               "D⁻¹ − t·BᵀRB ⪰ D⁻¹ ≻ 0 for all t: global, with a limit of rank r − rank BᵀRB).",
               _T + "test_uniform_R_class_wrong"),
    Hypothesis("regime-label", "The regime is the one the class of R gives: BLOWUP for R ≻ 0 (every Σ₀ ≠ 0); "
               "EQUILIBRIUM for R = 0 (Σ̇ = ΣRΣ = 0: every Σ₀ ⪰ 0 is stationary); CLUSTERING for R ⪯ 0, R ≠ 0, "
               "claimed for Σ₀ ≻ 0 only (B invertible, rank BᵀRB = rank R, limit of rank d − rank R).",
               _T + "test_uniform_regime_label"),
)


@kind("uniform-vI", {"v": "rat", "R_class": ("enum", "PD", "NSD"),
                     "regime": ("enum", "BLOWUP", "CLUSTERING", "EQUILIBRIUM")}, hypotheses=HYPOTHESES)
def check_uniform(cert, problem):
    """R = v(A + Aᵀ) ≻ 0: every Σ₀ ≠ 0 blows up.  R ⪯ 0: every Σ₀ ≻ 0 has a global solution
    converging to a limit of rank d − rank R (R = 0: every Σ₀ ⪰ 0 is an equilibrium).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic head with V = v·I, no drift.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim(...))``: BLOWUP for every Σ₀ ≠ 0 (R ≻ 0), EQUILIBRIUM (stationary) for every
        Σ₀ ⪰ 0 (R = 0), or CLUSTERING with rank d − rank R for every Σ₀ ≻ 0 (R ⪯ 0, R ≠ 0).

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When V ≠ v·I, there is a drift, or the stored class of R or the regime is not the exact one.
    """
    _check_uniform(cert, problem)
    regime = cert.data["regime"]
    if regime == "BLOWUP":
        return "PROVED", Claim("BLOWUP", Quantifier.EVERY_NONZERO, {})
    if regime == "EQUILIBRIUM":
        return "PROVED", Claim("EQUILIBRIUM", Quantifier.EVERY_PSD, {"stationary": True})
    v = parse_frac(cert.data["v"])
    A = single_quadratic_head(problem)[1]  # τ > 0: rank of v(τA + τAᵀ) = rank of v(A + Aᵀ)
    R = (A + A.transpose()) * fmpq_of(v)
    return "PROVED", Claim("CLUSTERING", Quantifier.EVERY_PD, {"rank": problem.d - R.rank()})


def _check_uniform(cert, problem):
    name = "uniform-vI certificate"
    if problem is None:
        raise CertificationFailed(f"{name}: needs an embedded problem")
    try:
        V, A = single_quadratic_head(problem)
    except InvalidParameters as exc:
        raise CertificationFailed(f"{name}: needs one quadratic (softmax) head: {exc.reason}") from None
    if problem.F is not None and any(e != 0 for row in problem.F for e in row):
        raise CertificationFailed(f"{name}: the problem has a drift F ≠ 0 (only F = 0 is covered)")
    d = problem.d
    v = parse_frac(cert.data["v"])
    vq = fmpq_of(v)
    if V != flint.fmpq_mat(d, d, [vq if i == j else 0 for i in range(d) for j in range(d)]):
        raise CertificationFailed(f"{name}: V is not v·I for the stored v = {v}")
    dR = definiteness((A + A.transpose()) * vq)
    cls = cert.data["R_class"]
    if cls == "PD" and not dR.pd or cls == "NSD" and not dR.nsd or cls not in ("PD", "NSD"):
        raise CertificationFailed(f"{name}: R = v(A + Aᵀ) is not {cls}")
    regime = "BLOWUP" if cls == "PD" else ("CLUSTERING" if dR.neg else "EQUILIBRIUM")
    if cert.data.get("regime") != regime:
        raise CertificationFailed(f"{name}: the regime is {regime} (R is {dR.kind}), not {cert.data.get('regime')}")
