"""Forgeries of ``cell-grid`` (kinds/cell_grid.py), the standalone grid-basin cell certificate
data = {"spec", "cell"}: one forgery per declared hypothesis, each consistent in every other field (the
cell's claim sentence and the certificate's claim re-rendered, the spec hash recomputed), plus the
reviewer's moves.

Genuine certificate (committed, tests/soundness/forgeries/data/cell-grid.json; ``_regenerate()`` rebuilds it
by hand, a few minutes): the tampering suite's BLOWUP cell [−95/96, −47/48] × [−1/12, −7/96] of the blow-up
crescent of the reference general-V Σ₀ disk, in a 128 × 128 grid basin (with a growth function Φ) around the
growth region of its saddle–ray connection (:func:`tests.soundness.test_tampering._cell_grid_certificate`).

Holes found (accepted before): a depth schedule and a ReLU feed-forward term in the spec's problem were
ignored.  The regressions show the forged claims false exactly: the ReLU term W₂ReLU(W₁x) with
ReLU(u) − ReLU(−u) = u is the drift F = c·I, and for an isotropic drift the solution is a time change of the
drift-free one, Σ_c(t) = e^{2ct}·Ψ((e^{2ct} − 1)/(2c)) (checked with SciPy DOP853).  With c = −1/7 the
inner time (1 − e^{−2t/7})·7/2 stays below 7/2 < T_lo ≤ T*(Ψ) (the genuine certificate's own bound), so the
forged flow is global: no blow-up at all.  An OUTSIDE cell's rank, bracket and sentence were not compared
(map cells only).
"""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check.kinds.cell_grid import GridCellChecker
from symbolic_tf.certify.check.cells import OUTSIDE_TEXT
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec

from ..oracle import simulate
from .cellforge import cell_points, disk_sigma0, indefinite_on, linear_relu, load, problem_of, recell, save
from .forge import accepts, rejects

DAMP = Fraction(-1, 7)      # the isotropic drift c·I of the regressions: 1/(2|c|) = 7/2 < T_lo


def _regenerate():
    """Rebuild the committed genuine certificate (run by hand: a few minutes)."""
    from ..test_tampering import _cell_grid_certificate

    save("cell-grid", _cell_grid_certificate(), compact=True)


@pytest.fixture(scope="module")
def genuine():
    c = load("cell-grid")
    accepts(c)
    return c


def _basin(f):
    return lambda d: f(d["basin"])


def test_the_committed_genuine_certificate_still_checks(genuine):
    assert genuine["claim"]["subject"] == "BLOWUP"
    assert Fraction(genuine["claim"]["params"]["T_lo"]) > 1 / (2 * -DAMP)


def _global_with_damping(spec, S0):
    """From S0 the flow with the drift c·I (c = −1/7) is Σ(t) = e^{2ct}·Ψ((e^{2ct} − 1)/(2c)), Ψ the drift-free
    flow; its inner time stays below 7/2 < T_lo ≤ T*(Ψ), so Σ is global.  DOP853 checks the identity at t = 1
    and that Σ stays finite beyond the forged bracket's T_hi."""
    S0 = np.asarray(S0, float)
    F = [[str(DAMP), 0], [0, str(DAMP)]]
    c = float(DAMP)
    damped = simulate(problem_of(spec, F=F), 1.0, Sigma0=S0)
    free = simulate(problem_of(spec), (math.exp(2 * c) - 1) / (2 * c), Sigma0=S0)
    assert damped.status == free.status == "reached"
    assert np.allclose(damped.Sigma, math.exp(2 * c) * free.Sigma, rtol=1e-8, atol=1e-10)
    far = simulate(problem_of(spec, F=F), 45.0, Sigma0=S0)
    assert far.status == "reached" and far.s < 5, far


# --- the problem class ------------------------------------------------------------------------------
def test_a_parameter_varying_over_the_cell(genuine):
    rejects(recell(genuine, spec=lambda s: s["problem"].update(V=[["2 + x", "-1/2"], ["1/3", "-1/8"]])),
            "varies only the initial Gaussian|slice of Σ₀ only")


def test_a_drift(genuine):
    rejects(recell(genuine, spec=lambda s: s["problem"].update(F=[["-1/100", 0], [0, "-1/100"]])),
            "cell-grid certificate: .*without drift")


def test_a_slice_of_varying_trace(genuine):
    def varying(s):
        s.update(family="cov", x={"label": "u", "range": ["-1", "1/2"]}, y={"label": "w", "range": ["-1/2", "1/2"]})
        s["problem"]["initial"] = {"cov": [["(3 + x)/2", "y/2"], ["y/2", "1/2"]]}
    rejects(recell(genuine, spec=varying), "constant positive trace")


def test_a_depth_schedule(genuine):
    """Regression (accepted before): the drift F = 0 switches to −I/7 at depth 1/100.  The remaining blow-up
    time of the drift-free flow from Σ(1/100) is ≥ T_lo − 1/100 > 7/2: the scheduled flow is global."""
    phases = [{"duration": "1/100"}, {"duration": 1, "F": [[str(DAMP), 0], [0, str(DAMP)]]}]
    forged = recell(genuine, spec=lambda s: s["problem"].update(F=[[0, 0], [0, 0]], phase=phases))
    spec = forged["data"]["spec"]
    for x, y in cell_points(genuine)[:3]:
        first = simulate(problem_of(spec), 0.01, Sigma0=disk_sigma0(x, y))
        assert first.status == "reached"
        _global_with_damping(spec, first.Sigma)
    rejects(forged, "cell-grid certificate: .*constant parameters.*depth schedule")


def test_a_relu_feed_forward(genuine):
    """Regression (accepted before): a ReLU term equal to x ↦ −x/7, i.e. the drift F = −I/7: no blow-up."""
    forged = recell(genuine, spec=lambda s: s["problem"].update(relu=linear_relu(DAMP)))
    for x, y in cell_points(genuine)[:3]:
        _global_with_damping(forged["data"]["spec"], disk_sigma0(x, y))
    rejects(forged, "cell-grid certificate: .*Gaussian-closed.*ReLU")


# --- the target and the grid function --------------------------------------------------------------
def test_a_growth_region_that_does_not_hold(genuine):
    """The growth region's rate c_lo raised fourfold; one of its polynomials dropped; its quadtree cut short."""
    rejects(recell(genuine, data=_basin(lambda b: b["target"].update(c_lo=str(Fraction(b["target"]["c_lo"]) * 4)))),
            "growth region's test fails")
    rejects(recell(genuine, data=_basin(lambda b: b["target"]["G"].pop())), "growth region's test fails")
    rejects(recell(genuine, data=_basin(lambda b: b["target"].update(depth=3))), "growth region's test fails")


def _fence_vertex(basin):
    """A vertex of the window's lower boundary (j = j₀) inside the disk."""
    i0, i1, j0, _j1 = basin["window"]
    n = 1 << basin["k"]
    inside = [i for i in range(i0, i1 + 1) if Fraction(2 * i - n, n) ** 2 + Fraction(2 * j0 - n, n) ** 2 < 1]
    return inside[len(inside) // 2], j0


def test_a_window_without_a_fence(genuine):
    """One vertex of the window's boundary inside the disk lowered to 0 (below ℓ): L could leak out."""
    def lower(b):
        i, j = _fence_vertex(b)
        b["values"][i - b["window"][0]][j - b["window"][2]] = 0
    rejects(recell(genuine, data=_basin(lower)), "window's boundary is not above the level")


def test_a_box_where_L_does_not_decrease(genuine):
    """eps raised a hundredfold; the level ℓ doubled (boxes where L does not decrease join); eps = 0."""
    rejects(recell(genuine, data=_basin(lambda b: b.update(eps=str(Fraction(b["eps"]) * 100)))),
            "L decreases too slowly")
    rejects(recell(genuine, data=_basin(lambda b: b.update(level=str(Fraction(b["level"]) * 2)))),
            "L decreases too slowly")
    rejects(recell(genuine, data=_basin(lambda b: b.update(eps="0"))), "scale and eps must be positive")


def test_a_growth_function_that_grows_too_fast(genuine):
    """Φ halved or set to 0: Φ' ≤ c fails; Φ dropped: the bracket derived without it is wider than the stored one."""
    rejects(recell(genuine, data=_basin(lambda b: b.update(phi_scale=str(Fraction(b["phi_scale"]) / 2)))),
            "growth function's Φ' ≤ c fails")
    rejects(recell(genuine, data=_basin(lambda b: b.update(phi=[[0] * len(r) for r in b["phi"]]))),
            "growth function's Φ' ≤ c fails")
    rejects(recell(genuine, data=_basin(lambda b: b.pop("phi_scale"))), "needs both phi and phi_scale")
    rejects(recell(genuine, data=_basin(lambda b: (b.pop("phi"), b.pop("phi_scale")))), "does not contain the derived one")


def test_a_cell_outside_the_grid_basin(genuine):
    """The grid's data on a cell of the clustering region; the level lowered below L on the cell."""
    rejects(recell(genuine, cell=lambda c: c.update(box=["-1/6", "0", "-1/6", "0"])), "not inside the certified grid basin")
    rejects(recell(genuine, data=_basin(lambda b: b.update(level=str(Fraction(b["scale"]))))),
            "not inside the certified grid basin|window's boundary")


def test_a_rim_cell_claiming_every_point(genuine):
    """The cell [−1, −95/96] × [0, 1/96] touches u = −1 (Σ₀ singular there): genuine with the quantifier
    "where Σ₀ ≻ 0" and the same bracket; restated for every point of the cell."""
    rim = ["-1", "-95/96", "0", "1/96"]
    accepts(recell(genuine, cell=lambda c: c.update(box=rim), pd_only=True))
    rejects(recell(genuine, cell=lambda c: c.update(box=rim), pd_only=False),
            "covers only the cell's points where Σ₀ ≻ 0")


# --- regime, bracket, words ------------------------------------------------------------------------
def test_a_relabelled_regime(genuine):
    def cluster(c):
        c.pop("T_lo")
        c.pop("T_hi")
        c.update(regime="CLUSTERING", rank=1)
    rejects(recell(genuine, cell=cluster, data=lambda d: (d.pop("T_lo"), d.pop("T_hi"))), "missing field 'T_lo'")
    rejects(recell(genuine, cell=cluster), "the cell says CLUSTERING, the certificate proves BLOWUP")
    rejects(recell(genuine, cell=lambda c: c.update(rank=1)), "rank differs from the derived claim")


def test_a_tightened_bracket(genuine):
    """T_lo raised to T_hi and T_hi lowered to T_lo (cell and data together); the cell's T_lo differing from the
    data's; the cell moved to a neighbour whose bracket is not the stored one; an enlarged cell."""
    lo, hi = (Fraction(genuine["data"]["cell"][k]) for k in ("T_lo", "T_hi"))
    rejects(recell(genuine, cell=lambda c: c.update(T_lo=str(hi)), data=lambda d: d.update(T_lo=str(hi))),
            "does not contain the derived one")
    rejects(recell(genuine, cell=lambda c: c.update(T_hi=str(lo)), data=lambda d: d.update(T_hi=str(lo))),
            "does not contain the derived one")
    rejects(recell(genuine, cell=lambda c: c.update(T_lo=str(lo / 2))), "T_lo differs from the derived claim")
    rejects(recell(genuine, cell=lambda c: c.update(box=["-95/96", "-15/16", "-1/12", "-1/24"])),
            "does not contain the derived one")


def test_a_swapped_claim_sentence(genuine):
    forged = copy.deepcopy(genuine)
    forged["data"]["cell"]["claim"] = forged["data"]["cell"]["claim"].replace("blows up", "stays bounded")
    rejects(forged, "claim text is not the derived claim")


def test_an_outside_cell_with_a_regime_claim(genuine):
    rejects(recell(genuine, cell=lambda c: c.update(status="UNDECIDED")), "carries no certificate")
    ck = GridCellChecker(parse_map_spec(genuine["data"]["spec"]))
    outside = {"box": ["1", "9/8", "-1/8", "1/8"], "status": "OUTSIDE", "regime": "OUTSIDE", "claim": OUTSIDE_TEXT,
               "certificate": {"kind": "cell-grid", "data": {"z": ["0", "1"]}}}
    assert ck.check(outside) is None
    assert indefinite_on(outside["box"])      # Σ₀ is indefinite on the cell: a rank or a regime sentence is false
    for edit, pattern in ((dict(T_lo="1"), "states no rank or bracket"),
                          (dict(claim=genuine["data"]["cell"]["claim"]), "claim text of an OUTSIDE cell"),
                          (dict(regime="BLOWUP"), "must say regime OUTSIDE")):
        with pytest.raises(CertificationFailed, match=pattern):
            ck.check({**outside, **edit})


def test_a_certificate_of_another_kind(genuine):
    rejects(recell(genuine, kind="cell-tube"), "is not cell-grid")
