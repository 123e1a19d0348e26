"""Checker of ``twisted-gaussian-convexity`` certificates (docs/mathematics.md §7, §10).

Claim: for A = Aᵀ definite, the softmax energy on centred Gaussians, E(Σ) = ½det(I − AᵀΣAΣ)^{-1/2},
is convex along every twisted geodesic Σ_s = (I + sN)Σ(I + sN)ᵀ, N = VA⁻¹B, B = Bᵀ, through every
Σ ≻ 0 of finite energy — for every value matrix V.  The argument: with ±A = R², R = Rᵀ, and
Y = RΣR, R⁻¹(AᵀΣAΣ)R = Y² (the proof ``twisted-symmetric-similarity``), so E = ½exp(g(Y)),
g(Y) = −½log det(I − Y) − ½log det(I + Y), which is convex on −I ≺ Y ≺ I with gradient
Y(I − Y²)⁻¹ ⪰ 0 on 0 ⪯ Y ≺ I; along the geodesic (``twisted-geodesic-second-derivative``,
Σ'' = 2NΣNᵀ) the stored theorem ``twisted-symmetric-convexity`` gives Y ⪰ 0 and Y'' ⪰ 0, hence
E'' = ½(D²e^g[Y', Y'] + ⟨∇e^g, Y''⟩) ≥ 0.  (A ↦ −A leaves E unchanged and maps the geodesics of
(A, V) to those of (−A, V) with B ↦ −B, so negative definite A is covered by −A = R².)

The data name the stored theorem (``symbolic_tf/certify/matrix_proofs/theorems/<name>.json``)
and its SHA-256; the checker replays it (:func:`symbolic_tf.certify.matrix_proofs.order.stored_theorem`)
and requires its rendered statement to be exactly :data:`STATEMENT`; then it checks the instance
exactly: A square (1 ≤ d ≤ 12), A = Aᵀ, and A positive or negative definite (exact inertia).
"""
from __future__ import annotations

from ...exact.definiteness import definiteness
from ...exact.rational import frac_str, qmat
from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier
from ..matrix_proofs.order import require_theorem

KIND = "twisted-gaussian-convexity"
THEOREM = "twisted-symmetric-convexity"

#: the statement this kind is defined by (rendered from the replayed theorem)
STATEMENT = {"name": "twisted geodesics, A = R²: Y = RΣR ⪰ 0 and Y'' = 2RNΣNᵀR ⪰ 0",
             "symbols": "A (d×d), N (d×d), R (d×d), Σ (d×d)",
             "hypotheses": ["symmetric: Σ, R, A", "positive definite: Σ", "A = RR"],
             "conclusions": ["RΣR ⪰ 0", "2·RNΣNᵀR ⪰ 0"]}


@kind(KIND, {"A": "rat[][]", "theorem": "str", "theorem_sha256": "str"}, needs_problem=False)
def check_twisted_convexity(cert, problem):
    """PROVED: E is convex along every twisted Gaussian geodesic for this A = Aᵀ definite and every V.

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
        ``("PROVED", Claim("twisted-gaussian-convexity", NONE, {"A": A, "definite": "positive" | "negative"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the theorem is not ``twisted-symmetric-convexity``, its SHA-256 is not the stored file's,
        its replayed statement is not :data:`STATEMENT`, A is not square of size 1…12, not symmetric,
        or not definite.
    """
    d = cert.data
    require_theorem(d, THEOREM, STATEMENT, KIND)
    A = qmat(d["A"])
    n = A.nrows()
    if n < 1 or n > 12 or A.ncols() != n:
        raise CertificationFailed(f"{KIND}: A must be square of size 1…12")
    if A != A.transpose():
        raise CertificationFailed(f"{KIND}: A must be symmetric")
    dA = definiteness(A)
    if not (dA.pd or dA.nd):
        raise CertificationFailed(f"{KIND}: A must be positive or negative definite (inertia {dA.kind})")
    return "PROVED", Claim(KIND, Quantifier.NONE,
                           {"A": [[frac_str(A[i, j]) for j in range(n)] for i in range(n)],
                            "definite": "positive" if dA.pd else "negative"})
