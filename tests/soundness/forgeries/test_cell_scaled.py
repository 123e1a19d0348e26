"""Forgeries of ``cell-scaled`` (kinds/cell_scaled.py), the standalone scaled-disk cell certificate
data = {"spec", "cell"}: one forgery per declared hypothesis, each consistent in every other field (the cell's
claim sentence and the certificate's claim re-rendered, the spec hash recomputed).

Genuine certificates are built by the search in the module fixtures (the two-ray flow of
tests/certify/test_cell_basin.py, ``RAY``: its disk basins take ≈ 15 s to build): a BLOWUP cell of the Σ₀ slice
[[1, y], [y, x]] whose directions lie in cell-basin disk cells, and a disk-growth cell of the map of issue 49.
"""
from __future__ import annotations

import copy
from fractions import Fraction
from types import SimpleNamespace

import pytest

from symbolic_tf.certify.check import declaration
from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check.kinds.cell_scaled import KIND, ScaledCellChecker
from symbolic_tf.certify.check.cells import OUTSIDE_TEXT
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec

from .cellforge import recell
from .forge import accepts, rejects

pytestmark = pytest.mark.heavy

PROBLEM = {"variant": "softmax", "d": 2, "A": [["-5/4", "1/4"], [-3, -1]], "V": [["-5/4", "-3/2"], ["-7/4", -1]]}
SLICE = {"family": "cov", "resolution": [4, 4], "max_depth": 0, "x": {"range": ["1/2", 2]},
         "y": {"range": ["-1/2", "1/2"]},
         "problem": {**PROBLEM, "initial": {"mean": [0, 0], "cov": [[1, "y"], ["y", "x"]]}}}
GROWTH = {"family": "cov", "resolution": [2, 2], "max_depth": 0, "x": {"range": ["1/10", 2]},
          "y": {"range": ["1/10", 2]},
          "problem": {"variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/3", "1/4"]], "V": [[1, 1], [-1, 1]],
                      "initial": {"mean": [0, 0], "cov": [["x", 0], [0, "y"]]}}}
DISK = {"family": "cov-disk", "resolution": [8, 8], "max_depth": 0, "problem": PROBLEM}


def _standalone(spec_doc, box):
    from symbolic_tf.certify.search.cell_scaled import ScaledCells

    r = ScaledCells(parse_map_spec(spec_doc)).certify(tuple(Fraction(b) for b in box))
    assert r["status"] == "PROVED" and r["kind"] == KIND, r
    cell = {"box": [str(b) for b in box], "status": "PROVED", "regime": r["regime"], "claim": r["claim"],
            "certificate": {"kind": KIND, "data": r["data"]}}
    for k in ("rank", "T_lo", "T_hi"):
        if r.get(k) is not None:
            cell[k] = r[k]
    data = {"spec": spec_doc, "cell": cell}
    status, claim = declaration(KIND).derive(SimpleNamespace(kind=KIND, status="PROVED", data=data), None)
    return Certificate(kind=KIND, claim=claim, status=status, data=data).to_dict()


@pytest.fixture(scope="module")
def genuine():
    c = _standalone(SLICE, ("1/2", "7/8", "0", "1/4"))
    accepts(c)
    assert all(e["kind"] == "cell-basin" for e in c["data"]["cell"]["certificate"]["data"]["disk"])
    return c


@pytest.fixture(scope="module")
def growth():
    c = _standalone(GROWTH, ("1/10", "1/2", "1/10", "1/2"))
    accepts(c)
    return c


def _disk(d):
    return d["disk"]


# --- the problem class ------------------------------------------------------------------------------
def test_a_parameter_varying_over_the_cell(genuine):
    rejects(recell(genuine, spec=lambda s: s["problem"].update(V=[["2 + x", "-1/2"], ["1/3", "-1/8"]])),
            "varies only the initial Gaussian|slice of Σ₀ only")


def test_a_drift(genuine):
    """A small drift F = I/100: Q + FΣ + ΣFᵀ is not homogeneous, the reduction to the disk fails."""
    rejects(recell(genuine, spec=lambda s: s["problem"].update(F=[["1/100", 0], [0, "1/100"]])), "without drift")


# --- the scale, the disk cells, the cover, the bracket ----------------------------------------------
def test_a_wrong_scale_range(genuine):
    """The stored trace range widened, narrowed or swapped."""
    for scale in (["1/4", "23/8"], ["7/4", "15/8"], ["23/8", "3/2"]):
        rejects(recell(genuine, data=lambda d, s=scale: d.update(scale=s)), "scale is not the range")


def test_a_disk_certificate_moved_to_a_neighbouring_box(genuine):
    """A disk cell's box moved away from its basin (off the disk's certified part), widened to the whole disk."""
    def moved(d):
        e = _disk(d)[0]
        e["box"] = ["-1", "-3/4", "-1/4", "0"]        # near the repelling point of the disk
    rejects(recell(genuine, data=moved), "disk entry 0 .* does not verify")

    def wider(d):
        _disk(d)[0]["box"] = ["-1", "1", "-1", "1"]
    rejects(recell(genuine, data=wider), "disk entry 0 .* does not verify")


def test_a_cell_moved_or_widened(genuine):
    """The whole certificate moved to a neighbouring cell (scale and bracket recomputed by the forger, so that
    only the cover fails) and to a wider box."""
    ck = ScaledCellChecker(parse_map_spec(SLICE))
    from symbolic_tf.certify.check.kinds.cell_scaled import scale_range
    import flint

    def move(box):
        def cell(c):
            c["box"] = box
            s_min, s_max = scale_range(ck.cov, tuple(flint.fmpq(Fraction(b).numerator, Fraction(b).denominator)
                                                     for b in box), lambda m: None)
            d = c["certificate"]["data"]
            d["scale"] = [str(s_min), str(s_max)]
            lo = min(Fraction(e["T_lo"]) for e in d["disk"]) / Fraction(str(s_max))
            hi = max(Fraction(e["T_hi"]) for e in d["disk"]) / Fraction(str(s_min))
            d["T_lo"], d["T_hi"] = str(lo), str(hi)
            c["T_lo"], c["T_hi"] = str(lo), str(hi)
        return cell
    rejects(recell(genuine, cell=move(["1/2", "7/8", "-1/2", "-1/4"])), "do not cover the cell's directions")
    rejects(recell(genuine, cell=move(["1/2", "2", "-1/2", "1/2"])), "do not cover the cell's directions")


def test_a_disk_cover_with_a_gap(genuine):
    """The disk cell's box shrunk to half its width (still a genuine, verified disk cell): a gap in the cover."""
    def shrunk(d):
        e = _disk(d)[0]
        u0, u1 = Fraction(e["box"][0]), Fraction(e["box"][1])
        e["box"][1] = str((u0 + u1) / 2)
        e["claim"] = e["claim"]
    forged = recell(genuine, data=shrunk)
    rejects(forged, "do not cover the cell's directions")


def test_entries_of_two_regimes(genuine, monkeypatch):
    """A second verified entry proving another regime (CLUSTERING of rank 1): the cell proves no one regime.  The
    two-ray flow has no clustering basin, so the second entry's verification is stood in for by the checker's own
    result for it."""
    real = ScaledCellChecker._entry

    def entry(self, k, e, grids):
        got = real(self, k, e, grids)
        return ("CLUSTERING", {"rank": 1}, got[2]) if k == 1 else got
    monkeypatch.setattr(ScaledCellChecker, "_entry", entry)
    rejects(recell(genuine, data=lambda d: d["disk"].append(copy.deepcopy(d["disk"][0]))), "one regime")


def test_a_bracket_not_rescaled(genuine, growth):
    """The disk's trace-one bracket copied without the rescaling by the cell's trace range; T_lo = 0."""
    for cert in (genuine, growth):
        d = cert["data"]["cell"]["certificate"]["data"]
        ents = d["disk"]
        if ents[0]["kind"] == "disk-growth":
            lo, hi = 1 / Fraction(ents[0]["c_hi"]), 1 / Fraction(ents[0]["c_lo"])
        else:
            lo, hi = min(Fraction(e["T_lo"]) for e in ents), max(Fraction(e["T_hi"]) for e in ents)

        def unscaled(c, lo=lo, hi=hi):
            c.update(T_lo=str(lo), T_hi=str(hi))
            c["certificate"]["data"].update(T_lo=str(lo), T_hi=str(hi))
        rejects(recell(cert, cell=unscaled), "does not contain the rescaled one")
    rejects(recell(growth, cell=lambda c: (c.update(T_lo="0"), c["certificate"]["data"].update(T_lo="0"))),
            "does not contain the rescaled one")


def test_a_growth_entry_that_does_not_hold(growth):
    """c_lo raised above the least growth rate on the disk (≈ 1/15); a negative c_lo."""
    rejects(recell(growth, data=lambda d: d["disk"][0].update(c_lo="1/10")), "leaves \\[c_lo, c_hi\\]")
    rejects(recell(growth, data=lambda d: d["disk"][0].update(c_lo="-1")), "0 < c_lo")


def test_a_rim_cell_claiming_every_point(genuine):
    """On the flow's own disk (a cov-disk spec, trace one) a cell across the circle is certified for its points
    where Σ₀ ≻ 0; restated for every point of the cell it is refused."""
    rim = _standalone(DISK, ("-1/4", "0", "3/4", "1"))
    assert rim["claim"]["quantifier"] == "every point of the cell where Σ₀ ≻ 0"
    rejects(recell(rim, pd_only=False), "covers only the cell's points where Σ₀ ≻ 0")


# --- words -----------------------------------------------------------------------------------------
def test_a_swapped_claim_sentence(genuine, growth):
    forged = copy.deepcopy(genuine)
    forged["data"]["cell"]["claim"] = growth["data"]["cell"]["claim"]
    rejects(forged, "claim text is not the derived claim|T_lo differs")


def test_an_outside_cell_with_a_regime_claim(genuine):
    rejects(recell(genuine, cell=lambda c: c.update(status="UNDECIDED")), "carries no certificate")
    ck = ScaledCellChecker(parse_map_spec(DISK))
    outside = {"box": ["1", "9/8", "-1/8", "1/8"], "status": "OUTSIDE", "regime": "OUTSIDE", "claim": OUTSIDE_TEXT,
               "certificate": {"kind": KIND, "data": {"z": ["0", "1"]}}}
    assert ck.check(outside) is None
    for edit, pattern in ((dict(rank=1), "states no rank or bracket"), (dict(regime="BLOWUP"), "must say regime OUTSIDE")):
        with pytest.raises(CertificationFailed, match=pattern):
            ck.check({**outside, **edit})


def test_a_certificate_of_another_kind(genuine):
    rejects(recell(genuine, kind="cell-basin"), "is not cell-scaled")
