"""SymPy matrix expressions → a DAG of matrix jets (:mod:`symbolic_tf.numeric._jets`).

The right-hand sides α̇ = mean_rhs(α, Σ), Σ̇ = cov_rhs(α, Σ) of a moment system are walked once
(:class:`~symbolic_tf.symbolic.walk.MatrixWalker`, with :class:`JetSystem` as the backend):
α and Σ become state jets, every parameter a constant; sub-expressions free of α and Σ are folded
into constants at compile time, identical sub-expressions are shared, and for a square sum or
product whose transpose (with Σ symmetric) was already compiled the transpose of that node is
used (Σ̇ = X + Xᵀ computes X once).  :func:`compile_rhs` evaluates the compiled right-hand side.
"""
from __future__ import annotations

import flint
import mpmath
import sympy as sp

from ..exact import working_precision
from ..symbolic import symbols as S
from ..symbolic.walk import MatrixWalker
from ._jets import (AddJet, ConstJet, InvJet, MulJet, ScaleJet, SqrtJet, StateJet, TransposeJet, arb_eye,
                   arb_matrix_of_any, arb_matrix_of_sympy, arb_of_sympy, arb_zeros, jet_children,
                   mp_matrix_of_arb, prec_bits)

__all__ = ["JetSystem", "compile_rhs"]


class JetSystem:
    """A moment system compiled once into jet nodes (α and Σ are the only variables)."""

    def __init__(self, system, env: dict, d: int, k: int | None, dps: int):
        self.d, self.dps = d, dps
        self.tol_bits = prec_bits(dps) - 24
        if k is None:
            k = _infer_k(env, d)
        self.dims = {S.d: d, S.k: k}
        self.mat_env, self.scal_env = {}, {}
        for key, val in env.items():
            if isinstance(key, sp.MatrixSymbol):
                self.mat_env[key.name] = val
            else:
                self.scal_env[key] = val
        self.alpha = StateJet()
        self.Sigma = StateJet()
        self.nodes: list = []
        self._muls: dict = {}
        self.walker = MatrixWalker(self)
        mean = system.mean_rhs.subs(self.dims)
        cov = system.cov_rhs.subs(self.dims)
        self.mean = self.walker.walk(mean)
        self.cov = self.walker.walk(cov)

    # -- leaves --------------------------------------------------------------------------
    def _scalar(self, e):
        e = sp.sympify(e).xreplace(self.scal_env)
        if e.free_symbols:
            raise KeyError(f"no value for {sorted(map(str, e.free_symbols))} in env")
        return arb_of_sympy(e, self.dps)

    def matrix_symbol(self, e):
        """α, Σ → their state jets; a parameter → a constant from the environment."""
        name = e.name
        if name == "alpha":
            return self.alpha
        if name == "Sigma":
            return self.Sigma
        if name not in self.mat_env:
            raise KeyError(f"no value for matrix {name} in env")
        val = arb_matrix_of_sympy(self.mat_env[name], self.dps)
        if (val.nrows(), val.ncols()) != tuple(int(n) for n in e.shape):
            raise ValueError(f"{name}: expected shape {e.shape}, got {val.nrows()}×{val.ncols()}")
        return ConstJet(val)

    def identity(self, e):
        """I as a constant jet."""
        return ConstJet(arb_eye(int(e.shape[0])))

    def zero(self, e):
        """0 as a constant jet."""
        return ConstJet(arb_zeros(int(e.shape[0]), int(e.shape[1])))

    def explicit(self, e):
        """An explicit matrix (entries free of α, Σ) as a constant jet."""
        return ConstJet(flint.arb_mat(e.rows, e.cols, [self._scalar(x) for x in e]))

    def scalar(self, e):
        """A scalar where a matrix is expected: not supported."""
        raise TypeError(f"cannot compile {type(e).__name__}: {e}")

    # -- structure -----------------------------------------------------------------------
    def before(self, e, walker):
        """Reuse the transpose of an already compiled node for a square sum or product whose
        transpose (Σ symmetric) was compiled, e.g. Σ̇ = X + Xᵀ.
        """
        if isinstance(e, (sp.MatMul, sp.MatAdd)) and e.shape[0] == e.shape[1]:
            et = self._transpose_expr(e)
            if et != e and et in walker.memo:
                node = walker.memo[et]
                return ConstJet(node.c[0].transpose()) if node.const else self._fold(TransposeJet(node))
        return None

    def after(self, e, node):
        """Register (or fold) a freshly built intermediate node."""
        if not node.const and not isinstance(node, StateJet) and not getattr(node, "registered", False):
            node = self._fold(node)
        return node

    def matadd(self, e, args):
        """The sum of the compiled terms."""
        return AddJet(args)

    def matmul(self, e, scalars, mats):
        """The product of the compiled matrix factors times the constant scalar factors."""
        s = flint.arb(1)
        for a in scalars:
            if any(isinstance(x, sp.MatrixExpr) for x in sp.preorder_traversal(a)):
                raise TypeError(f"state-dependent scalar factor {a} (e.g. a trace)")
            s = s * self._scalar(a)
        node = mats[0]
        for nx in mats[1:]:
            node = self._mul(node, nx)
        if s != 1:  # exact comparison: s is exact unless irrational
            node = self._fold(ScaleJet(s, node))
        return node

    def transpose(self, e, arg):
        """Xᵀ."""
        return TransposeJet(arg)

    def inverse(self, e, arg):
        """X⁻¹."""
        return InvJet(arg)

    def sqrt(self, e, base):
        """The principal square root X^{1/2}."""
        return SqrtJet(base, self.tol_bits)

    def integer_power(self, e, base, n, walker):
        """Xⁿ by repeated products; X⁻ⁿ = (Xⁿ)⁻¹; X⁰ = I."""
        if n == 0:
            return ConstJet(arb_eye(int(e.shape[0])))
        node = base
        for _ in range(abs(n) - 1):
            node = self._mul(node, base)
        return InvJet(node) if n < 0 else node

    def real_power(self, e, base, p, walker):
        """X^{−1/2} = (X^{1/2})⁻¹; other exponents are not supported."""
        if p == -sp.S.Half:
            return InvJet(self._fold(SqrtJet(base, self.tol_bits)))
        raise TypeError(f"matrix power with exponent {p}")

    def _transpose_expr(self, e):
        """Canonical form of eᵀ (Σ is symmetric)."""
        et = sp.Transpose(e).doit()
        return et.replace(lambda x: isinstance(x, sp.Transpose) and isinstance(x.arg, sp.MatrixSymbol)
                          and x.arg.name == "Sigma", lambda x: x.arg)

    def _mul(self, a, b):
        key = (id(a), id(b))
        if key not in self._muls:
            self._muls[key] = self._fold(MulJet(a, b))
        return self._muls[key]

    def _fold(self, node):
        """Register an intermediate node (or fold it when all its inputs are constant)."""
        if all(getattr(ch, "const", False) for ch in jet_children(node)):
            node.push(0)  # constant folding
            return ConstJet(node.c[0])
        node.registered = True
        self.nodes.append(node)
        return node

    # -- evaluation ----------------------------------------------------------------------
    def reset(self, alpha0, Sigma0):
        """Forget every coefficient and start from (α₀, Σ₀)."""
        for n in self.nodes:
            n.c = []
        self.alpha.c = [alpha0]
        self.Sigma.c = [Sigma0]

    def push(self, k):
        """Coefficient k of every node, then coefficient k+1 of α and Σ (y_{k+1} = f_k/(k + 1))."""
        for n in self.nodes:
            n.push(k)
        inv = flint.arb(flint.fmpq(1, k + 1))
        ma, mc = self.mean.co(k), self.cov.co(k)
        self.alpha.c.append(arb_zeros(self.d, 1) if ma is None else (ma * inv).mid())
        self.Sigma.c.append(arb_zeros(self.d, self.d) if mc is None else (mc * inv).mid())


def _infer_k(env, d):
    for key, val in env.items():
        if isinstance(key, sp.MatrixSymbol) and key.name.split("_")[0] in ("Q", "K"):
            return sp.Matrix(val).rows
    return d


def compile_rhs(system, env: dict, d: int, k: int | None = None, dps: int = 50):
    """One fast callable ``f(alpha, Sigma) -> (alpha_dot, Sigma_dot)`` (mpmath matrices).

    The expression trees are compiled once; ``alpha``, ``Sigma`` may be mpmath or SymPy
    matrices.  Every other symbol takes its value from ``env``.
    """
    bits = prec_bits(dps + 10)
    with working_precision(bits):
        comp = JetSystem(system, env, d, k, dps + 10)

    def f(alpha, Sigma):
        with working_precision(bits), mpmath.workdps(dps + 10):
            comp.reset(arb_matrix_of_any(alpha, dps + 10), arb_matrix_of_any(Sigma, dps + 10))
            for n in comp.nodes:
                n.push(0)
            ma, mc = comp.mean.co(0), comp.cov.co(0)
            ma = arb_zeros(d, 1) if ma is None else ma
            mc = arb_zeros(d, d) if mc is None else mc
            return mp_matrix_of_arb(ma), mp_matrix_of_arb(mc)

    return f
