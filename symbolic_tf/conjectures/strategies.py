"""Hypothesis strategies for exact parameter sets (use them in your own property tests).

Every value is exact: numbers are :class:`fractions.Fraction`, a vector is a tuple of
Fractions and a matrix a tuple of row tuples of Fractions — the format of the fields of
:class:`symbolic_tf.spec.Problem`.  Every promised property (definiteness, rank, kernel
dimension, orthogonality, the sign structure of VA + AᵀVᵀ, …) holds **by construction**:
nothing is generated and then filtered, so no draw is wasted and the guarantee does not
depend on luck.  The constructions rest on two exact facts:

* Sylvester's law of inertia: for an invertible L, the symmetric matrix L D Lᵀ has as many
  positive / negative / zero eigenvalues as the diagonal D has positive / negative / zero
  entries (so its rank is the number of nonzero entries of D);
* the Cayley transform (I − S)(I + S)⁻¹ of a skew S is orthogonal (I + S is always
  invertible: the eigenvalues of S are imaginary).

Shrinking goes towards low dimension and small integers: the dimension is drawn first (and
shrinks to its minimum), entries shrink to 0 (diagonal scales to 1, triangular factors to
the identity, permutations to the identity order), and integers are preferred over proper
fractions.

Dimensions
----------
Every matrix strategy takes ``d`` as an ``int``, a strategy of ints, or ``None`` (drawn from
:func:`dims`, i.e. 1–4, or from the smallest dimension the strategy allows).  A bad argument
raises :class:`hypothesis.errors.InvalidArgument`.

Example
-------
>>> from hypothesis import given
>>> from symbolic_tf.conjectures.strategies import a_with_nsd_sym, spd
>>> @given(a_with_nsd_sym(kernel_dim=1))
... def test_clustering(A): ...
"""
from __future__ import annotations

import inspect
from fractions import Fraction
from typing import Any, Callable

from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from ..exact.congruence import identity, matmul, transpose
from ..exact.rational import qmat, qmat_to_fractions
from ..exact.rational import frac_str
from ..spec.problem import Problem, parse_problem

__all__ = [
    # numbers and sizes
    "rationals", "positive_rationals", "nonzero_rationals", "dims",
    # plain matrices
    "vectors", "matrices", "symmetric", "skew", "unit_lower_triangular", "invertible",
    # definiteness classes
    "spd", "psd", "nsd", "indefinite", "orthogonal",
    # parameter sets satisfying a hypothesis
    "a_with_nsd_sym", "v_a_with_nsd", "v_a_with_positive_eig", "spd_value",
    # problems
    "problem_documents", "problems", "drift_scalar_problems",
    # serialisation helpers
    "matrix_strs", "vector_strs", "scalar_matrix",
]

DEFAULT_MAX_D = 4

Dim = int | SearchStrategy[int] | None
Factory = Callable[[int], SearchStrategy]


# ----------------------------------------------------------------------------------------
# exact helpers (Fraction matrices; inverses through flint's fmpq_mat)
# ----------------------------------------------------------------------------------------
def _inv(M) -> tuple:
    return qmat_to_fractions(qmat(M).inv())


def _is_singular(M) -> bool:
    return qmat(M).det() == 0


def _add(X, Y) -> tuple:
    return tuple(tuple(a + b for a, b in zip(rx, ry)) for rx, ry in zip(X, Y))


def _scale(c, X) -> tuple:
    return tuple(tuple(c * a for a in r) for r in X)


def _diag(entries) -> tuple:
    n = len(entries)
    return tuple(tuple(Fraction(entries[i]) if i == j else Fraction(0) for j in range(n))
                 for i in range(n))


def _congruence(L, D, perm) -> tuple:
    """P L D Lᵀ Pᵀ with P the permutation matrix of ``perm`` (rows/cols reordered)."""
    M = matmul(matmul(L, _diag(D)), transpose(L))
    return tuple(tuple(M[perm[i]][perm[j]] for j in range(len(M))) for i in range(len(M)))


def scalar_matrix(c, d: int) -> tuple:
    """c·I (d×d) with Fraction entries.

    Parameters
    ----------
    c : Fraction, int or str
        The scalar.
    d : int
        The dimension.

    Returns
    -------
    tuple of tuple of Fraction
        c·I, d×d.
    """
    return _scale(Fraction(c), identity(d))


def matrix_strs(M) -> list:
    """A matrix as nested lists of exact ``"p/q"`` strings (the problem-document format).

    Parameters
    ----------
    M : sequence of sequences of Fraction
        A matrix.

    Returns
    -------
    list of list of str
        Its entries as ``"p/q"`` (``"p"`` for integers).
    """
    return [[frac_str(x) for x in row] for row in M]


def vector_strs(v) -> list:
    """A vector as a list of exact ``"p/q"`` strings (the problem-document format).

    Parameters
    ----------
    v : sequence
        Exact entries (Fraction, int, "p/q").

    Returns
    -------
    list of str
        Its entries as ``"p/q"`` (``"p"`` for integers).
    """
    return [frac_str(x) for x in v]


# ----------------------------------------------------------------------------------------
# numbers and dimensions
# ----------------------------------------------------------------------------------------
def _check_bounds(max_num: int, max_den: int) -> None:
    if not (isinstance(max_num, int) and max_num >= 1):
        raise InvalidArgument(f"max_num must be an int >= 1, got {max_num!r}")
    if not (isinstance(max_den, int) and max_den >= 1):
        raise InvalidArgument(f"max_den must be an int >= 1, got {max_den!r}")


def rationals(max_num: int = 4, max_den: int = 4) -> SearchStrategy[Fraction]:
    """Small rationals p/q with |p| ≤ max_num and 1 ≤ q ≤ max_den.

    Parameters
    ----------
    max_num, max_den : int
        Bounds (≥ 1) on the numerator's absolute value and on the denominator, both
        *before* reduction (so the reduced value obeys them too).

    Returns
    -------
    SearchStrategy[Fraction]
        Integers are drawn about half the time; shrinks to 0, then to small integers,
        then to fractions with small denominators (1/2 before 1/3).
    """
    _check_bounds(max_num, max_den)
    ints = st.integers(-max_num, max_num).map(Fraction)
    if max_den == 1:
        return ints
    return st.one_of(ints, st.builds(Fraction, st.integers(-max_num, max_num), st.integers(2, max_den)))


def positive_rationals(max_num: int = 4, max_den: int = 4) -> SearchStrategy[Fraction]:
    """Rationals p/q > 0 with 1 ≤ p ≤ max_num, 1 ≤ q ≤ max_den; shrinks to 1.

    Parameters
    ----------
    max_num, max_den : int
        Bounds (≥ 1) on the numerator and the denominator.

    Returns
    -------
    SearchStrategy[Fraction]
        Always strictly positive (by construction); integers preferred.
    """
    _check_bounds(max_num, max_den)
    ints = st.integers(1, max_num).map(Fraction)
    if max_den == 1:
        return ints
    return st.one_of(ints, st.builds(Fraction, st.integers(1, max_num), st.integers(2, max_den)))


def nonzero_rationals(max_num: int = 4, max_den: int = 4) -> SearchStrategy[Fraction]:
    """Rationals ±p/q ≠ 0 (1 ≤ p ≤ max_num, 1 ≤ q ≤ max_den); shrinks to 1 (then −1).

    Parameters
    ----------
    max_num, max_den : int
        Bounds (≥ 1) on the numerator and the denominator.

    Returns
    -------
    SearchStrategy[Fraction]
        Never zero (by construction: a sign times a positive rational).
    """
    return st.builds(lambda neg, q: -q if neg else q, st.booleans(), positive_rationals(max_num, max_den))


def dims(min_d: int = 1, max_d: int = DEFAULT_MAX_D) -> SearchStrategy[int]:
    """Dimensions ``min_d ≤ d ≤ max_d``; shrinks to ``min_d``.

    Parameters
    ----------
    min_d, max_d : int
        The bounds, 1 ≤ min_d ≤ max_d.

    Returns
    -------
    SearchStrategy[int]
    """
    if not (isinstance(min_d, int) and isinstance(max_d, int) and 1 <= min_d <= max_d):
        raise InvalidArgument(f"need integers 1 <= min_d <= max_d, got {min_d!r}, {max_d!r}")
    return st.integers(min_d, max_d)


def _draw_dim(draw, d, min_d: int = 1, name: str = "d") -> int:
    """Resolve ``d`` (int, strategy or None) to an int ≥ min_d, drawing it first."""
    if d is None:
        return draw(dims(min_d, max(min_d, DEFAULT_MAX_D)))
    if isinstance(d, SearchStrategy):
        value = draw(d)
    else:
        value = d
    if isinstance(value, bool) or not isinstance(value, int) or value < min_d:
        raise InvalidArgument(f"{name} must be an integer >= {min_d} here, got {value!r}")
    return value


def _elements(elements) -> SearchStrategy[Fraction]:
    return rationals() if elements is None else elements


# ----------------------------------------------------------------------------------------
# plain matrices
# ----------------------------------------------------------------------------------------
@st.composite
def vectors(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Vectors of length d with entries from ``elements`` (default :func:`rationals`).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[Fraction, ...]]
        A tuple of exactly d Fractions; shrinks to the zero vector.
    """
    n = _draw_dim(draw, d)
    el = _elements(elements)
    return tuple(Fraction(draw(el)) for _ in range(n))


@st.composite
def matrices(draw, rows: Dim = None, cols: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Rectangular rows×cols matrices (square d×d when ``cols`` is None).

    Parameters
    ----------
    rows, cols : int, strategy of int, or None
        ``rows`` is drawn first; ``cols=None`` means "the same as rows".
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Exactly ``rows`` rows of ``cols`` Fractions; shrinks to the zero matrix.
    """
    n = _draw_dim(draw, rows, name="rows")
    m = n if cols is None else _draw_dim(draw, cols, name="cols")
    el = _elements(elements)
    return tuple(tuple(Fraction(draw(el)) for _ in range(m)) for _ in range(n))


@st.composite
def symmetric(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Symmetric d×d matrices M = Mᵀ (upper triangle drawn, mirrored).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Exactly symmetric; shrinks to the zero matrix.
    """
    n = _draw_dim(draw, d)
    el = _elements(elements)
    M = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            M[i][j] = M[j][i] = Fraction(draw(el))
    return tuple(tuple(r) for r in M)


@st.composite
def skew(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Skew-symmetric d×d matrices S = −Sᵀ (zero diagonal; strict upper triangle drawn).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Exactly skew; for d = 1 always [[0]]; shrinks to the zero matrix.
    """
    n = _draw_dim(draw, d)
    el = _elements(elements)
    S = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            x = Fraction(draw(el))
            S[i][j], S[j][i] = x, -x
    return tuple(tuple(r) for r in S)


def _unit_lower(draw, n: int, ncols: int, el) -> tuple:
    """n×ncols unit lower-trapezoidal: ones on the diagonal, zeros above, drawn below."""
    return tuple(
        tuple(Fraction(1) if i == j else Fraction(0) if j > i else Fraction(draw(el)) for j in range(ncols))
        for i in range(n)
    )


@st.composite
def unit_lower_triangular(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Unit lower-triangular d×d matrices L (ones on the diagonal, so det L = 1).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`). (below the diagonal)

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Always invertible; shrinks to the identity.
    """
    n = _draw_dim(draw, d)
    return _unit_lower(draw, n, n, _elements(elements))


@st.composite
def invertible(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Invertible d×d matrices P L U (P a permutation, L unit lower-, U upper-triangular
    with a nonzero diagonal); every invertible rational matrix has this form.

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`). (of L and the
        off-diagonal of U)

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        det = ±Π diag(U) ≠ 0 by construction; shrinks to the identity.
    """
    n = _draw_dim(draw, d)
    el = _elements(elements)
    L = _unit_lower(draw, n, n, el)
    diag = [draw(nonzero_rationals()) for _ in range(n)]
    U = tuple(tuple(diag[i] if i == j else Fraction(0) if j < i else Fraction(draw(el)) for j in range(n))
              for i in range(n))
    perm = draw(st.permutations(range(n)))
    LU = matmul(L, U)
    return tuple(LU[perm[i]] for i in range(n))


# ----------------------------------------------------------------------------------------
# definiteness classes (Sylvester: P L D Lᵀ Pᵀ has the inertia of D)
# ----------------------------------------------------------------------------------------
def _factored(draw, n: int, D: list, el) -> tuple:
    """P L D Lᵀ Pᵀ for drawn unit lower L and permutation P; only the columns of L that
    meet a nonzero entry of D are drawn (D's zeros are kept at the end)."""
    r = max((i + 1 for i, x in enumerate(D) if x != 0), default=0)
    if r == 0:
        return tuple(tuple(Fraction(0) for _ in range(n)) for _ in range(n))
    L = _unit_lower(draw, n, r, el)
    perm = draw(st.permutations(range(n)))
    return _congruence(L, D[:r], perm)


@st.composite
def psd(draw, d: Dim = None, rank: int | None = None, elements: SearchStrategy | None = None,
        diagonal: SearchStrategy | None = None) -> tuple:
    """Symmetric positive semidefinite d×d matrices, of rank exactly ``rank`` when given.

    Built as P L Dᵣ Lᵀ Pᵀ with L unit lower-triangular (entries below the diagonal from
    ``elements``), Dᵣ = diag(δ₁, …, δᵣ, 0, …, 0) with δᵢ > 0 (from ``diagonal``, default
    :func:`positive_rationals`) and P a permutation; every rational PSD matrix of rank r
    has this form (pivoted LDLᵀ).

    Parameters
    ----------
    d : int, strategy of int, or None
        With ``rank`` given and ``d`` None, d is drawn from max(1, rank)…max(rank, 4).
    rank : int, optional
        0 ≤ rank ≤ d; when None it is drawn from 0…d (shrinking to 0, the zero matrix).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        M = Mᵀ ⪰ 0 with rank M = rank exactly.
    """
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
        raise InvalidArgument(f"rank must be a non-negative int, got {rank!r}")
    n = _draw_dim(draw, d, min_d=max(1, rank or 0))
    r = draw(st.integers(0, n)) if rank is None else rank
    pos = diagonal if diagonal is not None else positive_rationals()
    D = [Fraction(draw(pos)) for _ in range(r)] + [Fraction(0)] * (n - r)
    if any(x <= 0 for x in D[:r]):
        raise InvalidArgument("diagonal must generate positive rationals")
    return _factored(draw, n, D, _elements(elements))


@st.composite
def spd(draw, d: Dim = None, elements: SearchStrategy | None = None,
        diagonal: SearchStrategy | None = None) -> tuple:
    """Symmetric positive definite d×d matrices P L D Lᵀ Pᵀ (D ≻ 0 diagonal, L unit
    lower-triangular, P a permutation): :func:`psd` with rank d.

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).
    diagonal : strategy of Fraction, optional
        The positive entries of D (as in :func:`psd`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        M = Mᵀ ≻ 0 (full rank) by construction; shrinks to the identity.
    """
    n = _draw_dim(draw, d)
    return draw(psd(n, rank=n, elements=elements, diagonal=diagonal))


def nsd(d: Dim = None, rank: int | None = None, elements: SearchStrategy | None = None,
        diagonal: SearchStrategy | None = None) -> SearchStrategy[tuple]:
    """Symmetric negative semidefinite matrices: −M for M from :func:`psd` (same arguments).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    rank : int, optional
        0 ≤ rank ≤ d (None: drawn).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).
    diagonal : strategy of Fraction, optional
        As in :func:`psd`.

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        M = Mᵀ ⪯ 0 with rank M = rank exactly when given.
    """
    return psd(d, rank, elements, diagonal).map(lambda M: _scale(-1, M))


@st.composite
def indefinite(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Symmetric indefinite d×d matrices (d ≥ 2): at least one positive and one negative
    eigenvalue.

    P L D Lᵀ Pᵀ with D = diag(δ₊ > 0, δ₋ < 0, arbitrary rationals…).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension, at least 2 (None: drawn).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Inertia (n₊, n₋, n₀) with n₊ ≥ 1 and n₋ ≥ 1 by construction; shrinks to
        [[1, 0], [0, −1]].
    """
    n = _draw_dim(draw, d, min_d=2)
    el = _elements(elements)
    D = [draw(positive_rationals()), -draw(positive_rationals())] + [Fraction(draw(el)) for _ in range(n - 2)]
    L = _unit_lower(draw, n, n, el)
    perm = draw(st.permutations(range(n)))
    return _congruence(L, D, perm)


def _cayley(S) -> tuple:
    n = len(S)
    I = identity(n)
    return matmul(_add(I, _scale(-1, S)), _inv(_add(I, S)))


@st.composite
def orthogonal(draw, d: Dim = None, elements: SearchStrategy | None = None) -> tuple:
    """Rational orthogonal d×d matrices R (R Rᵀ = I exactly).

    R = (I − S)(I + S)⁻¹ · diag(±1) with S rational skew (the Cayley transform; I + S is
    always invertible), so both determinants ±1 occur.  For d = 1 this is [[±1]].

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy of the skew S (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Exactly orthogonal; shrinks to the identity.
    """
    n = _draw_dim(draw, d)
    S = draw(skew(n, elements))
    signs = [-1 if draw(st.booleans()) else 1 for _ in range(n)]
    R = _cayley(S)
    return tuple(tuple(R[i][j] * signs[j] for j in range(n)) for i in range(n))


# ----------------------------------------------------------------------------------------
# parameter sets satisfying a hypothesis of docs/mathematics.md §4 by construction
# ----------------------------------------------------------------------------------------
def _check_kernel_dim(kernel_dim) -> None:
    if kernel_dim is not None and (isinstance(kernel_dim, bool) or not isinstance(kernel_dim, int) or kernel_dim < 0):
        raise InvalidArgument(f"kernel_dim must be a non-negative int, got {kernel_dim!r}")


def _draw_n_rank(draw, d, kernel_dim):
    """(d, rank of N) with d − rank = kernel_dim when given."""
    _check_kernel_dim(kernel_dim)
    n = _draw_dim(draw, d, min_d=max(1, kernel_dim or 0))
    if kernel_dim is not None and kernel_dim > n:
        raise InvalidArgument(f"kernel_dim={kernel_dim} exceeds d={n}")
    r = draw(st.integers(0, n)) if kernel_dim is None else n - kernel_dim
    return n, r


@st.composite
def a_with_nsd_sym(draw, d: Dim = None, kernel_dim: int | None = None,
                   elements: SearchStrategy | None = None) -> tuple:
    """Attention matrices A with A + Aᵀ ⪯ 0 (the clustering hypothesis of docs/mathematics.md §4).

    A = −N/2 + S with N ⪰ 0 from :func:`psd` of rank d − kernel_dim and S skew, so
    A + Aᵀ = −N exactly.

    Parameters
    ----------
    kernel_dim : int, optional
        When given, dim ker(A + Aᵀ) = kernel_dim exactly (0 means A + Aᵀ ≺ 0); otherwise
        drawn from 0…d.

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        d×d A with A + Aᵀ ⪯ 0; shrinks towards −I/2 … 0.
    """
    n, r = _draw_n_rank(draw, d, kernel_dim)
    N = draw(psd(n, rank=r, elements=elements))
    S = draw(skew(n, elements))
    return _add(_scale(Fraction(-1, 2), N), S)


def _draw_value(draw, n: int, value: Factory | None) -> tuple:
    V = draw(invertible(n) if value is None else value(n))
    assume(not _is_singular(V))  # only reachable with a user factory that is not invertible
    return V


@st.composite
def v_a_with_nsd(draw, d: Dim = None, kernel_dim: int | None = None, value: Factory | None = None,
                 elements: SearchStrategy | None = None) -> tuple:
    """Pairs (V, A) with V A + Aᵀ Vᵀ ⪯ 0 (the hypothesis of the §4 conjecture).

    V is invertible (default :func:`invertible`; or ``value(d)``, e.g. ``spd``,
    ``orthogonal``), N ⪰ 0, S skew, and A = V⁻¹(−N/2 + S), so V A + Aᵀ Vᵀ = −N exactly.

    Parameters
    ----------
    kernel_dim : int, optional
        When given, dim ker(V A + Aᵀ Vᵀ) = kernel_dim exactly.
    value : callable d -> strategy, optional
        Strategy factory for V; it should produce invertible matrices (a singular draw is
        discarded with ``assume``, so make that rare).

    Returns
    -------
    SearchStrategy[tuple[V, A]]
        d×d Fraction matrices; V invertible and V A + Aᵀ Vᵀ = −N ⪯ 0.
    """
    n, r = _draw_n_rank(draw, d, kernel_dim)
    V = _draw_value(draw, n, value)
    N = draw(psd(n, rank=r, elements=elements))
    S = draw(skew(n, elements))
    A = matmul(_inv(V), _add(_scale(Fraction(-1, 2), N), S))
    return V, A


@st.composite
def v_a_with_positive_eig(draw, d: Dim = None, value: Factory | None = None,
                          elements: SearchStrategy | None = None) -> tuple:
    """Pairs (V, A) with V A + Aᵀ Vᵀ having at least one positive eigenvalue.

    M = P L D Lᵀ Pᵀ with D = diag(δ > 0, arbitrary rationals…) (Sylvester: M has a positive
    eigenvalue), S skew, V invertible (default :func:`invertible` or ``value(d)``), and
    A = V⁻¹(M/2 + S), so V A + Aᵀ Vᵀ = M exactly.

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    value : callable d -> strategy, optional
        Strategy factory for V (invertible matrices; default :func:`invertible`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[V, A]]
        d×d Fraction matrices; V invertible; inertia(V A + Aᵀ Vᵀ) has n₊ ≥ 1.
    """
    n = _draw_dim(draw, d)
    el = _elements(elements)
    V = _draw_value(draw, n, value)
    D = [draw(positive_rationals())] + [Fraction(draw(el)) for _ in range(n - 1)]
    L = _unit_lower(draw, n, n, el)
    perm = draw(st.permutations(range(n)))
    M = _congruence(L, D, perm)
    S = draw(skew(n, elements))
    A = matmul(_inv(V), _add(_scale(Fraction(1, 2), M), S))
    return V, A


def spd_value(d: Dim = None, elements: SearchStrategy | None = None) -> SearchStrategy[tuple]:
    """Value matrices V = Vᵀ ≻ 0 (the case of docs/mathematics.md §4 where d/dt tr(V⁻¹Σ) = tr(Σ(A+Aᵀ)Σ)).

    Parameters
    ----------
    d : int, strategy of int, or None
        The dimension (None: drawn from :func:`dims`).
    elements : strategy of Fraction, optional
        Entry strategy (default :func:`rationals`).

    Returns
    -------
    SearchStrategy[tuple[tuple[Fraction, ...], ...]]
        Same as :func:`spd`: symmetric positive definite by construction.
    """
    return spd(d, elements)


# ----------------------------------------------------------------------------------------
# problems (built as documents and parsed by symbolic_tf.spec.parse_problem)
# ----------------------------------------------------------------------------------------
def _variant_info(name: str):
    from ..variants import get  # lazy: the registry imports SymPy

    return get(name)


def _query_key(d: int) -> SearchStrategy:
    """(Q, K), both k×d with the same k drawn from 1…d."""
    return st.integers(1, d).flatmap(lambda k: st.tuples(matrices(k, d), matrices(k, d)))


def _finish_document(draw, doc: dict, n: int, cov, mean, T) -> dict:
    """Add the horizon and the initial Gaussian (mean, cov) to a problem document."""
    if T is not None:
        doc["T"] = frac_str(draw(T))
    initial = {}
    if mean is not None:
        initial["mean"] = vector_strs(draw(mean(n)))
    if cov is not None:
        initial["cov"] = matrix_strs(draw(cov(n)))
    if initial:
        doc["initial"] = initial
    return doc


@st.composite
def _documents(draw, variant, d, value, attention, value_attention, query_key, drift, cov, mean,
               n_heads, head_variant, head_weight, sigmoid_bias, T) -> dict:
    name = draw(variant) if isinstance(variant, SearchStrategy) else variant
    info = _variant_info(name)
    n = _draw_dim(draw, d)
    doc: dict[str, Any] = {"variant": name, "d": n}

    def draw_va():
        if value_attention is not None:
            V, A = draw(value_attention(n))
        else:
            A = draw(attention(n))
            V = draw(value(n))
        return V, A

    if info.composite:
        h = n_heads if n_heads is not None else st.integers(1, 3)
        h = draw(h) if isinstance(h, SearchStrategy) else h
        if isinstance(h, bool) or not isinstance(h, int) or h < 1:
            raise InvalidArgument(f"n_heads must be an int >= 1, got {h!r}")
        heads = []
        for _ in range(h):
            V, A = draw_va()
            hd = {"variant": head_variant, "A": matrix_strs(A), "V": matrix_strs(V)}
            if head_weight is not None:
                hd["W"] = matrix_strs(draw(head_weight(n)))
            heads.append(hd)
        doc["heads"] = heads
    elif "Q" in info.matrices:
        Q, K = draw(query_key(n))
        doc["Q"], doc["K"] = matrix_strs(Q), matrix_strs(K)
        if "V" in info.matrices:
            doc["V"] = matrix_strs(draw(value(n)))
    else:
        V, A = draw_va()
        if "A" in info.matrices:
            doc["A"] = matrix_strs(A)
        if "V" in info.matrices:
            doc["V"] = matrix_strs(V)
    if "sigmoid_bias" in info.scalars:
        doc["sigmoid_bias"] = frac_str(draw(sigmoid_bias if sigmoid_bias is not None else rationals()))
    if drift:
        doc["F"] = matrix_strs(draw(matrices(n)))
        doc["b"] = vector_strs(draw(vectors(n)))
    return _finish_document(draw, doc, n, cov, mean, T)


def problems(
    variant: str | SearchStrategy[str] = "softmax",
    d: Dim = None,
    *,
    value: Factory = matrices,
    attention: Factory = matrices,
    value_attention: Factory | None = None,
    query_key: Factory = _query_key,
    drift: bool = False,
    cov: Factory | None = spd,
    mean: Factory | None = vectors,
    n_heads: int | SearchStrategy[int] | None = None,
    head_variant: str = "softmax",
    head_weight: Factory | None = None,
    sigmoid_bias: SearchStrategy | None = None,
    T: SearchStrategy | None = None,
) -> SearchStrategy[Problem]:
    """Valid :class:`~symbolic_tf.spec.Problem` objects, built by ``parse_problem`` from a
    document (:func:`problem_documents`).

    Parameters
    ----------
    variant : str or strategy of str
        A registered variant name (e.g. ``st.sampled_from(variants.names())``).  The
        matrices drawn are the ones the variant declares: (A, V) for single-head variants,
        (Q, K, V) for ℓ2, ``[[heads]]`` of (A, V[, W]) for multi-head, plus ``sigmoid_bias``
        for sigmoid.
    d : int, strategy of int, or None
        Token dimension (drawn first; default 1…4).
    value, attention : callable d -> strategy
        Factories for V and A (default :func:`matrices`); e.g. ``value=spd_value``,
        ``attention=a_with_nsd_sym``.
    value_attention : callable d -> strategy of (V, A), optional
        A joint factory, overriding ``value``/``attention`` (e.g. :func:`v_a_with_nsd`).
    query_key : callable d -> strategy of (Q, K)
        For ℓ2 (default: both k×d with k drawn from 1…d).
    drift : bool
        Add an affine feed-forward drift F x + b (F, b arbitrary small rationals).
    cov : callable d -> strategy, or None
        Initial covariance (default :func:`spd`).  ``cov=psd`` draws rank-deficient
        covariances on purpose (rank 0…d); ``functools.partial(psd, rank=1)`` fixes the rank.
        ``None`` omits it.  It must produce PSD matrices (parse_problem checks).
    mean : callable d -> strategy, or None
        Initial mean (default :func:`vectors`); ``None`` omits it.
    n_heads, head_variant, head_weight
        Multi-head only: number of heads (default 1…3), their single-head variant, and an
        optional factory for W (omitted W means the identity).
    sigmoid_bias : strategy of Fraction, optional
        Sigmoid only (default :func:`rationals`).
    T : strategy of positive Fraction, optional
        Horizon; omitted when None.

    Returns
    -------
    SearchStrategy[Problem]
        Parsed (so grammatically valid, covariance exactly PSD) and accepted by
        ``symbolic_tf.variants.bind``; ``problem_to_dict`` round-trips it.
    """
    return _documents(variant, d, value, attention, value_attention, query_key, drift, cov, mean,
                      n_heads, head_variant, head_weight, sigmoid_bias, T).map(parse_problem)


def problem_documents(variant: str | SearchStrategy[str] = "softmax", d: Dim = None,
                      **options) -> SearchStrategy[dict]:
    """Problem *documents* (plain dicts with ``"p/q"`` strings, the TOML/JSON format).

    Takes the same arguments as :func:`problems`, which parses these documents.

    Parameters
    ----------
    variant : str or strategy of str
        The variant name(s).
    d : int, strategy of int, or None
        The dimension.
    **options
        The other keyword arguments of :func:`problems`.

    Returns
    -------
    SearchStrategy[dict]
        A document that :func:`symbolic_tf.spec.parse_problem` accepts and whose variant's
        requirements (``symbolic_tf.variants.bind``) are met.
    """
    try:
        bound = inspect.signature(problems).bind(variant, d, **options)
    except TypeError as exc:
        raise InvalidArgument(f"problem_documents: {exc}") from None
    bound.apply_defaults()
    return _documents(**bound.arguments)


@st.composite
def _drift_scalar_documents(draw, d, v, f, beta, attention_extra, bias, cov, mean, T):
    n = _draw_dim(draw, d)
    vv = Fraction(draw(v if v is not None else rationals()))
    ff = Fraction(draw(f if f is not None else rationals()))
    bb = Fraction(draw(beta if beta is not None else rationals()))
    A = scalar_matrix(bb, n)
    if attention_extra is not None:
        A = _add(A, draw(attention_extra(n)))
    doc: dict[str, Any] = {
        "variant": "softmax", "d": n,
        "A": matrix_strs(A), "V": matrix_strs(scalar_matrix(vv, n)), "F": matrix_strs(scalar_matrix(ff, n)),
    }
    if bias:
        doc["b"] = vector_strs(draw(vectors(n)))
    return _finish_document(draw, doc, n, cov, mean, T)


def drift_scalar_problems(
    d: Dim = None,
    *,
    v: SearchStrategy | None = None,
    f: SearchStrategy | None = None,
    beta: SearchStrategy | None = None,
    attention_extra: Factory | None = None,
    bias: bool = False,
    cov: Factory | None = spd,
    mean: Factory | None = vectors,
    T: SearchStrategy | None = None,
) -> SearchStrategy[Problem]:
    """Alcalde–Ji–Zuazua problems (softmax + drift, docs/mathematics.md §6) with scalar parameters:
    V = vI, F = fI, A = βI (+ an optional extra term).

    Parameters
    ----------
    v, f, beta : strategy of Fraction, optional
        The scalars (default :func:`rationals` each; pass e.g. ``positive_rationals()`` to
        fix a sign: R = v(A + Aᵀ) = 2vβI when the extra term is skew).
    attention_extra : callable d -> strategy, optional
        Added to βI, e.g. ``skew`` (keeps A + Aᵀ = 2βI) or ``symmetric``.
    bias : bool
        Also draw the drift vector b (otherwise b is omitted, i.e. 0).
    cov, mean, T
        As in :func:`problems` (``cov=psd`` for rank-deficient initial covariances).

    Returns
    -------
    SearchStrategy[Problem]
        A parsed softmax problem with V = vI, F = fI and A − βI drawn from
        ``attention_extra`` (zero when it is None).
    """
    return _drift_scalar_documents(d, v, f, beta, attention_extra, bias, cov, mean, T).map(parse_problem)
