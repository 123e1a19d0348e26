"""The ``schedule-phases`` certificate kind and route (docs/schedules.md): composition of exact
phase flows, agreement with the 40-digit reference integrator, constant schedules deciding as
the constant problem does, and rejection of tampered phases."""
from __future__ import annotations

import copy
from dataclasses import replace
from fractions import Fraction

import mpmath
import pytest

import symbolic_tf as stf
from symbolic_tf.certify.check import check
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.spec.schedule import problem_at, segments

F = Fraction
BASE = {"variant": "softmax", "d": 2, "V": [[1, 0], [0, 1]], "initial": {"cov": [[1, "1/5"], ["1/5", "1/2"]]}}
PIECEWISE = {**BASE, "A": [[-1, "1/3"], [0, -1]],
             "phase": [{"duration": "1/2"}, {"duration": "1/3", "A": [["1/2", 0], ["1/4", "-1/2"]]},
                       {"duration": 1, "A": [[1, 0], [0, "1/2"]]}]}


def _rehash(c):
    c["problem_hash"] = parse_problem(c["problem"]).content_hash()
    return c


def _reference_end(problem, T_c, dps=40):
    """Σ(T_c) by the 40-digit Taylor reference integrator, one constant phase after another."""
    cov = problem.cov
    for seg in segments(problem.schedule):
        if seg.t0 >= T_c:
            break
        h = min(seg.t1, T_c) - seg.t0
        sol = reference_solve_problem(replace(problem_at(problem, seg.t0), cov=cov), h, dps=dps)
        cov = tuple(tuple(F(mpmath.nstr(x, dps + 5)) for x in row) for row in sol.Sigma_end.tolist())
    return cov


def test_piecewise_composition_agrees_with_the_reference_integrator():
    p = parse_problem(PIECEWISE)
    c = stf.classify(p)
    assert c.route == "schedule-phases" and c.regime == "BLOWUP"
    data = c.certificate["data"]
    assert [s["flow"] for s in data["segments"]] == ["riccati", "riccati"] and data["T_c"] == "5/6"
    # the tail is the constant route's certificate from the exact end point Σ(5/6)
    tail = parse_problem(data["tail"]["problem"])
    ref = _reference_end(p, F(5, 6))
    for i in range(2):
        for j in range(2):
            assert abs(tail.cov[i][j] - ref[i][j]) < F(1, 10 ** 30)
    # and the bracket is the tail's shifted by T_c = 5/6
    t_lo, t_hi = F(c.T_lo), F(c.T_hi)
    tail_claim = data["tail"]["claim"]["params"]
    assert t_lo == F(tail_claim["T_lo"]) + F(5, 6) and t_hi == F(tail_claim["T_hi"]) + F(5, 6)
    # the 40-digit integration from Σ(5/6) leaves the float range inside the bracket
    late = reference_solve_problem(replace(problem_at(p, 1), cov=tail.cov), float(t_hi - F(5, 6)) * 1.001,
                                   dps=30, blowup_norm=1e12)
    assert late.blowup and float(t_lo) - 5 / 6 < late.t_end * 1.0001
    assert check(c.certificate).ok


def test_polynomial_phase_closed_form_against_integration():
    doc = {**BASE, "A": [["t", 0], [0, "-t"]], "T": "3/4",
           "phase": [{"duration": "1/4"}, {"duration": 1, "A": [["1 - t", "t/2"], [0, "t^2"]]}]}
    p = parse_problem(doc)
    c = stf.classify(p, )
    assert c.regime == "UNDECIDED"  # the last phase depends on t: only Σ(T) ∈ box is proved
    (route, claim, cert), = c.side_claims
    assert route == "schedule-phases" and claim.subject == "schedule-endpoint"
    lo, hi = claim.params["lo"], claim.params["hi"]
    assert lo == hi  # an exact end point
    sol = stf.integrate(p, 0.75, rtol=1e-12, atol=1e-14)
    for i in range(2):
        for j in range(2):
            assert abs(float(F(lo[i][j])) - sol.Sigma_end[0][i, j]) < 1e-9
    assert check(cert).ok


@pytest.mark.parametrize("doc", [
    {**BASE, "A": [[1, "1/2"], [0, "1/2"]]},                  # riccati-vI blow-up bracket
    {**BASE, "A": [[-1, 0], [0, -1]]},                         # clustering to rank 0
    {**BASE, "A": [[0, 1], [-1, 0]]},                          # stationary
    {**BASE, "A": [[-1, 0], [0, -1]], "V": [[1, "1/2"], ["-1/2", 1]]},  # general V
], ids=["blowup", "clustering", "stationary", "general-V"])
def test_a_constant_schedule_decides_exactly_as_the_constant_problem(doc):
    const = stf.classify(parse_problem(doc))
    sched = stf.classify(parse_problem({**doc, "phase": [{"duration": "1/3"}, {"duration": 2, "A": doc["A"]}]}))
    assert sched.regime == const.regime and sched.status == const.status
    if const.claim_data is None:
        assert sched.claim_data is None
        return
    assert sched.claim_data.same_as(const.claim_data)
    assert sched.route == "schedule-phases"
    assert sched.certificate["data"]["tail"] == const.certificate  # the very same certificate inside
    assert check(sched.certificate).ok


def test_blowup_inside_a_phase_is_bracketed():
    doc = {**BASE, "A": [[1, 0], [0, 1]], "phase": [{"duration": 2}, {"duration": 1, "A": [[-1, 0], [0, -1]]}]}
    c = stf.classify(parse_problem(doc))
    assert c.regime == "BLOWUP" and c.route == "schedule-phases"
    lam = max(mpmath.eig(mpmath.matrix([[1, 0.2], [0.2, 0.5]]))[0])  # T* = λ_max(Σ₀)⁻¹/2
    assert F(c.T_lo) <= F(mpmath.nstr(1 / (2 * lam.real), 30)) <= F(c.T_hi)


def test_general_V_phase_uses_a_validated_tube_then_a_uniform_tail():
    doc = {**BASE, "A": [["t", 0], [0, "-t"]],
           "phase": [{"duration": "1/4"}, {"duration": "1/4", "A": [[-1, 0], [0, -1]], "V": [[1, "1/2"], ["-1/2", 1]]},
                     {"duration": 1, "V": [[1, 0], [0, 1]]}]}
    c = stf.classify(parse_problem(doc))
    assert c.regime == "CLUSTERING" and c.rank == 0
    data = c.certificate["data"]
    assert [s["flow"] for s in data["segments"]] == ["riccati", "tube"]
    assert data["tail"]["claim"]["quantifier"] != "this Σ₀"  # decided from a box: a class claim


def test_a_blowup_inside_a_general_V_polynomial_phase_is_undecided_with_a_reason():
    """V(t) = [[1 + t, 1/2], [0, 1]], A = I: no closed form; the tube with the depth as a state
    encloses Σ up to where its step collapses — where the float integration blows up — and no
    blow-up certificate exists for a t-dependent general V: UNDECIDED, with the reason."""
    doc = {**BASE, "A": [[1, 0], [0, 1]], "V": [["1 + t", "1/2"], [0, 1]],
           "phase": [{"duration": "1/2"}, {"duration": 1, "V": [[1, 0], [0, 1]]}]}
    p = parse_problem(doc)
    c = stf.classify(p)
    assert c.status == "UNDECIDED" and "the step collapsed at t = " in c.reason
    t_stop = float(c.reason.split("the step collapsed at t = ")[1].split()[0])
    sol = stf.integrate(p, 1.0)
    assert sol.status[0] != 0 and abs(float(sol.t_end[0]) - t_stop) < 1e-3   # the float solution blows up there
    assert c.numerical  # numerical evidence, integrated phase by phase


@pytest.fixture(scope="module")
def piecewise_cert():
    return stf.classify(parse_problem(PIECEWISE)).certificate


@pytest.mark.parametrize("edit", [
    lambda c: c["problem"]["phase"][1].update(duration="1/4"),                 # a phase shortened
    lambda c: c["problem"]["phase"][1].update(A=[["1/2", 0], ["1/4", "-1/3"]]),  # a phase's A changed
    lambda c: c["problem"]["phase"].pop(1),                                     # a phase removed
    lambda c: c["problem"]["phase"].insert(1, {"duration": "1/10"}),            # a phase inserted
    lambda c: c["problem"].pop("phase"),                                        # the schedule dropped
    lambda c: c["problem"]["initial"].update(cov=[["1", "1/5"], ["1/5", "1/3"]]),
], ids=["duration", "A", "removed", "inserted", "dropped", "sigma0"])
def test_a_tampered_phase_is_rejected(piecewise_cert, edit):
    c = copy.deepcopy(piecewise_cert)
    edit(c)
    _rehash(c)  # a consistent hash: only the mathematics can reject it
    with pytest.raises(CertificationFailed):
        check(c)


@pytest.mark.parametrize("edit", [
    lambda d: d["segments"][0].update(flow="linear"),
    lambda d: d["segments"][1].update(t1="5/7"),
    lambda d: d.update(T_c="1"),
    lambda d: d["segments"].pop(),
    lambda d: d["tail"]["problem"]["initial"].update(cov=[["1", "0"], ["0", "1"]]),
    lambda d: d.pop("tail"),
], ids=["flow", "segment-end", "T_c", "segment-dropped", "tail-start", "tail-dropped"])
def test_tampered_data_is_rejected(piecewise_cert, edit):
    c = copy.deepcopy(piecewise_cert)
    edit(c["data"])
    with pytest.raises(CertificationFailed):
        check(c)


def test_constant_kinds_refuse_a_scheduled_problem(piecewise_cert):
    """A genuine constant certificate whose embedded problem gains a schedule (rehashed) is
    rejected: only the schedule kind derives claims for depth-dependent parameters."""
    tail = copy.deepcopy(piecewise_cert["data"]["tail"])
    tail["problem"]["phase"] = [{"duration": "1/100", "A": [[0, 0], [0, 0]]}]
    with pytest.raises(CertificationFailed, match="constant parameters only"):
        check(_rehash(tail))


def test_an_undecided_last_phase_leaves_a_certified_end_box():
    doc = {**BASE, "A": [[-1, 0], [0, -1]], "V": [[1, "1/2"], ["-1/2", 1]],
           "phase": [{"duration": "1/4"}, {"duration": 1, "A": [[1, 0], [0, -1]], "V": [[1, 2], [0, "1/2"]]}]}
    p = parse_problem(doc)
    c = stf.classify(p)
    assert c.status == "UNDECIDED" and "does not decide the regime" in c.reason
    (route, claim, cert), = c.side_claims
    assert "not decided from the end state" in cert["notes"][0]  # why, kept with the certificate
    assert claim.subject == "schedule-endpoint" and claim.params["T"] == "1/4"
    sol = stf.integrate(p, 0.25, rtol=1e-12, atol=1e-14)
    for i in range(2):
        for j in range(2):
            lo, hi = F(claim.params["lo"][i][j]), F(claim.params["hi"][i][j])
            assert lo < hi and float(lo) - 1e-12 <= sol.Sigma_end[0][i, j] <= float(hi) + 1e-12
            assert hi - lo < F(1, 10 ** 9)
    assert check(cert).ok
    bad = copy.deepcopy(cert)  # a box stated tighter than the enclosure is rejected
    bad["data"]["hi"][0][0] = bad["data"]["lo"][0][0]
    bad["claim"]["params"]["hi"][0][0] = bad["data"]["lo"][0][0]
    from symbolic_tf.certify.check.claims import Claim
    bad["claim"]["text"] = Claim.from_dict({k: v for k, v in bad["claim"].items() if k != "text"}).text()
    with pytest.raises(CertificationFailed):
        check(bad)


def test_uniform_mode_says_why_it_does_not_decide_a_schedule():
    c = stf.classify(parse_problem(PIECEWISE), uniform=True)
    assert c.status == "UNDECIDED" and "from this Σ₀ only" in c.reason
