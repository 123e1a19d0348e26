"""Forgeries of ``cell-tube-param`` (kinds/cell_tube_param.py), the whole-cell tube with the map's parameters
as state, as a standalone cell certificate data = {"spec", "cell"}: one forgery per declared hypothesis, each
consistent in every other field (the cell's claim sentence and the certificate's claim re-rendered, the spec
hash recomputed), the reviewer's moves (the certificate moved to a neighbouring cell, a wider box), and a
soundness cross-check of the claim against float integrations at interior points of the cell.

Genuine certificate (committed, tests/soundness/forgeries/data/; ``_regenerate()`` rebuilds it with the cell
search, a few seconds):

* ``cell-tube-param-collapse.json`` — F = [[x, 1/2], [−1/2, x]], A = [[y, 1], [−1, −1]], V = [[1, 1/2],
  [−1/4, 1]], Σ₀ = I (examples/map_general_v_drift.toml), cell [−2, −63/32] × [63/32, 2]: A + Aᵀ is indefinite,
  so no trace functional proves rank-0 clustering for every Σ₀, but the tube from Σ₀ = I × the cell enters the
  collapse set {tr(PΣ) < λ/c} of the drift at every point of the cell: CLUSTERING of rank 0.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from .cellforge import load, recell, save
from .forge import accepts, rejects

DRIFT = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 0]}, "y": {"range": [0, 2]},
         "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [-1, -1]], "V": [[1, "1/2"], ["-1/4", 1]],
                     "F": [["x", "1/2"], ["-1/2", "x"]], "b": [0, 0],
                     "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
BOX = ("-2", "-63/32", "63/32", "2")


def standalone(spec_doc: dict, box) -> dict:
    """The standalone certificate of the cell search's record for one box."""
    from types import SimpleNamespace

    from symbolic_tf.certify.check import declaration
    from symbolic_tf.certify.check.certificate import Certificate
    from symbolic_tf.certify.check.kinds.cell_tube_param import KIND
    from symbolic_tf.certify.search.cell_tube_param import ParamCells
    from symbolic_tf.spec.mapspec import parse_map_spec

    r = ParamCells(parse_map_spec(copy.deepcopy(spec_doc)), seconds=20).certify(tuple(Fraction(b) for b in box))
    assert r["status"] == "PROVED" and r["kind"] == KIND, r
    cell = {"box": list(box), "status": "PROVED", "regime": r["regime"], "claim": r["claim"],
            "certificate": {"kind": KIND, "argument": r["argument"], "data": r["data"]}}
    for key in ("rank", "T_lo", "T_hi"):
        if r.get(key) is not None:
            cell[key] = r[key]
    data = {"spec": spec_doc, "cell": cell}
    status, claim = declaration(KIND).derive(SimpleNamespace(kind=KIND, status="PROVED", data=data), None)
    return Certificate(kind=KIND, claim=claim, status=status, data=data).to_dict()


def _regenerate():
    """Rebuild the committed genuine certificate (run by hand)."""
    save("cell-tube-param-collapse", standalone(DRIFT, BOX), compact=True)


@pytest.fixture(scope="module")
def collapse():
    c = load("cell-tube-param-collapse")
    accepts(c)
    return c


def test_the_committed_genuine_certificate_still_checks(collapse):
    assert collapse["claim"]["subject"] == "CLUSTERING" and collapse["claim"]["params"]["rank"] == 0
    assert collapse["claim"]["quantifier"] == "every point of the cell"
    assert collapse["data"]["cell"]["certificate"]["data"]["end"] == "tube-collapse"


# --- the slice ----------------------------------------------------------------------------------------
def test_a_sigma0_slice(collapse):
    """The coordinates moved into Σ₀ (parameters fixed): not a parameter slice."""
    def sigma0_only(s):
        s["problem"].update(A=[[0, 1], [-1, -1]], F=[[-1, 0], [0, -1]])
        s["problem"]["initial"]["cov"] = [["2 + x/2", 0], [0, "2 + y"]]
        s["family"] = "cov"
    rejects(recell(collapse, spec=sigma0_only), "parameter tubes need a parameter slice")


# --- the cell -----------------------------------------------------------------------------------------
def test_moved_to_a_neighbouring_cell(collapse):
    """The data moved to the cell at x ∈ [−3/4, −23/32] (a weaker drift): the stored tube from that cell does
    not reach the collapse set (or the drift inequality fails there)."""
    rejects(recell(collapse, cell=lambda c: c.update(box=["-3/4", "-23/32", "63/32", "2"])),
            "fails on the cell|not inside|does not validate")


def test_a_wider_box(collapse):
    """The same data on a box 16 times as wide, containing the genuine cell."""
    rejects(recell(collapse, cell=lambda c: c.update(box=["-2", "-3/2", "3/2", "2"])),
            "fails on the cell|not inside|does not validate")


def test_a_changed_end_datum(collapse):
    """lam doubled (the drift inequality fails), a head bound lowered, c lowered, P skewed."""
    rejects(recell(collapse, data=lambda d: d.update(lam=str(Fraction(d["lam"]) * 2))), "lam·P ⪰ 0 fails")
    rejects(recell(collapse, data=lambda d: d.update(n=[str(Fraction(d["n"][0]) / 2)])), "head bound")
    rejects(recell(collapse, data=lambda d: d.update(c=str(Fraction(d["c"]) / 2))), "c·p_lo² < 2·Σ n_h")

    def skew(d):
        d["P"] = [["1", "0"], ["0", "1/1000"]]
    rejects(recell(collapse, data=skew), "fails|p_lo")


def test_a_tube_cut_short(collapse):
    """The last half of the tube's steps dropped: its end is not in the collapse set."""
    def cut(d):
        d["steps"] = d["steps"][: len(d["steps"]) // 2]
    rejects(recell(collapse, data=cut), "not inside")


def test_a_forged_regime(collapse):
    """The derived regime and rank are never read: rank 0 restated as rank 1, the cell restated as BOUNDED
    and as BLOWUP with a bracket, and an unknown end kind."""
    rejects(recell(collapse, cell=lambda c: c.update(rank=1)), "rank differs")

    def bounded(c):
        c.pop("rank", None)
        c["regime"] = "BOUNDED"
    rejects(recell(collapse, cell=bounded), "the cell says BOUNDED")
    rejects(recell(collapse, data=lambda d: d.update(end="tube-growth")), "unknown end kind")


def test_a_tightened_bracket(collapse):
    """A bracket is only ever the one derived from a ray end: a collapse cell that states T_lo/T_hi is refused."""
    def bracket(c):
        c.update(T_lo="1", T_hi="2")
    rejects(recell(collapse, cell=bracket), "T_lo differs from the derived claim")


# --- the cell kinds' shared hypotheses ----------------------------------------------------------------
def test_a_swapped_claim_sentence(collapse):
    forged = copy.deepcopy(collapse)
    forged["data"]["cell"]["claim"] = forged["data"]["cell"]["claim"].replace("rank 0", "rank 1")
    rejects(forged, "claim text|claim")


def test_an_outside_cell_with_a_regime_claim(collapse):
    def outside(c):
        c["status"] = "OUTSIDE"
        c["certificate"]["data"] = {"z": ["1", "0"]}
    rejects(recell(collapse, cell=outside), "zᵀΣ₀z ≤ 0 fails")


def test_a_certificate_of_another_kind(collapse):
    rejects(recell(collapse, kind="cell-tube"), "whole-cell tubes need a slice of Σ₀ only|kind")


# --- soundness: the claim against float integrations ----------------------------------------------------
@pytest.mark.heavy   # five oracle integrations, ≈ 7 s
def test_float_integrations_inside_the_cell_collapse(collapse):
    """At the centre and near the corners of the certified cell, the float solution from Σ₀ = I decays to 0
    (the claim: CLUSTERING of rank 0 at every point of the cell)."""
    from symbolic_tf.spec.mapspec import parse_map_spec

    from ..oracle import simulate
    from .cellforge import cell_points

    spec = parse_map_spec(collapse["data"]["spec"])
    for x, y in cell_points(collapse):
        r = simulate(spec.problem_at(x, y), 8.0)
        assert r.status == "reached", r
        assert float(np.abs(r.Sigma).max()) < 1e-6, (x, y, r.Sigma)


def test_the_lifted_ends_agree_with_the_point_kinds_on_a_degenerate_cell():
    """On a box of one point the ball heads are the exact heads, so the lifted collapse bounds accept the data the
    cell search built, and the parameter tube replays exactly like the constant-parameter tube of that point."""
    import flint

    from symbolic_tf.certify.check.kinds.cell_tube_param import ParamTubeChecker
    from symbolic_tf.certify.check.param_tube import param_start, sigma_block
    from symbolic_tf.certify.check.tube_replay import Field, flow_pairs, replay_step, start_state
    from symbolic_tf.exact.precision import working_precision
    from symbolic_tf.spec.mapspec import parse_map_spec

    spec = parse_map_spec(copy.deepcopy(DRIFT))
    chk = ParamTubeChecker(spec)
    x, y = flint.fmpq(-3, 2), flint.fmpq(1, 2)
    pairs, F = flow_pairs(spec.problem_at(Fraction(-3, 2), Fraction(1, 2)), pytest.fail)
    with working_precision(128):
        st = param_start(chk.field, chk.S0, (x, x, y, y))
        pt = start_state(Field(pairs, F), chk.S0)
        for _ in range(16):
            st = replay_step(chk.field, st, flint.arb(flint.fmpq(1, 64)), 12, "qr")
            pt = replay_step(Field(pairs, F), pt, flint.arb(flint.fmpq(1, 64)), 12, "qr")
        a, b = sigma_block(st.box, 2), pt.box
        for i in range(2):
            for j in range(2):
                assert a[i, j].overlaps(b[i, j])
                assert float(a[i, j].rad()) < 1e-12 and float(b[i, j].rad()) < 1e-12
