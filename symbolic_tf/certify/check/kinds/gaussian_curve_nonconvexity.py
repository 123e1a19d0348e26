"""Checker of ``gaussian-curve-nonconvexity`` certificates (docs/mathematics.md §7, "every curve").

The softmax energy on centred Gaussians, E(Σ) = ½det X^{-1/2}, X = I − AᵀΣAΣ (finite while
Σ⁻¹ − AᵀΣA ≻ 0), along the curve Σ_s = (I + sN)Σ(I + sN)ᵀ — the Loewner-convex curves the twisted
geodesics are made of (for an invertible A, the twisted geodesic of V and B is the curve of
N = VA⁻¹B, and every N is one: V = NA, B = I).  This kind states a curve by N, so it also covers a
singular A, where no twist VA⁻¹ exists.  At s = 0 (the formulas of ``twisted-gaussian-nonconvexity``,
:func:`~symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity.curve_sign_data`) E'' = (E/4)(t₁² + 2t₂ − 2t₃).
The checker requires, exactly over ℚ: square matrices of one size ≤ 12, Σ = Σᵀ ≻ 0,
Σ⁻¹ − AᵀΣA ≻ 0, a nonzero displacement tr(NΣNᵀ) > 0 and t₁² + 2t₂ − 2t₃ < 0.  Claim (a property,
no initial covariance): E is not convex along this curve at Σ, so "E is convex along every curve
(I + sN)Σ(I + sN)ᵀ" fails for this A.
"""
from __future__ import annotations

from ....exact.definiteness import definiteness
from ....exact.rational import frac_str, qmat
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words, mat_text
from .twisted_gaussian_nonconvexity import curve_sign_data

KIND = "gaussian-curve-nonconvexity"


@claim_words("gaussian-curve-nonconvexity")
def _gaussian_curve(p):
    """Non-convexity on Gaussians along one curve (I + sN)Σ(I + sN)ᵀ, any A (docs/mathematics.md §7)."""
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {mat_text(p.get('A', []))} "
            f"is not convex along the curve Σ_s = (I + sN)Σ(I + sN)ᵀ, N = {mat_text(p.get('N', []))}, at "
            f"Σ = {mat_text(p.get('Sigma', []))}: d²E/ds² < 0 (so not along every such curve)")


_FORGERIES = "tests/soundness/forgeries/test_gaussian_curve.py"
#: the hypotheses of the sign argument, each checked exactly over ℚ
# a table of hypotheses, alike in shape only to the other convexity kinds'
HYPOTHESES = (
    Hypothesis("square-same-size", "A, N and Σ are square rational matrices of one size d, 1 ≤ d ≤ 12.",
               f"{_FORGERIES}::test_matrices_of_different_sizes_are_rejected"),
    Hypothesis("sigma-pd", "Σ = Σᵀ ≻ 0: a centred Gaussian N(0, Σ) with a density, the base point of the curve.",
               f"{_FORGERIES}::test_singular_sigma_is_rejected"),
    Hypothesis("finite-energy", "Σ⁻¹ − AᵀΣA ≻ 0: the integral of e^{yᵀAx} converges, E(Σ) = ½det(I − AᵀΣAΣ)^(-1/2) "
               "is finite near Σ and E > 0.", f"{_FORGERIES}::test_sigma_of_infinite_energy_is_rejected"),
    Hypothesis("displacement-nonzero", "tr(NΣNᵀ) > 0: the curve (I + sN)Σ(I + sN)ᵀ moves (NΣ^(1/2) ≠ 0).",
               f"{_FORGERIES}::test_still_curve_is_rejected"),
    Hypothesis("second-variation-negative", "t₁² + 2t₂ − 2t₃ < 0 exactly (t₁ = tr(X⁻¹X'), t₂ = tr(X⁻¹X'X⁻¹X'), "
               "t₃ = tr(X⁻¹X'') at s = 0), so E'' = (E/4)(t₁² + 2t₂ − 2t₃) < 0 along the stated curve.",
               f"{_FORGERIES}::test_convex_direction_is_rejected"),
)

@kind(KIND, {"A": "rat[][]", "N": "rat[][]", "Sigma": "rat[][]"}, needs_problem=False, hypotheses=HYPOTHESES)
def check_gaussian_curve(cert, problem):
    """PROVED: E'' < 0 at Σ along the curve (I + sN)Σ(I + sN)ᵀ, for this A (invertible or not).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("gaussian-curve-nonconvexity", NONE, {"A", "N", "Sigma"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the matrices are not square of one size ≤ 12, Σ is not symmetric positive definite,
        the energy is infinite at Σ, the displacement is zero or t₁² + 2t₂ − 2t₃ ≥ 0.
    """
    d = cert.data
    mats = {k: qmat(d[k]) for k in ("A", "N", "Sigma")}
    n = mats["A"].nrows()
    if n < 1 or n > 12 or any(M.nrows() != n or M.ncols() != n for M in mats.values()):
        raise CertificationFailed(f"{KIND}: A, N, Σ must be square of one size 1…12")
    A, N, S = mats["A"], mats["N"], mats["Sigma"]
    if S != S.transpose() or not definiteness(S).pd:
        raise CertificationFailed(f"{KIND}: Σ must be symmetric positive definite")
    if not definiteness(S.inv() - A.transpose() * S * A).pd:
        raise CertificationFailed(f"{KIND}: the energy is not finite at Σ (Σ⁻¹ − AᵀΣA is not ≻ 0)")
    sign_term, xi2 = curve_sign_data(A, N, S)
    if xi2 <= 0:
        raise CertificationFailed(f"{KIND}: the displacement is zero")
    if sign_term >= 0:
        raise CertificationFailed(f"{KIND}: the second variation is not negative")
    return "PROVED", Claim(KIND, Quantifier.NONE,
                           {k: [[frac_str(M[i, j]) for j in range(n)] for i in range(n)] for k, M in mats.items()})
