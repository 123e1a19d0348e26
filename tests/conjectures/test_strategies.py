"""The strategies of symbolic_tf.conjectures.strategies keep their promises, checked exactly.

Every guarantee is re-checked with exact arithmetic that does not share the construction:
inertia from the characteristic polynomial (exact.definiteness.inertia / definiteness), ranks and
products in flint's fmpq_mat.  Shrinking is checked with ``hypothesis.find`` (derandomised by
the ``ci`` profile of tests/conftest.py).
"""
from __future__ import annotations

import functools
from fractions import Fraction

import flint
import pytest
from hypothesis import find, given
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from symbolic_tf.exact.definiteness import definiteness, inertia, rank
from symbolic_tf.exact.rational import qmat
from symbolic_tf.conjectures import strategies as S
from symbolic_tf.spec.problem import Problem, parse_problem, problem_to_dict
from symbolic_tf import variants


def is_exact_matrix(M, rows=None, cols=None) -> bool:
    ok = isinstance(M, tuple) and all(isinstance(r, tuple) for r in M)
    ok = ok and all(isinstance(x, Fraction) for r in M for x in r)
    if rows is not None:
        ok = ok and len(M) == rows
    if cols is not None:
        ok = ok and all(len(r) == cols for r in M)
    return ok


def sym_of(V, A) -> flint.fmpq_mat:
    """V A + Aᵀ Vᵀ in fmpq arithmetic."""
    P = qmat(V) * qmat(A)
    return P + P.transpose()


def max_den(M) -> int:
    return max(x.denominator for r in M for x in r)


# ---------------------------------------------------------------------------- numbers
@given(S.rationals(3, 2))
def test_rationals_bounds(q):
    assert isinstance(q, Fraction)
    assert q.denominator <= 2 and abs(q.numerator) <= 3


@given(S.positive_rationals(), S.nonzero_rationals())
def test_positive_and_nonzero(p, z):
    assert p > 0 and z != 0
    assert p.denominator <= 4 and p.numerator <= 4


@given(S.dims(2, 3))
def test_dims(d):
    assert d in (2, 3)


# ---------------------------------------------------------------------------- plain matrices
@pytest.mark.parametrize("shape", [(1, 3), (3, 1), (2, 4), (4, 4)])
def test_matrices_rectangular_shape(shape):
    r, c = shape
    M = find(S.matrices(r, c), lambda M: True)
    assert is_exact_matrix(M, r, c)
    assert all(x == 0 for row in M for x in row)  # shrinks to zero


@given(st.data())
def test_matrices_rectangular_entries(data):
    r, c = data.draw(S.dims(), label="rows"), data.draw(S.dims(), label="cols")
    M = data.draw(S.matrices(r, c, elements=S.rationals(2, 3)), label="M")
    assert is_exact_matrix(M, r, c)
    assert all(abs(x.numerator) <= 2 and x.denominator <= 3 for row in M for x in row)


@given(S.matrices(st.integers(1, 3), st.integers(2, 4)))
def test_matrices_drawn_dims(M):
    assert is_exact_matrix(M) and 1 <= len(M) <= 3 and 2 <= len(M[0]) <= 4


@given(S.symmetric())
def test_symmetric(M):
    assert is_exact_matrix(M, len(M), len(M))
    assert qmat(M) == qmat(M).transpose()


@given(S.skew())
def test_skew(M):
    assert is_exact_matrix(M, len(M), len(M))
    assert qmat(M) == -qmat(M).transpose()


@given(S.invertible())
def test_invertible(V):
    assert is_exact_matrix(V, len(V), len(V))
    assert qmat(V).det() != 0


@given(S.unit_lower_triangular())
def test_unit_lower(L):
    n = len(L)
    assert all(L[i][i] == 1 for i in range(n))
    assert all(L[i][j] == 0 for i in range(n) for j in range(i + 1, n))


# ---------------------------------------------------------------------------- definiteness
@given(S.spd())
def test_spd(M):
    assert is_exact_matrix(M, len(M), len(M))
    assert definiteness(M).pd


@given(st.data())
def test_psd_rank_exact(data):
    d = data.draw(S.dims(), label="d")
    r = data.draw(st.integers(0, d), label="rank")
    M = data.draw(S.psd(d, rank=r), label="M")
    assert len(M) == d
    pos, neg, zero = inertia(M)
    assert neg == 0 and pos == r
    assert rank(M) == r


@given(S.psd())
def test_psd_any_rank(M):
    assert definiteness(M).psd


@given(S.psd(rank=3))
def test_psd_rank_forces_dimension(M):
    assert len(M) >= 3 and rank(M) == 3 and definiteness(M).psd


@given(st.data())
def test_nsd_rank_exact(data):
    d = data.draw(S.dims(), label="d")
    r = data.draw(st.integers(0, d), label="rank")
    M = data.draw(S.nsd(d, rank=r), label="M")
    pos, neg, zero = inertia(M)
    assert pos == 0 and neg == r and zero == d - r


@given(S.indefinite())
def test_indefinite(M):
    pos, neg, _ = inertia(M)
    assert len(M) >= 2 and pos >= 1 and neg >= 1
    assert definiteness(M).kind == "indefinite"


@given(S.orthogonal())
def test_orthogonal(R):
    n = len(R)
    assert is_exact_matrix(R, n, n)
    assert qmat(R) * qmat(R).transpose() == flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


@given(S.orthogonal(1))
def test_orthogonal_d1(R):
    assert R in (((Fraction(1),),), ((Fraction(-1),),))


def test_orthogonal_both_determinants():
    assert find(S.orthogonal(2), lambda R: qmat(R).det() == -1)
    R = find(S.orthogonal(3), lambda R: qmat(R).det() == 1 and R[0][1] != 0)
    assert qmat(R) * qmat(R).transpose() == qmat(S.scalar_matrix(1, 3))


# ---------------------------------------------------------------------------- hypotheses
@given(S.a_with_nsd_sym())
def test_a_with_nsd_sym(A):
    M = qmat(A) + qmat(A).transpose()
    assert inertia(M)[0] == 0


@given(st.data())
def test_a_with_nsd_sym_kernel_dim(data):
    d = data.draw(S.dims(), label="d")
    k = data.draw(st.integers(0, d), label="kernel_dim")
    A = data.draw(S.a_with_nsd_sym(d, kernel_dim=k), label="A")
    pos, neg, zero = inertia(qmat(A) + qmat(A).transpose())
    assert len(A) == d and pos == 0 and zero == k and neg == d - k


@given(S.v_a_with_nsd())
def test_v_a_with_nsd(pair):
    V, A = pair
    assert is_exact_matrix(V, len(V), len(V)) and is_exact_matrix(A, len(V), len(V))
    assert qmat(V).det() != 0
    assert definiteness(sym_of(V, A)).nsd


@given(st.data())
def test_v_a_with_nsd_kernel_dim(data):
    d = data.draw(S.dims(), label="d")
    k = data.draw(st.integers(0, d), label="kernel_dim")
    V, A = data.draw(S.v_a_with_nsd(d, kernel_dim=k, value=S.spd_value), label="VA")
    assert definiteness(V).pd
    pos, neg, zero = inertia(sym_of(V, A))
    assert pos == 0 and zero == k


@given(S.v_a_with_nsd(value=S.orthogonal))
def test_v_a_with_nsd_orthogonal_value(pair):
    V, A = pair
    assert definiteness(sym_of(V, A)).nsd


@given(S.v_a_with_positive_eig())
def test_v_a_with_positive_eig(pair):
    V, A = pair
    assert qmat(V).det() != 0
    assert inertia(sym_of(V, A))[0] >= 1


@given(S.spd_value())
def test_spd_value(V):
    assert qmat(V) == qmat(V).transpose() and definiteness(V).pd


# ---------------------------------------------------------------------------- problems
def roundtrip(p: Problem) -> None:
    assert parse_problem(problem_to_dict(p)) == p
    variants.bind(p)  # the variant's requirements are met


@pytest.mark.parametrize("name", variants.names())
@given(data=st.data())
def test_problems_every_variant(name, data):
    p = data.draw(S.problems(name, drift=name == "softmax"), label="problem")
    assert isinstance(p, Problem) and p.variant == name
    assert definiteness(p.cov).pd
    assert len(p.mean) == p.d
    roundtrip(p)


@given(S.problems(st.sampled_from(["softmax", "sinkhorn"]), cov=S.psd, value_attention=S.v_a_with_nsd))
def test_problems_psd_cov_and_pairs(p):
    assert definiteness(p.cov).psd
    assert definiteness(sym_of(p.V, p.A)).nsd
    roundtrip(p)


def test_problems_psd_cov_draws_rank_deficient():
    p = find(S.problems(cov=S.psd), lambda p: p.d >= 2 and rank(p.cov) < p.d)
    assert p.d == 2 and rank(p.cov) < 2
    roundtrip(p)


@given(S.problems("multihead", n_heads=2, head_weight=S.matrices, attention=S.a_with_nsd_sym, mean=None))
def test_problems_multihead(p):
    assert len(p.heads) == 2 and p.mean is None
    for h in p.heads:
        assert h.W is not None and inertia(qmat(h.A) + qmat(h.A).transpose())[0] == 0
    roundtrip(p)


@given(S.problem_documents("l2", 2, T=S.positive_rationals()))
def test_problem_documents_l2(doc):
    p = parse_problem(doc)
    assert p.Q is not None and p.K is not None and p.T > 0 and p.d == 2
    roundtrip(p)


@given(S.drift_scalar_problems(attention_extra=S.skew, bias=True, cov=functools.partial(S.psd, rank=1)))
def test_drift_scalar_problems(p):
    d = p.d
    v, f = p.V[0][0], p.F[0][0]
    assert p.V == S.scalar_matrix(v, d) and p.F == S.scalar_matrix(f, d)
    beta = p.A[0][0]
    sym = qmat(p.A) + qmat(p.A).transpose()
    assert sym == qmat(S.scalar_matrix(2 * beta, d))  # A − βI is skew
    assert rank(p.cov) == 1 and len(p.b) == d
    roundtrip(p)


@given(S.drift_scalar_problems(v=S.positive_rationals(), beta=S.nonzero_rationals().map(lambda x: -abs(x))))
def test_drift_scalar_signs(p):
    assert p.V[0][0] > 0 and p.A[0][0] < 0 and p.A == S.scalar_matrix(p.A[0][0], p.d)
    roundtrip(p)


# ---------------------------------------------------------------------------- shrinking
def test_shrink_indefinite_symmetric():
    M = find(S.symmetric(), lambda M: (lambda i: i[0] > 0 and i[1] > 0)(inertia(M)))
    assert len(M) == 2 and max_den(M) <= 2
    assert all(abs(x) <= 1 for r in M for x in r)


def test_shrink_indefinite_strategy():
    M = find(S.indefinite(), lambda M: True)
    assert len(M) == 2 and max_den(M) <= 2


def test_shrink_psd_rank():
    M = find(S.psd(), lambda M: len(M) >= 3 and rank(M) == 2)
    assert len(M) == 3 and max_den(M) <= 2
    assert all(abs(x) <= 2 for r in M for x in r)


def test_shrink_spd_offdiagonal():
    M = find(S.spd(), lambda M: len(M) > 1 and M[0][1] != 0)
    assert len(M) == 2 and max_den(M) == 1
    assert all(abs(x) <= 2 for r in M for x in r)


def test_shrink_v_a_positive_eig_to_small():
    V, A = find(S.v_a_with_positive_eig(), lambda p: True)
    assert len(V) == 1 and max_den(V) == 1 and max_den(A) <= 2


def test_shrink_problem():
    p = find(S.problems(), lambda p: True)
    assert p.d == 1 and p.cov == ((Fraction(1),),)
    assert all(x == 0 for x in p.mean)


# ---------------------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("make", [
    lambda: S.indefinite(1), lambda: S.psd(2, rank=3), lambda: S.a_with_nsd_sym(2, kernel_dim=3),
    lambda: S.v_a_with_nsd(1, kernel_dim=2), lambda: S.dims(3, 2), lambda: S.rationals(0, 1),
    lambda: S.psd(rank=-1), lambda: S.matrices(0),
])
def test_invalid_arguments(make):
    """Bad arguments raise InvalidArgument (eagerly, or at the first draw)."""
    with pytest.raises(InvalidArgument):
        find(make(), lambda x: True)
