"""Multi-head schedules (issue 50 item 7): each head's A, V, W may be polynomials in t and change
at phase starts.  The phase-by-phase integrator (mean and covariance) against an independent
hand-written float integration of

    α̇ = Σ_h W_hV_h(I + ΣA_h)α,      Σ̇ = Σ_h (W_hV_hΣA_hΣ + ΣA_hᵀΣV_hᵀW_hᵀ),

and the certified covariance (tube and tube-t segments; the heads' quadratic field interpolated
exactly by the checker) against the same integration and, for a decided last phase, its regime."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import symbolic_tf as stf
from symbolic_tf.certify.check import check
from symbolic_tf.numeric.solution import CONVERGED, HORIZON
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.spec.schedule import problem_at, segments

F = Fraction
MULTI = {"variant": "multihead", "d": 2,
         "heads": [{"A": [["t - 1", 0], [0, -1]], "V": [[1, 0], [0, 1]]},
                   {"A": [[0, 1], [-1, 0]], "V": [[1, "1/2"], [0, 1]], "W": [[2, 0], [0, 1]]}],
         "initial": {"mean": [1, "-1/2"], "cov": [[1, "1/5"], ["1/5", "1/2"]]},
         "phase": [{"duration": "1/2"}, {"duration": 1, "heads": [{"V": [["1/2", 0], [0, "t"]]}, {}]}]}


def _independent(p, T):
    d = p.d
    f = lambda M: np.array([[float(x) for x in r] for r in M])  # noqa: E731
    y = np.concatenate([[float(x) for x in p.mean], f(p.cov).ravel()])
    for seg in segments(p.schedule):
        t0, t1 = float(seg.t0), T if seg.t1 is None else min(float(seg.t1), T)
        if t0 >= T:
            break

        def rhs(t, y, where=seg.t0):
            q = problem_at(p, F(t), phase_of=where)
            a, S = y[:d], y[d:].reshape(d, d)
            da, dS = np.zeros(d), np.zeros((d, d))
            for h in q.heads:
                C = (np.eye(d) if h.W is None else f(h.W)) @ f(h.V)
                A = f(h.A)
                da += C @ (np.eye(d) + S @ A) @ a
                dS += C @ S @ A @ S + S @ A.T @ S @ C.T
            return np.concatenate([da, dS.ravel()])

        y = solve_ivp(rhs, (t0, t1), y, rtol=1e-11, atol=1e-13, method="DOP853").y[:, -1]
    return y[:d], y[d:].reshape(d, d)


def test_multihead_schedule_integrates_like_an_independent_integration():
    p = parse_problem(MULTI)
    sol = stf.integrate(p, 1.2, rtol=1e-11, atol=1e-13)
    a, S = _independent(p, 1.2)
    assert np.allclose(sol.alpha_end[0], a, atol=1e-8) and np.allclose(sol.Sigma_end[0], S, atol=1e-8)


def test_multihead_schedule_covariance_is_certified_in_a_box_containing_the_float_solution():
    p = parse_problem({**MULTI, "T": "6/5"})
    c = stf.classify(p)
    (route, claim, cert), = c.side_claims
    assert route == "schedule-phases" and [s["flow"] for s in cert["data"]["segments"]] == ["tube-t", "tube-t"]
    assert check(cert).ok
    _, S = _independent(p, 1.2)
    for i in range(2):
        for j in range(2):
            lo, hi = F(claim.params["lo"][i][j]), F(claim.params["hi"][i][j])
            assert float(lo) - 1e-9 <= S[i, j] <= float(hi) + 1e-9 and hi - lo < F(1, 10 ** 8)


def test_multihead_schedule_with_a_constant_last_phase_is_decided():
    """After the polynomial phase both heads damp (A_h = −I, V_h = W_h = I): the tail decides from the
    certified box (a global-existence or bounded claim); the float solution exists and decays."""
    doc = {**MULTI, "phase": MULTI["phase"] + [
        {"duration": 1, "heads": [{"A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]]},
                                  {"A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]], "W": [[1, 0], [0, 1]]}]}]}
    p = parse_problem(doc)
    c = stf.classify(p)
    assert c.status == "PROVED" and c.regime in ("CLUSTERING", "GLOBAL_EXISTENCE", "BOUNDED")
    assert [s["flow"] for s in c.certificate["data"]["segments"]] == ["tube-t", "tube-t"]
    assert check(c.certificate).ok
    sol = stf.integrate(p, 30.0, rtol=1e-10, atol=1e-14)
    assert sol.status[0] in (HORIZON, CONVERGED) and np.linalg.norm(sol.Sigma_end[0]) < 0.1
