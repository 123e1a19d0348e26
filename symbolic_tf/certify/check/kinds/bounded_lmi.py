"""Checker of the certificate kind ``bounded-lmi``.

P ≻ 0 with q_P ⪯ 0: tr(PΣ) does not increase, so every Σ₀ ⪰ 0 has a bounded global solution.

The problem class, P ≻ 0 and the quadratic form q_P live in :mod:`symbolic_tf.certify.check.lmi`.
"""
from __future__ import annotations

from ....exact.definiteness import inertia
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..lmi import (DRIFT_FREE_QUADRATIC, FORGERIES, P_POSITIVE_DEFINITE, lmi_start, refuse, trace_qform)

BOUNDED_HYPOTHESES = (
    DRIFT_FREE_QUADRATIC, P_POSITIVE_DEFINITE,
    Hypothesis("Q-nsd", "Q_P ⪯ 0 on the svec coordinates, so d/dt tr(PΣ) = q_P(Σ) ≤ 0 for every symmetric Σ.",
               FORGERIES + "test_bounded_lmi_Q_not_nsd"),
)


@kind("bounded-lmi", {"P": "rat[][]"}, hypotheses=BOUNDED_HYPOTHESES)
def check_bounded(cert, problem):
    """PROVED: for every Σ₀ ⪰ 0, Σ(t) exists for all t and stays bounded (tr(PΣ) is
    non-increasing since q_P ⪯ 0).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (quadratic flow without drift).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED", EVERY_PSD, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When P ≻ 0 or q_P ⪯ 0 fails exactly.
    """
    _check_bounded(cert, problem)
    return "PROVED", Claim("BOUNDED", Quantifier.EVERY_PSD, {})


def _check_bounded(cert, problem):
    kind = "bounded-lmi"
    heads, d, P = lmi_start(kind, cert, problem)
    Qm = trace_qform(P, heads, d)
    pos, _, _ = inertia(Qm)
    if pos:
        refuse(f"{kind} certificate: Q_P is not negative semidefinite ({pos} positive eigenvalue(s))")
