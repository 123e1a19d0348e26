"""Checker of the certificate kind ``bounded-riccati-vI``.

V = vI with any drift F: an exact M ≻ 0 with FᵀM + MF + R ⪯ 0 and Σ₀ ≺ M⁻¹ keeps Σ(t) ⪯ M⁻¹ for all t,
so this Σ₀'s solution is global and bounded.

The argument (docs/mathematics.md §6, "A sublevel set of the linear flow"): for Σ ≻ 0, P = Σ⁻¹ solves the
linear Ṗ = −(FᵀP + PF) − R.  Z = P − M then solves Ż = −(FᵀZ + ZF) + C with the constant
C = −(FᵀM + MF) − R ⪰ 0, so by variation of constants

    Z(t) = e^{−Fᵀt}Z(0)e^{−Ft} + ∫₀ᵗ e^{−Fᵀ(t−s)}Ce^{−F(t−s)}ds ⪰ 0

as long as Z(0) ⪰ 0: P(t) ⪰ M ≻ 0, i.e. Σ(t) ⪯ M⁻¹ on the whole existence interval.  A polynomial ODE
whose solution stays bounded exists for all t.  A singular Σ₀ ≺ M⁻¹ is the limit of Σ₀ + εI ≺ M⁻¹ (ε → 0),
whose solutions all stay in {0 ⪯ Σ ⪯ M⁻¹}; by continuous dependence on Σ₀ over each [0, T] so does its own.

The hypotheses shared by the V = vI kinds live in :mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

from ....exact.definiteness import definiteness
from ....exact.rational import qmat
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import CONSTANT_PARAMETERS, FORGERIES, ONE_SOFTMAX_HEAD, SIGMA0_GIVEN, V_SCALAR, refuse, vI_setup

BOUNDED_RICCATI_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, SIGMA0_GIVEN,
    Hypothesis("M-pd", "M is a symmetric d×d rational matrix with M ≻ 0 (exactly), so M⁻¹ exists and the set "
               "{Σ ⪰ 0 : Σ ⪯ M⁻¹} is bounded.", FORGERIES + "test_bounded_riccati_M_not_pd"),
    Hypothesis("M-supersolution", "C = −(FᵀM + MF) − R ⪰ 0 (exactly): the linear flow of P = Σ⁻¹ moves P − M by a "
               "congruence plus the integral of congruences of C, so P(t) − M stays ⪰ 0.",
               FORGERIES + "test_bounded_riccati_not_supersolution"),
    Hypothesis("sigma0-below", "M⁻¹ − Σ₀ ≻ 0 (exactly): the solution starts inside {Σ ⪯ M⁻¹} (strictly, so a "
               "singular Σ₀ is a limit of Σ₀ + εI inside it).", FORGERIES + "test_bounded_riccati_sigma0_above"),
)


@kind("bounded-riccati-vI", {"v": "rat", "M": "rat[][]"}, hypotheses=BOUNDED_RICCATI_HYPOTHESES)
def check_bounded_riccati(cert, problem):
    """PROVED: with V = vI, M ≻ 0, FᵀM + MF + R ⪯ 0 (R = v(Ã + Ãᵀ)) and Σ₀ ≺ M⁻¹, the solution from this Σ₀
    is global and Σ(t) ⪯ M⁻¹ for all t ≥ 0.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, a drift F (or none) and Σ₀.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED", THIS, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When M ≻ 0, −(FᵀM + MF) − R ⪰ 0 or M⁻¹ − Σ₀ ≻ 0 fails exactly.
    """
    name = "bounded-riccati-vI"
    d, _, R, F, _, _ = vI_setup(name, cert, problem)
    if problem.cov is None:  # a non-Gaussian initial law: no Σ₀ for a claim about this Σ₀
        refuse(f"{name} certificate: the embedded problem states no Gaussian Σ₀")
    M = qmat(cert.data["M"])
    if M.nrows() != d or M.ncols() != d or M != M.transpose() or not definiteness(M).pd:
        refuse(f"{name} certificate: M is not a symmetric positive definite {d}×{d} matrix")
    if not definiteness(-(F.transpose() * M + M * F) - R).psd:
        refuse(f"{name} certificate: FᵀM + MF + R is not negative semidefinite (P − M may leave the PSD cone)")
    if not definiteness(M.inv() - problem.exact.Sigma0).pd:
        refuse(f"{name} certificate: M⁻¹ − Σ₀ is not positive definite (Σ₀ does not start below M⁻¹)")
    return "PROVED", Claim("BOUNDED", Quantifier.THIS, {})
