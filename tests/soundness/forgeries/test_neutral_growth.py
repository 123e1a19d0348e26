"""Forgeries of ``tube-growth-neutral`` (symbolic_tf/certify/check/kinds/tube_growth_neutral.py): one consistent
forgery per declared hypothesis, each rejected naming that hypothesis, and the regression of the hole
found in the shared chart checks (tests/soundness/forgeries/test_neutral.py).

The genuine certificate is built by :func:`find_neutral_growth` from the problem of
tests/soundness/test_tampering.py (GROWTH_AV, GROWTH_S0: seed 0 #1 of the general-V set started at a
dyadic rounding of its Σ(1.5); the tube is empty), about 2 s.  The forgery builders are shared with the
clustering kind (:mod:`._neutral_common`).
"""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.certify.check import declaration
from symbolic_tf.certify.check.neutral_chart import chart_of
from symbolic_tf.certify.check.kinds.tube_growth_neutral import KIND
from symbolic_tf.spec.problem import parse_problem
from tests.soundness.oracle import simulate

from . import _neutral_common as N
from .forge import accepts, forge, rejects

# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("forge-neutral-growth")


@pytest.fixture(scope="module")
def genuine():
    from symbolic_tf.certify.search.validated._tube_growth_neutral import find_neutral_growth

    ver = find_neutral_growth(N.problem(*N.GROWTH_AV, N.GROWTH_S0))
    assert ver.status == "PROVED", ver.reason
    cert = ver.evidence["certificate"]
    accepts(cert)
    return cert


def test_every_hypothesis_has_its_test_here():
    here = {name for name in globals() if name.startswith("test_")}
    for h in declaration(KIND).hypotheses:
        assert h.forgery.endswith(f"test_neutral_growth.py::test_{h.id.replace('-', '_')}")
        assert f"test_{h.id.replace('-', '_')}" in here


# --------------------------------------------------------------------------- the problem class
def test_one_head(genuine):
    rejects(*N.one_head(genuine))


def test_dimension_three(genuine):
    rejects(*N.dimension_three(genuine))


def test_no_drift(genuine):
    rejects(*N.no_drift(genuine))


def test_constant_parameters(genuine):
    rejects(*N.constant_parameters(genuine))


def test_sigma0_psd(genuine):
    rejects(*N.sigma0_psd(genuine))


def test_claim(genuine):
    rejects(*N.claim_quantifier(genuine))
    rejects(*N.claim_status(genuine))


# --------------------------------------------------------------------------- the tube and the data
def test_tube_replays(genuine):
    rejects(*N.tube_replays(genuine))
    rejects(*N.projective_pair(genuine))


def test_frame_invertible(genuine):
    rejects(*N.frame_invertible(genuine))


def test_region_shape(genuine):
    rejects(*N.region_shape(genuine))
    rejects(*N.region_direction(genuine))


def test_funnel_data(genuine):
    rejects(*N.funnel_data(genuine))
    rejects(*N.funnel_rate(genuine))


# --------------------------------------------------------------------------- check 1: the entry
def test_entry_chart(genuine):
    rejects(*N.entry_chart(genuine))


def test_entry_zeta(genuine):
    rejects(*N.entry_zeta(genuine))


def test_entry_theta(genuine):
    rejects(*N.entry_theta(genuine))


def test_entry_cone_band(genuine):
    # the hole: the entry on the cone's other branch, every other check passing (see the regression)
    rejects(*N.other_branch(genuine, -0.05, 0.0009))


def test_entry_funnel(genuine):
    rejects(*N.entry_funnel(genuine))


def test_regression_other_branch_entry_is_not_in_the_region(genuine):
    """Accepted before the band check.  Here the forged *claim* (global, at most exponential growth)
    happens to hold — this problem's solutions grow benignly — so what the independent integration
    shows false is the argument's premise: the forged Σ₀'s chart point lies on the cone's other branch
    (s − s_c(θ₁) ≈ 2.9 against a band of 1.7·10⁻⁴), where the fast centre repels; the solution leaves
    it at once and only later arrives in the region (at another θ).  The same hole makes the clustering
    kind accept a Σ₀ that blows up (test_neutral.py::test_regression_other_branch_blows_up)."""
    forged, pattern = N.other_branch(genuine, -0.05, 0.0009)
    g = N.Geometry(forged)
    w_s = float(N.F(genuine["data"]["s_width"]))
    assert abs(g.s1 - g.roots(g.theta1)[0]) > 1e4 * w_s
    run = simulate(parse_problem(forged["problem"]), 1.0, times=[0.5], rtol=1e-12)
    assert run.status == "reached"
    T = N.fl(genuine["data"]["frame"])
    _t, s, U = run.samples[0]
    _sig, r, _zeta, _Z = chart_of((T @ (np.exp(s) * U) @ T.T).tolist())
    theta, s_half = g.coords(r)
    assert abs(theta - g.theta1) > 0.05          # the slow angle jumped: no slow motion from θ₁
    assert abs(s_half - g.s1) > 2.0              # r left the other branch for the region's
    rejects(forged, pattern)


# --------------------------------------------------------------------------- checks 2–6: the region
def test_cone_transversal(genuine):
    rejects(*N.cone_transversal(genuine))


def test_identity_denominators(genuine):
    # a band of half-width 1/2 is still transversal (∂a/∂s < 0) but reaches where qᵀp vanishes
    rejects(forge(genuine, data={"s_width": "1/2"}), r"qᵀp is not sign-definite")


def test_fast_contraction(genuine):
    rejects(*N.fast_contraction(genuine))


def test_fast_funnel_margin(genuine):
    rejects(*N.fast_funnel_margin(genuine))


def test_zeta_decay(genuine):
    rejects(*N.zeta_decay(genuine, 30))


def test_rest_point_bracket(genuine):
    rejects(*N.rest_point_bracket(genuine))


def test_slow_contraction(genuine):
    # b = ℓᵀβ has a maximum near θ ≈ −0.6 (f′ = 0): a bracket [−0.65, θ_b] still contains the zero of
    # f at θ ≈ 0, but the mean-value bound over the pieces meeting it has f′ of both signs; every fast
    # check still holds on the 96 pieces of Θ = [−0.7, θ_hi]
    d = genuine["data"]
    c = forge(genuine, data={"theta_box": ["-7/10", d["theta_box"][1]],
                             "theta_star": ["-13/20", d["theta_star"][1]], "pieces": 96})
    rejects(c, r"slow field does not contract along the isotropic cone")


def test_reach_inside_theta(genuine):
    rejects(*N.reach_inside_theta(genuine))


def test_offset_inside_band(genuine):
    rejects(*N.offset_inside_band(genuine))


# --------------------------------------------------------------------------- other forgeries tried
def test_a_clustering_region_is_not_a_growth_one(genuine):
    # the same data under the clustering kind: φ ≈ −12 has no zero in the bracket
    c = N.swapped_kind(genuine, "tube-cluster-neutral", "CLUSTERING", {"rank": 1})
    rejects(c, r"does not change sign on theta_star")
