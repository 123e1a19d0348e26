"""Generic Gaussian closure: from a variant's *declaration* to Γ_μ(x) = J x + c, or a witness.

For μ = N(α, Σ) the engine reads the declared kernel k(x, y) and normalisation:

* ``k = e^{φ}`` with φ quadratic, ∂²φ/∂y² = H constant and g(x) = ∇_yφ(x, 0) affine,
  row-normalised:  by tilting (:func:`symbolic_tf.symbolic._gaussian.tilt`)
  Γ(x) = V (I − ΣH)⁻¹(α + Σ g(x))  →  J = V(I − ΣH)⁻¹ΣG, G = ∂g/∂x.
* ``k`` affine in y (k = k₀(x) + yᵀg(x)), unnormalised:  Γ(x) = V(k₀(x)α + (Σ + ααᵀ)g(x)).
* ``k = e^{yᵀGx + separable}``, bistochastic (Sinkhorn, ε = 1):  the entropic self-coupling
  of N(α, Σ) is Gaussian (see :mod:`symbolic_tf.symbolic._sinkhorn`) and
  Γ(x) = Vα + J(x − α),  J = 2VΣG(I + (I + 4ΣGᵀΣG)^{1/2})⁻¹.
* anything else, or unnormalised exponentials, or a causal mask over position-dependent
  laws: not affine.  Non-closure is *proved* by an exact witness — a rational instance, the
  point x₀ = 0 and a direction u where the n-th directional derivative (n ≥ 2) of Γ is
  provably nonzero, computed by Taylor-expanding the kernel in s (x = s u) and taking
  Gaussian moments of the resulting polynomials in y (Stein's identity).  Non-rational
  constants (e^{−b₀}) are decided by ball arithmetic.  Never "simplify did not return 0".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any, Sequence

import sympy as sp

from ..spec.verdict import PROVED, REFUTED, UNDECIDED, Verdict
from ..variants import BISTOCHASTIC, NONE, ROW, Variant
from ..variants import get as get_variant
from . import symbols as S
from .ball import arb_to_pair, sign_of, to_arb
from ._gaussian import GaussianMixture, mixture_moment, tilt

__all__ = ["Closure", "term_closure", "drift_closure", "decide_invariance", "witness_derivative",
           "default_instance"]


@dataclass
class Closure:
    """Γ_μ(x) = J x + c for μ = N(α, Σ), in matrix form.

    Attributes
    ----------
    J, c : sympy matrix expressions (d×d and d×1) in α, Σ and the parameter symbols.
    gamma_at_mean : matrix expression
        Γ(α) = Jα + c, in the simplest form known (Sinkhorn: Vα).
    kind : str
        Which rule of the engine applied.
    steps : list of str
        The derivation, for reports.
    """

    J: Any
    c: Any
    gamma_at_mean: Any
    kind: str
    steps: list[str] = field(default_factory=list)
    alpha_free_cov: bool = True

    def __add__(self, other: "Closure") -> "Closure":
        return Closure(
            J=_simp(self.J + other.J), c=_simp(self.c + other.c),
            gamma_at_mean=_simp(self.gamma_at_mean + other.gamma_at_mean),
            kind=f"{self.kind} + {other.kind}", steps=self.steps + other.steps,
            alpha_free_cov=self.alpha_free_cov and other.alpha_free_cov,
        )

    def left_multiply(self, W) -> "Closure":
        """The closure of W·Γ: J ↦ WJ, c ↦ Wc, Γ(α) ↦ WΓ(α) (a head's output matrix).

        Parameters
        ----------
        W : sympy matrix expression
            The d×d left factor.

        Returns
        -------
        Closure
            The product, same rule and steps.
        """
        return Closure(_simp(W * self.J), _simp(W * self.c), _simp(W * self.gamma_at_mean),
                       self.kind, self.steps, self.alpha_free_cov)


def _simp(e):
    e = e.doit()
    try:
        e = e.xreplace({sp.Transpose(S.Sigma): S.Sigma})
    except AttributeError:
        pass
    return e


def _mdiff(expr, var):
    """SymPy's matrix derivative (denominator layout), with 0 for expressions free of ``var``
    (SymPy leaves those as an unevaluated ``Derivative``)."""
    if not expr.has(var):
        if getattr(expr, "is_Matrix", False) or isinstance(expr, sp.MatrixExpr):
            return sp.ZeroMatrix(var.shape[0], expr.shape[0])
        return sp.ZeroMatrix(*var.shape)
    return _simp(expr.diff(var))


def _jacobian(vec, x):
    """∂vec/∂x as a d×d matrix expression (SymPy differentiates in denominator layout)."""
    return _simp(sp.Transpose(_mdiff(vec, x)))


def _is_zero_expr(e) -> bool:
    e = _simp(e) if hasattr(e, "doit") else e
    if isinstance(e, sp.ZeroMatrix):
        return True
    if isinstance(e, sp.MatrixBase):
        return all(v == 0 for v in e)
    return e == 0


class NotStructurallyClosed(Exception):
    """The declaration does not match a closure rule (the witness route decides)."""


def _is_trace_polynomial(e) -> bool:
    """True if ``e`` is a polynomial in traces of matrix expressions and scalar symbols.

    SymPy's matrix calculus is only trusted on such expressions: it silently returns 0 for
    the derivative of e.g. exp(Trace(...)) with respect to a matrix symbol.
    """
    if isinstance(e, sp.Trace) or e.is_Number or e.is_Symbol:
        return True
    if isinstance(e, (sp.Add, sp.Mul)):
        return all(_is_trace_polynomial(a) for a in e.args)
    if isinstance(e, sp.Pow):
        return e.exp.is_Integer and e.exp >= 0 and _is_trace_polynomial(e.base)
    return False


def _exp_quadratic_parts(kernel, x, y):
    """For k = e^{φ}: (H, G, g0) with H = ∂²φ/∂y², g(x) = ∇_yφ|_{y=0} = G x + g0."""
    if not isinstance(kernel, sp.exp):
        raise NotStructurallyClosed("kernel is not of the form e^{φ}")
    phi = kernel.args[0]
    if not _is_trace_polynomial(phi):
        raise NotStructurallyClosed("the exponent φ is not polynomial in x and y")
    grad = _mdiff(phi, y)
    H = _mdiff(grad, y)
    if H.has(x) or H.has(y):
        raise NotStructurallyClosed("∂²φ/∂y² depends on x or y: φ is not quadratic")
    g = _simp(grad.subs(y, sp.ZeroMatrix(*y.shape)))
    G = _jacobian(g, x)
    if G.has(x):
        raise NotStructurallyClosed("∇_yφ is not affine in x")
    g0 = _simp(g.subs(x, sp.ZeroMatrix(*x.shape)))
    return H, G, g0


def term_closure(variant: Variant, P: dict, alpha=S.alpha, Sigma=S.Sigma) -> Closure:
    """Closure of one attention term with parameter symbols ``P`` (see module docstring).

    Parameters
    ----------
    variant : Variant
        The attention variant.
    P : dict
        Parameter name → symbol or exact value (the variant's matrices and scalars).
    alpha : sympy.MatrixSymbol
        The mean α (default the symbol α).
    Sigma : sympy.MatrixSymbol
        The covariance Σ (default the symbol Σ).

    Returns
    -------
    Closure
        J and c with Γ_μ(x) = Jx + c for μ = N(α, Σ).

    Raises
    ------
    NotStructurallyClosed
        When no closure rule applies (the variant may still be closed; the witness route
        decides).
    """
    if variant.causal:
        raise NotStructurallyClosed(
            "causal mask: a query at position s attends to the law of the cone s' ≤ s, a "
            "mixture of position-dependent Gaussians")
    x, y, d = S.x, S.y, S.d
    k = variant.kernel(x, y, P)
    V = variant.value(P)
    I = sp.Identity(d)
    if variant.normalisation == ROW:
        H, G, g0 = _exp_quadratic_parts(k, x, y)
        m_const, _ = tilt(H, g0, alpha, Sigma, dim=d)
        if _is_zero_expr(H):
            J = _simp(V * Sigma * G)
            steps = [f"kernel e^φ with ∂²φ/∂y² = 0 and ∇_yφ(x,0) = {G}·x + {g0}: tilting lemma"]
        else:
            Minv = sp.Inverse(I - Sigma * H)
            J = _simp(V * Minv * Sigma * G)
            steps = [f"kernel e^φ with constant ∂²φ/∂y² = {H}: complete the square (tilted Gaussian)"]
        c = _simp(V * m_const)
        return Closure(J, c, _simp(J * alpha + c), "exp-quadratic, row-normalised", steps)
    if variant.normalisation == BISTOCHASTIC:
        H, G, g0 = _exp_quadratic_parts(k, x, y)
        root = sp.MatPow(I + 4 * Sigma * G.T * Sigma * G, sp.S.Half)
        J = _simp(2 * V * Sigma * G * sp.Inverse(I + root))
        c = _simp(V * alpha - J * alpha)
        steps = ["kernel e^{yᵀGx + separable}: Gaussian entropic self-coupling; "
                 "E[y|x] = α + CΣ⁻¹(x−α) with CΣ⁻¹ = 2ΣG(I + (I + 4ΣGᵀΣG)^{1/2})⁻¹"]
        return Closure(J, c, _simp(V * alpha), "entropic coupling, bistochastic", steps)
    if variant.normalisation == NONE:
        if isinstance(k, sp.exp):
            _, G, _ = _exp_quadratic_parts(k, x, y)
            if not _is_zero_expr(G):
                raise NotStructurallyClosed(
                    "unnormalised exponential kernel: Γ = Z(x)·(affine), Z(x) = ∫e^φ dμ not constant")
        if not _is_trace_polynomial(k):
            raise NotStructurallyClosed("kernel is neither e^{quadratic} nor polynomial in x, y")
        grad = _mdiff(k, y)
        if not _is_zero_expr(_mdiff(grad, y)):
            raise NotStructurallyClosed("kernel is not affine in y")
        g = grad  # independent of y
        k0 = _simp(k.subs(y, sp.ZeroMatrix(*y.shape)))
        G = _jacobian(g, x)
        if G.has(x):
            raise NotStructurallyClosed("∇_y k is not affine in x")
        g0 = _simp(g.subs(x, sp.ZeroMatrix(*x.shape)))
        grad_k0 = _mdiff(k0, x)
        if not _is_zero_expr(grad_k0) and grad_k0.has(x):
            raise NotStructurallyClosed("k(x, 0) is not affine in x")
        k00 = k0.subs(x, sp.ZeroMatrix(*x.shape)) if k0 != 0 else 0
        second = Sigma + alpha * alpha.T
        J = _simp(V * (second * G + alpha * grad_k0.T))
        c = _simp(V * (k00 * alpha + second * g0))
        steps = ["kernel affine in y: ∫k y dμ = k(x,0)α + (Σ + ααᵀ)∇_y k (Gaussian moments)"]
        return Closure(J, c, _simp(J * alpha + c), "polynomial (affine in y), unnormalised", steps,
                       alpha_free_cov=False)
    raise NotStructurallyClosed(f"unknown normalisation {variant.normalisation!r}")


def drift_closure(F=None, b=None) -> Closure:
    """The affine drift F x + b: J = F, c = b.

    Parameters
    ----------
    F : sympy matrix expression, optional
        The drift matrix (default the symbol F).
    b : sympy matrix expression, optional
        The drift vector (default the symbol b).

    Returns
    -------
    Closure
        J = F, c = b, Γ(α) = Fα + b.
    """
    F = F if F is not None else S.param_symbol("F")
    b = b if b is not None else S.param_symbol("b")
    return Closure(F, b, _simp(F * S.alpha + b), "affine drift", ["drift F x + b is affine"])


# ------------------------------------------------------------------------------------------
# Witness route
# ------------------------------------------------------------------------------------------

def default_instance(variant: Variant, d: int = 1) -> dict:
    """A small exact instance used to refute closure: A = I, V = I, α = e₁, Σ = I, b₀ = 1.

    For a causal variant the attended law at the query position s = 1 is the mixture of the
    positions s' = 1/2 (weight 1/3, mean e₁) and s' = 1 (weight 2/3, mean 0), both with Σ = I:
    a position-dependent Gaussian law whose cone is not Gaussian.

    Parameters
    ----------
    variant : Variant
        The attention variant.
    d : int
        The dimension.

    Returns
    -------
    dict
        ``{"d", "P" (the variant's exact parameters), "mixture" (the attended law), "u" (= e₁,
        the direction)}``.
    """
    I = sp.eye(d)
    e1 = sp.Matrix([1] + [0] * (d - 1))
    P = {"A": I, "V": I, "Q": I, "K": I, "W": I, "scale": sp.Integer(1), "sigmoid_bias": sp.Integer(1)}
    P = {k: v for k, v in P.items() if k in variant.matrices or k in variant.scalars}
    if variant.causal:
        mix = GaussianMixture([(sp.Rational(1, 3), e1, I), (sp.Rational(2, 3), sp.zeros(d, 1), I)])
    else:
        mix = GaussianMixture.single(e1, I)
    return {"d": d, "P": P, "mixture": mix, "u": e1}


def witness_derivative(variant: Variant, P: dict, mixture: GaussianMixture, u, order: int):
    """Exact n-th directional derivatives of Γ at x₀ = 0 along u, for n = 0..order.

    N(s) = ∫ k(su, y) V y dμ(y), D(s) = ∫ k(su, y) dμ(y); the s-derivatives at 0 of the kernel
    are polynomials in y (for kernels with k(0, y) independent of y) whose Gaussian moments
    are exact.  Row normalisation uses the Leibniz rule for Γ·D = N.

    Parameters
    ----------
    variant : Variant
        The attention variant.
    P : dict
        Parameter name → symbol or exact value (the variant's matrices and scalars).
    mixture : GaussianMixture
        The attended law μ (exact weights, means, covariances).
    u : matrix-like
        The direction (d×1).
    order : int
        The highest derivative order.

    Returns
    -------
    list of sympy column matrices: Γ^{(0)}, ..., Γ^{(order)}.
    """
    dd = mixture.d
    s = sp.Symbol("s")
    ys = sp.symbols(f"y0:{dd}")
    Y = sp.Matrix(ys)
    X = s * sp.Matrix(u)
    k = sp.sympify(variant.kernel(X, Y, P)).doit()
    k = k.doit() if hasattr(k, "doit") else k
    V = sp.Matrix(variant.value(P))
    Ns, Ds = [], []
    for n in range(order + 1):
        kn = sp.diff(k, s, n).subs(s, 0) if n else k.subs(s, 0)
        kn = sp.simplify(kn) if kn.has(sp.exp) else sp.expand(kn)
        if not kn.free_symbols <= set(ys):
            raise NotStructurallyClosed(f"unexpected symbols in kernel derivative: {kn.free_symbols}")
        try:
            sp.Poly(kn, *ys)
        except sp.PolynomialError:
            raise NotStructurallyClosed("kernel derivatives at x = 0 are not polynomial in y") from None
        Ns.append(V * sp.Matrix([mixture_moment(kn * yi, ys, mixture) for yi in ys]))
        Ds.append(mixture_moment(kn, ys, mixture))
    if variant.normalisation == NONE:
        return [sp.simplify(n) for n in Ns]
    if variant.normalisation != ROW:
        raise NotStructurallyClosed("witness route supports row or no normalisation")
    G = []
    for n in range(order + 1):
        acc = Ns[n]
        for i in range(n):
            acc = acc - comb(n, i) * G[i] * Ds[n - i]
        G.append((acc / Ds[0]).applyfunc(sp.simplify))
    return G


def _fmt(e) -> str:
    e = sp.sympify(e)
    if e.is_Rational:
        return str(e.p) if e.q == 1 else f"{e.p}/{e.q}"
    return sp.sstr(e)


def _instance_json(inst: dict) -> dict:
    P = {}
    for k, v in inst["P"].items():
        P[k] = [[_fmt(e) for e in v.tolist()[i]] for i in range(v.rows)] if isinstance(v, sp.MatrixBase) else _fmt(v)
    comps = [{"weight": _fmt(p), "mean": [_fmt(e) for e in a], "cov": [[_fmt(e) for e in row] for row in S_.tolist()]}
             for p, a, S_ in inst["mixture"].components]
    return {"d": inst["d"], "parameters": P, "law": comps, "x0": ["0"] * inst["d"],
            "direction": [_fmt(e) for e in inst["u"]]}


def decide_invariance(variant: Variant | str, d: int = 1, max_order: int = 4,
                      instance: dict | None = None) -> Verdict:
    """Decide whether the variant's flow keeps Gaussian laws Gaussian.

    PROVED: Γ_μ is affine in x for every Gaussian μ and every parameter value, by a closure
    rule applied to the symbolic (dimension-free) declaration; the evidence holds J and c.
    REFUTED: an exact instance where a directional derivative of order ≥ 2 of Γ at a point
    is provably nonzero (so Γ is not affine, and the pushed-forward Gaussian is not Gaussian).
    UNDECIDED: neither route concluded.

    Parameters
    ----------
    variant : Variant or str
        The variant (a multi-head variant is checked with two softmax heads).
    d : int
        Dimension of the default refutation instance.
    max_order : int
        Highest derivative order searched for a witness.
    instance : dict, optional
        A refutation instance shaped like :func:`default_instance`'s.

    Returns
    -------
    Verdict
        PROVED with J, c and the rule, REFUTED with the instance and the nonzero derivative, or
        UNDECIDED.
    """
    v = get_variant(variant) if isinstance(variant, str) else variant
    claim = f"the {v.name} flow maps Gaussian laws to Gaussian laws (Γ_μ affine in x for Gaussian μ)"
    if v.composite:
        heads = [get_variant("softmax"), get_variant("softmax")]
        parts = []
        for h, sub in enumerate(heads, start=1):
            Ph = S.params_for(sub.matrices + sub.scalars, str(h))
            parts.append(term_closure(sub, Ph).left_multiply(S.param_symbol("W", str(h))))
        total = parts[0] + parts[1]
        return Verdict(PROVED, claim, "structural-symbolic",
                       evidence={"rule": "sum of closed heads, each left-multiplied by W_h",
                                 "J": sp.sstr(total.J), "c": sp.sstr(total.c)},
                       reason="each head is Gaussian-closed and a sum of affine maps is affine")
    try:
        cl = term_closure(v, S.params_for(v.matrices + v.scalars))
        return Verdict(PROVED, claim, "structural-symbolic",
                       evidence={"rule": cl.kind, "J": sp.sstr(cl.J), "c": sp.sstr(cl.c),
                                 "steps": cl.steps},
                       reason=f"{cl.kind}: Γ(x) = J x + c")
    except NotStructurallyClosed as exc:
        why = str(exc)
    inst = instance or default_instance(v, d)
    try:
        derivs = witness_derivative(v, inst["P"], inst["mixture"], inst["u"], max_order)
    except (NotStructurallyClosed, TypeError) as exc:
        return Verdict(UNDECIDED, claim, reason=f"no closure rule applies ({why}) and no witness: {exc}")
    for n in range(2, max_order + 1):
        vec = derivs[n]
        for i, e in enumerate(vec):
            sg = sign_of(e)
            if sg:
                ev = {"instance": _instance_json(inst), "order": n, "component": i,
                      "derivative": [_fmt(t) for t in vec],
                      "exact_rational": all(sp.sympify(t).is_Rational for t in vec)}
                if not sp.sympify(e).is_Rational:
                    ev["ball"] = arb_to_pair(to_arb(e))
                return Verdict(
                    REFUTED, claim, "exact-witness", evidence=ev,
                    reason=(f"{why}; at the instance, the order-{n} derivative of Γ along u at x₀ = 0 "
                            f"has component {i} = {_fmt(e)} ≠ 0"))
    return Verdict(UNDECIDED, claim, reason=f"{why}; derivatives of order 2..{max_order} vanish at the instance")
