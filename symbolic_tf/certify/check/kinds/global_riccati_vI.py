"""Checker of the certificate kind ``global-riccati-vI``.

Without drift, this Σ₀ is stationary (BᵀRB = 0) or its solution is global with a limit of rank r −
rank BᵀRB (BᵀRB ⪯ 0).

The hypotheses shared by the V = vI kinds, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

from ....exact.definiteness import definiteness
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import (CONSTANT_PARAMETERS, FACTOR_SCHEMA, FORGERIES, ONE_SOFTMAX_HEAD, SIGMA0_FACTOR,
                       SIGMA0_GIVEN, V_SCALAR, check_factor, is_zero, refuse, vI_setup)

GLOBAL_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, SIGMA0_GIVEN,
    Hypothesis("no-drift", "F = 0: W(t) = tR, so X(t) = D⁻¹ − t·BᵀRB.", FORGERIES + "test_global_riccati_refuses_a_drift"),
    Hypothesis("sigma0-factor", SIGMA0_FACTOR.statement + " Σ₀ = 0 has the empty factor (r = 0).",
               FORGERIES + "test_riccati_factorisation_is_not_sigma0"),
    Hypothesis("N-nsd", "N = BᵀRB ⪯ 0: X(t) = D⁻¹ − tN ⪰ D⁻¹ ≻ 0 for every t ≥ 0 (global), and "
               "X(t)⁻¹ converges to a matrix of rank r − rank N (the kernel of N).", FORGERIES + "test_global_riccati_N_not_nsd"),
    Hypothesis("limit-rank", "limit_rank = r − rank N (0 when Σ₀ = 0): the rank of lim Σ(t) = B·lim X(t)⁻¹·Bᵀ.",
               FORGERIES + "test_global_riccati_limit_rank"),
    Hypothesis("regime-label", "regime = EQUILIBRIUM exactly when N = 0 (then Σ̇ = ΣRΣ = BD·N·DBᵀ = 0: Σ₀ is "
               "stationary; Σ₀ = 0 included), CLUSTERING otherwise.", FORGERIES + "test_global_riccati_regime_label"),
)


@kind("global-riccati-vI", {**FACTOR_SCHEMA, "limit_rank": "int", "regime": ("enum", "CLUSTERING", "EQUILIBRIUM")},
      hypotheses=GLOBAL_HYPOTHESES)
def check_global(cert, problem):
    """PROVED: this Σ₀ is stationary (BᵀRB = 0), or its solution is global with a limit of
    rank r − rank BᵀRB (BᵀRB ⪯ 0).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, no drift, and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", THIS, {"stationary": True, "rank"}))`` (BᵀRB = 0) or
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": limit_rank}))`` (BᵀRB ⪯ 0).

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the factorisation, the sign of BᵀRB or the limit rank does not re-derive.
    """
    _check_global(cert, problem)
    if cert.data["regime"] == "EQUILIBRIUM":
        return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": int(cert.data["limit_rank"])})
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": int(cert.data["limit_rank"])})


def _check_global(cert, problem):
    name = "global-riccati-vI"
    d, v, R, F, B, D = vI_setup(name, cert, problem)
    if not is_zero(F):
        refuse(f"{name} certificate: the problem has a drift F ≠ 0 (only F = 0 is covered)")
    check_factor(name, problem, B, D)
    if not D:
        if int(cert.data["limit_rank"]) != 0:
            refuse(f"{name} certificate: the limit rank is 0 (Σ₀ = 0), not {cert.data['limit_rank']}")
        if cert.data.get("regime") != "EQUILIBRIUM":
            refuse(f"{name} certificate: the regime is EQUILIBRIUM (Σ₀ = 0 is stationary), not {cert.data.get('regime')}")
        return
    N = B.transpose() * R * B
    if not definiteness(N).nsd:
        refuse(f"{name} certificate: N = BᵀRB is not negative semidefinite")
    limit = len(D) - N.rank()
    if int(cert.data["limit_rank"]) != limit:
        refuse(f"{name} certificate: the limit rank is r − rank BᵀRB = {limit}, not {cert.data['limit_rank']}")
    regime = "EQUILIBRIUM" if N.rank() == 0 else "CLUSTERING"
    if cert.data.get("regime") != regime:
        refuse(f"{name} certificate: the regime is {regime} (BᵀRB {'=' if regime == 'EQUILIBRIUM' else '≠'} 0), "
              f"not {cert.data.get('regime')}")
