"""Phases whose parameters depend on t with a general V or a drift (issue 50 item 7): certified by
the validated tube with the depth as an extra state (flow ``tube-t`` of ``schedule-phases``,
symbolic_tf/certify/check/tube_time.py), each verdict against an exact closed form or an
independent float integration.

Closed form used: with A(t) = a(t)·A₀ (a scalar polynomial times a constant matrix) and V, F = 0
constant, Σ̇ = a(t)(VΣA₀Σ + ΣA₀ᵀΣVᵀ) is the constant flow of A₀ run on the clock w(t) = ∫₀ᵗ a, so
Σ(t) = Φ_{A₀}(w(t))(Σ₀); when w(T) = 0 the state is back at Σ₀ exactly, whatever V is."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import symbolic_tf as stf
from symbolic_tf.certify.check import check
from symbolic_tf.spec.problem import parse_problem

F = Fraction
GENERAL_V = [[1, "1/2"], ["-1/2", 1]]
BASE = {"variant": "softmax", "d": 2, "V": GENERAL_V, "initial": {"cov": [[1, "1/5"], ["1/5", "1/2"]]}}


def _endpoint(c):
    (route, claim, cert), = c.side_claims
    assert route == "schedule-phases" and claim.subject == "schedule-endpoint"
    assert check(cert).ok
    return claim, cert


def _inside(claim, M, slack=0.0):
    for i in range(2):
        for j in range(2):
            lo, hi = F(claim.params["lo"][i][j]), F(claim.params["hi"][i][j])
            assert float(lo) - slack <= M[i][j] <= float(hi) + slack


def test_general_V_with_a_polynomial_A_returns_to_sigma0_inside_the_certified_box():
    """a(t) = 2t − 2 on [0, 2]: w(2) = 0, so Σ(2) = Σ₀ exactly, inside the certified box."""
    p = parse_problem({**BASE, "A": [["2*t - 2", 0], [0, "2*t - 2"]], "T": 2})
    c = stf.classify(p)
    assert c.status == "UNDECIDED"   # the last phase depends on t: Σ(T) in a box is what is proved
    claim, cert = _endpoint(c)
    assert [s["flow"] for s in cert["data"]["segments"]] == ["tube-t"]
    S0 = [[F(1), F(1, 5)], [F(1, 5), F(1, 2)]]
    for i in range(2):
        for j in range(2):   # exact: Σ₀ lies in the box
            assert F(claim.params["lo"][i][j]) <= S0[i][j] <= F(claim.params["hi"][i][j])
            assert F(claim.params["hi"][i][j]) - F(claim.params["lo"][i][j]) < F(1, 10 ** 9)
    sol = stf.integrate(p, 2.0, rtol=1e-12, atol=1e-14)
    _inside(claim, sol.Sigma_end[0], 1e-9)


def test_polynomial_drift_phase_then_a_tail_decides_the_regime():
    """V(t) = [[1 + t, 1/2], [−1/2, 1]], A = −I, F(t) = diag(−t/4, 0) on [0, 1/2), then V = I, F = 0:
    the tube with the depth as a state crosses the first phase, a class tail (A = −I, V = I: every
    Σ₀ ≻ 0 collapses) decides; the float solution decays too."""
    doc = {**BASE, "A": [[-1, 0], [0, -1]], "V": [["1 + t", "1/2"], ["-1/2", 1]], "F": [["-t/4", 0], [0, 0]],
           "phase": [{"duration": "1/2"}, {"duration": 1, "V": [[1, 0], [0, 1]], "F": [[0, 0], [0, 0]]}]}
    p = parse_problem(doc)
    c = stf.classify(p)
    assert c.regime == "CLUSTERING" and c.status == "PROVED" and c.rank == 0
    data = c.certificate["data"]
    assert [s["flow"] for s in data["segments"]] == ["tube-t"] and data["T_c"] == "1/2"
    assert check(c.certificate).ok
    sol = stf.integrate(p, 40.0, rtol=1e-10, atol=1e-14)
    assert np.linalg.norm(sol.Sigma_end[0]) < 0.05


def test_the_time_tube_agrees_with_the_reference_closed_form_of_V_equal_I():
    """V = I (riccati is preferred there); forcing the depth-as-state tube on the same segment gives a
    box that contains the exact Riccati end point Σ(1) = (Σ₀⁻¹ − ∫₀¹ (A + Aᵀ))⁻¹."""
    import flint

    from symbolic_tf.certify.check.kinds.schedule_phases import riccati_end, time_heads
    from symbolic_tf.certify.search.validated.time_tube import integrate_time_tube
    from symbolic_tf.spec.schedule import segments

    p = parse_problem({**BASE, "V": [[1, 0], [0, 1]], "A": [["-t", "t^2/2"], [0, "-1"]], "T": 1})
    seg = segments(p.schedule)[0]
    heads, Fd = time_heads(seg, p)
    tube = integrate_time_tube(heads, Fd, F(0), p.exact.Sigma0, F(1))
    assert tube.complete
    exact = riccati_end(seg, p, p.exact.Sigma0, F(1))
    from symbolic_tf.exact.precision import working_precision

    for i in range(2):
        for j in range(2):
            with working_precision(512):
                assert tube.end[i, j].contains(flint.arb(exact[i, j]))
            assert tube.end[i, j].rad() < 1e-10 * (1 + abs(float(exact[i, j])))
