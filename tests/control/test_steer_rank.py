"""Equal-rank rank-deficient steering (rotation by a skew F, then a stretch on the range)."""
from __future__ import annotations

import json
from fractions import Fraction as Fr

import mpmath
import pytest

from symbolic_tf.control._schedule import simulate_schedule
from symbolic_tf.control.steer import steer
from symbolic_tf.exact.rational import qmat

CASES = [
    # d = 2, rank 1, ranges differ by a rotation
    (([0, 0], [[1, 1], [1, 1]]), ([0, 1], [[1, 0], [0, 0]]), False),
    (([2, -1], [[4, 2], [2, 1]]), (["1/2", 3], [[1, -1], [-1, 1]]), False),
    # d = 2, rank 1, equal ranges (exact)
    (([1, 0], [[1, 1], [1, 1]]), ([0, 1], [[2, 2], [2, 2]]), True),
    # d = 3, rank 1: orthogonal ranges (principal angle π/2)
    (([0, 0, 0], [[1, 0, 0], [0, 0, 0], [0, 0, 0]]), ([1, 2, 3], [[0, 0, 0], [0, 0, 0], [0, 0, 3]]), False),
    # d = 3, rank 2, different ranges
    (([0, 0, 0], [[1, 0, 0], [0, 2, 0], [0, 0, 0]]), ([1, 2, 3], [[1, 1, 0], [1, 2, 1], [0, 1, 1]]), False),
    # d = 3, rank 2, equal ranges (exact)
    (([1, 1, 0], [[2, 1, 0], [1, 1, 0], [0, 0, 0]]), ([0, 0, 0], [[1, 0, 0], [0, 5, 0], [0, 0, 0]]), True),
]


def _fr(M):
    return [[Fr(x) for x in r] for r in M]


@pytest.mark.parametrize("ini,tgt,exact", CASES)
@pytest.mark.parametrize("T", [Fr(3, 2)])
def test_rank_deficient_route(ini, tgt, exact, T):
    r = steer(ini, tgt, T)
    assert r.verdict.status == "PROVED" and r.strategy == "rank-deficient"
    assert r.exact == exact
    assert sum(p.duration for p in r.schedule) == T
    # independent re-simulation of the schedule with the high-precision reference integrator
    m0, c0 = [Fr(x) for x in ini[0]], _fr(ini[1])
    a, S = simulate_schedule(r.schedule, m0, c0)
    d = len(c0)
    err = max(max(abs(float(a[i]) - float(Fr(tgt[0][i]))) for i in range(d)),
              max(abs(float(S[i, j]) - float(Fr(tgt[1][i][j]))) for i in range(d) for j in range(d)))
    assert err < 1e-10 and r.numerical_error < 1e-10
    # rank preserved: d − r eigenvalues of the end covariance vanish (to working precision)
    r1 = qmat(_fr(tgt[1])).rank()
    with mpmath.workdps(50):
        ev = sorted(abs(x) for x in mpmath.eigsy((S + S.T) / 2)[0])
    assert all(x < 1e-20 for x in ev[: d - r1]) and all(x > 1e-6 for x in ev[d - r1:])
    # skew rotation generator, V = A = 0 there
    for p in r.schedule:
        if p.role.startswith("rotation"):
            assert all(p.F[i][j] == -p.F[j][i] for i in range(d) for j in range(d))
            assert not any(x for row in p.A for x in row) and not any(x for row in p.V for x in row)
    if exact:
        assert r.certified_bound["cov"] == 0 and r.predicted_end[1] == tuple(tuple(x) for x in _fr(tgt[1]))
    else:
        assert r.certified_bound is not None and r.certified_bound["cov"] < 1e-30
        assert r.certified_bound["mean"] == 0
    json.dumps(r.to_dict())


def test_rank_deficient_other_controls_supported():
    for controls in ("attention", "feedforward"):
        r = steer(([1, 0], [[1, 1], [1, 1]]), ([0, 1], [[1, 0], [0, 0]]), 1, controls=controls)
        assert r.verdict.status == "PROVED" and r.numerical_error < 1e-10


def test_zero_covariance():
    """Dirac masses (rank 0): Σ ≡ 0 under every control; the mean moves by a bias (exact) or,
    attention only, by α̇ = Vα (certified by arb exp)."""
    r = steer(([0, 0], [[0, 0], [0, 0]]), ([0, 1], [[0, 0], [0, 0]]), 1)
    assert r.verdict.status == "PROVED" and r.exact and r.numerical_error == 0
    r = steer(([1, 0], [[0, 0], [0, 0]]), ([0, -2], [[0, 0], [0, 0]]), 1, controls="attention")
    assert r.verdict.status == "PROVED" and r.certified_bound["mean"] < 1e-40
    assert all(not any(x for row in p.A for x in row) for p in r.schedule)
    r = steer(([0, 0], [[0, 0], [0, 0]]), ([0, 1], [[0, 0], [0, 0]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED"
    r = steer(([1], [[0]]), (["-1/2"], [[0]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED" and "sign" in r.verdict.reason
