"""Tests of symbolic_tf.control.steer (docs/mathematics.md §4, §6)."""
from __future__ import annotations

import json
from fractions import Fraction as Fr

import pytest
from hypothesis import given, settings, strategies as st

from symbolic_tf.control._schedule import simulate_schedule
from symbolic_tf.control.steer import steer
from symbolic_tf.spec.errors import InvalidParameters

small = st.integers(-3, 3).map(Fr)


@st.composite
def spd(draw, d):
    # Σ = L Lᵀ + I/2 with L rational lower-triangular: SPD, full rank
    L = [[draw(small) / 2 if j <= i else Fr(0) for j in range(d)] for i in range(d)]
    return [[sum(L[i][k] * L[j][k] for k in range(d)) + (Fr(1, 2) if i == j else 0)
             for j in range(d)] for i in range(d)]


@st.composite
def pair(draw):
    d = draw(st.integers(1, 3))
    m0 = [draw(small) for _ in range(d)]
    m1 = [draw(small) for _ in range(d)]
    return (m0, draw(spd(d))), (m1, draw(spd(d)))


T_s = st.sampled_from([Fr(1), Fr(1, 2), Fr(3, 2)])


@settings(max_examples=8)
@given(pair(), T_s)
def test_attention_route_exact(pr, T):
    (m0, c0), (m1, c1) = pr
    r = steer((m0, c0), (m1, c1), T)
    assert r.verdict.status == "PROVED" and r.strategy == "attention" and r.exact
    assert r.numerical_error < 1e-10
    assert r.certified_bound["cov"] == 0 and r.certified_bound["mean"] == 0
    assert r.predicted_end[1] == tuple(tuple(x) for x in c1)
    assert sum(p.duration for p in r.schedule) == T
    json.dumps(r.to_dict())


@settings(max_examples=6)
@given(pair(), T_s)
def test_feedforward_route(pr, T):
    (m0, c0), (m1, c1) = pr
    r = steer((m0, c0), (m1, c1), T, controls="feedforward")
    assert r.verdict.status == "PROVED" and not r.exact
    assert r.numerical_error < 1e-10
    assert r.certified_bound["cov"] < 1e-8 and r.certified_bound["mean"] < 1e-8
    ph = r.schedule[0]
    assert all(x == 0 for row in ph.A for x in row) and all(x == 0 for row in ph.V for x in row)


@settings(max_examples=4)
@given(pair())
def test_time_rescaling(pr):
    (m0, c0), (m1, c1) = pr
    for controls in ("any", "feedforward"):
        r1 = steer((m0, c0), (m1, c1), 1, controls=controls)
        r2 = steer((m0, c0), (m1, c1), 2, controls=controls)
        assert r1.verdict.status == r2.verdict.status == "PROVED"
        assert r1.numerical_error < 1e-10 and r2.numerical_error < 1e-10
        assert sum(p.duration for p in r2.schedule) == 2
    # attention phase: A scales like 1/τ (exactly)
    a1 = [p for p in steer((m0, c0), (m1, c1), 1).schedule if p.role.startswith("attention")][0]
    a2 = [p for p in steer((m0, c0), (m1, c1), 2).schedule if p.role.startswith("attention")][0]
    assert all(x == 2 * y for r, s in zip(a1.A, a2.A) for x, y in zip(r, s))


def test_rank_mismatch_refuted():
    r = steer(([0, 0], [[2, 1], [1, 1]]), ([0, 1], [[1, 1], [1, 1]]), 1)
    assert r.verdict.status == "REFUTED" and "rank" in r.verdict.reason and not r.schedule
    r = steer(([0, 0], [[1, 1], [1, 1]]), ([0, 1], [[1, 0], [0, 3]]), 1, controls="feedforward")
    assert r.verdict.status == "REFUTED"


def test_rank_deficient_equal_rank_every_restriction():
    # equal rank is reachable under each restriction (routes in symbolic_tf.control._restricted)
    for controls, strategy in (("any", "rank-deficient"), ("feedforward", "feedforward-rank"),
                               ("attention", "attention-rank")):
        r = steer(([0, 0], [[1, 1], [1, 1]]), ([0, 0], [[1, 0], [0, 0]]), 1, controls=controls)
        assert r.verdict.status == "PROVED" and r.strategy == strategy
    # … except that attention-only controls cannot create a mean from α₀ = 0
    r = steer(([0, 0], [[1, 1], [1, 1]]), ([0, 1], [[1, 0], [0, 0]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED" and "α ≡ 0" in r.verdict.reason


def test_attention_only_mean_obstruction():
    r = steer(([0, 0], [[2, 1], [1, 1]]), (["1/2", 0], [[1, 0], [0, 3]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED" and "α ≡ 0" in r.verdict.reason
    r = steer(([1, 0], [[2, 1], [1, 1]]), ([0, 0], [[1, 0], [0, 3]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED"
    r = steer(([1], [[2]]), ([-1], [[1]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED" and "sign" in r.verdict.reason


def test_attention_only_reachable():
    r = steer(([0, 0], [[2, 1], [1, 1]]), ([0, 0], [[1, 0], [0, 3]]), 1, controls="attention")
    assert r.verdict.status == "PROVED" and r.exact and r.numerical_error < 1e-10
    r = steer(([1, 0], [[2, 1], [1, 1]]), ([0, -3], [[1, 0], [0, 3]]), 1, controls="attention")
    assert r.verdict.status == "PROVED" and not r.exact and r.numerical_error < 1e-10
    assert r.certified_bound["cov"] == 0 and r.certified_bound["mean"] is None
    for p in r.schedule:
        assert all(x == 0 for row in p.F for x in row) and not any(p.b)


def test_feedforward_only_reachable_nonzero_mean():
    r = steer(([0, 0], [[2, 1], [1, 1]]), (["1/2", 2], [[1, 0], [0, 3]]), 1, controls="feedforward")
    assert r.verdict.status == "PROVED" and r.numerical_error < 1e-10
    assert r.certified_bound["mean"] < 1e-8


def test_max_norm_refuted_undecided_and_fallback():
    # λ_max(Σ) cannot move from 2.618… to 3 with ‖F‖, ‖A‖ ≤ 1/100 (and ‖V‖₂ ≤ 1) in time 1
    r = steer(([0, 0], [[2, 1], [1, 1]]), ([0, 3], [[1, 0], [0, 3]]), 1, max_norm="1/100")
    assert r.verdict.status == "REFUTED" and "λ_max" in r.verdict.reason and not r.schedule
    # only the mean moves: no obstruction applies, every construction needs a larger norm
    r = steer(([0, 0], [[1, 0], [0, 1]]), ([0, 3], [[1, 0], [0, 1]]), 1, max_norm="1/100")
    assert r.verdict.status == "UNDECIDED" and "norm" in r.verdict.reason
    r = steer(([0, 0], [[2, 1], [1, 1]]), ([0, 3], [[1, 0], [0, 3]]), 1, max_norm=1000)
    assert r.verdict.status == "PROVED"
    # attention route too large (b = 3/(T/4)), feed-forward fallback within the bound
    r = steer(([0, 0], [[1, 0], [0, 1]]), ([0, 3], [[1, 0], [0, 1]]), 1, max_norm=4)
    assert r.verdict.status == "PROVED" and r.strategy == "feedforward"
    assert max(p.free_norm_sq() for p in r.schedule) <= 16


def test_simulate_schedule_exact_bias_phase():
    r = steer(([1, 2], [[1, 0], [0, 1]]), ([3, 4], [[1, 0], [0, 1]]), 1)
    a, S = simulate_schedule(r.schedule, [Fr(1), Fr(2)], [[Fr(1), 0], [0, Fr(1)]])
    assert abs(float(a[0]) - 3) < 1e-12 and abs(float(S[1, 1]) - 1) < 1e-12


def test_invalid_inputs():
    with pytest.raises(InvalidParameters, match="controls"):
        steer(([0], [[1]]), ([0], [[1]]), 1, controls="values")
    with pytest.raises(InvalidParameters, match="max_norm"):
        steer(([0], [[1]]), ([0], [[1]]), 1, max_norm=-1)
    with pytest.raises(InvalidParameters, match="phases"):
        steer(([0], [[1]]), ([0], [[1]]), 1, phases=0)
