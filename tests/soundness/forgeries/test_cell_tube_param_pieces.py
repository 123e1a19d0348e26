"""Forgeries of the ``cell-tube-param`` sub-tubes (end ``pieces``: kinds/cell_tube_param.py ``ParamTubeChecker.derive``,
``common_verdict``), as a standalone cell certificate data = {"spec", "cell"}: the reviewer's moves (the certificate
moved to a neighbouring cell, a wider box), a quarter missing or added, the pieces nested too deep, an unknown field,
a forged rank, the common verdict of disagreeing pieces, and a soundness cross-check of the claim against float
integrations at interior points of the cell.

Genuine certificate (committed, tests/soundness/forgeries/data/; ``_regenerate()`` rebuilds it with the cell search,
a few seconds):

* ``cell-tube-param-pieces.json`` — the fresh drift map examples/map_drift_seed4903.toml (V = [[1, −1], [5/4, 3/2]],
  A = [[−7/4, 1/4], [1/2, y]], F = [[x, 1/4], [0, x]], Σ₀ = I), level-0 cell [−21/8, −9/4] × [1/4, 1/2]: no trace
  functional holds for every Σ₀ and the single tube from Σ₀ × the cell is too wide to reach the collapse set, but each
  quarter of the cell has its own tube into the collapse set {tr(PΣ) < λ/c} of the drift: CLUSTERING of rank 0 at
  every point of the cell.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from .cellforge import load, recell, save
from .forge import accepts, rejects

DRIFT4903 = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-3, 0]},
             "y": {"range": [-1, 1]},
             "problem": {"variant": "softmax", "d": 2, "A": [["-7/4", "1/4"], ["1/2", "y"]],
                         "V": [[1, -1], ["5/4", "3/2"]], "F": [["x", "1/4"], [0, "x"]], "b": [0, 0],
                         "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
BOX = ("-21/8", "-9/4", "1/4", "1/2")


def _regenerate():
    """Rebuild the committed genuine certificate (run by hand)."""
    from .test_cell_tube_param import standalone

    save("cell-tube-param-pieces", standalone(DRIFT4903, BOX), compact=True)


@pytest.fixture(scope="module")
def pieces():
    c = load("cell-tube-param-pieces")
    accepts(c)
    return c


def _data(c):
    return c["data"]["cell"]["certificate"]["data"]


def _leaves(d):
    return sum(_leaves(p) for p in d["pieces"]) if d["end"] == "pieces" else 1


def test_the_committed_genuine_certificate_still_checks(pieces):
    d = _data(pieces)
    assert pieces["claim"]["subject"] == "CLUSTERING" and pieces["claim"]["params"]["rank"] == 0
    assert d["end"] == "pieces" and len(d["pieces"]) == 4 and _leaves(d) >= 4


def test_moved_to_a_neighbouring_cell(pieces):
    """The pieces moved one cell to the right (a weaker drift) and one cell up: each quarter's tube starts elsewhere."""
    rejects(recell(pieces, cell=lambda c: c.update(box=["-9/4", "-15/8", "1/4", "1/2"])),
            "fails on the cell|not inside|does not validate")
    rejects(recell(pieces, cell=lambda c: c.update(box=["-21/8", "-9/4", "1/2", "3/4"])),
            "fails on the cell|not inside|does not validate|head bound")


def test_a_wider_box(pieces):
    """The same pieces on a box four times as large containing the genuine cell: each quarter is four times larger."""
    rejects(recell(pieces, cell=lambda c: c.update(box=["-21/8", "-15/8", "1/4", "3/4"])),
            "fails on the cell|not inside|does not validate|head bound")


def test_a_quarter_missing_or_added(pieces):
    """Three pieces (a quarter of the cell uncovered) or five: the partition must be the four quarters."""
    rejects(recell(pieces, data=lambda d: d.update(pieces=d["pieces"][:3])), "one certificate for each")
    rejects(recell(pieces, data=lambda d: d.update(pieces=d["pieces"] + d["pieces"][:1])), "one certificate for each")


def test_pieces_nested_too_deep_or_malformed(pieces):
    """The data wrapped in three more levels of pieces (deeper than the kernel's cap), an unknown field beside the
    pieces, a piece that is not an object, a piece with an unknown end."""
    from symbolic_tf.certify.check.kinds.cell_tube_param import MAX_PIECE_DEPTH

    def deeper(d):
        inner = {k: v for k, v in d.items()}
        for _ in range(MAX_PIECE_DEPTH):
            inner = {"end": "pieces", "pieces": [inner] * 4}
        d.clear()
        d.update(inner)
    rejects(recell(pieces, data=deeper), "nest deeper")
    rejects(recell(pieces, data=lambda d: d.update(split=2)), "split")
    rejects(recell(pieces, data=lambda d: d["pieces"].__setitem__(0, "tube")), "object")
    rejects(recell(pieces, data=lambda d: d["pieces"][0].update(end="tube-magic")), "unknown end kind")


def test_a_forged_regime(pieces):
    """The derived rank and regime are never read."""
    rejects(recell(pieces, cell=lambda c: c.update(rank=1)), "rank differs")

    def blowup(c):
        c.update(regime="BLOWUP", T_lo="1", T_hi="2")
        c.pop("rank", None)
    rejects(recell(pieces, cell=blowup), "CLUSTERING")


def test_the_common_verdict():
    """Pieces that prove different regimes or ranks have no common verdict; blow-up brackets join to their hull
    (T*(p) lies in the bracket of a piece holding p)."""
    from symbolic_tf.certify.check.kinds.cell_tube_param import common_verdict
    from symbolic_tf.spec.errors import CertificationFailed

    def fail(msg):
        raise CertificationFailed(msg)

    with pytest.raises(CertificationFailed, match="verdicts differ"):
        common_verdict([("BLOWUP", {"T_lo": "1", "T_hi": "2"}), ("CLUSTERING", {"rank": 0})], fail)
    with pytest.raises(CertificationFailed, match="ranks differ"):
        common_verdict([("CLUSTERING", {"rank": 0}), ("CLUSTERING", {"rank": 1})], fail)
    r, p = common_verdict([("BLOWUP", {"T_lo": "3/2", "T_hi": "2"}), ("BLOWUP", {"T_lo": "1", "T_hi": "7/4"}),
                           ("BLOWUP", {"T_lo": "5/4", "T_hi": "9/4"})], fail)
    assert r == "BLOWUP" and Fraction(p["T_lo"]) == 1 and Fraction(p["T_hi"]) == Fraction(9, 4)


# --- soundness: the claim against float integrations ----------------------------------------------------
def test_float_integrations_inside_the_cell(pieces):
    """At the centre and near the corners of the cell, Σ(t) from Σ₀ = I decays to 0 (rank-0 clustering)."""
    from scipy.integrate import solve_ivp

    from .cellforge import cell_points

    V = np.array([[1.0, -1.0], [1.25, 1.5]])
    for x, y in cell_points(pieces):
        A = np.array([[-1.75, 0.25], [0.5, float(y)]])
        F = np.array([[float(x), 0.25], [0.0, float(x)]])

        def rhs(_t, s):
            S = s.reshape(2, 2)
            T = V @ S @ A @ S + F @ S
            return (T + T.T).ravel()

        sol = solve_ivp(rhs, (0, 60), np.eye(2).ravel(), method="LSODA", rtol=1e-10, atol=1e-14)
        assert sol.status == 0 and np.trace(sol.y[:, -1].reshape(2, 2)) < 1e-6, (x, y)


# --- the ray end's projective tube: its preconditions ----------------------------------------------------
def test_a_projective_ray_end_needs_its_moving_centre_and_no_drift(pieces):
    """The projective tube of the ray end carries (X, u, t) only for a flow without drift, and its end is the moving
    centre's (a fixed-centre ray end would read X = Σ/tr Σ as Σ): a moving-cluster certificate restated as a
    projective ray end without X_dx, X_dy is refused, and so is a projective ray end on the drift map."""
    from .cellforge import load as load_cert

    moving = load_cert("cell-tube-param-moving-cluster")

    def ray_without_centre(d):
        d.update(end="tube-ray", T_lo="0", T_hi="1")
        d.pop("X_dx")
        d.pop("X_dy")
    rejects(recell(moving, cell=lambda c: (c.update(regime="BLOWUP", T_lo="0", T_hi="1"), c.pop("rank", None)),
                   data=ray_without_centre), "moving centre")

    from symbolic_tf.certify.check.kinds.cell_tube_param import ParamTubeChecker
    from symbolic_tf.spec.errors import CertificationFailed
    from symbolic_tf.spec.mapspec import parse_map_spec

    chk = ParamTubeChecker(parse_map_spec(DRIFT4903))
    box = tuple(Fraction(b) for b in BOX)
    data = {"steps": ["0", "1/64"], "order": 8, "tube_prec": 128, "method": "qr", "space": "projective",
            "kappa": "1", "X_dx": [["0", "0"], ["0", "0"]], "X_dy": [["0", "0"], ["0", "0"]]}
    with pytest.raises(CertificationFailed, match="no drift"):
        chk.end_box(box, data, "tube-ray")
