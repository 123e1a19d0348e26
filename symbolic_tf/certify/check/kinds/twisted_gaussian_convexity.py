"""Checker of ``twisted-gaussian-convexity`` certificates (docs/mathematics.md §7, §10).

Claim: for A = Aᵀ definite, the softmax energy on centred Gaussians, E(Σ) = ½det(I − AᵀΣAΣ)^{-1/2},
is convex along every twisted geodesic Σ_s = (I + sN)Σ(I + sN)ᵀ, N = VA⁻¹B, B = Bᵀ, through every
Σ ≻ 0 of finite energy — for every value matrix V.  The argument, every step of it replayed: with
±A = R², R = Rᵀ, and Y = RΣR, R⁻¹(AᵀΣAΣ)R = I − W with W = I − Y² (the proof
``twisted-symmetric-similarity``), and the domain is W ≻ 0.  With X = I − AᵀΣ_sAΣ_s,
E'' = (E/4)(t₁² + 2t₂ − 2t₃), t₁ = tr(X⁻¹X'), t₂ = tr(X⁻¹X'X⁻¹X'), t₃ = tr(X⁻¹X'') (the proof
``energy-second-variation``, from Jacobi's formula E' = −½E·tr(X⁻¹X')); the sign term is unchanged
by the similarity with R (``similarity-sign-term``), so it is that of W_s, whose derivatives are W' = −(Y'Y + YY'), W'' = −(Y''Y + 2Y'Y' + YY'')
(``twisted-symmetric-derivatives``) with Y' = R(NΣ + ΣNᵀ)R, Y'' = 2RNΣNᵀR
(``twisted-geodesic-first-derivative``, ``twisted-geodesic-second-derivative``).  The stored theorem
``twisted-symmetric-convexity`` writes t₁² + 2t₂ − 2t₃ as t₁² + 2tr(W⁻¹·W'W⁻¹W') + 4tr(W⁻¹·Y'Y')
+ 2tr(W⁻¹Y·Y'') + 2tr(YW⁻¹·Y''), each term ≥ 0 (W⁻¹ ≻ 0; W⁻¹Y ⪰ 0 since W⁻¹ and Y ⪰ 0 commute;
Y'' ⪰ 0; tr(PQ) ≥ 0 for P, Q ⪰ 0), so E'' ≥ 0.  (A ↦ −A leaves E unchanged and maps the geodesics
of (A, V) to those of (−A, V) with B ↦ −B, so negative definite A is covered by −A = R².)
Since N is arbitrary in the theorem, the claim holds along every curve (I + sN)Σ(I + sN)ᵀ.

*A singular, symmetric semidefinite* (±A = R², R = Rᵀ ⪰ 0 singular): there is no twisted metric
(VA⁻¹ does not exist), and the claim is convexity along every curve Σ_s = (I + sN)Σ(I + sN)ᵀ.  The
similarity by R⁻¹ is replaced by Sylvester's identity det(I + XY) = det(I + YX) with X = R,
Y = −RΣ_sRRΣ_s: det X_s = det W_s for every s (the replayed proof ``twisted-semidefinite-determinant``,
rule ``sylvester``), so E(Σ_s) = ½det(W_s)^{-1/2} and ``energy-second-variation`` applies to W_s
directly; the theorem's facts never use R⁻¹, and the domain is still W ≻ 0.

The data name the stored theorem (``symbolic_tf/certify/matrix_proofs/theorems/<name>.json``)
and its SHA-256; the checker replays it (:func:`symbolic_tf.certify.check.matrix_proofs.order.stored_theorem`)
and requires its rendered statement to be exactly :data:`STATEMENT`; then it checks the instance
exactly: A square (1 ≤ d ≤ 12), A = Aᵀ, and A positive or negative definite, or singular and
positive or negative semidefinite (exact inertia).
"""
from __future__ import annotations

from ....exact.definiteness import definiteness
from ....exact.rational import frac_str, qmat
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words, mat_text
from ..matrix_proofs.order import require_theorem

KIND = "twisted-gaussian-convexity"
THEOREM = "twisted-symmetric-convexity"

#: the statement this kind is defined by (rendered from the replayed theorem); the third
#: conclusion is t₁² + 2t₂ − 2t₃ ≥ 0 with Y = RΣR, Y' = R(NΣ + ΣNᵀ)R, Y'' = 2RNΣNᵀR,
#: W' = −(Y'Y + YY'), W'' = −(Y''Y + 2Y'Y' + YY''), written out in normal form
STATEMENT = {"name": "twisted geodesics, A = R², W = I − (RΣR)² ≻ 0: t₁² + 2t₂ − 2t₃ ≥ 0",
             "symbols": "A (d×d), N (d×d), R (d×d), Σ (d×d), W (d×d)",
             "hypotheses": ["symmetric: Σ, R, A, W", "positive definite: Σ, W", "A = RR", "W = I − RΣRRΣR"],
             "conclusions": ["RΣR ⪰ 0", "2·RNΣNᵀR ⪰ 0",
                 "4·tr(W⁻¹RNΣRRNΣR) + tr(W⁻¹RNΣRRΣR)tr(W⁻¹RNΣRRΣR) + 2·tr(W⁻¹RNΣRRΣR)tr(W⁻¹RΣRRNΣR)"
                 " + 2·tr(W⁻¹RNΣRRΣR)tr(W⁻¹RΣRRΣNᵀR) + 2·tr(W⁻¹RNΣRRΣR)tr(W⁻¹RΣNᵀRRΣR)"
                 " + 2·tr(W⁻¹RNΣRRΣRW⁻¹RNΣRRΣR) + 4·tr(W⁻¹RNΣRRΣRW⁻¹RΣRRNΣR)"
                 " + 4·tr(W⁻¹RNΣRRΣRW⁻¹RΣRRΣNᵀR) + 4·tr(W⁻¹RNΣRRΣRW⁻¹RΣNᵀRRΣR) + 4·tr(W⁻¹RNΣRRΣNᵀR)"
                 " + 4·tr(W⁻¹RNΣNᵀRRΣR) + tr(W⁻¹RΣRRNΣR)tr(W⁻¹RΣRRNΣR)"
                 " + 2·tr(W⁻¹RΣRRNΣR)tr(W⁻¹RΣRRΣNᵀR) + 2·tr(W⁻¹RΣRRNΣR)tr(W⁻¹RΣNᵀRRΣR)"
                 " + 2·tr(W⁻¹RΣRRNΣRW⁻¹RΣRRNΣR) + 4·tr(W⁻¹RΣRRNΣRW⁻¹RΣRRΣNᵀR)"
                 " + 4·tr(W⁻¹RΣRRNΣRW⁻¹RΣNᵀRRΣR) + 4·tr(W⁻¹RΣRRNΣNᵀR) + tr(W⁻¹RΣRRΣNᵀR)tr(W⁻¹RΣRRΣNᵀR)"
                 " + 2·tr(W⁻¹RΣRRΣNᵀR)tr(W⁻¹RΣNᵀRRΣR) + 2·tr(W⁻¹RΣRRΣNᵀRW⁻¹RΣRRΣNᵀR)"
                 " + 4·tr(W⁻¹RΣRRΣNᵀRW⁻¹RΣNᵀRRΣR) + 4·tr(W⁻¹RΣNᵀRRNΣR)"
                 " + tr(W⁻¹RΣNᵀRRΣR)tr(W⁻¹RΣNᵀRRΣR) + 2·tr(W⁻¹RΣNᵀRRΣRW⁻¹RΣNᵀRRΣR)"
                 " + 4·tr(W⁻¹RΣNᵀRRΣNᵀR) ≥ 0"]}


@claim_words("twisted-gaussian-convexity")
def _twisted_convexity(p):
    """Convexity on Gaussians along every twisted geodesic, A = Aᵀ definite (docs/mathematics.md §7);
    along every curve (I + sN)Σ(I + sN)ᵀ when A = Aᵀ is semidefinite and singular."""
    if str(p.get("definite", "")).endswith("semidefinite"):
        return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {mat_text(p.get('A', []))} "
                f"(symmetric, {p.get('definite')}, singular: no twisted metric VA⁻¹) is convex (d²E/ds² ≥ 0) along "
                "every curve Σ_s = (I + sN)Σ(I + sN)ᵀ, N any, through every Σ ≻ 0 of finite energy")
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {mat_text(p.get('A', []))} "
            f"(symmetric, {p.get('definite')} definite) is convex (d²E/ds² ≥ 0) along every twisted Gaussian geodesic "
            "Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ, B = Bᵀ, through every Σ ≻ 0 of finite energy, for every value matrix V")


_FORGERIES = "tests/soundness/forgeries/test_twisted_convexity.py"
#: the hypotheses of the argument: the replayed theorem, then the instance
HYPOTHESES = (
    Hypothesis("theorem-replayed", "The data name the stored theorem twisted-symmetric-convexity with its SHA-256, "
               "and its replayed statement is exactly STATEMENT (t₁² + 2t₂ − 2t₃ ≥ 0 for A = R², W = I − (RΣR)² ≻ 0).",
               f"{_FORGERIES}::test_other_theorem_is_rejected"),
    Hypothesis("A-square", "A is a square rational matrix of size 1 … 12.",
               f"{_FORGERIES}::test_non_square_A_is_rejected"),
    Hypothesis("A-symmetric", "A = Aᵀ, so ±A = R² with R = Rᵀ (a symmetric square root).",
               f"{_FORGERIES}::test_nonsymmetric_A_is_rejected"),
    Hypothesis("A-semidefinite", "A is positive or negative definite, or singular and positive or negative "
               "semidefinite (exact inertia): an indefinite A has no symmetric square root of ±A, and the claim's "
               "label (definite or semidefinite, its sign) is the one of A.",
               f"{_FORGERIES}::test_indefinite_A_is_rejected"),
)

@kind(KIND, {"A": "rat[][]", "theorem": "str", "theorem_sha256": "str"}, needs_problem=False,
      hypotheses=HYPOTHESES)
def check_twisted_convexity(cert, problem):
    """PROVED: E is convex along every twisted Gaussian geodesic for this A = Aᵀ definite and every V.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("twisted-gaussian-convexity", NONE, {"A": A, "definite": d}))``, d one of
        "positive", "negative" (A definite) or "positive semidefinite", "negative semidefinite" (A singular).

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the theorem is not ``twisted-symmetric-convexity``, its SHA-256 is not the stored file's,
        its replayed statement is not :data:`STATEMENT`, A is not square of size 1…12, not symmetric,
        or neither definite nor singular and semidefinite.
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
    if dA.pd or dA.nd:
        definite = "positive" if dA.pd else "negative"
    elif A.det() == 0 and (dA.psd or dA.nsd):
        definite = "positive semidefinite" if dA.psd else "negative semidefinite"
    else:
        raise CertificationFailed(f"{KIND}: A must be definite, or semidefinite and singular (inertia {dA.kind})")
    return "PROVED", Claim(KIND, Quantifier.NONE,
                           {"A": [[frac_str(A[i, j]) for j in range(n)] for i in range(n)], "definite": definite})
