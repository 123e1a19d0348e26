"""The rotation–scaling family A = I + tJ, V = I (d = 2), verified exactly by the checker kernel:
the statement, its reductions, the sign form bᵀMb = 3D₁² − 2D₀D₂, the factorisation
det M = xy·D₀²·Q, the Bernstein step on the unit cube, the point M(¼, ¼, 1) and the converse's
closed form are those of docs/mathematics.md §7 ("A fixed pair: the rotation–scaling family with
V = I") and of :mod:`symbolic_tf.symbolic.rotation_scaling_convexity`.  This module is the kernel's
own re-derivation of the same facts with python-flint's exact multivariate polynomials (no SymPy),
step for step, so that the checker of ``twisted-rotation-scaling-convexity`` trusts nothing outside
the kernel.
"""
from __future__ import annotations

import functools
from math import comb

import flint

from ...exact.rational import fraction_of

__all__ = ["rotation_scaling_convexity"]

_B = ("b11", "b22", "b12")


def _ring(*names):
    return flint.fmpq_mpoly_ctx.get(names, "lex")


def _det2(X):
    return X[0][0] * X[1][1] - X[0][1] * X[1][0]


def _mul(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) for j in range(len(Y[0]))] for i in range(len(X))]


def _transpose(X):
    return [list(r) for r in zip(*X)]


def _sign_matrix():
    """M(x, y, t) with bᵀMb = 3D₁² − 2D₀D₂ along N' = (I − tJ)B, and D₀, over Q[x, y, t]."""
    R = _ring("x", "y", "t", "e", *_B)
    x, y, t, e, b11, b22, b12 = R.gens()
    one, zero = R.constant(1), R.constant(0)
    I = [[one, zero], [zero, one]]
    A = [[one, t], [-t, one]]                                  # I + tJ, J = [[0, 1], [−1, 0]]
    B = [[b11, b12], [b12, b22]]
    P = [[I[i][j] + e * n for j, n in enumerate(row)] for i, row in enumerate(_mul([[one, -t], [t, one]], B))]
    Se = _mul(_mul(P, [[x, zero], [zero, y]]), _transpose(P))  # Σ_e = (I + eN')Σ(I + eN')ᵀ
    ASA = _mul(_mul(_mul(_transpose(A), Se), A), Se)
    D = _det2([[I[i][j] - ASA[i][j] for j in range(2)] for i in range(2)])
    D0, D1, D2 = (D.subs({"e": 0}), D.derivative("e").subs({"e": 0}),
                  D.derivative("e").derivative("e").subs({"e": 0}))
    form = 3 * D1 ** 2 - 2 * D0 * D2
    R3 = _ring("x", "y", "t")
    M = [[(form.derivative(bi).derivative(bj) / 2).project_to_context(R3) for bj in _B] for bi in _B]
    return R3, M, D0.project_to_context(R3)


def _det3(M):
    return (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1])
            - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
            + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]))


def _even_symmetric(Q):
    """Q(x, y, t) as a polynomial in (w, q, u) = ((x − y)², xy, t²), or None if Q is not symmetric in
    x ↔ y with even total degrees and even powers of t."""
    S = _ring("s", "r", "t")
    s, r, t = S.gens()
    G = Q.compose((s + r) / 2, (s - r) / 2, t)               # x = (s + r)/2, y = (s − r)/2
    W = _ring("w", "q", "u")
    w, q, u = W.gens()
    out = W.constant(0)
    for (i, j, k), c in G.terms():
        if i % 2 or j % 2 or k % 2:
            return None
        out += c * (w + 4 * q) ** (i // 2) * w ** (j // 2) * u ** (k // 2)   # s² = w + 4q, r² = w
    return out


def _on_the_cube(K):
    """K(w, q, u) at (w, q, u) = ((1 − z)²λ, z/(1 + 3v), 3v), times (1 + 3v)^deg_q K: a polynomial
    in (λ, z, v)."""
    C = _ring("lam", "z", "v")
    lam, z, v = C.gens()
    dq = K.degrees()[1]
    out = C.constant(0)
    for (i, j, k), c in K.terms():
        out += c * ((1 - z) ** 2 * lam) ** i * z ** j * (1 + 3 * v) ** (dq - j) * (3 * v) ** k
    return out


def _bernstein(poly):
    """Exact Bernstein coefficients of a polynomial on the unit cube: (i, j, k) → fmpq, and the degrees."""
    degs = list(poly.degrees())
    coef = dict(poly.terms())
    for ax, n in enumerate(degs):
        new = {}
        for m, c in coef.items():
            # xᵏ = Σ_{i ≥ k} C(i, k)/C(n, k)·B_i(x): the monomial-to-Bernstein change along one axis
            for i in range(m[ax], n + 1):
                key = m[:ax] + (i,) + m[ax + 1:]
                new[key] = new.get(key, flint.fmpq(0)) + c * flint.fmpq(comb(i, m[ax]), comb(n, m[ax]))
        coef = new
    return coef, degs


@functools.lru_cache(maxsize=1)
def rotation_scaling_convexity():
    """Verify the family statement for A = I + tJ, V = I exactly (docs/mathematics.md §7), nothing
    sampled; the kernel's flint re-derivation of
    :func:`symbolic_tf.symbolic.rotation_scaling_convexity.identity_v_convexity`, computed once per
    process.

    Returns
    -------
    dict
        ``"det_divides"`` (bool): det M = xy·D₀²·Q exactly; ``"even_symmetric"`` (bool): Q is a
        polynomial in (x − y)², xy and t²; ``"bernstein_degrees"`` (tuple of int, degrees in λ, z,
        v), ``"bernstein_min"`` (``Fraction``, the least Bernstein coefficient, ≥ 0 when the
        statement holds; None if Q is not even-symmetric), ``"bernstein_face_positive"`` (bool, a
        coefficient > 0 with λ-index 0); ``"point_minors"`` (list of ``Fraction``): the leading
        principal minors of M(¼, ¼, 1), all > 0; ``"converse"`` (``flint.fmpq_mpoly`` in ε, t):
        P(ε, t) + 16(1 + t²)²ε²(t² − 3 − (1 + t²)²ε²)(1 − (1 + t²)ε²)² at Σ = εI,
        B = [[1, −t], [−t, −1]] (the zero polynomial when the closed form holds); ``"holds"``
        (bool): every check passed.
    """
    R3, M, D0 = _sign_matrix()
    x, y, t = R3.gens()
    Qp, rem = divmod(_det3(M), x * y * D0 ** 2)
    out = {"det_divides": rem == 0}
    H = _even_symmetric(Qp)
    out["even_symmetric"] = H is not None
    out["bernstein_min"], out["bernstein_face_positive"], out["bernstein_degrees"] = None, False, None
    if H is not None:
        coef, degs = _bernstein(_on_the_cube(H))
        out["bernstein_degrees"] = tuple(degs)
        out["bernstein_min"] = fraction_of(min(coef.values()))
        out["bernstein_face_positive"] = any(c > 0 for m, c in coef.items() if m[0] == 0)
    quarter = flint.fmpq(1, 4)
    pt = flint.fmpq_mat([[Mij(quarter, quarter, flint.fmpq(1)) for Mij in row] for row in M])
    out["point_minors"] = [fraction_of(flint.fmpq_mat([[pt[i, j] for j in range(k)] for i in range(k)]).det())
                           for k in (1, 2, 3)]
    E = _ring("epsilon", "t")
    eps, te = E.gens()
    Me = [[Mij.compose(eps, eps, te) for Mij in row] for row in M]
    b = (1, -1, -te)
    P = sum(b[i] * Me[i][j] * b[j] for i in range(3) for j in range(3))
    p = 1 + te ** 2
    out["converse"] = P + 16 * p ** 2 * eps ** 2 * (te ** 2 - 3 - p ** 2 * eps ** 2) * (1 - p * eps ** 2) ** 2
    out["holds"] = bool(out["det_divides"] and out["even_symmetric"] and out["bernstein_min"] is not None
                        and out["bernstein_min"] >= 0 and out["bernstein_face_positive"]
                        and all(m > 0 for m in out["point_minors"]) and out["converse"] == 0)
    return out
