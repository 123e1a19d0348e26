"""Checker of the certificate kind ``threshold-drift-vI``: a Σ₀ exactly ON the blow-up threshold of
V = vI with a contracting scalar drift F = f·I (f < 0) clusters onto a limit of positive rank.

With Σ₀ = BDBᵀ (B of full column rank r, D ≻ 0 diagonal), N = BᵀRB (R = v(Ã + Ãᵀ)) and
g(t) = ∫₀ᵗe^{2fs}ds = g∞(1 − e^{2ft}), g∞ = 1/(2|f|), the flow is Σ(t) = e^{2ft}B X(t)⁻¹Bᵀ with
X(t) = D⁻¹ − g(t)N for as long as X(t) ≻ 0 (the factorisation of the V = vI kinds).  Put
X∞ = D⁻¹ − g∞N.  Then X(t) = (1 − λ)D⁻¹ + λX∞ with λ = g(t)/g∞ ∈ [0, 1): when X∞ ⪰ 0, X(t) ≻ 0 for
every t (D⁻¹ ≻ 0, λ < 1) — the solution is global whatever the sign of R.  Below the threshold
(X∞ ≻ 0) Σ → 0 (kind ``global-drift-vI``).  ON it (X∞ ⪰ 0 singular, kernel of dimension k ≥ 1):

    Σ(t) = B(e^{−2ft}X∞ + g∞N)⁻¹Bᵀ  →  Σ∞ = B·K(KᵀD⁻¹K)⁻¹Kᵀ·Bᵀ   (t → ∞),

K an r×k basis of ker X∞.  (For v ∈ ker X∞, g∞vᵀNv = vᵀD⁻¹v > 0, so the block of g∞N on ker X∞ is
KᵀD⁻¹K ≻ 0; with ε = e^{2ft} → 0, (X∞/ε + g∞N)⁻¹ → K(g∞KᵀNK)⁻¹Kᵀ, the standard limit of a
resolvent whose singular part is blown up.)  Σ∞ has rank k, since B has full column rank: Σ
converges to a limit of rank k — CLUSTERING of rank k ≥ 1, neither a collapse nor a blow-up.

The certificate stores the factor (v, B, D) and the limit Σ∞; the checker re-derives X∞, its
kernel (exact row reduction) and Σ∞, and accepts only the exact equality.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import definiteness, kernel_basis
from ....exact.rational import qmat
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..riccati import (CONSTANT_PARAMETERS, FACTOR_SCHEMA, FORGERIES, ONE_SOFTMAX_HEAD, SIGMA0_FACTOR, SIGMA0_GIVEN,
                       V_SCALAR, check_factor, refuse, square, vI_setup)

THRESHOLD_HYPOTHESES = (
    ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, SIGMA0_GIVEN, SIGMA0_FACTOR,
    Hypothesis("F-negative-scalar", "F = f·I with f < 0 exactly: W(t) = g(t)R with g increasing from 0 to "
               "g∞ = 1/(2|f|), so X(t) lies on the segment from D⁻¹ to X∞ = D⁻¹ − g∞·BᵀRB.",
               FORGERIES + "test_threshold_drift_F_not_negative_scalar"),
    Hypothesis("on-threshold", "X∞ ⪰ 0 and X∞ is singular (exactly): X(t) ≻ 0 for every t, and the kernel of X∞ "
               "(dimension k ≥ 1) is what survives in the limit.", FORGERIES + "test_threshold_drift_off_threshold"),
    Hypothesis("limit", "The stored limit equals Σ∞ = B·K(KᵀD⁻¹K)⁻¹Kᵀ·Bᵀ (K a basis of ker X∞, exact), a matrix of "
               "rank k.", FORGERIES + "test_threshold_drift_wrong_limit"),
)


def kernel_matrix(M: flint.fmpq_mat) -> flint.fmpq_mat:
    """An exact basis of ker M as the columns of an n×k matrix (the RREF basis, k = n − rank M).

    Parameters
    ----------
    M : flint.fmpq_mat
        An n×n matrix.

    Returns
    -------
    flint.fmpq_mat
        n×k, its columns a basis of {x : Mx = 0}.
    """
    basis = kernel_basis(M)
    n = M.ncols()
    return flint.fmpq_mat(n, len(basis), [basis[c][r] for r in range(n) for c in range(len(basis))])


@kind("threshold-drift-vI", {**FACTOR_SCHEMA, "limit": "rat[][]"}, hypotheses=THRESHOLD_HYPOTHESES)
def check_threshold(cert, problem):
    """PROVED: this Σ₀, on the blow-up threshold of a scalar contracting drift, clusters onto Σ∞ of rank k ≥ 1.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, F = f·I (f < 0) and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": k}))``, k = dim ker X∞.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When F is not f·I with f < 0, X∞ = D⁻¹ − BᵀRB/(2|f|) is not PSD and singular, or the limit differs.
    """
    name = "threshold-drift-vI"
    d, v, R, F, B, D = vI_setup(name, cert, problem)
    Dinv = check_factor(name, problem, B, D, zero="Σ₀ = 0 is an equilibrium (rank 0)")
    f = F[0, 0]
    if not (f < 0 and all(F[i, j] == (f if i == j else 0) for i in range(d) for j in range(d))):
        refuse(f"{name} certificate: F is not f·I with f < 0")
    Xinf = Dinv - B.transpose() * R * B / (-2 * f)
    if not definiteness(Xinf).psd:
        refuse(f"{name} certificate: X∞ = D⁻¹ − BᵀRB/(2|f|) is not positive semidefinite (above the threshold: a blow-up)")
    K = kernel_matrix(Xinf)
    k = K.ncols()
    if k == 0:
        refuse(f"{name} certificate: X∞ is positive definite (below the threshold: Σ → 0, kind global-drift-vI)")
    limit = B * K * (K.transpose() * Dinv * K).inv() * K.transpose() * B.transpose()
    if square(name, "the limit", qmat(cert.data["limit"]), d) != limit:
        refuse(f"{name} certificate: the stored limit is not Σ∞ = B·K(KᵀD⁻¹K)⁻¹Kᵀ·Bᵀ")
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": k})
