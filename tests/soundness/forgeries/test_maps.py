"""Forgeries of regime-map documents (``symtf check`` on a map): consistent multi-field edits —
cells, points and totals changed together, totals recomputed as a forger would — each shown
false independently (closed forms of docs/mathematics.md §4 through tests/soundness/oracle.py),
and each rejected with one line naming what failed.  These are the regressions of the holes the
review found: cells that do not tile the box, point verdicts not bound to their point, OUTSIDE
cells carrying a regime, and free-text claims never compared."""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.regimes.maps import check_map, run_map, totals
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec
from symbolic_tf.spec.problem import parse_problem

from ..oracle import closed_form_Tstar

SLICE_A = {"family": "parameter", "resolution": [4, 4], "max_depth": 1,
           "x": {"range": [-1, 1]}, "y": {"range": [-1, 1]},
           "problem": {"variant": "softmax", "d": 2, "A": [["x", "1/2"], ["-1/4", "y"]], "V": [[1, 0], [0, 1]],
                       "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}}
DISK = {"family": "cov-disk", "resolution": [8, 8], "max_depth": 0,
        "problem": {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]}}


@pytest.fixture(scope="module")
def map_a():
    m = run_map(SLICE_A)
    check_map(m)
    return m


@pytest.fixture(scope="module")
def disk():
    m = run_map(DISK)
    check_map(m)
    return m


def _spec(doc):
    return parse_map_spec({k: v for k, v in doc["spec"].items() if k != "schema"})


def _retotal(doc):
    """What a forger does after editing cells: recompute the totals so they match."""
    doc["totals"] = totals(_spec(doc), doc["cells"])
    return doc


def _rejected(doc, pattern):
    with pytest.raises(CertificationFailed, match=pattern) as exc:
        check_map(doc)
    assert "\n" not in str(exc.value)


def _problem_at(doc, x, y):
    return _spec(doc).problem_at(Fraction(x), Fraction(y))


def _global_at(doc, x, y) -> bool:
    """Independent: with V = I, Σ(t) = (Σ₀⁻¹ − t(A + Aᵀ))⁻¹ is global iff A + Aᵀ ⪯ 0 on Σ₀'s
    range (the closed form's T* = ∞); A + Aᵀ ⪯ 0 itself is read off numerically."""
    p = _problem_at(doc, x, y)
    A = np.array([[float(Fraction(str(a))) for a in r] for r in p.A])
    return closed_form_Tstar(p) == math.inf or np.linalg.eigvalsh(A + A.T).max() <= 1e-12


def test_repeated_leaves_do_not_tile(map_a):
    """Every CLUSTERING and UNDECIDED leaf replaced by copies of one BLOWUP leaf of the same level:
    the area sum still equals the box and the totals say BLOWUP on 100 %.  False at (−0.9, −0.9)."""
    assert _global_at(map_a, "-9/10", "-9/10")
    bad = copy.deepcopy(map_a)
    for lv in {c["id"][0] for c in bad["cells"]}:
        donor = next((c for c in bad["cells"] if c["id"][0] == lv and c["regime"] == "BLOWUP"), None)
        assert donor is not None
        bad["cells"] = [copy.deepcopy(donor) if c["id"][0] == lv and c["regime"] != "BLOWUP" else c
                        for c in bad["cells"]]
    _retotal(bad)
    assert bad["totals"]["fraction_by_regime"] == {"BLOWUP": 1.0}
    _rejected(bad, r"appears twice")


def test_leaf_outside_the_grid(map_a):
    """A leaf of a wider map (its id beyond the grid) in place of a leaf of this one."""
    bad = copy.deepcopy(map_a)
    k = next(k for k, c in enumerate(bad["cells"]) if c["id"][0] == 0)
    lv, i, j = bad["cells"][k]["id"]
    bad["cells"][k]["id"] = [lv, i + 4, j]
    _rejected(_retotal(bad), r"not a cell of the map's grid")
    bad["cells"][k]["id"] = [5, i, j]    # deeper than max_depth
    _rejected(_retotal(bad), r"not a cell of the map's grid")


@pytest.fixture(scope="module")
def unrelated_blowup():
    """A genuine BLOWUP certificate of another problem (general V, A = I)."""
    from symbolic_tf.certify.search._lmi import find_blowup_certificate

    return find_blowup_certificate(parse_problem(
        {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, "1/10"], [0, 1]],
         "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}})).evidence["certificate"]


def _small_cell_map():
    """A 1-cell map of slice (a) on [−1/4, 0]²: its centre (−1/8, −1/8) has A + Aᵀ ⪯ 0."""
    spec = {**SLICE_A, "resolution": [1, 1], "max_depth": 0, "x": {"range": ["-1/4", 0]}, "y": {"range": ["-1/4", 0]}}
    return run_map(spec)


def test_point_verdict_bound_to_its_point(unrelated_blowup):
    """A genuine certificate of an unrelated problem as the point verdict at (−1/8, −1/8):
    "PROVED BLOWUP" where the V = I closed form says the solution is global."""
    m = _small_cell_map()
    check_map(m)
    assert _global_at(m, "-1/8", "-1/8")
    bad = copy.deepcopy(m)
    cert = unrelated_blowup
    bad["cells"][0]["point"] = {"x": "-1/8", "y": "-1/8", "status": "PROVED", "regime": "BLOWUP", "route": "classify",
                                "T_lo": cert["claim"]["params"]["T_lo"], "T_hi": cert["claim"]["params"]["T_hi"],
                                "certificate": cert}
    _rejected(_retotal(bad), r"does not decide the map's problem at \(-1/8, -1/8\)")


def test_proved_point_without_a_certificate(map_a):
    m = copy.deepcopy(map_a)
    c = next(c for c in m["cells"] if "point" in c)
    x, y = c["point"]["x"], c["point"]["y"]
    c["point"] = {"x": x, "y": y, "status": "PROVED", "regime": "BLOWUP", "route": "classify", "T_lo": "1"}
    _rejected(_retotal(m), r"a PROVED point needs a certificate")
    c["point"]["route"] = "cell-riccati-vI"
    _rejected(_retotal(m), r"a PROVED point needs a certificate")


def test_point_not_at_its_cell(map_a):
    m = copy.deepcopy(map_a)
    c = next(c for c in m["cells"] if "point" in c)
    c["point"]["x"] = "7/8"
    _rejected(m, r"is not the cell's centre")


def test_outside_cells_carry_no_regime(disk):
    """The four corner cells of a V = A = I cov-disk map (Σ₀ not PSD there) relabelled
    "CLUSTERING, rank 1": every Σ₀ ≻ 0 of this problem blows up (A + Aᵀ ≻ 0)."""
    corners = [c for c in disk["cells"] if c["status"] == "OUTSIDE"]
    assert len(corners) >= 4
    for u, w in ((0, 0), ("1/2", "1/3"), ("-9/10", 0)):   # independent: finite T* at PD points
        assert closed_form_Tstar(_problem_at(disk, u, w)) < math.inf
    bad = copy.deepcopy(disk)
    for c in bad["cells"]:
        if c["status"] == "OUTSIDE":
            c["regime"], c["rank"] = "CLUSTERING", 1
    _retotal(bad)
    assert "CLUSTERING" in bad["totals"]["area_by_regime"]
    _rejected(bad, r"an OUTSIDE cell must say regime OUTSIDE")


def test_outside_point_and_undecided_regime(disk):
    bad = copy.deepcopy(disk)
    c = next(c for c in bad["cells"] if c["status"] == "UNDECIDED")
    c["regime"] = "BLOWUP"
    _rejected(_retotal(bad), r"an UNDECIDED cell states regime BLOWUP")


def test_free_text_claim_is_compared(map_a):
    """A BLOWUP cell whose claim sentence says the opposite (the regime field untouched)."""
    bad = copy.deepcopy(map_a)
    c = next(c for c in bad["cells"] if c["regime"] == "BLOWUP")
    c["claim"] = "for every point of the cell: the solution is global and Σ(t) converges to a limit"
    _rejected(bad, r"the claim text is not the derived claim")


def test_relabelled_cell_with_consistent_fields(map_a):
    """A CLUSTERING cell relabelled BLOWUP with a bracket and a rendered claim (all consistent),
    its certificate data unchanged: the argument (via) decides the regime, not the label."""
    from symbolic_tf.certify.check.claims import Claim, Quantifier

    bad = copy.deepcopy(map_a)
    c = next(c for c in bad["cells"] if c["regime"] == "CLUSTERING" and c["status"] == "PROVED")
    x0, x1, y0, y1 = (Fraction(b) for b in c["box"])
    assert _global_at(bad, (x0 + x1) / 2, (y0 + y1) / 2)
    c.pop("rank", None)
    c.update(regime="BLOWUP", T_lo="1", T_hi="2",
             claim=Claim("BLOWUP", Quantifier.EVERY_IN_CELL, {"T_lo": "1", "T_hi": "2"}).text())
    _rejected(_retotal(bad), r"the cell says BLOWUP, the certificate proves CLUSTERING")


def test_cell_of_unknown_kind(map_a):
    bad = copy.deepcopy(map_a)
    c = next(c for c in bad["cells"] if c["status"] == "PROVED")
    c["certificate"]["kind"] = "blowup-lmi"
    _rejected(bad, r"unknown cell certificate kind")


def test_forged_map_is_refused_by_the_cli(map_a, tmp_path):
    """`symtf check` on a forged map: exit 1 and one `REJECTED:` line naming the failure."""
    import json
    import subprocess
    import sys

    bad = copy.deepcopy(map_a)
    c = next(c for c in bad["cells"] if c["regime"] == "BLOWUP")
    bad["cells"].append(copy.deepcopy(c))
    path = tmp_path / "forged_map.json"
    path.write_text(json.dumps(_retotal(bad)), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("REJECTED:") and "appears twice" in lines[0], r.stderr


def test_spec_hash_names_the_embedded_spec(map_a):
    """The map's spec_hash (what a resumed run and a reader use to name the slice) must be the
    embedded spec's: cells of slice (a) filed under another spec's hash are refused."""
    bad = copy.deepcopy(map_a)
    bad["spec_hash"] = "0" * 64
    _rejected(bad, r"spec_hash is not the SHA-256 of the embedded spec")
