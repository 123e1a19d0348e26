"""Whole-cell basin certificates (kind ``cell-basin``) on the projective disk of a d = 2 softmax flow
without drift: the exact planar field against the matrix flow, the exact polynomial ranges, the search
(symbolic_tf.certify.search.cell_basin) against the independent checker (symbolic_tf.certify.check.kinds.cell_basin),
soundness against independent float integrations from points of certified cells, tampering, the route."""
import copy
import random
from fractions import Fraction as F

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.search.cell_basin import BasinCells, search_reason
from symbolic_tf.certify.check.kinds.cell_basin import BasinCellChecker, PlanarField, poly_range
from symbolic_tf.certify.check.kinds.cell_grid import GridCellChecker
from symbolic_tf.certify.check.tube_replay import flow_pairs
from symbolic_tf.regimes.maps import cell_route
from symbolic_tf.reproduce.regimes import map_specs
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec
from cellcase import cell_of   # tests/certify/cellcase.py

# its module-scoped fixtures are expensive: keep the module on one xdist worker (--dist loadgroup)
pytestmark = pytest.mark.xdist_group("cell-basin")

REF = map_specs(True)["c_reference_disk"]     # reference experiment 6: general V, no drift, trace-one disk


@pytest.fixture(scope="module")
def search():
    spec = parse_map_spec(REF)
    return spec, BasinCells(spec)


@pytest.fixture(scope="module")
def grid(search):
    """The 12×12 cells of the disk's box, certified."""
    spec, bc = search
    out = []
    n = 12
    for i in range(n):
        for j in range(n):
            box = (F(-1) + F(2 * i, n), F(-1) + F(2 * i + 2, n), F(-1) + F(2 * j, n), F(-1) + F(2 * j + 2, n))
            out.append((box, bc.certify(box)))
    return out


def _float_flow(spec):
    """The float right-hand side Σ̇ = VΣAΣ + ΣAᵀΣVᵀ of the slice's flow (for solve_ivp)."""
    pairs, _F = flow_pairs(spec.problem_at(0, 0), None)
    V = np.array([[float(pairs[0][0][i, j]) for j in range(2)] for i in range(2)])
    A = np.array([[float(pairs[0][1][i, j]) for j in range(2)] for i in range(2)])

    def rhs(_t, y):
        S = y.reshape(2, 2)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    return rhs


def _matrix_field(V, A, X):
    H = V * X * A * X
    Q = H + H.transpose()
    c = Q[0, 0] + Q[1, 1]
    return Q - X * c, c


def test_planar_field_is_the_projective_matrix_flow():
    """g(a, b) = (Y₀₀ − Y₁₁, 2Y₀₁), Y = Q(X) − tr Q(X)·X at X = ½[[1 + a, b], [b, 1 − a]], exactly."""
    rng = random.Random(3)
    for _ in range(20):
        V = flint.fmpq_mat(2, 2, [flint.fmpq(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(4)])
        A = flint.fmpq_mat(2, 2, [flint.fmpq(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(4)])
        pf = PlanarField(V, A)
        for _ in range(5):
            a, b = (flint.fmpq(rng.randint(-40, 40), 37) for _ in range(2))
            X = flint.fmpq_mat([[(1 + a) / 2, b / 2], [b / 2, (1 - a) / 2]])
            Y, c = _matrix_field(V, A, X)
            assert Y[0, 0] + Y[1, 1] == 0                      # the trace-one plane is invariant
            assert pf.g[0](a, b) == Y[0, 0] - Y[1, 1] and pf.g[1](a, b) == 2 * Y[0, 1]
            assert pf.c(a, b) == c


def test_poly_range_encloses_every_value():
    ctx = flint.fmpq_mpoly_ctx.get(("a", "b"), "lex")
    rng = random.Random(5)
    for _ in range(30):
        p = ctx.from_dict({(i, j): flint.fmpq(rng.randint(-50, 50), rng.randint(1, 9))
                           for i in range(5) for j in range(5 - i)})
        x0, y0 = (F(rng.randint(-20, 20), 16) for _ in range(2))
        box = tuple(flint.fmpq(v.numerator, v.denominator) for v in (x0, x0 + F(1, 8), y0, y0 + F(3, 16)))
        lo, hi = poly_range(p, box)
        for _ in range(20):
            x = box[0] + (box[1] - box[0]) * flint.fmpq(rng.randint(0, 64), 64)
            y = box[2] + (box[3] - box[2]) * flint.fmpq(rng.randint(0, 64), 64)
            assert lo <= p(x, y) <= hi


def test_route_reasons():
    assert search_reason(parse_map_spec(REF)) is None
    assert cell_route(parse_map_spec(REF)) == ("cell-basin", None)
    drift = copy.deepcopy(REF)
    drift["problem"]["F"] = [[-1, 0], [0, -1]]
    drift["problem"]["b"] = [0, 0]
    assert "drift" in search_reason(parse_map_spec(drift))
    cov = {"family": "cov", "resolution": [2, 2], "max_depth": 0,
           "x": {"label": "s", "range": [1, 2]}, "y": {"label": "c", "range": [0, "1/2"]},
           "problem": dict(REF["problem"], initial={"mean": [0, 0], "cov": [["x", "y"], ["y", 1]]})}
    assert "trace" in search_reason(parse_map_spec(cov))


def test_basins_are_found_and_every_cell_passes_the_checker(search, grid):
    spec, bc = search
    assert any(b.regime == "CLUSTERING" for b in bc.basins())
    checkers = {"cell-basin": BasinCellChecker(spec), "cell-grid": GridCellChecker(spec)}
    proved = [(box, r) for box, r in grid if r["status"] == "PROVED"]
    assert len(proved) >= 40            # most of the disk's 12×12 cells lie in the certified basin
    for box, r in grid:
        if r["status"] in ("PROVED", "OUTSIDE"):
            claim = checkers[r["kind"]].check(cell_of(r, box))
            assert (claim is None) == (r["status"] == "OUTSIDE")
            if claim is not None:
                assert claim.subject == r["regime"]


def test_certified_cells_agree_with_independent_integration(search, grid):
    """From interior points of CLUSTERING cells the float flow Σ̇ = VΣAΣ + ΣAᵀΣVᵀ stays bounded and
    becomes rank one (the second eigenvalue over the first → 0)."""
    spec, _bc = search
    rhs = _float_flow(spec)
    rng = np.random.default_rng(0)
    checked = 0
    for box, r in grid:
        if r.get("regime") != "CLUSTERING":
            continue
        for _ in range(2):
            x, y = 1.0, 1.0
            while x * x + y * y >= 1:       # a point where Σ₀ ≻ 0 (a cell on the rim claims only those)
                x, y = (float(box[0]) + rng.random() * float(box[1] - box[0]),
                        float(box[2]) + rng.random() * float(box[3] - box[2]))
            S0 = spec.problem_at(F(x), F(y)).exact.Sigma0
            S0 = np.array([[float(S0[i, j]) for j in range(2)] for i in range(2)])
            sol = solve_ivp(rhs, (0, 400), S0.ravel(), method="LSODA", rtol=1e-10, atol=1e-13)
            S = sol.y[:, -1].reshape(2, 2)
            assert sol.status == 0 and np.all(np.isfinite(S)) and np.abs(S).max() < 1e6
            w = np.linalg.eigvalsh(S)
            assert w[0] < 1e-5 * w[1] and w[1] > 0
            checked += 1
    assert checked >= 40


def test_tampering_is_rejected(search, grid):
    spec, _bc = search
    box, r = next((b, r) for b, r in grid if r.get("regime") == "CLUSTERING" and r["kind"] == "cell-basin")
    cell = cell_of(r, box)
    ck = BasinCellChecker(spec)
    ck.check(copy.deepcopy(cell))
    d = cell["certificate"]["data"]

    def bad(edit):
        c = copy.deepcopy(cell)
        edit(c)
        with pytest.raises(CertificationFailed):
            BasinCellChecker(spec).check(c)

    bad(lambda c: c.update(regime="BLOWUP"))
    bad(lambda c: c.update(claim=c["claim"] + " "))
    bad(lambda c: c.update(rank="2"))
    bad(lambda c: c["certificate"]["data"].update(level=str(F(d["level"]) * 1000)))      # a level above the saddle
    bad(lambda c: c["certificate"]["data"].update(eps="1000"))
    bad(lambda c: c["certificate"]["data"].update(depth=2))
    bad(lambda c: c["certificate"]["data"].update(mu=str(F(d["mu"]) * 64)))
    bad(lambda c: c["certificate"]["data"].update(rho_out="4"))
    bad(lambda c: c["certificate"]["data"].update(kappa="100"))
    bad(lambda c: c["certificate"]["data"].update(centre=["0", "0"]))
    bad(lambda c: c["certificate"]["data"].update(target="ray", T_lo="1", T_hi="2"))
    bad(lambda c: c["certificate"]["data"]["L"].__setitem__(0, [0, 0, str(F(d["L"][0][2]) + 1000)]))
    bad(lambda c: c.update(box=["-1", "1", "-1", "1"]))                                      # Σ₀ not PD there


def test_cells_outside_the_basin_are_refused(search, grid):
    """A clustering certificate moved onto a cell whose points blow up (numerically) is rejected."""
    spec, _bc = search
    box, r = next((b, r) for b, r in grid if r.get("regime") == "CLUSTERING" and r["kind"] == "cell-basin")
    cell = cell_of(r, box)
    # x ≈ −0.8, y ≈ 0.3: the blow-up side of the separatrix (float classification)
    cell["box"] = ["-5/6", "-2/3", "1/6", "1/3"]
    with pytest.raises(CertificationFailed):
        BasinCellChecker(spec).check(cell)


RAY = {"family": "cov-disk", "resolution": [8, 8], "max_depth": 0,
       "problem": {"variant": "softmax", "d": 2, "A": [["-5/4", "1/4"], [-3, -1]], "V": [["-5/4", "-3/2"], ["-7/4", -1]]}}


def test_blowup_basin_cells_contain_the_blowup_time():
    """A certified basin of an attracting blow-up ray (found by a random search): every certified cell
    passes the checker, the float blow-up time from interior points lies in the cell's bracket, and a
    bracket that does not contain the derived one is rejected."""
    spec = parse_map_spec(RAY)
    bc = BasinCells(spec)
    assert any(b.regime == "BLOWUP" for b in bc.basins())
    rhs = _float_flow(spec)

    def big(_t, y):
        return 1e12 - np.abs(y).max()

    big.terminal = True
    # a ray no growth region serves also gets a grid basin into its ellipsoid: its cells are checked by their kind
    checkers = {"cell-basin": BasinCellChecker(spec), "cell-grid": GridCellChecker(spec)}
    rng = np.random.default_rng(1)
    n, checked, basin_cell = 8, 0, None
    for i in range(n):
        for j in range(n):
            box = (F(-1) + F(2 * i, n), F(-1) + F(2 * i + 2, n), F(-1) + F(2 * j, n), F(-1) + F(2 * j + 2, n))
            r = bc.certify(box)
            if r.get("regime") != "BLOWUP":
                continue
            cell = cell_of(r, box)
            checkers[r["kind"]].check(cell)
            x, y = (float(box[0]) + rng.random() * float(box[1] - box[0]),
                    float(box[2]) + rng.random() * float(box[3] - box[2]))
            S0 = np.array([[0.5 + x / 2, y / 2], [y / 2, 0.5 - x / 2]])
            sol = solve_ivp(rhs, (0, 50), S0.ravel(), method="LSODA", rtol=1e-10, atol=1e-13, events=big)
            assert sol.t_events[0].size == 1
            assert float(F(r["T_lo"])) <= sol.t_events[0][0] <= float(F(r["T_hi"]))
            checked += 1
            if r["kind"] == "cell-basin":
                basin_cell = cell
    assert checked >= 4
    bad = copy.deepcopy(basin_cell)
    bad["certificate"]["data"]["T_lo"] = bad["T_lo"] = str(F(basin_cell["T_lo"]) * 2)
    with pytest.raises(CertificationFailed):
        BasinCellChecker(spec).check(bad)


def test_rim_cells_claim_only_their_positive_definite_points(search, grid):
    """A cell on the rim of the disk (Σ₀ indefinite on part of it) is certified for its points where
    Σ₀ ≻ 0: the claim says so, the checker derives that quantifier (also for the standalone export), and
    the stronger whole-cell claim on the same data is rejected."""
    from symbolic_tf.certify.check.claims import Quantifier
    from symbolic_tf.certify.check.cells import cell_claim
    from symbolic_tf.certify.check.cells import standalone_cell_claim

    spec, _bc = search
    checkers = {"cell-basin": BasinCellChecker(spec), "cell-grid": GridCellChecker(spec)}
    rim = [(box, r) for box, r in grid if r["status"] == "PROVED"
           and max(x * x + y * y for x in box[:2] for y in box[2:]) > 1]
    assert len(rim) >= 8
    for box, r in rim:
        assert "where Σ₀ ≻ 0" in r["claim"]
        claim = checkers[r["kind"]].check(cell_of(r, box))
        assert claim.quantifier is Quantifier.EVERY_PD_IN_CELL
        whole = cell_of(r, box)
        whole["claim"] = cell_claim(r["regime"], claim.params).text()
        with pytest.raises(CertificationFailed):
            checkers[r["kind"]].check(whole)
    box, r = next((b, r) for b, r in rim if r["kind"] == "cell-basin")

    def fail(msg):
        raise CertificationFailed(msg)
    got = standalone_cell_claim({"spec": REF, "cell": cell_of(r, box)}, lambda s, c: BasinCellChecker(s).check(c), fail)
    assert got.quantifier is Quantifier.EVERY_PD_IN_CELL
    # an interior cell's certificate with the rim's claim text is rejected (its derived claim is stronger)
    inner_box, inner = next((b, r) for b, r in grid if r["status"] == "PROVED" and r["kind"] == "cell-basin"
                            and max(x * x + y * y for x in b[:2] for y in b[2:]) < 1)
    cell = cell_of(inner, inner_box)
    cell["claim"] = cell_claim(inner["regime"], {"rank": 1}, pd_only=True).text()
    with pytest.raises(CertificationFailed):
        BasinCellChecker(spec).check(cell)
