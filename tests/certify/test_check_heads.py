"""`head-symA-witness` certificates of real attention heads: re-checked from the checkpoint
file itself, tampering rejected, and `symtf check heads.json` verifies every embedded one."""
import copy
import json
from fractions import Fraction

import pytest

from symbolic_tf.certify.check import check, embedded_certificates
from symbolic_tf.cli import main
from symbolic_tf.spec.errors import CertificationFailed



def _model_available() -> bool:
    import os

    from symbolic_tf.models.download import cached_model_dir, verify_folder

    return bool(os.environ.get("SYMTF_MODEL_DIR")) or verify_folder(cached_model_dir())


# the README's test command downloads the pinned model first (python -m symbolic_tf.models.download)
pytestmark = pytest.mark.skipif(not _model_available(), reason="the pinned model is not downloaded")


@pytest.fixture(scope="module")
def report():
    from symbolic_tf.models.verdicts import heads_report

    return heads_report(layers=[1], heads=[2, 5]).to_dict()


def test_witness_certificates_recheck(report):
    certs = embedded_certificates(report)
    wit = [c for c in certs if c["kind"] == "head-symA-witness"]
    assert sorted(c["data"]["verdict"] for c in wit) == sorted(["symA_nsd", "identity_value_blowup",
                                                                "conjecture_hypothesis"] * 2)
    # every PROVED head_blowup carries an eigenline certificate, and nothing else does
    proved = [h for h in report["heads"] if h["verdicts"]["head_blowup"]["status"] == "PROVED"]
    eig = [c for c in certs if c["kind"] == "head-eigenline-blowup"]
    assert len(eig) == len(proved) >= 1
    for c in certs:
        assert check(c).ok


def test_eigenline_tampering_is_rejected(report):
    c = next(c for c in embedded_certificates(report) if c["kind"] == "head-eigenline-blowup")
    lo, hi = Fraction(c["data"]["v_lo"]), Fraction(c["data"]["v_hi"])
    moved = copy.deepcopy(c)  # an interval beside the eigenvalue: no sign change there
    moved["data"]["v_lo"], moved["data"]["v_hi"] = str(hi + (hi - lo)), str(hi + 2 * (hi - lo))
    with pytest.raises(CertificationFailed, match="change sign"):
        check(moved)
    other = copy.deepcopy(c)  # the same interval claimed for another head
    other["data"]["head"] = (c["data"]["head"] + 1) % 12
    with pytest.raises(CertificationFailed):
        check(other)


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
    with pytest.raises(CertificationFailed, match="the data give status"):
        check(flipped)


def test_cli_checks_embedded_certificates(report, tmp_path, capsys):
    path = tmp_path / "heads.json"
    path.write_text(json.dumps(report))
    assert main(["check", str(path)]) == 0
    n = len(embedded_certificates(report))
    assert f"{n} embedded certificate(s) verified" in capsys.readouterr().out
