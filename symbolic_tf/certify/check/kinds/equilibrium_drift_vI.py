"""Checker of the certificate kind ``equilibrium-drift-vI``.

Every Σ₀ ≻ 0 has a global solution converging to Σ* = P*⁻¹ (−F Hurwitz, R ≺ 0).

The hypotheses shared by the V = vI kinds, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import definiteness
from ....exact.rational import frac_str, qmat
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..flows import single_quadratic_head
from ..riccati import (CONSTANT_PARAMETERS, FORGERIES, ONE_SOFTMAX_HEAD, V_SCALAR, rational, refuse, square,
                       vI_setup)

EQUILIBRIUM_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR,
    Hypothesis("R-negative-definite", "R = v(Ã + Ãᵀ) ≺ 0.", FORGERIES + "test_equilibrium_drift_R_not_negative_definite"),
    Hypothesis("P-lyapunov", "P* is a d×d matrix with FᵀP* + P*F = −R, so P(t) = P* + e^{−Fᵀt}(P₀ − P*)e^{−Ft}.",
               FORGERIES + "test_equilibrium_drift_P_not_lyapunov"),
    Hypothesis("F-anti-hurwitz", "X symmetric, X ≻ 0 and FᵀX + XF ≻ 0: −F is Hurwitz, so e^{−Ft} → 0, P(t) → P* "
               "and P* = ∫₀^∞e^{−Fᵀs}(−R)e^{−Fs}ds ≻ 0; P(t) = e^{−Fᵀt}P₀e^{−Ft} + ∫₀ᵗe^{−Fᵀs}(−R)e^{−Fs}ds ≻ 0 for "
               "every P₀ = Σ₀⁻¹ ≻ 0, so every Σ₀ ≻ 0 has a global solution with Σ(t) → Σ* = P*⁻¹ (a singular Σ₀ "
               "keeps its rank and is not covered).", FORGERIES + "test_equilibrium_drift_F_not_anti_hurwitz"),
    Hypothesis("mean-hurwitz", "With the mean part: Y symmetric, Y ≻ 0 and M*ᵀY + YM* ≺ 0 for M* = F + vI + vΣ*Ã, "
               "the limit of the mean's matrix F + vI + vΣ(t)Ã.", FORGERIES + "test_equilibrium_drift_mean_not_hurwitz"),
    Hypothesis("mean-equilibrium", "With the mean part: M*α* + b = 0, so the mean converges to α* = −M*⁻¹b.",
               FORGERIES + "test_equilibrium_drift_alpha_star_wrong"),
)


@kind("equilibrium-drift-vI", {"v": "rat", "P_star": "rat[][]", "X": "rat[][]",
                                "mean?": {"Y": "rat[][]", "alpha_star": "rat[]"}}, hypotheses=EQUILIBRIUM_HYPOTHESES)
def check_equilibrium(cert, problem):
    """PROVED: for every Σ₀ ≻ 0 the solution is global and Σ(t) → Σ* = P*⁻¹ (P(t) = Σ(t)⁻¹
    solves the linear Ṗ = −(FᵀP + PF) − R, which converges to P* since −F is Hurwitz).
    Singular Σ₀ are not covered: rank is invariant.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I and a drift F with −F Hurwitz.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", EVERY_PD, {"Sigma_star": P*⁻¹, "alpha_star"?}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ≺ 0, FᵀP* + P*F = −R, P* ≻ 0, the anti-Hurwitz witness X (FᵀX + XF ≻ 0) or the mean part
        fails exactly.
    """
    _check_equilibrium(cert, problem)
    P = qmat(cert.data["P_star"])
    S = P.inv()
    params = {"Sigma_star": [[frac_str(S[i, j]) for j in range(S.ncols())] for i in range(S.nrows())]}
    if "mean" in cert.data:
        params["alpha_star"] = [frac_str(rational(x)) for x in cert.data["mean"]["alpha_star"]]
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.EVERY_PD, params)


def _check_equilibrium(cert, problem):
    name = "equilibrium-drift-vI"
    d, v, R, F, _, _ = vI_setup(name, cert, problem)
    P = square(name, "P*", qmat(cert.data["P_star"]), d)
    X = square(name, "X", qmat(cert.data["X"]), d)
    if not definiteness(R).nd:
        refuse(f"{name} certificate: R = v(A + Aᵀ) is not negative definite")
    if F.transpose() * P + P * F != -R:
        refuse(f"{name} certificate: P* does not solve FᵀP* + P*F = −R")
    L = F.transpose() * X + X * F
    if X != X.transpose() or not definiteness(X).pd or not definiteness(L).pd:
        refuse(f"{name} certificate: X does not certify that F is anti-Hurwitz (need X ≻ 0, FᵀX + XF ≻ 0)")
    # a consequence of the three checks above (P* = ∫₀^∞e^{−Fᵀs}(−R)e^{−Fs}ds); kept as a guard for P*⁻¹
    if P != P.transpose() or not definiteness(P).pd:
        refuse(f"{name} certificate: P* is not symmetric positive definite")
    if "mean" in cert.data:  # M* = F + vI + vΣ*A Hurwitz: Y ≻ 0 with M*ᵀY + YM* ≺ 0; α* = −M*⁻¹b
        n = d
        I = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
        A = single_quadratic_head(problem)[1]
        M = F + I * v + P.inv() * A * v
        Y = square(name, "Y", qmat(cert.data["mean"]["Y"]), d)
        if Y != Y.transpose() or not definiteness(Y).pd or not definiteness(-(M.transpose() * Y + Y * M)).pd:
            refuse(f"{name} certificate: Y does not certify that the mean's matrix M* = F + vI + vΣ*A is Hurwitz")
        b = problem.exact.b if problem.b is not None else flint.fmpq_mat(n, 1)
        if len(cert.data["mean"]["alpha_star"]) != n:
            refuse(f"{name} certificate: α* is not a vector of length {n}")
        a_star = qmat([[x] for x in cert.data["mean"]["alpha_star"]])
        if M * a_star + b != flint.fmpq_mat(n, 1):
            refuse(f"{name} certificate: α* is not the mean's equilibrium −M*⁻¹b (M*α* + b ≠ 0)")
