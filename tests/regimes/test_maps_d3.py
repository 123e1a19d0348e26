"""Regime maps in d = 3 (issue 49 item 4): which whole-cell arguments take a d = 3 slice and which refuse it
(and why), a d = 3 map re-verified cell by cell, and d = 3 cells of each applicable kind rejected when moved
to a neighbouring cell or stretched over a wider box."""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import numpy as np

import pytest

from symbolic_tf.certify.check import cell_checker_of
from symbolic_tf.certify.search.cell_searches import cell_searches
from symbolic_tf.regimes.maps import cell_route, check_map, run_map
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import load_map_spec, parse_map_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
VI = "map_d3_vI.toml"
GENERAL_V = "param_slice_d3_general_V.toml"
COV_DRIFT = "cov_slice_d3_drift.toml"


def _small(name: str, n: int, depth: int) -> dict:
    doc = load_map_spec(EXAMPLES / name).to_dict()
    doc.pop("schema", None)
    return {**doc, "resolution": [n, n], "max_depth": depth}


def _reasons(spec) -> dict:
    return {s.kind: s.reason(spec) for s in cell_searches()}


def test_which_kinds_take_d3():
    """The d = 3 examples take the argument their docs name; cell-basin and cell-scaled refuse a d = 3 Σ₀ slice
    because they are planar (the reason names d = 2), and a d = 3 Σ₀ slice without drift and with a general V
    has no whole-cell argument (point verdicts)."""
    assert cell_route(load_map_spec(EXAMPLES / VI)) == ("cell-riccati-vI", None)
    assert cell_route(load_map_spec(EXAMPLES / GENERAL_V))[0] in ("cell-lmi", "cell-tube-param")
    assert cell_route(load_map_spec(EXAMPLES / COV_DRIFT)) == ("cell-tube", None)
    for name in (GENERAL_V, COV_DRIFT):
        assert _reasons(load_map_spec(EXAMPLES / name))["cell-lmi" if name == GENERAL_V else "cell-tube"] is None
    doc = _small(COV_DRIFT, 2, 0)
    del doc["problem"]["F"], doc["problem"]["b"]
    spec = parse_map_spec(doc)
    why = _reasons(spec)
    assert "d = 2" in why["cell-basin"] and "d = 2" in why["cell-scaled"]
    assert "drift" in why["cell-tube"]
    kind, reason = cell_route(spec)
    assert kind is None and "d = 2" in reason


def _nearest_other(cells, regime):
    """(a, b): a PROVED cell of ``regime`` and the nearest PROVED cell of the same level with another regime
    (the boundary cells between them are undecided and split, so the nearest is one or two cells away)."""
    proved = [c for c in cells if c["status"] == "PROVED"]
    pairs = [(a, b) for a in proved if a["regime"] == regime for b in proved
             if b["regime"] != regime and b["id"][0] == a["id"][0]]
    return min(pairs, key=lambda p: abs(p[0]["id"][1] - p[1]["id"][1]) + abs(p[0]["id"][2] - p[1]["id"][2]))


def _union(a, b):
    A, B = [Fraction(v) for v in a["box"]], [Fraction(v) for v in b["box"]]
    return [str(min(A[0], B[0])), str(max(A[1], B[1])), str(min(A[2], B[2])), str(max(A[3], B[3]))]


def _moved(cell, box):
    out = copy.deepcopy(cell)
    out["box"] = list(box)
    return out


def test_d3_vI_map_checks_and_moved_cells_are_rejected():
    """A 4 × 4, depth-1 map of the d = 3 V = I example certifies most of its box (both regimes), every cell
    re-verifies, and a blow-up cell's record put on the nearest clustering cell or stretched over both is rejected
    by the kind's checker.  The moved claim is false there: at the neighbour's centre the closed form
    T* = 1/(2ρ), ρ = λ_max(Σ₀^{1/2}RΣ₀^{1/2})/2, R = A + Aᵀ, has ρ ≤ 0 (no blow-up) — checked in float."""
    spec = parse_map_spec(_small(VI, 4, 1))
    m = run_map(spec)
    assert m["route"] == "cell-riccati-vI" and m["totals"]["decided_fraction"] > 0.8
    assert {"BLOWUP", "CLUSTERING"} <= set(m["totals"]["fraction_by_regime"])
    check_map(m)
    checker = cell_checker_of("cell-riccati-vI")(spec)
    a, b = _nearest_other(m["cells"], "BLOWUP")
    checker.check(a)
    x0, x1, y0, y1 = (Fraction(v) for v in b["box"])
    p = spec.problem_at((x0 + x1) / 2, (y0 + y1) / 2)
    A = np.array([[float(e) for e in r] for r in p.A])
    S0 = np.array([[float(e) for e in r] for r in p.cov])
    w, Q = np.linalg.eigh(S0)
    h = Q @ np.diag(np.sqrt(w)) @ Q.T
    assert np.linalg.eigvalsh(h @ (A + A.T) @ h).max() <= 0      # the neighbour never blows up
    for box in (b["box"], _union(a, b)):
        with pytest.raises(CertificationFailed, match=r"BLOWUP: .* fails on the cell"):
            checker.check(_moved(a, box))


def _first_proved(spec, boxes):
    search = next(s for s in cell_searches() if s.kind == cell_route(spec)[0]).cells(spec)
    for box in boxes:
        r = search.certify(box)
        if r["status"] == "PROVED":
            cell = {"box": [str(v) for v in box], "status": "PROVED", "regime": r["regime"], "claim": r["claim"],
                    "certificate": {"kind": r.get("kind") or cell_route(spec)[0], "argument": r["argument"],
                                    "data": r["data"]}}
            for key in ("rank", "T_lo", "T_hi"):
                if r.get(key) is not None:
                    cell[key] = r[key]
            return box, cell
    raise AssertionError("no cell certified")


@pytest.mark.heavy
@pytest.mark.parametrize("name", [GENERAL_V, COV_DRIFT])
def test_d3_cell_of_each_kind_is_bound_to_its_box(name):  # ≈ 10–60 s: one d = 3 cell search each
    """A certified d = 3 cell of the general-V example (cell-lmi: CLUSTERING of rank 0 where A₁₁ < 0) and of the
    Σ₀ slice with a drift (cell-tube: collapse of the narrowest Gaussians) re-verifies with its kind's
    checker; the same record moved across the regime boundary (general V: to A₁₁ = y > 0, where the map's point
    verdicts are not rank-0 clustering; Σ₀ slice: to the widest Σ₀, which blows up) or stretched over the box
    spanning both is rejected."""
    n = 8 if name == GENERAL_V else 16
    spec = parse_map_spec(_small(name, n, 0))
    (X0, X1), (Y0, Y1) = spec.x_range, spec.y_range
    w, h = (X1 - X0) / n, (Y1 - Y0) / n
    if name == GENERAL_V:   # lower half: y = A₁₁ < 0, CLUSTERING of rank 0 for every Σ₀
        boxes = [(X0, X0 + w, Y0, Y0 + h)]
        elsewhere = (X0, X0 + w, Y1 - h, Y1)
    else:                   # the narrowest Σ₀₁₁ = x column collapses; the widest corner blows up
        boxes = [(X0, X0 + w, Y0 + k * h, Y0 + (k + 1) * h) for k in range(n)]
        elsewhere = (X1 - w, X1, Y1 - h, Y1)
    box, cell = _first_proved(spec, boxes)
    kind = cell["certificate"]["kind"]
    checker = cell_checker_of(kind)(spec)
    checker.check(cell)
    wider = (min(box[0], elsewhere[0]), max(box[1], elsewhere[1]), min(box[2], elsewhere[2]), max(box[3], elsewhere[3]))
    for b in (elsewhere, wider):
        with pytest.raises(CertificationFailed):
            checker.check(_moved(cell, [str(v) for v in b]))
