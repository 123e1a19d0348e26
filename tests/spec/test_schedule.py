"""Schedules in problem files (docs/schedules.md): exact parsing of phases and polynomial-in-t
entries, serialisation, the content hash, segments, and the right-hand side at depth t."""
from __future__ import annotations

from fractions import Fraction

import pytest

from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.problem import parse_problem, problem_to_dict
from symbolic_tf.spec.schedule import MAX_DEGREE, parse_polynomial, poly_str, problem_at, segments
from symbolic_tf.symbolic.moments import rhs

F = Fraction
CONST = {"variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, -1]], "V": [[1, 0], [0, 1]],
         "F": [["-1/10", 0], [0, 0]], "b": [0, 1], "T": 2,
         "initial": {"mean": [0, 0], "cov": [[1, "1/4"], ["1/4", "1/2"]]}}


def test_constant_problem_keeps_its_serialisation_and_hash():
    p = parse_problem(CONST)
    assert p.schedule is None and "phase" not in problem_to_dict(p)
    # the hash main computed for this problem before schedules existed
    assert p.content_hash() == "6e43685b77a7fe9d859c7c2c7438c34737a171010df4714cddc195e31d7dfb6d"


@pytest.mark.parametrize("text, coeffs", [
    ("1 + t", (1, 1)), ("t/3 + 1/2*t^2", (0, F(1, 3), F(1, 2))), ("(t - 1)*(t + 1)", (-1, 0, 1)),
    ("2t", (0, 2)), ("-t**2", (0, 0, -1)), ("0.5*t - 1e-1", (F(-1, 10), F(1, 2))), ("t - t", (0,)),
    ("(1 + t)^3", (1, 3, 3, 1)),
])
def test_polynomials_are_read_exactly(text, coeffs):
    got = parse_polynomial(text, "A[0][0]")
    assert got == tuple(F(c) for c in coeffs)
    assert parse_polynomial(poly_str(got), "x") == got  # the canonical text reads back


@pytest.mark.parametrize("text", ["1/t", "sin(t)", "t^(1/2)", "t^-1", "2**t", "(t", "t/0", "exp(t)", "tt",
                                  "t^99", "x + t", "t + ", "t 2", "+Infinity", "nan"])
def test_non_polynomials_are_refused_in_one_line(text):
    doc = {**CONST, "A": [[text, 0], [0, 1]]}
    with pytest.raises(InvalidParameters) as exc:
        parse_problem(doc)
    msg = str(exc.value)
    assert msg.startswith("A[0][0]: ") and "\n" not in msg


def test_degree_limit():
    parse_polynomial(f"t^{MAX_DEGREE}", "x")
    with pytest.raises(InvalidParameters, match="degree"):
        parse_polynomial(f"t^{MAX_DEGREE} * t", "x")


@pytest.mark.parametrize("phase, field", [
    ([{"A": [[1, 0], [0, 1]]}], "phase[0].duration"),
    ([{"duration": 0}], "phase[0].duration"),
    ([{"duration": "-1/2"}], "phase[0].duration"),
    ([{"duration": 1, "W": [[1, 0], [0, 1]]}], "phase[0].W"),
    ([{"duration": 1, "A": [[1, 0]]}], "phase[0].A"),
    ([{"duration": 1, "A": [["cos(t)", 0], [0, 1]]}], "phase[0].A[0][0]"),
    ([], "phase"),
    ("every day", "phase"),
    ([3], "phase[0]"),
])
def test_malformed_phases_name_the_field(phase, field):
    with pytest.raises(InvalidParameters) as exc:
        parse_problem({**CONST, "phase": phase})
    assert exc.value.field == field and "\n" not in str(exc.value)


def test_a_phase_changes_only_parameters_that_have_a_value_from_t_0():
    doc = {k: v for k, v in CONST.items() if k not in ("F", "b")}
    with pytest.raises(InvalidParameters, match="not set at top level nor by the first phase") as exc:
        parse_problem({**doc, "phase": [{"duration": 1}, {"duration": 1, "F": [[0, 1], [-1, 0]]}]})
    assert exc.value.field == "phase[1].F"


def test_phases_that_all_set_A_need_no_top_level_A():
    """Regression (issue 50 item 7): every phase sets A, the first from t = 0 — accepted, and the
    same problem as the one with the first phase's A written at top level."""
    doc = {k: v for k, v in CONST.items() if k != "A"}
    phases = [{"duration": "1/2", "A": [[-1, 0], [0, -1]]}, {"duration": 1, "A": [["t", 0], [0, 1]]}]
    p = parse_problem({**doc, "phase": phases})
    q = parse_problem({**doc, "A": phases[0]["A"], "phase": [{"duration": "1/2"}, phases[1]]})
    assert p.A == q.A == ((-1, 0), (0, -1))   # the value at t = 0 is the first phase's
    for t in (F(0), F(1, 4), F(1, 2), F(7, 4)):
        assert problem_at(p, t).A == problem_at(q, t).A
    assert [s.t0 for s in segments(p.schedule)] == [s.t0 for s in segments(q.schedule)] == [0, F(1, 2)]
    assert p == q and p.content_hash() == q.content_hash()   # one problem, however it is written
    assert parse_problem(problem_to_dict(p)) == p   # and it reads back from its serialisation
    # F only in the first phase switches a drift on from t = 0
    r = parse_problem({**{k: v for k, v in CONST.items() if k != "F"},
                       "phase": [{"duration": 1, "F": [["-1/10", 0], [0, 0]]}, {"duration": 1, "F": [[0, 0], [0, 0]]}]})
    assert problem_at(r, 0).F == parse_problem(CONST).F and problem_at(r, 1).F == ((0, 0), (0, 0))


def test_scheduled_A_needs_A_not_QK():
    doc = {"variant": "softmax", "d": 1, "Q": [[1]], "K": [[1]], "A": [[1]], "V": [[1]]}
    with pytest.raises(InvalidParameters, match="not Q and K"):
        parse_problem({**doc, "phase": [{"duration": 1, "A": [[2]]}]})


MULTI = {"variant": "multihead", "d": 2,
         "heads": [{"A": [["t - 1", 0], [0, -1]], "V": [[1, 0], [0, 1]]},
                   {"A": [[0, 1], [-1, 0]], "V": [[1, "1/2"], [0, 1]], "W": [[2, 0], [0, 1]]}],
         "initial": {"cov": [[1, 0], [0, 1]]},
         "phase": [{"duration": "1/2"}, {"duration": 1, "heads": [{"V": [["1/2", 0], [0, "t"]]}, {}]}]}


def test_multihead_schedules_move_each_heads_parameters():
    p = parse_problem(MULTI)
    assert p.heads[0].A == ((-1, 0), (0, -1))                       # the values at t = 0
    q = problem_at(p, F(3, 4))
    assert q.schedule is None and q.heads[0].A == ((F(-1, 4), 0), (0, -1))
    assert q.heads[0].V == ((F(1, 2), 0), (0, F(3, 4))) and q.heads[1] == p.heads[1]
    assert problem_at(p, F(1, 4)).heads[0].V == ((1, 0), (0, 1))
    assert [s.t0 for s in segments(p.schedule)] == [0, F(1, 2)]
    assert parse_problem(problem_to_dict(p)) == p


@pytest.mark.parametrize("phase, field", [
    ([{"duration": 1, "heads": [{}]}], "phase[0].heads"),                       # one table per head
    ([{"duration": 1, "heads": [{"Q": [[1, 0], [0, 1]]}, {}]}], "phase[0].heads[0].Q"),
    ([{"duration": 1}, {"duration": 1, "heads": [{}, {"W": "x"}]}], "phase[1].heads[1].W"),
])
def test_malformed_head_changes_name_the_field(phase, field):
    with pytest.raises(InvalidParameters) as exc:
        parse_problem({**MULTI, "phase": phase})
    assert exc.value.field == field and "\n" not in str(exc.value)


def test_a_head_given_by_Q_and_K_cannot_have_a_scheduled_A():
    doc = {**MULTI, "heads": [{"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]}],
           "phase": [{"duration": 1, "heads": [{"A": [[1, 0], [0, 1]]}]}]}
    with pytest.raises(InvalidParameters, match="not Q and K"):
        parse_problem(doc)


SCHEDULED = {**CONST, "A": [["1 + t", 0], [0, "-1"]],
             "phase": [{"duration": "1/2"}, {"duration": 1, "V": [[2, 0], [0, 2]]},
                       {"duration": 1, "A": [[0, 1], [-1, 0]]}]}


def test_roundtrip_equality_and_hash():
    p = parse_problem(SCHEDULED)
    d = problem_to_dict(p)
    assert d["A"] == [["1 + t", "0"], ["0", "-1"]] and len(d["phase"]) == 3
    q = parse_problem(d)
    assert q == p and q.content_hash() == p.content_hash()
    # the hash covers the schedule: another duration is another problem
    other = parse_problem({**SCHEDULED, "phase": [{"duration": "1/3"}, *SCHEDULED["phase"][1:]]})
    assert other.content_hash() != p.content_hash()
    assert parse_problem({k: v for k, v in SCHEDULED.items() if k != "phase"}).content_hash() != p.content_hash()


def test_parameters_at_depth_and_segments():
    p = parse_problem(SCHEDULED)
    assert p.A == ((1, 0), (0, -1))  # the fields hold the values at t = 0
    assert problem_at(p, F(1, 4)).A == ((F(5, 4), 0), (0, -1))
    assert problem_at(p, F(1, 2)).V == ((2, 0), (0, 2))  # right-continuous at a boundary
    late = problem_at(p, 10)  # the last phase continues
    assert late.A == ((0, 1), (-1, 0)) and late.V == ((2, 0), (0, 2)) and late.schedule is None
    segs = segments(p.schedule)
    assert [(s.t0, s.t1, s.constant) for s in segs] == [(0, F(1, 2), False), (F(1, 2), F(3, 2), False),
                                                        (F(3, 2), None, True)]
    with pytest.raises(InvalidParameters):
        problem_at(p, -1)


def test_phases_that_change_nothing_merge_into_one_segment():
    p = parse_problem({**CONST, "phase": [{"duration": 1}, {"duration": 2, "A": CONST["A"]}]})
    assert len(segments(p.schedule)) == 1


def test_rhs_at_depth_is_the_rhs_of_the_parameters_at_that_depth():
    p = parse_problem(SCHEDULED)
    for t in (0, F(1, 3), F(1, 2), 2):
        assert rhs(p, t) == rhs(problem_at(p, t))
    # a constant schedule has the constant problem's right-hand side, exactly, at every depth
    c = parse_problem(CONST)
    s = parse_problem({**CONST, "phase": [{"duration": "1/2"}, {"duration": 1}]})
    for t in (0, F(1, 2), 3):
        assert rhs(s, t) == rhs(c)
