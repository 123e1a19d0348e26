"""Forgeries of ``tube-cluster-neutral`` (symbolic_tf/certify/check/kinds/tube_cluster_neutral.py): one consistent
forgery per declared hypothesis, each rejected naming that hypothesis, and the regression of the hole
this suite found.

The genuine certificate is built by :func:`find_neutral_cluster` from the problem of
tests/soundness/test_tampering.py (NEUTRAL_AV, NEUTRAL_S0: seed 1 #7 of the general-V set started at a
dyadic rounding of its own Σ(9); the tube is empty), about 2 s.  The forgery builders are shared with
the growth kind (:mod:`._neutral_common`).

**The hole (fixed).**  Check 1 verified ζ̄₁ and ê₁ at the tube's end but never that r₁ lies in the
region's band |s − s_c(θ)| ≤ w_s.  The line r̃ + θ₁t + s·m meets the isotropic cone a = 0 twice; at the
other root a = ζ̄ᾱ is small as well, and a Σ₀ placed there with ê₁ ∈ 𝓔 passed every check — the
region's enclosures (taken around s_c(θ)) say nothing about it.  There the fast centre is unstable and
the solution blows up (:func:`test_regression_other_branch_blows_up`).
"""
from __future__ import annotations

import flint
import numpy as np
import pytest

from symbolic_tf.certify.check import declaration
from symbolic_tf.certify.check.kinds.tube_cluster_neutral import KIND, _bad, _slow_contraction
from symbolic_tf.exact.ball import interval_ball
from tests.soundness.oracle import simulate

from . import _neutral_common as N
from .forge import accepts, rejects

# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("forge-neutral")


@pytest.fixture(scope="module")
def genuine():
    from symbolic_tf.certify.search.validated._tube_cluster_neutral import find_neutral_cluster

    ver = find_neutral_cluster(N.problem(*N.NEUTRAL_AV, N.NEUTRAL_S0))
    assert ver.status == "PROVED", ver.reason
    cert = ver.evidence["certificate"]
    accepts(cert)
    return cert


def test_every_hypothesis_has_its_test_here():
    here = {name for name in globals() if name.startswith("test_")}
    for h in declaration(KIND).hypotheses:
        assert h.forgery.endswith(f"test_neutral.py::test_{h.id.replace('-', '_')}")
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
    rejects(*N.claim_rank(genuine, {"rank": 2}))
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
    rejects(*N.other_branch(genuine, 0.0692, 0.002))


def test_entry_funnel(genuine):
    rejects(*N.entry_funnel(genuine))


def test_the_entry_builder_reproduces_a_genuine_entry(genuine):
    # the forger's tool is faithful: an entry built on the region's own branch is accepted
    g = N.Geometry(genuine)
    S0, _e, _r = g.sigma0(g.theta1, g.roots(g.theta1)[0], 0.9 * g.zbar1)
    accepts(g.forged(S0))


def test_regression_other_branch_blows_up(genuine):
    """Accepted before the band check: the forged claim (global, rank-one limit) is false."""
    forged, pattern = N.other_branch(genuine, 0.0692, 0.002)
    # independent: DOP853 at rtol 1e-12 (tests/soundness/oracle.py) from the forged Σ₀ — Σ blows up
    # at T* ≈ 3.0, so the solution is not global
    from symbolic_tf.spec.problem import parse_problem

    run = simulate(parse_problem(forged["problem"]), 10.0, rtol=1e-12)
    assert run.status == "blowup" and 2.5 < run.t < 3.5, (run.status, run.t, run.message)
    # its chart point r₁ is ≈ 2.15 from s_c(θ₁) while the band is 10⁻³ wide
    g = N.Geometry(forged)
    assert abs(g.s1 - g.roots(g.theta1)[0]) > 1000 * float(N.F(genuine["data"]["s_width"]))
    rejects(forged, pattern)


# --------------------------------------------------------------------------- checks 2–6: the region
def test_cone_transversal(genuine):
    rejects(*N.cone_transversal(genuine))


def test_fast_contraction(genuine):
    rejects(*N.fast_contraction(genuine))


def test_fast_funnel_margin(genuine):
    rejects(*N.fast_funnel_margin(genuine))


def test_zeta_decay(genuine):
    rejects(*N.zeta_decay(genuine, 10))


def test_rest_point_bracket(genuine):
    rejects(*N.rest_point_bracket(genuine))


def test_slow_contraction(genuine):
    """On this problem f′·ℓᵀβ keeps its sign wherever the fast checks hold, so no region of the genuine
    certificate violates the slow contraction alone (every attempt fails a fast check first, or is
    accepted and true).  The check itself, with the kind's failure: a piece where f(θ)/(θ − θ*) and
    the cofactor give −(f/(θ − θ*))·cofactor ∌ (0, ∞) — f = −(θ − θ*)·ℓᵀβ bent back by a piece whose
    f′ changes sign next to the bracket — is rejected naming the slow contraction.  (The growth kind's
    test forges a whole certificate: there f′ does change sign inside an admissible region.)"""
    star = interval_ball(flint.fmpq(-1, 10 ** 9), flint.fmpq(1, 10 ** 9))
    pieces = []
    for j in range(4):
        lo, hi = flint.fmpq(j - 2, 10), flint.fmpq(j - 1, 10)
        tb = interval_ball(lo, hi)
        fprime = flint.arb(1) if j != 2 else interval_ball(flint.fmpq(-1), flint.fmpq(1))
        fv = fprime * tb
        pieces.append((tb, flint.arb(-1), fprime, fv, flint.arb(0), flint.arb(0)))
    with pytest.raises(Exception, match="slow field does not contract"):
        _slow_contraction(pieces, star, _bad)


def test_reach_inside_theta(genuine):
    rejects(*N.reach_inside_theta(genuine))


def test_offset_inside_band(genuine):
    rejects(*N.offset_inside_band(genuine))


# --------------------------------------------------------------------------- other forgeries tried
def test_a_growth_region_is_not_a_clustering_one(genuine):
    # the same data under the growth kind: f = ℓᵀβ has no zero in the bracket (φ vanishes there)
    c = N.swapped_kind(genuine, "tube-growth-neutral", "GLOBAL_EXISTENCE", {})
    rejects(c, r"does not change sign on theta_star")


def test_a_bias_is_harmless(genuine):
    # a bias b does not enter the covariance flow: same flow, same (true) claim
    accepts(N.with_problem(genuine, b=["1", "2", "3"]))


def test_the_genuine_entry_is_well_inside_the_band(genuine):
    g = N.Geometry(genuine)
    sc = g.roots(g.theta1)[0]
    assert abs(g.s1 - sc) < 0.5 * float(N.F(genuine["data"]["s_width"]))
    assert np.isfinite(g.zbar1)
