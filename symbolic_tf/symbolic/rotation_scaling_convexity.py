"""Twisted convexity for a fixed pair: A = aI + bJ and V = vI in d = 2, verified symbolically for
the whole family (docs/mathematics.md §7, "A fixed pair: the rotation–scaling family with V = I").

**Statement.**  Let J = [[0, 1], [−1, 0]], A = aI + bJ with a ≠ 0 and V = vI with v ≠ 0.  Then the
energy E(Σ) = ½det(I − AᵀΣAΣ)^{-1/2} satisfies E'' ≥ 0 along every twisted geodesic
Σ_s = (I + sN)Σ(I + sN)ᵀ, N = VA⁻¹B (B = Bᵀ), through every Σ ≻ 0 of finite energy **if and only if
b² ≤ 3a²**.  (For symmetric definite A this is the general theorem; here A is not symmetric once
b ≠ 0, and the condition is on the pair: V = NA with N = diag(−1, 1/20) already breaks A = I + ½J.)

**Reductions** (exact, stated in the notes).  E depends on A only through AᵀΣAΣ, so A ↦ cA is
Σ ↦ cΣ, and A ↦ −A changes nothing; the set 𝒩 = VA⁻¹·Sym does not change when A or V is scaled.
So A = I + tJ, t = b/a, V = I.  A commutes with rotations R, and (Σ, N) ↦ (RᵀΣR, RᵀNR) maps the
geodesics of (A, I) to geodesics of (A, I) with the same energy; so Σ = diag(x, y).  The reflection
diag(1, −1) maps t to −t.  Everything below is a polynomial identity in x, y and t.

**The sign form.**  With N' = (1 + t²)N = (I − tJ)B (a positive multiple of N) and
D(e) = det(I − AᵀΣ_eAΣ_e) along Σ_e = (I + eN')Σ(I + eN')ᵀ, Jacobi's formula gives the sign term
of E'' = (E/4)(t₁² + 2t₂ − 2t₃) as 3(D₁/D₀)² − 2D₂/D₀ (D_k the k-th e-derivative at 0).  So
P = 3D₁² − 2D₀D₂ = D₀²·(sign term) is a quadratic form bᵀMb in b = (B₁₁, B₂₂, B₁₂) with a 3×3
polynomial matrix M(x, y, t), and E'' ≥ 0 for every B ⟺ M ⪰ 0.  The domain of finite energy is
D₀ = (1 − x + y − pxy)(1 + x − y − pxy) > 0 on its component at 0, p = 1 + t²:
Ω = {x, y > 0, pxy + |x − y| < 1}.

**If** (:func:`identity_v_convexity`).  Exact division gives det M = xy·D₀²·Q(x, y, t).  Q is
symmetric in x ↔ y and contains only even total degrees and even powers of t, so it is a polynomial
in w = (x − y)², q = xy and u = t².  The map (λ, z, v) ↦ (w, q, u) = ((1 − z)²λ, z/(1 + 3v), 3v)
sends the box [0, 1)×(0, 1)×(0, 1) onto Ω × (0, 3) (in these coordinates: pq = z < 1 and
|x − y| = (1 − z)√λ < 1 − pq).  After multiplying by a power of 1 + 3v, Q is a polynomial on the
unit cube whose Bernstein coefficients are computed exactly: all are ≥ 0, and one with λ-index 0 is
> 0.  Bernstein basis polynomials are > 0 on the open cube and, with λ-index 0, on its open face
λ = 0; so Q > 0, hence det M > 0, at every point of Ω × (0, √3) (t > 0).  That set is connected and
M(¼, ¼, 1) ≻ 0 exactly (leading minors); eigenvalues of M move continuously and never cross 0,
so M ≻ 0 on all of it.  t = 0 is A = I (symmetric), and t² = 3 follows by continuity (Ω shrinks
as t grows, so each point of Ω at t² = 3 lies in Ω for every smaller t).

**Only if** (:func:`identity_v_convexity`, ``"converse"``).  At Σ = εI along N = diag(1, −1)
(B = AN = [[1, −t], [−t, −1]] is symmetric), the same form gives exactly
P = −16(1 + t²)²ε²(t² − 3 − (1 + t²)²ε²)(1 − (1 + t²)ε²)², negative for t² > 3 and
0 < ε² < (t² − 3)/(1 + t²)².
"""
from __future__ import annotations

import functools
from fractions import Fraction
from math import comb

import sympy as sp
from ..exact.rational import fraction_of

__all__ = ["identity_v_sign_matrix", "identity_v_convexity"]


def identity_v_sign_matrix():
    """The sign form of E'' for A = I + tJ, V = I, Σ = diag(x, y) (module docstring).

    Returns
    -------
    dict
        ``"symbols"``: (x, y, t) and (b₁₁, b₂₂, b₁₂); ``"M"``: the 3×3 SymPy matrix with
        bᵀMb = 3D₁² − 2D₀D₂ along N' = (I − tJ)B = (1 + t²)A⁻¹B; ``"D0"``: det(I − AᵀΣAΣ) as a
        polynomial expression.
    """
    x, y, t, e = sp.symbols("x y t e")
    b11, b22, b12 = sp.symbols("b11 b22 b12")
    gens = (x, y, t, e, b11, b22, b12)
    J = sp.Matrix([[0, 1], [-1, 0]])
    A = sp.eye(2) + t * J
    S = sp.diag(x, y)
    B = sp.Matrix([[b11, b12], [b12, b22]])
    P = sp.eye(2) + e * (sp.eye(2) - t * J) * B                # I + eN', N' = (1 + t²)A⁻¹B
    Se = P * S * P.T
    X = sp.eye(2) - A.T * Se * A * Se
    D = sp.Poly(sp.expand(X[0, 0] * X[1, 1] - X[0, 1] * X[1, 0]), *gens)
    D0, D1, D2 = D.subs(e, 0), D.diff(e).subs(e, 0), D.diff(e).diff(e).subs(e, 0)
    form = sp.Poly(3 * D1.as_expr() ** 2 - 2 * D0.as_expr() * D2.as_expr(), x, y, t, b11, b22, b12)
    bs = (b11, b22, b12)
    M = sp.Matrix(3, 3, lambda i, j: (form.diff(bs[i]).diff(bs[j]).as_expr() / 2))
    return {"symbols": ((x, y, t), bs), "M": M, "D0": D0.as_expr()}


def _even_symmetric(Q, x, y, t, w, q, u):
    """Q(x, y, t) as a polynomial in w = (x − y)², q = xy, u = t², or None if Q is not symmetric in
    x ↔ y with even total degrees and even powers of t."""
    s, r = sp.symbols("s r")
    G = sp.Poly(sp.expand(Q.subs({x: (s + r) / 2, y: (s - r) / 2}, simultaneous=True)), s, r, t)
    out = sp.Integer(0)
    for (i, j, k), c in G.terms():
        if i % 2 or j % 2 or k % 2:
            return None
        out += c * (w + 4 * q) ** (i // 2) * w ** (j // 2) * u ** (k // 2)
    return sp.expand(out)


def _bernstein(poly, gens):
    """Exact Bernstein coefficients of a polynomial on the unit cube, as a dict (i, j, k) → Fraction."""
    degs = [poly.degree(g) for g in gens]
    coef = {m: fraction_of(c) for m, c in poly.terms()}
    for ax, n in enumerate(degs):
        new = {}
        for m, c in coef.items():
            # xᵏ = Σ_{i ≥ k} C(i, k)/C(n, k)·B_i(x): the monomial-to-Bernstein change along one axis
            for i in range(m[ax], n + 1):
                key = m[:ax] + (i,) + m[ax + 1:]
                new[key] = new.get(key, Fraction(0)) + c * Fraction(comb(i, m[ax]), comb(n, m[ax]))
        coef = new
    return coef, degs


@functools.lru_cache(maxsize=1)
def identity_v_convexity():
    """Verify the statement of the module docstring for the whole family (exact, nothing sampled).

    Returns
    -------
    dict
        ``"det_divides"``: det M = xy·D₀²·Q exactly; ``"even_symmetric"``: Q is a polynomial in
        (x − y)², xy and t²; ``"bernstein_degrees"``, ``"bernstein_min"`` (the least coefficient,
        ≥ 0 when the statement holds), ``"bernstein_face_positive"`` (a coefficient > 0 with
        λ-index 0); ``"point_minors"``: the leading principal minors of M(¼, ¼, 1) (all > 0);
        ``"converse"``: P(ε, t) − (−16(1 + t²)²ε²(t² − 3 − (1 + t²)²ε²)(1 − (1 + t²)ε²)²) at
        Σ = εI, B = [[1, −t], [−t, −1]], expanded (0 when the closed form holds);
        ``"holds"``: every check passed.
    """
    data = identity_v_sign_matrix()
    (x, y, t), _ = data["symbols"]
    M, D0 = data["M"], data["D0"]
    gens = (x, y, t)
    det = sp.Poly(sp.expand(M.det(method="berkowitz")), *gens)
    Qp, rem = sp.div(det, sp.Poly(x * y * D0 ** 2, *gens))
    out = {"det_divides": rem.is_zero}
    w, q, u, lam, z, v = sp.symbols("w q u lam z v")
    H = _even_symmetric(Qp.as_expr(), x, y, t, w, q, u)
    out["even_symmetric"] = H is not None
    out["bernstein_min"], out["bernstein_face_positive"], out["bernstein_degrees"] = None, False, None
    if H is not None:
        K = sp.Poly(H, w, q, u)
        dq = K.degree(q)
        box = sp.Poly(sp.expand(sp.cancel(K.as_expr().subs({w: (1 - z) ** 2 * lam, q: z / (1 + 3 * v), u: 3 * v},
                                                           simultaneous=True) * (1 + 3 * v) ** dq)), lam, z, v)
        coef, degs = _bernstein(box, (lam, z, v))
        out["bernstein_degrees"] = tuple(degs)
        out["bernstein_min"] = min(coef.values())
        out["bernstein_face_positive"] = any(c > 0 for m, c in coef.items() if m[0] == 0)
    pt = M.subs({x: sp.Rational(1, 4), y: sp.Rational(1, 4), t: 1})
    out["point_minors"] = [pt[:k, :k].det() for k in (1, 2, 3)]
    eps = sp.Symbol("epsilon")
    b = sp.Matrix([1, -1, -t])
    P = sp.expand((b.T * M * b)[0, 0].subs({x: eps, y: eps}))
    p = 1 + t ** 2
    out["converse"] = sp.expand(P + 16 * p ** 2 * eps ** 2 * (t ** 2 - 3 - p ** 2 * eps ** 2) * (1 - p * eps ** 2) ** 2)
    out["holds"] = bool(out["det_divides"] and out["even_symmetric"] and out["bernstein_min"] is not None
                        and out["bernstein_min"] >= 0 and out["bernstein_face_positive"]
                        and all(m > 0 for m in out["point_minors"]) and out["converse"] == 0)
    return out
