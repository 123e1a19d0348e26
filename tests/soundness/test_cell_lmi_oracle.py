"""Soundness cross-check of ``cell-lmi`` cells: at seeded random interior points of certified cells, a float
integration of the covariance flow (SciPy DOP853, tests/soundness/oracle.py) agrees with the cell's claim — for
the map's Σ₀ and, since the claims hold for every Σ₀ ⪰ 0 (≠ 0 for blow-up), for random positive definite and
rank-one Σ₀ as well.  The cells are the committed genuine certificates of the tampering suite (issue 49's
first map, a rotation–scaling V and the drift model with a general V) and, in the heavy tier, every certified
cell of a small map of each kind computed by the cell search."""
from __future__ import annotations

import numpy as np

import pytest

from symbolic_tf.spec.mapspec import parse_map_spec

from .forgeries.cellforge import load
from .oracle import judge_blowup, judge_bounded, judge_clustering, simulate


def _points(box, rng, n):
    x0, x1, y0, y1 = (float(eval_frac(b)) for b in box)
    return [(x0 + (x1 - x0) * u, y0 + (y1 - y0) * v) for u, v in rng.uniform(0.02, 0.98, size=(n, 2))]


def eval_frac(s):
    from fractions import Fraction

    return Fraction(str(s))


def _sigma0s(rng, d=2):
    G = rng.normal(size=(d, d))
    u = rng.normal(size=d)
    return [G @ G.T + 0.1 * np.eye(d), np.outer(u, u)]


def _judge(spec, cell, x, y, Sigma0=None):
    from fractions import Fraction

    problem = spec.problem_at(Fraction(x).limit_denominator(10 ** 6), Fraction(y).limit_denominator(10 ** 6))
    regime = cell["regime"]
    if regime == "CLUSTERING":
        return judge_clustering(problem, int(cell["rank"]), Sigma0)
    if regime == "BOUNDED":
        return judge_bounded(problem, Sigma0)
    if regime == "BLOWUP":
        if Sigma0 is None:
            return judge_blowup(problem, float(Fraction(cell["T_lo"])), float(Fraction(cell["T_hi"])))
        r = simulate(problem, 1e3, Sigma0=Sigma0, rtol=1e-10, max_evals=60_000)
        from .oracle import Judgement
        return Judgement(r.status == "blowup" or None, f"{r.status} at t = {r.t!r}")
    raise AssertionError(regime)


def _comparison(data, y0, t):
    """The comparison solution the certificate proves for y = tr(PΣ): an upper bound of y(t) (direction upper,
    ẏ ≤ κy − c·y²) or a lower bound (direction lower, ẏ ≥ c·y², before 1/(c·y₀))."""
    import math
    from fractions import Fraction

    c, k = float(Fraction(data["c"])), float(Fraction(data["kappa"]))
    if data["direction"] == "lower":
        return y0 / (1 - c * y0 * t)
    if c == 0:
        return y0 * math.exp(k * t)
    if k == 0:
        return y0 / (1 + c * y0 * t)
    e = math.exp(k * t)
    return k * y0 * e / (k + c * y0 * (e - 1))


@pytest.mark.parametrize("name", ["cell-lmi-cluster", "cell-lmi-blowup", "cell-lmi-growth", "cell-lmi-drift"])
def test_random_interior_points_obey_the_proved_inequality(name):
    """The certificate proves a differential inequality for y = tr(PΣ) at every point of the cell and every
    Σ₀ ⪰ 0: the float solution's y(t) must stay on the right side of the comparison solution (upper: below
    κ-logistic, so Σ → 0, or stays bounded; lower: above y₀/(1 − c·y₀t), so Σ blows up before 1/(c·y₀)), and for
    the map's Σ₀ a blow-up lands in the cell's bracket."""
    import math
    from fractions import Fraction

    rng = np.random.default_rng(49)
    cert = load(name)
    spec, cell = parse_map_spec(cert["data"]["spec"]), cert["data"]["cell"]
    data = cell["certificate"]["data"]
    P = np.array([[float(Fraction(e)) for e in r] for r in data["P"]])
    for k, (x, y) in enumerate(_points(cell["box"], rng, 2)):
        problem = spec.problem_at(Fraction(x).limit_denominator(10 ** 6), Fraction(y).limit_denominator(10 ** 6))
        pd, rank_one = _sigma0s(rng)
        for S0 in ([None, rank_one] if k == 0 else [pd]):
            S = np.array([[float(Fraction(e)) for e in r] for r in problem.cov]) if S0 is None else S0
            y0 = float(np.trace(P @ S))
            if data["direction"] == "lower":
                T = 1 / (float(Fraction(data["c"])) * y0)
                r = simulate(problem, T, Sigma0=S, rtol=1e-9)
                assert r.status == "blowup", (name, x, y, S0, r.status)   # before 1/(c·y₀)
                if "a" in data:   # the growth bound ẏ ≤ κ⁺y + a·y²: no blow-up before 1/(a·y₀ + κ⁺), any Σ₀
                    a, kp = float(Fraction(data["a"])), max(float(Fraction(data["kappa_a"])), 0.0)
                    assert r.t >= (1 - 1e-6) / (a * y0 + kp), (name, x, y, S0, r.t, a, y0)
                T = min(T, r.t)
                times = (0.25 * T, 0.5 * T, 0.75 * T)
                r = simulate(problem, 0.8 * T, times=times, Sigma0=S, rtol=1e-9)
            else:
                times = (0.5, 2.0, 8.0)
                r = simulate(problem, 8.5, times=times, Sigma0=S, rtol=1e-9)
            for t, s, U in r.samples:
                yt = float(np.trace(P @ U)) * math.exp(s)
                bound = _comparison(data, y0, t)
                if data["direction"] == "upper":
                    assert yt <= bound * (1 + 1e-6) + 1e-12, (name, x, y, S0, t, yt, bound)
                else:
                    assert yt >= bound * (1 - 1e-6), (name, x, y, S0, t, yt, bound)
                    if "a" in data and max(float(Fraction(data["kappa_a"])), 0.0) == 0:
                        a = float(Fraction(data["a"]))   # the comparison solution, while it exists
                        assert a * y0 * t >= 1 or yt <= y0 / (1 - a * y0 * t) * (1 + 1e-6), (name, x, y, S0, t, yt)
            assert len(r.samples) == 3, (name, x, y, S0, r.status)
            if data["direction"] == "lower":
                if S0 is None:
                    j = judge_blowup(problem, float(Fraction(cell["T_lo"])), float(Fraction(cell["T_hi"])))
                    assert j.ok is not False, j.why


@pytest.mark.heavy
def test_every_certified_cell_of_small_maps_agrees():  # ≈ 1–3 min: long-horizon judgements
    """Each kind of map (general V, rotation–scaling V, drift model) at 4 × 4 cells, depth 0: every PROVED cell
    judged at 2 random interior points (map's Σ₀) and one random Σ₀ ≻ 0; no disagreement."""
    from symbolic_tf.certify.search.cell_lmi import LmiCells
    from fractions import Fraction

    from .forgeries.test_cell_lmi import DRIFT, MAP1, ROT

    rng = np.random.default_rng(4949)
    proved = 0
    for doc in (MAP1, ROT, DRIFT):
        spec = parse_map_spec(doc)
        search = LmiCells(spec)
        (X0, X1), (Y0, Y1) = spec.x_range, spec.y_range
        for i in range(4):
            for j in range(4):
                box = (X0 + (X1 - X0) * Fraction(i, 4), X0 + (X1 - X0) * Fraction(i + 1, 4),
                       Y0 + (Y1 - Y0) * Fraction(j, 4), Y0 + (Y1 - Y0) * Fraction(j + 1, 4))
                r = search.certify(box)
                if r["status"] != "PROVED":
                    continue
                proved += 1
                for x, y in _points([str(b) for b in box], rng, 2):
                    for S0 in (None, _sigma0s(rng)[0]):
                        jd = _judge(spec, r, x, y, S0)
                        assert jd.ok is not False, (doc["problem"], box, x, y, S0, jd.why)
    assert proved >= 10
