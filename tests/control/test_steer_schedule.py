"""`symtf steer --write-problem` writes the schedule as a problem file with [[phase]] tables and
`symtf classify` on that file certifies its end point: one loop, one format (docs/schedules.md).
Malformed schedule files are one-line errors with exit status 2."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.cli import main
from symbolic_tf.control.steer import schedule_problem, steer
from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.problem import load_problem, parse_problem
from symbolic_tf.spec.problem import problem_text

# written the way `symtf steer` reads a start: mean and covariance of the tokens at depth 0
PROBLEM = "\n".join(['variant = "softmax"', "d = 2", "A = [[0, 0], [0, 0]]", "V = [[1, 0], [0, 1]]",
                     "[initial]", "mean = [1, 0]", "cov = [[1, 0], [0, 1]]", ""])
INIT = (["1", "0"], [["1", "0"], ["0", "1"]])
TARGET = (["0", "2"], [["2", "1/2"], ["1/2", "1/2"]])
F = Fraction


def _exact(M):
    return [[F(x) for x in row] for row in M]


def test_exact_schedule_certifies_its_end_point_exactly():
    res = steer(INIT, TARGET, "2")
    p = schedule_problem(res, ([F(x) for x in INIT[0]], _exact(INIT[1])))
    assert p.schedule is not None and len(p.schedule.phases) == len(res.schedule) + 1
    assert parse_problem(json.loads(problem_text(p, ".json"))) == p
    c = classify(p)
    assert c.regime == "EQUILIBRIUM" and c.route == "schedule-phases"
    assert _exact(c.claim_data.params["Sigma_star"]) == _exact(TARGET[1])  # Σ(T) = target, exactly
    assert check(c.certificate).ok


def test_feedforward_schedule_certifies_an_enclosure_of_the_target():
    res = steer(INIT, TARGET, "2", controls="feedforward")
    c = classify(schedule_problem(res, ([F(x) for x in INIT[0]], _exact(INIT[1]))))
    assert c.regime == "EQUILIBRIUM"
    mid, r = c.claim_data.params["Sigma_mid"], F(c.claim_data.params["r"])
    assert r < F(1, 10 ** 12)
    for i in range(2):
        for j in range(2):
            assert abs(F(mid[i][j]) - F(TARGET[1][i][j])) <= r + F(1, 10 ** 12)


def test_no_schedule_no_file():
    res = steer(INIT, (["0", "0"], [["1", "0"], ["0", "0"]]), "1")  # rank obstruction: REFUTED
    with pytest.raises(InvalidParameters, match="no schedule"):
        schedule_problem(res, ([F(x) for x in INIT[0]], _exact(INIT[1])))


def test_steer_writes_classify_reads(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text(PROBLEM)
    t = tmp_path / "t.toml"
    t.write_text('mean = [0, 2]\ncov = [[2, "1/2"], ["1/2", "1/2"]]\n')
    out = tmp_path / "steered.toml"
    assert main(["steer", str(p), "--target", str(t), "--T", "2", "--write-problem", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["problem_file"] == str(out)
    assert load_problem(out).schedule is not None
    cert = tmp_path / "c.json"
    assert main(["classify", str(out), "--cert", str(cert), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["regime"] == "EQUILIBRIUM" and data["route"] == "schedule-phases"
    assert main(["check", str(cert)]) == 0


@pytest.mark.parametrize("bad, needle", [
    ('A = [["1/t", 0], [0, 1]]', "A[0][0]: not a polynomial in t"),
    ('A = [["sin(t)", 0], [0, 1]]', "A[0][0]: not a polynomial in t"),
    ('[[phase]]\nA = [[1, 0], [0, 1]]', "phase[0].duration: missing"),
    ('[[phase]]\nduration = "-1"', "phase[0].duration: must be positive"),
    ('[[phase]]\nduration = 1\nQ = [[1, 0], [0, 1]]', "phase[0].Q: unknown field"),
    ('[[phase]]\nduration = 1\n[[phase]]\nduration = 1\nF = [[1, 0], [0, 1]]', "phase[1].F: F is not set at top level"),
])
def test_malformed_schedule_files_are_one_line_errors(tmp_path, capsys, bad, needle):
    base = PROBLEM.replace("[initial]", "").replace("mean = [1, 0]\ncov = [[1, 0], [0, 1]]\n", "")
    text = (base.replace('A = [[0, 0], [0, 0]]\n', "") + bad + "\n") if bad.startswith("A =") else base + bad + "\n"
    f = tmp_path / "bad.toml"
    f.write_text(text)
    for cmd in (["classify", str(f), "--uniform"], ["rhs", str(f)]):
        assert main(cmd) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("symtf: error:") and err.count("\n") == 1, err
        assert needle in err, err
