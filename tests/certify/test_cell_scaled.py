"""Scaled-disk cells (kind ``cell-scaled``): any Σ₀ slice in d = 2 without drift, certified by homogeneity.

* the identity Σ(t; cΣ₀) = cΣ(ct; Σ₀) against a direct float integration (SciPy DOP853) at random flows, Σ₀ and c;
* the direction box of a cell (exact hull of four corner images) holds the direction of every point of the cell;
* the map of issue 49 (Σ₀ = diag(x, y), V = [[1, 1], [−1, 1]]) is certified whole and its cells' claims agree
  with a float integration at random interior points (blow-up inside the rescaled bracket);
* heavy: a slice whose disk has two attracting blow-up rays (disk cells of kind cell-basin), checked and
  cross-checked the same way.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check.kinds.cell_scaled import ScaledCellChecker, direction_box, direction_coefficients
from symbolic_tf.regimes.maps import check_map, resolve_shared, run_map
from symbolic_tf.regimes.executors import SerialExecutor
from symbolic_tf.spec.mapspec import parse_map_spec

from soundness.oracle import simulate

ISSUE = {"family": "cov", "resolution": [2, 2], "max_depth": 0,
         "x": {"range": ["1/10", 2]}, "y": {"range": ["1/10", 2]},
         "problem": {"variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/3", "1/4"]], "V": [[1, 1], [-1, 1]],
                     "initial": {"mean": [0, 0], "cov": [["x", 0], [0, "y"]]}}}
RAYS = {"family": "cov", "resolution": [2, 2], "max_depth": 0,
        "x": {"range": ["1/2", 2]}, "y": {"range": ["-1/2", "1/2"]},
        "problem": {"variant": "softmax", "d": 2, "A": [["-5/4", "1/4"], [-3, -1]],
                    "V": [["-5/4", "-3/2"], ["-7/4", -1]],
                    "initial": {"mean": [0, 0], "cov": [[1, "y"], ["y", "x"]]}}}


def _flow(V, A, S0, t):
    def f(_t, y):
        S = y.reshape(2, 2)
        H = V @ S @ A @ S
        return (H + H.T).ravel()
    sol = solve_ivp(f, (0, t), np.asarray(S0, float).ravel(), method="DOP853", rtol=1e-12, atol=1e-14)
    assert sol.success
    return sol.y[:, -1].reshape(2, 2)


def test_homogeneity_against_direct_integration():
    """Σ(t; cΣ₀) = cΣ(ct; Σ₀): both sides integrated independently, random V, A, Σ₀ ≻ 0 and c."""
    rng = np.random.default_rng(49)
    for _ in range(12):
        V, A = rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
        G = rng.normal(size=(2, 2))
        S0 = G @ G.T + 0.1 * np.eye(2)
        c = float(rng.uniform(0.2, 4.0))
        # well before any blow-up: ‖Σ(t)‖ ≤ ‖Σ₀‖/(1 − 2‖V‖‖A‖‖Σ₀‖t)
        t = 0.2 / (2 * np.linalg.norm(V, 2) * np.linalg.norm(A, 2) * np.linalg.norm(S0, 2) * max(c, 1.0))
        left = _flow(V, A, c * S0, t)
        right = c * _flow(V, A, S0, c * t)
        assert np.allclose(left, right, rtol=1e-9, atol=1e-12 * np.abs(right).max())
        # and the map is not trivial: Σ moved
        assert np.abs(left - c * S0).max() > 1e-6 * np.abs(c * S0).max()


def test_direction_box_holds_every_direction_of_the_cell():
    """(u, w) = ((Σ₀₀ − Σ₁₁)/tr Σ₀, 2Σ₀₁/tr Σ₀) at random exact points of a box lies in the box's direction box,
    whose ends are attained at corners."""
    spec = parse_map_spec({**RAYS, "problem": {**RAYS["problem"], "initial": {"cov": [["x", "y/3"], ["y/3", "1 + y/2"]]}}})
    coefs = direction_coefficients(spec.cov_affine())
    box = (flint.fmpq(1, 2), flint.fmpq(2), flint.fmpq(-1, 2), flint.fmpq(1, 2))
    u0, u1, w0, w1 = direction_box(coefs, box)
    rng = np.random.default_rng(3)
    for _ in range(200):
        fx, fy = Fraction(int(rng.integers(0, 1000)), 999), Fraction(int(rng.integers(0, 1000)), 999)
        x = Fraction(1, 2) + fx * Fraction(3, 2)
        y = Fraction(-1, 2) + fy
        S = [[x, y / 3], [y / 3, 1 + y / 2]]
        s = S[0][0] + S[1][1]
        u, w = (S[0][0] - S[1][1]) / s, 2 * S[0][1] / s
        assert Fraction(int(u0.p), int(u0.q)) <= u <= Fraction(int(u1.p), int(u1.q))
        assert Fraction(int(w0.p), int(w0.q)) <= w <= Fraction(int(w1.p), int(w1.q))


def _cross_check(doc, n_points, seed):
    """Every certified BLOWUP cell: at random interior points a float integration blows up inside [T_lo, T_hi]."""
    spec = parse_map_spec({k: v for k, v in doc["spec"].items() if k != "schema"})
    rng = np.random.default_rng(seed)
    checked = 0
    for c in doc["cells"]:
        if c["status"] != "PROVED":
            continue
        assert c["regime"] == "BLOWUP"
        x0, x1, y0, y1 = (float(Fraction(b)) for b in c["box"])
        T_lo, T_hi = float(Fraction(c["T_lo"])), float(Fraction(c["T_hi"]))
        for _ in range(n_points):
            x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
            p = spec.problem_at(Fraction(x).limit_denominator(10 ** 9), Fraction(y).limit_denominator(10 ** 9))
            r = simulate(p, min(T_hi, 50.0) * 1.01)
            assert r.status == "blowup", (c["id"], x, y, r.status, r.t)
            assert T_lo * (1 - 1e-6) <= r.t <= T_hi * (1 + 1e-6), (c["id"], x, y, r.t, T_lo, T_hi)
            checked += 1
    return checked


def test_the_issue_map_is_certified_whole_and_its_claims_hold():
    doc = run_map(ISSUE, executor=SerialExecutor())
    assert doc["route"] == "cell-scaled"
    assert doc["totals"]["decided_fraction"] == 1.0
    check_map(doc)
    assert _cross_check(doc, 1, seed=7) == 4


def test_the_bracket_is_rescaled_by_the_trace():
    """Two cells with the same directions and traces in ratio 2 (Σ₀ and 2Σ₀ on the diagonal x = y) have brackets
    in ratio 1/2: T*(cΣ₀) = T*(Σ₀)/c."""
    spec = parse_map_spec(ISSUE)
    from symbolic_tf.certify.search.cell_scaled import ScaledCells

    cells = ScaledCells(spec)
    a = cells.certify((Fraction(1, 2), Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)))
    b = cells.certify((Fraction(1), Fraction(1), Fraction(1), Fraction(1)))
    assert a["regime"] == b["regime"] == "BLOWUP"
    assert Fraction(b["T_lo"]) * 2 == Fraction(a["T_lo"]) and Fraction(b["T_hi"]) * 2 == Fraction(a["T_hi"])
    cell = {"box": ["1/2", "1/2", "1/2", "1/2"], "status": "PROVED", "regime": "BLOWUP", "claim": a["claim"],
            "T_lo": a["T_lo"], "T_hi": a["T_hi"], "certificate": {"kind": a["kind"], "data": a["data"]}}
    assert ScaledCellChecker(spec).check(cell).subject == "BLOWUP"
    # the point Σ₀ = I/2 itself: float blow-up time inside the bracket, and about twice that of Σ₀ = I
    p_half, p_one = spec.problem_at(Fraction(1, 2), Fraction(1, 2)), spec.problem_at(1, 1)
    t_half, t_one = simulate(p_half, 100.0).t, simulate(p_one, 100.0).t
    assert math.isclose(t_half, 2 * t_one, rel_tol=1e-4)
    assert float(Fraction(a["T_lo"])) <= t_half <= float(Fraction(a["T_hi"]))


@pytest.mark.heavy
def test_a_slice_with_two_attracting_rays():
    """Disk cells of kind cell-basin (two blow-up rays on the disk): certified, checked, cross-checked."""
    doc = run_map(RAYS, executor=SerialExecutor())
    assert doc["route"] == "cell-scaled"
    assert doc["totals"]["decided_fraction"] == 1.0
    kinds = {e["kind"] for c in doc["cells"] for e in c["certificate"]["data"]["disk"]}
    assert kinds <= {"cell-basin", "cell-grid"} and kinds
    check_map(doc)
    assert _cross_check(doc, 2, seed=11) == 8


#: cov_slice_seed3013's flow: the slice's directions mostly reach an attracting blow-up ray on the circle whose
#: Jacobian is a Jordan block (a thin ellipsoid target, no polynomial basin, no saddle feeding it): only a grid basin
#: into the ellipsoid target itself covers them, and its level-8 and level-7 LPs are too large (coarser grids)
JORDAN_RAY = {"family": "cov", "resolution": [2, 2], "max_depth": 0,
              "x": {"range": ["1/4", 1]}, "y": {"range": ["1/4", 2]},
              "problem": {"variant": "softmax", "d": 2, "A": [[1, "1/4"], ["5/4", "-3/2"]],
                          "V": [[1, "-3/2"], [-1, -1]], "initial": {"mean": [0, 0], "cov": [["x", "1/8"], ["1/8", "y"]]}}}
#: cov_slice_seed3012's flow: every direction but a repelling focus reaches an attracting isotropic point; its
#: polynomial basin stops at u ≈ 0 and the grid basin's level-8 LP (~200 000 rows) is too large (a level-7 grid)
FOCUS_CLUSTER = {"family": "cov", "resolution": [2, 2], "max_depth": 0,
                 "x": {"range": ["1/4", 2]}, "y": {"range": ["1/4", 2]},
                 "problem": {"variant": "softmax", "d": 2, "A": [["-1/2", "-3/4"], ["3/2", "1/4"]],
                             "V": [[1, "-3/4"], ["5/4", "5/4"]], "initial": {"mean": [0, 0], "cov": [["x", 0], [0, "y"]]}}}


def _grids(doc):
    """The grid basins the PROVED cells' disk entries name."""
    out = []
    for c in doc["cells"]:
        if c["status"] != "PROVED":
            continue
        data = resolve_shared(c["certificate"]["data"], doc.get("shared", {}))
        out += [data[f"grid{e['data']['basin']['$grid']}"] for e in data["disk"] if e["kind"] == "cell-grid"]
    return out


@pytest.mark.heavy
def test_a_jordan_ray_gets_a_grid_basin_into_its_ellipsoid():
    """Grid cells into a ray's own ellipsoid target (no growth region), on a coarser grid: certified, checked, and
    every cell blows up inside its rescaled bracket in float integrations."""
    doc = run_map(JORDAN_RAY, executor=SerialExecutor())
    assert doc["route"] == "cell-scaled"
    assert doc["totals"]["decided_fraction"] == 1.0
    assert any(g["target"]["target"] == "ray" and g["k"] < 8 for g in _grids(doc))
    check_map(doc)
    assert _cross_check(doc, 2, seed=13) == 8


@pytest.mark.heavy
def test_a_cluster_around_a_repelling_focus_on_a_coarser_grid():
    """Every cell CLUSTERING (rank 1) by cell-scaled, some through a level-7 grid basin; checked; at random interior
    points a float integration stays bounded and its Σ/tr Σ approaches rank one (det Σ/(tr Σ)² → 0)."""
    doc = run_map(FOCUS_CLUSTER, executor=SerialExecutor())
    assert doc["route"] == "cell-scaled"
    assert doc["totals"]["decided_fraction"] == 1.0
    assert any(g["target"]["target"] == "cluster" and g["k"] == 7 for g in _grids(doc))
    check_map(doc)
    V = np.array([[1, -0.75], [1.25, 1.25]])
    A = np.array([[-0.5, -0.75], [1.5, 0.25]])
    rng = np.random.default_rng(12)
    for c in doc["cells"]:
        assert c["regime"] == "CLUSTERING" and c["rank"] == 1
        x0, x1, y0, y1 = (float(Fraction(b)) for b in c["box"])
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        S = _flow(V, A, np.diag([x, y]), 400.0)
        assert np.isfinite(S).all() and np.trace(S) < 1e3
        assert np.linalg.det(S) / np.trace(S) ** 2 < 1e-3, (c["id"], x, y, S)
