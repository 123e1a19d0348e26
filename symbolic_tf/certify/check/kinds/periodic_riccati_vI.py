"""Checker of the certificate kind ``periodic-riccati-vI``.

V = vI and a drift F = aI + S with S skew (S ≠ 0, d ≤ 3): e^{St} is periodic with one period
τ = 2π/ω (ω² = Σ_{i<j} S_ij²), so one period of X(t) = D⁻¹ − BᵀW(t)B decides every later one.
With q = e^{2aτ} and N = −BᵀW(τ)B, W(kτ + s) = (1 + q + … + q^{k−1})W(τ) + q^k W(s), hence

    X(kτ + s) = X(s) + (q^k − 1)·K(s),   K(s) = N/(q − 1) − BᵀW(s)B      (a ≠ 0)
    X(kτ + s) = X(s) + k·N                                               (a = 0)

for s ∈ [0, τ], k = 0, 1, 2, …  Certified on a partition of [0, τ] (as fractions of τ) in balls:
X ≻ 0 on every piece, and

* a = 0: N ≻ 0 — X(t) grows without bound, Σ(t) = e^{St}BX(t)⁻¹Bᵀe^{Sᵀt} → 0 (CLUSTERING, rank 0);
* a < 0: X_∞ = D⁻¹ + N/(1 − q) ≻ 0 — X(kτ + s) = q^k X(s) + (1 − q^k)X_∞ is a convex combination of
  positive definite matrices, so X⁻¹ stays bounded while e^{2at} → 0: Σ(t) → 0 (CLUSTERING, rank 0);
* a > 0: K ≻ 0 on every piece — X(kτ + s) ⪰ (q^k − 1)K(s), so ‖Σ‖ ≤ q^k e^{2as}‖B‖²/((q^k − 1)λ_min K)
  stays bounded (BOUNDED; Σ approaches the periodic orbit e^{2as}e^{Ss}BK(s)⁻¹Bᵀe^{Sᵀs}).

The shared V = vI hypotheses, the factorisation and the W(t) enclosure live in
:mod:`symbolic_tf.certify.check.riccati`.
"""
from __future__ import annotations

import flint

from ....exact.ball import ball_pd
from ....exact.precision import working_precision
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import (CONSTANT_PARAMETERS, FACTOR_SCHEMA, ONE_SOFTMAX_HEAD, SIGMA0_FACTOR, SIGMA0_GIVEN, V_SCALAR,
                       W_enclosure, ball_matrix, check_factor, rational, refuse, vI_setup)

KIND = "periodic-riccati-vI"
_FORGERIES = "tests/soundness/forgeries/test_periodic_riccati.py::"

PERIODIC_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, SIGMA0_GIVEN, SIGMA0_FACTOR,
    Hypothesis("sigma0-nonzero", "r ≥ 1 (Σ₀ = 0 is an equilibrium).", _FORGERIES + "test_periodic_sigma0_zero"),
    Hypothesis("rotating-drift", "F = aI + S with a = tr F/d and S = −Sᵀ ≠ 0, d ∈ {2, 3}: the eigenvalues of S are "
               "0 (d = 3) and ±iω with ω² = Σ_{i<j} S_ij², so e^{Sτ} = I at τ = 2π/ω and e^{F(t+τ)} = e^{aτ}e^{Ft}.",
               _FORGERIES + "test_periodic_drift_not_rotating"),
    Hypothesis("partition", "The partition increases from 0 to 1 (fractions of τ); on each piece the ball enclosure of "
               "X(t) = D⁻¹ − BᵀW(t)B is positive definite, so X ≻ 0 on [0, τ].", _FORGERIES + "test_periodic_partition"),
    Hypothesis("one-period-decides", "With N = −BᵀW(τ)B and q = e^{2aτ}: a = 0 needs N ≻ 0 (Σ → 0); a < 0 needs "
               "D⁻¹ + N/(1 − q) ≻ 0 (Σ → 0); a > 0 needs K(s) = N/(q − 1) − BᵀW(s)B ≻ 0 on every piece (bounded). "
               "The regime is read from the sign of a, never from the data.", _FORGERIES + "test_periodic_one_period"),
)


@kind(KIND, {**FACTOR_SCHEMA, "partition": "rat[]"}, hypotheses=PERIODIC_HYPOTHESES)
def check_periodic(cert, problem):
    """PROVED: this Σ₀'s solution is global, and Σ(t) → 0 (a ≤ 0) or stays bounded (a > 0).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one softmax head with V = v·I, F = aI + S (S skew), Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))`` for a ≤ 0,
        ``("PROVED", Claim("BOUNDED", THIS, {}))`` for a > 0.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the drift is not a rotation plus a multiple of I, the partition or a ball test fails.
    """
    a = _check(cert, problem)
    if a > 0:
        return "PROVED", Claim("BOUNDED", Quantifier.THIS, {})
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})


def rotation_scaling(F):
    """(a, ω²) when F = aI + S with S = −Sᵀ ≠ 0 (a = tr F/d, ω² = Σ_{i<j} S_ij²), else None.

    Parameters
    ----------
    F : flint.fmpq_mat
        The drift (d×d).

    Returns
    -------
    tuple of (flint.fmpq, flint.fmpq) or None
        The scaling a and the squared frequency ω² (the period of e^{St} is 2π/ω for d ≤ 3).
    """
    d = F.nrows()
    a = sum((F[i, i] for i in range(d)), flint.fmpq(0)) / d
    S = F - flint.fmpq_mat(d, d, [a if i == j else 0 for i in range(d) for j in range(d)])
    if S + S.transpose() != flint.fmpq_mat(d, d) or S == flint.fmpq_mat(d, d):
        return None
    return a, sum((S[i, j] ** 2 for i in range(d) for j in range(i + 1, d)), flint.fmpq(0))


def _check(cert, problem):
    def fail(msg):
        refuse(f"{KIND} certificate: {msg}")

    d, _v, R, F, B, D = vI_setup(KIND, cert, problem)
    Dinv = check_factor(KIND, problem, B, D, zero="Σ ≡ 0 is an equilibrium")
    if d not in (2, 3):
        fail("the one-period argument covers d = 2 and d = 3 (one rotation frequency)")
    rotation = rotation_scaling(F)
    if rotation is None:
        fail("F is not a·I plus a nonzero skew matrix")
    a, omega2 = rotation
    part = [rational(x) for x in cert.data["partition"]]
    if len(part) < 2 or part[0] != 0 or part[-1] != 1 or any(b <= a_ for a_, b in zip(part, part[1:])):
        fail("the partition must increase from 0 to 1 (fractions of the period)")
    Bb, Db = ball_matrix(B), ball_matrix(Dinv)
    with working_precision(192):
        tau = 2 * flint.arb.pi() / flint.arb(omega2).sqrt()
        N = -(Bb.transpose() * W_enclosure(F, R, tau) * Bb)
        q = (2 * flint.arb(a) * tau).exp()
        pieces = []
        for lo, hi in zip(part, part[1:]):
            t = (flint.arb(lo) * tau).union(flint.arb(hi) * tau)
            BWB = Bb.transpose() * W_enclosure(F, R, t) * Bb
            if ball_pd(Db - BWB) is not True:
                fail(f"X(t) is not certified positive definite for t/τ ∈ [{lo}, {hi}]")
            pieces.append((lo, hi, BWB))
        if a == 0:
            if ball_pd(N) is not True:
                fail("a = 0 needs N = −BᵀW(τ)B ≻ 0 (certified in balls)")
        elif a < 0:
            if ball_pd(Db + N * (1 / (1 - q))) is not True:
                fail("a < 0 needs X_∞ = D⁻¹ + N/(1 − e^{2aτ}) ≻ 0 (certified in balls)")
        else:
            Nq = N * (1 / (q - 1))
            for lo, hi, BWB in pieces:
                if ball_pd(Nq - BWB) is not True:
                    fail(f"a > 0 needs K(s) = N/(e^{{2aτ}} − 1) − BᵀW(s)B ≻ 0: it is not certified for s/τ ∈ [{lo}, {hi}]")
    return a
