"""The mathematics the experiments check against: ranks, softmax closed forms, isotropic lines.

* :func:`numerical_rank` — #{i : λ_i/λ_max > θ} per threshold θ;
* :func:`exact_rank` / :func:`exact_matmul` — rank and product over ℚ, each float at its exact
  dyadic value;
* :func:`softmax_blowup_time`, :func:`softmax_closed_form` — softmax with V = I:
  Σ(t) = Σ₀(I − t(A+Aᵀ)Σ₀)⁻¹ and T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}) (docs/mathematics.md §4);
* :func:`isotropic_directions`, :func:`angle_to_lines` — the lines vᵀAv = 0 of a 2×2 A and the
  angle of a covariance's top eigenvector to them.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["numerical_rank", "exact_rank", "exact_matmul", "softmax_blowup_time", "softmax_closed_form",
           "isotropic_directions", "angle_to_lines"]


def numerical_rank(S, thresholds=(1e-2, 1e-4, 1e-8)) -> dict:
    """Numerical ranks rank_θ(Σ) = #{i : λ_i/λ_max > θ} of a batch of covariances."""
    ev = np.linalg.eigvalsh(np.asarray(S))
    lmax = np.maximum(ev[..., -1:], np.finfo(float).tiny)
    ratio = ev / lmax
    return {float(t): np.sum(ratio > t, axis=-1) for t in thresholds}


def exact_rank(M) -> int:
    """Rank of a float (or Fraction) matrix over ℚ, each float taken at its exact dyadic value.

    Fraction-based Gaussian elimination; no tolerance anywhere.
    """
    rows = [[x if isinstance(x, Fraction) else Fraction(float(x)) for x in r] for r in np.asarray(M, dtype=object)]
    if not rows:
        return 0
    m, n = len(rows), len(rows[0])
    rank, col = 0, 0
    while rank < m and col < n:
        piv = next((i for i in range(rank, m) if rows[i][col] != 0), None)
        if piv is None:
            col += 1
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        p = rows[rank][col]
        for i in range(rank + 1, m):
            f = rows[i][col]
            if f != 0:
                f = f / p
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
        col += 1
    return rank


def exact_matmul(X, Y) -> list:
    """The product XY over ℚ, each float entry taken at its exact dyadic value."""
    X = [[Fraction(float(v)) for v in r] for r in np.asarray(X)]
    Y = [[Fraction(float(v)) for v in r] for r in np.asarray(Y)]
    return [[sum((X[i][k] * Y[k][j] for k in range(len(Y))), Fraction(0)) for j in range(len(Y[0]))]
            for i in range(len(X))]


def softmax_blowup_time(A, S0):
    """Blow-up time T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}) of softmax with V = I, batched over Σ₀."""
    S0 = np.atleast_3d(np.asarray(S0, dtype=float))
    M = np.asarray(A, dtype=float)
    M = M + M.T
    w, U = np.linalg.eigh(S0)
    R = U @ (np.sqrt(np.clip(w, 0, None))[..., None] * np.swapaxes(U, -1, -2))
    lam = np.linalg.eigvalsh(R @ M @ R)[..., -1]
    with np.errstate(divide="ignore"):
        return np.where(lam > 0, 1.0 / lam, np.inf)


def softmax_closed_form(A, S0, t):
    """Σ(t) = Σ₀(I − t(A+Aᵀ)Σ₀)⁻¹ (softmax, V = I; docs/mathematics.md §4), batched over Σ₀."""
    S0 = np.asarray(S0, dtype=float)
    M = np.asarray(A, dtype=float)
    M = M + M.T
    d = S0.shape[-1]
    X = S0 @ np.linalg.inv(np.eye(d) - t * (M @ S0))
    return 0.5 * (X + np.swapaxes(X, -1, -2))


def isotropic_directions(A):
    """Unit vectors v with vᵀAv = 0 of a 2×2 A with A + Aᵀ indefinite (the two isotropic lines)."""
    M = np.asarray(A, dtype=float)
    M = 0.5 * (M + M.T)
    w, U = np.linalg.eigh(M)
    if not (w[0] < 0 < w[1]):
        return np.zeros((0, 2))
    # v = cos θ u0 + sin θ u1 with w0 cos² + w1 sin² = 0
    th = math.atan(math.sqrt(-w[0] / w[1]))
    out = []
    for s in (1.0, -1.0):
        v = math.cos(th) * U[:, 0] + s * math.sin(th) * U[:, 1]
        out.append(v / np.linalg.norm(v))
    return np.array(out)


def angle_to_lines(S, dirs):
    """Angle between the top eigenvector of each Σ and the nearest of the lines ``dirs``."""
    _, U = np.linalg.eigh(S)
    top = U[..., :, -1]
    cos = np.abs(top @ np.asarray(dirs).T)
    idx = np.argmax(cos, axis=-1)
    return np.arccos(np.clip(np.max(cos, axis=-1), 0, 1)), idx
