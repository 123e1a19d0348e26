"""Checker of the certificate kind ``blowup-riccati-vI``.

This Σ₀ blows up at T* ∈ [T_lo, T_hi]: X(t) = D⁻¹ − BᵀW(t)B is positive definite up to T_lo and not
at T_hi.

The hypotheses shared by the V = vI kinds, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

import flint

from ....exact.ball import ball_pd
from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from ....exact.rational import frac_str
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import (CONSTANT_PARAMETERS, FACTOR_SCHEMA, FORGERIES, ONE_SOFTMAX_HEAD, SIGMA0_FACTOR,
                       SIGMA0_GIVEN, V_SCALAR, W_enclosure, X_centred_enclosure, ball_matrix, check_factor, is_zero,
                       rational, refuse, vI_setup)

BLOWUP_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, SIGMA0_GIVEN, SIGMA0_FACTOR,
    Hypothesis("sigma0-nonzero", "r ≥ 1, i.e. Σ₀ ≠ 0: Σ ≡ 0 is an equilibrium and does not blow up.",
               FORGERIES + "test_blowup_riccati_sigma0_zero"),
    Hypothesis("bracket-order", "0 < T_lo ≤ T_hi.", FORGERIES + "test_blowup_riccati_bracket_order"),
    Hypothesis("pd-up-to-T_lo-no-drift", "F = 0: W(t) = tR, so X(t) = D⁻¹ − t·BᵀRB is affine in t with X(0) = D⁻¹ ≻ 0; "
               "X(T_lo) ≻ 0 makes X ≻ 0 on [0, T_lo], hence T* > T_lo.", FORGERIES + "test_blowup_riccati_not_pd_at_T_lo"),
    Hypothesis("g-branch-needs-fI", "The G_lo/G_hi argument needs F = f·I (then W(t) = g(t)R with the scalar "
               "g(t) = ∫₀ᵗe^{2fs}ds); G_lo and G_hi are given together.", FORGERIES + "test_blowup_riccati_G_needs_scalar_F"),
    Hypothesis("g-bounds", "F = f·I: G_lo ≥ g(T_lo) and G_hi ≤ g(T_hi), decided with arb balls.",
               FORGERIES + "test_blowup_riccati_G_bounds"),
    Hypothesis("pd-up-to-T_lo-fI", "F = f·I: D⁻¹ − G_lo·BᵀRB ≻ 0; g increases from g(0) = 0, so X(t) lies on the "
               "segment from D⁻¹ to D⁻¹ − G_lo·BᵀRB for t ∈ [0, T_lo] and stays ≻ 0.", FORGERIES + "test_blowup_riccati_G_lo_not_pd"),
    Hypothesis("partition", "General F: the partition increases from 0 to T_lo and on each of its pieces the ball "
               "enclosure of X(t) (Van Loan block exponential) is positive definite, or, with the optional rational "
               "frame U, the mean-value enclosure UᵀX(m)U + [−h/2, h/2]·UᵀX′(piece)U (X′ = −Bᵀe^{Fᵀt}Re^{Ft}B) is, "
               "so X ≻ 0 on [0, T_lo].", FORGERIES + "test_blowup_riccati_partition"),
    Hypothesis("frame-invertible", "The optional frame U is an r×r rational matrix with det U ≠ 0 (exactly), so "
               "UᵀXU ≻ 0 ⟺ X ≻ 0; it is given only with a partition.", FORGERIES + "test_blowup_riccati_frame"),
    Hypothesis("witness-at-T_hi", "A rational w ≠ 0 of length r with wᵀX(T_hi)w ≤ 0 (F = 0: exactly; F = f·I: "
               "wᵀBᵀRBw > 0 and wᵀ(D⁻¹ − G_hi·BᵀRB)w ≤ 0; general F: < 0 in balls), so X is not ≻ 0 at T_hi and "
               "the first singular time T* is ≤ T_hi.", FORGERIES + "test_blowup_riccati_witness_at_T_hi"),
)


# alike in shape to blowup-taylor-lmi's checker (a check, then the stored bracket's claim): the proofs differ
@kind("blowup-riccati-vI", {**FACTOR_SCHEMA, "T_lo": "rat", "T_hi": "rat", "witness": "rat[]", "partition?": "rat[]",
                             "frame?": "rat[][]", "G_lo?": "rat", "G_hi?": "rat"}, hypotheses=BLOWUP_HYPOTHESES)
def check_blowup(cert, problem):
    """PROVED: this Σ₀ blows up at T* ∈ [T_lo, T_hi].

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When 0 < T_lo ≤ T_hi, D⁻¹ − T_lo·BᵀRB ≻ 0 or the witness that D⁻¹ − T_hi·BᵀRB is not ≻ 0 fails.
    """
    _check_blowup(cert, problem)
    lo, hi = rational(cert.data["T_lo"]), rational(cert.data["T_hi"])
    return "PROVED", Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(lo), "T_hi": frac_str(hi)})


def _check_blowup(cert, problem):
    name = "blowup-riccati-vI"
    d, v, R, F, B, D = vI_setup(name, cert, problem)
    Dinv = check_factor(name, problem, B, D, zero="Σ ≡ 0 is an equilibrium, it does not blow up")
    lo, hi = rational(cert.data["T_lo"]), rational(cert.data["T_hi"])
    if not (0 < lo <= hi):
        refuse(f"{name} certificate: the bracket needs 0 < T_lo ≤ T_hi")
    w = [rational(x) for x in cert.data["witness"]]
    if len(w) != len(D) or all(x == 0 for x in w):
        refuse(f"{name} certificate: the witness at T_hi must be a nonzero vector of length r = {len(D)}")
    wm = flint.fmpq_mat(len(w), 1, w)
    if is_zero(F):
        _no_frame(name, cert)
        N = B.transpose() * R * B
        X_lo = Dinv - N * lo
        if not definiteness(X_lo).pd:  # affine in t and X(0) = D⁻¹ ≻ 0: PD on [0, T_lo]
            refuse(f"{name} certificate: X(T_lo) = D⁻¹ − T_lo·BᵀRB is not positive definite (no drift)")
        val = (wm.transpose() * (Dinv - N * hi) * wm)[0, 0]
        if val > 0:
            refuse(f"{name} certificate: the witness at T_hi does not show that D⁻¹ − T_hi·BᵀRB is singular or indefinite")
        return
    f = F[0, 0]
    if "G_lo" in cert.data or "G_hi" in cert.data:
        # F = fI: X(t) = D⁻¹ − g(t)N, g(t) = ∫₀ᵗe^{2fs}ds increasing from 0; PD at D⁻¹ and at
        # D⁻¹ − G_lo·N with G_lo ≥ g(T_lo) ⇒ PD on [0, T_lo] (convex segment); wᵀNw > 0 and
        # wᵀ(D⁻¹ − G_hi·N)w ≤ 0 with G_hi ≤ g(T_hi) ⇒ X(T_hi) is not PD.
        if any(F[i, j] != (f if i == j else 0) for i in range(d) for j in range(d)):
            refuse(f"{name} certificate: the G_lo/G_hi bracket needs F = f·I")
        _no_frame(name, cert)
        if "G_lo" not in cert.data or "G_hi" not in cert.data:
            refuse(f"{name} certificate: the G_lo/G_hi bracket needs both G_lo and G_hi")
        G_lo, G_hi = rational(cert.data["G_lo"]), rational(cert.data["G_hi"])
        with working_precision(256):
            def g(t):
                tb = flint.arb(t)
                return tb if f == 0 else (flint.arb(2 * f) * tb).expm1() / flint.arb(2 * f)
            if not (g(lo) <= flint.arb(G_lo)):
                refuse(f"{name} certificate: G_lo is not ≥ g(T_lo) = ∫₀^T_lo e^(2fs)ds")
            if not (g(hi) >= flint.arb(G_hi)):
                refuse(f"{name} certificate: G_hi is not ≤ g(T_hi) = ∫₀^T_hi e^(2fs)ds")
        N = B.transpose() * R * B
        if not definiteness(Dinv - N * G_lo).pd:
            refuse(f"{name} certificate: D⁻¹ − G_lo·BᵀRB is not positive definite (F = f·I)")
        if not (wm.transpose() * N * wm)[0, 0] > 0 or (wm.transpose() * (Dinv - N * G_hi) * wm)[0, 0] > 0:
            refuse(f"{name} certificate: the witness at T_hi does not show that X(T_hi) is not positive definite "
                  "(need wᵀBᵀRBw > 0 and wᵀ(D⁻¹ − G_hi·BᵀRB)w ≤ 0)")
        return
    part = [rational(x) for x in cert.data.get("partition", [])]
    if len(part) < 2 or part[0] != 0 or part[-1] != lo or any(b <= a for a, b in zip(part, part[1:])):
        refuse(f"{name} certificate: the partition must increase from 0 to T_lo (general F)")
    U = _frame(name, cert, len(D))
    Bb, Db = ball_matrix(B), ball_matrix(Dinv)
    for a, b in zip(part, part[1:]):
        t = flint.arb((a + b) / 2, flint.arb((b - a) / 2).upper())
        X = Db - Bb.transpose() * W_enclosure(F, R, t) * Bb
        # either enclosure contains X on the piece; the centred one (in the frame) is the tight one near T*
        if ball_pd(X) is not True and (U is None or ball_pd(X_centred_enclosure(F, R, B, Dinv, a, b, U)) is not True):
            refuse(f"{name} certificate: X(t) is not certified positive definite on the partition piece [{a}, {b}]")
    X = Db - Bb.transpose() * W_enclosure(F, R, flint.arb(hi)) * Bb
    wb = ball_matrix(wm)
    if not (wb.transpose() * X * wb)[0, 0] < 0:
        refuse(f"{name} certificate: the witness at T_hi does not certify that X(T_hi) is indefinite")


def _no_frame(name, cert):
    if "frame" in cert.data:
        refuse(f"{name} certificate: a frame is given only with a partition (general F)")


def _frame(name, cert, r):
    """The optional frame U as an exact r×r matrix with det U ≠ 0, or None."""
    if "frame" not in cert.data:
        return None
    rows = cert.data["frame"]
    if len(rows) != r or any(len(row) != r for row in rows):
        refuse(f"{name} certificate: the frame must be an r×r matrix, r = {r}")
    U = flint.fmpq_mat(r, r, [rational(x) for row in rows for x in row])
    if U.det() == 0:
        refuse(f"{name} certificate: the frame is singular (det U = 0)")
    return U
