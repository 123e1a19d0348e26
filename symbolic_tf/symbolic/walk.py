"""One walker over SymPy matrix-expression trees, with backends.

The moment systems (:mod:`symbolic_tf.symbolic.moments`) are matrix expressions in α, Σ and the
parameters: sums (``MatAdd``), products with scalar factors (``MatMul``), transposes, inverses,
matrix powers (integer, and the principal square root of Sinkhorn), identities, zero matrices
and matrix symbols; the scalar factors are sums, products and powers of numbers and symbols
(τ, …), ``exp`` and π.  Every consumer of these trees — the numpy code generator
(:mod:`symbolic_tf.numeric.codegen`), the numba kernel printers
(:mod:`symbolic_tf.numeric._kernels`), the Taylor-jet compiler of the reference integrator
(:mod:`symbolic_tf.numeric._jets`) and the mpmath evaluator (:mod:`symbolic_tf.symbolic._evaluate`)
— is a *backend* of :class:`MatrixWalker` (matrix nodes) and of :func:`walk_scalar` (scalar
nodes): the walker owns the recursion, the dispatch on node types and the sharing of repeated
sub-expressions; a backend only says what each node computes or prints.

Matrix backend protocol (the walked values of the children are passed in):

``matrix_symbol(e)``, ``identity(e)``, ``zero(e)``, ``explicit(e)`` (an explicit matrix),
``matadd(e, args)``, ``matmul(e, scalars, mats)`` (``scalars``: the SymPy scalar factors of
``e.args`` in order, ``mats``: the walked matrix factors in order), ``transpose(e, arg)``,
``inverse(e, arg)``, ``sqrt(e, base)`` (exponent 1/2), ``integer_power(e, base, n, walker)``,
``real_power(e, base, exponent, walker)``, ``scalar(e)`` (a scalar expression met where a matrix
is walked); optionally ``before(e, walker)`` (a value to use instead of walking ``e``, or None)
and ``after(e, value)`` (post-processing of a freshly built value).

Scalar backend protocol: ``number(e)`` (integers and floats), ``rational(e)``, ``symbol(e)``,
``add(e, args)``, ``mul(e, args)``, ``power(e, base, exp)``, ``function(e, name, args)``
(``exp``), ``constant(e)`` (π).
"""
from __future__ import annotations

import sympy as sp

__all__ = ["MatrixWalker", "walk_scalar", "is_matrix"]


def is_matrix(e) -> bool:
    """Is ``e`` a matrix (a matrix expression or an explicit matrix) rather than a scalar?

    Parameters
    ----------
    e : sympy.Basic

    Returns
    -------
    bool
        ``e.is_Matrix``.
    """
    return bool(getattr(e, "is_Matrix", False))


class MatrixWalker:
    """Walk SymPy matrix expressions once each, dispatching every node to a backend.

    Repeated sub-expressions (equal as SymPy expressions) are walked once: the walker keeps the
    value of every node it has walked in :attr:`memo`, so a backend that prints code emits each
    distinct sub-expression once (common-subexpression elimination by construction).

    Parameters
    ----------
    backend : object
        Implements the matrix backend protocol of the module docstring.
    """

    def __init__(self, backend):
        self.backend = backend
        self.memo: dict = {}

    def walk(self, e):
        """The backend's value of the expression ``e`` (memoised).

        Parameters
        ----------
        e : sympy.Basic
            A matrix expression, or a scalar expression (handed to ``backend.scalar``).

        Returns
        -------
        object
            Whatever the backend computes for ``e``.

        Raises
        ------
        TypeError
            For a node type the walker or the backend does not support.
        """
        memo = self.memo
        if e in memo:
            return memo[e]
        b = self.backend
        before = getattr(b, "before", None)
        value = before(e, self) if before is not None else None
        if value is None:
            value = self._dispatch(e)
            after = getattr(b, "after", None)
            if after is not None:
                value = after(e, value)
        memo[e] = value
        return value

    def _dispatch(self, e):
        b = self.backend
        if not is_matrix(e):
            return b.scalar(e)
        if isinstance(e, sp.MatrixSymbol):
            return b.matrix_symbol(e)
        if isinstance(e, sp.Identity):
            return b.identity(e)
        if isinstance(e, sp.ZeroMatrix):
            return b.zero(e)
        if isinstance(e, sp.MatrixBase):
            return b.explicit(e)
        if isinstance(e, sp.MatAdd):
            return b.matadd(e, [self.walk(a) for a in e.args])
        if isinstance(e, sp.MatMul):
            mats = [self.walk(a) for a in e.args if is_matrix(a)]
            return b.matmul(e, [a for a in e.args if not is_matrix(a)], mats)
        if isinstance(e, sp.Transpose):
            return b.transpose(e, self.walk(e.arg))
        if isinstance(e, sp.Inverse):
            return b.inverse(e, self.walk(e.arg))
        if isinstance(e, sp.MatPow):
            p = sp.sympify(e.exp)
            base = self.walk(e.base)
            if p == sp.S.Half:
                return b.sqrt(e, base)
            if p.is_Integer:
                return b.integer_power(e, base, int(p), self)
            return b.real_power(e, base, p, self)
        raise TypeError(f"cannot walk matrix expression {type(e).__name__}: {e}")


def walk_scalar(e, backend):
    """Walk a scalar SymPy expression bottom-up with a scalar backend.

    Parameters
    ----------
    e : sympy.Expr
        Built from integers, floats, rationals, symbols, +, ·, powers, ``exp`` and π.
    backend : object
        Implements the scalar backend protocol of the module docstring.

    Returns
    -------
    object
        The backend's value of ``e``.

    Raises
    ------
    TypeError
        For any other node.
    """
    if e.is_Integer or e.is_Float:
        return backend.number(e)
    if e.is_Rational:
        return backend.rational(e)
    if isinstance(e, sp.Symbol):
        return backend.symbol(e)
    if isinstance(e, sp.Add):
        return backend.add(e, [walk_scalar(a, backend) for a in e.args])
    if isinstance(e, sp.Mul):
        return backend.mul(e, [walk_scalar(a, backend) for a in e.args])
    if isinstance(e, sp.Pow):
        return backend.power(e, walk_scalar(e.base, backend), walk_scalar(e.exp, backend))
    if isinstance(e, sp.exp):
        return backend.function(e, "exp", [walk_scalar(e.args[0], backend)])
    if e is sp.pi:
        return backend.constant(e)
    raise TypeError(f"cannot walk scalar {e!r}")
