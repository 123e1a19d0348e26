"""Property tests of steering (issue 8): random full-rank and rank-deficient pairs (d ≤ 4) under
every restriction reach the target (high-precision re-integration to 1e-10, certified bound
below 1e-8), rank-mismatched pairs are REFUTED, rescaled schedules reach the same target, and
the norm obstructions never refute a target that a constructed schedule reaches within the norm.
"""
from __future__ import annotations

import math
from fractions import Fraction as Fr

import mpmath
from hypothesis import assume, event, given, settings, strategies as st

from symbolic_tf.exact.rational import qmat
from symbolic_tf.control._certified import certify_linear_schedule
from symbolic_tf.control._obstructions import norm_obstruction
from symbolic_tf.control._schedule import simulate_schedule
from symbolic_tf.control.steer import rescale_schedule, steer
from test_steer import spd as full_rank  # Σ = LLᵀ + I/2, L rational lower-triangular

small = st.integers(-3, 3).map(Fr)


def _err(a, S, m1, c1):
    d = len(c1)
    with mpmath.workdps(40):
        return max(max(abs(a[i] - mpmath.mpf(m1[i].numerator) / m1[i].denominator) for i in range(d)),
                   max(abs(S[i, j] - mpmath.mpf(c1[i][j].numerator) / c1[i][j].denominator)
                       for i in range(d) for j in range(d)))


@st.composite
def gram(draw, d, r):
    """Σ = GGᵀ with G a rational d×r matrix of rank r."""
    G = [[draw(small) / 2 for _ in range(r)] for _ in range(d)]
    assume(qmat(G).rank() == r)
    return [[sum(G[i][k] * G[j][k] for k in range(r)) for j in range(d)] for i in range(d)]


@st.composite
def rank_pair(draw, deficient: bool, nonzero_means=None):
    d = draw(st.integers(2 if deficient else 1, 4))
    if deficient:
        r = draw(st.integers(1, d - 1))
        c0, c1 = draw(gram(d, r)), draw(gram(d, r))
    else:
        c0, c1 = draw(full_rank(d)), draw(full_rank(d))
    if nonzero_means is None:
        m0 = [draw(small) for _ in range(d)]
        m1 = [draw(small) for _ in range(d)]
    else:  # attention only: α₀ = 0 ⟺ α₁ = 0 (the exact mean obstruction)
        m0 = [draw(small) for _ in range(d)]
        m1 = [draw(small) for _ in range(d)]
        if nonzero_means:
            assume(any(m0) and any(m1))
            if d == 1:
                assume((m0[0] > 0) == (m1[0] > 0))
        else:
            m0 = [Fr(0)] * d
            m1 = [Fr(0)] * d
    return (m0, c0), (m1, c1)


T_s = st.sampled_from([Fr(1), Fr(3, 2)])
controls_s = st.sampled_from(["any", "feedforward", "attention"])


def _check_reaches(r, ini, tgt, controls):
    (m0, c0), (m1, c1) = ini, tgt
    event(f"d = {len(c0)}, rank {qmat(c0).rank()}, {r.strategy}, exact = {r.exact}, "
          f"means {'nonzero' if any(m0) or any(m1) else 'zero'}")
    assert r.verdict.status == "PROVED", r.verdict.reason
    # independent re-integration at higher precision
    a, S = simulate_schedule(r.schedule, [Fr(x) for x in m0], [[Fr(x) for x in row] for row in c0], dps=40)
    assert _err(a, S, [Fr(x) for x in m1], [[Fr(x) for x in row] for row in c1]) < 1e-10
    assert r.numerical_error < 1e-10
    cb = r.certified_bound
    assert cb is not None and cb["cov"] is not None and cb["cov"] < 1e-8
    if controls != "attention" or not any(m0):
        assert cb["mean"] is not None and cb["mean"] < 1e-8
    # the restriction is honoured in every phase
    for p in r.schedule:
        if controls == "attention":
            assert not any(x for row in p.F for x in row) and not any(p.b)
        if controls == "feedforward":
            assert not any(x for row in p.A for x in row) and not any(x for row in p.V for x in row)
    return a, S


@settings(max_examples=12, deadline=None)
@given(rank_pair(deficient=False), T_s, st.sampled_from(["any", "feedforward"]))
def test_full_rank_pairs_reach_target(pr, T, controls):
    ini, tgt = pr
    r = steer(ini, tgt, T, controls=controls)
    _check_reaches(r, ini, tgt, controls)


@settings(max_examples=14, deadline=None)
@given(rank_pair(deficient=True), T_s, st.sampled_from(["any", "feedforward"]))
def test_rank_deficient_pairs_reach_target(pr, T, controls):
    ini, tgt = pr
    r = steer(ini, tgt, T, controls=controls)
    _, S = _check_reaches(r, ini, tgt, controls)
    assert r.strategy in ("rank-deficient", "feedforward-rank")
    # rank preserved along the way: the re-integrated end covariance has d − r zero eigenvalues
    d, rk = len(tgt[1]), qmat(tgt[1]).rank()
    with mpmath.workdps(40):
        ev = sorted(abs(x) for x in mpmath.eigsy((S + S.T) / 2)[0])
    assert all(x < 1e-20 for x in ev[: d - rk]) and all(x > 1e-6 for x in ev[d - rk:])


@settings(max_examples=10, deadline=None)
@given(st.booleans().flatmap(lambda nz: rank_pair(deficient=True, nonzero_means=nz)), T_s)
def test_rank_deficient_attention_only_reaches_target(pr, T):
    ini, tgt = pr
    r = steer(ini, tgt, T, controls="attention")
    _check_reaches(r, ini, tgt, "attention")
    assert r.strategy == "attention-rank"


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(st.integers(0, d - 1), st.integers(0, d), st.just(d))),
       controls_s, st.data())
def test_rank_mismatch_refuted(ranks, controls, data):
    r0, r1, d = ranks
    assume(r0 != r1)
    c0 = data.draw(gram(d, r0)) if r0 else [[Fr(0)] * d for _ in range(d)]
    c1 = data.draw(gram(d, r1)) if r1 < d else data.draw(full_rank(d))
    m = [data.draw(small) for _ in range(d)]
    r = steer((m, c0), (m, c1), 1, controls=controls)
    assert r.verdict.status == "REFUTED" and not r.schedule
    assert f"rank Σ₀ = {r0} ≠ rank Σ₁ = {r1}" in r.verdict.reason


@settings(max_examples=10, deadline=None)
@given(controls_s, st.booleans(), st.sampled_from([Fr(1, 3), Fr(5, 2)]), st.data())
def test_time_rescaling(controls, deficient, T2, data):
    """The schedule rescaled to another horizon (durations ×λ, F, b, V ÷λ, A unchanged) reaches
    the same target; for linear schedules the rescaled end point is re-certified from scratch."""
    ini, tgt = data.draw(rank_pair(deficient=deficient,
                                   nonzero_means=data.draw(st.booleans()) if controls == "attention" else None))
    r = steer(ini, tgt, 1, controls=controls)
    assert r.verdict.status == "PROVED"
    s2 = rescale_schedule(r.schedule, T2)
    assert sum(p.duration for p in s2) == T2
    (m0, c0), (m1, c1) = ini, tgt
    a, S = simulate_schedule(s2, [Fr(x) for x in m0], [[Fr(x) for x in row] for row in c0], dps=40)
    assert _err(a, S, [Fr(x) for x in m1], [[Fr(x) for x in row] for row in c1]) < 1e-10
    if controls == "feedforward":
        cert = certify_linear_schedule(s2, m0, c0, m1, c1)
        assert cert is not None and cert["cov"] < 1e-8 and cert["mean"] < 1e-8


@settings(max_examples=10, deadline=None)
@given(controls_s, st.booleans(), T_s, st.data())
def test_norm_obstruction_sound(controls, deficient, T, data):
    """A target reached by a constructed schedule of control norm ν is never refuted under
    max_norm ≥ ν (the obstructions are necessary conditions)."""
    ini, tgt = data.draw(rank_pair(deficient=deficient,
                                   nonzero_means=data.draw(st.booleans()) if controls == "attention" else None))
    r = steer(ini, tgt, T, controls=controls)
    assert r.verdict.status == "PROVED"
    nu_sq = max(p.free_norm_sq() for p in r.schedule)
    nu = Fr(math.sqrt(float(nu_sq)) * (1 + 1e-9))
    assert nu * nu >= nu_sq
    (m0, c0), (m1, c1) = ini, tgt
    args = ([Fr(x) for x in m0], [[Fr(x) for x in row] for row in c0],
            [Fr(x) for x in m1], [[Fr(x) for x in row] for row in c1], T, controls, nu)
    assert norm_obstruction(*args) is None
    assert steer(ini, tgt, T, controls=controls, max_norm=nu).verdict.status == "PROVED"


def _bounded(draw, shape, m):
    """A random rational matrix/vector with Frobenius/Euclidean norm ≤ m (exactly)."""
    X = [[draw(small) for _ in range(shape[1])] for _ in range(shape[0])]
    n2 = sum(x * x for row in X for x in row)
    if n2 == 0:
        return X
    s = m / Fr(math.sqrt(float(n2)) * (1 + 1e-12))
    X = [[x * s for x in row] for row in X]
    assert sum(x * x for row in X for x in row) <= m * m
    return X


@settings(max_examples=9, deadline=None)
@given(controls_s, st.integers(1, 3), st.sampled_from([Fr(1, 10), Fr(1, 2), Fr(1)]),
       st.sampled_from([Fr(1), Fr(3, 2)]), st.data())
def test_norm_obstruction_never_refutes_a_reached_end_point(controls, d, m, T, data):
    """Soundness on random bounded schedules: run a random 2-phase schedule whose controls obey
    max_norm m (V = I allowed, it is exempt), take its end point (rounded to rationals at 40
    digits) as the target — it is reached within the bound, so no obstruction may fire."""
    from symbolic_tf.control._schedule import Phase

    m0 = [data.draw(small) for _ in range(d)]
    c0 = data.draw(full_rank(d))
    zero = [[Fr(0)] * d for _ in range(d)]
    sched = []
    for _ in range(2):
        F = _bounded(data.draw, (d, d), m) if controls != "attention" else zero
        b = [x[0] for x in _bounded(data.draw, (d, 1), m)] if controls != "attention" else [Fr(0)] * d
        A = _bounded(data.draw, (d, d), m) if controls != "feedforward" else zero
        if controls == "feedforward":
            V = zero
        elif data.draw(st.booleans()):
            V = [[Fr(int(i == j)) for j in range(d)] for i in range(d)]
        else:
            V = _bounded(data.draw, (d, d), m)
        sched.append(Phase(T / 2, tuple(map(tuple, F)), tuple(b), tuple(map(tuple, A)), tuple(map(tuple, V))))
    assert all(p.free_norm_sq() <= m * m for p in sched)
    try:
        a, S = simulate_schedule(sched, m0, c0)
    except RuntimeError:  # finite-time blow-up inside the schedule: nothing is reached
        assume(False)
    with mpmath.workdps(40):
        m1 = [Fr(mpmath.nstr(a[i], 40)) for i in range(d)]
        c1 = [[Fr(mpmath.nstr((S[i, j] + S[j, i]) / 2, 40)) for j in range(d)] for i in range(d)]
    event(f"{controls}, d = {d}, m = {m}")
    assert norm_obstruction(m0, c0, m1, c1, T, controls, m) is None
