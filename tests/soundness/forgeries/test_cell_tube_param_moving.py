"""Forgeries of the ``cell-tube-param`` ``tube-cluster`` end with a moving centre and a projective tube
(kinds/cell_tube_param.py: ``moving_cluster_end``, ``end_offset_energy``; param_tube.py: ``ProjParamField``), as a
standalone cell certificate data = {"spec", "cell"}: the reviewer's moves (the certificate moved to a neighbouring
cell, a wider box), each new datum changed (the centre's slopes X_dx/X_dy, the level rho, the sub-box count psplit,
the tube's space), and a soundness cross-check of the claim against float integrations at interior points.

Genuine certificate (committed, tests/soundness/forgeries/data/; ``_regenerate()`` rebuilds it with the cell search,
about a second):

* ``cell-tube-param-moving-cluster.json`` — issue 49's map (V = [[1, x], [0, 1]], A = [[y, 1], [−1, −1]], Σ₀ = I),
  cell [3/2, 193/128] × [1/2, 65/128]: the isotropic rank-one line of A + Aᵀ = diag(2y, −2) moves with y (u₂ = ±√y·u₁),
  the ellipsoid's centre follows it (X_dy ≠ 0), and the tube of X = Σ/tr Σ from Σ₀/tr Σ₀ × the cell ends inside the
  moving ellipsoid at every point: CLUSTERING of rank 1.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from .cellforge import load, recell, save
from .forge import accepts, rejects

ISSUE49 = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 2]},
           "y": {"range": [-1, 1]},
           "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [-1, -1]], "V": [[1, "x"], [0, 1]],
                       "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
BOX = ("3/2", "193/128", "1/2", "65/128")


def _regenerate():
    """Rebuild the committed genuine certificate (run by hand)."""
    from .test_cell_tube_param import standalone

    save("cell-tube-param-moving-cluster", standalone(ISSUE49, BOX), compact=True)


@pytest.fixture(scope="module")
def moving():
    c = load("cell-tube-param-moving-cluster")
    accepts(c)
    return c


def _data(c):
    return c["data"]["cell"]["certificate"]["data"]


def test_the_committed_genuine_certificate_still_checks(moving):
    d = _data(moving)
    assert moving["claim"]["subject"] == "CLUSTERING" and moving["claim"]["params"]["rank"] == 1
    assert d["end"] == "tube-cluster" and d["space"] == "projective"
    assert any(Fraction(v) != 0 for row in d["X_dy"] for v in row)   # the centre does move


def test_moved_to_a_neighbouring_cell(moving):
    """The data moved one cell up (y ∈ [65/128, 33/64]) and one cell left: the stored tube starts elsewhere,
    the moving centre's residual or the end test fails there."""
    rejects(recell(moving, cell=lambda c: c.update(box=["3/2", "193/128", "65/128", "33/64"])),
            "not inside|residual|does not validate|isotropic")
    # at x ∈ [−3/2, −191/128] (V₁₂ negative) the flow from Σ₀ = I blows up: the tube there cannot end in the ellipsoid
    rejects(recell(moving, cell=lambda c: c.update(box=["-3/2", "-191/128", "1/2", "65/128"])),
            "not inside|residual|does not validate|isotropic|not positive")


def test_a_wider_box(moving):
    """The same data on a box 16 times as large containing the genuine cell."""
    rejects(recell(moving, cell=lambda c: c.update(box=["3/2", "97/64", "1/2", "33/64"])),
            "not inside|residual|does not validate|isotropic|too wide|MᵀW")


def test_a_changed_slope(moving):
    """The centre's y-slope made 40 times as steep, or reversed and 20 times as steep: X*(p) leaves the isotropic
    line by more than the ellipsoid allows (on a cell this small the unmoved centre, X_dy = 0, also holds)."""
    def steep(d):
        d["X_dy"] = [[str(40 * Fraction(v)) for v in row] for row in d["X_dy"]]
    rejects(recell(moving, data=steep), "residual|not inside|isotropic|MᵀW")

    def reversed_slope(d):
        d["X_dy"] = [[str(-20 * Fraction(v)) for v in row] for row in d["X_dy"]]
    rejects(recell(moving, data=reversed_slope), "residual|not inside|isotropic|MᵀW")

    def skew(d):
        d["X_dx"] = [["0", "1/4"], ["0", "0"]]
    rejects(recell(moving, data=skew), "symmetric")


def test_a_changed_level_or_rate(moving):
    """rho shrunk 2¹⁰ times (the residual and the end test fail) and mu tripled (the contraction fails)."""
    rejects(recell(moving, data=lambda d: d.update(rho=str(Fraction(d["rho"]) / 1024))), "residual|not inside")
    rejects(recell(moving, data=lambda d: d.update(mu=str(Fraction(d["mu"]) * 3))), "MᵀW|residual")


def test_a_changed_tube_space_or_split(moving):
    """The projective steps replayed as a tube of Σ (space dropped: the end is elsewhere), psplit out of range,
    the method changed to direct (the moving centre needs the end parallelepiped)."""
    rejects(recell(moving, data=lambda d: d.pop("space")), "not inside|does not validate|too wide|isotropic")
    rejects(recell(moving, data=lambda d: d.update(psplit=9)), "psplit")
    rejects(recell(moving, data=lambda d: d.update(method="direct")), "parallelepiped|does not validate")


def test_a_tube_cut_short(moving):
    def cut(d):
        d["steps"] = d["steps"][: len(d["steps"]) // 3]
    rejects(recell(moving, data=cut), "not inside")


def test_a_forged_regime(moving):
    rejects(recell(moving, cell=lambda c: c.update(rank=0)), "rank differs")


# --- soundness: the claim against float integrations ----------------------------------------------------
def test_float_integrations_inside_the_cell(moving):
    """At the centre and near the corners of the cell, Σ(t) from Σ₀ = I stays bounded and X = Σ/tr Σ approaches the
    isotropic line of A + Aᵀ = diag(2y, −2), u ∝ (1, −√y) (the branch of the certificate), with tr Σ converging."""
    from scipy.integrate import solve_ivp

    from .cellforge import cell_points

    for x, y in cell_points(moving):
        V = np.array([[1.0, float(x)], [0.0, 1.0]])
        A = np.array([[float(y), 1.0], [-1.0, -1.0]])

        def rhs(_t, s):
            S = s.reshape(2, 2)
            T = V @ S @ A @ S
            return (T + T.T).ravel()

        sol = solve_ivp(rhs, (0, 400), np.eye(2).ravel(), method="LSODA", rtol=1e-10, atol=1e-13,
                        t_eval=[200, 400])
        S1, S2 = sol.y[:, 0].reshape(2, 2), sol.y[:, 1].reshape(2, 2)
        u = np.array([1.0, -np.sqrt(float(y))])
        P = np.outer(u, u) / (u @ u)
        assert np.abs(S2 / np.trace(S2) - P).max() < 1e-2, (x, y, S2)
        assert abs(np.trace(S2) - np.trace(S1)) < 0.05 * np.trace(S2), (x, y)
