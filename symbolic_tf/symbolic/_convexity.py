"""Second variations of the softmax interaction energy (docs/mathematics.md §7), exactly in SymPy.

Interaction energy E(μ) = ½∬ W(x, y) dμ(x)dμ(y) with the softmax kernel W(x, y) = e^{yᵀAx}.

Hessian of W in closed form.  With u = yᵀAx: ∇_x u = Aᵀy, ∇_y u = Ax, ∂²u/∂x∂y = Aᵀ
(rows indexed by x, columns by y; ∂²u/∂x_i∂y_k = A_ki), ∂²u/∂x² = ∂²u/∂y² = 0, so

    ∇²_xx W = Aᵀy yᵀA e^u,   ∇²_yy W = Ax xᵀAᵀ e^u,   ∇²_xy W = (Aᵀ + Aᵀy xᵀAᵀ) e^u.

Hence (ξ, η)ᵀ∇²W(x, y)(ξ, η) = e^{yᵀAx}[(yᵀAξ + ηᵀAx)² + 2ηᵀAξ].

Discrete measures μ = (1/n)Σδ_{x_i}, displacement x_i ↦ x_i + sξ_i:

    d²E/ds²(0) = (1/(2n²)) Σ_{i,j} (ξ_i, ξ_j)ᵀ ∇²W(x_i, x_j) (ξ_i, ξ_j).

Centred Gaussians.  For x, y iid N(0, Σ), z = (x, y) ~ N(0, C), C = diag(Σ, Σ) and
yᵀAx = ½zᵀMz with M = [[0, Aᵀ], [A, 0]]; the Gaussian integral gives
E[e^{½zᵀMz}] = det(I − MC)^{-1/2} and by the Schur complement det(I − MC) = det(I − AᵀΣAΣ):

    E(N(0, Σ)) = ½ det(I − AᵀΣAΣ)^{-1/2}     (finite iff ‖Σ^{1/2}AΣ^{1/2}‖₂ < 1).

Along the Bures–Wasserstein geodesic Σ_s = ((1−s)I + sT)Σ((1−s)I + sT) (T ⪰ 0 symmetric,
displacement ξ(x) = (T − I)x, ∫|ξ|²dμ = tr((T − I)Σ(T − I))), D(s) = det(I − AᵀΣ_sAΣ_s) is a
polynomial in s and E = ½D^{-1/2}, so E''(0) = ½(¾D^{-5/2}D'² − ½D^{-3/2}D'') at s = 0.
"""
from __future__ import annotations

import sympy as sp

from ..exact.sympy_bridge import sympy_rational

__all__ = ["as_matrix", "as_points", "kernel", "kernel_hessian", "energy_dirac",
           "second_variation_dirac", "second_variation_dirac_by_s", "displacement_norm2",
           "gaussian_energy", "bw_geodesic", "second_variation_gaussian_bw",
           "second_variation_gaussian_bw_by_s", "bw_displacement_norm2", "gaussian_energy_is_finite"]


def _num(v):
    return sympy_rational(v) if isinstance(v, float) else sp.sympify(v)


def as_matrix(A) -> sp.Matrix:
    """A SymPy square matrix from a scalar (d = 1), nested lists or a SymPy matrix (floats → ℚ)."""
    if isinstance(A, sp.MatrixBase):
        return sp.Matrix(A)
    if hasattr(A, "tolist") and not isinstance(A, (list, tuple)):
        A = A.tolist()
    if not isinstance(A, (list, tuple)):
        return sp.Matrix([[_num(A)]])
    M = sp.Matrix([[_num(e) for e in row] for row in A])
    if M.rows != M.cols:
        raise ValueError("A must be square")
    return M


def as_points(pts, d: int) -> list:
    """Column vectors (d×1) from a list of points (scalars allowed when d = 1)."""
    out = []
    for p in pts:
        if isinstance(p, sp.MatrixBase):
            v = sp.Matrix(p).reshape(d, 1)
        elif isinstance(p, (list, tuple)):
            v = sp.Matrix([_num(e) for e in p])
        else:
            v = sp.Matrix([_num(p)])
        if v.shape != (d, 1):
            raise ValueError(f"point {p!r} is not in dimension {d}")
        out.append(v)
    return out


def kernel(A, x, y):
    """W(x, y) = exp(yᵀAx)."""
    return sp.exp((y.T * A * x)[0, 0])


def kernel_hessian(A, x, y) -> sp.Matrix:
    """The 2d×2d Hessian of W at (x, y), variables ordered (x, y), in closed form."""
    A = as_matrix(A)
    eu = kernel(A, x, y)
    gx, gy = A.T * y, A * x
    Hxx = gx * gx.T
    Hyy = gy * gy.T
    Hxy = A.T + gx * gy.T
    return sp.BlockMatrix([[Hxx, Hxy], [Hxy.T, Hyy]]).as_explicit() * eu


def _prep(A, xs, xis):
    A = as_matrix(A)
    d = A.rows
    xs, xis = as_points(xs, d), as_points(xis, d)
    if len(xs) != len(xis) or not xs:
        raise ValueError("need as many displacements as (≥ 1) positions")
    return A, xs, xis


def energy_dirac(A, xs, xis=None, s=0):
    """E(μ_s) = (1/(2n²)) Σ_{i,j} W(x_i + sξ_i, x_j + sξ_j)."""
    A, xs, xis = _prep(A, xs, xis if xis is not None else [[0] * as_matrix(A).rows] * len(xs))
    n = len(xs)
    ps = [x + s * v for x, v in zip(xs, xis)]
    return sp.Rational(1, 2 * n * n) * sp.Add(*[kernel(A, p, q) for p in ps for q in ps])


def second_variation_dirac(A, xs, xis):
    """d²E/ds²(0) as the explicit Hessian sum (1/(2n²)) Σ (ξ_i, ξ_j)ᵀ∇²W(x_i, x_j)(ξ_i, ξ_j)."""
    A, xs, xis = _prep(A, xs, xis)
    n = len(xs)
    terms = []
    for i in range(n):
        for j in range(n):
            z = sp.Matrix.vstack(xis[i], xis[j])
            terms.append((z.T * kernel_hessian(A, xs[i], xs[j]) * z)[0, 0])
    return sp.expand(sp.Rational(1, 2 * n * n) * sp.Add(*terms))


def second_variation_dirac_by_s(A, xs, xis):
    """d²E/ds²(0) by differentiating E(s) twice in s (independent route)."""
    s = sp.Symbol("s_")
    return sp.expand(sp.diff(energy_dirac(A, xs, xis, s), s, 2).subs(s, 0))


def displacement_norm2(xis, d: int = None):
    """∫|ξ|²dμ = (1/n)Σ|ξ_i|²."""
    if d is None:
        d = len(xis[0]) if isinstance(xis[0], (list, tuple)) else 1
    vs = as_points(xis, d)
    return sp.Rational(1, len(vs)) * sp.Add(*[(v.T * v)[0, 0] for v in vs])


# ---------------------------------------------------------------- Gaussians (Bures–Wasserstein)

def _det_poly(A, Sigma):
    A, S = as_matrix(A), as_matrix(Sigma)
    return (sp.eye(A.rows) - A.T * S * A * S).det()


def gaussian_energy(A, Sigma):
    """E(N(0, Σ)) = ½ det(I − AᵀΣAΣ)^{-1/2} (valid while ‖Σ^{1/2}AΣ^{1/2}‖₂ < 1)."""
    return sp.Rational(1, 2) / sp.sqrt(_det_poly(A, Sigma))


def bw_geodesic(Sigma, T, s):
    """Σ_s = ((1−s)I + sT) Σ ((1−s)I + sT)."""
    S, T = as_matrix(Sigma), as_matrix(T)
    P = (1 - s) * sp.eye(S.rows) + s * T
    return P * S * P


def gaussian_energy_is_finite(A, Sigma) -> bool | None:
    """Is E(N(0, Σ)) = ½∬e^{yᵀAx} dN(0,Σ)² finite?  Decided exactly for rational A, Σ ≻ 0.

    The Gaussian integral converges iff ‖Σ^{1/2}AΣ^{1/2}‖₂ < 1 (the eigenvalues of
    C^{1/2}MC^{1/2} with M = [[0, Aᵀ], [A, 0]], C = diag(Σ, Σ) are ± the singular values of
    Σ^{1/2}AΣ^{1/2}), i.e. iff I − Σ^{1/2}AᵀΣAΣ^{1/2} ≻ 0, i.e. (congruence by Σ^{1/2})

        Σ − ΣAᵀΣAΣ ≻ 0,

    which is checked by Sylvester's criterion (leading principal minors > 0, exact in ℚ).
    See docs/mathematics.md §7.
    """
    A, S = as_matrix(A), as_matrix(Sigma)
    if not all(e.is_Rational for e in list(A) + list(S)):
        return None
    M = S - S * A.T * S * A * S
    return all(M[:k, :k].det() > 0 for k in range(1, M.rows + 1))


def second_variation_gaussian_bw(A, Sigma, T):
    """d²/ds² E(N(0, Σ_s)) at s = 0 along the Bures–Wasserstein geodesic, via the polynomial D(s).

    With D(s) = det(I − AᵀΣ_sAΣ_s) and E = ½D^{-1/2} (docs/mathematics.md §7):
    E''(0) = ½(¾D^{-5/2}D'² − ½D^{-3/2}D'') at s = 0.
    """
    from ..spec.errors import InvalidParameters

    if gaussian_energy_is_finite(A, Sigma) is False:
        raise InvalidParameters(
            "Sigma", "the Gaussian energy E(N(0, Σ)) is +∞ here (it is finite iff "
            "‖Σ^{1/2}AΣ^{1/2}‖₂ < 1, i.e. Σ − ΣAᵀΣAΣ ≻ 0): it has no second variation at this Σ; "
            "take a smaller Σ")
    s = sp.Symbol("s_")
    D = sp.expand(_det_poly(A, bw_geodesic(Sigma, T, s)))
    D0, D1, D2 = (sp.diff(D, s, k).subs(s, 0) for k in range(3))
    return sp.simplify(sp.Rational(1, 2) * (sp.Rational(3, 4) * D0 ** sp.Rational(-5, 2) * D1 ** 2
                                            - sp.Rational(1, 2) * D0 ** sp.Rational(-3, 2) * D2))


def second_variation_gaussian_bw_by_s(A, Sigma, T):
    """The same by differentiating E(Σ_s) directly (cross-check)."""
    s = sp.Symbol("s_")
    return sp.simplify(sp.diff(gaussian_energy(A, bw_geodesic(Sigma, T, s)), s, 2).subs(s, 0))


def bw_displacement_norm2(Sigma, T):
    """∫|ξ|²dN(0, Σ) for ξ(x) = (T − I)x: tr((T − I)Σ(T − I))."""
    S, T = as_matrix(Sigma), as_matrix(T)
    B = T - sp.eye(S.rows)
    return sp.expand((B * S * B).trace())
