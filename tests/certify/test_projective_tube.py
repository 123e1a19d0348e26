"""The search-side projective tube (:mod:`symbolic_tf.certify.search.validated._projective_tube`) and the
high-order a priori enclosure of a validated step (``apriori="taylor"`` in
:func:`symbolic_tf.certify.check.tube_replay.replay_step`): the run is exactly the checker's replay, its
enclosures contain the closed-form solution, the high-order enclosure takes several times longer
steps than the first-order Picard test at the same tolerance, and a step too long for it is refused."""
from __future__ import annotations

import time
from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check.projective import ProjectiveSeries, projective_start, replay_projective
from symbolic_tf.certify.check.tube_replay import replay_step, start_state
from symbolic_tf.certify.search.validated._projective_tube import TOO_WIDE, integrate_projective, integrate_projective_capped
from symbolic_tf.certify.search.validated.tube import flow_data
from symbolic_tf.exact.precision import working_precision
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# V = I, d = 2: Σ(t) = (Σ₀⁻¹ − t(A + Aᵀ))⁻¹ blows up at T* = 1/λ_max(Σ₀(A + Aᵀ))
A = [[1, "1/2"], [0, "1/3"]]
S0 = [[2, "1/2"], ["1/2", 1]]
# seed 0 #46 of benchmarks/undecided_rate.py's general-V set (d = 3): a growing rank-one part whose
# projective flow has fast rates ≈ 3 and a slow drift (the stiff case the high-order enclosure is for)
A3 = [["-1/3", "-1", "3/2"], ["-3/4", "-5/3", "-2/3"], ["7/4", "-3/2", "-1/3"]]
V3 = [["1/3", "5/3", "3/2"], ["1/2", "-1/3", "-3/2"], ["-1", "-2", "-5/3"]]


def _fail(msg):
    raise CertificationFailed(msg)


def _p(A, V, S0):
    d = len(A)
    return parse_problem({"variant": "softmax", "d": d, "A": A, "V": V, "initial": {"cov": S0}})


@pytest.mark.parametrize("apriori", ["picard", "taylor"])
def test_the_run_is_the_checkers_replay_and_contains_the_closed_form(apriori):
    p = _p(A, [[1, 0], [0, 1]], S0)
    heads, F = flow_data(p)
    run = integrate_projective(heads, F, p.exact.Sigma0, lambda X, u, s, tau: tau >= 2, prec=128, order=16,
                               deadline=time.perf_counter() + 60, tol=1e-18, apriori=apriori)
    assert run.stop == "accepted by until" and run.taus[0] == 0 and run.taus[-1] >= 2
    assert all(b > a for a, b in zip(run.taus, run.taus[1:]))
    Aq = flint.fmpq_mat([[flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in r] for r in A])
    with working_precision(128):
        field = ProjectiveSeries(heads, F)
        Z = replay_projective(field, projective_start(field, flint.arb_mat(p.exact.Sigma0), _fail),
                              [flint.fmpq(x.numerator, x.denominator) for x in run.taus], 16, _fail, apriori=apriori)
        # the checker's replay gives the very same box (same deterministic procedure)
        assert all(Z[i, j].mid() == run.box[i, j].mid() and Z[i, j].rad() == run.box[i, j].rad()
                   for i in range(4) for j in range(4))
        X, u, s = field.split(Z)
        Sig = (flint.arb_mat(p.exact.Sigma0.inv()) - flint.arb_mat(Aq + Aq.transpose()) * s).inv()
        assert (u - 1 / (Sig[0, 0] + Sig[1, 1])).contains(0)
        assert all((X[i, j] - u * Sig[i, j]).contains(0) for i in range(2) for j in range(2))


def _steps_to(apriori, tau_end):
    p = _p(A3, V3, [[2, 0, 0], [0, 1, 0], [0, 0, 3]])
    heads, F = flow_data(p)
    run = integrate_projective(heads, F, p.exact.Sigma0, lambda X, u, s, tau: tau >= tau_end, prec=128, order=16,
                               deadline=time.perf_counter() + 120, tol=1e-16, apriori=apriori)
    assert run.stop == "accepted by until"
    return len(run.taus) - 1, run


def test_the_high_order_enclosure_takes_longer_steps_at_the_same_tolerance():
    n_picard, run_p = _steps_to("picard", 6)
    n_taylor, run_t = _steps_to("taylor", 6)
    assert n_taylor * 2 < n_picard
    # both enclose the same solution: an independent DOP853 run of X' = Q(X) − tr Q(X)·X, u' = −tr Q(X)·u,
    # s' = u to each end τ lies in the box (up to the float run's own error)
    V, Am = _float(V3), _float(A3)

    def rhs(_tau, y):
        X = y[:9].reshape(3, 3)
        H = V @ X @ Am @ X
        Q = H + H.T
        c = np.trace(Q)
        return np.concatenate([(Q - c * X).ravel(), [-c * y[9], y[9]]])

    S = np.diag([2.0, 1.0, 3.0])
    y0 = np.concatenate([(S / 6).ravel(), [1 / 6, 0.0]])
    for run in (run_p, run_t):
        y = solve_ivp(rhs, (0, float(run.taus[-1])), y0, method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
        Z = run.box
        got = [Z[i, j] for i in range(3) for j in range(3)] + [Z[3, 3], Z[4, 4]]
        assert all(abs(float(g.mid()) - v) <= float(g.rad()) + 1e-9 for g, v in zip(got, y))


def _float(M):
    return np.array([[float(Fraction(x)) for x in row] for row in M])


def test_a_step_too_long_for_the_enclosure_is_refused():
    p = _p(A3, V3, [[2, 0, 0], [0, 1, 0], [0, 0, 3]])
    heads, F = flow_data(p)
    with working_precision(128):
        field = ProjectiveSeries(heads, F)
        state = start_state(field, projective_start(field, flint.arb_mat(p.exact.Sigma0), _fail))
        for apriori in ("picard", "taylor"):
            assert replay_step(field, state, flint.arb(8), 16, "qr", apriori) == "picard"
        assert not isinstance(replay_step(field, state, flint.arb(flint.fmpq(1, 64)), 16, "qr", "taylor"), str)


def test_no_step_is_longer_than_h_max_and_the_enclosure_stays_narrow():
    """The cap on the step (h_max) is honoured, and with it the enclosure of a run along seed 0 #46's
    slow drift stays as narrow as the one without the eigenframe's longer steps would be."""
    p = _p(A3, V3, [[2, 0, 0], [0, 1, 0], [0, 0, 3]])
    heads, F = flow_data(p)
    run = integrate_projective(heads, F, p.exact.Sigma0, lambda X, u, s, tau: tau >= 30, prec=128, order=20,
                               deadline=time.perf_counter() + 120, tol=1e-15, apriori="taylor", h_max=0.25)
    assert run.stop == "accepted by until"
    steps = [b - a for a, b in zip(run.taus, run.taus[1:])]
    assert max(steps) <= Fraction(1, 4)
    with working_precision(128):
        X, u, _s = ProjectiveSeries(heads, F).split(run.box)
        assert max(float(X[i, j].rad()) for i in range(3) for j in range(3)) < 1e-10


def test_a_run_too_wide_is_repeated_with_the_next_cap():
    """integrate_projective_capped restarts from the start with the next step cap while the enclosure
    grows too wide, with a fresh ``until`` each time, and stops at the first run that is not."""
    p = _p(A, [[1, 0], [0, 1]], S0)
    heads, F = flow_data(p)
    made = []

    def make_until():
        made.append(1)
        return lambda X, u, s, tau: tau >= 1

    common = dict(prec=128, order=16, deadline=time.perf_counter() + 60, tol=1e-18)
    run = integrate_projective_capped(heads, F, p.exact.Sigma0, make_until, caps=(Fraction(1, 4), Fraction(1, 8)),
                                      wide=1e-300, adaptive=None, **common)
    assert run.stop == TOO_WIDE and run.h_max == Fraction(1, 8) and len(made) == 2
    made.clear()
    run = integrate_projective_capped(heads, F, p.exact.Sigma0, make_until, caps=(Fraction(1, 4), Fraction(1, 8)),
                                      adaptive=None, **common)
    assert run.stop == "accepted by until" and run.h_max == Fraction(1, 4) and len(made) == 1
    assert max(b - a for a, b in zip(run.taus, run.taus[1:])) <= Fraction(1, 4)


def test_the_adaptive_cap_rolls_back_to_one_chain_of_steps_that_the_checker_replays():
    """With a width target below every step's enclosure the adaptive cap rolls back to its checkpoints
    and halves down to its floor; the stored times are still one chain from 0 whose checker replay is
    the run's very box, and it contains the closed-form solution Σ(t) = (Σ₀⁻¹ − (A + Aᵀ)t)⁻¹."""
    from symbolic_tf.certify.search.validated._projective_tube import WIDTH_FLOOR, WIDTH_START

    p = _p(A, [[1, 0], [0, 1]], S0)
    heads, F = flow_data(p)
    run = integrate_projective(heads, F, p.exact.Sigma0, lambda X, u, s, tau: tau >= 3, prec=128, order=16,
                               deadline=time.perf_counter() + 60, tol=1e-18, apriori="taylor", h_max=16.0,
                               width_target=1e-300)
    assert run.stop == "accepted by until" and run.rejected >= 1
    steps = [b - a for a, b in zip(run.taus, run.taus[1:])]
    assert run.taus[0] == 0 and all(h > 0 for h in steps) and max(steps) <= WIDTH_START
    assert steps[-1] <= Fraction(WIDTH_FLOOR) * (1 + Fraction(1, 2 ** 20))   # halved down to the floor
    Aq = flint.fmpq_mat([[flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in r] for r in A])
    with working_precision(128):
        field = ProjectiveSeries(heads, F)
        Z = replay_projective(field, projective_start(field, flint.arb_mat(p.exact.Sigma0), _fail),
                              [flint.fmpq(x.numerator, x.denominator) for x in run.taus], 16, _fail, apriori="taylor")
        assert all(Z[i, j].mid() == run.box[i, j].mid() and Z[i, j].rad() == run.box[i, j].rad()
                   for i in range(4) for j in range(4))
        X, u, s = field.split(Z)
        Sig = (flint.arb_mat(p.exact.Sigma0.inv()) - flint.arb_mat(Aq + Aq.transpose()) * s).inv()
        assert (u - 1 / (Sig[0, 0] + Sig[1, 1])).contains(0)
        assert all((X[i, j] - u * Sig[i, j]).contains(0) for i in range(2) for j in range(2))
