"""CLI faces of certification and numerics: classify, check, meanfield."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from symbolic_tf.cli import main

BLOW = """variant = "softmax"
d = 2
A = [[1, "1/2"], [0, "1/3"]]
V = [[1, 0], [0, 1]]
[initial]
cov = [[1, "1/4"], ["1/4", "1/2"]]
"""


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_classify_json_keys_and_check_roundtrip(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text(BLOW)
    cert = tmp_path / "c.json"
    code, out, err = _run(capsys, "classify", str(p), "--json", "--cert", str(cert))
    assert code == 0, err
    data = json.loads(out)
    assert data["regime"] == "BLOWUP" and data["status"] == "PROVED"
    lo, hi = Fraction(data["T_lo"]), Fraction(data["T_hi"])
    assert 0 < lo <= hi and (hi - lo) / hi < Fraction(1, 10**12)
    assert data["certificate"]["kind"] == "blowup-riccati-vI"
    code, out, err = _run(capsys, "check", str(cert), "--json")
    assert code == 0 and json.loads(out)["ok"] is True
    c = json.loads(cert.read_text())
    c["data"]["witness"] = ["0", "0"]
    cert.write_text(json.dumps(c))
    code, out, err = _run(capsys, "check", str(cert))  # a tampered certificate is REJECTED: exit 1
    assert code == 1 and out == "" and err.startswith("REJECTED:") and err.count("\n") == 1


def test_classify_uniform(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text(BLOW)
    code, out, _ = _run(capsys, "classify", str(p), "--uniform", "--json")
    data = json.loads(out)
    assert code == 0 and data["uniform"] and data["regime"] == "BLOWUP"


@pytest.mark.parametrize("content,field,code", [
    ("{", "invalid", 2),  # not even JSON: bad input
    ("[1, 2]", "JSON object", 2),
    ('{"schema": "other", "kind": "x", "claim": "", "status": "PROVED", "data": {}}', "schema", 1),
    ('{"schema": "SCHEMA", "kind": "nope", "claim": "", "status": "PROVED", "data": {}}', "REJECTED", 1),
    ('{"schema": "SCHEMA", "kind": "blowup-riccati-vI", "claim": "", "status": "MAYBE", "data": {}}', "REJECTED", 1),
    ('{"schema": "SCHEMA", "claim": "", "status": "PROVED", "data": {}}', "missing", 1),
    # a report with nothing certified in it (symtf layers on MiniLM: every layer UNDECIDED) says so
    ('{"layers": [{"regime": "UNDECIDED"}]}', "nothing certified to verify", 1),
])
def test_check_rejects_malformed_certificates(tmp_path, capsys, content, field, code):
    """Unparsable files are bad input (exit 2); parsable but wrong certificates are REJECTED (exit 1)."""
    from symbolic_tf.certify.check.certificate import SCHEMA

    f = tmp_path / "c.json"
    f.write_text(content.replace('"SCHEMA"', json.dumps(SCHEMA)))
    status, out, err = _run(capsys, "check", str(f))
    assert status == code and field in err and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("REJECTED:" if code == 1 else "symtf: error:")


def test_check_missing_file(capsys):
    code, _, err = _run(capsys, "check", "/nonexistent/cert.json")
    assert code == 2 and "cannot read" in err


def test_classify_non_closed_variant_is_undecided(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text(BLOW.replace('"softmax"', '"sigmoid"'))
    code, out, _ = _run(capsys, "classify", str(p), "--json")
    assert code == 0 and json.loads(out)["regime"] == "UNDECIDED"


def test_classify_cert_without_certificate_exits_3(tmp_path, capsys):
    """An UNDECIDED verdict with --cert is not bad input (2): the verdict is printed, nothing is
    written, and the exit code 3 says no certificate came out."""
    p = tmp_path / "p.toml"
    p.write_text(BLOW.replace('"softmax"', '"sigmoid"'))
    code, out, err = _run(capsys, "classify", str(p), "--cert", str(tmp_path / "c.json"))
    assert code == 3 and out.startswith("UNDECIDED")
    assert err.startswith("symtf: no certificate written: the verdict is UNDECIDED") and err.count("\n") == 1
    assert not (tmp_path / "c.json").exists()


def test_meanfield_cli(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text(BLOW.replace("[initial]", 'T = "1/8"\n[initial]'))
    out_dir = tmp_path / "mf"
    code, out, err = _run(capsys, "meanfield", str(p), "--N", "50,100", "--seeds", "1", "--steps", "2",
                          "--out", str(out_dir), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["gaussian_closed"] and len(data["mean_distance"]) == 2
    assert (out_dir / "meanfield.json").exists()
    assert any(str(f).endswith(".png") for f in data["figures"])
    code, _, err = _run(capsys, "meanfield", str(p), "--N", "a,b")
    assert code == 2 and "--N" in err
