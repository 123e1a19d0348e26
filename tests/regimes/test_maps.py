"""Regime maps: every cell certificate re-checks, decided cells agree with the point
classifier and high-precision integration, resumption, process pool and Dask give the same map."""
import copy
import json
from fractions import Fraction as Fr

import pytest

from symbolic_tf.regimes.crosscheck import crosscheck
from symbolic_tf.regimes.executors import ProcessExecutor, make_executor
from symbolic_tf.regimes.maps import MapInterrupted, check_map, run_map
from symbolic_tf.spec.errors import CertificationFailed

SPEC_A = {"family": "parameter", "name": "test (a)", "resolution": [4, 4], "max_depth": 3,
          "x": {"label": "A11", "range": [-1, 1]}, "y": {"label": "A22", "range": [-1, 1]},
          "problem": {"variant": "softmax", "d": 2, "A": [["x", "1/2"], ["-1/4", "y"]], "V": [[1, 0], [0, 1]],
                      "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}}
SPEC_B = {"family": "parameter", "name": "test (b)", "resolution": [4, 4], "max_depth": 2,
          "x": {"range": [-1, 1]}, "y": {"range": [-1, 1]},
          "problem": {"variant": "softmax", "d": 2, "A": [["x", 0], [0, "x"]], "V": [[1, 0], [0, 1]],
                      "F": [["y", 0], [0, "y"]], "initial": {"cov": [[1, 0], [0, "1/2"]]}}}


def _strip(doc):
    d = copy.deepcopy(doc)
    d.pop("run")
    return json.dumps(d, sort_keys=True)


@pytest.fixture(scope="module")
def map_a():
    return run_map(SPEC_A)


def test_map_a_certificates_recheck(map_a):
    t = map_a["totals"]
    assert Fr(t["area_covered"]) == 4 and t["decided_fraction"] > 0.95  # 32×32-equivalent: the boundary cells are ~3%
    assert set(t["area_by_regime"]) <= {"BLOWUP", "CLUSTERING", "UNDECIDED"}
    r = check_map(map_a)
    assert r["cells_checked"] == sum(c["status"] == "PROVED" for c in map_a["cells"])
    # refinement leaves the undecided cells at the minimum size, along the boundary
    side = Fr(2, 4 * 2 ** 3)
    assert all(Fr(c["box"][1]) - Fr(c["box"][0]) == side for c in map_a["cells"] if c["status"] == "UNDECIDED")
    # the theory boundary λ_max(A + Aᵀ) = 0 (Σ₀ ≻ 0): CLUSTERING cells have x, y < 0 strictly inside
    for c in map_a["cells"]:
        if c["regime"] == "CLUSTERING" and c["status"] == "PROVED":
            assert Fr(c["box"][1]) <= 0 and Fr(c["box"][3]) <= 0


def test_map_tampering_is_caught(map_a):
    bad = copy.deepcopy(map_a)
    i = next(i for i, c in enumerate(bad["cells"]) if c["regime"] == "CLUSTERING" and c["status"] == "PROVED")
    j = next(j for j, c in enumerate(bad["cells"]) if c["regime"] == "BLOWUP")
    bad["cells"][i]["box"], bad["cells"][j]["box"] = bad["cells"][j]["box"], bad["cells"][i]["box"]
    with pytest.raises(CertificationFailed, match="does not match its id"):
        check_map(bad)
    bad = copy.deepcopy(map_a)
    bad["cells"][j]["regime"] = "CLUSTERING"
    with pytest.raises(CertificationFailed, match="the cell says CLUSTERING, the certificate proves BLOWUP"):
        check_map(bad)
    bad["totals"] = map_a["totals"] | {}
    from symbolic_tf.regimes.maps import totals
    from symbolic_tf.spec.mapspec import parse_map_spec

    spec = {k: v for k, v in bad["spec"].items() if k != "schema"}
    bad["totals"] = totals(parse_map_spec(spec), bad["cells"])
    with pytest.raises(CertificationFailed, match="the cell says CLUSTERING, the certificate proves BLOWUP"):
        check_map(bad)
    bad = copy.deepcopy(map_a)
    bad["totals"]["area_decided"] = "0"
    with pytest.raises(CertificationFailed, match="totals"):
        check_map(bad)
    bad = copy.deepcopy(map_a)
    bad["cells"].pop()
    with pytest.raises(CertificationFailed, match="cover"):
        check_map(bad)


@pytest.mark.slow
def test_decided_cells_agree_with_point_classifier_and_integration(map_a):
    recs = crosscheck(map_a, n=6, seed=3)
    assert len(recs) == 6 and all(r["agree"] for r in recs), recs
    mb = run_map(SPEC_B)
    assert {"EQUILIBRIUM", "CLUSTERING", "BLOWUP"} <= set(mb["totals"]["area_by_regime"])
    check_map(mb)
    recs = crosscheck(mb, n=6, seed=4)
    assert all(r["agree"] for r in recs), recs


def test_resume_after_interruption_gives_the_same_map(tmp_path, map_a):
    # one level per task (task_cells=0): the whole map is many small chunks
    with pytest.raises(MapInterrupted):
        run_map(SPEC_A, tmp_path, chunk_size=8, max_new_chunks=3, task_cells=0)
    assert len(list((tmp_path / "chunks").glob("*.json"))) == 3
    with pytest.raises(MapInterrupted):
        run_map(SPEC_A, tmp_path, chunk_size=8, max_new_chunks=2, task_cells=0)
    files = list((tmp_path / "chunks").glob("*.json"))
    assert len(files) == 5
    resumed = run_map(SPEC_A, tmp_path, chunk_size=8)
    # a chunk file holds its cells and the refinements its task ran: all of them are read back
    assert resumed["run"]["cells_resumed"] == sum(len(json.loads(f.read_text())["results"]) for f in files)
    assert _strip(resumed) == _strip(map_a)
    # tasks that refine inside the worker: their chunk files hold several levels, resumed alike
    sub = tmp_path / "sub"
    with pytest.raises(MapInterrupted):
        run_map(SPEC_A, sub, chunk_size=4, max_new_chunks=3, task_cells=40)
    files = list((sub / "chunks").glob("*.json"))
    assert len({r["id"][0] for f in files for r in json.loads(f.read_text())["results"]}) > 1
    resumed = run_map(SPEC_A, sub, chunk_size=4, task_cells=40)
    assert resumed["run"]["cells_resumed"] == sum(len(json.loads(f.read_text())["results"]) for f in files)
    assert _strip(resumed) == _strip(map_a)


def test_stale_chunks_are_recomputed(tmp_path, map_a):
    run_map(SPEC_A, tmp_path, chunk_size=16, max_new_chunks=None)
    f = sorted((tmp_path / "chunks").glob("L00_*.json"))[0]
    doc = json.loads(f.read_text())
    doc["spec_hash"] = "0" * 64  # a chunk of another spec is never trusted
    f.write_text(json.dumps(doc))
    again = run_map(SPEC_A, tmp_path, chunk_size=16)
    assert again["run"]["cells_computed"] == len(doc["results"])  # the chunk and the refinements its task ran
    assert _strip(again) == _strip(map_a)


def test_process_pool_gives_the_same_map(map_a):
    with ProcessExecutor(2) as ex:
        m = run_map(SPEC_A, executor=ex, chunk_size=16)
    assert m["run"]["workers"] == 2 and _strip(m) == _strip(map_a)


def test_dask_local_cluster_gives_the_same_map(map_a):
    pytest.importorskip("dask.distributed")
    with make_executor(dask_local=2) as ex:
        assert ex.name == "dask"
        m = run_map(SPEC_A, executor=ex, chunk_size=32)
    assert _strip(m) == _strip(map_a)


def test_general_V_slice_is_certified_through_a_grid_basin_into_a_ray():
    """General V, no drift, a Σ₀ slice whose trace varies: the homogeneity reduction (cell-scaled) applies; this
    flow's trace-one disk has no polynomial basin and c = tr Q(X) changes sign on it, but a grid basin into its
    blow-up ray's ellipsoid certifies every cell BLOWUP, and a float integration from each cell's centre blows up
    inside the cell's bracket."""
    import numpy as np
    from scipy.integrate import solve_ivp

    spec = {"family": "cov", "resolution": [2, 2], "max_depth": 3,
            "x": {"label": "s", "range": [1, 2]}, "y": {"label": "c", "range": [0, "1/2"]},
            "problem": {"variant": "softmax", "d": 2, "A": [[1, 0], [0, -1]], "V": [[2, 1], [0, 1]],
                        "initial": {"mean": [0, 0], "cov": [["x", "y"], ["y", 1]]}}}
    m = run_map(spec)
    assert m["route"] == "cell-scaled"
    assert len(m["cells"]) == 4 and all(c["status"] == "PROVED" and c["regime"] == "BLOWUP" for c in m["cells"])
    check_map(m)
    V, A = np.array([[2.0, 1.0], [0.0, 1.0]]), np.diag([1.0, -1.0])

    def rhs(_t, y):
        H = V @ y.reshape(2, 2) @ A @ y.reshape(2, 2)
        return (H + H.T).ravel()

    def big(_t, y):
        return 1e12 - np.abs(y).max()

    big.terminal = True
    for c in m["cells"]:
        x0, x1, y0, y1 = (float(Fr(b)) for b in c["box"])
        x, y = (x0 + x1) / 2, (y0 + y1) / 2
        sol = solve_ivp(rhs, (0, 50), np.array([x, y, y, 1.0]), method="LSODA", rtol=1e-10, atol=1e-13, events=big)
        assert sol.t_events[0].size == 1
        assert float(Fr(c["T_lo"])) <= sol.t_events[0][0] <= float(Fr(c["T_hi"]))


def test_chunks_certify_the_same_cells_whatever_their_grouping():
    """certify_chunk batches its cells (one stacked float search, then the max-depth centres at once):
    a chunk's records equal those of the cells certified one at a time, point verdicts included."""
    from symbolic_tf.regimes.maps import certify_chunk

    doc = dict(SPEC_A, max_depth=1)
    cells = [(0, i, j) for i in range(4) for j in range(4)] + [(1, i, j) for i in (2, 3, 4, 5) for j in (3, 4)]
    batch = certify_chunk(doc, cells)
    assert batch == [certify_chunk(doc, [c])[0] for c in cells]
    assert any("point" in r for r in batch)  # undecided max-depth cells carry a centre verdict


def test_map_does_not_depend_on_chunking_or_task_size(map_a):
    """However the cells are grouped into tasks (chunk size, refinement inside a task or not,
    serial or two processes), the map is the same, byte for byte, and so are the cell counts."""
    runs = [run_map(SPEC_A, chunk_size=cs, task_cells=tc) for cs, tc in ((None, 0), (1, 0), (3, 7), (8, 10 ** 6))]
    with ProcessExecutor(2) as ex:
        runs += [run_map(SPEC_A, executor=ex, chunk_size=5, task_cells=tc) for tc in (0, 40)]
    for m in runs:
        assert _strip(m) == _strip(map_a)
        assert m["run"]["cells_computed"] == map_a["run"]["cells_computed"]
        assert m["run"]["levels"] == map_a["run"]["levels"] == SPEC_A["max_depth"] + 1


def test_subtree_task_records_are_those_of_its_cells_alone():
    """certify_subtree certifies a chunk, then the children of its split cells level by level while
    the budget allows: its records are exactly the cells' own records (certify_chunk), and it stops
    at the first level that would exceed the budget."""
    from symbolic_tf.regimes.maps import certify_chunk, certify_subtree

    doc = dict(SPEC_A, max_depth=3)
    cells = [(0, i, j) for i in range(4) for j in range(4)]
    one = certify_subtree(doc, cells, 0)
    assert one == certify_chunk(doc, cells)
    whole = certify_subtree(doc, cells, 10 ** 6)
    assert whole == certify_chunk(doc, [tuple(r["id"]) for r in whole])
    assert {r["id"][0] for r in whole} == {0, 1, 2, 3}
    # the budget is a cap on the cells certified: each prefix of levels that fits is taken whole
    sizes = [sum(r["id"][0] == lv for r in whole) for lv in range(4)]
    for budget in sorted({max(0, sum(sizes[:n]) + d) for n in range(1, 5) for d in (-1, 0)}):
        got = certify_subtree(doc, cells, budget)
        k = max(n for n in range(1, 5) if n == 1 or sum(sizes[:n]) <= budget)
        assert len(got) == sum(sizes[:k]) and got == whole[:len(got)]
