"""Checker of ``equilibrium-basin``: the problem's own Σ₀ lies in a certified basin of attraction
of a Krawczyk-certified equilibrium Σ* of the drift model (general V).

For Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (A = scale·A_problem) and Δ = Σ − Σ*, exactly
Δ̇ = L*Δ + Q(Δ) with L* = DG(Σ*) and Q(Δ) = VΔAΔ + ΔAᵀΔVᵀ (G is quadratic).  Coordinates
δ = svec-upper(Δ) (Δ_ij, i ≤ j, row-major; basis E_ii, E_ij + E_ji), D = diag(1 on (i, i),
2 on (i, j), i < j), so δᵀDδ = ‖Δ‖_F².  Re-derived here from the embedded exact problem and the
stored rationals alone (nothing is imported from the search code):

1. Krawczyk: K(X) − x̃ = −Y·G(x̃) + (I − Y·DG(X))[−r, r]^m ⊂ (−r, r)^m (G(x̃) exact over ℚ, DG(X)
   the arb enclosure of the linearisation over Σ ∈ X = Sigma_mid ± r) ⇒ X holds exactly one zero
   Σ* of G; every Σ in X is PD (ball Cholesky);
2. λ_lo > 0, W − λ_lo·D ⪰ 0, λ_hi·D − W ⪰ 0 (exact inertia);
3. n_V·I − VᵀV ⪰ 0, n_A·I − AᵀA ⪰ 0 (exact), so ‖V‖₂² ≤ n_V, ‖A‖₂² ≤ n_A;
4. c_Q ≥ 0, c_Q²λ_lo² ≥ 4λ_hi·n_V·n_A (exact) ⇒ ‖q(δ)‖_W ≤ √λ_hi‖Q(Δ)‖_F ≤ 2√(λ_hi n_V n_A)‖Δ‖_F²
   ≤ c_Q‖δ‖_W²   (‖VΔAΔ‖_F ≤ ‖V‖₂‖Δ‖_F‖A‖₂‖Δ‖₂);
5. κ > 0 and −(LᵀW + WL) − κW ball-PD for every L ∈ DG(X) (so for L*);
6. ρ > 0, 4c_Q²ρ < κ² (exact);
7. Σ₀ symmetric and PD exactly (rank d), and svec(Σ₀ − Σ)ᵀW svec(Σ₀ − Σ) < ρ in ball arithmetic
   over every Σ ∈ X (so for Σ*).

Then E = δᵀWδ obeys Ė ≤ −κE + 2c_Q E^{3/2} = −(κ − 2c_Q√E)E ≤ −(κ − 2c_Q√ρ)E < 0 on
{0 < E ≤ ρ}: the compact set {E ≤ ρ} is forward invariant, the solution from Σ₀ is global and
E(t) ≤ E(0)e^{−(κ − 2c_Q√ρ)t} → 0, i.e. Σ(t) → Σ*.  The derived claim is EQUILIBRIUM for THIS
Σ₀ with |Σ*_ij − Sigma_mid_ij| ≤ r.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier
from ..exact import ball_pd, definiteness, frac_str, qmat


def _fail(msg):
    raise CertificationFailed(f"equilibrium-basin: {msg}")


def _q(s) -> flint.fmpq:
    f = Fraction(s)
    return flint.fmpq(f.numerator, f.denominator)


def _sq(M, n, what) -> flint.fmpq_mat:
    if not isinstance(M, list) or len(M) != n or any(not isinstance(r, list) or len(r) != n for r in M):
        _fail(f"{what} must be a {n}×{n} matrix")
    return qmat(M)


def _ball(M: flint.fmpq_mat) -> flint.arb_mat:
    return flint.arb_mat(M.nrows(), M.ncols(), [flint.arb(M[i, j]) for i in range(M.nrows()) for j in range(M.ncols())])


def _eye(n):
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def _idx(d):
    return [(i, j) for i in range(d) for j in range(i, d)]


def _gram(d):
    idx = _idx(d)
    m = len(idx)
    return flint.fmpq_mat(m, m, [(1 if idx[k][0] == idx[k][1] else 2) if k == l else 0
                                 for k in range(m) for l in range(m)])


def _box(Smid, r):
    d = Smid.nrows()
    e = flint.arb(0, flint.arb(r).upper())
    return flint.arb_mat(d, d, [flint.arb(Smid[i, j]) + e for i in range(d) for j in range(d)])


def _linearisation(Sb, F, V, A, d):
    """Columns: coordinates of DG(Σ)[E_k] for the basis E_k, Σ in the ball matrix Sb."""
    idx = _idx(d)
    m = len(idx)
    Fb, Vb, Ab = _ball(F), _ball(V), _ball(A)
    L = flint.arb_mat(m, m)
    for col, (i, j) in enumerate(idx):
        E = flint.arb_mat(d, d)
        E[i, j] = 1
        E[j, i] = 1
        T = Fb * E + E * Fb.transpose() + Vb * E * Ab * Sb + Vb * Sb * Ab * E \
            + E * Ab.transpose() * Sb * Vb.transpose() + Sb * Ab.transpose() * E * Vb.transpose()
        for row, (p, q) in enumerate(idx):
            L[row, col] = T[p, q]
    return L


_SCHEMA = {"basis": ("enum", "svec-upper"), "prec": "int", "Sigma_mid": "rat[][]", "r": "rat", "Y": "rat[][]",
           "W": "rat[][]", "kappa": "rat", "c_Q": "rat", "rho": "rat", "lam_lo": "rat", "lam_hi": "rat",
           "normV2": "rat", "normA2": "rat"}


@kind("equilibrium-basin", _SCHEMA)
def check_equilibrium_basin(cert, problem):
    """PROVED: for the embedded problem's Σ₀ the solution is global and converges to the unique
    equilibrium Σ* in the box Sigma_mid ± r (regime EQUILIBRIUM, quantifier THIS)."""
    _check(cert, problem)
    data = cert.data
    params = {"Sigma_mid": [[frac_str(Fraction(x)) for x in row] for row in data["Sigma_mid"]],
              "r": frac_str(Fraction(data["r"]))}
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, params)


def _check(cert, problem):
    if problem is None or problem.variant != "softmax" or problem.heads or problem.A is None or problem.V is None:
        _fail("needs an embedded single-head softmax problem with A and V")
    if cert.status != "PROVED":
        _fail("status must be PROVED")
    data = cert.data
    prec = int(data["prec"])
    if not 64 <= prec <= 4096:
        _fail("prec must lie in [64, 4096]")
    d = problem.d
    m = d * (d + 1) // 2

    # --- Σ₀: PD exactly (rank d)
    if problem.cov is None:
        _fail("the embedded problem has no Σ₀")
    S0 = qmat(problem.cov)
    if S0.nrows() != d or S0.ncols() != d or S0 != S0.transpose():
        _fail("Σ₀ must be a symmetric d×d matrix")
    if not definiteness(S0).pd:
        _fail("Σ₀ is not positive definite (rank < d or indefinite): no basin claim for it")

    A = qmat(problem.A) * _q(str(problem.scale))
    V = qmat(problem.V)
    F = qmat(problem.F) if problem.F is not None else flint.fmpq_mat(d, d)
    S = _sq(data["Sigma_mid"], d, "Sigma_mid")
    if S != S.transpose():
        _fail("Sigma_mid is not symmetric")
    r = _q(data["r"])
    if not r > 0:
        _fail("the box radius r must be positive")
    Y = _sq(data["Y"], m, "Y")
    W = _sq(data["W"], m, "W")
    if W != W.transpose():
        _fail("W is not symmetric")
    kappa, cQ, rho = (Fraction(data[k]) for k in ("kappa", "c_Q", "rho"))
    lo, hi, nV, nA = (Fraction(data[k]) for k in ("lam_lo", "lam_hi", "normV2", "normA2"))

    # --- exact scalar inequalities
    if not lo > 0:
        _fail("lam_lo must be positive")
    if nV < 0 or nA < 0 or cQ < 0:
        _fail("normV2, normA2 and c_Q must be ≥ 0")
    if cQ * cQ * lo * lo < 4 * hi * nV * nA:
        _fail("c_Q does not bound the quadratic remainder: c_Q²·lam_lo² < 4·lam_hi·normV2·normA2")
    if not kappa > 0:
        _fail("kappa must be positive")
    if not (rho > 0 and 4 * cQ * cQ * rho < kappa * kappa):
        _fail("the level rho is not inside the region of decay: need 0 < rho and 4·c_Q²·rho < kappa²")

    # --- exact matrix inequalities
    Dg = _gram(d)
    if not definiteness(W - _q(lo) * Dg).psd:
        _fail("W − lam_lo·D is not PSD")
    if not definiteness(_q(hi) * Dg - W).psd:
        _fail("lam_hi·D − W is not PSD")
    if not definiteness(_q(nV) * _eye(d) - V.transpose() * V).psd:
        _fail("normV2 is not an upper bound of ‖V‖₂²")
    if not definiteness(_q(nA) * _eye(d) - A.transpose() * A).psd:
        _fail("normA2 is not an upper bound of ‖A‖₂²")

    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        # --- Krawczyk: K(X) − x̃ ⊂ (−r, r)^m  ⇒ exactly one zero Σ* of G in X
        Gx = F * S + S * F.transpose() + V * S * A * S + S * A.transpose() * S * V.transpose()  # exact
        g = flint.fmpq_mat(m, 1, [Gx[i, j] for i, j in _idx(d)])
        YG = Y * g
        Sb = _box(S, r)
        L = _linearisation(Sb, F, V, A, d)
        C = _ball(_eye(m)) - _ball(Y) * L
        rb = flint.arb(r)
        w = flint.arb(0, rb.upper())
        for i in range(m):
            k = -flint.arb(YG[i, 0])
            for j in range(m):
                k += C[i, j] * w
            if not (k < rb and k > -rb):
                _fail(f"Krawczyk test fails in coordinate {i}: K(X) is not inside the open box")
        if ball_pd(Sb) is not True:
            _fail("the box Sigma_mid ± r is not certified positive definite")
        # --- decay of the linear part in the W norm: −(LᵀW + WL) − κW ≻ 0 on DG(X)
        Wb = _ball(W)
        M = (L.transpose() * Wb + Wb * L) * (-1) - Wb * flint.arb(_q(kappa))
        if ball_pd(M) is not True:
            _fail("−(LᵀW + WL) − kappa·W is not certified PD over DG(X)")
        # --- Σ₀ inside the level set for every Σ* in X
        idx = _idx(d)
        delta = flint.arb_mat(m, 1, [flint.arb(S0[i, j]) - Sb[i, j] for i, j in idx])
        E0 = (delta.transpose() * Wb * delta)[0, 0]
        if not E0 < flint.arb(_q(rho)):
            _fail("Σ₀ is not certified inside the level set {δᵀWδ < rho} around every Σ in the box")
    finally:
        flint.ctx.prec = old
