"""Horizons of a schedule whose last phase depends on t (issue 50 item 7): the horizon reaches the
route from the file (``T``), from the library's ``horizon`` argument and from ``classify --horizon``;
without any, horizons are searched by doubling and a blow-up is found without being told where.

The reference: V = I, A(t) = (t − 1)·I, Σ₀ = I, so Σ(t)⁻¹ = I − ∫₀ᵗ 2(s − 1) ds·I = (1 − t² + 2t)·I
and T* = 1 + √2 (docs/schedules.md)."""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import symbolic_tf as stf
from symbolic_tf.certify.check import check
from symbolic_tf.cli import main
from symbolic_tf.spec.problem import parse_problem

F = Fraction
POLY = {"variant": "softmax", "d": 2, "A": [["t - 1", 0], [0, "t - 1"]], "V": [[1, 0], [0, 1]],
        "initial": {"cov": [[1, 0], [0, 1]]}}


def _brackets_one_plus_sqrt2(c):
    lo, hi = F(c.T_lo), F(c.T_hi)
    assert 1 < lo <= hi and (lo - 1) ** 2 < 2 < (hi - 1) ** 2   # exact: 1 + √2 ∈ (T_lo, T_hi)
    assert hi - lo < F(1, 10 ** 6)


def _float_blowup_time(p, T=3.0):
    sol = stf.integrate(p, T, rtol=1e-11, atol=1e-13)
    assert sol.status[0] != 0  # it stops before T
    return float(sol.t_end[0])


def test_a_blowup_is_found_without_a_horizon():
    p = parse_problem(POLY)
    c = stf.classify(p)
    assert c.regime == "BLOWUP" and c.status == "PROVED" and c.route == "schedule-phases"
    assert "doubling" in c.reason
    _brackets_one_plus_sqrt2(c)
    assert check(c.certificate).ok
    # an independent float integration stops (‖Σ‖ large) just before the certified bracket
    t_end = _float_blowup_time(p)
    assert abs(t_end - (1 + np.sqrt(2))) < 1e-3 and t_end <= float(F(c.T_hi))


@pytest.mark.parametrize("horizon, regime", [(3.0, "BLOWUP"), (2.0, "UNDECIDED")])
def test_the_library_horizon_reaches_the_schedule_route(horizon, regime):
    p = parse_problem(POLY)
    c = stf.classify(p, horizon=horizon)
    assert c.regime == regime
    if regime == "BLOWUP":
        _brackets_one_plus_sqrt2(c)
        assert c.certificate["data"]["T_c"] == "3"   # composed up to the horizon given
        return
    # up to t = 2 it exists, and Σ(2)⁻¹ = (1 − 4 + 4)·I = I: the certified end box is that point
    (route, claim, cert), = c.side_claims
    assert route == "schedule-phases" and claim.params["T"] == "2"
    assert claim.params["lo"] == claim.params["hi"] == [["1", "0"], ["0", "1"]]
    sol = stf.integrate(p, 2.0, rtol=1e-12, atol=1e-14)
    assert np.allclose(sol.Sigma_end[0], np.eye(2), atol=1e-8)
    assert check(cert).ok


def test_a_horizon_in_the_file_is_used_as_written():
    c = stf.classify(parse_problem({**POLY, "T": "5/2"}))
    assert c.regime == "BLOWUP" and c.certificate["data"]["T_c"] == "5/2"
    _brackets_one_plus_sqrt2(c)


def test_classify_horizon_option_reaches_the_route(tmp_path, capsys):
    f = tmp_path / "p.toml"
    f.write_text('variant = "softmax"\nd = 2\nA = [["t - 1", 0], [0, "t - 1"]]\nV = [[1, 0], [0, 1]]\n'
                 '[initial]\ncov = [[1, 0], [0, 1]]\n')
    assert main(["classify", str(f), "--horizon", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["regime"] == "UNDECIDED" and "T = 2" in json.dumps(out)
    assert main(["classify", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["regime"] == "BLOWUP"


def test_no_blowup_up_to_the_cap_is_said():
    """A(t) = −t·I: Σ(t)⁻¹ = (1 + t²)·I, no blow-up; the search stops at the documented cap and
    keeps the end box there (Σ(T) = I/(1 + T²), exact)."""
    from symbolic_tf.certify.search._schedule_phases import MAX_DOUBLINGS

    c = stf.classify(parse_problem({**POLY, "A": [["-t", 0], [0, "-t"]]}))
    assert c.status == "UNDECIDED"
    (route, claim, cert), = c.side_claims
    T = F(claim.params["T"])
    assert T == 2 ** MAX_DOUBLINGS
    assert F(claim.params["lo"][0][0]) == F(claim.params["hi"][0][0]) == 1 / (1 + T ** 2)
    assert check(cert).ok
