"""Forgeries of ``cell-basin`` (kinds/cell_basin.py), the standalone whole-cell basin certificate
data = {"spec", "cell"}: one forgery per declared hypothesis, each consistent in every other field (the
cell's claim sentence and the certificate's claim re-rendered, the spec hash recomputed), plus the
reviewer's moves.

Genuine certificates (committed, tests/soundness/forgeries/data/; ``_regenerate()`` rebuilds them by hand,
about a minute each):

* ``cell-basin.json`` — the tampering suite's CLUSTERING (rank 1) cell [−1/6, 0]² of the reference general-V
  Σ₀ disk (:func:`tests.soundness.test_tampering._cell_basin_certificate`);
* ``cell-basin-ray.json`` — a BLOWUP rim cell [−1, −3/4] × [−3/4, −1/2] of the ray slice of
  tests/certify/test_cell_basin.py (``RAY``), quantifier "every point of the cell where Σ₀ ≻ 0".

Holes found (accepted before): a depth schedule and a ReLU feed-forward term in the spec's problem were
ignored.  The regressions show the forged claims false exactly: the ReLU term W₂ReLU(W₁x) with
ReLU(u) − ReLU(−u) = u is the drift F = c·I, and for an isotropic drift the solution is a time change of the
drift-free one, Σ_c(t) = e^{2ct}·Σ₀-flow((e^{2ct} − 1)/(2c)) (checked with SciPy DOP853); with c = 1 the
genuine rank-one limit L of the drift-free flow gives Σ_c(t) ~ e^{2t}L → ∞, so there is no rank-one limit.
An OUTSIDE cell's rank, bracket and sentence were not compared (map cells only).
"""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check.kinds.cell_basin import BasinCellChecker
from symbolic_tf.certify.check.cells import OUTSIDE_TEXT
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec

from ..oracle import simulate
from .cellforge import cell_points, disk_sigma0, indefinite_on, linear_relu, load, problem_of, recell, save
from .forge import accepts, rejects

RAY = {"family": "cov-disk", "resolution": [8, 8], "max_depth": 0,
       "problem": {"variant": "softmax", "d": 2, "A": [["-5/4", "1/4"], [-3, -1]], "V": [["-5/4", "-3/2"], ["-7/4", -1]]}}


def _regenerate():
    """Rebuild the committed genuine certificates (run by hand: a minute or two each)."""
    from types import SimpleNamespace

    from symbolic_tf.certify.search.cell_basin import BasinCells
    from symbolic_tf.certify.check.certificate import Certificate
    from symbolic_tf.certify.check import declaration
    from symbolic_tf.certify.check.kinds.cell_basin import KIND

    from ..test_tampering import _cell_basin_certificate

    save("cell-basin", _cell_basin_certificate())
    box = (Fraction(-1), Fraction(-3, 4), Fraction(-3, 4), Fraction(-1, 2))
    r = BasinCells(parse_map_spec(RAY)).certify(box)
    assert r.get("regime") == "BLOWUP" and r.get("kind") == KIND, r
    cell = {"box": [str(b) for b in box], "status": r["status"], "regime": r["regime"], "claim": r["claim"],
            "T_lo": r["T_lo"], "T_hi": r["T_hi"], "certificate": {"kind": KIND, "data": r["data"]}}
    data = {"spec": RAY, "cell": cell}
    status, claim = declaration(KIND).derive(SimpleNamespace(kind=KIND, status="PROVED", data=data), None)
    save("cell-basin-ray", Certificate(kind=KIND, claim=claim, status=status, data=data).to_dict())


@pytest.fixture(scope="module")
def genuine():
    c = load("cell-basin")
    accepts(c)
    return c


@pytest.fixture(scope="module")
def ray():
    c = load("cell-basin-ray")
    accepts(c)
    return c


def test_the_committed_genuine_certificates_still_check(genuine, ray):
    assert genuine["claim"]["subject"] == "CLUSTERING" and genuine["claim"]["params"]["rank"] == 1
    assert ray["claim"]["subject"] == "BLOWUP" and ray["claim"]["quantifier"] == "every point of the cell where Σ₀ ≻ 0"


def _no_rank_one_limit_with_drift_I(spec, S0, tau=0.0):
    """From Σ(τ) = S0, the flow with the drift F = I is Σ(t) = e^{2(t−τ)}·Ψ((e^{2(t−τ)} − 1)/2), Ψ the
    drift-free flow from S0 (an exact time change: Ψ' = Q(Ψ) and Q is homogeneous quadratic).  The genuine
    certificate proves Ψ(s) → L of rank one, so Σ(t) grows like e^{2t}L: no rank-one limit.  DOP853 checks
    the identity at t − τ = 1 and the growth."""
    S0 = np.asarray(S0, float)
    with_drift = simulate(problem_of(spec, F=[[1, 0], [0, 1]]), 1.0, Sigma0=S0)
    free = simulate(problem_of(spec), (math.e ** 2 - 1) / 2, Sigma0=S0)
    assert with_drift.status == free.status == "reached"
    assert np.allclose(with_drift.Sigma, math.e ** 2 * free.Sigma, rtol=1e-8, atol=1e-10)
    later = simulate(problem_of(spec, F=[[1, 0], [0, 1]]), 3.0, Sigma0=S0)
    assert later.status == "blowup" or later.s > with_drift.s + 3.9   # ‖Σ‖ gains ≈ e⁴ from t = 1 to 3


# --- the problem class ------------------------------------------------------------------------------
def test_a_parameter_varying_over_the_cell(genuine):
    rejects(recell(genuine, spec=lambda s: s["problem"].update(V=[["2 + x", "-1/2"], ["1/3", "-1/8"]])),
            "varies only the initial Gaussian|slice of Σ₀ only")


def test_a_drift(genuine):
    """A small drift F = I/100: the flow is no longer homogeneous (the projective reduction fails)."""
    rejects(recell(genuine, spec=lambda s: s["problem"].update(F=[["1/100", 0], [0, "1/100"]])),
            "without drift")


def test_a_slice_of_varying_trace(genuine):
    """Σ₀ = [[(1 + x)/2, y/2], [y/2, 1/2]]: the trace varies over the cell."""
    def varying(s):
        s.update(family="cov", x={"label": "u", "range": ["-1/2", "1/2"]}, y={"label": "w", "range": ["-1/2", "1/2"]})
        s["problem"]["initial"] = {"cov": [["(1 + x)/2", "y/2"], ["y/2", "1/2"]]}
    rejects(recell(genuine, spec=varying), "constant positive trace")


def test_a_depth_schedule(genuine):
    """Regression (accepted before): the drift F = 0 switches to I at depth 1/100 (the checker read the problem at
    depth 0).  From Σ(1/100) the flow is the time change above: no rank-one limit."""
    phases = [{"duration": "1/100"}, {"duration": 1, "F": [[1, 0], [0, 1]]}]
    forged = recell(genuine, spec=lambda s: s["problem"].update(F=[[0, 0], [0, 0]], phase=phases))
    spec = forged["data"]["spec"]
    for x, y in cell_points(genuine)[:3]:
        first = simulate(problem_of(spec), 0.01, Sigma0=disk_sigma0(x, y))
        assert first.status == "reached"
        _no_rank_one_limit_with_drift_I(spec, first.Sigma)
    rejects(forged, "constant parameters.*depth schedule")


def test_a_relu_feed_forward(genuine):
    """Regression (accepted before): a ReLU term equal to x ↦ x, i.e. the drift F = I: no rank-one limit."""
    forged = recell(genuine, spec=lambda s: s["problem"].update(relu=linear_relu(1)))
    for x, y in cell_points(genuine)[:3]:
        _no_rank_one_limit_with_drift_I(forged["data"]["spec"], disk_sigma0(x, y))
    rejects(forged, "Gaussian-closed.*ReLU")


# --- the target, the annulus, the basin ------------------------------------------------------------
def _scaled(key, f):
    return lambda d: d.update({key: str(Fraction(d[key]) * f)})


def test_a_target_that_does_not_contract(genuine):
    """The contraction rate mu raised fourfold; the box R halved (the ellipsoid sticks out of it)."""
    rejects(recell(genuine, data=_scaled("mu", 4)), "contraction .* fails on the target's box")
    rejects(recell(genuine, data=lambda d: d.update(R=[str(Fraction(r) / 2) for r in d["R"]])),
            "ellipsoid does not lie in the box")


def test_a_ray_target_relabelled_cluster(ray):
    """The ray basin restated as a cluster basin (CLUSTERING of rank 1): no isotropic point in its target."""
    def cluster(c):
        c.pop("T_lo")
        c.pop("T_hi")
        c.update(regime="CLUSTERING", rank=1)
    rejects(recell(ray, cell=cluster, data=lambda d: (d.pop("T_lo"), d.pop("T_hi"), d.update(target="cluster"))),
            "no isotropic rank-one point")


def test_a_cluster_target_relabelled_ray(genuine):
    """The cluster basin restated as a ray basin with a bracket: c = 0 at the isotropic point of its target."""
    def blowup(c):
        c.pop("rank")
        c.update(regime="BLOWUP", T_lo="1", T_hi="100")
    rejects(recell(genuine, cell=blowup, data=lambda d: d.update(target="ray", T_lo="1", T_hi="100")),
            "growth rate c = tr Q\\(X\\) is not positive")


def test_an_annulus_that_does_not_decay(genuine):
    """kappa raised fourfold; rho_out below rho; the outer ellipsoid outside its box."""
    rejects(recell(genuine, data=_scaled("kappa", 4)), "does not decrease at the stated rate on the annulus")
    rejects(recell(genuine, data=lambda d: d.update(rho_out=str(Fraction(d["rho"]) / 2))), "rho_out ≥ rho")
    rejects(recell(genuine, data=_scaled("rho_out", 4)), "outer ellipsoid does not lie in the box")


def test_a_basin_level_raised(genuine):
    """The level ℓ doubled (the sublevel set reaches boxes where L does not decrease); eps raised; eps = 0;
    the quadtree's depth cut."""
    rejects(recell(genuine, data=_scaled("level", 2)), "passes none of the basin tests")
    rejects(recell(genuine, data=lambda d: d.update(eps="10")), "passes none of the basin tests")
    rejects(recell(genuine, data=lambda d: d.update(eps="0")), "eps must be positive")
    rejects(recell(genuine, data=lambda d: d.update(depth=3)), "passes none of the basin tests")
    rejects(recell(genuine, data=lambda d: d.update(depth=12)), "depth must be an integer")


def test_a_cell_outside_the_basin(genuine):
    """The basin's data on a cell of the blow-up crescent; the level lowered to −1000 (below L everywhere)."""
    rejects(recell(genuine, cell=lambda c: c.update(box=["-95/96", "-47/48", "-1/12", "-7/96"])),
            "not inside the certified basin")
    rejects(recell(genuine, data=lambda d: d.update(level="-1000")), "not inside the certified basin")


def test_a_rim_cell_claiming_every_point(genuine, ray):
    """A cell across the circle u² + w² = 1 in the cluster basin (genuine with the quantifier "where Σ₀ ≻ 0")
    restated for every point of the cell; the genuine ray rim cell likewise."""
    rim = ["7/8", "1", "-3/8", "-1/8"]
    accepts(recell(genuine, cell=lambda c: c.update(box=rim), pd_only=True))
    rejects(recell(genuine, cell=lambda c: c.update(box=rim), pd_only=False), "covers only the cell's points where Σ₀ ≻ 0")
    rejects(recell(ray, pd_only=False), "covers only the cell's points where Σ₀ ≻ 0")


# --- regime, rank, bracket, words ------------------------------------------------------------------
def test_a_relabelled_rank(genuine):
    rejects(recell(genuine, cell=lambda c: c.update(rank=0)), "rank differs from the derived claim")
    rejects(recell(genuine, cell=lambda c: c.update(regime="EQUILIBRIUM")), "the cell says EQUILIBRIUM")


def test_a_tightened_bracket(ray):
    """T_lo raised to T_hi (cell and data together); the cell's T_lo differing from the data's; T_hi dropped."""
    lo, hi = (Fraction(ray["data"]["cell"][k]) for k in ("T_lo", "T_hi"))
    rejects(recell(ray, cell=lambda c: c.update(T_lo=str(hi)), data=lambda d: d.update(T_lo=str(hi))),
            "does not contain the derived one")
    rejects(recell(ray, cell=lambda c: c.update(T_hi=str(lo)), data=lambda d: d.update(T_hi=str(lo))),
            "does not contain the derived one")
    rejects(recell(ray, cell=lambda c: c.update(T_lo=str(lo / 2))), "T_lo differs from the derived claim")
    rejects(recell(ray, cell=lambda c: c.pop("T_hi")), "T_hi differs from the derived claim")


def test_a_swapped_claim_sentence(genuine, ray):
    forged = copy.deepcopy(genuine)
    forged["data"]["cell"]["claim"] = ray["data"]["cell"]["claim"]
    rejects(forged, "claim text is not the derived claim")


def test_an_outside_cell_with_a_regime_claim(genuine):
    """UNDECIDED on the standalone certificate; on a map cell, a genuine OUTSIDE witness whose cell also states
    a rank, a regime sentence or a regime (regression: rank and sentence were not compared)."""
    rejects(recell(genuine, cell=lambda c: c.update(status="UNDECIDED")), "carries no certificate")
    ck = BasinCellChecker(parse_map_spec(genuine["data"]["spec"]))
    outside = {"box": ["1", "9/8", "-1/8", "1/8"], "status": "OUTSIDE", "regime": "OUTSIDE", "claim": OUTSIDE_TEXT,
               "certificate": {"kind": "cell-basin", "data": {"z": ["0", "1"]}}}
    assert ck.check(outside) is None
    assert indefinite_on(outside["box"])      # Σ₀ is indefinite on the cell: a rank or a regime sentence is false
    for edit, pattern in ((dict(rank=1), "states no rank or bracket"),
                          (dict(claim=genuine["data"]["cell"]["claim"]), "claim text of an OUTSIDE cell"),
                          (dict(regime="CLUSTERING"), "must say regime OUTSIDE")):
        with pytest.raises(CertificationFailed, match=pattern):
            ck.check({**outside, **edit})


def test_a_certificate_of_another_kind(genuine):
    rejects(recell(genuine, kind="cell-grid"), "is not cell-basin")
