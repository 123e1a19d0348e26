"""Forgeries of the ``tube-t`` segments of ``schedule-phases`` certificates: a validated tube of a
flow whose parameters are polynomials in t, replayed with the depth as a state
(symbolic_tf/certify/check/tube_time.py).

The genuine certificate: V = [[1, 1/2], [−1/2, 1]] (not a multiple of I), A(t) = (2t − 1)·I, T = 1 —
Σ(1) = Σ₀ exactly (the flow of I on the clock ∫₀ᵗ(2s − 1) ds, which is 0 at t = 1), enclosed in a
tight end box.  Each forgery keeps every field consistent and breaks one hypothesis.
"""
from __future__ import annotations

import copy
from fractions import Fraction as Fr

import pytest

import symbolic_tf as stf
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, forge, rejects

DOC = {"variant": "softmax", "d": 2, "V": [[1, "1/2"], ["-1/2", 1]], "A": [["2*t - 1", 0], [0, "2*t - 1"]], "T": 1,
       "initial": {"cov": [[1, "1/5"], ["1/5", "1/2"]]}}


def _endpoint(doc):
    (_, _, cert), = stf.classify(parse_problem(doc)).side_claims
    return cert


@pytest.fixture(scope="module")
def G():
    cert = _endpoint(DOC)
    assert [s["flow"] for s in cert["data"]["segments"]] == ["tube-t"]
    return cert


def test_genuine_certificate_checks_and_encloses_sigma0(G):
    assert accepts(G).ok
    lo, hi = G["data"]["lo"], G["data"]["hi"]
    S0 = [[Fr(1), Fr(1, 5)], [Fr(1, 5), Fr(1, 2)]]
    assert all(Fr(lo[i][j]) <= S0[i][j] <= Fr(hi[i][j]) for i in range(2) for j in range(2))


def test_a_tube_of_another_flow_is_rejected(G):
    """The steps of the tube of a ten times slower flow (A/10), stored for this flow: its steps are
    too long for this one, and the replay of this problem's own flow does not validate them."""
    slow = _endpoint({**DOC, "A": [["(2*t - 1)/10", 0], [0, "(2*t - 1)/10"]]})
    segs = copy.deepcopy(G["data"]["segments"])
    segs[0]["steps"] = slow["data"]["segments"][0]["steps"]
    assert len(segs[0]["steps"]) < len(G["data"]["segments"][0]["steps"])
    rejects(forge(G, data={"segments": segs}), r"time-dependent tube step \d+ does not validate")


def test_one_step_across_the_segment_is_rejected(G):
    segs = copy.deepcopy(G["data"]["segments"])
    segs[0]["steps"] = ["0", "1"]
    rejects(forge(G, data={"segments": segs}), r"time-dependent tube step 1 does not validate")


def test_a_time_tube_ending_before_the_segment_is_rejected(G):
    segs = copy.deepcopy(G["data"]["segments"])
    segs[0]["steps"] = segs[0]["steps"][:-1]
    rejects(forge(G, data={"segments": segs}), "the tube ends at .*, the segment has length 1")


def test_a_constant_tube_on_a_polynomial_phase_is_rejected(G):
    segs = copy.deepcopy(G["data"]["segments"])
    segs[0]["flow"] = "tube"
    rejects(forge(G, data={"segments": segs}), "validated tubes cover constant phases only")


def test_the_tube_of_a_changed_drift_does_not_end_in_the_box(G):
    """The same steps replayed for a problem with a drift F = diag(t, 0): the flow is another one,
    its end is not in the stated box."""
    doc = {**G["problem"], "F": [["t", 0], [0, 0]]}
    rejects(forge(G, problem=doc), "does not contain the enclosure|does not validate")


def test_an_end_box_shifted_off_the_enclosure_is_rejected(G):
    lo = copy.deepcopy(G["data"]["lo"])
    hi = copy.deepcopy(G["data"]["hi"])
    lo[0][0] = hi[0][0]
    hi[0][0] = str(Fr(hi[0][0]) + Fr(1, 10 ** 6))
    rejects(forge(G, data={"lo": lo, "hi": hi}, params={**G["claim"]["params"], "lo": lo, "hi": hi}),
            "the stated end box does not contain the enclosure")


def test_a_riccati_segment_of_a_multihead_schedule_is_rejected():
    """The closed form is one head's (V = v(t)·I): a multi-head segment stored as riccati is refused."""
    doc = {"variant": "multihead", "d": 2, "T": "1/2",
           "heads": [{"A": [["t", 0], [0, -1]], "V": [[1, 0], [0, 1]]}, {"A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]]}],
           "initial": {"cov": [[1, 0], [0, 1]]}}
    cert = _endpoint(doc)
    assert [s["flow"] for s in cert["data"]["segments"]] == ["tube-t"] and accepts(cert).ok
    segs = copy.deepcopy(cert["data"]["segments"])
    segs[0] = {"t0": "0", "t1": "1/2", "flow": "riccati"}
    rejects(forge(cert, data={"segments": segs}), "riccati segment at t = 0: needs A, V and no drift")
