"""Masked (causal) attention (issue 17, item 5): reduction to softmax, causal structure, the sink,
the conditional Wasserstein distance, and the exact closure decision."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from symbolic_tf.numeric.masked import conditional_wasserstein, positions, sink_attention, sink_experiment
from symbolic_tf.numeric.particles import simulate
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.symbolic.masked_closure import (cone_velocity, first_order_witness,
                                                  position_independent_closure)

PARAMS = {"d": 2, "A": [[1, "1/2"], ["-1/3", "1/2"]], "V": [[1, 0], ["1/4", 1]],
          "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}
MASKED = parse_problem({"variant": "masked", **PARAMS})
SOFTMAX = parse_problem({"variant": "softmax", **PARAMS})


def _X(n, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 2))


# ----- the dynamics --------------------------------------------------------------------------
def test_all_positions_equal_reduces_to_unmasked_attention():
    X0 = _X(60)
    m = simulate(MASKED, X0, 0.3, steps=6, positions=np.full(60, 0.5))
    s = simulate(SOFTMAX, X0, 0.3, steps=6)
    np.testing.assert_allclose(m.final, s.final, rtol=0, atol=1e-13)


def test_token_i_moves_independently_of_later_tokens():
    n, i = 40, 17
    s = np.arange(n) / n
    X0 = _X(n)
    X1 = X0.copy()
    X1[i + 1:] = _X(n - i - 1, seed=5) * 3  # change every token after position i
    a = simulate(MASKED, X0, 0.3, steps=6, positions=s, save_every=1)
    b = simulate(MASKED, X1, 0.3, steps=6, positions=s, save_every=1)
    assert np.array_equal(a.X[:, : i + 1], b.X[:, : i + 1])  # bit for bit, at every saved depth
    assert not np.allclose(a.X[-1, i + 1:], b.X[-1, i + 1:])


def test_the_sink_evolves_autonomously_as_unmasked_attention_of_its_own_cloud():
    """Positions: 10 tokens at s = 0 (the sink), 30 after.  The cone of s = 0 is the sink alone."""
    s = positions("uniform", 40, 3, sink=0.25)
    assert np.count_nonzero(s == 0) == 10
    X0 = _X(40)
    m = simulate(MASKED, X0, 0.3, steps=6, positions=s)
    alone = simulate(SOFTMAX, X0[:10], 0.3, steps=6)
    np.testing.assert_allclose(m.final[:10], alone.final, rtol=0, atol=1e-13)


# ----- positions and the attention on the first position ------------------------------------------
def test_positions_grid_and_sink():
    s = positions("grid:3", 10, sink=0.2)
    assert list(s) == [0, 0, 1 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1, 1]
    for bad in (("grid:x", 10), ("nope", 10), ("grid:20", 10)):
        with pytest.raises(InvalidParameters):
            positions(*bad)
    with pytest.raises(InvalidParameters):
        positions("uniform", 10, sink=1.0)


def test_content_blind_attention_gives_the_first_position_its_share_of_the_cone():
    s = positions("grid:4", 20, sink=0.2)
    P = sink_attention(_X(20), s, np.zeros((2, 2)))
    cone = np.searchsorted(s, s, side="right")
    np.testing.assert_allclose(P, 4 / cone, rtol=1e-14)
    assert np.all(P[s == 0] == 1.0)


# ----- the conditional Wasserstein distance ---------------------------------------------------------
def test_conditional_distance_of_identical_flows_is_zero_and_ignores_order_within_a_position():
    s = positions("grid:3", 30)
    X = _X(30)
    assert conditional_wasserstein(X, X, s) == 0.0
    perm = np.concatenate([np.random.default_rng(1).permutation(np.flatnonzero(s == v)) for v in np.unique(s)])
    assert conditional_wasserstein(X, X[perm], s) == pytest.approx(0.0, abs=1e-15)
    run = simulate(MASKED, X, 0.2, steps=4, positions=s)
    assert conditional_wasserstein(run.final, simulate(MASKED, X, 0.2, steps=4, positions=s).final, s) == 0.0


def test_conditional_distance_exact_values():
    s = positions("grid:3", 30)
    X = _X(30)
    v = np.array([3.0, -4.0])
    assert conditional_wasserstein(X, X + v, s, p=2) == pytest.approx(5.0)  # a translation costs |v|
    assert conditional_wasserstein(X, X + v, s, reduce="sup") == pytest.approx(5.0)
    # distinct positions: W_p^cond is the position-matched L^p distance
    t = np.arange(30) / 30
    Y = _X(30, seed=4)
    assert conditional_wasserstein(X, Y, t, p=3) == pytest.approx(np.mean(np.linalg.norm(X - Y, axis=1) ** 3) ** (1 / 3))
    assert conditional_wasserstein(X, Y, t, reduce="sup") == pytest.approx(np.max(np.linalg.norm(X - Y, axis=1)))


def test_one_dimensional_sorting_agrees_with_the_assignment_solver():
    s = positions("grid:2", 40)
    a, b = _X(40)[:, :1], _X(40, seed=9)[:, :1]
    pad = np.zeros_like(a)  # the same laws embedded in ℝ² go through the exact assignment
    d1 = conditional_wasserstein(a, b, s, p=2)
    d2 = conditional_wasserstein(np.c_[a, pad], np.c_[b, pad], s, p=2)
    assert d1 == pytest.approx(d2, rel=1e-12)
    assert conditional_wasserstein(a, b, s, reduce="sup") >= d1 - 1e-15


def test_sink_experiment_records_its_settings_and_ratios():
    exp = sink_experiment(MASKED, N=60, T=0.2, steps=4, save_every=2, sinks=(0.0, 0.1)).to_dict()
    assert exp["label"] == "numerical evidence" and exp["settings"]["N"] == 60
    for run in exp["runs"]:
        assert run["cond_w2_ratio"][0] == 1.0 and len(run["attention"]) == len(run["t"]) == 3
        assert all(0 < a <= 1 for a in run["attention"])
    with pytest.raises(InvalidParameters):
        sink_experiment(SOFTMAX, N=10)


# ----- the closure question, exactly -------------------------------------------------------------------
def test_position_independent_cone_law_gives_exactly_the_softmax_velocity():
    for d in (1, 2, 3):
        ok, residual = position_independent_closure(d, 3)
        assert ok and residual == sp.zeros(d, 1)


def test_position_dependent_witness_is_exact_and_agrees_with_the_tilting_formula():
    w = first_order_witness()
    assert w.q3 == Fraction(28, 81) and w.refutes
    x = sp.Symbol("x")
    G = cone_velocity([(sp.Rational(1, 3), [1], [[1]]), (sp.Rational(2, 3), [0], [[1]])], [[1]], [[1]],
                      sp.Matrix([x]))[0]
    tilt = [sp.simplify(sp.diff(G, x, n).subs(x, 0)) for n in range(5)]
    assert tilt == [sp.Rational(f.numerator, f.denominator) for f in w.derivatives]


def test_equal_components_have_no_first_order_departure():
    assert first_order_witness(components=[(1, 2, 3), (5, 2, 3)]).q3 == 0
    assert not first_order_witness(components=[(1, 2, 3)]).refutes


def test_position_independent_data_follow_the_softmax_moment_ode_at_every_position():
    """§4 (numerical cross-check of the exact statement): with Σ₀ = I at every position, V = I and
    A + Aᵀ = −I, each position's empirical covariance at t = 1 is near the softmax closed form
    Σ(1) = (Σ₀⁻¹ − (A + Aᵀ))⁻¹ = I/2 (sampling error ~ √(2/n) with n = 180 tokens per position),
    far from the no-motion value Σ₀ (relative distance 1)."""
    from symbolic_tf.numeric.gaussianity import empirical_moments

    p = parse_problem({"variant": "masked", "d": 2, "A": [["-1/2", "1/4"], ["-1/4", "-1/2"]],
                       "V": [[1, 0], [0, 1]], "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}})
    s = positions("grid:3", 900, sink=0.4)
    X0 = _X(900, seed=11)
    run = simulate(p, X0, 1.0, steps=10, positions=s)
    exact = np.eye(2) / 2
    for v in np.unique(s):
        _, S = empirical_moments(run.final[s == v])
        assert np.linalg.norm(S - exact) / np.linalg.norm(exact) < 0.25


def test_too_many_tokens_at_one_position_is_refused_not_hung():
    from symbolic_tf.numeric.masked import MAX_TOKENS_PER_POSITION

    n = MAX_TOKENS_PER_POSITION + 1
    X = np.zeros((n, 2))
    with pytest.raises(InvalidParameters, match="share one position"):
        conditional_wasserstein(X, X, np.zeros(n))
