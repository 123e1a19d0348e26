"""Forgeries of ``cell-tube`` (kinds/cell_tube.py), the standalone whole-cell tube certificate
data = {"spec", "cell"}: one forgery per declared hypothesis, each consistent in every other field (the
cell's claim sentence and the certificate's claim re-rendered, the spec hash recomputed), plus the
reviewer's moves.

Genuine certificates (committed, tests/soundness/forgeries/data/; ``_regenerate()`` rebuilds them by hand):

* ``cell-tube.json`` — the tampering suite's collapse cell (:func:`tests.soundness.test_tampering._cell_tube_certificate`):
  the cov-disk slice of a general-V flow with F = −I, cell [7/32, 9/32] × [−1/32, 1/32], CLUSTERING rank 0.
* ``cell-tube-ray.json`` — a BLOWUP cell: the degenerate cell (u, w) = (1/4, 0), i.e. Σ₀ = diag(5/8, 3/8), of
  A = I, V = [[2, 1/2], [1/4, −1]], F = −I/10, whose data are the point certificate of ``find_ray_blowup``
  with end ``tube-ray`` (a whole-cell BLOWUP tube is out of the cell search's reach: its enclosure widens
  before the tiny ray target).

Holes found (accepted before): a depth schedule and a ReLU feed-forward term in the spec's problem were
ignored (the flow was read at depth 0 as a Gaussian-closed softmax field); each regression shows the forged
claim false with SciPy DOP853 (tests/soundness/oracle.py) — the ReLU term W₂ReLU(W₁x) with
ReLU(u) − ReLU(−u) = u is exactly a linear drift, and the schedule is integrated phase by phase.  An OUTSIDE
cell's rank, bracket and sentence were not compared (map cells only; a standalone certificate is PROVED).
"""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np

import pytest

from symbolic_tf.certify.check.kinds.cell_tube import TubeCellChecker
from symbolic_tf.certify.check.cells import OUTSIDE_TEXT
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec

from ..oracle import simulate
from .cellforge import cell_points, disk_sigma0, indefinite_on, linear_relu, load, problem_of, recell, save
from .forge import accepts, rejects


def _regenerate():
    """Rebuild the committed genuine certificates (run by hand: a few seconds)."""
    import sys
    from types import SimpleNamespace

    from symbolic_tf.certify.check.certificate import Certificate
    from symbolic_tf.certify.check import declaration
    from symbolic_tf.certify.check.kinds.cell_tube import KIND
    from symbolic_tf.certify.check.cells import cell_claim
    from symbolic_tf.certify.search.validated.tube_ray import find_ray_blowup
    from symbolic_tf.spec.problem import parse_problem

    from ..test_tampering import _cell_tube_certificate

    save("cell-tube", _cell_tube_certificate())
    doc = {"family": "cov-disk", "resolution": [2, 2], "max_depth": 0,
           "problem": {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[2, "1/2"], ["1/4", -1]],
                       "F": [["-1/10", 0], [0, "-1/10"]]}}
    v = find_ray_blowup(parse_problem({**doc["problem"], "initial": {"cov": [["5/8", 0], [0, "3/8"]]}}))
    assert v.status == "PROVED", v.reason
    d = v.evidence["certificate"]["data"]
    params = {"T_lo": d["T_lo"], "T_hi": d["T_hi"]}
    cell = {"box": ["1/4", "1/4", "0", "0"], "status": "PROVED", "regime": "BLOWUP", **params,
            "claim": cell_claim("BLOWUP", params).text(), "certificate": {"kind": KIND, "data": {"end": "tube-ray", **d}}}
    data = {"spec": doc, "cell": cell}
    status, claim = declaration(KIND).derive(SimpleNamespace(kind=KIND, status="PROVED", data=data), None)
    save("cell-tube-ray", Certificate(kind=KIND, claim=claim, status=status, data=data).to_dict())
    print("regenerated", file=sys.stderr)


@pytest.fixture(scope="module")
def genuine():
    c = load("cell-tube")
    accepts(c)
    return c


@pytest.fixture(scope="module")
def ray():
    c = load("cell-tube-ray")
    accepts(c)
    return c


def _grows(problem, S0):
    """With F = I, Σ̇ = Q(Σ) + 2Σ and Q(Σ) = O(‖Σ‖²): near 0, d(tr Σ)/dt ≥ 2 tr Σ − C(tr Σ)² > 0, so Σ(t) never
    converges to 0 (the claimed collapse is false).  DOP853 shows the growth: ‖Σ‖ is multiplied by more than
    e³ by t = 2 (or Σ blows up)."""
    S0 = np.asarray(S0, float)
    r = simulate(problem, 2.0, Sigma0=S0)
    assert r.status == "blowup" or (r.status == "reached" and r.s > math.log(np.linalg.norm(S0)) + 3), r


def test_the_committed_genuine_certificates_still_check(genuine, ray):
    assert genuine["claim"]["subject"] == "CLUSTERING" and genuine["claim"]["params"]["rank"] == 0
    assert ray["claim"]["subject"] == "BLOWUP"


# --- the problem class ------------------------------------------------------------------------------
def test_a_parameter_varying_over_the_cell(genuine):
    """A varying with the coordinates: the tube's field would not be the flow at every point."""
    rejects(recell(genuine, spec=lambda s: s["problem"].update(A=[["1 + x/4", "1/2"], ["-1/4", -1]])),
            "varies only the initial Gaussian|slice of Σ₀ only")


def test_a_flow_that_is_not_softmax_type(genuine):
    """The same matrices under Sinkhorn attention (not the quadratic field the tube replays)."""
    rejects(recell(genuine, spec=lambda s: s["problem"].update(variant="sinkhorn")),
            "quadratic \\(softmax-type\\) heads")


def test_a_depth_schedule(genuine):
    """Regression (accepted before): the drift switches from −I to +I at depth 1/100.  The checker read the
    problem at depth 0 and replayed the collapsing flow; the scheduled flow, integrated phase by phase
    (DOP853, rtol 1e-12), does not collapse to a point from the cell."""
    phases = [{"duration": "1/100"}, {"duration": 1, "F": [[1, 0], [0, 1]]}]
    forged = recell(genuine, spec=lambda s: s["problem"].update(phase=phases))
    spec = forged["data"]["spec"]
    for x, y in cell_points(genuine):
        first = simulate(problem_of(spec), 0.01, Sigma0=disk_sigma0(x, y))
        assert first.status == "reached"
        _grows(problem_of(spec, F=[[1, 0], [0, 1]]), first.Sigma)
    rejects(forged, "constant parameters.*depth schedule")


def test_a_relu_feed_forward(genuine):
    """Regression (accepted before): a ReLU term W₂ReLU(W₁x) equal to x ↦ 2x (ReLU(u) − ReLU(−u) = u), so the
    token flow is exactly the softmax flow with F = −I + 2I = I: it does not collapse (DOP853)."""
    forged = recell(genuine, spec=lambda s: s["problem"].update(relu=linear_relu(2)))
    spec = forged["data"]["spec"]
    for x, y in cell_points(genuine):
        _grows(problem_of(spec, F=[[1, 0], [0, 1]]), disk_sigma0(x, y))
    rejects(forged, "Gaussian-closed.*ReLU")


# --- the cell and its tube ---------------------------------------------------------------------------
def test_a_cell_leaving_the_cone(genuine):
    """The same data on a cell that crosses the circle u² + w² = 1 (Σ₀ singular, then indefinite)."""
    rejects(recell(genuine, cell=lambda c: c.update(box=["15/16", "17/16", "-1/32", "1/32"])),
            "not positive definite on the open cell")


def test_a_point_tube_method(genuine):
    """The tube replayed by the direct (point) method, which does not carry the cell's set."""
    rejects(recell(genuine, data=lambda d: d.update(method="direct")), 'method "qr"')


def test_an_enlarged_box(genuine):
    """The genuine tube with the cell enlarged to [0, 1/2] × [−1/4, 1/4] (it holds the genuine cell): the
    replay from the larger set fails.  (A cell moved elsewhere is re-verified from its own set: moved to
    [−9/32, −7/32] × [−1/32, 1/32] the same steps do prove the collapse there.)"""
    rejects(recell(genuine, cell=lambda c: c.update(box=["0", "1/2", "-1/4", "1/4"])), "enclosure fails")
    accepts(recell(genuine, cell=lambda c: c.update(box=["-9/32", "-7/32", "-1/32", "1/32"])))


def test_a_tube_cut_short(genuine):
    """The tube's last steps dropped: its end box is not yet inside the collapse set."""
    rejects(recell(genuine, data=lambda d: d.update(steps=d["steps"][:3])), "end is not inside")


# --- regime, rank, bracket, words ------------------------------------------------------------------
def test_a_relabelled_rank(genuine):
    """Collapse (rank 0) restated as clustering to rank 1, every field consistent."""
    rejects(recell(genuine, cell=lambda c: c.update(rank=1)), "rank differs from the derived claim")


def test_a_relabelled_regime(genuine, ray):
    """A collapse cell restated as BLOWUP with a bracket, and the BLOWUP cell as CLUSTERING of rank 1."""
    def blowup(c):
        c.pop("rank")
        c.update(regime="BLOWUP", T_lo="1", T_hi="2")
    rejects(recell(genuine, cell=blowup), "the cell says BLOWUP, the certificate proves CLUSTERING")

    def cluster(c):
        c.pop("T_lo")
        c.pop("T_hi")
        c.update(regime="CLUSTERING", rank=1)
    rejects(recell(ray, cell=cluster), "the cell says CLUSTERING, the certificate proves BLOWUP")


def test_a_tightened_bracket(ray):
    """T_lo raised to the bracket's midpoint, T_hi lowered to it (the cell and the data together); T_lo and T_hi
    swapped; the cell's bracket differing from the data's; T_hi dropped."""
    lo, hi = (Fraction(ray["data"]["cell"][k]) for k in ("T_lo", "T_hi"))
    mid = str((lo + hi) / 2)
    for key in ("T_lo", "T_hi"):
        rejects(recell(ray, cell=lambda c: c.update({key: mid}), data=lambda d: d.update({key: mid})),
                "does not contain the derived one")
    swap = dict(T_lo=str(hi), T_hi=str(lo))        # the roles of the two numbers swapped
    rejects(recell(ray, cell=lambda c: c.update(swap), data=lambda d: d.update(swap)), "T_lo > T_hi")
    rejects(recell(ray, cell=lambda c: c.update(T_lo=str(lo / 2))), "T_lo differs from the derived claim")
    rejects(recell(ray, cell=lambda c: c.pop("T_hi")), "T_hi differs from the derived claim")


def test_a_swapped_claim_sentence(genuine, ray):
    """The cell's sentence swapped for another cell's (regime and rank fields kept)."""
    forged = copy.deepcopy(genuine)
    forged["data"]["cell"]["claim"] = ray["data"]["cell"]["claim"]
    rejects(forged, "claim text is not the derived claim")
    forged = recell(genuine, pd_only=True)   # a weaker quantifier is not the derived claim either
    rejects(forged, "claim text is not the derived claim")


def test_an_outside_cell_with_a_regime_claim(genuine):
    """Status OUTSIDE / UNDECIDED on the standalone certificate; on a map cell, a genuine OUTSIDE witness whose
    cell also states a rank or a regime sentence (regression: the rank and the sentence were not compared)."""
    rejects(recell(genuine, cell=lambda c: c.update(status="UNDECIDED")), "carries no certificate")
    spec = parse_map_spec(genuine["data"]["spec"])
    ck = TubeCellChecker(spec)
    outside = {"box": ["1", "9/8", "-1/8", "1/8"], "status": "OUTSIDE", "regime": "OUTSIDE", "claim": OUTSIDE_TEXT,
               "certificate": {"kind": "cell-tube", "data": {"z": ["0", "1"]}}}
    assert ck.check(outside) is None
    assert indefinite_on(outside["box"])      # Σ₀ is indefinite on the cell: a rank or a regime sentence is false
    for edit, pattern in ((dict(rank=0), "states no rank or bracket"),
                          (dict(claim=genuine["data"]["cell"]["claim"]), "claim text of an OUTSIDE cell"),
                          (dict(regime="CLUSTERING"), "must say regime OUTSIDE")):
        with pytest.raises(CertificationFailed, match=pattern):
            ck.check({**outside, **edit})
    bad = copy.deepcopy(outside)   # the witness itself: zᵀΣ₀z > 0 inside the disk
    bad["box"] = ["1/2", "5/8", "-1/8", "1/8"]
    with pytest.raises(CertificationFailed, match="zᵀΣ₀z ≤ 0 fails"):
        ck.check(bad)


def test_a_certificate_of_another_kind(genuine):
    rejects(recell(genuine, kind="cell-basin"), "is not cell-tube")
