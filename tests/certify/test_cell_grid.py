"""Grid basins (kind ``cell-grid``) on the projective disk of a d = 2 softmax flow without drift: the
growth region (forward invariant, c > 0) against float flows, the piecewise-bilinear decrease against
the checker, soundness against independent float integrations from points of certified cells,
tampering, and the map's shared storage of a grid basin."""
import copy
import random
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.search.cell_basin import BasinCells
from symbolic_tf.certify.search._cell_grid import float_inside
from symbolic_tf.certify.check.kinds.cell_grid import GridBasin, GridCellChecker, RegionTarget
from symbolic_tf.certify.check.tube_replay import flow_pairs
from symbolic_tf.regimes.maps import check_map, run_map
from symbolic_tf.reproduce.regimes import map_specs
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec
from cellcase import cell_of   # tests/certify/cellcase.py

REF = map_specs(True)["c_reference_disk"]     # reference experiment 6: general V, no drift, trace-one disk
# a window of the blow-up crescent of that disk (near the rim, left of the saddle)
CRESCENT = dict(REF, resolution=[2, 2], max_depth=0, x={"label": "x", "range": ["-63/64", "-61/64"]},
                y={"label": "y", "range": ["-1/8", "0"]})


@pytest.fixture(scope="module")
def search():
    spec = parse_map_spec(REF)
    bc = BasinCells(spec)
    bc.basins()
    return spec, bc


def _grid(bc, target):
    """The (document, GridBasin, regime, bracket) of the search's grid basin into a target of this kind."""
    return next(g for g in bc._grids.basins if g[0]["target"]["target"] == target)


def _cells(bc, irange, jrange, keep):
    """(box, record) of the cells of side 1/96 with i ∈ irange, j ∈ jrange whose record passes ``keep``."""
    out = []
    for i in irange:
        for j in jrange:
            box = (F(i, 96), F(i + 1, 96), F(j, 96), F(j + 1, 96))
            r = bc.certify(box)
            if keep(r):
                out.append((box, r))
    return out


@pytest.fixture(scope="module")
def band_cells(search):
    """Cells between the polynomial basin and the separatrix, certified CLUSTERING by the grid basin into
    the polynomial basin."""
    return _cells(search[1], range(-84, -60), range(-12, 12),
                  lambda r: r.get("kind") == "cell-grid" and r["regime"] == "CLUSTERING")


@pytest.fixture(scope="module")
def crescent_cells(search):
    """Cells in a band of the crescent, certified by the grid basin."""
    return _cells(search[1], range(-96, -88), range(-24, 24), lambda r: r.get("kind") == "cell-grid")


def _sigma0_in(box, rng):
    """Σ₀ = ½[[1 + x, y], [y, 1 − x]] at a random point of the cell (floats)."""
    x = float(box[0]) + rng.random() * float(box[1] - box[0])
    y = float(box[2]) + rng.random() * float(box[3] - box[2])
    return np.array([[(1 + x) / 2, y / 2], [y / 2, (1 - x) / 2]])


def _rhs(spec):
    pairs, _F = flow_pairs(spec.problem_at(0, 0), None)
    V = np.array([[float(pairs[0][0][i, j]) for j in range(2)] for i in range(2)])
    A = np.array([[float(pairs[0][1][i, j]) for j in range(2)] for i in range(2)])

    def rhs(_t, y):
        S = y.reshape(2, 2)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    return rhs, V, A


def test_a_growth_region_and_a_grid_basin_are_found(search):
    _spec, bc = search
    kinds = sorted(doc["target"]["target"] for doc, _grid, _regime, _b in bc._grids.basins)
    assert kinds == ["cluster", "region"]
    doc, grid, regime, bracket = _grid(bc, "region")
    assert regime == "BLOWUP" and F(bracket[0]) > 0 and F(bracket[1]) > F(bracket[0])
    doc, grid, regime, bracket = _grid(bc, "cluster")
    assert regime == "CLUSTERING" and bracket is None and "L" in doc["target"]


def test_growth_region_is_invariant_and_growing_in_floats(search):
    """Float checks independent of the exact ones: c ≥ c_lo on sampled points of R, and the flow enters R
    across its boundary (∇G_i·g < 0 where G_i ≈ 0 on R)."""
    spec, bc = search
    doc = _grid(bc, "region")[0]["target"]
    _rhs_f, V, A = _rhs(spec)
    inside = float_inside(doc)
    g = np.linspace(-1, 1, 801)
    P = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
    P = P[(P ** 2).sum(1) <= 1]
    R = P[inside(P)]
    assert len(R) > 50

    def field(Q):
        X = np.stack([np.stack([(1 + Q[:, 0]) / 2, Q[:, 1] / 2], -1), np.stack([Q[:, 1] / 2, (1 - Q[:, 0]) / 2], -1)], -2)
        H = V @ X @ A @ X
        Qm = H + np.swapaxes(H, -1, -2)
        c = Qm[:, 0, 0] + Qm[:, 1, 1]
        Y = Qm - c[:, None, None] * X
        return np.stack([Y[:, 0, 0] - Y[:, 1, 1], 2 * Y[:, 0, 1]], -1), c

    gR, cR = field(R)
    assert cR.min() >= float(F(doc["c_lo"])) - 1e-12
    for terms in doc["G"]:
        coef = {(int(i), int(j)): float(F(c)) for i, j, c in terms}
        val = sum(c * R[:, 0] ** i * R[:, 1] ** j for (i, j), c in coef.items())
        edge = np.abs(val) < 2e-3
        grad = np.stack([coef.get((1, 0), 0.0) + 0 * R[:, 0], coef.get((0, 1), 0.0) + 0 * R[:, 0]], -1)
        assert ((grad * gR).sum(1)[edge] < 0).all()


def test_region_check_rejects_a_wrong_region(search):
    spec, bc = search
    doc = copy.deepcopy(_grid(bc, "region")[0]["target"])
    doc["c_lo"] = "1"                            # c ≥ 1 on R is false
    with pytest.raises(CertificationFailed):
        RegionTarget(bc.checker.field, bc.checker.pairs, doc, lambda m: (_ for _ in ()).throw(CertificationFailed(m)))
    doc = copy.deepcopy(_grid(bc, "region")[0]["target"])
    doc["G"] = doc["G"][:2]                      # no cap: the region runs into the saddle, where c·flow fails
    with pytest.raises(CertificationFailed):
        RegionTarget(bc.checker.field, bc.checker.pairs, doc, lambda m: (_ for _ in ()).throw(CertificationFailed(m)))


def test_grid_cells_pass_the_checker(search, crescent_cells):
    """Every crescent cell passes; its bracket, from the cell's own largest L, lies inside the bracket of
    the whole basin (L ≤ ℓ), and is much narrower for some cells."""
    spec, bc = search
    assert len(crescent_cells) >= 20
    ck = GridCellChecker(spec)
    whole = _grid(bc, "region")[3]
    for box, r in crescent_cells:
        claim = ck.check(cell_of(r, box))
        assert claim.params["T_lo"] == r["T_lo"] and claim.params["T_hi"] == r["T_hi"]
        assert F(r["T_lo"]) >= F(whole[0]) * (1 - F(1, 10 ** 6)) and F(r["T_hi"]) <= F(whole[1])
    assert min(F(r["T_hi"]) for _b, r in crescent_cells) < F(whole[1]) / 10 ** 20


def test_grid_cells_blow_up_in_float_integrations_inside_their_bracket(search, crescent_cells):
    """From random interior points of certified BLOWUP cells, an independent float integration (DOP853,
    the matrix flow, not the projective field) blows up, no earlier than T_lo."""
    spec, _bc = search
    rhs, _V, _A = _rhs(spec)
    rng = random.Random(5)
    for box, r in rng.sample(crescent_cells, 6):
        S0 = _sigma0_in(box, rng)

        def big(_t, s):
            return abs(s[0]) + abs(s[3]) - 1e8
        big.terminal = True
        sol = solve_ivp(rhs, (0, 1e4), S0.ravel(), method="DOP853", rtol=1e-10, atol=1e-12, events=big)
        assert sol.status == 1, "no blow-up seen"
        t_star = sol.t_events[0][0]
        assert t_star >= float(F(r["T_lo"])) and t_star <= float(F(r["T_hi"]))


def test_band_cells_pass_the_checker_and_cluster_in_float_integrations(search, band_cells):
    """The clustering side of the separatrix band: every grid cell passes the checker, and from random
    interior points an independent float integration (LSODA, the matrix flow) stays bounded and becomes
    rank one."""
    spec, _bc = search
    assert len(band_cells) >= 10
    ck = GridCellChecker(spec)
    for box, r in band_cells:
        assert ck.check(cell_of(r, box)).params == {"rank": 1}
    rhs, _V, _A = _rhs(spec)
    rng = random.Random(7)
    for box, _r in rng.sample(band_cells, 6):
        S0 = _sigma0_in(box, rng)
        sol = solve_ivp(rhs, (0, 400), S0.ravel(), method="LSODA", rtol=1e-10, atol=1e-13)
        S = sol.y[:, -1].reshape(2, 2)
        assert sol.status == 0 and np.all(np.isfinite(S)) and np.abs(S).max() < 1e6
        w = np.linalg.eigvalsh((S + S.T) / 2)
        assert w[0] < 1e-5 * w[1] and w[1] > 0


def test_tampered_grid_cells_are_rejected(search, crescent_cells):
    spec, bc = search
    box, r = crescent_cells[len(crescent_cells) // 2]
    good = cell_of(r, box)
    basin = good["certificate"]["data"]["basin"]
    i0, i1, j0, j1 = basin["window"]

    def bad(mutate):
        cell = copy.deepcopy(good)
        mutate(cell)
        with pytest.raises(CertificationFailed):
            GridCellChecker(spec).check(cell)

    # the level raised far above the values: the decrease fails somewhere below it
    bad(lambda c: c["certificate"]["data"]["basin"].update(level="100000"))
    # a hole in L: one vertex of the basin set to 0 breaks the decrease around it
    def hole(c):
        vals = c["certificate"]["data"]["basin"]["values"]
        top = F(c["certificate"]["data"]["basin"]["level"]) / F(c["certificate"]["data"]["basin"]["scale"])
        k = next((a, b) for a in range(1, len(vals) - 1) for b in range(1, len(vals[0]) - 1)
                 if 2 * 4096 < vals[a][b] < top)
        vals[k[0]][k[1]] = 0
    bad(hole)
    bad(lambda c: c.update(T_lo=str(F(c["T_lo"]) * 2)) or c["certificate"]["data"].update(T_lo=c["T_lo"]))
    bad(lambda c: c["certificate"]["data"]["basin"].update(eps="0"))
    # the growth function: a dip in Φ breaks Φ' ≤ c around it; Φ without its scale; Φ dropped (the
    # bracket without it is wider than the stored one)
    assert "phi" in basin

    grid = GridCellChecker(spec).grid(basin)
    *_r, bi, bj = grid._ray_boxes[len(grid._ray_boxes) // 2]

    def dip(c):
        c["certificate"]["data"]["basin"]["phi"][bi - i0][bj - j0] -= 40 * 4096
    bad(dip)
    bad(lambda c: c["certificate"]["data"]["basin"].pop("phi_scale"))
    bad(lambda c: c["certificate"]["data"]["basin"].pop("phi") and c["certificate"]["data"]["basin"].pop("phi_scale"))
    bad(lambda c: c["certificate"]["data"]["basin"].update(window=[i0, i1 + 1, j0, j1]))
    bad(lambda c: c["certificate"]["data"]["basin"]["target"].update(c_lo="1"))
    bad(lambda c: c.update(regime="CLUSTERING"))
    # the same certificate moved onto a clustering cell
    moved = copy.deepcopy(good)
    moved["box"] = ["1/2", "13/24", "0", "1/24"]
    with pytest.raises(CertificationFailed):
        GridCellChecker(spec).check(moved)


def test_map_stores_a_grid_basin_once_and_checks_it():
    doc = run_map(CRESCENT)
    grid_cells = [c for c in doc["cells"] if (c.get("certificate") or {}).get("kind") == "cell-grid"]
    assert grid_cells and len(doc["shared"]) == 1
    sha = next(iter(doc["shared"]))
    assert all(c["certificate"]["data"]["basin"] == {"$shared": sha} for c in grid_cells)
    assert check_map(doc)["cells_checked"] == len([c for c in doc["cells"] if c["status"] in ("PROVED", "OUTSIDE")])
    # a shared object that does not hash to its name
    bad = copy.deepcopy(doc)
    bad["shared"][sha]["level"] = "100000"
    with pytest.raises(CertificationFailed, match="hash"):
        check_map(bad)
    # renamed consistently: then the kind's checker rejects the basin itself
    import hashlib
    import json
    obj = bad["shared"].pop(sha)
    new = hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    bad["shared"][new] = obj
    for c in bad["cells"]:
        if (c.get("certificate") or {}).get("kind") == "cell-grid":
            c["certificate"]["data"]["basin"] = {"$shared": new}
    with pytest.raises(CertificationFailed):
        check_map(bad)
    # a reference to nothing
    bad = copy.deepcopy(doc)
    grid = next(c for c in bad["cells"] if (c.get("certificate") or {}).get("kind") == "cell-grid")
    grid["certificate"]["data"]["basin"] = {"$shared": "0" * 64}
    with pytest.raises(CertificationFailed):
        check_map(bad)


def test_grid_basin_rejects_malformed_values(search):
    _spec, bc = search
    doc = copy.deepcopy(_grid(bc, "region")[0])
    doc["values"] = doc["values"][:-1]
    with pytest.raises(CertificationFailed):
        GridBasin(bc.checker.field, bc.checker.pairs, doc, lambda m: (_ for _ in ()).throw(CertificationFailed(m)))
