"""Every ``symtf`` command in a real subprocess: exit status, no traceback, ``--json`` parses and
carries ``schema`` and ``version`` (issue 18).  The long commands run on tiny inputs; the
pretrained-model commands and the paper reproductions are exercised in-process by
tests/models and tests/reproduce, whose JSON files are checked for their tags there and below.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import symbolic_tf
from symbolic_tf.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]

PROBLEM = """variant = "softmax"
d = 2
A = [[1, "1/3"], [0, "1/7"]]
V = [[1, 0], [0, 1]]
[initial]
mean = [0, 0]
cov = [[1, 0], [0, "1/2"]]
"""
BALL = PROBLEM.split("[initial]")[0] + '[initial]\nlaw = "uniform_ball"\ncenter = [0, 0]\nradius = "1/2"\n'
DRIFT = PROBLEM.replace('V = [[1, 0], [0, 1]]', 'V = [[1, 0], [0, 1]]\nF = [[0, 0], [0, 0]]\nb = [0, 0]')
TARGET = 'cov = [[2, 0], [0, "1/3"]]\nmean = [1, 0]\n'
MASKED = PROBLEM.replace('variant = "softmax"', 'variant = "masked"')
RELU = PROBLEM + '[relu]\nW1 = [[1, 0]]\nb1 = ["1/2"]\nW2 = [[1], [0]]\n'
MAP = """family = "parameter"
name = "tiny"
resolution = [2, 2]
max_depth = 0
[x]
label = "A₁₁ = x"
range = [-1, 1]
[y]
label = "A₂₂ = y"
range = [-1, 1]
[problem]
variant = "softmax"
d = 2
A = [["x", "1/2"], ["-1/4", "y"]]
V = [[1, 0], [0, 1]]
[problem.initial]
mean = [0, 0]
cov = [[1, "1/4"], ["1/4", "1/2"]]
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "p.toml").write_text(PROBLEM)
    (d / "drift.toml").write_text(DRIFT)
    (d / "target.toml").write_text(TARGET)
    (d / "map.toml").write_text(MAP)
    (d / "ball.toml").write_text(BALL)
    (d / "masked.toml").write_text(MASKED)
    (d / "relu.toml").write_text(RELU)
    return d


def _run(argv, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "symbolic_tf.cli", *argv], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


CASES = {
    "variants": ["variants", "--json"],
    "derive": ["derive", "softmax", "--dim", "2", "--format", "json"],
    "invariance": ["invariance", "sigmoid", "--json"],
    "rhs": ["rhs", "{d}/p.toml", "--t", "1/2", "--json"],
    "classify": ["classify", "{d}/p.toml", "--cert", "{d}/c.json", "--json"],
    "check": ["check", "{d}/c.json", "--json"],
    "meanfield": ["meanfield", "{d}/p.toml", "--N", "50,100", "--seeds", "1", "--T", "0.1", "--out", "{d}/mf", "--json"],
    "regime-map": ["regime-map", "{d}/map.toml", "--out", "{d}/map", "--workers", "1", "--json"],
    "verify": ["verify", str(ROOT / "examples" / "conjecture_identity_bounded.toml"), "--examples", "3", "--json"],
    "energy": ["energy", "softmax", "--gaussian", "--dim", "1", "--json"],
    "gradient-flow": ["gradient-flow", "softmax", "--dim", "2", "--json"],
    "convexity": ["convexity", "softmax", "--A", "[[-1]]", "--json"],
    "steer": ["steer", "{d}/drift.toml", "--target", "{d}/target.toml", "--T", "1", "--write-problem",
              "{d}/steered.toml", "--json"],
    "enclose": ["enclose", "{d}/p.toml", "--T", "1/10", "--json"],
    "stability": ["stability", "{d}/ball.toml", "--T", "0.2", "--N", "30", "--seeds", "1", "--steps", "10",
                  "--plot", "{d}/stab.png", "--json"],
    "mixture": ["mixture", "--json"],
    "masked": ["masked", "{d}/masked.toml", "--N", "30", "--T", "0.1", "--steps", "2", "--save-every", "1",
               "--sinks", "0,0.2", "--plot", "{d}/sink", "--json"],
    "relu": ["relu", "{d}/relu.toml", "--N", "60", "--T", "0.1", "--steps", "2", "--save-every", "1",
             "--floor-repeats", "2", "--plot", "{d}/relu", "--json"],
}
IN_PROCESS_ELSEWHERE = {"probe", "heads", "layers", "reproduce", "run"}  # see the tests below and tests/models


def test_every_command_is_covered():
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == set(CASES) | IN_PROCESS_ELSEWHERE


@pytest.mark.parametrize("name", list(CASES))
def test_command_json_has_schema_and_no_traceback(name, files):
    if name == "check" and not (files / "c.json").exists():
        assert _run([a.format(d=files) for a in CASES["classify"]], files).returncode == 0
    r = _run([a.format(d=files) for a in CASES[name]], files)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    data = json.loads(r.stdout)
    assert data["schema"].startswith("symbolic_tf.") and data["version"] == symbolic_tf.__version__


@pytest.mark.parametrize("argv", [["derive", "nonsense"], ["rhs", "missing.toml"], ["classify"],
                                  ["gradient-flow", "softmax", "--dim", "99"], ["reproduce", "nope"],
                                  ["stability", "missing.toml", "--T", "1"], ["mixture", "--w", "2"],
                                  ["probe", "no-such-folder"], ["relu", "{d}/p.toml"],
                                  ["masked", "{d}/p.toml"], ["masked", "{d}/masked.toml", "--sinks", "1"],
                                  ["masked", "{d}/masked.toml", "--positions", "grid:x"]])
def test_bad_input_exits_2_with_one_line(argv, files):
    r = _run([a.format(d=files) for a in argv], files)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("symtf: error:") and r.stderr.count("\n") == 1


def test_run_writes_a_tagged_report(files):
    r = _run(["run", "--out", str(files / "out"), "--quiet"], files)
    assert r.returncode == 0, r.stderr
    rep = json.loads((files / "out" / "report.json").read_text())
    assert rep["schema"] == "symbolic_tf.report/1" and rep["version"] == symbolic_tf.__version__
    assert "UNDECIDED (UNDECIDED)" not in (files / "out" / "report.md").read_text()


def test_classify_cert_on_undecided_still_shows_the_verdict(tmp_path):
    p = tmp_path / "u.toml"
    # ℓ2 with a singular K: no route applies (the growth theorems need K of full column rank);
    # T = 1 keeps the numerical evidence short
    p.write_text('T = 1\nvariant = "l2"\nd = 2\nQ = [[1, 0], [0, 0]]\nK = [[1, 1], [0, 0]]\n'
                 'V = [[1, 2], [-1, 1]]\n[initial]\ncov = [[1, 0], [0, 2]]\n')
    r = _run(["classify", str(p), "--cert", str(tmp_path / "c.json")], tmp_path)
    assert r.returncode == 3 and r.stdout.startswith("UNDECIDED")  # the verdict is printed
    assert r.stderr.startswith("symtf: no certificate written:") and "UNDECIDED" in r.stderr
    assert not (tmp_path / "c.json").exists()


def test_reproduce_json_has_no_private_keys(tmp_path, capsys, monkeypatch):
    """``run`` returns arrays under "_results" (not JSON): ``--json`` prints the public part."""
    import numpy as np

    from symbolic_tf.cli import main
    from symbolic_tf.display import tagged
    from symbolic_tf.reproduce import alcalde2026

    def fake_run(out, quick, seed, progress):
        return {**tagged("reproduce.alcalde2026", {"quick": quick}), "_results": {"x": np.zeros(2)}}

    monkeypatch.setattr(alcalde2026, "run", fake_run)
    assert main(["reproduce", "alcalde2026", "--quick", "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"schema": "symbolic_tf.reproduce.alcalde2026/1", "version": symbolic_tf.__version__,
                    "quick": True}
