r"""Gaussian mixtures are not preserved by the softmax flow: an exact witness (docs/stability.md §4).

Setting (d = 1, softmax, A = a, V = v): μ₀ = w N(−m, s) + (1 − w) N(m, s).  Suppose a C¹ curve
of two-component Gaussian mixtures μ_t = Σ_k w_k(t) N(m_k(t), s_k(t)) (s_k > 0) solved the
continuity equation ∂_t ρ + (ρ Γ_{μ_t})' = 0 from μ₀.  At t = 0 the density derivative lies in
the tangent space of the family:

    ∂_t ρ|₀ ∈ span{ N_k(x) x^j : k = 1, 2, j = 0, 1, 2 }

(∂_w, ∂_{m_k}, ∂_{s_k} of the mixture density are N_k times polynomials of degree ≤ 2), so the
analytic function f = (ρ Γ_{μ₀})' would be a combination of the six functions N_k x^j.  With
equal variances and opposite means the two Gaussians share the factor c = e^{−m²/2s}/√(2πs),
and N_k/c = e^{±mx/s − x²/2s} has *rational* Taylor coefficients at 0; so do Γ_{μ₀} (its
derivatives at 0 are Gaussian-mixture moments, :func:`~symbolic_tf.symbolic.closure.witness_derivative`)
and hence f/c.  Comparing the Taylor coefficients of degree < K: if the 7 × K rational matrix
of (N_k x^j / c, f/c) has rank 7 while the 6 rows alone have rank 6, f is not in the span, and
no such curve exists.  Both ranks are computed exactly over ℚ.

A single Gaussian (w = 1) is the control: there the same test finds f in the span (the flow is
affine, §3), as it must.  A second, instructive control: with a·s = 1 the mixture's density is
ρ = c e^{−x²/2s} Σ_k w_k e^{a m_k x}, the softmax normaliser itself, so ρΓ is a combination of
the N_k and x N_k and f lies in the span — although Γ''(0) ≠ 0.  A nonzero second derivative
of Γ therefore does *not* by itself witness non-preservation of mixtures; the rank test does.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ..exact.sympy_bridge import sympy_rational

__all__ = ["mixture_witness", "MAX_ENTRY"]

#: Largest numerator or denominator of an instance parameter.
MAX_ENTRY = 10**12


def mixture_witness(a=2, v=1, m=1, s=1, w=Fraction(1, 3), K: int = 12) -> dict:
    """Decide exactly whether (ρΓ)' leaves the tangent space of two-component mixtures at μ₀.

    Parameters are exact rationals (s > 0, 0 < w ≤ 1; m ≠ 0 when w < 1); ``K`` Taylor
    coefficients are compared.  Returns a JSON-ready dict: the instance, ``rank_tangent``,
    ``rank_augmented``, ``witness`` (True when the augmented rank exceeds the tangent rank: the
    mixture does not stay a two-component Gaussian mixture), the exact Taylor coefficients of
    Γ at 0 and Γ''(0).

    Parameters
    ----------
    a : rational
        The 1-d attention coefficient A.
    v : rational
        The 1-d value coefficient V.
    m : rational
        The components' means ∓m.
    s : rational
        Their common variance s > 0.
    w : rational
        The weight of N(−m, s) (1 − w on N(m, s)).
    K : int
        The number of Taylor coefficients, 8 ≤ K ≤ 40.

    Returns
    -------
    dict
        The instance, ranks, witness flag, Taylor coefficients and Γ''(0) (see above).
    """
    from ..variants import get as get_variant
    from .closure import witness_derivative
    from ._gaussian import GaussianMixture

    a, v, m, s, w = (sympy_rational(x) for x in (a, v, m, s, w))
    if not (s > 0 and 0 < w <= 1) or (w < 1 and m == 0) or not 8 <= K <= 40:
        raise ValueError("need s > 0, 0 < w <= 1, m != 0 for a mixture, 8 <= K <= 40")
    if any(max(abs(q.p), q.q) > MAX_ENTRY for q in (a, v, m, s, w)):
        raise ValueError(f"numerators and denominators at most {MAX_ENTRY} (the Taylor coefficients grow like their K-th powers)")
    x = sp.Symbol("x")
    comps = [(w, sp.Matrix([-m]), sp.Matrix([[s]]))]
    if w < 1:
        comps.append((1 - w, sp.Matrix([m]), sp.Matrix([[s]])))
    P = {"A": sp.Matrix([[a]]), "V": sp.Matrix([[v]]), "scale": sp.Integer(1)}
    derivs = witness_derivative(get_variant("softmax"), P, GaussianMixture(comps), sp.Matrix([1]), K)
    gamma = sum(sp.Rational(derivs[n][0]) / sp.factorial(n) * x**n for n in range(K + 1))
    n_k = [sp.series(sp.exp(sgn * m * x / s - x**2 / (2 * s)), x, 0, K + 1).removeO() for sgn in (-1, 1)]
    weights = [w, 1 - w]
    rho = sp.expand(sum(wk * nk for wk, nk in zip(weights, n_k)))
    f = sp.expand(sp.diff(sp.expand(rho * gamma), x))

    def coeffs(expr):
        poly = sp.Poly(expr, x)
        return [poly.coeff_monomial(x**i) for i in range(K)]

    rows = [coeffs(sp.expand(nk * x**j)) for nk, wk in zip(n_k, weights) if wk != 0 for j in range(3)]
    G = sp.Matrix(rows)
    aug = G.col_join(sp.Matrix([coeffs(f)]))
    r_t, r_a = G.rank(), aug.rank()
    return {
        "instance": {"variant": "softmax", "d": 1, "A": str(a), "V": str(v),
                     "law": [{"weight": str(w), "mean": str(-m), "var": str(s)}]
                     + ([{"weight": str(1 - w), "mean": str(m), "var": str(s)}] if w < 1 else [])},
        "taylor_terms": K, "rank_tangent": int(r_t), "rank_augmented": int(r_a),
        "witness": bool(r_a > r_t),
        "gamma_taylor_at_0": [str(sp.Rational(derivs[n][0]) / sp.factorial(n)) for n in range(K + 1)],
        "gamma_second_derivative_at_0": str(sp.Rational(derivs[2][0])),
        "method": "exact rational ranks of Taylor coefficients at x = 0 (SymPy, over Q)",
        "statement": ("no C¹ curve of two-component Gaussian mixtures through μ₀ solves the softmax "
                      "continuity equation" if r_a > r_t else
                      "(ρΓ)' lies in the tangent space of the family at μ₀ (no witness at this instance)"),
    }
