"""Checker of the certificate kind ``bounded-drift-vI-nsd``.

R ⪯ 0 and a non-expanding X-norm: every Σ₀ ⪰ 0 has a bounded global solution.

The hypotheses shared by the V = vI kinds, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

from ....exact.definiteness import definiteness
from ....exact.rational import qmat
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import FORGERIES, NSD_HYPOTHESES, nsd_setup, refuse

BOUNDED_HYPOTHESES = (
    *NSD_HYPOTHESES,
    Hypothesis("X-pd", "X is a symmetric d×d matrix with X ≻ 0, so tr(XΣ) bounds ‖Σ‖ on Σ ⪰ 0.",
               FORGERIES + "test_bounded_drift_X_not_pd"),
    Hypothesis("X-nonexpanding", "FᵀX + XF ⪯ 0: e^{Fᵀt}Xe^{Ft} ⪯ X, so tr(XΣ(t)) ≤ tr(Xe^{Ft}Σ₀e^{Fᵀt}) ≤ tr(XΣ₀).",
               FORGERIES + "test_bounded_drift_F_expands"),
)


@kind("bounded-drift-vI-nsd", {"v": "rat", "X": "rat[][]"}, hypotheses=BOUNDED_HYPOTHESES)
def check_bounded_nsd(cert, problem):
    """PROVED: with V = vI, R = v(A + Aᵀ) ⪯ 0 and X ≻ 0, FᵀX + XF ⪯ 0, every Σ₀ ⪰ 0 has a
    global solution with tr(XΣ(t)) ≤ tr(XΣ₀): Σ(t) ⪯ e^{Ft}Σ₀e^{Fᵀt} and e^{Fᵀt}Xe^{Ft} ⪯ X.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I (drift or not).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED", EVERY_PSD, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ⪯ 0, X ≻ 0 or FᵀX + XF ⪯ 0 fails exactly.
    """
    name = "bounded-drift-vI-nsd"
    d, F = nsd_setup(name, cert, problem)
    X = qmat(cert.data["X"])
    if X.nrows() != d or X.ncols() != d or X != X.transpose() or not definiteness(X).pd:
        refuse(f"{name} certificate: X is not a symmetric positive definite {d}×{d} matrix")
    if not definiteness(-(F.transpose() * X + X * F)).psd:
        refuse(f"{name} certificate: FᵀX + XF is not negative semidefinite (e^(Ft) may expand the X-norm)")
    return "PROVED", Claim("BOUNDED", Quantifier.EVERY_PSD, {})
