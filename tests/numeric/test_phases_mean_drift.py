"""The mean and the drift model under a depth schedule (issue 50 item 7): the phase-by-phase
integrator (symbolic_tf.numeric.phases) against an independent float integration of the moment
equations written out by hand,

    α̇ = Fα + V(I + ΣA)α + b,      Σ̇ = VΣAΣ + ΣAᵀΣVᵀ + FΣ + ΣFᵀ      (softmax with drift, τ = 1),

with SciPy's solve_ivp restarted at every phase boundary and the parameters read from the
problem at each depth (spec.schedule.problem_at) — and, where it has one, against the closed form."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import symbolic_tf as stf
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.spec.schedule import problem_at, segments

F = Fraction


def _params(p, t, phase_of):
    q = problem_at(p, F(t), phase_of=phase_of)
    f = lambda M: np.array([[float(x) for x in r] for r in M])  # noqa: E731
    d = p.d
    z = np.zeros((d, d))
    return (f(q.A), f(q.V), z if q.F is None else f(q.F),
            np.zeros(d) if q.b is None else np.array([float(x) for x in q.b]))


def _independent(p, T):
    d = p.d
    y = np.concatenate([[float(x) for x in p.mean], np.array([[float(x) for x in r] for r in p.cov]).ravel()])
    for seg in segments(p.schedule):
        t0, t1 = float(seg.t0), T if seg.t1 is None else min(float(seg.t1), T)
        if t0 >= T:
            break

        def rhs(t, y, where=seg.t0):
            A, V, Fm, b = _params(p, t, where)
            a, S = y[:d], y[d:].reshape(d, d)
            da = Fm @ a + V @ (np.eye(d) + S @ A) @ a + b
            dS = V @ S @ A @ S + S @ A.T @ S @ V.T + Fm @ S + S @ Fm.T
            return np.concatenate([da, dS.ravel()])

        y = solve_ivp(rhs, (t0, t1), y, rtol=1e-11, atol=1e-13, method="DOP853").y[:, -1]
    return y[:d], y[d:].reshape(d, d)


DRIFT = {"variant": "softmax", "d": 2, "A": [["-1/2", "1/4"], [0, "-1"]], "V": [[1, "1/2"], ["-1/2", 1]],
         "F": [["-t/4", "1/2"], ["-1/2", 0]], "b": ["1 - t", "t^2/2"],
         "initial": {"mean": [1, "-1/2"], "cov": [[1, "1/5"], ["1/5", "1/2"]]},
         "phase": [{"duration": "1/2"},
                   {"duration": "1/2", "V": [[0, 0], [0, 0]], "F": [[0, 1], [-1, 0]], "b": [1, 0]},
                   {"duration": 1, "A": [["t - 1", 0], ["1/3", "-t"]], "V": [[1, 0], [0, 1]]}]}


def test_mean_and_covariance_of_a_drift_schedule_agree_with_an_independent_integration():
    p = parse_problem(DRIFT)
    sol = stf.integrate(p, 1.75, rtol=1e-11, atol=1e-13)
    a, S = _independent(p, 1.75)
    assert np.allclose(sol.alpha_end[0], a, atol=1e-8) and np.allclose(sol.Sigma_end[0], S, atol=1e-8)
    assert np.abs(a).max() > 0.1   # a mean that moves: the comparison is not of zeros


def test_mean_under_a_rest_then_drift_schedule_matches_the_closed_form():
    """V ≡ 0 (no attention): α̇ = Fα + b. With F = 0, b(t) = 1 − t on [0, 1) then F = [[0, 1], [−1, 0]],
    b = 0: α(1) = α₀ + (1 − 1/2)·e₁ exactly, then a rotation by the angle t − 1."""
    doc = {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[0, 0], [0, 0]], "F": [[0, 0], [0, 0]],
           "b": ["1 - t", 0], "initial": {"mean": [0, 1], "cov": [[1, 0], [0, 1]]},
           "phase": [{"duration": 1}, {"duration": 1, "F": [[0, 1], [-1, 0]], "b": [0, 0]}]}
    p = parse_problem(doc)
    sol = stf.integrate(p, 2.0, t_eval=[1.0, 2.0], rtol=1e-12, atol=1e-14)
    a1 = np.array([0.5, 1.0])
    assert np.allclose(sol.alpha[0, 0], a1, atol=1e-10)
    c, s = np.cos(1.0), np.sin(1.0)
    assert np.allclose(sol.alpha[0, 1], np.array([[c, s], [-s, c]]) @ a1, atol=1e-10)
    assert np.allclose(sol.Sigma_end[0], np.eye(2), atol=1e-12)   # Σ̇ = FΣ + ΣFᵀ = 0 for a skew F and Σ = I


def test_drift_schedule_covariance_is_certified_and_contains_the_float_solution():
    """The covariance of the drift schedule: tube-t, linear and tube-t segments composed up to T = 7/4,
    and the certified end box contains the independent float solution."""
    p = parse_problem({**DRIFT, "T": "7/4"})
    c = stf.classify(p)
    (route, claim, cert), = c.side_claims
    assert [s["flow"] for s in cert["data"]["segments"]] == ["tube-t", "linear", "tube-t"]
    _, S = _independent(p, 1.75)
    for i in range(2):
        for j in range(2):
            lo, hi = F(claim.params["lo"][i][j]), F(claim.params["hi"][i][j])
            assert float(lo) - 1e-9 <= S[i, j] <= float(hi) + 1e-9 and hi - lo < F(1, 10 ** 6)
