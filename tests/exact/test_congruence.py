"""Exact PSD decisions (symbolic_tf.exact.congruence.psd_decision).

Ground truth comes from the construction (Sylvester's law of inertia: M = L D Lᵀ with L
invertible has as many positive/negative/zero eigenvalues as D has positive/negative/zero
entries) and, independently, from SymPy: ``is_positive_semidefinite``, rank, and the exact
characteristic polynomial (M ⪰ 0 iff every coefficient of det(tI + M) is ≥ 0; the rank is n
minus the multiplicity of the root t = 0).
"""
from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from symbolic_tf.exact.congruence import identity, is_symmetric, matmul, psd_decision, PSDResult, quad_form, transpose

small = st.builds(Fraction, st.integers(-6, 6), st.integers(1, 5))
positive = st.builds(Fraction, st.integers(1, 30), st.integers(1, 7))


def to_sympy(M) -> sp.Matrix:
    return sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in row] for row in M])


def sympy_quad(M, v) -> sp.Rational:
    """vᵀ M v computed by SymPy, independently of linalg.quad_form."""
    vs = sp.Matrix([sp.Rational(x.numerator, x.denominator) for x in v])
    return (vs.T * to_sympy(M) * vs)[0, 0]


def charpoly_verdict(M):
    """(psd, pd, rank) from the exact characteristic polynomial of -M."""
    n = len(M)
    t = sp.Symbol("t")
    coeffs = to_sympy(M).multiply(-1).charpoly(t).all_coeffs()  # det(tI + M), leading first
    psd = all(c >= 0 for c in coeffs)
    zero_mult = 0
    for c in reversed(coeffs):
        if c != 0:
            break
        zero_mult += 1
    return psd, psd and zero_mult == 0, n - zero_mult


def assert_valid_witness(M, res: PSDResult):
    assert not res.psd and not res.pd
    w = res.witness
    assert w is not None and len(w) == len(M)
    assert all(type(x) is Fraction for x in w)
    q = quad_form(M, w)
    assert q < 0
    assert sympy_quad(M, w) == sp.Rational(q.numerator, q.denominator)


@st.composite
def invertible(draw, n):
    """P·Lo·Up: a random rational matrix that is invertible by construction."""
    Lo = [[Fraction(int(i == j)) if j >= i else draw(small) for j in range(n)] for i in range(n)]
    Up = [[Fraction(int(i == j)) if j <= i else draw(small) for j in range(n)] for i in range(n)]
    perm = draw(st.permutations(range(n)))
    P = [[Fraction(int(perm[i] == j)) for j in range(n)] for i in range(n)]
    return matmul(P, matmul(Lo, Up))


@st.composite
def congruent_to_diagonal(draw, n_max=5):
    n = draw(st.integers(1, n_max))
    signs = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=n, max_size=n))
    D = [[Fraction(0)] * n for _ in range(n)]
    for i, s in enumerate(signs):
        D[i][i] = s * draw(positive)
    L = draw(invertible(n))
    return matmul(matmul(L, D), transpose(L)), signs


sparse_entry = st.one_of(st.sampled_from([0, 0, 0, 1, -1, 2]).map(Fraction), small)


@st.composite
def symmetric(draw, n_max=4, entries=sparse_entry):
    n = draw(st.integers(1, n_max))
    M = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            M[i][j] = M[j][i] = draw(entries)
    return tuple(tuple(r) for r in M)


# --------------------------------------------------------------------------- properties
@given(congruent_to_diagonal())
def test_verdict_matches_inertia_of_construction(case):
    M, signs = case
    assert is_symmetric(M)
    res = psd_decision(M)
    assert res.psd == all(s >= 0 for s in signs)
    assert res.pd == all(s > 0 for s in signs)
    if res.psd:
        assert res.witness is None
        assert res.rank == sum(s != 0 for s in signs)
    else:
        assert_valid_witness(M, res)


@given(symmetric())
def test_agrees_with_sympy(M):
    res = psd_decision(M)
    S = to_sympy(M)
    assert res.psd == bool(S.is_positive_semidefinite)
    assert res.pd == bool(S.is_positive_definite)
    assert (res.psd, res.pd) == charpoly_verdict(M)[:2]
    if res.psd:
        assert res.rank == S.rank() == charpoly_verdict(M)[2]
    else:
        assert_valid_witness(M, res)


@given(st.integers(1, 5), st.integers(0, 5), st.data())
def test_gram_matrices_are_psd_with_the_right_rank(n, r, data):
    L = [[data.draw(sparse_entry) for _ in range(r)] for _ in range(n)] if r else [[Fraction(0)] for _ in range(n)]
    M = matmul(L, transpose(L))
    res = psd_decision(M)
    assert res.psd and res.witness is None
    assert res.rank == to_sympy(L).rank()
    assert res.pd == (res.rank == n)


@given(congruent_to_diagonal(n_max=4), st.data(), positive)
def test_verdict_is_invariant_under_permutation_and_positive_scaling(case, data, c):
    M, _ = case
    n = len(M)
    perm = data.draw(st.permutations(range(n)))
    PM = tuple(tuple(c * M[perm[i]][perm[j]] for j in range(n)) for i in range(n))
    a, b = psd_decision(M), psd_decision(PM)
    assert (a.psd, a.pd) == (b.psd, b.pd)
    if a.psd:
        assert a.rank == b.rank
    else:
        assert_valid_witness(PM, b)


@given(symmetric(n_max=5, entries=st.sampled_from([0, 0, 0, 1, -1]).map(Fraction)))
def test_zero_diagonal_blocks(M):
    """Mostly-zero matrices exercise the 'zero pivot with nonzero off-diagonal' branch."""
    res = psd_decision(M)
    assert res.psd == bool(to_sympy(M).is_positive_semidefinite)
    if not res.psd:
        assert_valid_witness(M, res)


# --------------------------------------------------------------------------- examples
@pytest.mark.parametrize(
    "M, psd, pd, rank",
    [
        ([[1, 0], [0, 1]], True, True, 2),
        ([[0, 0], [0, 0]], True, False, 0),
        ([[1, 1], [1, 1]], True, False, 1),
        ([[0, 1], [1, 0]], False, False, None),
        ([[1, 2], [2, 1]], False, False, None),
        ([[0, 0], [0, -1]], False, False, None),
        # a zero pivot appears only after eliminating the first index
        ([[1, 1, 1], [1, 1, 2], [1, 2, 1]], False, False, None),
        # PSD with a zero diagonal entry and zero row
        ([[2, 0, 1], [0, 0, 0], [1, 0, 1]], True, False, 2),
        ([["1/3", "1/6"], ["1/6", "1/12"]], True, False, 1),
        ([["1/3", "1/6"], ["1/6", "1/11"]], True, True, 2),
        ([["1/3", "1/6"], ["1/6", "1/13"]], False, False, None),
    ],
)
def test_examples(M, psd, pd, rank):
    M = [[Fraction(x) for x in row] for row in M]
    res = psd_decision(M)
    assert (res.psd, res.pd) == (psd, pd)
    if psd:
        assert res.rank == rank and res.witness is None
    else:
        assert_valid_witness(M, res)


def test_barely_indefinite():
    """A perturbation of 10^-30 below a rank-one PSD matrix is still detected exactly."""
    eps = Fraction(1, 10**30)
    M = [[Fraction(1), Fraction(1)], [Fraction(1), 1 - eps]]
    assert_valid_witness(M, psd_decision(M))
    M = [[Fraction(1), Fraction(1)], [Fraction(1), 1 + eps]]
    assert psd_decision(M).pd


def test_accepts_ints_and_does_not_mutate_input():
    M = [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]
    before = [row[:] for row in M]
    res = psd_decision(M)
    assert res == PSDResult(True, True, 3, None)
    assert M == before


# --------------------------------------------------------------------------- helpers
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.data())
def test_matmul_transpose_identity_against_sympy(a, b, c, data):
    X = tuple(tuple(data.draw(small) for _ in range(b)) for _ in range(a))
    Y = tuple(tuple(data.draw(small) for _ in range(c)) for _ in range(b))
    assert to_sympy(matmul(X, Y)) == to_sympy(X) * to_sympy(Y)
    assert to_sympy(transpose(X)) == to_sympy(X).T
    assert matmul(identity(a), X) == X == matmul(X, identity(b))
    v = tuple(data.draw(small) for _ in range(a))
    S = matmul(transpose(X), X)
    w = tuple(data.draw(small) for _ in range(b))
    # wᵀ (XᵀX) w = |X w|², exactly
    Xw = [sum((X[i][j] * w[j] for j in range(b)), Fraction(0)) for i in range(a)]
    assert quad_form(S, w) == sum(x * x for x in Xw)
    assert quad_form(identity(a), v) == sum(x * x for x in v)


def test_is_symmetric():
    assert is_symmetric([[1, 2], [2, 3]])
    assert not is_symmetric([[1, 2], [Fraction(2) + Fraction(1, 10**20), 3]])
    assert not is_symmetric([[1, 2, 3], [2, 3, 4]])  # not square
    assert not is_symmetric([[1, 2], [2]])  # ragged
    assert is_symmetric([[5]])
    for perm in permutations(range(3)):
        P = [[int(perm[i] == j) for j in range(3)] for i in range(3)]
        assert is_symmetric(matmul(P, transpose(P)))
