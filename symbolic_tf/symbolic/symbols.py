"""Standard SymPy symbols for the matrix (dimension-free) form.

Matrix form uses ``MatrixSymbol``s of symbolic size d (and k for the query/key rows of ℓ2):
x, y ∈ ℝ^{d×1}; α ∈ ℝ^{d×1}; Σ ∈ ℝ^{d×d}; parameters A, V, W, F ∈ ℝ^{d×d}, Q, K ∈ ℝ^{k×d},
b ∈ ℝ^{d×1}; the temperature τ (``scale``) and the sigmoid bias b₀ are scalars.
"""
from __future__ import annotations

import sympy as sp

__all__ = ["d", "k", "x", "y", "alpha", "Sigma", "tau", "b0", "param_symbol", "params_for", "Trace",
           "entry_name"]

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


def entry_name(name: str, i: int, j: int | None = None, size: int = 10) -> str:
    """The name of the scalar symbol for entry (i, j) (or i of a vector) of matrix ``name``.

    Up to size 10 the indices are written together (``A_01``, ``Sigma_12``), as in the papers;
    from size 11 on they are separated by a comma (``A_1,10``, ``A_11,0``; LaTeX ``A_{1,10}``),
    since ``A_110`` would name both A₁,₁₀ and A₁₁,₀.  ``size`` is the largest dimension of the
    matrices named in one expression (every index is below it).

    Parameters
    ----------
    name : str
        The matrix name.
    i : int
        Row (or vector) index.
    j : int, optional
        Column index (None for a vector entry).
    size : int
        The largest dimension in the expression.

    Returns
    -------
    str
        The symbol name.

    Examples
    --------
    >>> entry_name("A", 0, 1), entry_name("A", 1, 10, size=11), entry_name("A", 11, 0, size=12)
    ('A_01', 'A_1,10', 'A_11,0')
    """
    if j is None:
        return f"{name}_{i}"
    return f"{name}_{i}{j}" if size <= 10 else f"{name}_{i},{j}"


def param_symbol(name: str, suffix: str = ""):
    """The MatrixSymbol (or scalar Symbol) for parameter ``name`` (``A`` → A, head 1 → A_1).

    Parameters
    ----------
    name : str
        A parameter name (``"A"``, ``"V"``, ``"b"``, ..., ``"scale"``, ``"sigmoid_bias"``).
    suffix : str
        The head suffix (``""`` for a single head).

    Returns
    -------
    sympy.MatrixSymbol or sympy.Symbol
        τ for ``scale``, b₀ for ``sigmoid_bias``, else the matrix symbol of its declared shape
        (d×d by default).
    """
    if name == "scale":
        return tau
    if name == "sigmoid_bias":
        return b0
    rows, cols = _SHAPES.get(name, (d, d))
    return sp.MatrixSymbol(f"{name}_{suffix}" if suffix else name, rows, cols)


def params_for(names, suffix: str = "") -> dict:
    """Symbols for a tuple of parameter names.

    Parameters
    ----------
    names : iterable of str
        Parameter names.
    suffix : str
        The head suffix.

    Returns
    -------
    dict
        Name → :func:`param_symbol`.
    """
    return {n: param_symbol(n, suffix) for n in names}
