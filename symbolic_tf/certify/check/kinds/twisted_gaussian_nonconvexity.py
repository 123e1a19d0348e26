"""Checker of ``twisted-gaussian-nonconvexity`` certificates (docs/mathematics.md §7).

On centred Gaussians the softmax interaction energy is E(Σ) = ½ det X^{-1/2}, X = I − AᵀΣAΣ
(finite while Σ⁻¹ − AᵀΣA ≻ 0).  Along the twisted geodesic Σ_s = P_sΣP_sᵀ, P_s = I + sN,
N = VA⁻¹B (B symmetric: the displacement x ↦ x + sVA⁻¹∇(½xᵀBx)), at s = 0:

    Σ' = NΣ + ΣNᵀ,  Σ'' = 2NΣNᵀ,  X' = −Aᵀ(Σ'AΣ + ΣAΣ'),  X'' = −Aᵀ(Σ''AΣ + 2Σ'AΣ' + ΣAΣ''),

and (the matrix-form proof ``logdet-second-derivative``) E'' = (E/4)(t₁² + 2t₂ − 2t₃) with
t₁ = tr(X⁻¹X'), t₂ = tr(X⁻¹X'X⁻¹X'), t₃ = tr(X⁻¹X'').  All of it is exact over ℚ; the checker
requires Σ ≻ 0, Σ⁻¹ − AᵀΣA ≻ 0, B = Bᵀ, A invertible, a nonzero displacement
(tr(NΣNᵀ) > 0) and t₁² + 2t₂ − 2t₃ < 0.  Then E'' < 0 ≤ λ∫|ξ|²dμ for every λ ≥ 0.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import definiteness
from ....exact.rational import frac_str, qmat
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words, mat_text

KIND = "twisted-gaussian-nonconvexity"


_FORGERIES = "tests/soundness/forgeries/test_twisted_gaussian.py"
#: the hypotheses of the sign argument, each checked exactly over ℚ
HYPOTHESES = (
    Hypothesis("square-same-size", "A, V, Σ and B are square rational matrices of one size d ≤ 12.",
               f"{_FORGERIES}::test_matrices_of_different_sizes_are_rejected"),
    Hypothesis("A-invertible", "det A ≠ 0: the twist VA⁻¹ of the metric exists, and N = VA⁻¹B is the geodesic's "
               "direction.", f"{_FORGERIES}::test_singular_A_is_rejected"),
    Hypothesis("sigma-pd-B-symmetric", "Σ = Σᵀ ≻ 0 and B = Bᵀ: the displacement x ↦ x + sVA⁻¹∇(½xᵀBx) is a twisted "
               "geodesic from N(0, Σ).", f"{_FORGERIES}::test_nonsymmetric_B_is_rejected"),
    Hypothesis("finite-energy", "Σ⁻¹ − AᵀΣA ≻ 0: E(Σ) = ½det(I − AᵀΣAΣ)^(-1/2) is finite and positive at Σ.",
               f"{_FORGERIES}::test_sigma_of_infinite_energy_is_rejected"),
    Hypothesis("displacement-nonzero", "tr(NΣNᵀ) > 0, N = VA⁻¹B: the geodesic moves, ∫∣ξ∣²dμ > 0.",
               f"{_FORGERIES}::test_zero_displacement_is_rejected"),
    Hypothesis("second-variation-negative", "t₁² + 2t₂ − 2t₃ < 0 exactly at s = 0, so E'' < 0 ≤ λ∫∣ξ∣²dμ for every "
               "λ ≥ 0: E is not λ-convex along this twisted geodesic.", f"{_FORGERIES}::test_convex_direction_is_rejected"),
)

def _tr(M):
    return sum((M[i, i] for i in range(M.nrows())), flint.fmpq(0))


def second_variation_sign_data(A, V, S, B):
    """(t₁² + 2t₂ − 2t₃, tr(NΣNᵀ)) for exact fmpq matrices, N = VA⁻¹B (see the module docstring).

    Parameters
    ----------
    A : flint.fmpq_mat
        The invertible interaction matrix.
    V : flint.fmpq_mat
        The value matrix (N = VA⁻¹B).
    S : flint.fmpq_mat
        The point Σ ≻ 0 with X = I − AᵀΣAΣ invertible.
    B : flint.fmpq_mat
        The symmetric displacement matrix.

    Returns
    -------
    tuple of (flint.fmpq, flint.fmpq)
        (t₁² + 2t₂ − 2t₃, tr(NΣNᵀ)): the sign term of E'' and the squared size of the displacement.
    """
    return curve_sign_data(A, V * A.inv() * B, S)


def curve_sign_data(A, N, S):
    """(t₁² + 2t₂ − 2t₃, tr(NΣNᵀ)) along the curve Σ_s = (I + sN)Σ(I + sN)ᵀ at s = 0, for exact fmpq
    matrices (A need not be invertible).

    Parameters
    ----------
    A : flint.fmpq_mat
        The interaction matrix.
    N : flint.fmpq_mat
        The direction of the curve.
    S : flint.fmpq_mat
        The point Σ ≻ 0 with X = I − AᵀΣAΣ invertible.

    Returns
    -------
    tuple of (flint.fmpq, flint.fmpq)
        (t₁² + 2t₂ − 2t₃, tr(NΣNᵀ)): the sign term of E'' and the squared size of the displacement.
    """
    S1 = N * S + S * N.transpose()
    S2 = 2 * N * S * N.transpose()
    n = A.nrows()
    Id = flint.fmpq_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])
    At = A.transpose()
    X = Id - At * S * A * S
    X1 = -(At * (S1 * A * S + S * A * S1))
    X2 = -(At * (S2 * A * S + 2 * S1 * A * S1 + S * A * S2))
    Xi = X.inv()
    t1, t2, t3 = _tr(Xi * X1), _tr(Xi * X1 * Xi * X1), _tr(Xi * X2)
    return t1 * t1 + 2 * t2 - 2 * t3, _tr(N * S * N.transpose())


@claim_words("twisted-gaussian-nonconvexity")
def _twisted_gaussian(p):
    """Non-convexity on Gaussians along a twisted geodesic (docs/mathematics.md §7)."""
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {mat_text(p.get('A', []))}, "
            f"V = {mat_text(p.get('V', []))} is not λ-convex for any λ ≥ 0 along the twisted Gaussian geodesics "
            f"Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ: at Σ = {mat_text(p.get('Sigma', []))}, B = {mat_text(p.get('B', []))}, "
            "d²E/ds² < 0")


@kind(KIND, {"A": "rat[][]", "V": "rat[][]", "Sigma": "rat[][]", "B": "rat[][]"}, needs_problem=False,
      hypotheses=HYPOTHESES)
def check_twisted_gaussian(cert, problem):
    """PROVED: E is not λ-convex (λ ≥ 0) along twisted Gaussian geodesics for this A, V.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("twisted-gaussian-nonconvexity", NONE, {"A", "V", "Sigma", "B"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the matrices are not square of one size ≤ 12, A is singular, Σ is not ≻ 0, the energy is
        infinite at Σ, the displacement is zero or t₁² + 2t₂ − 2t₃ ≥ 0.
    """
    d = cert.data
    mats = {k: qmat(d[k]) for k in ("A", "V", "Sigma", "B")}
    n = mats["A"].nrows()
    if any(M.nrows() != n or M.ncols() != n for M in mats.values()) or n > 12:
        raise CertificationFailed(f"{KIND}: A, V, Σ, B must be square of one size ≤ 12")
    A, V, S, B = mats["A"], mats["V"], mats["Sigma"], mats["B"]
    if A.det() == 0:
        raise CertificationFailed(f"{KIND}: A must be invertible (the twist VA⁻¹)")
    if S != S.transpose() or B != B.transpose() or not definiteness(S).pd:
        raise CertificationFailed(f"{KIND}: Σ must be symmetric positive definite and B symmetric")
    if not definiteness(S.inv() - A.transpose() * S * A).pd:
        raise CertificationFailed(f"{KIND}: the energy is not finite at Σ (Σ⁻¹ − AᵀΣA is not ≻ 0)")
    sign_term, xi2 = second_variation_sign_data(A, V, S, B)
    if xi2 <= 0:
        raise CertificationFailed(f"{KIND}: the displacement is zero")
    if sign_term >= 0:
        raise CertificationFailed(f"{KIND}: the second variation is not negative")
    return "PROVED", Claim("twisted-gaussian-nonconvexity", Quantifier.NONE,
                           {k: [[frac_str(M[i, j]) for j in range(n)] for i in range(n)] for k, M in mats.items()})
