"""Point verdicts of a basin map decided by the map's own cell kind on the degenerate box {(x, y)}
(symbolic_tf.regimes.maps: POINT_KINDS, the thinning of point classifications): the map checks, each such
point is the cell kind's verdict at that point (float integrations from the point agree: the blow-up time
inside the bracket), and forged points are rejected."""
import copy
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.regimes import maps
from symbolic_tf.spec.errors import CertificationFailed

pytestmark = pytest.mark.heavy   # the basins of the slice are built once (~8 s of CPU)

# the ray slice of tests/certify/test_cell_basin.py: two attracting blow-up rays on the trace-one disk
RAY = {"family": "cov-disk", "resolution": [4, 4], "max_depth": 0,
       "problem": {"variant": "softmax", "d": 2, "A": [["-5/4", "1/4"], [-3, -1]],
                   "V": [["-5/4", "-3/2"], ["-7/4", -1]]}}


@pytest.fixture(scope="module")
def ray_map():
    # stride 64: no classification at all (every point is the cell kind's or UNDECIDED, never classify's)
    return maps.run_map(RAY, point_stride=64)


def _kind_points(doc):
    return [c for c in doc["cells"] if (c.get("point") or {}).get("route") in maps.POINT_KINDS]


def test_points_by_the_cell_kind_check_and_hold(ray_map):
    """Every point the cell kind decides passes check_map; a float integration from Σ₀ at the point blows up
    inside the point's bracket; the points the thinning skipped are UNDECIDED with the stated reason."""
    doc = ray_map
    assert maps.check_map(doc)["points_checked"] == len(_kind_points(doc)) > 0
    V = np.array([[-1.25, -1.5], [-1.75, -1.0]])
    A = np.array([[-1.25, 0.25], [-3.0, -1.0]])

    def rhs(_t, y):
        S = y.reshape(2, 2)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    def big(_t, y):
        return 1e8 - np.abs(y).max()

    big.terminal = True
    for c in _kind_points(doc):
        p = c["point"]
        u, w = float(F(p["x"])), float(F(p["y"]))
        S0 = np.array([[(1 + u) / 2, w / 2], [w / 2, (1 - u) / 2]])
        assert p["regime"] == "BLOWUP"
        sol = solve_ivp(rhs, (0, 2 * float(F(p["T_hi"])) + 1), S0.ravel(), events=big, rtol=1e-9, atol=1e-12)
        # |Σ| = 10⁸ is reached within ~10⁻⁸ of T* (ṫr Σ grows like tr Σ²)
        assert sol.status == 1 and float(F(p["T_lo"])) * 0.999 <= sol.t[-1] <= float(F(p["T_hi"]))
    for c in doc["cells"]:
        p = c.get("point")
        if p is not None and p["route"] == "classify" and p["status"] == "UNDECIDED":
            assert p["reason"] == maps.POINT_SKIPPED


def test_forged_kind_points_are_rejected(ray_map):
    """A point's regime, bracket or claim changed, the point moved off the centre, its certificate given to
    another cell's point, or a wrong route name: the map is rejected."""
    doc = ray_map
    cells = _kind_points(doc)
    k = doc["cells"].index(cells[0])

    def forged(edit):
        bad = copy.deepcopy(doc)
        edit(bad["cells"][k]["point"], bad)
        return bad

    edits = [
        lambda p, d: p.update(regime="CLUSTERING"),
        lambda p, d: p.update(T_lo=p["T_hi"]),
        lambda p, d: p.update(claim=p["claim"] + " "),
        lambda p, d: p.update(x=maps.frac_str(F(p["x"]) + F(1, 1024))),
        lambda p, d: p.update(route="cell-tube"),
        lambda p, d: p.update(route="classify"),
    ]
    # the certificate of a point outside every basin (a cell whose point the kind did not decide)
    other = next((c for c in doc["cells"] if c.get("point") and c["point"]["status"] == "UNDECIDED"), None)
    if other is not None:
        def move(p, d):
            target = next(c for c in d["cells"] if c["id"] == other["id"])
            target["point"] = {**p, "x": other["point"]["x"], "y": other["point"]["y"]}
        edits.append(move)
        k_other = doc["cells"].index(other)
    for n, edit in enumerate(edits):
        bad = forged(edit)
        if n == len(edits) - 1 and other is not None:
            bad["totals"] = maps.totals(maps.parse_map_spec({k: v for k, v in doc["spec"].items() if k != "schema"}),
                                        bad["cells"])
            assert bad["cells"][k_other]["point"]["status"] == "PROVED"
        with pytest.raises(CertificationFailed):
            maps.check_map(bad)


def test_point_stride_is_validated():
    from symbolic_tf.spec.errors import InvalidParameters

    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidParameters):
            maps.run_map(RAY, point_stride=bad)
