"""Forgeries of ``schedule-phases`` certificates (symbolic_tf/certify/check/kinds/schedule_phases.py).

Each test starts from a genuine certificate found by the library's own search (module fixture,
≈ 1.5 s: the problems of tests/certify/test_schedule_kind.py) and changes data, problem and claim
together so that exactly one hypothesis of the composed argument fails; the checker must name it.
"""
from __future__ import annotations

import copy
from fractions import Fraction as Fr

import pytest

import symbolic_tf as stf
from symbolic_tf.certify.check.kinds.schedule_phases import advance, cut_segments
from symbolic_tf.exact.rational import qmat
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, forge, q, rejects

BASE = {"variant": "softmax", "d": 2, "V": [[1, 0], [0, 1]], "initial": {"cov": [[1, "1/5"], ["1/5", "1/2"]]}}
PROBLEMS = {
    # riccati, riccati, then a point tail (blowup-riccati-vI) from the exact Σ(5/6)
    "tail": {**BASE, "A": [[-1, "1/3"], [0, -1]],
             "phase": [{"duration": "1/2"}, {"duration": "1/3", "A": [["1/2", 0], ["1/4", "-1/2"]]},
                       {"duration": 1, "A": [[1, 0], [0, "1/2"]]}]},
    # a blow-up bracket inside the first (riccati) phase
    "blowup": {**BASE, "A": [[1, 0], [0, 1]], "phase": [{"duration": 2}, {"duration": 1, "A": [[-1, 0], [0, -1]]}]},
    # riccati, tube, then a class tail (uniform-vI, every Σ₀ ≻ 0)
    "tube": {**BASE, "A": [["t", 0], [0, "-t"]],
             "phase": [{"duration": "1/4"}, {"duration": "1/4", "A": [[-1, 0], [0, -1]], "V": [[1, "1/2"], ["-1/2", 1]]},
                       {"duration": 1, "V": [[1, 0], [0, 1]]}]},
    # two polynomial riccati phases and an exact end box (the last phase depends on t)
    "endpoint": {**BASE, "A": [["t", 0], [0, "-t"]], "T": "3/4",
                 "phase": [{"duration": "1/4"}, {"duration": 1, "A": [["1 - t", "t/2"], [0, "t^2"]]}]},
    # a tube and an end box
    "endbox": {**BASE, "A": [[-1, 0], [0, -1]], "V": [[1, "1/2"], ["-1/2", 1]],
               "phase": [{"duration": "1/4"}, {"duration": 1, "A": [[1, 0], [0, -1]], "V": [[1, 2], [0, "1/2"]]}]},
    # a linear (V = 0, rotation drift) phase, then a class tail (every Σ₀ ⪰ 0, Σ₀ ≠ 0 blows up)
    "linear": {**BASE, "A": [[1, 0], [0, 1]], "V": [[0, 0], [0, 0]], "F": [[0, 1], [-1, 0]],
               "phase": [{"duration": "1/2"}, {"duration": 1, "V": [[1, 0], [0, 1]], "F": [[0, 0], [0, 0]]}]},
    # a tube, then rest (V = 0, F = 0): an equilibrium box
    "rest": {**BASE, "A": [[1, 0], [0, 1]], "F": [[0, 1], [-1, 0]],
             "phase": [{"duration": "1/4"}, {"duration": 1, "V": [[0, 0], [0, 0]], "F": [[0, 0], [0, 0]]}]},
}


def _certificate(doc):
    c = stf.classify(parse_problem(doc))
    if c.certificate is not None:
        return c.certificate
    (_, _, cert), = c.side_claims  # an undecided last phase: the certified end box
    return cert


@pytest.fixture(scope="module")
def G():
    out = {k: _certificate(doc) for k, doc in PROBLEMS.items()}
    kinds = {k: [s["flow"] for s in c["data"]["segments"]] for k, c in out.items()}
    assert kinds["tail"] == ["riccati", "riccati"] and kinds["tube"] == ["riccati", "tube"]
    assert kinds["endbox"] == ["tube"] and kinds["linear"] == ["linear"] and kinds["rest"] == ["tube"]
    assert out["tube"]["data"]["tail"]["claim"]["quantifier"] == "every Σ₀ ≻ 0"
    assert out["linear"]["data"]["tail"]["claim"]["quantifier"] == "every Σ₀ ⪰ 0, Σ₀ ≠ 0"
    return out


def _problem(cert, **changes):
    p = copy.deepcopy(cert["problem"])
    p.update(changes)
    return p


def test_genuine_certificates_check(G):
    for c in G.values():
        assert accepts(c).ok


# --- the problem class -------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["sinkhorn", "linear"])
def test_another_variant_is_rejected(G, variant):
    """The exact riccati phases are softmax's closed form; another variant's flow is different."""
    c = G["endpoint"]
    rejects(forge(c, problem=_problem(c, variant=variant)), "one quadratic .softmax-type. head")


# --- the segments ------------------------------------------------------------------------------
def test_a_moved_segment_end_is_rejected(G):
    c = G["tail"]
    segs = copy.deepcopy(c["data"]["segments"])
    segs[0]["t1"], segs[1]["t0"] = "2/5", "2/5"
    rejects(forge(c, data={"segments": segs}), r"the schedule's is \[0, 1/2\]")


def test_a_dropped_segment_is_rejected(G):
    c = G["tail"]
    rejects(forge(c, data={"segments": c["data"]["segments"][1:]}), "1 segments stored, the schedule has 2")


def test_riccati_segment_with_a_drift_is_rejected(G):
    c = G["tail"]
    phases = copy.deepcopy(c["problem"]["phase"])
    phases[1]["F"] = [[0, 0], [0, 0]]  # F = diag(1/10, 0) on [0, 1/2] only
    rejects(forge(c, problem=_problem(c, F=[["1/10", 0], [0, 0]], phase=phases)), "no drift")


def test_riccati_segment_with_a_non_scalar_V_is_rejected(G):
    c = G["tail"]
    phases = copy.deepcopy(c["problem"]["phase"])
    phases[1]["V"] = [[1, 0], [0, 1]]
    rejects(forge(c, problem=_problem(c, V=[[1, 0], [0, 2]], phase=phases)), r"V\(t\) is not v\(t\)·I")


def test_riccati_segment_through_a_blowup_is_rejected(G):
    """From Σ₀ × 100 the solution blows up before 3/4 (∫(A + Aᵀ) ≈ diag(1/16, −1/16) already on the
    first phase): the stored riccati segment across T* is refused rather than continued past it."""
    c = G["endpoint"]
    cov = [[100, 20], [20, 50]]
    rejects(forge(c, problem=_problem(c, initial={"cov": cov})), "does not exist on the whole segment")


def test_riccati_after_a_tube_is_rejected(G):
    """The closed form needs an exact start; after a tube there is only a box."""
    box = G["endbox"]
    doc = {**BASE, "A": [[-1, 0], [0, -1]], "V": [[1, "1/2"], ["-1/2", 1]],
           "phase": [{"duration": "1/4"}, {"duration": 1, "A": [[1, 0], [0, -1]], "V": [[1, 0], [0, 1]]}]}
    segs = box["data"]["segments"] + [{"t0": "1/4", "t1": "1/2", "flow": "riccati"}]
    forged = forge(box, problem=doc, data={"T_c": "1/2", "segments": segs},
                   params={**box["claim"]["params"], "T": "1/2"})
    rejects(forged, "riccati segment at t = 1/4: needs an exact start point")


def test_linear_segment_with_attention_is_rejected(G):
    c = G["linear"]
    rejects(forge(c, problem=_problem(c, V=[["1/10", 0], [0, 0]])), "linear segment at t = 0: V is not zero")


def test_linear_segment_with_a_moving_drift_is_rejected(G):
    c = G["linear"]
    rejects(forge(c, problem=_problem(c, F=[[0, "1 + t"], [-1, 0]])), "F depends on t")


def test_tube_on_a_polynomial_phase_is_rejected(G):
    c = G["endbox"]
    rejects(forge(c, problem=_problem(c, A=[["-1 + t/100", 0], [0, -1]])), "tubes cover constant phases only")


def test_tube_starting_late_is_rejected(G):
    """A tube from 1/100 to 1/4 would carry Σ over a shorter time than the segment's."""
    c = G["endbox"]
    seg = copy.deepcopy(c["data"]["segments"])
    seg[0]["steps"][0] = "1/100"
    rejects(forge(c, data={"segments": seg}), "the first step time must be 0")


def test_tube_ending_short_of_the_segment_is_rejected(G):
    c = G["endbox"]
    seg = copy.deepcopy(c["data"]["segments"])
    seg[0]["steps"] = seg[0]["steps"][:-1]
    rejects(forge(c, data={"segments": seg}), "the tube ends at")


# --- a blow-up inside a riccati segment --------------------------------------------------------
def test_blowup_followed_by_a_tail_is_rejected(G):
    c = G["blowup"]
    rejects(forge(c, data={"tail": G["linear"]["data"]["tail"]}), "stated by the last segment only")


def test_blowup_in_a_segment_that_is_not_the_last_is_rejected(G):
    c = G["blowup"]
    doc = _problem(c, phase=[{"duration": 1}, {"duration": 1, "A": [[2, 0], [0, 2]]},
                             {"duration": 1, "A": [[-1, 0], [0, -1]]}])
    seg = dict(c["data"]["segments"][0], t1="1")
    segs = [seg, {"t0": "1", "t1": "2", "flow": "riccati"}]
    rejects(forge(c, problem=doc, data={"segments": segs}), "stated by the last segment only")


def test_blowup_with_only_T_lo_is_rejected(G):
    """A lower end alone would claim "T* ≥ T_lo" without ever showing that a root exists."""
    c = G["blowup"]
    seg = {k: v for k, v in c["data"]["segments"][0].items() if k != "T_hi"}
    forged = forge(c, data={"segments": [seg]}, params={"T_lo": seg["T_lo"]})
    rejects(forged, "needs both ends T_lo and T_hi")


def test_blowup_bracket_after_the_blowup_is_rejected(G):
    c = G["blowup"]  # T* = 1/(2λ_max(Σ₀)) ≈ 0.467
    seg = dict(c["data"]["segments"][0], T_lo="1", T_hi="3/2")
    rejects(forge(c, data={"segments": [seg]}, params={"T_lo": "1", "T_hi": "3/2"}), "has no first root")


def test_blowup_bracket_before_the_blowup_is_rejected(G):
    c = G["blowup"]
    seg = dict(c["data"]["segments"][0], T_lo="1/10", T_hi="1/5")
    rejects(forge(c, data={"segments": [seg]}, params={"T_lo": "1/10", "T_hi": "1/5"}), "has no first root")


def test_blowup_bracket_past_the_segment_is_rejected(G):
    c = G["blowup"]
    seg = dict(c["data"]["segments"][0], T_hi="3")
    rejects(forge(c, data={"segments": [seg]}, params={"T_lo": seg["T_lo"], "T_hi": "3"}), "τ_hi ≤ h")


def test_zero_sigma0_does_not_blow_up(G):
    """Σ₀ = 0 is an equilibrium: p ≡ 1 has no root, whatever bracket is stated."""
    c = G["blowup"]
    rejects(forge(c, problem=_problem(c, initial={"cov": [[0, 0], [0, 0]]})), "has no first root")


# --- a tail ------------------------------------------------------------------------------------
def test_tail_before_the_last_phase_is_rejected(G):
    """A genuine constant certificate for the second phase's parameters from the exact Σ(1/2): the
    schedule changes again at 5/6, so the constant tail does not describe the flow after 1/2."""
    c = G["tail"]
    p = parse_problem(c["problem"])
    (seg, t1), = cut_segments(p, Fr(1, 2))
    S = advance(seg, p, qmat(p.cov), {"t1": t1, "flow": "riccati"})
    cov = [[q(Fr(int(S[i, j].p), int(S[i, j].q))) for j in range(2)] for i in range(2)]
    tail = stf.classify(parse_problem({**BASE, "A": [["1/2", 0], ["1/4", "-1/2"]], "initial": {"cov": cov}})).certificate
    assert accepts(tail).ok
    tp = tail["claim"]["params"]
    params = {k: q(Fr(tp[k]) + Fr(1, 2)) for k in ("T_lo", "T_hi") if k in tp}
    forged = forge(c, data={"T_c": "1/2", "segments": c["data"]["segments"][:1], "tail": tail},
                   subject=tail["claim"]["subject"], params=params)
    rejects(forged, "a tail starts where the last segment starts")


def test_tail_on_a_polynomial_last_phase_is_rejected(G):
    c = G["tail"]
    phases = copy.deepcopy(c["problem"]["phase"])
    phases[2]["A"] = [["1 + t/100", 0], [0, "1/2"]]
    rejects(forge(c, problem=_problem(c, phase=phases)), "must have constant parameters")


def test_property_tail_is_rejected(G):
    from symbolic_tf.certify.search.twisted_gaussian import twisted_gaussian_witness

    c = G["tail"]
    prop = twisted_gaussian_witness([[1, 0], [0, -1]], [[1, 0], [0, 1]]).evidence["certificate"]
    rejects(forge(c, data={"tail": prop}), "the tail's claim is not a regime")


def test_failing_tail_is_named(G):
    c = G["tail"]
    tail = copy.deepcopy(c["data"]["tail"])
    tail["claim"]["params"]["T_hi"] = tail["claim"]["params"]["T_lo"]
    rejects(forge(c, data={"tail": forge(tail, params=tail["claim"]["params"])}), "the tail certificate")


def test_schedule_tail_is_rejected(G):
    c = G["tail"]
    rejects(forge(c, data={"tail": G["blowup"]}), "a tail must be a certificate for constant parameters")


def test_tail_of_other_parameters_is_rejected(G):
    c = G["tail"]
    phases = copy.deepcopy(c["problem"]["phase"])
    phases[2]["A"] = [[1, 0], [0, "1/3"]]
    rejects(forge(c, problem=_problem(c, phase=phases)), "other parameters than the schedule's last phase")


def test_point_tail_from_another_start_is_rejected(G):
    c = G["tail"]
    rejects(forge(c, problem=_problem(c, initial={"cov": [[1, "1/5"], ["1/5", "1/3"]]})),
            "start exactly at the certified end point")


def test_class_tail_not_covering_a_singular_start_is_rejected(G):
    """The tail proves clustering for every Σ₀ ≻ 0; from a rank-one Σ₀, Σ(1/2) has rank one."""
    c = G["tube"]
    rejects(forge(c, problem=_problem(c, initial={"cov": [[1, "1/2"], ["1/2", "1/4"]]})), "does not cover Σ\\(T_c\\)")


def test_zero_sigma0_under_a_nonzero_class_tail_is_rejected(G):
    """"Every Σ₀ ⪰ 0, Σ₀ ≠ 0 blows up" says nothing of Σ₀ = 0, which stays 0."""
    c = G["linear"]
    rejects(forge(c, problem=_problem(c, initial={"cov": [[0, 0], [0, 0]]})), "does not cover Σ\\(T_c\\)")


# --- rest and the end box ----------------------------------------------------------------------
def test_rest_with_a_moving_last_phase_is_rejected(G):
    c = G["rest"]
    phases = copy.deepcopy(c["problem"]["phase"])
    phases[1]["V"] = [["1/100", 0], [0, 0]]
    rejects(forge(c, problem=_problem(c, phase=phases)), "'rest' needs V ≡ 0 and F ≡ 0")


def test_rest_before_the_last_phase_is_rejected(G):
    c = G["rest"]
    phases = copy.deepcopy(c["problem"]["phase"])
    phases.insert(1, {"duration": "1/8", "V": [[1, 0], [0, 1]], "F": [[0, 0], [0, 0]]})
    rejects(forge(c, problem=_problem(c, phase=phases)), "'rest' needs the last segment to start at T_c")


def test_rest_box_too_small_is_rejected(G):
    c = G["rest"]
    params = {**c["claim"]["params"], "r": "0"}
    rejects(forge(c, data={"r": "0"}, params=params), "equilibrium box does not contain")


def test_end_box_not_containing_the_end_is_rejected(G):
    c = G["endpoint"]
    lo, hi = copy.deepcopy(c["data"]["lo"]), copy.deepcopy(c["data"]["hi"])
    lo[0][0] = hi[0][0] = q(Fr(lo[0][0]) + Fr(1, 10 ** 6))
    params = {**c["claim"]["params"], "lo": lo, "hi": hi}
    rejects(forge(c, data={"lo": lo, "hi": hi}, params=params), "end box does not contain")


def test_end_box_at_another_depth_is_rejected(G):
    """The box's depth T is T_c: the same box claimed at a later depth is another claim."""
    c = G["endpoint"]
    rejects(forge(c, params={**c["claim"]["params"], "T": "1"}), "not the one the data prove")


def test_widened_quantifier_is_rejected(G):
    c = G["blowup"]
    rejects(forge(c, quantifier="every Σ₀ ≻ 0"), "not the one the data prove")
