"""Whole-cell tube certificates (kind ``cell-tube``) for Σ₀ slices of general-V flows with a drift:
the search (symbolic_tf.certify.search.cell_tube) against the independent checker
(symbolic_tf.certify.check.kinds.cell_tube), the exactness of the cell's initial set, soundness against
independent integrations from the cell's corners and interior points, tampering, and the map route."""
import copy
import random
from fractions import Fraction as F

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.search.cell_tube import TubeCells, search_reason
from symbolic_tf.certify.check.kinds.cell_tube import TubeCellChecker, cell_parallelepiped, sigma0_enclosure
from symbolic_tf.regimes.maps import cell_route, check_map, run_map
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec
from cellcase import cell_of   # tests/certify/cellcase.py

A = [[1, "1/2"], ["-1/4", -1]]
V = [[1, "1/2"], ["-1/2", 1]]          # not symmetric, not a multiple of I
DRIFT = {"family": "cov-disk", "resolution": [2, 2], "max_depth": 0,
         "problem": {"variant": "softmax", "d": 2, "A": A, "V": V, "F": [[-1, 0], [0, -1]], "b": [0, 0]}}
BOX = (F(7, 32), F(9, 32), F(-1, 32), F(1, 32))


@pytest.fixture(scope="module")
def proved():
    spec = parse_map_spec(DRIFT)
    r = TubeCells(spec).certify(BOX)
    assert r["status"] == "PROVED", r.get("reason")
    return spec, cell_of(r, BOX)


def _sigma0(x, y):
    return np.array([[(1 + x) / 2, y / 2], [y / 2, (1 - x) / 2]])


def _float_rhs(t, s):
    S = s.reshape(2, 2)
    Af, Vf = (np.array([[float(F(e)) for e in row] for row in M]) for M in (A, V))
    M = Vf @ S @ Af @ S - S      # F = −I: FΣ + ΣFᵀ = −2Σ, split over M + Mᵀ
    return (M + M.T).ravel()


def test_the_cell_is_certified_and_the_checker_derives_the_claim(proved):
    spec, cell = proved
    claim = TubeCellChecker(spec).check(cell)
    assert claim.subject == "CLUSTERING" and claim.rank == 0
    assert cell["claim"] == claim.text()


def test_initial_set_is_exact(proved):
    """Σ₀(x, y) at random rational points of the closed cell lies in the parallelepiped (exactly:
    its coordinates are (s, t) ∈ [−1, 1]²) and in the enclosing box."""
    spec, _ = proved
    cov = spec.cov_affine()
    c, B, r = cell_parallelepiped(cov, BOX)
    S0 = sigma0_enclosure(cov, BOX)
    rng = random.Random(1)
    x0, x1, y0, y1 = BOX
    for _ in range(20):
        s, t = F(rng.randint(-64, 64), 64), F(rng.randint(-64, 64), 64)
        x, y = (x0 + x1) / 2 + s * (x1 - x0) / 2, (y0 + y1) / 2 + t * (y1 - y0) / 2
        exact = [F(1 + x, 2), F(y, 2), F(1 - x, 2)]          # svec of Σ₀(x, y)
        coords = [flint.fmpq(s.numerator, s.denominator), flint.fmpq(t.numerator, t.denominator), 0]
        for k in range(3):
            assert r[k, 0].contains(flint.arb(coords[k]))
            val = c[k, 0] + sum((B[k, j] * coords[j] for j in range(3)), flint.arb(0))
            assert val.contains(flint.arb(flint.fmpq(exact[k].numerator, exact[k].denominator)))
        for (i, j), e in zip(((0, 0), (0, 1), (1, 1)), exact):
            assert S0[i, j].contains(flint.arb(flint.fmpq(e.numerator, e.denominator)))


def test_independent_integrations_collapse_from_every_corner_and_inside(proved):
    """Numerical evidence from an independent integrator (SciPy DOP853) at the corners and at random
    interior points: every trajectory exists and tr Σ(t) → 0, as the cell's certificate says."""
    rng = random.Random(2)
    x0, x1, y0, y1 = (float(b) for b in BOX)
    pts = [(x, y) for x in (x0, x1) for y in (y0, y1)] + [(rng.uniform(x0, x1), rng.uniform(y0, y1)) for _ in range(4)]
    for x, y in pts:
        sol = solve_ivp(_float_rhs, (0, 20), _sigma0(x, y).ravel(), method="DOP853", rtol=1e-10, atol=1e-14)
        assert sol.status == 0
        assert np.trace(sol.y[:, -1].reshape(2, 2)) < 1e-6


@pytest.mark.parametrize("edit", ["regime", "rank", "claim", "box", "steps", "end", "F", "spec-A"])
def test_tampering_is_rejected(proved, edit):
    spec, cell = proved
    bad = copy.deepcopy(cell)
    data = bad["certificate"]["data"]
    sdoc = copy.deepcopy(DRIFT)
    if edit == "regime":
        bad["regime"] = "BLOWUP"
    elif edit == "rank":
        bad["rank"] = 1
    elif edit == "claim":
        bad["claim"] = bad["claim"].replace("rank 0", "rank 1")
    elif edit == "box":   # a bigger cell: the tube no longer covers it
        bad["box"] = ["0", "1/2", "-1/4", "1/4"]
    elif edit == "steps":
        data["steps"] = data["steps"][:1] + [str(F(data["steps"][1]) * 64)] + data["steps"][2:]
    elif edit == "end":
        data["end"] = "tube-ray"
    elif edit == "F":     # the same certificate for a weaker damping
        sdoc["problem"]["F"] = [["-1/20", 0], [0, "-1/20"]]
    elif edit == "spec-A":
        sdoc["problem"]["A"] = [[3, "1/2"], ["-1/4", -1]]
    with pytest.raises(CertificationFailed):
        TubeCellChecker(parse_map_spec(sdoc)).check(bad)


def test_a_cell_straddling_the_disk_boundary_is_not_claimed():
    spec = parse_map_spec(DRIFT)
    r = TubeCells(spec).certify((F(7, 8), F(9, 8), F(-1, 8), F(1, 8)))
    assert r["status"] == "UNDECIDED" and "positive definite" in r["reason"]


def test_outside_cells_carry_a_witness():
    spec = parse_map_spec(DRIFT)
    box = (F(3, 4), F(1), F(3, 4), F(1))          # u² + w² ≥ 9/8 > 1 everywhere: Σ₀ is indefinite
    r = TubeCells(spec).certify(box)
    assert r["status"] == "OUTSIDE"
    cell = {"box": [str(b) for b in box], "status": "OUTSIDE", "regime": "OUTSIDE", "claim": r["claim"],
            "certificate": {"kind": r["kind"], "data": r["data"]}}
    assert TubeCellChecker(spec).check(cell) is None


def test_map_route_and_whole_map_check():
    """A small, coarse map of the drift slice: its certified cells all say collapse (the point verdicts
    agree), the map verifies, and a tampered cell makes the whole map fail."""
    spec = parse_map_spec(dict(DRIFT, resolution=[4, 4], max_depth=1))
    assert cell_route(spec) == ("cell-tube", None)
    doc = run_map(spec)
    assert doc["route"] == "cell-tube"
    assert set(doc["totals"]["fraction_by_regime"]) == {"CLUSTERING", "UNDECIDED"}
    assert doc["totals"]["fraction_by_regime"]["CLUSTERING"] > 0.1
    check_map(doc)
    bad = copy.deepcopy(doc)
    c = next(c for c in bad["cells"] if c["status"] == "PROVED")
    c["regime"] = "BLOWUP"
    with pytest.raises(CertificationFailed):
        check_map(bad)


def test_slices_without_drift_are_not_tube_cells():
    """Without drift tubes from a cell spread along the neutral line: the slice goes to the basin
    kind (trace-constant disk in d = 2, tests/certify/test_cell_basin.py) instead."""
    doc = copy.deepcopy(DRIFT)
    del doc["problem"]["F"], doc["problem"]["b"]
    spec = parse_map_spec(doc)
    assert "neutral line" in search_reason(spec)
    assert cell_route(spec) == ("cell-basin", None)
