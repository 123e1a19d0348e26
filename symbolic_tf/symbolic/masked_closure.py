r"""Does the per-position moment ODE of masked attention close?  (docs/masked_relu.md §4)

A query at position s attends to the *cone law* — the law of the keys at positions s' ≤ s,

.. math::

    κ_s = \frac{1}{λ([0, s])}\int_{s' \le s} μ^{s'}\, dλ(s'),

a mixture of the conditional laws μ^{s'}.  When each μ^{s'} = N(α_{s'}, Σ_{s'}), tilting each
component gives the exact velocity (:func:`cone_velocity`)

.. math::

    Γ(x, s) = V\,\frac{\sum_k w_k Z_k(x)\,(α_k + Σ_k A x)}{\sum_k w_k Z_k(x)},\qquad
    Z_k(x) = e^{α_k^T A x + \frac12 x^T A^T Σ_k A x}.

Two exact decisions:

* **position-independent Gaussian data close** (:func:`position_independent_closure`): if
  μ^{s'} = N(α, Σ) for every s', the cone law is N(α, Σ), Γ(x, s) = V(α + ΣAx) for every s
  (an exact identity, checked symbolically), the right-hand side of every position's moment
  ODE is the same, so position-independence is preserved and the per-position ODE *is* the
  softmax moment ODE α̇ = V(I + ΣA)α, Σ̇ = VΣAΣ + ΣAᵀΣVᵀ — for every position marginal λ with
  λ([0, s]) > 0 (an attention sink guarantees it for every s);
* **position-dependent Gaussian data do not** (:func:`first_order_witness`): the conditional
  law ρ = N(α_s, σ_s²) at a query position s (d = 1) moves by ∂_tρ = −(ρΓ)' = ρ q with
  q(x) = −Γ'(x) + Γ(x)(x − α_s)/σ_s².  If ρ_t stayed Gaussian, ∂_tρ/ρ would be a tangent of the
  Gaussian family, a polynomial of degree ≤ 2 — so an exact q'''(x₀) ≠ 0 proves the law at s
  leaves the Gaussian family at first order in t.  The derivatives Γ^{(n)}(0) are exact
  rationals (:func:`symbolic_tf.symbolic.closure.witness_derivative`, Stein's identity), and
  they are cross-checked against :func:`cone_velocity` differentiated symbolically.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from ..exact.sympy_bridge import sympy_fraction
from ..variants import get as get_variant
from .closure import witness_derivative
from ._gaussian import GaussianMixture

__all__ = ["cone_velocity", "position_independent_closure", "first_order_witness", "masked_closure_report", "DEFAULT_CONE",
           "MaskedWitness"]

#: Default witness instance (d = 1, A = V = 1): the query at s = 1 has conditional law N(0, 1)
#: (weight 2/3 of its cone); the cone also holds the position s' = 1/2 with law N(1, 1) (weight 1/3).
DEFAULT_CONE = ((Fraction(1, 3), Fraction(1), Fraction(1)), (Fraction(2, 3), Fraction(0), Fraction(1)))


def _mat(M, d=None):
    M = sp.Matrix(M)
    return M.reshape(d, 1) if d is not None and M.shape != (d, 1) and len(M) == d else M


def cone_velocity(components, A, V, x):
    r"""Γ(x, s) for a cone law Σ_k w_k N(α_k, Σ_k), by tilting each component (module docstring).

    Parameters
    ----------
    components : sequence of (w_k, α_k, Σ_k) (SymPy-convertible; α_k a d-vector, Σ_k d×d)
    A, V : d×d matrices
    x : d×1 SymPy matrix (symbols or numbers)

    Returns
    -------
    sympy Matrix (d×1), an exact expression.
    """
    A, V, x = sp.Matrix(A), sp.Matrix(V), sp.Matrix(x)
    d = A.shape[0]
    c = A * x
    num, den = sp.zeros(d, 1), sp.Integer(0)
    for w, a, S in components:
        a, S = _mat(a, d), sp.Matrix(S)
        Z = sp.exp((a.T * c)[0, 0] + (c.T * S * c)[0, 0] / 2)
        num += sp.sympify(w) * Z * (a + S * c)
        den += sp.sympify(w) * Z
    return V * num / den


def position_independent_closure(d: int = 2, components: int = 2):
    r"""Exact check that equal cone components give the softmax velocity V(α + ΣAx).

    With generic symbols A, V, Σ (symmetric), α, x in dimension ``d`` and ``components``
    positions of weights w_k (Σ w_k arbitrary, > 0), returns (identity_holds, residual):
    the residual Γ − V(α + ΣAx) after exact cancellation of the common factor Σ_k w_k Z(x).

    Parameters
    ----------
    d : int
        The dimension.
    components : int
        The number of cone positions (weights w_k).

    Returns
    -------
    (bool, sympy.Matrix)
        Whether Γ = V(α + ΣAx) holds identically, and the residual (d×1, zero iff it holds).
    """
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"A{i}{j}"))
    V = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"V{i}{j}"))
    S = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"S{min(i, j)}{max(i, j)}"))
    a = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"a{i}"))
    x = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"x{i}"))
    ws = sp.symbols(f"w0:{components}", positive=True)
    G = cone_velocity([(w, a, S) for w in ws], A, V, x)
    residual = (G - V * (a + S * A * x)).applyfunc(lambda e: sp.cancel(sp.together(e)))
    return residual == sp.zeros(d, 1), residual


@dataclass(frozen=True)
class MaskedWitness:
    """Exact first-order non-Gaussianity witness at a query position (d = 1)."""

    components: tuple          # the cone law (w, α, σ²), exact
    query: tuple               # the query position's own law (α_s, σ_s²)
    A: Fraction
    V: Fraction
    derivatives: tuple         # Γ^{(n)}(0), n = 0..4, exact rationals
    q3: Fraction               # q'''(0) = −Γ⁗(0) + (3Γ''(0) − α_sΓ'''(0))/σ_s²

    @property
    def refutes(self) -> bool:
        """True when q'''(0) ≠ 0: the query's law leaves the Gaussian family at first order."""
        return self.q3 != 0

    def to_dict(self) -> dict:
        """The witness as a JSON-serialisable dict (rationals as strings).

        Returns
        -------
        dict
            Keys cone_law, query_law, A, V, x0, gamma_derivatives_at_x0, q3,
            refutes_gaussian_closure.
        """
        f = str
        return {"cone_law": [{"weight": f(w), "mean": f(a), "var": f(s)} for w, a, s in self.components],
                "query_law": {"mean": f(self.query[0]), "var": f(self.query[1])}, "A": f(self.A), "V": f(self.V),
                "x0": "0", "gamma_derivatives_at_x0": [f(g) for g in self.derivatives], "q3": f(self.q3),
                "refutes_gaussian_closure": self.refutes}


def first_order_witness(components=DEFAULT_CONE, query=None, A=1, V=1) -> MaskedWitness:
    r"""Exact q'''(0) for a position-dependent Gaussian cone law in d = 1 (module docstring).

    Parameters
    ----------
    components : sequence of (w, α, σ²) exact rationals — the cone law of the query position
    query : (α_s, σ_s²), optional
        The query position's own conditional law (default: the last component's).
    A, V : rationals (d = 1)

    Returns
    -------
    MaskedWitness
        The exact Γ^{(n)}(0), n = 0..4, and q'''(0).
    """
    comps = tuple((Fraction(w), Fraction(a), Fraction(s)) for w, a, s in components)
    query = tuple(Fraction(e) for e in (query or comps[-1][1:]))
    A, V = Fraction(A), Fraction(V)
    R = lambda q: sp.Rational(q.numerator, q.denominator)  # noqa: E731
    mix = GaussianMixture([(R(w), sp.Matrix([R(a)]), sp.Matrix([[R(s)]])) for w, a, s in comps])
    P = {"A": sp.Matrix([[R(A)]]), "V": sp.Matrix([[R(V)]]), "scale": sp.Integer(1)}
    G = witness_derivative(get_variant("masked"), P, mix, [1], 4)
    g = [sympy_fraction(v[0]) for v in G]
    am, var = query
    q3 = -g[4] + (3 * g[2] - am * g[3]) / var
    return MaskedWitness(comps, query, A, V, tuple(g), q3)


def masked_closure_report(problem) -> dict:
    r"""The closure question for a masked problem, decided exactly (docs/masked_relu.md §4).

    A problem file gives one initial Gaussian for every position, i.e. position-independent
    data: the per-position moment ODE closes and is the softmax one (the symbolic identity is
    re-checked in the problem's dimension, at most 4).  The report adds the exact first-order
    witness that position-dependent Gaussian data leave the Gaussian family.

    Parameters
    ----------
    problem : Problem
        A masked problem (its dimension, capped at 4, is used for the symbolic check).

    Returns
    -------
    dict
        ``position_independent`` (the identity and the softmax moment ODE) and the first-order
        witness for position-dependent data.
    """
    from .moments import derive

    d = min(problem.d, 4)
    identity, _ = position_independent_closure(d, 2)
    system = derive("softmax")
    w = first_order_witness()
    return {
        "position_independent": {
            "closes": bool(identity),
            "identity": "cone law of equal components: Γ(x, s) = V(α + ΣAx) for every s (exact cancellation)",
            "checked_in_dimension": d,
            "moment_ode": {"alpha_dot": sp.sstr(system.mean_rhs), "Sigma_dot": sp.sstr(system.cov_rhs)},
            "statement": "every position follows the softmax moment ODE with the problem's A, V; "
                         "position-independence is preserved (needs λ([0, s]) > 0, e.g. an attention sink)",
        },
        "position_dependent": {"closes": not w.refutes, "witness": w.to_dict(),
                               "statement": "q'''(0) ≠ 0: the conditional law at the query position leaves "
                                            "the Gaussian family at first order in t"},
    }
