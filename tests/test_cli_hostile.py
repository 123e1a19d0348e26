"""Hostile input through the ``symtf`` command line (GitHub-style issue 14, items 5 and 6).

Every bad file or option value must give exit status 2, nothing on stdout, exactly one
``symtf: error:`` line on stderr, no traceback, within 2 s, and write nothing.  A certificate
or map whose *structure* is wrong is REJECTED: exit 1, one ``REJECTED:`` line.

Most cases call :func:`symbolic_tf.cli.main` in-process (fast); a few run the real
``python -m symbolic_tf.cli`` to prove the exit status and the absence of a traceback.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from symbolic_tf.cli import main

GOOD_PROBLEM = """variant = "softmax"
d = 2
A = [[1, 0], [0, 1]]
V = [[1, 0], [0, 1]]
[initial]
mean = [0, 0]
cov = [[1, 0], [0, 1]]
"""
GOOD_TARGET = 'mean = [0, 1]\ncov = [[2, 0], [0, 1]]\n'
GOOD_SPEC = """family = "parameter"
resolution = [2, 2]
max_depth = 0
[x]
range = [-1, 1]
[y]
range = [-1, 1]
[problem]
variant = "softmax"
d = 2
A = [["x", "1/2"], ["-1/4", "y"]]
V = [[1, 0], [0, 1]]
[problem.initial]
cov = [[1, 0], [0, 1]]
"""

# name -> (file name, bytes); None = a path that is not a readable file
BAD_FILES = {
    "invalid-utf8": ("f.toml", b"\xff\xfe\x00garbage\x80 = 1\n"),
    "invalid-utf8-json": ("f.json", b'{"variant": "caf\xe9"}'),
    "empty-toml": ("f.toml", b""),
    "empty-json": ("f.json", b""),
    "whitespace": ("f.toml", b"   \n\n"),
    "json-list": ("f.json", b"[1, 2, 3]"),
    "json-string": ("f.json", b'"just a string"'),
    "garbage-text": ("f.toml", b"this is = = not a document {"),
    "nested-200-json": ("f.json", ('{"a":' * 200 + "1" + "}" * 200).encode()),
    "nested-200-toml": ("f.toml", ("a = " + "[" * 200 + "]" * 200 + "\n").encode()),
    "nested-100k-json": ("f.json", ("[" * 100_000 + "]" * 100_000).encode()),
    "int-100k-digits-json": ("f.json", ('{"variant": "softmax", "d": 1, "A": [[' + "7" * 100_000 + "]]}").encode()),
    "int-5k-digits-toml": ("f.toml", ('variant = "softmax"\nd = 1\nA = [[' + "7" * 5000 + "]]\n").encode()),
    "string-100k-digits": ("f.json", ('{"variant": "softmax", "d": 1, "A": [["' + "7" * 100_000 + '"]]}').encode()),
    "exponent-string": ("f.toml", b'variant = "softmax"\nd = 1\nA = [["1e99999999"]]\nV = [[1]]\n'
                                  b'[initial]\ncov = [["1e99999999"]]\n'),
    "exponent-literal-json": ("f.json", b'{"variant": "softmax", "d": 1, "A": [[1e99999999]]}'),
    "nan-json": ("f.json", b'{"variant": "softmax", "d": 1, "A": [[NaN]], "cov": [[NaN]]}'),
    "huge-d": ("f.toml", b'variant = "softmax"\nd = 1000000000\n'),
    "huge-d-digits": ("f.toml", ('variant = "softmax"\nd = ' + "9" * 3000 + "\n").encode()),
    "oversized": ("f.json", None),  # a sparse 9 MiB file, refused by size before reading
    "directory": ("somedir", None),
    "missing": ("missing.toml", None),
}

FILE_COMMANDS = {
    "classify": ["classify", "{f}"],
    "rhs": ["rhs", "{f}"],
    "meanfield": ["meanfield", "{f}", "--N", "10,20", "--out", "mf"],
    "stability": ["stability", "{f}", "--T", "0.1"],
    "steer-problem": ["steer", "{f}", "--target", "{target}"],
    "steer-target": ["steer", "{problem}", "--target", "{f}"],
    "verify": ["verify", "{f}", "--examples", "1"],
    "check": ["check", "{f}"],
    "regime-map": ["regime-map", "{f}", "--out", "map_out", "--workers", "1"],
}


@pytest.fixture(scope="module", autouse=True)
def _warm_imports():
    """Import what the commands import lazily, so the 2 s budget measures the checks."""
    import symbolic_tf.certify.check  # noqa: F401
    import symbolic_tf.conjectures.catalogue  # noqa: F401
    import symbolic_tf.conjectures.core  # noqa: F401
    import symbolic_tf.control.steer  # noqa: F401
    import symbolic_tf.numeric.meanfield  # noqa: F401
    import symbolic_tf.regimes.classify  # noqa: F401
    import symbolic_tf.regimes.executors  # noqa: F401
    import symbolic_tf.regimes.maps  # noqa: F401
    import symbolic_tf.symbolic.moments  # noqa: F401


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    """(inputs folder, empty working folder = cwd); the working folder must stay empty."""
    inp, work = tmp_path / "in", tmp_path / "work"
    inp.mkdir()
    work.mkdir()
    (inp / "good.toml").write_text(GOOD_PROBLEM)
    (inp / "target.toml").write_text(GOOD_TARGET)
    (inp / "spec.toml").write_text(GOOD_SPEC)
    monkeypatch.chdir(work)
    return inp, work


def _make_bad(inp: Path, kind: str) -> Path:
    name, data = BAD_FILES[kind]
    path = inp / name
    if kind == "oversized":
        with open(path, "wb") as fh:
            fh.truncate(9 * 2**20)
    elif kind == "directory":
        path.mkdir()
    elif data is not None:
        path.write_bytes(data)
    return path


def _snapshot(*folders: Path) -> dict:
    return {str(p): p.stat().st_size if p.is_file() else None
            for folder in folders for p in sorted(folder.rglob("*"))}


def _run_bad(capsys, argv, *watch: Path, code: int = 2, prefix: str = "symtf: error:"):
    before = _snapshot(*watch)
    capsys.readouterr()
    t = time.process_time()  # CPU time: a guard against work blow-ups, not a performance test
    status = main([str(a) for a in argv])
    elapsed = time.process_time() - t
    out, err = capsys.readouterr()
    assert status == code, (argv, status, out, err)
    assert out == "", out
    assert err.startswith(prefix) and err.endswith("\n") and err.count("\n") == 1, repr(err[:500])
    assert "Traceback" not in err and len(err) < 1000, err[:500]
    assert elapsed < 20, (argv, elapsed)
    assert _snapshot(*watch) == before, "the command wrote something"
    return err


@pytest.mark.parametrize("kind", list(BAD_FILES))
@pytest.mark.parametrize("command", list(FILE_COMMANDS))
def test_bad_file_is_one_line_exit_2(dirs, capsys, command, kind):
    inp, work = dirs
    bad = _make_bad(inp, kind)
    argv = [a.format(f=bad, target=inp / "target.toml", problem=inp / "good.toml") for a in FILE_COMMANDS[command]]
    _run_bad(capsys, argv, inp, work)


def _opt(inp, *argv):
    return [str(a).format(problem=inp / "good.toml", target=inp / "target.toml", spec=inp / "spec.toml")
            for a in argv]


BAD_OPTIONS = [
    # (argv, a fragment of the error line)
    (["classify", "{problem}", "--horizon", "inf"], "--horizon"),
    (["classify", "{problem}", "--horizon", "nan"], "--horizon"),
    (["classify", "{problem}", "--horizon", "1e9999"], "--horizon"),
    (["classify", "{problem}", "--horizon", "-1"], "--horizon"),
    (["classify", "{problem}", "--horizon", "0"], "--horizon"),
    (["classify", "{problem}", "--horizon", "soon"], "--horizon"),
    (["meanfield", "{problem}", "--T", "inf"], "--T"),
    (["meanfield", "{problem}", "--T", "nan"], "--T"),
    (["meanfield", "{problem}", "--T", "1e9999"], "--T"),
    (["meanfield", "{problem}", "--T", "0"], "--T"),
    (["meanfield", "{problem}", "--N", "1e9"], "--N"),
    (["meanfield", "{problem}", "--N", "100,1e9999"], "--N"),
    (["meanfield", "{problem}", "--N", "0"], "--N"),
    (["meanfield", "{problem}", "--N", "10," + "9" * 5000], "--N"),
    (["meanfield", "{problem}", "--N", ","], "--N"),
    (["meanfield", "{problem}", "--seeds", "0"], "--seeds"),
    (["meanfield", "{problem}", "--seeds", "1e9999"], "--seeds"),
    (["meanfield", "{problem}", "--steps", "-3"], "--steps"),
    (["regime-map", "{spec}", "--workers", "0", "--out", "o"], "--workers"),
    (["regime-map", "{spec}", "--workers", "-2", "--out", "o"], "--workers"),
    (["regime-map", "{spec}", "--workers", "1e9999", "--out", "o"], "--workers"),
    (["regime-map", "{spec}", "--chunk-size", "0", "--out", "o"], "--chunk-size"),
    (["regime-map", "{spec}", "--dask-local", "0", "--out", "o"], "--dask-local"),
    (["verify", "catalogue", "--examples", "0"], "--examples"),
    (["verify", "catalogue", "--examples", "-5"], "--examples"),
    (["verify", "catalogue", "--examples", "1e9999"], "--examples"),
    (["verify", "catalogue", "--examples", "inf"], "--examples"),
    (["verify", "catalogue", "--seed", "-1"], "--seed"),
    (["verify", "catalogue", "--max-dim", "0"], "--max-dim"),
    (["verify", "catalogue", "--max-dim", "1000000"], "--max-dim"),
    (["steer", "{problem}", "--target", "{target}", "--T", "1e9999"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "1e99999999"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "inf"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "nan"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "0"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "-1"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "1/0"], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--T", "7" * 100_000], "--T"),
    (["steer", "{problem}", "--target", "{target}", "--max-norm", "nan"], "--max-norm"),
    (["steer", "{problem}", "--target", "{target}", "--max-norm", "-1"], "--max-norm"),
    (["steer", "{problem}", "--target", "{target}", "--phases", "0"], "--phases"),
    (["steer", "{problem}", "--target", "{target}", "--tokens", "1"], "--tokens"),
    (["steer", "{problem}", "--target", "{target}", "--tokens", "1e9999"], "--tokens"),
    (["steer", "{problem}", "--target", "{target}", "--tokens", "100000000000"], "--tokens"),
    (["derive", "softmax", "--dim", "0"], "--dim"),
    (["derive", "softmax", "--dim", "1e9999"], "--dim"),
    (["derive", "softmax", "--dim", "100000"], "--dim"),
    (["derive", "softmax", "--heads", "0"], "--heads"),
    (["invariance", "softmax", "--dim", "0"], "--dim"),
    (["invariance", "softmax", "--dim", "nan"], "--dim"),
    (["energy", "softmax", "--dim", "9"], "--dim"),
    (["gradient-flow", "softmax", "--dim", "-1"], "--dim"),
    (["convexity", "softmax", "--A", "[[NaN]]"], "--A"),
    (["convexity", "softmax", "--A", "[[1e99999999]]"], "--A"),
    (["convexity", "softmax", "--A", "[" * 100_000], "--A"),
    (["convexity", "softmax", "--A", "[[" + "7" * 100_000 + "]]"], "--A"),
    (["convexity", "softmax", "--A", '[["1e99999999"]]'], "--A"),
    (["convexity", "softmax", "--A", "[[-1]]", "--points", "0"], "--points"),
    (["probe", "--samples", "1"], "--samples"),
    (["heads", "--workers", "0"], "--workers"),
    (["reproduce", "castin2025", "--seed", "-1"], "--seed"),
]


@pytest.mark.parametrize("argv, needle", BAD_OPTIONS, ids=[f"{a[0]}-{a[-2]}-{a[-1][:12]}" for a, _ in BAD_OPTIONS])
def test_bad_option_is_one_line_exit_2(dirs, capsys, argv, needle):
    inp, work = dirs
    err = _run_bad(capsys, _opt(inp, *argv), inp, work)
    assert needle in err, err


def test_regime_map_workers_0_creates_no_folder(dirs, capsys):
    inp, work = dirs
    _run_bad(capsys, _opt(inp, "regime-map", "{spec}", "--workers", "0", "--out", str(work / "m")), inp, work)
    assert not (work / "m").exists()


@pytest.mark.parametrize("doc, needle", [
    ({"name": "no conclusion"}, "conclusion"),
    ({"hypothesis": "softmax", "conclusion": {"regime": "no_blowup"}}, "hypothesis"),
    ({"conclusion": ["no_blowup"]}, "conclusion"),
    ({"conclusion": {"regime": ["no_blowup"]}}, "conclusion.regime"),
    ({"conclusion": {"regime": "no_blowup", "why": 1}}, "conclusion.why"),
    ({"hypothesis": {"max_d": "3"}, "conclusion": {"regime": "no_blowup"}}, "hypothesis.max_d"),
    ({"hypothesis": {"max_d": 10**30}, "conclusion": {"regime": "no_blowup"}}, "hypothesis.max_d"),
    ({"hypothesis": {"value": ["identity"]}, "conclusion": {"regime": "no_blowup"}}, "hypothesis.value"),
    ({"hypothesis": {"variant": 3}, "conclusion": {"regime": "no_blowup"}}, "hypothesis.variant"),
    ({"hypothesis": {"drift": "yes"}, "conclusion": {"regime": "no_blowup"}}, "hypothesis.drift"),
    ({"name": ["x"], "conclusion": {"regime": "no_blowup"}}, "name"),
])
def test_bad_conjecture_files(dirs, capsys, doc, needle):
    inp, work = dirs
    f = inp / "conj.json"
    f.write_text(json.dumps(doc))
    assert needle in _run_bad(capsys, ["verify", f, "--examples", "1"], inp, work)
    if needle != "hypothesis.max_d":  # --max-dim overrides max_d; the rest stays bad
        _run_bad(capsys, ["verify", f, "--examples", "1", "--max-dim", "2"], inp, work)


@pytest.mark.parametrize("target, needle", [
    ("[1, 2]", "--target"),
    ('{"mean": [0, 0]}', "--target"),
    ('{"cov": "identity"}', "cov"),
    ('{"cov": [[1, 0], [0, 1]], "mean": 5}', "mean"),
    ('{"cov": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}', "cov"),
    ('{"cov": [[1, 0], [0, -1]]}', "cov"),
    ('{"target": [1], "cov": {"a": 1}}', "cov"),
    ('{"cov": [["1e99999999", 0], [0, 1]]}', "cov"),
])
def test_bad_steer_targets(dirs, capsys, target, needle):
    inp, work = dirs
    f = inp / "t.json"
    f.write_text(target)
    assert needle in _run_bad(capsys, _opt(inp, "steer", "{problem}", "--target", f), inp, work)


# ----- check: unparsable -> 2, rejected -> 1 -------------------------------------------------
def _map_doc(**over) -> dict:
    import tomllib

    doc = {"schema": "symbolic_tf.regime_map/1", "spec": tomllib.loads(GOOD_SPEC), "cells": [
        {"id": [0, i, j], "box": [str(-1 + i), str(i), str(-1 + j), str(j)], "status": "UNDECIDED",
         "regime": "UNDECIDED", "reason": ""} for i in range(2) for j in range(2)], "totals": {}}
    doc.update(over)
    return {k: v for k, v in doc.items() if v is not None}


@pytest.mark.parametrize("over, code, needle", [
    ({"cells": None}, 1, "cells"),
    ({"cells": "all of them"}, 1, "cells"),
    ({"cells": [1, 2]}, 1, "cells[0]"),
    ({"cells": [{"id": [0, 0, 0]}]}, 1, "box"),
    ({"cells": [{"id": "x", "box": [], "status": "PROVED", "regime": "BLOWUP"}]}, 1, "id"),
    ({"cells": [{"id": [0, 0, 0], "box": ["-1", "0", "-1", "0"], "status": "PROVED", "regime": "BLOWUP"}]}, 1,
     "certificate"),
    ({"cells": [{"id": [0, 0, 0], "box": ["-1", "0", "-1", "0"], "status": 3, "regime": "X"}]}, 1, "status"),
    ({"spec": None}, 1, "spec"),
    ({"spec": [1]}, 1, "spec"),
    ({"spec": {"family": "spiral"}}, 1, "spec"),
    ({"totals": None}, 1, "totals"),
    ({"totals": {"area_total": "4"}}, 1, "totals"),
    ({"cells": [{"id": [0, 0, 0], "box": ["1e99999999", "0", "-1", "0"], "status": "UNDECIDED",
                 "regime": "UNDECIDED"}]}, 2, "exponent"),
    ({"cells": [{"id": [0, 0, 0], "box": ["7" * 100_000, "0", "-1", "0"], "status": "UNDECIDED",
                 "regime": "UNDECIDED"}]}, 2, "digits"),
])
def test_check_maps(dirs, capsys, over, code, needle):
    inp, work = dirs
    f = inp / "map.json"
    f.write_text(json.dumps(_map_doc(**over)))
    err = _run_bad(capsys, ["check", f], inp, work, code=code,
                   prefix="REJECTED:" if code == 1 else "symtf: error:")
    assert needle in err, err


@pytest.mark.parametrize("content, code", [
    ('{"schema": "symbolic_tf.certificate/0"}', 1),
    ('{"kind": "x"}', 1),
    ("{}", 1),
    ("[]", 2),
    ("null", 2),
    ("{", 2),
    ('{"schema": NaN}', 2),
])
def test_check_certificate_structure(dirs, capsys, content, code):
    inp, work = dirs
    f = inp / "c.json"
    f.write_text(content)
    _run_bad(capsys, ["check", f], inp, work, code=code, prefix="REJECTED:" if code == 1 else "symtf: error:")


def test_check_json_flag_reports_the_rejection(dirs, capsys):
    inp, _ = dirs
    f = inp / "map.json"
    f.write_text(json.dumps(_map_doc(cells=None)))
    assert main(["check", str(f), "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["ok"] is False and err.startswith("REJECTED:") and err.count("\n") == 1


# ----- the real process: exit status, no traceback ------------------------------------------
SUBPROCESS_CASES = [
    (["classify", "{problem}", "--horizon", "inf"], "invalid-utf8"),
    (["verify", "{bad}"], "empty-toml"),
    (["steer", "{problem}", "--target", "{bad}"], "json-list"),
    (["check", "{bad}"], "nested-100k-json"),
    (["regime-map", "{bad}", "--out", "o"], "int-100k-digits-json"),
    (["rhs", "{bad}"], "exponent-string"),
    (["classify", "{bad}"], "huge-d"),
    (["relu", "{bad}"], "exponent-string"),
    (["masked", "{bad}"], "huge-d"),
]


@pytest.mark.parametrize("argv, kind", SUBPROCESS_CASES, ids=[f"{a[0]}-{k}" for a, k in SUBPROCESS_CASES])
def test_subprocess_exit_2_one_line(tmp_path, argv, kind):
    inp, work = tmp_path / "in", tmp_path / "work"
    inp.mkdir()
    work.mkdir()
    (inp / "good.toml").write_text(GOOD_PROBLEM)
    bad = _make_bad(inp, kind)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                       os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "symbolic_tf.cli",
           *[a.format(problem=inp / "good.toml", bad=bad) for a in argv]]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.startswith("symtf: error:") and r.stderr.count("\n") == 1, r.stderr
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("argv", [["mixture", "--a", "1e999999999"], ["mixture", "--a", "1e20"], ["mixture", "--w", "x"],
                                  ["mixture", "--s", "-1"], ["stability", "{problem}", "--T", "1", "--N", "5000"],
                                  ["stability", "{problem}", "--T", "1", "--perturb", "twist:1"],
                                  ["stability", "{problem}", "--T", "1", "--p", "0.5"]])
def test_beyond_gaussian_commands_refuse_bad_options(argv, dirs, capsys):
    inp, work = dirs
    t0 = time.process_time()
    with pytest.raises(SystemExit) as e:
        raise SystemExit(main([a.format(problem=inp / "good.toml") for a in argv]))
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == "" and err.startswith("symtf: error:") and err.count("\n") == 1
    # refused before any work: nothing written, and no simulation started (a hang guard on this
    # process's CPU time, generous so that a loaded machine or a cold import cannot trip it)
    assert time.process_time() - t0 < 20 and not any(work.iterdir())
