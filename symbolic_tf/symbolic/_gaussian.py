"""The Gaussian-integral engine (the only one in the project).

Two exact tools cover every closure in docs/mathematics.md §3:

* **Tilting / completing the square** (matrix form, dimension-free):
  e^{½yᵀHy + gᵀy} N(α, Σ), normalised, is N(m, S) with
  S = (I − ΣH)⁻¹Σ and m = (I − ΣH)⁻¹(α + Σg),
  valid whenever Σ⁻¹ − H ≻ 0 on the range of Σ; written without Σ⁻¹ so singular Σ works.
  (H = 0 is the tilting lemma e^{⟨c,y⟩}N(α,Σ) ∝ N(α + Σc, Σ).)
* **Gaussian moments of polynomials** (explicit d) by Stein's identity
  E[y_i f(y)] = α_i E[f(y)] + Σ_j Σ_ij E[∂_j f(y)], applied recursively to monomials;
  exact over any coefficient ring, including Gaussian mixtures (linear in the measure).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import sympy as sp

__all__ = ["tilt", "gaussian_moment", "mixture_moment", "GaussianMixture"]


def tilt(H, g, alpha, Sigma, dim=None):
    """Mean and covariance of the tilted Gaussian e^{½yᵀHy + gᵀy} N(α, Σ) (normalised)."""
    n = dim if dim is not None else Sigma.shape[0]
    if _is_zero(H):
        return alpha + Sigma * g, Sigma
    M = sp.Inverse(sp.Identity(n) - Sigma * H) if isinstance(Sigma, sp.MatrixExpr) and not isinstance(
        Sigma, sp.ImmutableMatrix) else (sp.eye(n) - Sigma * H).inv()
    return M * (alpha + Sigma * g), M * Sigma


def _is_zero(H) -> bool:
    if H is None:
        return True
    if isinstance(H, (int, sp.Integer)) or H == 0:
        return H == 0
    if isinstance(H, sp.ZeroMatrix):
        return True
    if isinstance(H, sp.MatrixBase):
        return all(e == 0 for e in H)
    return False


class GaussianMixture:
    """A finite mixture Σ_i p_i N(α_i, Σ_i) with explicit (exact) parameters.

    Used for moments of a single Gaussian (one component) and for the attended law of a
    causal query, which mixes the Gaussians of different positions.
    """

    def __init__(self, components: Sequence[tuple]):
        comps = []
        for p, a, S in components:
            a = sp.ImmutableMatrix(a).reshape(len(a), 1) if not isinstance(a, sp.MatrixBase) else sp.ImmutableMatrix(a)
            comps.append((sp.sympify(p), a, sp.ImmutableMatrix(S)))
        if not comps:
            raise ValueError("empty mixture")
        self.components = tuple(comps)
        self.d = comps[0][1].shape[0]

    @classmethod
    def single(cls, alpha, Sigma) -> "GaussianMixture":
        """The one-component mixture N(α, Σ)."""
        return cls([(1, alpha, Sigma)])


def gaussian_moment(expr, ys: Sequence[sp.Symbol], alpha, Sigma):
    """E[p(y)] for y ~ N(α, Σ) and a polynomial p in the symbols ``ys`` (exact).

    Coefficients of p may be arbitrary SymPy expressions free of ``ys`` (e.g. e^{−b₀}).
    """
    return mixture_moment(expr, ys, GaussianMixture.single(alpha, Sigma))


def mixture_moment(expr, ys: Sequence[sp.Symbol], mixture: GaussianMixture):
    """E[p(y)] under a Gaussian mixture, by Stein's identity on each monomial."""
    ys = tuple(ys)
    poly = sp.Poly(sp.expand(expr), *ys)
    total = sp.Integer(0)
    for p, a, S in mixture.components:
        a_t = tuple(a)
        S_t = tuple(tuple(S[i, j] for j in range(S.shape[1])) for i in range(S.shape[0]))
        m = _monomial_moments(a_t, S_t)
        acc = sp.Integer(0)
        for exps, coeff in poly.terms():
            acc += coeff * m(tuple(exps))
        total += p * acc
    return sp.simplify(total) if total.has(sp.exp) else sp.expand(total)


def _monomial_moments(a, S):
    n = len(a)

    @lru_cache(maxsize=None)
    def mom(e):
        if not any(e):
            return sp.Integer(1)
        i = next(t for t, v in enumerate(e) if v)
        rest = list(e)
        rest[i] -= 1
        rest = tuple(rest)
        val = a[i] * mom(rest)
        for j in range(n):
            if rest[j] and S[i][j] != 0:
                lower = list(rest)
                lower[j] -= 1
                val += S[i][j] * rest[j] * mom(tuple(lower))
        return sp.expand(val)

    return mom
