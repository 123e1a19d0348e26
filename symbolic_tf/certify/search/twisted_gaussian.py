"""Twisted geodesic convexity of the softmax energy on Gaussians (docs/mathematics.md §7): the
rank-one analysis and the search for ``twisted-gaussian-nonconvexity`` certificates.

On the rank-one Gaussians Σ = εuuᵀ the twisted geodesic stays rank one, Σ_s = ε u_s u_sᵀ with
u_s = u + sw, w = VA⁻¹Bu (any w when V is invertible: B symmetric with Bu = v is free), and
E(s) = ½(1 − ε²q(s)²)^{-1/2} with q(s) = u_sᵀAu_s.  Writing q = uᵀAu, q' = uᵀ(A + Aᵀ)w,
q'' = 2wᵀAw and g = 1 − ε²q² > 0:

    E''(0) = ½ε² g^{-5/2} (3ε²q²q'² + (q'² + qq'')g).

If A + Aᵀ is semidefinite, q and q'' have the same sign, so E'' ≥ 0 on every rank-one Gaussian.
If A + Aᵀ is indefinite, take u with uᵀAu > 0 and w ≠ 0 that is (A + Aᵀ)-orthogonal to u with
wᵀAw < 0 (Sylvester: such a w exists): then q' = 0 and E''(0) = ½ε²g^{-3/2}qq'' < 0 for every
admissible ε — and, V being invertible, v = AV⁻¹w realises it.  A full-rank Σ = εuuᵀ + δI with
small δ keeps the strict sign (continuity); the certificate is for that Σ ≻ 0.

Full-rank Gaussians (docs/mathematics.md §7, "the decision"):

* A = Aᵀ definite, any V: E'' ≥ 0 on every Gaussian.  With ±A = R², R = Rᵀ, Y = RΣR and
  W = I − Y², R⁻¹(AᵀΣAΣ)R = Y² = I − W, the domain is W ≻ 0, and E'' = (E/4)(t₁² + 2t₂ − 2t₃) with
  the t's of W_s.  The stored theorem ``twisted-symmetric-convexity`` writes t₁² + 2t₂ − 2t₃ as
  t₁² + 2tr(W⁻¹·W'W⁻¹W') + 4tr(W⁻¹·Y'Y') + 2tr(W⁻¹Y·Y'') + 2tr(YW⁻¹·Y''), five non-negative
  terms (W⁻¹Y ⪰ 0: W⁻¹ and Y commute; Y'' = 2RNΣNᵀR ⪰ 0).  The matrix-form steps are the proofs
  ``energy-second-variation``, ``twisted-symmetric-similarity``, ``similarity-sign-term``,
  ``twisted-symmetric-derivatives``, ``twisted-geodesic-first-derivative``,
  ``twisted-geodesic-second-derivative`` and the theorem;
  the certificate kind ``twisted-gaussian-convexity`` replays the theorem and checks A exactly.
* d = 2, A = aI + bJ (a ≠ 0), V = vI (a fixed pair, A ≠ Aᵀ when b ≠ 0): E'' ≥ 0 exactly when
  b² ≤ 3a² — the sign form's determinant is xy·D₀²·Q with Q's exact Bernstein coefficients ≥ 0 over
  the whole domain (:mod:`symbolic_tf.symbolic.rotation_scaling_convexity`); the kind
  ``twisted-rotation-scaling-convexity`` re-runs that verification and checks the pair's form.
* Small Gaussians Σ = εΣ₀: E = ½(1 + ½tr(AᵀΣAΣ)) + O(ε⁴), so E'' = (ε²/4)Q(Σ₀, N) + O(ε⁴) with
  Q = tr(AᵀS₂AΣ₀) + tr(AᵀΣ₀AS₂) + 2tr(AᵀS₁AS₁), S₁ = NΣ₀ + Σ₀Nᵀ, S₂ = 2NΣ₀Nᵀ.  Q < 0 for some
  N ∈ VA⁻¹·Sym gives E'' < 0 for all small ε — found by search, re-checked exactly at a finite ε.
* d = 2, A = aI + bJ (J the rotation by π/2): for Σ = εI and any symmetric traceless N,
  t₁² + 2t₂ − 2t₃ = −8|N|²ε²(b² − 3a² − (a² + b²)²ε²)/(1 − (a² + b²)ε²)², negative for
  b² > 3a² and 0 < ε² < (b² − 3a²)/(a² + b²)²; every invertible V admits such an N.
* Finite Gaussians: small ones do not decide everything (A = I + ½J, V = diag(−1, 1/20)·A fails
  only near the boundary of the domain); a float search over Σ (up to the boundary) and B guides,
  the exact sign term decides.  ``free_direction_witness`` searches an unrestricted N and returns
  V = NA (B = I): a certified "not for every V" for a non-symmetric A.
* The converse (docs/mathematics.md §7): near a boundary point Σ_b (top singular value σ₁ = 1 of
  C = LᵀAL, Σ_b = LLᵀ) a direction with σ₁' = 0 and σ₁'' < 0 gives 4E''/E = 4r²σ₁''/(1 − r²) + O(1)
  at Σ = rΣ_b, negative as r → 1.  In d = 2, C = xyᵀ + τx₂y₂ᵀ, N = diag(s², −c²) gives
  σ₁'' = −2c²s²(3τ − 1)/(1 + τ); every invertible A ≠ Aᵀ with A + Aᵀ semidefinite and nonzero has such
  a C in its congruence class (in a plane, Σ concentrated on it).  ``boundary_witness`` finds Σ_b
  and N by floats and certifies Σ = rΣ_b exactly; ``twisted_gaussian_convexity_every_v`` decides
  "convex for every V" (true exactly for A = Aᵀ definite).
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ...exact.definiteness import definiteness
from ...exact.rational import fmpq_of, frac_str, fraction_of, nearest_fraction, Q, qmat
from ...spec.verdict import PROVED, REFUTED, UNDECIDED, Verdict
from ..check.certificate import Certificate
from ..check.claims import Claim, Quantifier

__all__ = ["rank_one_second_variation", "twisted_gaussian_witness", "small_gaussian_second_variation",
           "rotation_scaling_sign_term", "rotation_scaling_witness", "small_gaussian_witness",
           "finite_gaussian_witness", "free_direction_witness", "boundary_plane_curvature",
           "boundary_witness", "symmetric_convexity_certificate", "rotation_scaling_convexity_certificate", "twisted_gaussian_convexity",
           "twisted_gaussian_convexity_every_v", "SYMMETRIC_THEOREM", "SYMMETRIC_PROOFS", "SINGULAR_PROOFS", "EVERY_V_CLAIM",
           "EVERY_CURVE_CLAIM", "gaussian_convexity_every_curve", "rank_one_curve_witness", "small_curve_witness"]

KIND = "twisted-gaussian-nonconvexity"
CONVEX_KIND = "twisted-gaussian-convexity"
ROTATION_SCALING_KIND = "twisted-rotation-scaling-convexity"


def rank_one_second_variation(A, V, u, v, eps):
    """E''(0) along the twisted geodesic through N(0, εuuᵀ) with Bu = v, as
    (½ε²·(3ε²q²q'² + (q'² + qq'')g), g): E''(0) = first·g^{-5/2} (exact Fractions).

    Parameters
    ----------
    A, V : matrix-like
        Exact d×d matrices, A invertible.
    u : sequence of numbers
        The direction of Σ = εuuᵀ.
    v : sequence of numbers
        The displacement direction (w = VA⁻¹v).
    eps : number
        ε > 0.

    Returns
    -------
    (Fraction, Fraction)
        (first, g) with g = 1 − ε²q², q = uᵀAu, q' = uᵀ(A + Aᵀ)w, q'' = 2wᵀAw.
    """
    A, V = qmat(A), qmat(V)
    uq = flint.fmpq_mat(len(u), 1, [Q(x) for x in u])
    vq = flint.fmpq_mat(len(v), 1, [Q(x) for x in v])
    w = V * A.inv() * vq
    q = (uq.transpose() * A * uq)[0, 0]
    q1 = (uq.transpose() * (A + A.transpose()) * w)[0, 0]
    q2 = 2 * (w.transpose() * A * w)[0, 0]
    e = Q(eps)
    g = 1 - e * e * q * q
    first = e * e * (3 * e * e * q * q * q1 * q1 + (q1 * q1 + q * q2) * g) / 2
    return fraction_of(first), fraction_of(g)


def twisted_gaussian_witness(A, V) -> Verdict:
    """PROVED non-convexity (certificate) when sym(A) is indefinite and A, V are invertible;
    UNDECIDED otherwise (for sym(A) semidefinite every rank-one Gaussian has E'' ≥ 0).

    Parameters
    ----------
    A, V : matrix-like
        Exact d×d matrices.

    Returns
    -------
    Verdict
        PROVED with a ``twisted-gaussian-nonconvexity`` certificate, or UNDECIDED with the
        reason.
    """
    from ..check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data

    claim = "the softmax energy is not λ-convex (λ ≥ 0) along twisted Gaussian geodesics"
    Aq, Vq = qmat(A), qmat(V)
    n = Aq.nrows()
    if Aq.det() == 0 or Vq.det() == 0:
        return Verdict(UNDECIDED, claim, reason="needs A and V invertible")
    As = (Aq + Aq.transpose()) / 2
    dA = definiteness(As)
    if dA.psd or dA.nsd:
        return Verdict(UNDECIDED, claim, reason="A + Aᵀ is semidefinite: E'' ≥ 0 on every rank-one Gaussian "
                                                "(docs/mathematics.md §7); no witness of this family")
    dirs = _rank_one_directions(As)
    if dirs is None:
        return Verdict(UNDECIDED, claim, reason="no rational pair u (uᵀAu > 0), w (wᵀAw < 0) found")
    uq, wq, quu = dirs
    vq = Aq * Vq.inv() * wq                          # so that VA⁻¹v = w
    unorm = (uq.transpose() * uq)[0, 0]
    uv = (uq.transpose() * vq)[0, 0]
    B = (vq * uq.transpose() + uq * vq.transpose()) / unorm - uq * uq.transpose() * (uv / (unorm * unorm))
    S = _thicken(Aq, uq, quu, lambda S: second_variation_sign_data(Aq, Vq, S, B)[0] < 0)
    if S is None:
        return Verdict(UNDECIDED, claim, reason="the full-rank perturbation did not keep the sign")
    data = {k: [[frac_str(M[i, j]) for j in range(n)] for i in range(n)]
            for k, M in (("A", Aq), ("V", Vq), ("Sigma", S), ("B", B))}
    c = Claim("twisted-gaussian-nonconvexity", Quantifier.NONE, data)
    cert = Certificate(kind=KIND, claim=c, status=PROVED, data=data)
    return Verdict(PROVED, c.text(), "exact second variation", evidence={"certificate": cert.to_dict()},
                   reason="A + Aᵀ indefinite: a rank-one direction with q' = 0, qq'' < 0, made full rank")


def _rank_one_directions(As):
    """Rational u with uᵀAu > 0 and w ≠ 0, (A + Aᵀ)-orthogonal to u, with wᵀAw < 0 (from the extreme
    eigenvectors of the symmetric part As): (u, w, uᵀAu), or None."""
    n = As.nrows()
    _, Q = np.linalg.eigh(np.array([[float(As[i, j]) for j in range(n)] for i in range(n)]))
    uq = flint.fmpq_mat(n, 1, [fmpq_of(nearest_fraction(x, 64)) for x in Q[:, -1]])
    zq = flint.fmpq_mat(n, 1, [fmpq_of(nearest_fraction(x, 64)) for x in Q[:, 0]])
    quu, quz = (uq.transpose() * As * uq)[0, 0], (uq.transpose() * As * zq)[0, 0]
    if quu <= 0:
        return None
    wq = zq - uq * (quz / quu)                       # (A + Aᵀ)-orthogonal to u
    if (wq.transpose() * As * wq)[0, 0] >= 0:
        return None
    return uq, wq, quu


def _thicken(A, uq, quu, negative):
    """Σ = εuuᵀ + δI (ε = 1/(2uᵀAu)), δ divided by 4 until Σ has finite energy and ``negative(Σ)``
    holds (the caller's exact sign test): Σ, or None after 40 tries."""
    n = A.nrows()
    eps = 1 / (2 * quu)
    delta = flint.fmpq(1, 16) * eps
    for _ in range(40):
        S = uq * uq.transpose() * eps + _eye(n) * delta
        if definiteness(S.inv() - A.transpose() * S * A).pd and negative(S):
            return S
        delta /= 4
    return None


def _shrink(A, S0, negative, tries: int = 80):
    """Σ = εΣ₀, ε halved from 1 until Σ has finite energy and ``negative(Σ)`` holds: Σ or None."""
    eps = flint.fmpq(1)
    for _ in range(tries):
        S = S0 * eps
        if definiteness(S.inv() - A.transpose() * S * A).pd and negative(S):
            return S
        eps /= 2
    return None


def _gram(A, Ns, S0):
    """The Gram matrix of c ↦ Q(Σ₀, Σ cᵢNᵢ) (exact, by polarisation)."""
    k = len(Ns)
    G = [[flint.fmpq(0)] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            G[i][j] = G[j][i] = (_small_q(A, Ns[i] + Ns[j], S0) - _small_q(A, Ns[i] - Ns[j], S0)) / 4
    return G


# ---- full-rank Gaussians (docs/mathematics.md §7, "the decision") -----------------------------
SYMMETRIC_THEOREM = "twisted-symmetric-convexity"
#: the matrix-form proofs that take E'' to the stored theorem's sign term (docs/mathematics.md §7)
SYMMETRIC_PROOFS = ("energy-second-variation", "twisted-symmetric-similarity", "similarity-sign-term",
                    "twisted-symmetric-derivatives", "twisted-geodesic-first-derivative",
                    "twisted-geodesic-second-derivative")
#: for a singular A: the determinant identity by Sylvester's rule replaces the similarity by R⁻¹
SINGULAR_PROOFS = ("energy-second-variation", "twisted-semidefinite-determinant", "twisted-symmetric-derivatives",
                   "twisted-geodesic-first-derivative", "twisted-geodesic-second-derivative")
CONVEX_CLAIM = ("the softmax energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) is convex (d²E/ds² ≥ 0) along every "
                "twisted geodesic Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ, B = Bᵀ, through every Σ ≻ 0 of finite energy")


def _tr(M):
    return sum((M[i, i] for i in range(M.nrows())), flint.fmpq(0))


def _eye(n):
    return flint.fmpq_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])


def _small_q(A, N, S0):
    S1 = N * S0 + S0 * N.transpose()
    S2 = 2 * N * S0 * N.transpose()
    At = A.transpose()
    return _tr(At * S2 * A * S0) + _tr(At * S0 * A * S2) + 2 * _tr(At * S1 * A * S1)


def small_gaussian_second_variation(A, V, Sigma0, B):
    """The leading coefficient Q of E'' along the twisted geodesic through Σ = εΣ₀:
    E''(0) = (ε²/4)·Q + O(ε⁴) as ε → 0, with N = VA⁻¹B, S₁ = NΣ₀ + Σ₀Nᵀ, S₂ = 2NΣ₀Nᵀ and

        Q = tr(AᵀS₂AΣ₀) + tr(AᵀΣ₀AS₂) + 2tr(AᵀS₁AS₁)

    (E = ½(1 + ½tr(AᵀΣAΣ)) + O(ε⁴), and d²/ds² tr(AᵀΣ_sAΣ_s) = ε²Q at s = 0).

    Parameters
    ----------
    A, V, Sigma0, B : matrix-like
        Exact d×d matrices; A invertible, B symmetric.

    Returns
    -------
    Fraction
        Q, exactly.
    """
    A, V, S0, B = qmat(A), qmat(V), qmat(Sigma0), qmat(B)
    return fraction_of(_small_q(A, V * A.inv() * B, S0))


def rotation_scaling_sign_term(a, b, eps, N):
    """Closed form of t₁² + 2t₂ − 2t₃ (= 4E''/E) in d = 2 for A = aI + bJ, J = [[0, 1], [−1, 0]],
    at Σ = εI along N symmetric and traceless:

        t₁² + 2t₂ − 2t₃ = −8|N|²ε²(b² − 3a² − (a² + b²)²ε²) / (1 − (a² + b²)ε²)²

    (A commutes with rotations, Σ_s = ε(I + sN)² has eigenvalues ε(1 ± s|N|/√2)² and
    det(I − AᵀΣAΣ) = 1 − a²(λ₁² + λ₂²) − 2b²λ₁λ₂ + (a² + b²)²λ₁²λ₂²).

    Parameters
    ----------
    a, b, eps : number
        Exact rationals, 0 < ε and (a² + b²)ε² < 1.
    N : matrix-like
        A 2×2 symmetric traceless matrix (|N|² = tr(NNᵀ)).

    Returns
    -------
    Fraction
        The value of the closed form.
    """
    a, b, e = Fraction(a), Fraction(b), Fraction(eps)
    Nq = qmat(N)
    n2 = fraction_of(_tr(Nq * Nq.transpose()))
    r = a * a + b * b
    return -8 * n2 * e * e * (b * b - 3 * a * a - r * r * e * e) / (1 - r * e * e) ** 2


def rotation_scaling_witness(A, V):
    """The d = 2 witness family: A = aI + bJ with b² > 3a², V invertible.  Returns
    (Σ, B) with Σ = εI, ε² < (b² − 3a²)/(a² + b²)², and B = AV⁻¹N for a symmetric traceless N
    with AV⁻¹N symmetric (one linear condition on the 2-dimensional space of such N), or None.

    Parameters
    ----------
    A, V : matrix-like
        Exact 2×2 matrices.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat) or None
        (Σ, B) — t₁² + 2t₂ − 2t₃ < 0 there (:func:`rotation_scaling_sign_term`) — or None when A is
        not of that form or V is singular.
    """
    A, V = qmat(A), qmat(V)
    if A.nrows() != 2 or V.nrows() != 2 or V.det() == 0:
        return None
    a, b = A[0, 0], A[0, 1]
    if A[1, 1] != a or A[1, 0] != -b or b * b <= 3 * a * a:
        return None
    M = A * V.inv()
    # N = [[x, y], [y, −x]]: (MN)₀₁ = (MN)₁₀ is one linear equation α·x + β·y = 0
    mn = lambda x, y: M * flint.fmpq_mat(2, 2, [x, y, y, -x])  # noqa: E731
    p, q = mn(1, 0), mn(0, 1)
    alpha, beta = p[0, 1] - p[1, 0], q[0, 1] - q[1, 0]
    x, y = (beta, -alpha) if (alpha != 0 or beta != 0) else (flint.fmpq(1), flint.fmpq(0))
    N = flint.fmpq_mat(2, 2, [x, y, y, -x])
    B = M * N
    r = a * a + b * b
    bound = (b * b - 3 * a * a) / (r * r)            # ε² must stay below it
    eps = flint.fmpq(1)
    while eps * eps >= bound:
        eps /= 2
    return _eye(2) * eps, B


def _sym_basis(n):
    out = []
    for i in range(n):
        for j in range(i, n):
            E = flint.fmpq_mat(n, n)
            E[i, j] = 1
            E[j, i] = 1
            out.append(E)
    return out


def _unit_basis(n):
    out = []
    for i in range(n):
        for j in range(n):
            E = flint.fmpq_mat(n, n)
            E[i, j] = 1
            out.append(E)
    return out


def _quad_matrix(A, V, S0):
    """The Gram matrix of B ↦ Q(Σ₀, VA⁻¹B) in the basis E_ij + E_ji (exact, by polarisation)."""
    W = V * A.inv()
    return _gram(A, [W * E for E in _sym_basis(A.nrows())], S0)


def _float_min_dir(G):
    Gf = np.array([[float(x) for x in row] for row in G])
    lam, Q = np.linalg.eigh(Gf)
    return lam[0], Q[:, 0]


def _rat_pd(Mf, den=64):
    n = Mf.shape[0]
    M = flint.fmpq_mat(n, n)
    for i in range(n):
        for j in range(n):
            M[i, j] = fmpq_of(nearest_fraction((Mf[i, j] + Mf[j, i]) / 2, den))
    return M


def small_gaussian_witness(A, V, tries: int = 40, seed: int = 0):
    """Search a ``twisted-gaussian-nonconvexity`` point among small Gaussians Σ = εΣ₀: a Σ₀ ≻ 0
    and B = Bᵀ with Q(Σ₀, VA⁻¹B) < 0 (:func:`small_gaussian_second_variation`, exact), then ε
    halved until Σ = εΣ₀ has finite energy and the exact t₁² + 2t₂ − 2t₃ is negative.  Floats only
    guide the search (candidate Σ₀: I, random, then a Nelder–Mead descent of the smallest
    eigenvalue of the form); everything returned is re-checked exactly.

    Parameters
    ----------
    A, V : matrix-like
        Exact d×d matrices, A invertible (V may be singular: N then ranges over VA⁻¹·Sym).
    tries : int
        Random candidates Σ₀ besides I.
    seed : int
        Seed of the candidate generator.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat) or None
        (Σ, B) with E'' < 0 at Σ along N = VA⁻¹B, or None if none was found.
    """
    from ..check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data

    A, V = qmat(A), qmat(V)
    n = A.nrows()
    if A.det() == 0:
        return None
    rng = np.random.default_rng(seed)

    def score(S0f):
        try:
            S0 = _rat_pd(S0f, 1 << 12)
            if not definiteness(S0).pd:
                return np.inf, None
            G = _quad_matrix(A, V, S0)
        except (ValueError, ZeroDivisionError):
            return np.inf, None
        lam, _ = _float_min_dir(G)
        return lam / float(_tr(S0)) ** 2, S0

    cands = [np.eye(n)]
    for _ in range(tries):
        L = rng.normal(size=(n, n))
        cands.append(L @ L.T + 0.05 * np.eye(n))
    best = min((score(c / np.trace(c)) + (c,) for c in cands), key=lambda t: t[0])
    if best[0] >= 0 and n <= 4:          # descend from the best candidate (Cholesky parameters)
        from scipy.optimize import minimize

        iu = np.tril_indices(n)

        def f(x):
            L = np.zeros((n, n))
            L[iu] = x
            S0f = L @ L.T + 1e-3 * np.eye(n)
            return score(S0f / np.trace(S0f))[0]
        x0 = np.linalg.cholesky(best[2])[iu]
        r = minimize(f, x0, method="Nelder-Mead", options={"maxiter": 150 * n * n})
        L = np.zeros((n, n))
        L[iu] = r.x
        S0f = L @ L.T + 1e-3 * np.eye(n)
        v, S0 = score(S0f / np.trace(S0f))
        if v < best[0]:
            best = (v, S0, S0f)
    if not best[0] < 0 or best[1] is None:
        return None
    S0 = best[1]
    G = _quad_matrix(A, V, S0)
    _, vec = _float_min_dir(G)
    basis = _sym_basis(n)
    for den in (8, 64, 1 << 10, 1 << 16):
        c = [fmpq_of(nearest_fraction(x / np.abs(vec).max(), den)) for x in vec]
        val = sum((c[i] * G[i][j] * c[j] for i in range(len(c)) for j in range(len(c))), flint.fmpq(0))
        if val < 0:
            break
    else:
        return None
    B = flint.fmpq_mat(n, n)
    for ci, E in zip(c, basis):
        B += E * ci
    S = _shrink(A, S0, lambda S: second_variation_sign_data(A, V, S, B)[0] < 0)
    return None if S is None else (S, B)


def _float_sign_gram(A, S, Ns):
    """Float Gram matrix of the sign term t₁² + 2t₂ − 2t₃ (a quadratic form in N) on the list Ns."""
    n = A.shape[0]
    X = np.eye(n) - A.T @ S @ A @ S
    Xi = np.linalg.inv(X)

    def term(N):
        S1 = N @ S + S @ N.T
        S2 = 2 * N @ S @ N.T
        X1 = -A.T @ (S1 @ A @ S + S @ A @ S1)
        X2 = -A.T @ (S2 @ A @ S + 2 * S1 @ A @ S1 + S @ A @ S2)
        t1 = np.trace(Xi @ X1)
        return t1 * t1 + 2 * np.trace(Xi @ X1 @ Xi @ X1) - 2 * np.trace(Xi @ X2)
    k = len(Ns)
    G = np.zeros((k, k))
    for i in range(k):
        for j in range(i, k):
            G[i, j] = G[j, i] = (term(Ns[i] + Ns[j]) - term(Ns[i] - Ns[j])) / 4
    return G


def _finite_search(A, Ns, tries, seed):
    """Float minimisation over Σ in the domain, Σ = r·Σ₀/√λ_max(Σ₀^{1/2}AᵀΣ₀AΣ₀^{1/2}) with
    r = 1 − e^{−y²} ∈ [0, 1) (the negative regions can lie very close to the boundary),
    of the smallest eigenvalue of the sign form on span(Ns), relative to its largest; returns
    (value, Σ as floats, coefficient vector)."""
    from scipy.linalg import eigh, sqrtm
    from scipy.optimize import minimize

    n = A.shape[0]
    iu = np.tril_indices(n)
    rng = np.random.default_rng(seed)
    gram = np.array([[float(np.sum(Ni * Nj)) for Nj in Ns] for Ni in Ns])
    if np.linalg.eigvalsh(gram)[0] <= 1e-12 * max(1.0, np.abs(gram).max()):
        gram = None                                   # V singular: the directions are dependent

    def point(x):
        L = np.zeros((n, n))
        L[iu] = x[:-1]
        S0 = L @ L.T + 1e-4 * np.eye(n)
        S0 /= np.trace(S0)
        R = np.real(sqrtm(S0))
        lam = np.linalg.eigvalsh(R @ A.T @ S0 @ A @ R).max()
        r = -np.expm1(-min(x[-1] * x[-1], 40.0))     # r = 1 − e^{−y²}: the boundary is reachable
        return r * S0 / np.sqrt(lam)

    def f(x):
        try:
            S = point(x)
            G = _float_sign_gram(A, S, Ns)
            lam = eigh(G, gram, eigvals_only=True)
            return lam[0] / max(abs(lam).max(), 1e-300)
        except (np.linalg.LinAlgError, ValueError):
            return 1.0
    best = (np.inf, None)
    for _ in range(tries):
        x0 = np.concatenate([rng.normal(size=len(iu[0])), [rng.uniform(0.3, 3.0)]])
        r = minimize(f, x0, method="Nelder-Mead", options={"maxiter": 400 * n})
        if r.fun < best[0]:
            best = (r.fun, r.x)
        if best[0] < -1e-6:
            break
    if best[1] is None or not best[0] < 0:
        return None
    S = point(best[1])
    _, U = eigh(_float_sign_gram(A, S, Ns), gram)
    return best[0], S, U[:, 0]


def _certify_finite(A, V, Ns_exact, S, vec, make_B):
    """Rationalise Σ and the direction, and keep the first exact negative sign term."""
    from ..check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data

    n = A.nrows()
    for den in (1 << 8, 1 << 14, 1 << 20, 1 << 30):
        Sq = _rat_pd(S, den)
        if not definiteness(Sq).pd or not definiteness(Sq.inv() - A.transpose() * Sq * A).pd:
            continue
        c = [fmpq_of(nearest_fraction(x / np.abs(vec).max(), den)) for x in vec]
        Nq = flint.fmpq_mat(n, n)
        for ci, Ni in zip(c, Ns_exact):
            Nq += Ni * ci
        Vq, Bq = make_B(Nq)
        if Vq is None:
            continue
        term, xi2 = second_variation_sign_data(A, Vq, Sq, Bq)
        if term < 0 and xi2 > 0:
            return Sq, Vq, Bq
    return None


def finite_gaussian_witness(A, V, tries: int = 12, seed: int = 0):
    """Search a ``twisted-gaussian-nonconvexity`` point at a finite Gaussian: floats minimise the
    smallest eigenvalue of the sign form B ↦ t₁² + 2t₂ − 2t₃ over Σ in the domain; the point and
    the direction are then rationalised and re-checked exactly.

    Parameters
    ----------
    A, V : matrix-like
        Exact d×d matrices, A invertible.
    tries : int
        Nelder–Mead restarts.
    seed : int
        Seed of the restarts.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat) or None
        (Σ, B) with E'' < 0, or None.
    """
    A, V = qmat(A), qmat(V)
    if A.det() == 0:
        return None
    n = A.nrows()
    W = V * A.inv()
    basis = _sym_basis(n)
    Af = np.array([[float(A[i, j]) for j in range(n)] for i in range(n)])
    Ns = [np.array([[float(M[i, j]) for j in range(n)] for i in range(n)]) for M in (W * E for E in basis)]
    found = _finite_search(Af, Ns, tries, seed)
    if found is None:
        return None
    _, S, vec = found

    def make_B(_N):
        Bq = flint.fmpq_mat(n, n)
        for ci, E in zip([fmpq_of(nearest_fraction(x / np.abs(vec).max(), 1 << 20)) for x in vec], basis):
            Bq += E * ci
        return V, Bq
    out = _certify_finite(A, V, [W * E for E in basis], S, vec, make_B)
    return None if out is None else (out[0], out[2])


def free_direction_witness(A, tries: int = 12, seed: int = 0):
    """A value matrix V for which twisted convexity on Gaussians fails: first the boundary family
    (:func:`boundary_witness` with N unrestricted), then a float search of Σ and an unrestricted N;
    B = I and V = NA (so VA⁻¹B = N), rationalised and re-checked exactly.  For A = Aᵀ definite none
    exists (docs/mathematics.md §7).

    Parameters
    ----------
    A : matrix-like
        An exact invertible d×d matrix.
    tries : int
        Nelder–Mead restarts.
    seed : int
        Seed of the restarts.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat, flint.fmpq_mat) or None
        (V, Σ, B) with E'' < 0 at Σ along the twisted geodesic of (A, V), or None.
    """
    A = qmat(A)
    if A.det() == 0:
        return None
    w = boundary_witness(A, None, seed=seed)
    if w is not None:
        return w[1], w[0], w[2]
    n = A.nrows()
    units = _unit_basis(n)
    Af = np.array([[float(A[i, j]) for j in range(n)] for i in range(n)])
    Ns = [np.array([[float(M[i, j]) for j in range(n)] for i in range(n)]) for M in units]
    found = _finite_search(Af, Ns, tries, seed)
    if found is None:
        return None
    _, S, vec = found
    out = _certify_finite(A, None, units, S, vec, lambda Nq: (Nq * A, _eye(n)))
    return None if out is None else (out[1], out[0], out[2])


# ---- the boundary family (docs/mathematics.md §7, "the converse") ----------------------------
def _boundary_form(A, S, Ns):
    """Float data of the boundary mechanism at Σ (scaled onto the boundary): with Σ = LLᵀ,
    C = LᵀAL/σ₁, Ñ = L⁻¹NL, the top singular value σ₁ of C_s = (I + sÑ)ᵀC(I + sÑ) has
    σ₁' = xᵀC₁y and σ₁'' = xᵀC₂y + 2Σ_j (w_jᵀH₁v)²/(1 − λ_j) (H the symmetric embedding of C).
    Returns (Σ on the boundary, linear form, Gram matrix) on span(Ns), or None (σ₁ not simple)."""
    n = A.shape[0]
    L = np.linalg.cholesky((S + S.T) / 2)
    C = L.T @ A @ L
    sig = np.linalg.norm(C, 2)
    C = C / sig
    Z = np.zeros((n, n))
    lam, W = np.linalg.eigh(np.block([[Z, C], [C.T, Z]]))
    if lam[-1] - lam[-2] < 1e-6:
        return None
    v = W[:, -1]
    x, y = v[:n] * np.sqrt(2), v[n:] * np.sqrt(2)
    Nt = [np.linalg.solve(L, N @ L) for N in Ns]
    k = len(Nt)
    lin = np.empty(k)
    h = np.empty((k, 2 * n - 1))
    for i, N in enumerate(Nt):
        C1 = N.T @ C + C @ N
        lin[i] = x @ C1 @ y
        h[i] = W[:, :-1].T @ np.concatenate([C1 @ y, C1.T @ x]) / np.sqrt(2)
    P = np.array([N @ x for N in Nt]) @ np.array([C @ (N @ y) for N in Nt]).T    # (Ñᵢx)ᵀC(Ñⱼy)
    G = P + P.T + 2 * (h / (lam[-1] - lam[:-1])) @ h.T
    return S / sig, lin, G


def _boundary_direction(A, S, Ns):
    """(relative smallest eigenvalue, Σ on the boundary, coefficients) of σ₁'' on span(Ns) ∩ {σ₁' = 0}."""
    out = _boundary_form(A, S, Ns)
    if out is None:
        return np.inf, None, None
    Sb, lin, G = out
    F = np.array([N.ravel() for N in Ns])
    U, s, _ = np.linalg.svd(F, full_matrices=False)
    keep = s > 1e-10 * s[0]
    T = U[:, keep] / s[keep]                       # coefficients of an orthonormal basis of span(Ns)
    l2 = lin @ T
    if np.linalg.norm(l2) > 0:
        Q, _ = np.linalg.qr(np.column_stack([l2, np.eye(len(l2))]))
        T = T @ Q[:, 1:len(l2)]
    if T.shape[1] == 0:
        return np.inf, None, None
    ev, Ev = np.linalg.eigh(T.T @ G @ T)
    return ev[0] / max(abs(ev).max(), 1e-300), Sb, T @ Ev[:, 0]


def _plane_seeds(A):
    """Boundary candidates Σ concentrated on the plane of the largest skew rotation of A: Σ = LLᵀ,
    L = [W·L₂, η·W⊥], with C₂ = L₂ᵀ(WᵀAW)L₂ of singular-value ratio in (1/3, 1)."""
    n = A.shape[0]
    K = (A - A.T) / 2
    if np.linalg.norm(K) < 1e-12:
        return []
    U, _, _ = np.linalg.svd(K)
    u = U[:, 0]
    w = K @ u
    w /= np.linalg.norm(w)
    Wp = np.column_stack([u, w])
    comp = np.linalg.qr(np.column_stack([Wp, np.eye(n)]))[0][:, 2:n]
    M = Wp.T @ A @ Wp
    out = []
    for phi in np.linspace(0, np.pi, 6, endpoint=False):
        R = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
        for b in np.geomspace(1 / 20, 20, 13):
            L2 = R @ np.diag([1.0, b])
            sv = np.linalg.svd(L2.T @ M @ L2, compute_uv=False)
            if not 0.34 * sv[0] < sv[1] < 0.98 * sv[0]:
                continue
            for eta in ((0.3, 0.1) if n > 2 else (0.0,)):
                L = np.column_stack([Wp @ L2, eta * np.sqrt(sv[0] / np.linalg.norm(A, 2)) * comp])
                out.append(L @ L.T)
    return out


def boundary_plane_curvature(c, s, tau):
    """The closed form of the d = 2 boundary family: for C = xyᵀ + τx₂y₂ᵀ with x = (c, s),
    y = (c, −s), x₂ = (−s, c), y₂ = (s, c) (c² + s² = 1, 0 ≤ τ < 1, so ‖C‖ = 1 with top singular
    pair (x, y)) and N = diag(s², −c²), the top singular value of C_s = (I + sN)ᵀC(I + sN) has
    σ₁'(0) = 0 and

        σ₁''(0) = −2c²s²(3τ − 1)/(1 + τ),

    negative when cs ≠ 0 (x ≠ ±y) and τ > 1/3.  At A = C, Σ = rI (r → 1⁻) and V = NA, B = I,
    (1 − r²)(t₁² + 2t₂ − 2t₃) → 4σ₁''(0) (docs/mathematics.md §7, "the converse"), verified
    symbolically for every member by :func:`symbolic_tf.symbolic.twisted_boundary.boundary_plane_limit`.

    Parameters
    ----------
    c, s : number
        Exact rationals with c² + s² = 1.
    tau : number
        The second singular value, an exact rational in [0, 1).

    Returns
    -------
    Fraction
        σ₁''(0).
    """
    c, s, t = Fraction(c), Fraction(s), Fraction(tau)
    if c * c + s * s != 1 or not 0 <= t < 1:
        raise ValueError("needs c² + s² = 1 and 0 ≤ τ < 1")
    return -2 * c * c * s * s * (3 * t - 1) / (1 + t)


def _certify_boundary(A, Sb, coef, Ns_exact, make):
    """Rationalise the direction, move Σ = rΣ_b inside the domain (r = 1 − 2⁻ᵏ) and keep the first
    exact negative sign term: (Σ, *make(...)) or None — (Σ, V, B), or (Σ, N) when ``make`` returns
    the curve's N alone."""
    from ..check.kinds.twisted_gaussian_nonconvexity import curve_sign_data, second_variation_sign_data

    At = A.transpose()
    for den in (1 << 24, 1 << 40):
        cq = [fmpq_of(nearest_fraction(x / np.abs(coef).max(), den)) for x in coef]
        Nq = flint.fmpq_mat(A.nrows(), A.ncols())
        for ci, Ni in zip(cq, Ns_exact):
            Nq += Ni * ci
        made = make(cq, Nq)
        for k in range(2, 42, 2):
            Sq = _rat_pd((1 - 2.0 ** -k) * Sb, max(den, 1 << (k + 16)))
            if not definiteness(Sq).pd or not definiteness(Sq.inv() - At * Sq * A).pd:
                continue
            term, xi2 = (curve_sign_data(A, made[0], Sq) if len(made) == 1
                         else second_variation_sign_data(A, made[0], Sq, made[1]))
            if term < 0 and xi2 > 0:
                return (Sq, *made)
    return None


def boundary_witness(A, V=None, tries: int = 8, seed: int = 0, curve: bool = False):
    """A ``twisted-gaussian-nonconvexity`` point near the boundary of the domain (docs/mathematics.md
    §7, "the converse").  At a boundary point Σ_b (top singular value σ₁ = 1 of C = LᵀAL, Σ_b = LLᵀ,
    simple) and a direction N with σ₁' = 0, σ₁'' < 0 along C_s = (I + sÑ)ᵀC(I + sÑ), Ñ = L⁻¹NL,
    the points Σ = rΣ_b have 4E''/E = t₁² + 2t₂ − 2t₃ = 4(c''/c − ½m''/m), m = 1 − r²σ₁(s)²
    (c the smooth rest of det^{-1/2}), which is negative for r close to 1.  Floats find Σ_b (first
    the plane family of the largest skew rotation of A, then random points and a Nelder–Mead
    descent) and N; Σ = rΣ_b and N are rationalised and the sign term is re-checked exactly.

    Parameters
    ----------
    A : matrix-like
        An exact invertible d×d matrix.
    V : matrix-like or None
        The value matrix (N ranges over VA⁻¹·Sym), or None: N unrestricted, and the returned
        V = NA, B = I realise it (a "not for every V" witness).
    tries : int
        Random boundary candidates besides the plane family.
    seed : int
        Seed of the random candidates.
    curve : bool
        With V None: return the curve's N itself, (Σ, N), so that A may be singular (the kind
        ``gaussian-curve-nonconvexity``).

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat, flint.fmpq_mat) or None
        (Σ, V, B) with E'' < 0 at Σ along N = VA⁻¹B (exact) — (Σ, N) when ``curve`` — or None if
        none was found.
    """
    A = qmat(A)
    n = A.nrows()
    if V is None and curve:
        Ns_exact = _unit_basis(n)

        def make(_cq, Nq):
            return (Nq,)
    elif A.det() == 0:
        return None
    elif V is None:
        Ns_exact = _unit_basis(n)

        def make(_cq, Nq):
            return Nq * A, _eye(n)
    else:
        V = qmat(V)
        basis = _sym_basis(n)
        W = V * A.inv()
        Ns_exact = [W * E for E in basis]

        def make(cq, _Nq):
            Bq = flint.fmpq_mat(n, n)
            for ci, E in zip(cq, basis):
                Bq += E * ci
            return V, Bq
    Af = np.array([[float(A[i, j]) for j in range(n)] for i in range(n)])
    Ns = [np.array([[float(M[i, j]) for j in range(n)] for i in range(n)]) for M in Ns_exact]
    if max(np.abs(N).max() for N in Ns) == 0:
        return None
    rng = np.random.default_rng(seed)
    cands = _plane_seeds(Af)
    for _ in range(tries):
        L = rng.normal(size=(n, n))
        cands.append(L @ L.T + 0.05 * np.eye(n))
    scored = sorted((t for t in (_boundary_direction(Af, S, Ns) for S in cands) if t[1] is not None),
                    key=lambda t: t[0])
    for val, Sb, coef in scored[:4]:
        if val < 0:
            out = _certify_boundary(A, Sb, coef, Ns_exact, make)
            if out is not None:
                return out
    if not scored:
        return None
    from scipy.optimize import minimize

    iu = np.tril_indices(n)

    def point(x):
        L = np.zeros((n, n))
        L[iu] = x
        return L @ L.T + 1e-6 * np.eye(n)

    def f(x):
        try:
            return _boundary_direction(Af, point(x), Ns)[0]
        except np.linalg.LinAlgError:
            return np.inf
    for _, Sb, _ in scored[:1]:
        r = minimize(f, np.linalg.cholesky(Sb)[iu], method="Nelder-Mead", options={"maxiter": 200 * n})
        val, Sb2, coef = _boundary_direction(Af, point(r.x), Ns)
        if val < 0:
            out = _certify_boundary(A, Sb2, coef, Ns_exact, make)
            if out is not None:
                return out
    return None


def _nonconvexity_certificate(A, V, S, B, reason):
    n = A.nrows()
    data = {k: [[frac_str(M[i, j]) for j in range(n)] for i in range(n)]
            for k, M in (("A", A), ("V", V), ("Sigma", S), ("B", B))}
    c = Claim("twisted-gaussian-nonconvexity", Quantifier.NONE, data)
    cert = Certificate(kind=KIND, claim=c, status=PROVED, data=data)
    return Verdict(REFUTED, CONVEX_CLAIM, "exact second variation (twisted-gaussian-nonconvexity)",
                   evidence={"certificate": cert.to_dict()}, reason=reason)


def symmetric_convexity_certificate(A):
    """A ``twisted-gaussian-convexity`` certificate for A = Aᵀ definite: E'' ≥ 0 along every twisted
    geodesic through every finite-energy Gaussian, for every V (docs/mathematics.md §7).  Its data are
    A, the stored theorem ``twisted-symmetric-convexity`` and that file's SHA-256; it is re-checked by
    :func:`symbolic_tf.certify.check.check` before it is returned.

    Parameters
    ----------
    A : matrix-like
        An exact d×d matrix.

    Returns
    -------
    dict or None
        The checked certificate (``Certificate.to_dict()``), or None when A is not symmetric
        definite, the theorem does not replay or the checker rejects the certificate.
    """
    from types import SimpleNamespace

    from ...spec.errors import CertificationFailed
    from ..check.kinds.twisted_gaussian_convexity import check_twisted_convexity
    from ..check.matrix_proofs.order import stored_theorem

    Aq = qmat(A)
    n = Aq.nrows()
    if n < 1 or Aq.ncols() != n or Aq != Aq.transpose():
        return None
    try:
        sha, _ = stored_theorem(SYMMETRIC_THEOREM)
        data = {"A": [[frac_str(Aq[i, j]) for j in range(n)] for i in range(n)],
                "theorem": SYMMETRIC_THEOREM, "theorem_sha256": sha}
        # the kind's checker names the claim (A definite, or singular and semidefinite, and the sign): one rule
        _, c = check_twisted_convexity(SimpleNamespace(data=data), None)
    except CertificationFailed:
        return None
    return _checked(CONVEX_KIND, c, data)


def rotation_scaling_convexity_certificate(A, V):
    """A ``twisted-rotation-scaling-convexity`` certificate for the pair A = aI + bJ (a ≠ 0,
    b² ≤ 3a²), V = vI (v ≠ 0) in d = 2: E'' ≥ 0 along every twisted geodesic of this pair through
    every finite-energy Gaussian (docs/mathematics.md §7, "A fixed pair";
    :mod:`symbolic_tf.symbolic.rotation_scaling_convexity`).  It is re-checked by
    :func:`symbolic_tf.certify.check.check` before it is returned.

    Parameters
    ----------
    A, V : matrix-like
        Exact 2×2 matrices.

    Returns
    -------
    dict or None
        The checked certificate, or None when the pair is not of that form or the checker rejects it.
    """
    # the checker decides the pair's form (2×2, aI + bJ with b² ≤ 3a², V = vI) before any symbolic work
    data = {k: [[frac_str(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]
            for k, M in (("A", qmat(A)), ("V", qmat(V)))}
    return _checked(ROTATION_SCALING_KIND, Claim(ROTATION_SCALING_KIND, Quantifier.NONE, data), data)


def _checked(kind, claim, data):
    """The certificate (as a dict) of ``claim`` with ``data`` when the checker proves it, else None."""
    from ...spec.errors import CertificationFailed
    from ..check import check

    cert = Certificate(kind=kind, claim=claim, status=PROVED, data=data).to_dict()
    try:
        res = check(cert)
    except CertificationFailed:
        return None
    return cert if res.ok and res.status == PROVED else None


def twisted_gaussian_convexity(A, V, tries: int = 40) -> Verdict:
    """Decide "E'' ≥ 0 along every twisted geodesic on every full-rank Gaussian" for (A, V)
    (docs/mathematics.md §7).

    * PROVED when A = Aᵀ is definite (any V): E = ½det(I − Y²)^{-1/2}, Y = RΣR, ±A = R², is a
      convex non-decreasing function of Y on 0 ⪯ Y ≺ I and Y_s is Loewner-convex; the evidence
      carries a ``twisted-gaussian-convexity`` certificate (:func:`symmetric_convexity_certificate`:
      A, the stored theorem and its SHA-256, re-checked by the checker) and names the proofs.  V = 0 (constant
      geodesics) is UNDECIDED with that reason: no certificate kind states it.
    * PROVED when d = 2, A = aI + bJ with a ≠ 0, b² ≤ 3a², and V = vI, v ≠ 0 (a pair with A not
      symmetric): certificate ``twisted-rotation-scaling-convexity``
      (:func:`rotation_scaling_convexity_certificate`).
    * REFUTED, with a ``twisted-gaussian-nonconvexity`` certificate, when a witness is found: the
      rank-one family (A + Aᵀ indefinite, V invertible), the d = 2 rotation–scaling family
      (A = aI + bJ, b² > 3a², V invertible), the small-Gaussian search
      (:func:`small_gaussian_witness`), the boundary search (:func:`boundary_witness`, N ∈ VA⁻¹·Sym)
      or the finite-Gaussian search (:func:`finite_gaussian_witness`).
    * UNDECIDED otherwise (A singular, or no witness found — numerical evidence only).

    Parameters
    ----------
    A, V : matrix-like
        Exact d×d matrices.
    tries : int
        Random Σ₀ candidates of the small-Gaussian search.

    Returns
    -------
    Verdict
        PROVED / REFUTED / UNDECIDED about :data:`CONVEX_CLAIM`.
    """
    Aq, Vq = qmat(A), qmat(V)
    n = Aq.nrows()
    if Aq.ncols() != n or Vq.nrows() != n or Vq.ncols() != n:
        return Verdict(UNDECIDED, CONVEX_CLAIM, reason="A and V must be square of one size")
    if Aq.det() == 0:
        return Verdict(UNDECIDED, CONVEX_CLAIM, reason="A singular: the twisted metric needs A⁻¹")
    dA = definiteness((Aq + Aq.transpose()) / 2)
    if Aq == Aq.transpose() and (dA.pd or dA.nd):
        cert = symmetric_convexity_certificate(Aq)
        if cert is None:
            return Verdict(UNDECIDED, CONVEX_CLAIM, reason="the stored theorem did not replay or the certificate "
                                                           "was rejected by the checker")
        return Verdict(PROVED, CONVEX_CLAIM, "matrix-form theorem: E''/E as a sum of five non-negative traces "
                                             "(twisted-gaussian-convexity)",
                       evidence={"certificate": cert, "theorem": SYMMETRIC_THEOREM,
                                 "theorem_sha256": cert["data"]["theorem_sha256"],
                                 "proofs": list(SYMMETRIC_PROOFS)},
                       reason="A = Aᵀ definite: with Y = RΣR (±A = R²) and W = I − Y², 4E''/E = t₁² + "
                              "2tr(W⁻¹W'W⁻¹W') + 4tr(W⁻¹Y'Y') + 2tr(W⁻¹YY'') + 2tr(YW⁻¹Y'') ≥ 0 — for every V")
    cert = rotation_scaling_convexity_certificate(Aq, Vq) if n == 2 else None
    if cert is not None:
        return Verdict(PROVED, CONVEX_CLAIM, "symbolic verification of the rotation–scaling family with V = vI "
                                             "(twisted-rotation-scaling-convexity)",
                       evidence={"certificate": cert},
                       reason="d = 2, A = aI + bJ with b² ≤ 3a², V = vI: the sign form of E'' has det M = xy·D₀²·Q "
                              "with Q's exact Bernstein coefficients ≥ 0 on the whole domain, and M ≻ 0 at one point")
    if Vq == flint.fmpq_mat(n, n):   # true but uncertified: no kind states it (a PROVED verdict needs one)
        return Verdict(UNDECIDED, CONVEX_CLAIM, reason="V = 0: every twisted geodesic is constant, so E'' = 0 "
                                                       "(trivially convex); no certificate kind covers this case")
    if not (dA.psd or dA.nsd) and Vq.det() != 0:
        ver = twisted_gaussian_witness(Aq.tolist(), Vq.tolist())
        if ver.status == PROVED:
            return Verdict(REFUTED, CONVEX_CLAIM, ver.argument, evidence=ver.evidence,
                           reason=ver.reason)
    w = rotation_scaling_witness(Aq, Vq)
    if w is not None:
        from ..check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data

        S, B = w
        if second_variation_sign_data(Aq, Vq, S, B)[0] < 0:
            return _nonconvexity_certificate(
                Aq, Vq, S, B, "d = 2, A = aI + bJ with b² > 3a²: Σ = εI along a symmetric traceless N")
    w = small_gaussian_witness(Aq, Vq, tries=tries)
    if w is not None:
        return _nonconvexity_certificate(Aq, Vq, *w, "a small Gaussian Σ = εΣ₀ with Q(Σ₀, N) < 0 "
                                                      "(E'' = ε²Q/4 + O(ε⁴)), checked exactly at a finite ε")
    w = boundary_witness(Aq, Vq)
    if w is not None:
        return _nonconvexity_certificate(Aq, Vq, w[0], w[2], "near the boundary of the domain: σ₁' = 0, σ₁'' < 0 "
                                                             "along N = VA⁻¹B at a boundary point, Σ = rΣ_b, r → 1")
    w = finite_gaussian_witness(Aq, Vq)
    if w is not None:
        return _nonconvexity_certificate(Aq, Vq, *w, "a finite Gaussian found by a float search of Σ and B, "
                                                      "re-checked exactly")
    why = ("A + Aᵀ semidefinite, A not symmetric: " if dA.psd or dA.nsd else "") + \
        "no witness found (rank-one, rotation–scaling, small-Gaussian, boundary and finite-Gaussian searches); " \
        "not a proof of convexity"
    return Verdict(UNDECIDED, CONVEX_CLAIM, reason=why)
def _square(A):
    """A as an exact square matrix (at least 1 × 1), or None."""
    Aq = qmat(A)
    n = Aq.nrows()
    return Aq if n >= 1 and Aq.ncols() == n else None


EVERY_V_CLAIM = ("for every value matrix V, the softmax energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) is convex "
                 "along every twisted geodesic through every Σ ≻ 0 of finite energy")


def twisted_gaussian_convexity_every_v(A) -> Verdict:
    """Decide "E'' ≥ 0 along every twisted Gaussian geodesic, for every V" for an invertible A
    (docs/mathematics.md §7, "the converse"): it holds exactly when A = Aᵀ is definite.

    * PROVED when A = Aᵀ is definite (certificate ``twisted-gaussian-convexity``).
    * REFUTED otherwise, with a ``twisted-gaussian-nonconvexity`` certificate carrying the breaking V:
      A + Aᵀ indefinite — the rank-one family with V = I (:func:`twisted_gaussian_witness`);
      A + Aᵀ semidefinite and nonzero, A ≠ Aᵀ — the boundary family (:func:`boundary_witness`,
      V = NA, B = I); A skew — Σ = εI along a symmetric N (:func:`small_gaussian_witness` with
      V = I, which covers the rotation–scaling family).  Each REFUTED verdict is an exact,
      re-checked instance; that a witness exists for every such A is the argument of §7.
    * A singular: N = VA⁻¹B is undefined, and the verdict is :func:`gaussian_convexity_every_curve`'s,
      about every curve (I + sN)Σ(I + sN)ᵀ (:data:`EVERY_CURVE_CLAIM`).
    * UNDECIDED when a search fails (not a proof).

    Parameters
    ----------
    A : matrix-like
        An exact d×d matrix.

    Returns
    -------
    Verdict
        PROVED / REFUTED / UNDECIDED about :data:`EVERY_V_CLAIM`.
    """
    Aq = _square(A)
    if Aq is None:
        return Verdict(UNDECIDED, EVERY_V_CLAIM, reason="A must be square")
    if Aq.det() == 0:   # no twisted metric: the question is asked of every curve (I + sN)Σ(I + sN)ᵀ
        ver = gaussian_convexity_every_curve(Aq)
        return Verdict(ver.status, EVERY_CURVE_CLAIM, ver.argument, evidence=ver.evidence,
                       reason="A singular: no twisted displacement VA⁻¹B, so the claim is asked of every curve "
                              f"(I + sN)Σ(I + sN)ᵀ (which, for an invertible A, are the twisted geodesics of every V) — "
                              f"{ver.reason}")
    Id = _eye(Aq.nrows())
    dA = definiteness((Aq + Aq.transpose()) / 2)
    if Aq == Aq.transpose() and (dA.pd or dA.nd):
        ver = twisted_gaussian_convexity(Aq, Id)
        return Verdict(ver.status, EVERY_V_CLAIM, ver.argument, evidence=ver.evidence, reason=ver.reason)
    if not (dA.psd or dA.nsd):
        ver = twisted_gaussian_witness(Aq, Id)
        if ver.status == PROVED:
            return Verdict(REFUTED, EVERY_V_CLAIM, ver.argument, evidence=ver.evidence,
                           reason="A + Aᵀ indefinite: the rank-one family, V = I")
    w = boundary_witness(Aq)
    if w is not None:
        S, V, B = w
        ver = _nonconvexity_certificate(Aq, V, S, B, "A ≠ Aᵀ: the boundary family, V = NA, B = I — σ₁' = 0, "
                                                     "σ₁'' < 0 at a boundary point, Σ = rΣ_b with r close to 1")
        return Verdict(REFUTED, EVERY_V_CLAIM, ver.argument, evidence=ver.evidence, reason=ver.reason)
    w = small_gaussian_witness(Aq, Id)
    if w is not None:
        ver = _nonconvexity_certificate(Aq, Id, *w, "a small Gaussian Σ = εΣ₀ with Q(Σ₀, N) < 0, V = I")
        return Verdict(REFUTED, EVERY_V_CLAIM, ver.argument, evidence=ver.evidence, reason=ver.reason)
    return Verdict(UNDECIDED, EVERY_V_CLAIM, reason="no witness found (rank-one, boundary, small-Gaussian); "
                                                    "not a proof of convexity")


EVERY_CURVE_CLAIM = ("the softmax energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) is convex along every curve "
                     "Σ_s = (I + sN)Σ(I + sN)ᵀ, N any, through every Σ ≻ 0 of finite energy")
CURVE_KIND = "gaussian-curve-nonconvexity"


def _curve_certificate(A, N, S, reason) -> Verdict:
    from ..check import check

    n = A.nrows()
    data = {k: [[frac_str(M[i, j]) for j in range(n)] for i in range(n)] for k, M in (("A", A), ("N", N), ("Sigma", S))}
    cert = Certificate(kind=CURVE_KIND, claim=Claim(CURVE_KIND, Quantifier.NONE, data), status=PROVED,
                       data=data).to_dict()
    res = check(cert)
    if not (res.ok and res.status == PROVED):
        return Verdict(UNDECIDED, EVERY_CURVE_CLAIM, reason="the witness was rejected by the checker")
    return Verdict(REFUTED, EVERY_CURVE_CLAIM, "exact second variation along one curve (gaussian-curve-nonconvexity)",
                   evidence={"certificate": cert}, reason=reason)


def rank_one_curve_witness(A):
    """(Σ, N) with E'' < 0 along (I + sN)Σ(I + sN)ᵀ when A + Aᵀ is indefinite (A may be singular): the
    rank-one family of docs/mathematics.md §7 with w = Nu free — u with uᵀAu > 0, w (A + Aᵀ)-orthogonal
    to u with wᵀAw < 0, N = wuᵀ/|u|², Σ = εuuᵀ + δI with δ shrunk until the exact sign term is negative.

    Parameters
    ----------
    A : matrix-like
        An exact d×d matrix.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat) or None
        (Σ, N), or None when A + Aᵀ is semidefinite or no rational point keeps the sign.
    """
    from ..check.kinds.twisted_gaussian_nonconvexity import curve_sign_data

    Aq = qmat(A)
    As = (Aq + Aq.transpose()) / 2
    dA = definiteness(As)
    if dA.psd or dA.nsd:
        return None
    dirs = _rank_one_directions(As)
    if dirs is None:
        return None
    uq, wq, quu = dirs
    N = wq * uq.transpose() / (uq.transpose() * uq)[0, 0]
    S = _thicken(Aq, uq, quu, lambda S: curve_sign_data(Aq, N, S)[0] < 0)
    return None if S is None else (S, N)


def small_curve_witness(A, tries: int = 8, seed: int = 0):
    """(Σ, N) with E'' < 0 along (I + sN)Σ(I + sN)ᵀ among small Gaussians Σ = εΣ₀ (A may be singular):
    the exact form N ↦ Q(Σ₀, N) of docs/mathematics.md §7 on the d² unit matrices, its most negative
    direction (floats guide; Σ₀ = I, then random), rationalised and re-checked exactly at a finite ε.

    Parameters
    ----------
    A : matrix-like
        An exact d×d matrix.
    tries : int
        Random Σ₀ besides I.
    seed : int
        Seed of the random Σ₀.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat) or None
        (Σ, N), or None if no candidate Σ₀ has a negative direction that survives rationalisation.
    """
    from ..check.kinds.twisted_gaussian_nonconvexity import curve_sign_data

    Aq = qmat(A)
    n = Aq.nrows()
    basis = _unit_basis(n)
    rng = np.random.default_rng(seed)
    cands = [np.eye(n)] + [(lambda L: L @ L.T + 0.1 * np.eye(n))(rng.normal(size=(n, n))) for _ in range(tries)]
    for S0f in cands:
        S0 = _rat_pd(S0f / np.trace(S0f), 1 << 10)
        if not definiteness(S0).pd:
            continue
        lam, vec = _float_min_dir(_gram(Aq, basis, S0))
        if not lam < 0:
            continue
        c = [fmpq_of(nearest_fraction(x / np.abs(vec).max(), 1 << 10)) for x in vec]
        N = flint.fmpq_mat(n, n)
        for ci, E in zip(c, basis):
            N += E * ci
        S = _shrink(Aq, S0, lambda S: curve_sign_data(Aq, N, S)[0] < 0)
        if S is not None:
            return S, N
    return None


def gaussian_convexity_every_curve(A) -> Verdict:
    """Decide "E'' ≥ 0 along every curve Σ_s = (I + sN)Σ(I + sN)ᵀ through every finite-energy Σ ≻ 0"
    for any A, singular included (docs/mathematics.md §7, "every curve"): it holds exactly when A = Aᵀ
    is semidefinite.  For an invertible A these curves are the twisted geodesics of every V (V = NA,
    B = I), so this is :func:`twisted_gaussian_convexity_every_v`'s question; for a singular A there
    is no twisted metric and this is the question that remains.

    * PROVED when A = Aᵀ is definite, or singular and semidefinite (certificate
      ``twisted-gaussian-convexity``).
    * REFUTED otherwise, with a ``gaussian-curve-nonconvexity`` certificate: A + Aᵀ indefinite — the
      rank-one family (:func:`rank_one_curve_witness`); A + Aᵀ semidefinite, A ≠ Aᵀ — the boundary
      family (:func:`boundary_witness` with ``curve=True``), then small Gaussians
      (:func:`small_curve_witness`, which covers skew A).
    * UNDECIDED when a search fails (not a proof) or A is not square.

    Parameters
    ----------
    A : matrix-like
        An exact d×d matrix.

    Returns
    -------
    Verdict
        PROVED / REFUTED / UNDECIDED about :data:`EVERY_CURVE_CLAIM`.
    """
    Aq = _square(A)
    if Aq is None:
        return Verdict(UNDECIDED, EVERY_CURVE_CLAIM, reason="A must be square")
    if Aq == Aq.transpose():
        cert = symmetric_convexity_certificate(Aq)
        if cert is not None:
            return Verdict(PROVED, EVERY_CURVE_CLAIM, "matrix-form theorem: E''/E as a sum of five non-negative traces "
                                                     "(twisted-gaussian-convexity)",
                           evidence={"certificate": cert, "theorem": SYMMETRIC_THEOREM,
                                     "proofs": list(SYMMETRIC_PROOFS if Aq.det() != 0 else SINGULAR_PROOFS)},
                           reason=f"A = Aᵀ {cert['claim']['params']['definite']}")
    w = rank_one_curve_witness(Aq)
    if w is not None:
        return _curve_certificate(Aq, w[1], w[0], "A + Aᵀ indefinite: the rank-one family, N = wuᵀ/|u|²")
    w = boundary_witness(Aq, curve=True)
    if w is not None:
        return _curve_certificate(Aq, w[1], w[0], "A ≠ Aᵀ: the boundary family — σ₁' = 0, σ₁'' < 0 at a boundary "
                                                  "point, Σ = rΣ_b with r close to 1")
    w = small_curve_witness(Aq)
    if w is not None:
        return _curve_certificate(Aq, w[1], w[0], "a small Gaussian Σ = εΣ₀ with Q(Σ₀, N) < 0")
    return Verdict(UNDECIDED, EVERY_CURVE_CLAIM, reason="no witness found (rank-one, boundary, small-Gaussian); "
                                                        "not a proof of convexity")
