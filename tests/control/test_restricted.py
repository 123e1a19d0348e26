"""Restricted controls (attention only, feed-forward only, norm bounds), every rank: reachable
cases are PROVED with a schedule honouring the restriction, unreachable ones REFUTED with the
exact reason (docs/mathematics.md §4, §6; symbolic_tf.control._restricted / .obstructions)."""
from __future__ import annotations

import math
from fractions import Fraction as Fr

import mpmath
import pytest

from symbolic_tf.control._obstructions import norm_obstruction
from symbolic_tf.control._schedule import simulate_schedule
from symbolic_tf.control.steer import steer

I2 = [[1, 0], [0, 1]]


def _zero(M):
    return not any(x for row in M for x in row)


def _is_eye(M):
    return all(M[i][j] == (i == j) for i in range(len(M)) for j in range(len(M)))


def _range_dim_of_sum(S, c1):
    """dim(range S + range Σ₁), numerically (S an mp matrix, rank r each)."""
    d = S.rows
    with mpmath.workdps(40):
        M = mpmath.matrix(d, 2 * d)
        for i in range(d):
            for j in range(d):
                M[i, j] = S[i, j]
                M[i, d + j] = mpmath.mpf(Fr(c1[i][j]).numerator) / Fr(c1[i][j]).denominator
        sv = mpmath.svd_r(M, compute_uv=False)
        return sum(1 for x in sv if x > 1e-20)


RANK_DEFICIENT = [
    # d = 2, rank 1, ranges at 45°
    (([0, 0], [[1, 1], [1, 1]]), ([0, 0], [[1, 0], [0, 0]])),
    # d = 3, rank 1, orthogonal ranges (principal angle π/2), nonzero means
    (([1, 0, 0], [[1, 0, 0], [0, 0, 0], [0, 0, 0]]), ([0, 2, 1], [[0, 0, 0], [0, 0, 0], [0, 0, 3]])),
    # d = 3, rank 2, different ranges
    (([0, 0, 0], [[1, 0, 0], [0, 2, 0], [0, 0, 0]]), ([0, 0, 0], [[1, 1, 0], [1, 2, 1], [0, 1, 1]])),
    # d = 4, rank 2, equal ranges (exact stretch)
    (([1, 1, 0, 0], [[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),
     ([0, 1, 0, 0], [[1, 0, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])),
    # d = 2, rank 1, orthogonal ranges, Σ₀ already cΠ₀ (c = 2): no normalising phase
    (([0, 0], [[2, 0], [0, 0]]), ([0, 0], [[0, 0], [0, 2]])),
]


@pytest.mark.parametrize("ini,tgt", RANK_DEFICIENT)
def test_attention_only_rank_deficient(ini, tgt):
    r = steer(ini, tgt, Fr(3, 2), controls="attention")
    assert r.verdict.status == "PROVED" and r.strategy == "attention-rank"
    assert r.numerical_error < 1e-10 and sum(p.duration for p in r.schedule) == Fr(3, 2)
    for p in r.schedule:
        assert _zero(p.F) and not any(p.b)
    a, S = simulate_schedule(r.schedule, [Fr(x) for x in ini[0]], [[Fr(x) for x in row] for row in ini[1]])
    with mpmath.workdps(40):
        rk = sum(1 for x in mpmath.eigsy((S + S.T) / 2)[0] if abs(x) > 1e-20)
    assert rk == sum(1 for x in mpmath.eigsy(mpmath.matrix(tgt[1]))[0] if abs(x) > 1e-8)
    assert _range_dim_of_sum(S, tgt[1]) == rk  # the end range is the target range
    same_range = ini is RANK_DEFICIENT[3][0]
    # with V = I the range of Σ is invariant (J = ΣA maps into range Σ), so when the ranges
    # differ some covariance-moving phase has V ∉ {0, I}: the rotation V = K skew, A = aI
    movers = [p for p in r.schedule if not _zero(p.A) and not _is_eye(p.V)]
    if same_range:
        assert not movers and r.certified_bound["cov"] == 0
    else:
        (rot,) = movers
        assert all(rot.V[i][j] == -rot.V[j][i] for i in range(len(rot.V)) for j in range(len(rot.V)))
        assert 0 < r.certified_bound["cov"] < 1e-30
    if any(ini[0]):
        assert r.certified_bound["mean"] is None  # mean: numerical evidence only
    else:
        assert r.certified_bound["mean"] == 0.0


@pytest.mark.parametrize("ini,tgt", RANK_DEFICIENT)
def test_feedforward_only_rank_deficient(ini, tgt):
    r = steer(ini, tgt, 1, controls="feedforward")
    assert r.verdict.status == "PROVED" and r.strategy == "feedforward-rank"
    assert r.numerical_error < 1e-10
    assert r.certified_bound["cov"] < 1e-30 and r.certified_bound["mean"] == 0
    d = len(ini[1])
    for p in r.schedule:
        assert _zero(p.A) and _zero(p.V)
        if p.role.startswith("rotation"):
            assert all(p.F[i][j] == -p.F[j][i] for i in range(d) for j in range(d))
        if p.role.startswith("stretch"):  # e^{Fτ} SPD: F symmetric (a real logarithm)
            assert all(p.F[i][j] == p.F[j][i] for i in range(d) for j in range(d))


def test_restricted_refutations_exact_reasons():
    rd = (([0, 0], [[1, 1], [1, 1]]), ([1, 0], [[1, 0], [0, 0]]))
    r = steer(*rd, 1, controls="attention")
    assert r.verdict.status == "REFUTED" and "α ≡ 0" in r.verdict.reason
    assert steer(*rd, 1, controls="feedforward").verdict.status == "PROVED"
    r = steer((rd[1][0], rd[0][1]), ([0, 0], [[1, 0], [0, 0]]), 1, controls="attention")
    assert r.verdict.status == "REFUTED" and "Ψ(t)" in r.verdict.reason
    for controls in ("any", "attention", "feedforward"):
        r = steer(([0, 0, 0], [[1, 0, 0], [0, 0, 0], [0, 0, 0]]), ([0, 0, 0], [[1, 0, 0], [0, 1, 0], [0, 0, 0]]),
                  1, controls=controls)
        assert r.verdict.status == "REFUTED" and "rank Σ₀ = 1 ≠ rank Σ₁ = 2" in r.verdict.reason


NORM_CASES = [
    # (initial, target, T, controls, m, phrase in the reason)
    (([0, 0], I2), ([0, 0], [[10, 0], [0, 1]]), 1, "feedforward", Fr(1, 10), "λ_max(Σ) can change"),
    (([0, 0], I2), ([0, 0], [[1, 0], [0, "1/4"]]), 1, "feedforward", Fr(1, 10), "Ostrowski"),
    (([0, 0], I2), ([0, 0], [["13/10", 0], [0, "13/10"]]), 1, "feedforward", Fr(3, 20), "ln det"),
    (([0, 0], I2), ([3, 0], I2), 1, "feedforward", Fr(1, 2), "‖α‖ + 1"),
    (([0, 0], I2), ([0, 0], [[10, 0], [0, 10]]), 1, "attention", Fr(1, 10), "1/λ_max"),
    (([0, 0], [[1, 0], [0, 0]]), ([0, 0], [[0, 0], [0, 10]]), 1, "attention", Fr(1, 10), "1/λ_max"),
    (([0, 0], [[2, 1], [1, 1]]), ([0, 3], [[1, 0], [0, 3]]), 1, "any", Fr(1, 100), "λ_max"),
]


@pytest.mark.parametrize("ini,tgt,T,controls,m,phrase", NORM_CASES)
def test_norm_obstructions(ini, tgt, T, controls, m, phrase):
    r = steer(ini, tgt, T, controls=controls, max_norm=m)
    assert r.verdict.status == "REFUTED" and r.strategy == "norm-obstruction"
    assert phrase in r.verdict.reason
    # consistent with the constructions: the unrestricted schedule needs a larger norm
    free = steer(ini, tgt, T, controls=controls)
    assert free.verdict.status == "PROVED"
    assert max(p.free_norm_sq() for p in free.schedule) > m * m
    # and a generous bound is not refuted
    big = m * 100
    assert norm_obstruction([Fr(x) for x in ini[0]], [[Fr(x) for x in row] for row in ini[1]],
                            [Fr(x) for x in tgt[0]], [[Fr(x) for x in row] for row in tgt[1]],
                            Fr(T), controls, big) is None


def test_norm_bound_reachable_is_proved():
    """Feed-forward Bures control of norm ≈ 0.40 < 1/2: PROVED within the bound."""
    r = steer(([0, 0], I2), ([1, 1], [[2, "1/2"], ["1/2", 1]]), 3, controls="feedforward", max_norm="1/2")
    assert r.verdict.status == "PROVED" and r.certified_bound["cov"] < 1e-30
    assert max(p.free_norm_sq() for p in r.schedule) <= Fr(1, 4)
    assert math.sqrt(float(max(p.free_norm_sq() for p in r.schedule))) < 0.5


def test_norm_obstructions_are_tight():
    """The eigenvalue bounds are attained, so they are refuted exactly beyond the boundary:
    * attention only, V = I, A = m·e₁e₁ᵀ: d/dt(1/λ) = −2m exactly, Σ₀ = I reaches
      λ₁ = 1/(1 − 2mT) — the boundary value itself is reachable (PROVED) and not refuted;
    * feed-forward F = m·e₁e₁ᵀ: λ_max grows by exactly e^{2mT} (irrational): targets at
      (1 ∓ 10⁻⁹)·e^{2mT} are not refuted / refuted."""
    m, T = Fr(1, 5), Fr(1)
    lam = 1 / (1 - 2 * m * T)  # 5/3
    Z = [0, 0]
    r = steer((Z, I2), (Z, [[lam, 0], [0, 1]]), T, controls="attention", max_norm=m)
    assert r.verdict.status == "PROVED"
    assert max(p.free_norm_sq() for p in r.schedule) <= m * m
    over = lam * (1 + Fr(1, 10 ** 9))
    r = steer((Z, I2), (Z, [[over, 0], [0, 1]]), T, controls="attention", max_norm=m)
    assert r.verdict.status == "REFUTED" and "1/λ_max" in r.verdict.reason
    with mpmath.workdps(40):
        x = 2 * m * T
        e = Fr(mpmath.nstr(mpmath.exp(mpmath.mpf(x.numerator) / x.denominator), 30))
    args = ([Fr(0)] * 2, [[Fr(1), Fr(0)], [Fr(0), Fr(1)]], [Fr(0)] * 2)
    inside = [[e * (1 - Fr(1, 10 ** 9)), Fr(0)], [Fr(0), Fr(1)]]
    outside = [[e * (1 + Fr(1, 10 ** 9)), Fr(0)], [Fr(0), Fr(1)]]
    assert norm_obstruction(*args, inside, T, "feedforward", m) is None
    assert "λ_max" in norm_obstruction(*args, outside, T, "feedforward", m)
