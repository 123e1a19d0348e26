"""Ball-arithmetic (python-flint ``arb``) enclosures of steering end points, and rigorous
rational brackets of eigenvalues — the certified half of :mod:`symbolic_tf.control`.

Closed forms used (docs/mathematics.md §4, §6; F, b, A, V constant on a phase of length τ):

* **linear phases** — A = 0 or V = 0.  Then Σ̇ = FΣ + ΣFᵀ, so Σ(τ) = e^{Fτ}Σe^{Fᵀτ}, and
  α̇ = Lα + b with L = F + V (A = 0) or L = F (V = 0), so [α(τ); 1] = exp([[L, b], [0, 0]]τ)[α; 1].
  Enclosed with ``arb_mat.exp`` of the rational matrices.
* **stretch phases** — V = I, F = 0, b = 0, A + Aᵀ = M = BYBᵀ (B a rational basis of the
  target range): Σ̇ = ΣMΣ, so Σ(τ) = S(I − τMS)⁻¹ as long as det(I − tMS) = det(G)·det(G⁻¹ − tY)
  (G = BᵀSB) does not vanish; G ≻ 0, G⁻¹ ≻ 0 and G⁻¹ − τY ≻ 0 certify existence on [0, τ]
  (G⁻¹ − tY is affine in t, so positive definite on the whole segment).
* **attention rotations** — V = K skew, A = aI, F = 0, b = 0 from Σ = cΠ (Π an orthogonal
  projector): Σ̇ = a(KΣ² − Σ²K) and Σ² = cΣ is preserved by conjugation, so
  Σ(τ) = e^{acKτ}Σe^{−acKτ} exactly.

Eigenvalue brackets are decided exactly over ℚ: λ_k < u ⟺ S − uI has ≥ k negative eigenvalues,
λ_k > l ⟺ S − lI has ≤ k − 1 non-positive eigenvalues (inertia from the characteristic
polynomial, :func:`symbolic_tf.exact.definiteness.inertia`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath

from ..exact.definiteness import inertia
from ..exact.rational import fmpq_of, qmat
from ..exact import working_precision

__all__ = ["PREC", "arb_q", "arb_matq", "exp_q", "frob_err_upper", "vec_err_upper", "sqrt_upper",
           "arb_pd", "enclose_linear_phase", "is_linear_phase", "certify_linear_schedule",
           "enclose_stretch", "eig_brackets", "upper_float"]

PREC = 200


def arb_q(x) -> flint.arb:
    """An exact rational as an arb ball of radius 0."""
    x = Fraction(x)
    return flint.arb(fmpq_of(x))


def arb_matq(M) -> flint.arb_mat:
    """Exact rational matrix (rows of Fractions, or an fmpq_mat) as a ball matrix."""
    return flint.arb_mat(M if isinstance(M, flint.fmpq_mat) else qmat(M))


def exp_q(M, t: Fraction) -> flint.arb_mat:
    """Enclosure of the matrix exponential e^{Mt} for a rational matrix M and a rational t."""
    return flint.arb_mat(qmat(M) * fmpq_of(t)).exp()


def upper_float(x: flint.arb) -> float:
    """A float ≥ every point of the ball x (for reporting bounds)."""
    u = x.upper()
    v = float(mpmath.mpf(u.str(30, radius=False)))
    return math.nextafter(v, math.inf)


def sqrt_upper(x: flint.arb) -> float:
    """A float ≥ √y for every y ≥ 0 in the ball x."""
    u = flint.arb(x.upper())
    if not u > 0:
        return 0.0
    return upper_float(u.sqrt())


def frob_err_upper(S: flint.arb_mat, C) -> float:
    """Upper bound on ‖S − C‖_F = (Σ_ij (S_ij − C_ij)²)^{1/2} for every matrix in the ball S."""
    d = S.nrows()
    err = flint.arb(0)
    for i in range(d):
        for j in range(d):
            err += (S[i, j] - arb_q(C[i][j])) ** 2
    return sqrt_upper(err)


def vec_err_upper(a: flint.arb_mat, m) -> float:
    """Upper bound on the Euclidean ‖a − m‖ for every vector in the ball a."""
    err = flint.arb(0)
    for i in range(a.nrows()):
        err += (a[i, 0] - arb_q(m[i])) ** 2
    return sqrt_upper(err)


def arb_pd(G) -> bool:
    """Rigorous: every symmetric matrix in the ball matrix G is positive definite (Sylvester's
    criterion, every leading principal minor > 0).
    """
    n = G.nrows()
    for k in range(1, n + 1):
        sub = flint.arb_mat(k, k)
        for i in range(k):
            for j in range(k):
                sub[i, j] = G[i, j]
        if not sub.det() > 0:
            return False
    return True


def _is_zero(M) -> bool:
    return not any(x for row in M for x in row)


def is_linear_phase(ph) -> bool:
    """A phase with A = 0 or V = 0 has linear moment equations (closed form by exponentials)."""
    return _is_zero(ph.A) or _is_zero(ph.V)


def enclose_linear_phase(ph, a: flint.arb_mat, S: flint.arb_mat):
    """Ball enclosure of the end state of a linear phase (A = 0 or V = 0) started from the ball
    state (a, S): Σ(τ) = e^{Fτ}Σe^{Fᵀτ} and [α(τ); 1] = exp([[L, b], [0, 0]]τ)[α; 1] with
    L = F + V (A = 0) or L = F (V = 0).
    """
    d = len(ph.F)
    t = ph.duration
    mean_uses_V = _is_zero(ph.A) and not _is_zero(ph.V)
    L = (tuple(tuple(Fraction(f) + Fraction(v) for f, v in zip(rf, rv)) for rf, rv in zip(ph.F, ph.V))
         if mean_uses_V else ph.F)
    aug = [[Fraction(0)] * (d + 1) for _ in range(d + 1)]
    for i in range(d):
        for j in range(d):
            aug[i][j] = Fraction(L[i][j])
        aug[i][d] = Fraction(ph.b[i])
    X = exp_q(aug, Fraction(t))
    Em = flint.arb_mat(d, d)
    g = flint.arb_mat(d, 1)
    for i in range(d):
        g[i, 0] = X[i, d]
        for j in range(d):
            Em[i, j] = X[i, j]
    a_new = Em * a + g
    E = exp_q(ph.F, Fraction(t)) if mean_uses_V else Em
    S_new = E * S * E.transpose()
    return a_new, S_new


def certify_linear_schedule(schedule, m0, c0, m1, c1, prec: int = PREC) -> dict | None:
    """Rigorous bound on ‖(α(T), Σ(T)) − (α₁, Σ₁)‖ for a schedule whose every phase is linear
    (A = 0 or V = 0), by composing :func:`enclose_linear_phase` from the exact start.
    """
    if not all(is_linear_phase(ph) for ph in schedule):
        return None
    with working_precision(prec):
        a = arb_matq([[Fraction(x)] for x in m0])
        S = arb_matq(c0)
        for ph in schedule:
            a, S = enclose_linear_phase(ph, a, S)
        return {"cov": frob_err_upper(S, c1), "mean": vec_err_upper(a, m1),
                "norm": "Frobenius (cov), Euclidean (mean)",
                "method": "product of arb_mat.exp enclosures: Σ ↦ e^{Fτ}Σe^{Fᵀτ}, "
                          "[α; 1] ↦ exp([[F (+V if A = 0), b], [0, 0]]τ)[α; 1] per phase"}


def enclose_stretch(S: flint.arb_mat, B: flint.fmpq_mat, Y: flint.fmpq_mat, M: flint.fmpq_mat,
                    tau: Fraction):
    """End covariance of a stretch phase (V = I, F = b = 0, A + Aᵀ = M = BYBᵀ) started from the
    ball S: Σ(τ) = S(I − τMS)⁻¹, with existence on [0, τ] certified by G ≻ 0, G⁻¹ ≻ 0 and
    G⁻¹ − τY ≻ 0 (G = BᵀSB; G⁻¹ − tY is affine in t).
    """
    d = S.nrows()
    Ba = flint.arb_mat(B)
    G = Ba.transpose() * S * Ba
    tq = fmpq_of(tau)
    if not arb_pd(G):
        return None, "could not certify BᵀSB ≻ 0 in ball arithmetic"
    Gi = G.inv()
    if not (arb_pd(Gi) and arb_pd(Gi - flint.arb_mat(Y) * flint.arb(tq))):
        return None, ("could not certify existence on the stretch phase (G⁻¹ − tY ≻ 0 on [0, τ]) "
                      "in ball arithmetic")
    I = flint.arb_mat(flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)]))
    return S * (I - flint.arb_mat(M * tq) * S).inv(), ""


# --------------------------------------------------------------------------- eigenvalues
def _count_below(S: flint.fmpq_mat, x: Fraction, strict: bool) -> int:
    d = S.nrows()
    xq = fmpq_of(x)
    shifted = S - xq * flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    pos, neg, zero = inertia(shifted)
    return neg if strict else neg + zero


def eig_brackets(S) -> list[tuple[Fraction, Fraction]]:
    """Rational (l_k, u_k) with l_k ≤ λ_k ≤ u_k for the ascending eigenvalues λ_1 ≤ … ≤ λ_d of a
    rational symmetric *positive semidefinite* S, each verified exactly: (0, 0) for the
    d − rank S zero eigenvalues, otherwise l_k < λ_k < u_k (λ_k < u ⟺ S − uI has ≥ k negative
    eigenvalues; λ_k > l ⟺ S − lI has ≤ k − 1 non-positive ones; exact inertia over ℚ).
    """
    Sq = qmat(S)
    d = Sq.nrows()
    nzero = d - Sq.rank()
    if _count_below(Sq, Fraction(0), strict=True):
        raise ValueError("eig_brackets needs a positive semidefinite matrix")
    with mpmath.workdps(60):
        ev = sorted(mpmath.eigsy(mpmath.matrix([[mpmath.mpf(int(Sq[i, j].p)) / int(Sq[i, j].q)
                                                 for j in range(d)] for i in range(d)]))[0])
        mids = [Fraction(mpmath.nstr(x, 45, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)) for x in ev]
    out = []
    for k in range(1, d + 1):
        if k <= nzero:
            out.append((Fraction(0), Fraction(0)))
            continue
        mid = mids[k - 1]
        rel = Fraction(1, 10 ** 30)
        while True:
            delta = rel * (1 + abs(mid))
            lo, hi = mid - delta, mid + delta
            if (_count_below(Sq, hi, strict=True) >= k
                    and _count_below(Sq, lo, strict=False) <= k - 1):
                out.append((max(lo, Fraction(0)), hi))
                break
            rel *= 10 ** 5
    return out
