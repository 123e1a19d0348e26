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
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ..exact.definiteness import definiteness
from ..exact.rational import frac_str, qmat
from ..spec.verdict import PROVED, UNDECIDED, Verdict
from .certificate import Certificate
from .claims import Claim, Quantifier

__all__ = ["rank_one_second_variation", "twisted_gaussian_witness"]

KIND = "twisted-gaussian-nonconvexity"


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
    uq = flint.fmpq_mat(len(u), 1, [flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in u])
    vq = flint.fmpq_mat(len(v), 1, [flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in v])
    w = V * A.inv() * vq
    q = (uq.transpose() * A * uq)[0, 0]
    q1 = (uq.transpose() * (A + A.transpose()) * w)[0, 0]
    q2 = 2 * (w.transpose() * A * w)[0, 0]
    e = flint.fmpq(Fraction(eps).numerator, Fraction(eps).denominator)
    g = 1 - e * e * q * q
    first = e * e * (3 * e * e * q * q * q1 * q1 + (q1 * q1 + q * q2) * g) / 2
    return Fraction(int(first.p), int(first.q)), Fraction(int(g.p), int(g.q))


def _rat(x, den=64):
    return Fraction(x).limit_denominator(den)


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
    from .kinds.twisted_gaussian import second_variation_sign_data

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
    Af = np.array([[float(As[i, j]) for j in range(n)] for i in range(n)])
    lam, Q = np.linalg.eigh(Af)
    u = [_rat(x) for x in Q[:, -1]]
    z = [_rat(x) for x in Q[:, 0]]
    uq = flint.fmpq_mat(n, 1, [flint.fmpq(x.numerator, x.denominator) for x in u])
    zq = flint.fmpq_mat(n, 1, [flint.fmpq(x.numerator, x.denominator) for x in z])
    quu, quz = (uq.transpose() * As * uq)[0, 0], (uq.transpose() * As * zq)[0, 0]
    if quu <= 0:
        return Verdict(UNDECIDED, claim, reason="no rational direction with uᵀAu > 0 found")
    wq = zq - uq * (quz / quu)                       # (A + Aᵀ)-orthogonal to u
    if (wq.transpose() * As * wq)[0, 0] >= 0:
        return Verdict(UNDECIDED, claim, reason="no rational negative direction found")
    vq = Aq * Vq.inv() * wq                          # so that VA⁻¹v = w
    unorm = (uq.transpose() * uq)[0, 0]
    uv = (uq.transpose() * vq)[0, 0]
    B = (vq * uq.transpose() + uq * vq.transpose()) / unorm - uq * uq.transpose() * (uv / (unorm * unorm))
    eps = 1 / (2 * abs(quu)) if quu != 0 else flint.fmpq(1)
    Id = flint.fmpq_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])
    delta = flint.fmpq(1, 16) * eps
    for _ in range(40):
        S = uq * uq.transpose() * eps + Id * delta
        ok = definiteness(S.inv() - Aq.transpose() * S * Aq).pd
        if ok and second_variation_sign_data(Aq, Vq, S, B)[0] < 0:
            break
        delta /= 4
    else:
        return Verdict(UNDECIDED, claim, reason="the full-rank perturbation did not keep the sign")
    data = {k: [[frac_str(M[i, j]) for j in range(n)] for i in range(n)]
            for k, M in (("A", Aq), ("V", Vq), ("Sigma", S), ("B", B))}
    c = Claim("twisted-gaussian-nonconvexity", Quantifier.NONE, data)
    cert = Certificate(kind=KIND, claim=c, status=PROVED, data=data)
    return Verdict(PROVED, c.text(), "exact second variation", evidence={"certificate": cert.to_dict()},
                   reason="A + Aᵀ indefinite: a rank-one direction with q' = 0, qq'' < 0, made full rank")
