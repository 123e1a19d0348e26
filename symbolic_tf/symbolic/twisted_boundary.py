"""The d = 2 boundary family of twisted (non-)convexity, verified symbolically for every member
(docs/mathematics.md §7, "The converse: a boundary mechanism").

For c² + s² = 1 and 0 ≤ τ < 1 let x = (c, s), y = (c, −s), x₂ = (−s, c), y₂ = (s, c) and

    C = xyᵀ + τx₂y₂ᵀ   (‖C‖ = 1, top singular pair (x, y)),   N = diag(s², −c²).

Take A = C and the curve Σ_e = r(I + eN)(I + eN)ᵀ through Σ = rI, 0 < r < 1 (the twisted geodesic of
V = NA, B = I).  With D(e) = det X_e, X_e = I − AᵀΣ_eAΣ_e, Jacobi's formula gives
(log D)' = tr(X⁻¹X') = t₁ and (log D)'' = tr(X⁻¹X'') − tr(X⁻¹X'X⁻¹X') = t₃ − t₂, so the sign term of
E'' = (E/4)(t₁² + 2t₂ − 2t₃) is

    T(r) = 3(D₁/D₀)² − 2D₂/D₀,   D_k = d^kD/de^k at e = 0.

**Statement.**  For every (c, s, τ) of the family, (1 − r²)·T(r) is a rational function of r that
is regular at r = 1, and

    lim_{r→1⁻} (1 − r²)·T(r) = 4σ₁''(0) = −8c²s²(3τ − 1)/(1 + τ),

σ₁(e) the top singular value of (I + eN)ᵀC(I + eN).  So T(r) < 0 for r close to 1 whenever
cs ≠ 0 and τ > 1/3: E'' < 0 there, along a twisted geodesic.

**How it is verified** (:func:`boundary_plane_limit`).  The circle is parametrised rationally,
c = (1 − m²)/(1 + m²), s = 2m/(1 + m²) (every point but (−1, 0), where cs = 0), and every quantity is
multiplied by a power of 1 + m², so D₀, D₁, D₂ are polynomials in ℤ[m, τ, r].  Exact polynomial
division shows D₀ = (r − 1)·G and 3D₁² − 2D₂D₀ = (r − 1)·H with G, H polynomials; then
(1 − r²)T = −(1 + r)H/G², whose value at r = 1 is −2H(1)/G(1)², and its difference from the closed
form cancels to 0 in ℚ(m, τ).  Nothing is sampled: the identities hold for every m and τ.
Moreover G(1) factors as 2(1 + m²)²⁴(τ − 1)(τ + 1), which vanishes nowhere for |τ| < 1: so
(1 − r²)T(r) is continuous at r = 1, and where its limit is negative, T(r) < 0 (1 − r² > 0) for every
r < 1 close enough to 1 — while X = I − r²CᵀC ≻ 0 there (‖C‖ = 1), so Σ = rI has finite energy.

**Which τ the congruence class reaches** (:func:`congruence_ratio_ranges`).  The singular value
ratio τ = σ₂/σ₁ ∈ [0, 1] of a 2×2 C is increasing in κ = |det C|/tr(CᵀC) = τ/(1 + τ²), and τ > 1/3
⟺ κ > 3/10, τ < 1 ⟺ κ < 1/2.  For the two congruence families of the mathematics notes — C_p =
diag(1, p) + ω√p·J (A + Aᵀ ≻ 0) and C_t = [[1, t], [−t, 0]] (A + Aᵀ of rank one) — the numerators of
κ − 3/10 and 1/2 − κ factor so that 1/3 < τ < 1 holds for every p ∈ (1/3, 1) and every ω, and for
every |t| > √3/2.
"""
from __future__ import annotations

import sympy as sp

__all__ = ["boundary_plane_limit", "congruence_ratio_ranges"]


def boundary_plane_limit():
    """The exact limit of (1 − r²)·T(r) at r → 1 on the whole d = 2 boundary family (module docstring).

    Returns
    -------
    dict
        ``"m"``, ``"tau"``: the SymPy symbols of the parametrisation c = (1 − m²)/(1 + m²),
        s = 2m/(1 + m²);
        ``"divides"``: whether (r − 1) divides both D₀ and 3D₁² − 2D₂D₀ exactly (so the limit is
        finite and equals −2H(1)/G(1)²);
        ``"limit"``: that value, a rational function of m and τ (cancelled);
        ``"closed_form"``: −8c²s²(3τ − 1)/(1 + τ) in the same parametrisation;
        ``"difference"``: limit − closed_form, cancelled (0 when the statement holds);
        ``"sign_term"``: T(r) = (3D₁² − 2D₂D₀)/D₀² as an expression in m, τ and the symbol ``"r"``;
        ``"G_at_1"``: G(1), factored (the limit's denominator is its square).
    """
    m, tau, r, e = sp.symbols("m tau r e")
    gens = (m, tau, r, e)
    q = sp.Poly(1 + m ** 2, *gens)
    cn, sn = sp.Poly(1 - m ** 2, *gens), sp.Poly(2 * m, *gens)
    t = sp.Poly(tau, *gens)
    # q²C (entries of xyᵀ + τx₂y₂ᵀ scaled by q²) and q²(I + eN)
    Cq = [[cn * cn - t * sn * sn, -cn * sn * (1 + t)], [cn * sn * (1 + t), t * cn * cn - sn * sn]]
    Pq = [[q * q + sp.Poly(e, *gens) * sn * sn, q * 0], [q * 0, q * q - sp.Poly(e, *gens) * cn * cn]]
    S = _mul(Pq, _tr(Pq))                                    # q⁴(I + eN)(I + eN)ᵀ
    M = _mul(_mul(_mul(_tr(Cq), S), Cq), S)                   # q¹²·AᵀΣAΣ/r² (A = Cq/q², Σ = rS/q⁴)
    q12 = q ** 12
    rr = sp.Poly(r, *gens)
    X = [[q12 - rr * rr * M[0][0], -rr * rr * M[0][1]], [-rr * rr * M[1][0], q12 - rr * rr * M[1][1]]]
    D = X[0][0] * X[1][1] - X[0][1] * X[1][0]                 # q²⁴·det X_e: the factor leaves D₁/D₀, D₂/D₀
    D0 = D.subs(e, 0)
    D1 = D.diff(e).subs(e, 0)
    D2 = D.diff(e).diff(e).subs(e, 0)
    num = sp.Poly(3 * D1.as_expr() ** 2 - 2 * D2.as_expr() * D0.as_expr(), m, tau, r)
    den = sp.Poly(D0.as_expr(), m, tau, r)
    one = sp.Poly(r - 1, m, tau, r)
    G, g_rem = sp.div(den, one)
    H, h_rem = sp.div(num, one)
    divides = g_rem.is_zero and h_rem.is_zero
    limit = sp.cancel(-2 * H.as_expr().subs(r, 1) / G.as_expr().subs(r, 1) ** 2)
    c = (1 - m ** 2) / (1 + m ** 2)
    s = 2 * m / (1 + m ** 2)
    closed = sp.cancel(-8 * c ** 2 * s ** 2 * (3 * tau - 1) / (1 + tau))
    return {"m": m, "tau": tau, "r": r, "sign_term": num.as_expr() / den.as_expr() ** 2, "divides": divides, "limit": limit, "closed_form": closed,
            "difference": sp.cancel(limit - closed), "G_at_1": sp.factor(G.as_expr().subs(r, 1))}


def congruence_ratio_ranges():
    """κ = |det C|/tr(CᵀC) on the two d = 2 congruence families, against the thresholds 3/10 (τ = 1/3)
    and 1/2 (τ = 1) (module docstring).

    Returns
    -------
    dict
        ``"p"``, ``"omega"``, ``"t"``: the symbols (p > 0);
        ``"kappa_p"``, ``"kappa_t"``: κ of C_p = diag(1, p) + ω√p·J and of C_t = [[1, t], [−t, 0]],
        computed from the matrices (√p enters only squared);
        ``"above_p"``, ``"below_p"``, ``"above_t"``, ``"below_t"``: the numerators of κ − 3/10 and
        1/2 − κ over the positive denominator 10·tr (resp. 2·tr), factored.
    """
    p, w, t, q = sp.symbols("p omega t q", positive=True)
    C_p = sp.Matrix([[1, w * q], [-w * q, q ** 2]])           # q = √p
    C_t = sp.Matrix([[1, t], [-t, 0]])
    out = {"p": p, "omega": w, "t": t}
    for key, C in (("p", C_p), ("t", C_t)):
        tr = sp.expand((C.T * C).trace()).subs(q, sp.sqrt(p))
        det = sp.expand(C.det()).subs(q, sp.sqrt(p))          # positive on both families
        out["kappa_" + key] = sp.cancel(det / tr)
        out["above_" + key] = sp.factor(sp.expand(10 * det - 3 * tr))
        out["below_" + key] = sp.factor(sp.expand(tr - 2 * det))
    return out


def _mul(X, Y):
    return [[X[i][0] * Y[0][j] + X[i][1] * Y[1][j] for j in range(2)] for i in range(2)]


def _tr(X):
    return [[X[0][0], X[1][0]], [X[0][1], X[1][1]]]
