"""`symtf enclose`: the certified enclosure of Σ(T), where it stopped, --json, --plot (atomic), and
bad input as one-line project errors (exit 2)."""
from __future__ import annotations

import json

import pytest

from symbolic_tf.cli import main

PROBLEM = """variant = "softmax"
d = 2
A = [["1", "1/5"], ["0", "1"]]
V = [["-1", "1/10"], ["-1/20", "-1"]]
F = [["1", "1/4"], ["0", "3/4"]]
[initial]
cov = [["1", "1/3"], ["1/3", "2"]]
"""

BLOWUP = """variant = "softmax"
d = 2
A = [["1", "0"], ["0", "1"]]
V = [["1", "0"], ["0", "1"]]
[initial]
cov = [["1", "0"], ["0", "1"]]
"""


@pytest.fixture
def files(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text(PROBLEM)
    b = tmp_path / "b.toml"
    b.write_text(BLOWUP)
    return tmp_path, p, b


def test_prints_the_enclosure(files, capsys):
    _, p, _ = files
    assert main(["enclose", str(p), "--T", "2"]) == 0
    out = capsys.readouterr().out
    assert "certified enclosure of Σ(T), T = 2" in out and "±" in out


def test_json_and_plot(files, capsys):
    tmp, p, _ = files
    png = tmp / "fig" / "tube.png"
    assert main(["enclose", str(p), "--T", "1/2", "--json", "--plot", str(png)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] and data["t_final"] == "1/2"
    assert data["max_radius"] < 1e-12
    assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"
    assert not [f for f in png.parent.iterdir() if f.name.endswith(".tmp")]


def test_blowup_says_where_it_stopped(files, capsys):
    _, _, b = files
    assert main(["enclose", str(b), "--T", "1"]) == 0
    out = capsys.readouterr().out
    assert "stopped" in out and "< T" in out


@pytest.mark.parametrize("argv", [["--T", "-1"], ["--T", "x"], ["--T", "1", "--order", "0"], ["--T", "1", "--prec", "9"],
                                  ["--T", "1", "--method", "lu"], []])
def test_bad_options_exit_2(files, capsys, argv):
    _, p, _ = files
    assert main(["enclose", str(p), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("symtf: error:") and err.count("\n") == 1


def test_bad_problems_exit_2(tmp_path, capsys):
    nocov = tmp_path / "nocov.toml"
    nocov.write_text('variant = "softmax"\nd = 2\nA = [["1", "0"], ["0", "1"]]\nV = [["1", "0"], ["0", "1"]]\n')
    garbage = tmp_path / "garbage.toml"
    garbage.write_text("this is [not toml")
    for f in (nocov, garbage, tmp_path / "missing.toml"):
        assert main(["enclose", str(f), "--T", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("symtf: error:") and err.count("\n") == 1
