"""Checker of ``no-blowup`` certificates (Sinkhorn and ℓ2 growth bounds), and the exact growth
rate shared with ``exponential-growth-theorem`` (:mod:`symbolic_tf.certify.check.kinds.exponential_growth_theorem`)."""
from __future__ import annotations

from fractions import Fraction

import flint

from ....exact.definiteness import definiteness
from ....exact.rational import fmpq_of, parse_frac
from ....spec.errors import CertificationFailed
from ..flows import growth_bound_of
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier

__all__ = ["check_no_blowup", "growth_rate", "bound_hypotheses"]


def bound_hypotheses(test_file: str) -> tuple:
    """The hypotheses of the norm-growth argument ‖Σ̇‖₂ ≤ γ‖Σ‖₂ shared by ``no-blowup`` and
    ``exponential-growth-theorem``; ``test_file`` holds the forgery tests (same test names).

    Parameters
    ----------
    test_file : str
        The forgery test file's name under tests/soundness/forgeries/.

    Returns
    -------
    tuple of Hypothesis
        The shared hypotheses.
    """
    t = f"tests/soundness/forgeries/{test_file}::"
    return (
        Hypothesis("growth-variant", "The problem is single-head Sinkhorn (the whitened cross-covariance of the "
                   "self-coupling is a contraction, so ‖Σ̇‖₂ ≤ 2‖V‖₂‖Σ‖₂) or ℓ2 (Σ(I + 2GΣ)⁻¹ ⪯ (2G)⁻¹ for "
                   "G = τKᵀK ≻ 0), each with or without the affine drift Fx + b; softmax, linear and multi-head "
                   "flows have no such bound (they can blow up).", t + "test_variant_without_growth_bound"),
        Hypothesis("constant-parameters", "The parameters do not depend on depth t (γ is computed from one set "
                   "of matrices).", t + "test_schedule"),
        Hypothesis("u-V", "u_V ≥ ‖V‖_F ≥ ‖V‖₂, checked as u_V ≥ 0 and u_V² ≥ Σ V_ij².", t + "test_u_V_too_small"),
        Hypothesis("u-F", "u_F ≥ 0 and, with a drift, u_F ≥ ‖F‖_F (the term 2‖F‖₂ of ‖FΣ + ΣFᵀ‖₂ ≤ 2‖F‖₂‖Σ‖₂).",
                   t + "test_drift_not_bounded"),
        Hypothesis("l2-data", "The ℓ2 bound needs both u_A and g (Sinkhorn needs neither).", t + "test_l2_data_dropped"),
        Hypothesis("u-A", "ℓ2: u_A ≥ ‖A‖_F (A = KᵀQ, the temperature τ kept apart).", t + "test_u_A_too_small"),
        Hypothesis("g-lower", "ℓ2: 0 < g ≤ λ_min(τKᵀK), checked as τKᵀK − gI ⪰ 0 exactly (K of full column rank).",
                   t + "test_g_too_large"),
        Hypothesis("gamma", "γ equals the rate the bounds prove: 2(u_V + u_F) for Sinkhorn, 2τu_Vu_A/g + 2u_F for ℓ2; "
                   "then Grönwall gives ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂e^(γt) and a global solution from every Σ₀ ⪰ 0.",
                   t + "test_gamma_too_small"),
    )


HYPOTHESES = bound_hypotheses("test_growth.py")


def _sq(M):
    return sum((Fraction(e) ** 2 for row in M for e in row), Fraction(0))


def _upper(u, M, name, who):
    u = parse_frac(u)
    if u < 0 or u * u < _sq(M):
        raise CertificationFailed(f"{who}: u_{name} is not an upper bound of ‖{name}‖_F")
    return u


def growth_rate(d, problem, who: str) -> Fraction:
    """The rate γ that the stored bounds prove, exactly: u ≥ ‖·‖_F for V, A, F (u² ≥ Σ entries²),
    g ≤ λ_min(τKᵀK) (τKᵀK − gI ⪰ 0); γ = 2(u_V + u_F) (Sinkhorn), 2τu_Vu_A/g + 2u_F (ℓ2).

    Parameters
    ----------
    d : dict
        The certificate's data: ``u_V``, ``u_F`` (and ``u_A``, ``g`` for ℓ2).
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem (V, F, A, K, scale).
    who : str
        The kind's name, for the failure messages.

    Returns
    -------
    fractions.Fraction
        γ = 2(u_V + u_F) (Sinkhorn) or 2τu_Vu_A/g + 2u_F (ℓ2), once every bound is checked exactly.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a bound does not hold or the variant declares no growth bound.
    """
    bound = growth_bound_of(problem)  # first: V, A, K are read only for a variant with a bound
    if bound not in ("coupling", "inverse-kernel"):
        raise CertificationFailed(f"{who}: no growth theorem for variant {problem.variant!r}")
    if parse_frac(d["u_F"]) < 0:
        raise CertificationFailed(f"{who}: u_F must be non-negative (an upper bound of ‖F‖_F)")
    uF = _upper(d["u_F"], problem.F, "F", who) if problem.F is not None else parse_frac(d["u_F"])
    uV = _upper(d["u_V"], problem.V, "V", who)
    if bound == "coupling":
        return 2 * (uV + uF)
    if bound == "inverse-kernel":
        if "u_A" not in d or "g" not in d:
            raise CertificationFailed(f"{who}: the ℓ2 bound needs u_A and g")
        uA = _upper(d["u_A"], problem.A, "A", who)
        g = parse_frac(d["g"])
        n = problem.d
        G = problem.exact.K.transpose() * problem.exact.K * fmpq_of(problem.scale)
        gI = flint.fmpq_mat(n, n, [fmpq_of(g) if i == j else 0 for i in range(n) for j in range(n)])
        if g <= 0 or not definiteness(G - gI).psd:
            raise CertificationFailed(f"{who}: g is not a positive lower bound of λ_min(τKᵀK)")
    return 2 * uV * uA * Fraction(problem.scale) / g + 2 * uF


@kind("no-blowup", {"u_V": "rat", "u_F": "rat", "gamma": "rat", "u_A?": "rat", "g?": "rat"}, hypotheses=HYPOTHESES)
def check_no_blowup(cert, problem):
    """PROVED: every Σ₀ ⪰ 0 has a global solution with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (Sinkhorn, or ℓ2 with KᵀK ≻ 0).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("GLOBAL_EXISTENCE", EVERY_PSD, {"gamma": γ}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the problem is missing or γ is not the rate the bounds prove (:func:`growth_rate`).
    """
    from ....exact.rational import frac_str

    if problem is None:
        raise CertificationFailed("no-blowup: needs the embedded problem")
    gamma = growth_rate(cert.data, problem, "no-blowup")
    if parse_frac(cert.data["gamma"]) != gamma:
        raise CertificationFailed(f"no-blowup: the growth rate γ = {frac_str(cert.data['gamma'])} does not "
                                  f"follow from the bounds (they prove γ = {frac_str(gamma)})")
    return "PROVED", Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": frac_str(cert.data["gamma"])})
