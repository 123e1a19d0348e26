"""Checker of the certificate kind ``global-drift-vI``.

This Σ₀'s solution is global and Σ(t) → 0 (F Hurwitz, below the blow-up threshold).

The hypotheses shared by the V = vI kinds, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import definiteness
from ....exact.rational import qmat
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import (CONSTANT_PARAMETERS, FACTOR_SCHEMA, FORGERIES, ONE_SOFTMAX_HEAD, SIGMA0_FACTOR,
                       SIGMA0_GIVEN, V_SCALAR, check_factor, refuse, square, vI_setup)

GLOBAL_DRIFT_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, SIGMA0_GIVEN, SIGMA0_FACTOR,
    Hypothesis("R-psd-or-scalar-F", "R ⪰ 0 (then W(t) increases to W∞), or F = f·I with f < 0 (then W(t) = g(t)R, "
               "g increasing from 0 to 1/(2∣f∣), and X(t) lies on the segment from D⁻¹ to D⁻¹ − BᵀW∞B).",
               FORGERIES + "test_global_drift_R_indefinite_general_F"),
    Hypothesis("W-lyapunov", "W∞ is a d×d matrix with FᵀW∞ + W∞F = −R (the limit of W(t) when F is Hurwitz).",
               FORGERIES + "test_global_drift_W_not_lyapunov"),
    Hypothesis("F-hurwitz", "X symmetric, X ≻ 0 and FᵀX + XF = −I: F is Hurwitz, so W(t) → W∞ and e^{Ft} → 0.",
               FORGERIES + "test_global_drift_F_not_hurwitz"),
    Hypothesis("below-threshold", "D⁻¹ − BᵀW∞B ≻ 0: with the previous hypotheses X(t) ≻ 0 stays bounded away from "
               "singular for all t, so Σ(t) = e^{Ft}BX(t)⁻¹Bᵀe^{Fᵀt} is global and tends to 0 (limit of rank 0).",
               FORGERIES + "test_global_drift_above_threshold"),
)


@kind("global-drift-vI", {**FACTOR_SCHEMA, "W_inf": "rat[][]", "X": "rat[][]"}, hypotheses=GLOBAL_DRIFT_HYPOTHESES)
def check_global_drift(cert, problem):
    """PROVED: this Σ₀'s solution is global and Σ(t) → 0.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, a drift F, and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When FᵀW∞ + W∞F = −R, the Hurwitz witness X or D⁻¹ − BᵀW∞B ≻ 0 fails exactly.
    """
    _check_global_drift(cert, problem)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})


def _check_global_drift(cert, problem):
    name = "global-drift-vI"
    d, v, R, F, B, D = vI_setup(name, cert, problem)
    Dinv = check_factor(name, problem, B, D, zero="this kind's data need Σ₀ ≠ 0")
    W = square(name, "W∞", qmat(cert.data["W_inf"]), d)
    X = square(name, "X", qmat(cert.data["X"]), d)
    I = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    f = F[0, 0]
    scalar_neg = f < 0 and all(F[i, j] == (f if i == j else 0) for i in range(d) for j in range(d))
    if not definiteness(R).psd and not scalar_neg:
        # R ⪰ 0 makes W(t) increase to W∞; for F = fI, f < 0, W(t) = g(t)R is on the segment [0, W∞]
        refuse(f"{name} certificate: R = v(A + Aᵀ) is not positive semidefinite and F is not f·I with f < 0")
    if F.transpose() * W + W * F != -R:
        refuse(f"{name} certificate: W∞ does not solve FᵀW∞ + W∞F = −R")
    if X != X.transpose() or not definiteness(X).pd or F.transpose() * X + X * F != -I:
        refuse(f"{name} certificate: X does not certify that F is Hurwitz (need X ≻ 0, FᵀX + XF = −I)")
    if W != W.transpose() or not definiteness(Dinv - B.transpose() * W * B).pd:
        refuse(f"{name} certificate: D⁻¹ − BᵀW∞B is not positive definite (Σ₀ above the blow-up threshold)")
