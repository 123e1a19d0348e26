"""Checker of the certificate kind ``growth-drift-vI-nsd``.

R ⪯ 0: every Σ₀ ⪰ 0 has a global solution growing at most like e^{γt}, γ = 2u_F.

The hypotheses shared by the V = vI kinds, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

import flint

from ....exact.rational import frac_str
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import FORGERIES, NSD_HYPOTHESES, nsd_setup, rational, refuse

GROWTH_HYPOTHESES = (
    *NSD_HYPOTHESES,
    Hypothesis("uF-bound", "u_F ≥ 0 and u_F² ≥ ‖F‖_F², so ‖e^{Ft}‖₂ ≤ e^{‖F‖₂t} ≤ e^{u_F·t}.",
               FORGERIES + "test_growth_drift_uF_not_a_bound"),
    Hypothesis("gamma", "γ = 2u_F: ‖Σ(t)‖₂ ≤ ‖e^{Ft}‖₂²‖Σ₀‖₂ ≤ ‖Σ₀‖₂e^{γt}.", FORGERIES + "test_growth_drift_gamma_not_2uF"),
)


@kind("growth-drift-vI-nsd", {"v": "rat", "u_F": "rat", "gamma": "rat"}, hypotheses=GROWTH_HYPOTHESES)
def check_growth_nsd(cert, problem):
    """PROVED: with V = vI and R = v(A + Aᵀ) ⪯ 0, every Σ₀ ⪰ 0 has a global solution with
    ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂ e^{γt}, γ = 2u_F ≥ 2‖F‖_F.

    W(t) = ∫₀ᵗ e^{Fᵀs}Re^{Fs}ds ⪯ 0, so X(t) = D⁻¹ − BᵀW(t)B ⪰ D⁻¹ ≻ 0 never degenerates and
    Σ(t) = e^{Ft}BX(t)⁻¹Bᵀe^{Fᵀt} ⪯ e^{Ft}Σ₀e^{Fᵀt}.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I (drift or not).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("GLOBAL_EXISTENCE", EVERY_PSD, {"gamma": γ}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ⪯ 0 fails, u_F < ‖F‖_F, or γ ≠ 2u_F.
    """
    name = "growth-drift-vI-nsd"
    d, F = nsd_setup(name, cert, problem)
    uF = rational(cert.data["u_F"])
    if uF < 0 or uF * uF < sum((F[i, j] ** 2 for i in range(d) for j in range(d)), flint.fmpq(0)):
        refuse(f"{name} certificate: u_F is not an upper bound of ‖F‖_F")
    gamma = rational(cert.data["gamma"])
    if gamma != 2 * uF:
        refuse(f"{name} certificate: γ must be 2·u_F")
    return "PROVED", Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": frac_str(gamma)})
