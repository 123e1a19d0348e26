"""The light paths of ``symtf`` stay light, floats announce themselves in one line, and every exit
status the command returns is documented (README and the CLI reference render one table)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from symbolic_tf.cli import EXIT_CODES, build_parser, main
from symbolic_tf.cli import _output
from symbolic_tf.spec import rational

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sympy", "scipy", "numpy", "cvxpy", "numba", "matplotlib", "mpmath", "flint")

# In a fresh interpreter: build the parser, parse the light command lines, run `symtf variants`,
# `--version` and every `--help`, then list the heavy modules that got imported.
PROBE = """
import contextlib, io, json, sys
import symbolic_tf.cli as cli
parser = cli.build_parser()
parser.parse_args(["variants"])
parser.parse_args(["variants", "--json"])
commands = list(cli.COMMAND_ORDER)
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = [cli.main(["variants"]), cli.main(["variants", "--json"])]
    for argv in [["--help"], ["--version"]] + [[c, "--help"] for c in commands]:
        try:
            cli.main(argv)
        except SystemExit as exc:
            status.append(exc.code)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
print(json.dumps({"status": status, "heavy": heavy, "n": len(commands)}))
"""


def test_light_commands_import_no_heavy_stack():
    code = f"HEAVY = {HEAVY!r}\n" + PROBE
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout.strip().splitlines()[-1])
    assert data["heavy"] == [], f"light commands imported {data['heavy']}"
    assert data["status"] == [0, 0] + [0] * (2 + data["n"])


def run_cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_variants_lists_the_declarations_without_deciding(capsys):
    from symbolic_tf import variants

    status, out, err = run_cli(capsys, "variants", "--json")
    assert status == 0 and err == ""
    rows = json.loads(out)["variants"]
    assert [r["name"] for r in rows] == variants.names()
    assert all(r["gaussian_closed"] is variants.get(r["name"]).expected_closed for r in rows)
    assert all("invariance" not in r for r in rows)  # a declaration is not a verdict: no PROVED here
    status, out, _ = run_cli(capsys, "variants")
    assert status == 0 and "PROVED" not in out.split("(")[0] and "symtf invariance" in out


# ----- floats announce themselves, one line each ---------------------------------------------------
@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(rational, "_ANNOUNCED", set())


def test_a_float_in_a_problem_file_is_one_warning_line(capsys, tmp_path, fresh):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"variant": "softmax", "d": 2, "A": [[0.1, 0.5], [0, 0.1]], "V": [[1, 0], [0, 1]],
                                "initial": {"cov": [[1, 0], [0, 2.0]]}}), encoding="utf-8")
    status, out, err = run_cli(capsys, "rhs", path, "--json")
    assert status == 0
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err  # 0.1 twice: one line; 0.5 and 2.0 are exact: none
    assert lines[0].startswith("symtf: warning: A[0][0]: the float 0.1 is read as its exact binary value ")
    shown = Fraction(re.search(r"exact binary value (\d+/\d+);", lines[0]).group(1))
    assert shown == Fraction(0.1) != Fraction(1, 10)
    assert '"0.1"' in lines[0] and '"1/10"' in lines[0]
    # the number used is the one shown: Σ̇ = VΣAΣ + ΣAᵀΣVᵀ with V = Σ = I, so Σ̇₀₀ = 2·A₀₀
    data = json.loads(out)
    assert Fraction(data["cov_rhs"][0][0]) == 2 * shown
    status, out, err = run_cli(capsys, "rhs", path, "--json")  # the same process: announced already
    assert status == 0 and err == ""


def test_decimal_strings_in_a_problem_file_are_silent(capsys, tmp_path, fresh):
    path = tmp_path / "p.toml"
    path.write_text('variant = "softmax"\nd = 1\nA = [["0.1"]]\nV = [[1]]\n[initial]\ncov = [["1/10"]]\n',
                    encoding="utf-8")
    status, out, err = run_cli(capsys, "rhs", path, "--json")
    assert status == 0 and err == ""
    assert Fraction(json.loads(out)["cov_rhs"][0][0]) == 2 * Fraction(1, 10) ** 3  # 2·Σ·A·Σ, exactly


# ----- exit codes: every one the command returns, documented once ----------------------------------
def test_every_exit_constant_is_in_the_table():
    constants = {v for k, v in vars(_output).items() if k.startswith("EXIT_") and isinstance(v, int)}
    codes = [c for c, _ in EXIT_CODES]
    assert set(codes) == constants and len(codes) == len(set(codes))
    assert {0, 1, 2, 3}.issubset(codes)


def test_readme_and_cli_reference_show_the_table():
    rows = [f"| {code} | {meaning} |" for code, meaning in EXIT_CODES]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Exit codes"):]
    table = [line for line in section.split("\n\n")[1].splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert table == rows
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from _generate import cli_reference
    finally:
        sys.path.remove(str(ROOT / "docs"))
    reference = cli_reference()
    assert all(row in reference for row in rows)


def test_an_internal_error_is_exit_4_with_the_traceback_and_one_line(capsys):
    def broken(args):
        raise ZeroDivisionError("a bug")

    parser = build_parser()
    parser._subparsers._group_actions[0].choices["variants"].set_defaults(func=broken)
    status = _output.run(parser, ["variants"])
    out, err = capsys.readouterr()
    assert status == 4 and out == ""
    assert "Traceback" in err and "ZeroDivisionError" in err
    assert err.splitlines()[-1].startswith("symtf: internal error: ZeroDivisionError: a bug")
