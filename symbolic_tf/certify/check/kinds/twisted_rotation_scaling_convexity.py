"""Checker of ``twisted-rotation-scaling-convexity`` certificates (docs/mathematics.md §7, "A fixed
pair").

Claim: for d = 2, A = aI + bJ (J = [[0, 1], [−1, 0]]) with a ≠ 0 and b² ≤ 3a², and V = vI with
v ≠ 0, the softmax energy E(Σ) = ½det(I − AᵀΣAΣ)^{-1/2} is convex along every twisted geodesic
Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ, B = Bᵀ, through every Σ ≻ 0 of finite energy.  A is not symmetric
when b ≠ 0, so the general theorem (A symmetric definite, every V) does not cover it: the claim is
about this pair.

The argument (:mod:`symbolic_tf.symbolic.rotation_scaling_convexity`): after the exact reductions
(scaling of A and V, rotations, which commute with A) the second variation along N = A⁻¹B at
Σ = diag(x, y) is bᵀM(x, y, t)b/D₀² with t = b/a; det M = xy·D₀²·Q and the exact Bernstein
coefficients of Q over the finite-energy domain × t² ∈ (0, 3) are ≥ 0 with one positive on the face
x = y, so det M > 0 there, and M(¼, ¼, 1) ≻ 0 makes M ≻ 0 everywhere (t² = 3 by continuity, t = 0
is A = I).  The checker re-derives all of it from the formulas — it stores no intermediate data —
and checks the instance exactly: A = [[a, b], [−b, a]], a ≠ 0, b² ≤ 3a², V = [[v, 0], [0, v]],
v ≠ 0.
"""
from __future__ import annotations

from ....exact.rational import frac_str, qmat
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words, mat_text
from ..rotation_scaling import rotation_scaling_convexity

KIND = "twisted-rotation-scaling-convexity"


@claim_words("twisted-rotation-scaling-convexity")
def _twisted_rotation_scaling(p):
    """Convexity on Gaussians along every twisted geodesic of one pair A = aI + bJ (b² ≤ 3a²), V = vI in
    d = 2 (docs/mathematics.md §7, "A fixed pair")."""
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {mat_text(p.get('A', []))} "
            f"(rotation–scaling, b² ≤ 3a²) and V = {mat_text(p.get('V', []))} is convex (d²E/ds² ≥ 0) along every "
            "twisted Gaussian geodesic Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ, B = Bᵀ, through every Σ ≻ 0 of finite energy")


_FORGERIES = "tests/soundness/forgeries/test_twisted_rotation_scaling.py"
#: the hypotheses of the family argument
HYPOTHESES = (
    Hypothesis("d-2", "A and V are 2×2 (the reduction to Σ = diag(x, y) is planar).",
               f"{_FORGERIES}::test_other_dimension_is_rejected"),
    Hypothesis("rotation-scaling", "A = aI + bJ = [[a, b], [−b, a]] with a ≠ 0 (invertible, commuting with rotations).",
               f"{_FORGERIES}::test_A_not_a_rotation_scaling_is_rejected"),
    Hypothesis("b2-at-most-3a2", "b² ≤ 3a², i.e. t² = (b/a)² ∈ [0, 3], the range over which the Bernstein "
               "coefficients were shown nonnegative.", f"{_FORGERIES}::test_rotation_beyond_the_range_is_rejected"),
    Hypothesis("V-scalar", "V = vI with v ≠ 0, so the twisted geodesics are those of N = A⁻¹B up to the factor v.",
               f"{_FORGERIES}::test_non_scalar_V_is_rejected"),
    Hypothesis("family-verified", "The symbolic verification of the family (det M = xy·D₀²·Q with Q's Bernstein "
               "coefficients ≥ 0, M(¼, ¼, 1) ≻ 0) is re-derived and holds.",
               f"{_FORGERIES}::test_failed_family_verification_is_rejected"),
)

@kind(KIND, {"A": "rat[][]", "V": "rat[][]"}, needs_problem=False, hypotheses=HYPOTHESES)
def check_rotation_scaling_convexity(cert, problem):
    """PROVED: E is convex along every twisted Gaussian geodesic of the pair A = aI + bJ (b² ≤ 3a²),
    V = vI in d = 2.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("twisted-rotation-scaling-convexity", NONE, {"A": A, "V": V}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When A or V is not 2×2, A is not of the form [[a, b], [−b, a]] with a ≠ 0 and b² ≤ 3a², V is
        not a nonzero multiple of I, or the symbolic verification of the family fails.
    """
    d = cert.data
    A, V = qmat(d["A"]), qmat(d["V"])
    if (A.nrows(), A.ncols(), V.nrows(), V.ncols()) != (2, 2, 2, 2):
        raise CertificationFailed(f"{KIND}: A and V must be 2×2")
    a, b = A[0, 0], A[0, 1]
    if A[1, 1] != a or A[1, 0] != -b or a == 0:
        raise CertificationFailed(f"{KIND}: A must be aI + bJ = [[a, b], [−b, a]] with a ≠ 0")
    if b * b > 3 * a * a:
        raise CertificationFailed(f"{KIND}: b² ≤ 3a² fails (b² = {b * b}, 3a² = {3 * a * a}); the energy is "
                                  "not convex for such a pair")
    if V[0, 1] != 0 or V[1, 0] != 0 or V[0, 0] != V[1, 1] or V[0, 0] == 0:
        raise CertificationFailed(f"{KIND}: V must be vI with v ≠ 0")
    if not rotation_scaling_convexity()["holds"]:
        raise CertificationFailed(f"{KIND}: the symbolic verification of the rotation–scaling family failed")
    return "PROVED", Claim(KIND, Quantifier.NONE,
                           {k: [[frac_str(M[i, j]) for j in range(2)] for i in range(2)]
                            for k, M in (("A", A), ("V", V))})
