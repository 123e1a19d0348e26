"""Checker of the certificate kind ``blowup-lmi``.

P ≻ 0 with q_P ≥ c·tr(PΣ)²: every nonzero Σ₀ ⪰ 0 blows up; with a bracket, this Σ₀ at T* ∈ [T_lo,
T_hi].

The problem class, P ≻ 0 and the quadratic form q_P live in :mod:`symbolic_tf.certify.check.lmi`.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import inertia
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..lmi import (DRIFT_FREE_QUADRATIC, FORGERIES, P_POSITIVE_DEFINITE, frobenius_sq, lmi_start, rational, refuse,
                   svec_weights, trace_qform)

BLOWUP_HYPOTHESES = (
    DRIFT_FREE_QUADRATIC, P_POSITIVE_DEFINITE,
    Hypothesis("c-positive", "c > 0.", FORGERIES + "test_blowup_lmi_c_not_positive"),
    Hypothesis("schur", "Q_P − c·ppᵀ ⪰ 0 (p = svec weights of P), i.e. q_P(Σ) ≥ c·tr(PΣ)² for every symmetric Σ; "
               "with y = tr(PΣ) this gives ẏ ≥ c·y².", FORGERIES + "test_blowup_lmi_schur_fails"),
    Hypothesis("sigma0-nonzero", "For a bracket (T_lo or T_hi, either alone): the problem has Σ₀ and y₀ = tr(PΣ₀) > 0, "
               "i.e. Σ₀ ≠ 0 — without it Σ ≡ 0 is an equilibrium and nothing blows up.",
               FORGERIES + "test_blowup_lmi_T_lo_alone_on_sigma0_zero"),
    Hypothesis("T_hi", "T_hi ≥ 1/(c·y₀): the comparison ẏ ≥ c·y² forces blow-up by then.",
               FORGERIES + "test_blowup_lmi_T_hi_too_small"),
    Hypothesis("norm-bounds", "u_V,h ≥ ‖C_h‖_F, u_A,h ≥ ‖A_h‖_F (one per head) and u_Σ ≥ ‖Σ₀‖_F, all ≥ 0.",
               FORGERIES + "test_blowup_lmi_norm_bound_too_small"),
    Hypothesis("T_lo", "0 < T_lo ≤ 1/(u_Σ·Σ_h 2u_V,h·u_A,h): ‖Σ‖_F obeys ẋ ≤ Kx², so it is finite before 1/(K‖Σ₀‖_F).",
               FORGERIES + "test_blowup_lmi_T_lo_too_large"),
)


@kind("blowup-lmi", {"P": "rat[][]", "c": "rat", "T_hi?": "rat", "T_lo?": "rat", "u_V?": "rat[]",
                     "u_A?": "rat[]", "u_Sigma?": "rat"}, hypotheses=BLOWUP_HYPOTHESES)
def check_blowup(cert, problem):
    """PROVED: every Σ₀ ⪰ 0, Σ₀ ≠ 0 blows up (q_P ≥ c·tr(PΣ)², P ≻ 0); with a bracket, this
    Σ₀ blows up at T* ∈ [T_lo, T_hi].

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (quadratic flow without drift; Σ₀ for a bracket).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))`` with a bracket, else
        ``("PROVED", Claim("BLOWUP", EVERY_NONZERO, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When P ≻ 0, c > 0 or Q_P − c·ppᵀ ⪰ 0 (so q_P ≥ c·tr(PΣ)²) fails, or the stored bracket
        is not implied.
    """
    from ....exact.rational import frac_str

    _check_blowup(cert, problem)
    params = {k: frac_str(rational(cert.data[k])) for k in ("T_lo", "T_hi") if k in cert.data}
    if params:
        return "PROVED", Claim("BLOWUP", Quantifier.THIS, params)
    return "PROVED", Claim("BLOWUP", Quantifier.EVERY_NONZERO, {})


def _check_blowup(cert, problem):
    kind = "blowup-lmi"
    heads, d, P = lmi_start(kind, cert, problem)
    data = cert.data
    c = rational(data["c"])
    if not c > 0:
        refuse(f"{kind} certificate: c must be positive")
    Qm = trace_qform(P, heads, d)
    p = svec_weights(P, d)
    m = len(p)
    M = flint.fmpq_mat(m, m, [Qm[k, l] - c * p[k] * p[l] for k in range(m) for l in range(m)])
    neg = inertia(M)[1]
    if neg:
        refuse(f"{kind} certificate: Q_P − c·ppᵀ is not positive semidefinite ({neg} negative eigenvalue(s))")
    T_hi = T_lo = None
    if "T_hi" in data or "T_lo" in data:
        # any bracket is about this Σ₀: it must blow up at all (y₀ = tr(PΣ₀) > 0), T_lo alone included
        if problem.cov is None:
            refuse(f"{kind} certificate: a T* bracket is given but the problem has no initial covariance")
        S0 = problem.exact.Sigma0
        tr = sum((P[i, j] * S0[j, i] for i in range(d) for j in range(d)), flint.fmpq(0))
        if not tr > 0:
            refuse(f"{kind} certificate: tr(PΣ₀) = {tr} is not positive (Σ₀ = 0 does not blow up)")
    if "T_hi" in data:
        T_hi = rational(data["T_hi"])
        if T_hi < 1 / (c * tr):
            refuse(f"{kind} certificate: T_hi = {T_hi} is below 1/(c·tr(PΣ₀)) = {1 / (c * tr)}")
    if "T_lo" in data:
        uV = [rational(x) for x in data["u_V"]]
        uA = [rational(x) for x in data["u_A"]]
        uS = rational(data["u_Sigma"])
        if len(uV) != len(heads) or len(uA) != len(heads):
            refuse(f"{kind} certificate: u_V and u_A need one bound per head ({len(heads)})")
        for name, u, Mx in ([("u_V", u, C) for u, (C, _) in zip(uV, heads)]
                            + [("u_A", u, A) for u, (_, A) in zip(uA, heads)] + [("u_Sigma", uS, S0)]):
            if u < 0 or u * u < frobenius_sq(Mx):
                refuse(f"{kind} certificate: {name} = {u} is not an upper bound of the Frobenius norm")
        K = sum((2 * a * b for a, b in zip(uV, uA)), flint.fmpq(0)) * uS
        T_lo = rational(data["T_lo"])
        if not T_lo > 0:
            refuse(f"{kind} certificate: T_lo must be positive")
        if K * T_lo > 1:
            refuse(f"{kind} certificate: T_lo = {T_lo} exceeds the norm bound 1/(u_Σ Σ 2u_V u_A) = {1 / K}")
    if T_lo is not None and T_hi is not None and T_lo > T_hi:
        refuse(f"{kind} certificate: T_lo > T_hi")
