"""Moment systems: the Gaussian closure turned into ODEs for the mean and covariance.

If Γ_μ(x) = J x + c for μ = N(α, Σ) (tilting lemma, docs/mathematics.md §3), the flow stays Gaussian with

    α̇ = J α + c = Γ(α),        Σ̇ = J Σ + Σ Jᵀ.

A :class:`MomentSystem` holds both right-hand sides as SymPy matrix expressions in
α, Σ and the parameter symbols (dimension-free), plus metadata, and can print them, expand
them to explicit entries at a concrete d, and evaluate them at exact rational parameters.
"""
from __future__ import annotations


from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..spec.errors import InvalidParameters, NotGaussianClosed

from ..variants import Variant
from ..variants import get as get_variant
from . import symbols as S
from .closure import Closure, NotStructurallyClosed, decide_invariance, drift_closure, term_closure
from ._evaluate import evaluate_exact, evaluate_mp, needs_numeric
from ..exact.rational import frac_str

__all__ = ["MomentSystem", "derive", "derive_for_problem", "RhsValue"]


@dataclass
class RhsValue:
    """α̇ and Σ̇ at a point: exact ("p/q" strings) or 30-digit decimals with ``exact=False``."""

    variant: str
    mean_rhs: list
    cov_rhs: list
    exact: bool
    gaussian_closed: bool = True

    def to_dict(self) -> dict:
        """The value as a JSON-serialisable dict.

        Returns
        -------
        dict
            Keys variant, gaussian_closed, mean_rhs, cov_rhs, exact.
        """
        return {"variant": self.variant, "gaussian_closed": self.gaussian_closed,
                "mean_rhs": self.mean_rhs, "cov_rhs": self.cov_rhs, "exact": self.exact}


@dataclass
class MomentSystem:
    """α̇ = mean_rhs(α, Σ; θ), Σ̇ = cov_rhs(α, Σ; θ) in matrix form.

    Attributes
    ----------
    variant : str
    mean_rhs, cov_rhs : sympy matrix expressions (d×1, d×d)
    closure : Closure
        J and c with Γ(x) = J x + c.
    parameters : dict
        Parameter name → symbol (heads suffixed ``_h``).
    assumptions : list of str
    """

    variant: str
    mean_rhs: Any
    cov_rhs: Any
    closure: Closure
    parameters: dict
    assumptions: list = field(default_factory=list)
    heads: int = 0
    drift: bool = False

    # ----- presentation ---------------------------------------------------------------
    def text(self) -> str:
        """The system as two plain-text lines ``d/dt alpha = …`` and ``d/dt Sigma = …``
        (``sympy.sstr``).

        Returns
        -------
        str
            The two lines.
        """
        return (f"d/dt alpha = {sp.sstr(self.mean_rhs)}\n"
                f"d/dt Sigma = {sp.sstr(self.cov_rhs)}")

    def latex(self) -> str:
        """The system as a LaTeX ``aligned`` block.

        Returns
        -------
        str
            The two equations for α̇ and Σ̇ in an ``aligned`` environment.
        """
        return ("\\begin{aligned}\n"
                f"\\dot\\alpha &= {sp.latex(self.mean_rhs)}\\\\\n"
                f"\\dot\\Sigma &= {sp.latex(self.cov_rhs)}\n"
                "\\end{aligned}")

    def __repr__(self) -> str:
        extra = (f", heads={self.heads}" if self.heads else "") + (", drift" if self.drift else "")
        return (f"MomentSystem({self.variant}{extra}: d/dt alpha = {sp.sstr(self.mean_rhs)}; "
                f"d/dt Sigma = {sp.sstr(self.cov_rhs)})")

    def _repr_latex_(self) -> str:  # Jupyter
        return f"$$\n{self.latex()}\n$$"

    def to_dict(self) -> dict:
        """The system as a JSON-serialisable dict: α̇, Σ̇, J, c (as ``sstr``), LaTeX, the closure
        rule, whether Σ̇ is free of α, and the assumptions.

        Returns
        -------
        dict
            Keys variant, gaussian_closed, mean_rhs, cov_rhs, J, c, latex, rule,
            alpha_free_covariance, assumptions.
        """
        return {"variant": self.variant, "gaussian_closed": True,
                "mean_rhs": sp.sstr(self.mean_rhs), "cov_rhs": sp.sstr(self.cov_rhs),
                "J": sp.sstr(self.closure.J), "c": sp.sstr(self.closure.c),
                "latex": self.latex(), "rule": self.closure.kind,
                "alpha_free_covariance": not self.cov_rhs.has(S.alpha),
                "assumptions": self.assumptions}

    # ----- explicit entries -----------------------------------------------------------
    def explicit_symbols(self, d: int, k: int | None = None) -> dict:
        """MatrixSymbol → explicit matrix of scalar symbols at dimension d (k rows for Q, K).

        Parameters
        ----------
        d : int
            The dimension.
        k : int, optional
            Rows of Q and K (default d).

        Returns
        -------
        dict
            MatrixSymbol → ImmutableMatrix of scalar symbols (Σ symmetric, α and b columns).
        """
        k = k or d
        out = {}
        for sym in self._matrix_symbols():
            is_vector = sym.shape[1] == 1  # α, b (decided before d is substituted)
            rows, cols = (sp.sympify(n).subs({S.d: d, S.k: k}) for n in sym.shape)
            name = sym.name
            size = max(d, k)  # indices ≥ 10 are separated (A_1,10 ≠ A_11,0)
            if name == "Sigma":  # symmetric by definition
                M = sp.Matrix(int(rows), int(cols),
                              lambda i, j: sp.Symbol(S.entry_name("Sigma", min(i, j), max(i, j), size)))
            elif is_vector:
                M = sp.Matrix(int(rows), 1, lambda i, j: sp.Symbol(S.entry_name(name, i)))
            else:
                M = sp.Matrix(int(rows), int(cols), lambda i, j, n=name: sp.Symbol(S.entry_name(n, i, j, size)))
            out[sym] = sp.ImmutableMatrix(M)
        return out

    def _matrix_symbols(self):
        syms = set()
        for e in (self.mean_rhs, self.cov_rhs):
            syms |= {a for a in e.atoms(sp.MatrixSymbol)}
        return sorted(syms, key=lambda s: s.name)

    def entries(self, d: int, k: int | None = None):
        """(α̇, Σ̇) as explicit ``sympy.Matrix`` at dimension d, entries in scalar symbols.

        Products stay factored (no ``expand``), so d = 8 is fast.  For d > 1 a matrix inverse
        (ℓ2's (I + 2ΣKᵀK)⁻¹) is kept as an auxiliary matrix ``Inv1`` whose defining equation
        is in :attr:`aux` (``Inv1·M = I``): its entrywise form is a ratio of determinants
        of size d!, useless at d = 8.

        Parameters
        ----------
        d : int
            The dimension.
        k : int, optional
            Rows of Q and K (default d).

        Returns
        -------
        (sympy.Matrix, sympy.Matrix)
            α̇ (d×1) and Σ̇ (d×d).
        """
        if needs_numeric(self.cov_rhs) and d > 1:
            raise InvalidParameters(
                "dim", f"{self.variant}: the entropic coupling has no entrywise closed form for "
                "d > 1 (it involves a matrix square root); use d = 1 or evaluate numerically")
        env = self.explicit_symbols(d, k)
        dims = {S.d: d, S.k: k or d}
        self.aux = {}
        aux_sub = {}
        if d > 1:
            for i, inv in enumerate(sorted(self.cov_rhs.atoms(sp.Inverse) | self.mean_rhs.atoms(sp.Inverse),
                                           key=sp.default_sort_key), start=1):
                sym = sp.MatrixSymbol(f"Inv{i}", d, d)
                M = sp.Matrix(d, d, lambda r, c_, i=i: sp.Symbol(S.entry_name(f"Inv{i}", r, c_, d)))
                aux_sub[inv.subs(dims)] = sp.ImmutableMatrix(M)
                self.aux[sym.name] = sp.sstr(inv.arg)
        out = []
        for e in (self.mean_rhs, self.cov_rhs):
            ee = e.subs(dims).xreplace(aux_sub).xreplace({s.subs(dims): v for s, v in env.items()})
            ee = ee.doit()
            if isinstance(ee, sp.MatrixExpr) and not isinstance(ee, sp.MatrixBase):
                ee = ee.as_explicit()
            out.append(sp.Matrix(ee))
        return out[0], out[1]

    # ----- evaluation -----------------------------------------------------------------
    def evaluate(self, env: dict, d: int, k: int | None = None) -> RhsValue:
        """α̇, Σ̇ at exact values ``env`` (symbol → sympy exact matrix or number).

        Parameters
        ----------
        env : dict
            MatrixSymbol or symbol → exact SymPy matrix or number.
        d : int
            The dimension.
        k : int, optional
            Rows of Q and K (default d).

        Returns
        -------
        RhsValue
            Exact "p/q" entries when rational, else 30-digit decimals (``exact=False``); a system
            with an entropic square root is evaluated with mpmath.
        """
        dims = {S.d: d, S.k: k or d}
        if not needs_numeric(self.cov_rhs) and not needs_numeric(self.mean_rhs):
            m = evaluate_exact(self.mean_rhs, env, dims)
            c = evaluate_exact(self.cov_rhs, env, dims)
            if all(e.is_Rational for e in list(m) + list(c)):
                return RhsValue(self.variant, [frac_str(e) for e in m],
                                [[frac_str(c[i, j]) for j in range(d)] for i in range(d)], True)
            return RhsValue(self.variant, [_dec(e) for e in m],
                            [[_dec(c[i, j]) for j in range(d)] for i in range(d)], False)
        env_d = {(s.subs(dims) if isinstance(s, sp.MatrixSymbol) else s): v for s, v in env.items()}
        m = evaluate_mp(self.mean_rhs.subs(dims), env_d, d)
        c = evaluate_mp(self.cov_rhs.subs(dims), env_d, d)
        return RhsValue(self.variant, [_mpdec(m[i, 0]) for i in range(d)],
                        [[_mpdec(c[i, j]) for j in range(d)] for i in range(d)], False)


def _dec(e) -> str:
    return str(sp.N(e, 30))


def _mpdec(v) -> str:
    import mpmath

    return mpmath.nstr(v, 30, strip_zeros=False)


def _system(name: str, cl: Closure, params: dict, assumptions: list, heads: int = 0, drift: bool = False):
    J = cl.J
    cov = (J * S.Sigma + S.Sigma * J.T).doit().xreplace({sp.Transpose(S.Sigma): S.Sigma}).expand()
    mean = cl.gamma_at_mean.expand()
    return MomentSystem(name, mean, cov, cl, params, assumptions, heads, drift)


def derive(variant: Variant | str, *, heads: int | list | None = None, drift: bool = False,
           scale=1) -> MomentSystem:
    """Derive the moment system of a variant (optionally with the drift F x + b).

    Parameters
    ----------
    variant : name or Variant
    heads : int or list of head variant names, multi-head only (default 2 softmax heads)
    drift : add the affine feed-forward drift F x + b (Alcalde's model: softmax + drift)
    scale : the temperature τ; 1 (the default) prints the formulas of docs/mathematics.md §3, ``None``
        keeps the symbol τ.

    Returns
    -------
    MomentSystem
        α̇ = Jα + c, Σ̇ = JΣ + ΣJᵀ in matrix form.

    Raises
    ------
    NotGaussianClosed
        If the variant does not preserve Gaussians (with the witness in the message).
    """
    v = get_variant(variant) if isinstance(variant, str) else variant
    params: dict = {}
    if heads is not None and not v.composite:
        raise InvalidParameters("heads", f"variant {v.name!r} is single-head; heads apply to 'multihead'")
    if v.composite:
        subs = heads if isinstance(heads, list) else ["softmax"] * (heads or v.default_heads)
        cl = None
        for h, name in enumerate(subs, start=1):
            sub = get_variant(name)
            Ph = S.params_for(sub.matrices + sub.scalars, str(h))
            Ph["scale"] = S.tau
            W = S.param_symbol("W", str(h))
            params.update({f"{k}_{h}": s for k, s in Ph.items() if k != "scale"})
            params[f"W_{h}"] = W
            part = term_closure(sub, Ph).left_multiply(W)
            cl = part if cl is None else cl + part
        n_heads = len(subs)
    else:
        try:
            P = S.params_for(v.matrices + v.scalars)
            cl = term_closure(v, P)
        except NotStructurallyClosed:
            verdict = decide_invariance(v)
            raise NotGaussianClosed(f"{v.name} does not preserve Gaussians: {verdict.reason}") from None
        params.update({k: s for k, s in P.items()})
        n_heads = 0
    if drift:
        cl = cl + drift_closure()
        params["F"], params["b"] = S.param_symbol("F"), S.param_symbol("b")
    if scale is not None:
        tau_val = sp.Rational(scale) if not isinstance(scale, sp.Basic) else scale
        cl = Closure(*(_sub_tau(e, tau_val) for e in (cl.J, cl.c, cl.gamma_at_mean)), cl.kind, cl.steps,
                     cl.alpha_free_cov)
    assumptions = ["Σ symmetric positive semidefinite (singular allowed)", "parameters constant on the step"]
    assumptions.extend(v.moment_assumptions)
    return _system(v.name, cl, params, assumptions, n_heads, drift)


def _sub_tau(e, val):
    return e.xreplace({S.tau: val}).doit() if e.has(S.tau) else e


def derive_for_problem(problem) -> MomentSystem:
    """The moment system of a problem: its variant, its heads, drift if F or b is given.

    Parameters
    ----------
    problem : Problem
        The problem (no ReLU term).

    Returns
    -------
    MomentSystem
        ``derive(variant, heads=…, drift=problem.has_drift, scale=None)``.
    """
    from ..spec.relu import refuse_relu
    from ..variants import bind

    refuse_relu(problem)
    v = bind(problem)
    heads = [h.variant for h in problem.heads] if v.composite else None
    return derive(v, heads=heads, drift=problem.has_drift, scale=None)


def problem_env(problem, system: MomentSystem) -> dict:
    """Exact values for every symbol of ``system`` from ``problem`` (missing drift = 0).

    Parameters
    ----------
    problem : Problem
        A Gaussian problem with ``initial.cov``.
    system : MomentSystem
        The system whose symbols are needed.

    Returns
    -------
    dict
        Symbol → exact value: Σ, α (0 when absent), τ, b₀ and the variant's (or each head's)
        matrices.
    """
    d = problem.d

    def M(rows):
        return sp.ImmutableMatrix([[sp.Rational(e.numerator, e.denominator) for e in r] for r in rows])

    from ..spec.initial import require_gaussian

    require_gaussian(problem)
    if problem.cov is None:
        raise InvalidParameters("initial.cov", "needed to evaluate the right-hand side")
    env = {S.Sigma: M(problem.cov),
           S.alpha: M([[e] for e in problem.mean]) if problem.mean is not None else sp.zeros(d, 1),
           S.tau: sp.Rational(problem.scale.numerator, problem.scale.denominator),
           S.b0: sp.Rational(problem.sigmoid_bias.numerator, problem.sigmoid_bias.denominator)}
    v = get_variant(problem.variant)
    if v.composite:
        for h, head in enumerate(problem.heads, start=1):
            env[S.param_symbol("A", str(h))] = M(head.A)
            env[S.param_symbol("V", str(h))] = M(head.V)
            env[S.param_symbol("W", str(h))] = M(head.W) if head.W is not None else sp.eye(d)
    else:
        for name in v.matrices:
            env[S.param_symbol(name)] = M(getattr(problem, name))
    if system.drift:
        env[S.param_symbol("F")] = M(problem.F) if problem.F is not None else sp.zeros(d, d)
        env[S.param_symbol("b")] = M([[e] for e in problem.b]) if problem.b is not None else sp.zeros(d, 1)
    return env


def rhs(problem, t=0) -> RhsValue:
    """Evaluate α̇ and Σ̇ at the problem's parameters at depth ``t`` (exact; default 0) and its
    initial Gaussian (docs/schedules.md: a constant problem ignores ``t``).

    For variants that do not preserve Gaussians raises :class:`NotGaussianClosed`.

    Parameters
    ----------
    problem : Problem
        The problem.
    t : number
        The depth (read exactly).

    Returns
    -------
    RhsValue
        α̇ and Σ̇ at (α₀, Σ₀) and the parameters at depth t.
    """
    from ..spec.rational import to_fraction
    from ..spec.schedule import problem_at

    problem = problem_at(problem, to_fraction(t, "t"))
    system = derive_for_problem(problem)
    env = problem_env(problem, system)
    k = len(problem.Q) if problem.Q is not None else problem.d
    return system.evaluate(env, problem.d, k)


