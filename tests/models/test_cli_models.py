"""``symtf probe`` / ``symtf heads``: outputs, files, and the one-line error contract."""
from __future__ import annotations

import json
import subprocess
import sys

from test_cli import assert_user_error, run_cli   # tests/test_cli.py (tests/ is on sys.path via its conftest)


def test_probe_json_and_files(capsys, tmp_path):
    status, out, err = run_cli(capsys, "probe", "--layers", "0", "--samples", "512", "--no-layernorm",
                               "--mlp", "off", "--floor-repeats", "2", "--out", tmp_path, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["settings"]["layernorm"] is False and data["settings"]["mlp"] == "off"
    assert [r["name"] for r in data["layers"]] == ["input", "layer 0"]
    assert (tmp_path / "probe.json").exists() and (tmp_path / "probe_gaussianity.png").exists()
    assert data["schema"] == "symbolic_tf.probe/1"
    assert json.loads((tmp_path / "probe.json").read_text())["schema"] == "symbolic_tf.probe/1"


def test_heads_text(capsys, tmp_path):
    status, out, err = run_cli(capsys, "heads", "--layers", "5", "--heads", "3", "--workers", "1", "--out", tmp_path)
    assert status == 0, err
    assert "(32, 32, 320)" in out and "head_blowup: PROVED 1" in out
    heads = json.loads((tmp_path / "heads.json").read_text())
    assert heads["counts"]["symA_nsd"] == {"REFUTED": 1} and heads["schema"] == "symbolic_tf.heads/1"


def test_errors_are_one_line(capsys, tmp_path):
    assert_user_error(*run_cli(capsys, "probe", tmp_path / "missing"), "does not exist")
    (tmp_path / "llama").mkdir()
    (tmp_path / "llama" / "config.json").write_text(json.dumps({"model_type": "llama"}))
    assert_user_error(*run_cli(capsys, "heads", tmp_path / "llama"), "not a supported architecture")
    assert_user_error(*run_cli(capsys, "layers", tmp_path / "llama"), "not a supported architecture")
    assert_user_error(*run_cli(capsys, "layers", "--samples", "100", "--seq-len", "64"), "--samples")
    assert_user_error(*run_cli(capsys, "probe", "--layers", "zero"), "--layers")
    assert_user_error(*run_cli(capsys, "probe", "--layers", "9", "--out", tmp_path), "layers")
    assert_user_error(*run_cli(capsys, "heads", "--heads", "12", "--out", tmp_path), "heads")
    assert_user_error(*run_cli(capsys, "probe", "--samples", "100", "--out", tmp_path), "samples")
    assert_user_error(*run_cli(capsys, "probe", "--mlp", "relu"), "--mlp")


def test_real_process_exit_status(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "probe", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("symtf: error:") and proc.stderr.count("\n") == 1
