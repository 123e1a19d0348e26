"""Standard SymPy symbols for the matrix (dimension-free) form.

Matrix form uses ``MatrixSymbol``s of symbolic size d (and k for the query/key rows of ℓ2):
x, y ∈ ℝ^{d×1}; α ∈ ℝ^{d×1}; Σ ∈ ℝ^{d×d}; parameters A, V, W, F ∈ ℝ^{d×d}, Q, K ∈ ℝ^{k×d},
b ∈ ℝ^{d×1}; the temperature τ (``scale``) and the sigmoid bias b₀ are scalars.
"""
from __future__ import annotations

import sympy as sp

__all__ = ["d", "k", "x", "y", "alpha", "Sigma", "tau", "b0", "param_symbol", "params_for", "Trace"]

d = sp.Symbol("d", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
x = sp.MatrixSymbol("x", d, 1)
y = sp.MatrixSymbol("y", d, 1)
alpha = sp.MatrixSymbol("alpha", d, 1)
Sigma = sp.MatrixSymbol("Sigma", d, d)
tau = sp.Symbol("tau", positive=True)
b0 = sp.Symbol("b_0", real=True)
Trace = sp.Trace

_SHAPES = {"Q": (k, d), "K": (k, d), "b": (d, 1)}


def param_symbol(name: str, suffix: str = ""):
    """The MatrixSymbol (or scalar Symbol) for parameter ``name`` (``A`` → A, head 1 → A_1)."""
    if name == "scale":
        return tau
    if name == "sigmoid_bias":
        return b0
    rows, cols = _SHAPES.get(name, (d, d))
    return sp.MatrixSymbol(f"{name}_{suffix}" if suffix else name, rows, cols)


def params_for(names, suffix: str = "") -> dict:
    """Symbols for a tuple of parameter names."""
    return {n: param_symbol(n, suffix) for n in names}
