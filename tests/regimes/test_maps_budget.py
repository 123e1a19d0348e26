"""Regime maps as a user meets them: a time budget leaves a valid partial map whose undone cells
claim nothing, a resumed run ends with the map of an uninterrupted run, the progress bar's
certified fraction is the map's, each reason clause is said once, point verdicts are in the legend."""
import copy
import json

import pytest

from symbolic_tf.regimes import maps
from symbolic_tf.regimes.maps import BUDGET_REASON, RESUME_FILE, check_map, run_map, said_once, totals
from symbolic_tf.spec.errors import CertificationFailed, InvalidParameters
from symbolic_tf.spec.mapspec import parse_map_spec

# softmax, V = I (whole cells by the pencil route): a map of ~0.1 s with blow-up, clustering, undecided
SPEC = {"family": "parameter", "name": "budget test", "resolution": [4, 4], "max_depth": 2,
        "x": {"label": "A11", "range": [-1, 1]}, "y": {"label": "A22", "range": [-1, 1]},
        "problem": {"variant": "softmax", "d": 2, "A": [["x", "1/2"], ["-1/4", "y"]], "V": [[1, 0], [0, 1]],
                    "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}}


def _strip(doc):
    d = copy.deepcopy(doc)
    d.pop("run")
    return json.dumps(d, sort_keys=True)


@pytest.fixture(scope="module")
def full():
    return run_map(SPEC)


def _ticking(monkeypatch):
    """A clock that advances one second at each reading: a budget of B seconds ends after a fixed
    number of readings, so the cut is the same on every machine."""
    t = [0.0]

    def clock():
        t[0] += 1.0
        return t[0]

    monkeypatch.setattr(maps, "_clock", clock)


def _budget_cells(doc):
    return [c for c in doc["cells"] if c.get("reason") == BUDGET_REASON]


def _cut(tmp_path, monkeypatch, budget=6):
    _ticking(monkeypatch)
    part = run_map(SPEC, tmp_path, chunk_size=4, task_cells=0, budget=budget)
    monkeypatch.undo()
    return part


def test_a_cut_run_is_a_valid_partial_map_and_resumes_to_the_full_map(tmp_path, monkeypatch, full):
    part = _cut(tmp_path, monkeypatch)
    undone = _budget_cells(part)
    assert not part["run"]["complete"] and part["run"]["cells_budget"] == len(undone) > 0
    # what it certified is certified (the checker re-derives it); the undone cells claim nothing
    r = check_map(part)
    assert r["cells"] == len(part["cells"]) and r["cells_checked"] > 0
    assert all(c["status"] == c["regime"] == "UNDECIDED" and not set(c) & {"certificate", "claim", "point"}
               for c in undone)
    # every cell the cut run did finish is a leaf of the full map, with the same record
    full_cells = {tuple(c["id"]): c for c in full["cells"]}
    done = [c for c in part["cells"] if c.get("reason") != BUDGET_REASON]
    assert done and all(full_cells.get(tuple(c["id"])) == c for c in done)
    # the budget cells and the finished ones tile the box; the certified area is a part of the full map's
    assert 0 < float(part["totals"]["area_decided"].split("/")[0]) and \
        part["totals"]["decided_fraction"] < full["totals"]["decided_fraction"]
    # resumed (with the chunking stored in resume.json, no option repeated): the uninterrupted map
    written = [json.loads(f.read_text()) for f in (tmp_path / "chunks").glob("L*.json")]
    again = run_map(SPEC, tmp_path, resume=True)
    assert again["run"]["complete"] and again["run"]["cells_budget"] == 0
    assert again["run"]["cells_resumed"] == sum(len(w["results"]) for w in written) > 0
    assert _strip(again) == _strip(full)


def test_a_zero_budget_computes_nothing_and_claims_nothing(tmp_path, full):
    part = run_map(SPEC, tmp_path, budget=0)
    nx, ny = SPEC["resolution"]
    assert part["run"]["cells_computed"] == 0 and part["totals"]["decided_fraction"] == 0
    assert sorted(tuple(c["id"]) for c in part["cells"]) == [(0, i, j) for i in range(nx) for j in range(ny)]
    assert len(_budget_cells(part)) == nx * ny
    check_map(part)
    assert _strip(run_map(SPEC, tmp_path)) == _strip(full)   # rerunning on the same folder resumes


@pytest.mark.parametrize("forge", ["certificate", "proved", "point", "bracket"])
def test_a_budget_cell_cannot_carry_a_verdict(tmp_path, monkeypatch, full, forge):
    part = _cut(tmp_path, monkeypatch)
    full_cells = {tuple(c["id"]): c for c in full["cells"]}
    bad = copy.deepcopy(part)
    k, cell = next((k, c) for k, c in enumerate(bad["cells"]) if c.get("reason") == BUDGET_REASON
                   and full_cells.get(tuple(c["id"]), {}).get("status") == "PROVED")
    real = full_cells[tuple(cell["id"])]   # the full run's record of the same cell: a valid certificate
    if forge == "certificate":
        cell["certificate"] = real["certificate"]
    elif forge == "proved":   # the genuine PROVED record of that cell, still labelled a budget cell
        bad["cells"][k] = {**real, "reason": BUDGET_REASON}
    elif forge == "point":
        donor = next(c for c in full["cells"] if c.get("point"))
        cell["point"] = donor["point"]
    else:
        cell["T_lo"], cell["T_hi"] = "1", "2"
    spec = parse_map_spec({k: v for k, v in bad["spec"].items() if k != "schema"})
    bad["totals"] = totals(spec, bad["cells"])   # consistent totals: the budget rule must catch it
    with pytest.raises(CertificationFailed, match="time budget did not reach"):
        check_map(bad)


def test_resume_needs_an_earlier_run_of_the_same_spec(tmp_path):
    with pytest.raises(InvalidParameters, match="nothing to resume"):
        run_map(SPEC, tmp_path / "empty", resume=True)
    with pytest.raises(InvalidParameters, match="nothing to resume"):
        run_map(SPEC, None, resume=True)
    run_map(SPEC, tmp_path / "one", budget=0)
    assert json.loads((tmp_path / "one" / RESUME_FILE).read_text())["spec_hash"] == parse_map_spec(SPEC).content_hash()
    other = {**SPEC, "max_depth": 1}
    with pytest.raises(InvalidParameters, match="another spec"):
        run_map(other, tmp_path / "one", resume=True)
    with pytest.raises(InvalidParameters, match="budget"):
        run_map(SPEC, budget=-1)


def test_progress_postfix_shows_the_certified_fraction(capsys, full):
    run_map(SPEC, progress="always")
    err = capsys.readouterr().err
    shown = [float(s.split("%")[0]) for s in err.split("certified ")[1:]]
    assert shown and shown == sorted(shown)   # it only grows
    assert shown[-1] == pytest.approx(100 * full["totals"]["decided_fraction"], abs=0.051)


def test_each_reason_clause_is_said_once():
    clause = "basin certificates need a slice of Σ₀ only"
    assert said_once(f"{clause}; {clause}") == clause
    assert said_once(f"a; {clause}; b; {clause}; a") == f"a; {clause}; b"
    # a "; " inside parentheses belongs to its clause: not split, not dropped
    inner = "lmi-blowup: SDP solver failed (CLARABEL: infeasible; SCS: infeasible)"
    assert said_once(f"{inner}; x; {inner}") == f"{inner}; x"
    assert said_once("tube (p; q); tube (p; r)") == "tube (p; q); tube (p; r)"
    text = "one; two (three; four); five"
    assert said_once(text) == text and said_once("") == ""


def test_the_route_join_states_a_shared_reason_once(monkeypatch):
    from symbolic_tf.certify.search import cell_searches as cs

    why = "basin certificates need a slice of Σ₀ only"
    fake = [cs.CellSearch("k1", 0, lambda s: "first reason", None), cs.CellSearch("k2", 1, lambda s: why, None),
            cs.CellSearch("k3", 2, lambda s: why, None)]
    monkeypatch.setattr(cs, "cell_searches", lambda: fake)
    assert cs.cell_route(None) == (None, f"first reason; {why}")
    # and a map's cells carry their reasons said once
    doc = run_map({**SPEC, "resolution": [2, 2], "max_depth": 0})
    for c in doc["cells"]:
        for reason in (c.get("reason"), (c.get("point") or {}).get("reason")):
            if reason:
                clauses = reason.split("; ")
                assert len(clauses) == len(set(clauses)), reason


def test_point_verdicts_and_every_drawn_mark_have_a_legend_entry(tmp_path, monkeypatch, full):
    from symbolic_tf.plots import _regime_map

    figs = []
    monkeypatch.setattr(_regime_map, "save_figure", lambda fig, stem, formats: figs.append(fig) or [])
    part = _cut(tmp_path, monkeypatch)
    monkeypatch.setattr(_regime_map, "save_figure", lambda fig, stem, formats: figs.append(fig) or [])
    for doc in (full, part):
        _regime_map.regime_map_figure(doc, tmp_path / "m")
        texts = [t.get_text() for t in figs[-1].legends[0].get_texts()]
        points = doc["totals"].get("point_verdicts", {})
        proved = {k: n for k, n in points.items() if k not in ("UNDECIDED", "OUTSIDE")}
        assert proved or doc is part, "the full test map has point verdicts"
        for regime, n in proved.items():
            word = "blow-up" if regime == "BLOWUP" else regime.lower().replace("_", " ")
            assert any(t.startswith(word) and "centre only" in t and f"({n} point" in t for t in texts), texts
        for regime in doc["totals"]["area_by_regime"]:
            if regime not in ("UNDECIDED", "OUTSIDE"):
                word = "blow-up" if regime == "BLOWUP" else regime.lower().replace("_", " ")
                assert any(t.startswith(word) and "whole cell certified" in t for t in texts), texts
        undecided = any(c["status"] == "UNDECIDED" and c.get("reason") != BUDGET_REASON for c in doc["cells"])
        assert any(t.startswith("undecided cell") for t in texts) == undecided
        assert any("time budget" in t for t in texts) == (not doc["run"]["complete"])
        assert all(len(t) > 20 for t in texts)   # an entry explains itself, not one word


def test_cli_budget_then_resume(tmp_path, capsys, full):
    from symbolic_tf.cli import main

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    out = tmp_path / "out"
    assert main(["regime-map", str(spec), "--out", str(out), "--workers", "1", "--budget", "1e-9"]) == 0
    said = capsys.readouterr().out
    assert "the budget of 1e-09 s ended" in said and "--resume" in said
    part = json.loads((out / "map.json").read_text())
    assert not part["run"]["complete"] and len(_budget_cells(part)) == part["run"]["cells_budget"] > 0
    assert (out / "map.png").exists()
    assert main(["check", str(out / "map.json")]) == 0   # a partial map passes `symtf check`
    capsys.readouterr()
    assert main(["regime-map", str(spec), "--out", str(out), "--workers", "1", "--resume", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["complete"]
    assert _strip(json.loads((out / "map.json").read_text())) == _strip(full)
    # bad input: one line, exit 2
    for argv, msg in ((["--resume", "--out", str(tmp_path / "none")], "nothing to resume"),
                      (["--budget", "0"], "must be a finite positive number"),
                      (["--budget", "soon"], "expected a number")):
        assert main(["regime-map", str(spec), "--workers", "1", *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and msg in err[0], err


# the general-V slice: no whole-cell argument, every cell a point verdict (classify, ~1 s each)
GENERAL_V = {"family": "parameter", "name": "general V", "resolution": [2, 2], "max_depth": 0,
             "x": {"range": [-2, 2]}, "y": {"range": [-1, 1]},
             "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [-1, -1]], "V": [[1, "x"], [0, 1]],
                         "initial": {"cov": [[1, 0], [0, 1]]}}}


def test_a_task_past_its_deadline_certifies_one_cell_and_no_further(monkeypatch):
    from symbolic_tf.regimes import classify

    class Undecided:
        def to_dict(self):
            return {"status": "UNDECIDED", "regime": "UNDECIDED", "reason": "stub"}

    seen = []
    monkeypatch.setattr(classify, "classify", lambda problem, *a, **k: seen.append(problem) or Undecided())
    doc = parse_map_spec(GENERAL_V).to_dict()
    cells = [(0, i, j) for i in range(2) for j in range(2)]
    for res in (maps.certify_chunk(doc, cells, deadline=0.0), maps.certify_subtree(doc, cells, 256, deadline=0.0)):
        assert [tuple(r["id"]) for r in res] == cells
        # the first cell is done (every task makes progress), the others are "budget" cells
        assert res[0]["point"]["reason"] == "stub" and res[0]["reason"] != BUDGET_REASON
        assert all(r["reason"] == BUDGET_REASON and r["status"] == "UNDECIDED" and "point" not in r for r in res[1:])
    assert len(seen) == 2


def test_a_task_cut_inside_is_written_and_resumed_from_its_cells_not_done(tmp_path, monkeypatch, full):
    """The driver's side of a task the deadline cut: its records of cells not done are leaves of
    the partial map (UNDECIDED "budget"), its chunk file keeps them, and a resumed run certifies
    those cells only and ends with the full map (the cut is simulated on the first task: its
    second half is left undone)."""
    real, calls, cut = maps.certify_subtree, [], []

    def cut_first(spec_doc, cells, budget=0, bracket_ratio=None, deadline=None, *rest):
        res = real(spec_doc, cells, budget, bracket_ratio, deadline, *rest)
        calls.append(list(cells))
        if cut:
            return res
        cut.append(True)
        n, spec = len(cells) // 2, parse_map_spec(SPEC)
        return res[:n] + [{"id": list(c), "box": [str(b) for b in maps.cell_box(spec, *c)], "status": "UNDECIDED",
                           "regime": "UNDECIDED", "reason": BUDGET_REASON} for c in cells[n:]]

    monkeypatch.setattr(maps, "certify_subtree", cut_first)
    part = run_map(SPEC, tmp_path, chunk_size=4, task_cells=0, budget=3600)
    first = calls[0]
    assert {tuple(c["id"]) for c in _budget_cells(part)} == set(first[len(first) // 2:])
    assert part["run"]["cells_budget"] == len(first) - len(first) // 2 and not part["run"]["complete"]
    check_map(part)
    kept = json.loads((tmp_path / "chunks" / "L00_00000.json").read_text())["results"]
    assert sum(r.get("reason") == BUDGET_REASON for r in kept) == len(first) - len(first) // 2
    calls.clear()
    again = run_map(SPEC, tmp_path, resume=True)
    monkeypatch.undo()
    # the cut task goes on with the cells it did not reach, and nothing else is computed again but
    # their refinements (cells inside them)
    left = first[len(first) // 2:]
    assert calls[0] == left
    assert all((0, i >> lv, j >> lv) in left for cells in calls for lv, i, j in cells)
    assert again["run"]["cells_computed"] == sum(len(c) for c in calls)
    assert _strip(again) == _strip(full)
