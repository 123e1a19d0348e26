"""Point classifications under a time budget and blow-up cells kept whole when splitting cannot sharpen their
bracket (symbolic_tf.regimes.maps: point_budget, sharpening_helps; the spec key ``point_budget``)."""
import time
from fractions import Fraction as F

import pytest

from symbolic_tf.regimes import maps
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.mapspec import parse_map_spec

BASE = {"family": "parameter", "resolution": [2, 2], "max_depth": 1, "x": {"range": [-1, 1]}, "y": {"range": [-1, 1]},
        "problem": {"variant": "softmax", "d": 2, "A": [["x", "1/2"], ["-1/4", "y"]], "V": [[1, 0], [0, 1]],
                    "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}


def test_point_budget_key_is_read_exactly_validated_and_kept():
    spec = parse_map_spec({**BASE, "point_budget": "1/2"})
    assert spec.point_budget == F(1, 2)
    assert parse_map_spec({k: v for k, v in spec.to_dict().items() if k != "schema"}).point_budget == F(1, 2)
    # a spec without the key keeps its document (and so its hash: earlier runs' chunks are found again)
    plain = parse_map_spec(BASE)
    assert plain.point_budget is None and "point_budget" not in plain.to_dict()
    assert plain.content_hash() != spec.content_hash()
    for bad in (0, -1, "x", True, 10 ** 6):
        with pytest.raises(InvalidParameters) as exc:
            parse_map_spec({**BASE, "point_budget": bad})
        assert exc.value.field == "point_budget"


def test_point_budget_is_the_spec_s_cut_by_the_map_deadline():
    spec = parse_map_spec({**BASE, "point_budget": 3})
    assert maps.point_budget(spec) == 3.0
    assert maps.point_budget(parse_map_spec(BASE)) == maps.POINT_BUDGET
    now = time.time()
    assert 0.5 < maps.point_budget(spec, now + 1.0) <= 1.0           # one second left: at most one second
    assert maps.point_budget(spec, now - 5.0) == 0.0                  # the deadline has passed: nothing
    assert maps.point_budget(spec, now + 100.0) == 3.0


class _Search:
    """A stand-in search whose verdict at a point is a fixed blow-up bracket [lo, hi] (or none)."""

    def __init__(self, lo, hi, status="PROVED", regime="BLOWUP"):
        self.r = None if lo is None else {"status": status, "regime": regime, "T_lo": maps.frac_str(F(lo)),
                                          "T_hi": maps.frac_str(F(hi))}
        self.asked = []

    def certify_point(self, x, y):
        self.asked.append((x, y))
        return self.r


def test_sharpening_helps_reads_the_bracket_at_the_centre():
    box = (F(0), F(1), F(2), F(4))
    s = _Search(1, 3)
    assert not maps.sharpening_helps(s, box, F(2))          # the centre's own bracket is wider than 2
    assert s.asked == [(F(1, 2), F(3))]                      # asked at the centre, exactly
    assert maps.sharpening_helps(_Search(1, 3), box, F(4))   # a wider ratio: the centre meets it
    assert maps.sharpening_helps(_Search(1, 2), box, F(2))   # T_hi = 2·T_lo meets ratio 2
    assert maps.sharpening_helps(_Search(None, None), box, F(2))               # the centre undecided
    assert maps.sharpening_helps(_Search(1, 9, regime="CLUSTERING"), box, F(2))
    assert maps.sharpening_helps(object(), box, F(2))        # a search without point verdicts
    assert maps.sharpening_helps(_Search(1, 9), box, None)   # no bracket refinement at all


def test_a_final_blowup_cell_is_not_split_an_undecided_final_cell_neither():
    wide = {"status": "PROVED", "regime": "BLOWUP", "T_lo": "1", "T_hi": "10"}
    assert maps._wants_refinement(wide, F(2)) and not maps._wants_refinement({**wide, "final": True}, F(2))
    assert not maps._wants_refinement({"status": "UNDECIDED", "final": True}, F(2))
    assert maps._wants_refinement({"status": "UNDECIDED"}, F(2))


# the ray slice of tests/certify/test_cell_basin.py as a Σ₀ slice of varying trace (examples/cov_slice_two_rays.toml):
# its polynomial basins' brackets are wide (T_hi/T_lo ≫ 2) whatever the cell, so splitting cannot sharpen them
RAYS = {"family": "cov", "resolution": [2, 2], "max_depth": 2, "x": {"range": ["1/2", 2]}, "y": {"range": ["-1/2", "1/2"]},
        "problem": {"variant": "softmax", "d": 2, "A": [["-5/4", "1/4"], [-3, -1]], "V": [["-5/4", "-3/2"], ["-7/4", -1]],
                    "initial": {"mean": [0, 0], "cov": [[1, "y"], ["y", "x"]]}}}


@pytest.mark.heavy   # the flow's disk basins are built once (~8 s of CPU)
def test_wide_blowup_cells_stay_whole_and_scaled_points_check():
    kept = maps.run_map(RAYS, point_stride=64)
    split = maps.run_map(RAYS, point_stride=64, bracket_ratio=None)
    # no split: the same leaves as a map that never refines blow-up cells, marked final; the area is the same
    assert [c["id"] for c in kept["cells"]] == [c["id"] for c in split["cells"]]
    assert all(c["status"] == "PROVED" and c["regime"] == "BLOWUP" and c.get("final") for c in kept["cells"])
    assert all(F(c["T_hi"]) > 2 * F(c["T_lo"]) for c in kept["cells"])
    assert kept["totals"] == split["totals"]
    assert maps.check_map(kept)["cells_checked"] == 4
    # the cell kind at a point: a cell-scaled point verdict, checked on the degenerate box; forgeries rejected
    spec, _pen, search, _reason, _kind = maps._prepared(parse_map_spec(RAYS).to_dict())
    cell = kept["cells"][0]
    pt = maps._point_verdict(spec, None, maps.cell_box(spec, *cell["id"]), search=search, classify_point=False)
    assert pt["route"] == "cell-scaled" and pt["status"] == "PROVED" and pt["regime"] == "BLOWUP"
    cell["point"] = maps._share_point(cell, pt)
    kept["totals"] = maps.totals(spec, kept["cells"])
    assert maps.check_map(kept)["points_checked"] == 1
    import copy

    from symbolic_tf.spec.errors import CertificationFailed

    for edit in (lambda p: p.update(T_lo=p["T_hi"]), lambda p: p.update(regime="CLUSTERING"),
                 lambda p: p.update(x=maps.frac_str(F(p["x"]) + F(1, 64)))):
        bad = copy.deepcopy(kept)
        edit(bad["cells"][0]["point"])
        with pytest.raises(CertificationFailed):
            maps.check_map(bad)
