"""Exact and ball decisions against independent oracles; congruence invariance of inertia."""
from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from symbolic_tf.exact.ball import arb_matrix, ball_pd
from symbolic_tf.exact.definiteness import definiteness, exact_factor, inertia, is_pd, is_psd
from symbolic_tf.exact.rational import qmat
from symbolic_tf.exact.congruence import quad_form

q = st.fractions(min_value=-3, max_value=3, max_denominator=5)


@st.composite
def symmetric(draw, max_d=4):
    d = draw(st.integers(1, max_d))
    # L D Lᵀ with chosen signs so every inertia (and zero eigenvalues) occurs on purpose
    L = [[draw(q) if j < i else Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    D = [draw(st.sampled_from([Fraction(-2), Fraction(-1, 3), Fraction(0), Fraction(1, 2), Fraction(3)])) for _ in range(d)]
    M = [[sum((L[i][k] * D[k] * L[j][k] for k in range(d)), Fraction(0)) for j in range(d)] for i in range(d)]
    return M, D


@settings()
@given(symmetric())
def test_inertia_matches_construction_and_sympy(MD):
    M, D = MD
    pos, neg, zero = inertia(M)
    assert (pos, neg, zero) == (sum(x > 0 for x in D), sum(x < 0 for x in D), sum(x == 0 for x in D))
    mpmath.mp.dps = 60  # independent oracle: eigenvalues at 60 digits (exact zeros stay ≪ 1e-40)
    ev = mpmath.eigsy(mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in M]))[0]
    assert pos == sum(1 for e in ev if e > mpmath.mpf(10) ** -40)
    assert neg == sum(1 for e in ev if e < -mpmath.mpf(10) ** -40)
    dfn = definiteness(M)
    if dfn.neg_witness is not None:
        assert quad_form(M, dfn.neg_witness) < 0
    if dfn.pos_witness is not None:
        assert quad_form(M, dfn.pos_witness) > 0
    assert dfn.psd == (neg == 0) and dfn.nsd == (pos == 0)


@settings(max_examples=max(20, settings.default.max_examples * 2 // 3))
@given(symmetric(), st.lists(q, min_size=16, max_size=16))
def test_congruence_invariance_of_inertia(MD, entries):
    M, _ = MD
    d = len(M)
    T = qmat([[entries[i * 4 + j] + (3 if i == j else 0) for j in range(d)] for i in range(d)])
    if T.det() == 0:
        return
    assert inertia(T.transpose() * qmat(M) * T) == inertia(M)


@settings(max_examples=max(20, settings.default.max_examples * 2 // 3))
@given(symmetric())
def test_ball_pd_is_sound(MD):
    M, _ = MD
    verdict = ball_pd(arb_matrix(M))
    if verdict is True:
        assert definiteness(M).pd
    if verdict is False:
        assert not definiteness(M).psd


def test_interval_matrix_pd():
    # [[2 ± 1/2, ±1], [±1, 2 ± 1/2]] is PD for every member (λ ≥ 1.5 − 1 > 0)
    assert ball_pd(arb_matrix([[2, 0], [0, 2]], [["1/2", 1], [1, "1/2"]])) is True
    # with radius 2 off the diagonal it contains [[2, 2], [2, 2]] (singular): not certified
    assert ball_pd(arb_matrix([[2, 0], [0, 2]], [[0, 2], [2, 0]])) is not True


@settings()
@given(symmetric())
def test_exact_factor(MD):
    M, D = MD
    if any(x < 0 for x in D):
        return
    B, Dm = exact_factor(M)
    assert B * Dm * B.transpose() == qmat(M)
    assert B.ncols() == qmat(M).rank() == B.rank()
    assert all(Dm[i, i] > 0 for i in range(Dm.nrows()))
    assert isinstance(Dm, flint.fmpq_mat)


@given(symmetric())
def test_is_pd_and_is_psd_match_definiteness(MD):
    M, _ = MD
    from symbolic_tf.exact.definiteness import is_pd, is_psd

    dfn = definiteness(M)
    assert is_pd(M) == dfn.pd
    assert is_psd(M) == dfn.psd


def test_is_pd_of_a_non_symmetric_matrix_is_false():
    from symbolic_tf.exact.definiteness import is_pd, is_psd

    assert not is_pd([[1, 1], [0, 1]]) and not is_psd([[1, 1], [0, 1]])


_small = st.fractions(min_value=-4, max_value=4, max_denominator=6)


@given(_small, _small, _small, _small, st.booleans())
def test_small_matrices_by_minors_agree_with_the_inertia(a, b, b2, c, symmetric):
    """1×1 and 2×2 matrices are decided by their minors: the same answer as the inertia (Descartes)
    test, also for non-symmetric input (both say no)."""
    q = lambda x: flint.fmpq(x.numerator, x.denominator)
    M = flint.fmpq_mat([[q(a), q(b)], [q(b if symmetric else b2), q(c)]])
    sym = M == M.transpose()
    assert is_psd(M) == (sym and inertia(M)[1] == 0)
    assert is_pd(M) == (sym and inertia(M)[0] == 2)
    m = flint.fmpq_mat([[q(a)]])
    assert is_psd(m) == (a >= 0) and is_pd(m) == (a > 0)
