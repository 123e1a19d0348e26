"""CLI faces of issue 7: energy, gradient-flow, convexity."""
from __future__ import annotations

import json

from symbolic_tf.certify.check import check
from symbolic_tf.cli import main


def test_energy_gradient_flow_convexity(tmp_path, capsys):
    assert main(["energy", "softmax", "--gaussian", "--dim", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "exp" in data["gaussian"] and data["dim"] == 1
    assert main(["gradient-flow", "softmax", "--symmetric", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "PROVED"
    assert main(["gradient-flow", "softmax", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "REFUTED"
    cert = tmp_path / "w.json"
    assert main(["convexity", "softmax", "--A", "[[-1]]", "--cert", str(cert), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "PROVED"
    assert check(json.loads(cert.read_text())).ok
    assert main(["convexity", "softmax", "--A", "[[1]]", "--along", "gaussian", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "PROVED"  # λ = 0 along 1-d BW geodesics
    assert main(["convexity", "softmax", "--A", "[[-1]]", "--V", "[[1]]", "--along", "twisted", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "REFUTED"


def test_convexity_for_every_V_on_gaussians(tmp_path, capsys):
    """Without --V (softmax): the every-V question on Gaussians; a singular A is answered along every
    curve (I + sN)Σ(I + sN)ᵀ; the written certificates re-check."""
    cases = (("[[2, 1], [1, 3]]", "PROVED", "twisted-gaussian-convexity"),
             ("[[1, 2], [0, 1]]", "REFUTED", "twisted-gaussian-nonconvexity"),
             ("[[1, 1], [1, 1]]", "PROVED", "twisted-gaussian-convexity"),
             ("[[1, 1, 0], [-1, 0, 0], [0, 0, 0]]", "REFUTED", "gaussian-curve-nonconvexity"))
    for A, status, kind in cases:
        cert = tmp_path / "c.json"
        assert main(["convexity", "softmax", "--A", A, "--along", "twisted", "--cert", str(cert), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["status"] == status and out["every_V"] is True
        res = check(json.loads(cert.read_text()))
        assert res.ok and res.kind == kind


def test_convexity_of_one_pair_writes_its_certificate(tmp_path, capsys):
    """With --V (softmax) --cert writes the pair's Gaussian certificate: PROVED for A = I + J, V = I
    (b² ≤ 3a²), REFUTED for A = I + 2J; a pair with no certificate is a clear error (exit 2)."""
    for A, kind in (("[[1, 1], [-1, 1]]", "twisted-rotation-scaling-convexity"),
                    ("[[1, 2], [-2, 1]]", "twisted-gaussian-nonconvexity")):
        cert = tmp_path / "pair.json"
        assert main(["convexity", "softmax", "--A", A, "--V", "[[1, 0], [0, 1]]", "--along", "twisted",
                     "--cert", str(cert), "--json"]) == 0
        capsys.readouterr()
        res = check(json.loads(cert.read_text()))
        assert res.ok and res.kind == kind and res.status == "PROVED"
    bad = tmp_path / "none.json"
    assert main(["convexity", "softmax", "--A", "[[1, 3], [-3, 1]]", "--V", "[[0, 0], [0, 0]]", "--along", "twisted",
                 "--cert", str(bad)]) == 3                       # V = 0: UNDECIDED, no certificate
    assert "no certificate written" in capsys.readouterr().err and not bad.exists()


def test_bad_inputs(capsys):
    for argv in (["energy", "sigmoid"], ["convexity", "softmax", "--A", "[[1, 2]]"],
                 ["convexity", "softmax", "--A", "nonsense"], ["gradient-flow", "l2"],
                 ["convexity", "softmax", "--A", "[[1, 0], [0, 1]]", "--along", "gaussian"],
                 ["convexity", "softmax", "--A", "[[1, 2, 3]]", "--along", "twisted"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("symtf: error:") and err.count("\n") == 1


def test_gradient_flow_decides_the_condition_on_V_for_a_pair(capsys):
    """Issue 50 item 3: without a pair the PROVED claim states the condition on V; with --A/--V the
    condition is decided (PROVED for M = VA⁻¹ symmetric definite, REFUTED with instances of both signs)."""
    assert main(["gradient-flow", "softmax", "--symmetric", "--json"]) == 0
    claim = json.loads(capsys.readouterr().out)["claim"]
    assert "only when M = VA⁻¹ is symmetric and definite" in claim
    assert main(["gradient-flow", "softmax", "--A", "[[1, 0], [0, 2]]", "--V", "[[-3, 0], [0, -1]]", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "PROVED" and out["evidence"]["monotone"] == "decreasing" and out["dim"] == 2
    assert main(["gradient-flow", "softmax", "--A", "[[1, 0], [0, 1]]", "--V", "[[1, 0], [0, -1]]"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("REFUTED") and "E increases at δ_α" in text and "E decreases at δ_α" in text
    for argv in (["--A", "[[1]]"], ["--A", "[[1]]", "--V", "[[1, 0], [0, 1]]"],
                 ["--A", "[[1]]", "--V", "[[1]]", "--metric", "wasserstein"]):
        assert main(["gradient-flow", "softmax", *argv]) == 2
        assert capsys.readouterr().err.startswith("symtf: error:")
