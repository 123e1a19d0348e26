"""Forgeries of ``head-symA-witness`` and ``head-eigenline-blowup`` certificates
(symbolic_tf/certify/check/kinds/head_symA_witness.py, head_eigenline_blowup.py, check/heads.py).

The genuine certificates are the library's own (``heads_report`` for layer 1, head 5 of the
pinned all-MiniLM-L6-v2, ≈ 2 s, as tests/certify/test_check_heads.py builds them); the forgeries
change data and claim together.  The hole found here: ``head_dim`` (not part of the claim) was
never compared with the model's head size, so a genuine eigenline of rows 64…79 was accepted as a
claim about "head 4" (rows 128…159), whose C_h has no eigenvalue anywhere near the stated one.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

from .forge import accepts, forge, q, rejects



def _model_available() -> bool:
    import os

    from symbolic_tf.models.download import cached_model_dir, verify_folder

    return bool(os.environ.get("SYMTF_MODEL_DIR")) or verify_folder(cached_model_dir())


pytestmark = pytest.mark.skipif(not _model_available(), reason="the pinned model is not downloaded "
                                "(python -m symbolic_tf.models.download)")

LAYER, HEAD = 1, 5


@pytest.fixture(scope="module")
def R():
    from symbolic_tf.models.verdicts import heads_report

    h = heads_report(layers=[LAYER], heads=[HEAD]).to_dict()["heads"][0]["verdicts"]
    ev = {k: v["evidence"] for k, v in h.items()}
    return {"symA": ev["symA_nsd"], "blowup": ev["identity_value_blowup"]["certificate"],
            "conj": ev["conjecture_hypothesis"], "eig": ev["head_blowup"]["certificate"]}


@pytest.fixture(scope="module")
def W(R):
    """The layer's float weights (float64 copies) read here, independently of the checker."""
    from safetensors import safe_open

    with safe_open(R["eig"]["data"]["model_file"], framework="numpy") as f:
        g = lambda name: f.get_tensor(f"encoder.layer.{LAYER}.attention.{name}.weight").astype(np.float64)
        return {"K": g("self.key"), "Q": g("self.query"), "V": g("self.value"), "O": g("output.dense")}


def _eigenline(eig, W, head, dh, choose):
    """An eigenline certificate for rows head·dh … (head+1)·dh − 1 built from a float eigenpair:
    ``choose(v, a)`` picks the eigenvalue (v, with a = ûᵀA_hû up to a positive factor); the bracket
    is v(1 ± 1e-10) and k = r = the largest eigenvector entry."""
    sl = slice(head * dh, (head + 1) * dh)
    w, Z = np.linalg.eig(W["V"][sl] @ W["O"][:, sl])
    for i in np.argsort(-abs(w)):
        if abs(w[i].imag) > 1e-12:
            continue
        v, z = w[i].real, Z[:, i].real
        u = W["O"][:, sl] @ z
        a = (W["K"][sl] @ u) @ (W["Q"][sl] @ u)
        if choose(v, a):
            lo, hi = sorted(Fr(v * (1 + s * 1e-10)).limit_denominator(10 ** 30) for s in (-1, 1))
            k = int(np.argmax(abs(z)))
            data = {"head": head, "head_dim": dh, "v_lo": q(lo), "v_hi": q(hi), "k": k, "r": k}
            return forge(eig, data=data, params={**eig["claim"]["params"], "head": head, "head_dim": dh, "v_lo": q(lo), "v_hi": q(hi)})
    raise AssertionError("no such eigenvalue")


def test_genuine_certificates_check(R):
    for c in (R["symA"]["certificate"], R["blowup"], R["conj"]["certificate"], R["eig"]):
        assert accepts(c).ok


# --- both kinds ---------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["blowup", "eig"])
def test_other_checkpoint_hash_is_rejected(R, which):
    c = R[which]
    params = {**c["claim"]["params"], "sha256": "0" * 64}
    rejects(forge(c, data={"sha256": "0" * 64}, params=params), "SHA-256 does not match")


def test_other_head_size_is_rejected(R, W, monkeypatch):
    """A hole before the fix: with head_dim = 16 the rows 64…79 (half of the model's head 2) have a
    real eigenline that blows up, and the certificate claimed it for "head 4" — accepted.  The
    model's head 4 (d_h = 384/12 = 32, rows 128…159) has no eigenvalue of C_h within 0.1 of it."""
    from symbolic_tf.certify.check import heads

    forged = _eigenline(R["eig"], W, head=4, dh=16, choose=lambda v, a: v * a > 0)
    lo, hi = Fr(forged["data"]["v_lo"]), Fr(forged["data"]["v_hi"])
    sl = slice(4 * 32, 5 * 32)  # the claim is false for the model's own head 4
    true_eigs = np.linalg.eigvals(W["V"][sl] @ W["O"][:, sl])
    assert min(abs(true_eigs - float((lo + hi) / 2))) > 0.1
    rejects(forged, "head_dim = 16 is not the checkpoint's head size")
    # and it violates only that hypothesis: with a config of 24 heads of 16 it would check
    monkeypatch.setattr(heads, "config_heads", lambda path: (384, 24))
    assert accepts(forged).ok


@pytest.mark.parametrize("head", [12, -1])
def test_head_out_of_range_is_rejected(R, head):
    c = R["blowup"]
    rejects(forge(c, data={"head": head}, params={**c["claim"]["params"], "head": head}),
            f"head {head} is not a head of the checkpoint")


def test_missing_config_is_rejected(R, tmp_path):
    """Without config.json the head partition is unknown (the weights alone do not give it)."""
    import os

    c = R["blowup"]
    os.symlink(c["data"]["model_file"], tmp_path / "model.safetensors")
    rejects(forge(c, data={"model_file": str(tmp_path / "model.safetensors")}), "no readable config.json")


# --- head-symA-witness --------------------------------------------------------------------------
def test_zero_witness_is_rejected(R):
    c = R["symA"]["certificate"]
    rejects(forge(c, data={"x": [0] * len(c["data"]["x"])}), "the witness x is zero")


def test_short_witness_is_rejected(R):
    c = R["symA"]["certificate"]
    rejects(forge(c, data={"x": c["data"]["x"][:-1]}), "the model dimension is 384")


@pytest.mark.parametrize("which", ["symA", "blowup"])
def test_negative_direction_is_rejected(R, which):
    c = R["symA"]["certificate"] if which == "symA" else R["blowup"]
    rejects(forge(c, data={"x": R["symA"]["witnesses"]["negative"]}), r"\(W_K x\)·\(W_Q x\) = .* is not positive")


def test_witness_of_the_other_form_is_rejected(R, W):
    """An x with xᵀ(A_h + A_hᵀ)x > 0 but xᵀ(C_hA_h + A_hᵀC_hᵀ)x < 0 (found in floats here, decided exactly
    by the checker) proves the first verdict, not the conjecture's."""
    sl = slice(HEAD * 32, (HEAD + 1) * 32)
    K, Q, V, O = W["K"][sl], W["Q"][sl], W["V"][sl], W["O"][:, sl]
    rng = np.random.default_rng(0)
    for _ in range(1000):
        x = rng.integers(-1000, 1000, 384)
        fa, fc = (K @ x) @ (Q @ x), (K @ (V.T @ (O.T @ x))) @ (Q @ x)
        if fa > 1e-3 * abs(fa) + 1e-6 and fc < -1e-6:
            break
    else:
        raise AssertionError("no such direction")
    x = [int(v) for v in x]
    assert accepts(forge(R["symA"]["certificate"], data={"x": x})).ok
    rejects(forge(R["conj"]["certificate"], data={"x": x}), "is not positive")


# --- head-eigenline-blowup ----------------------------------------------------------------------
def test_interval_through_zero_is_rejected(R):
    c = R["eig"]
    lo, hi = Fr(c["data"]["v_lo"]), Fr(c["data"]["v_hi"])
    lo, hi = (lo, -lo) if lo < 0 else (-hi, hi)
    forged = forge(c, data={"v_lo": q(lo), "v_hi": q(hi)}, params={**c["claim"]["params"], "v_lo": q(lo), "v_hi": q(hi)})
    rejects(forged, "of one sign")


def test_index_out_of_range_is_rejected(R):
    rejects(forge(R["eig"], data={"k": 32}), "indices 0 ≤ k, r < head_dim")


def test_interval_beside_the_eigenvalue_is_rejected(R):
    c = R["eig"]
    lo, hi = Fr(c["data"]["v_lo"]), Fr(c["data"]["v_hi"])
    lo, hi = hi + (hi - lo), hi + 2 * (hi - lo)
    forged = forge(c, data={"v_lo": q(lo), "v_hi": q(hi)}, params={**c["claim"]["params"], "v_lo": q(lo), "v_hi": q(hi)})
    rejects(forged, "does not change sign")


def test_singular_reduced_system_is_rejected(R):
    """The interval widened to cover three eigenvalues (an odd count: the sign still changes); over it
    the reduced system is singular at some v, so no unique eigenvector is certified."""
    c = R["eig"]
    lo, hi = Fr(c["data"]["v_lo"]), Fr(c["data"]["v_hi"])
    from symbolic_tf.certify.check.heads import head_tensors, int_matrix
    import flint

    K, Qm, V, O = head_tensors(c["data"], True)
    (Vi, sV), (Oi, sO) = int_matrix(V), int_matrix(O)
    P = flint.fmpq_poly((Vi * Oi).charpoly())
    sc = Fr(2) ** (sV + sO)
    val = lambda x: P(flint.fmpq((x * sc).numerator, (x * sc).denominator))
    v = (lo + hi) / 2
    for f in (Fr(k, 8) for k in range(1, 64)):
        a, b = v * (1 - f), v * (1 + f)
        if val(a) * val(b) < 0 and len([e for e in np.linalg.eigvals(np.array(V, float) @ np.array(O, float))
                                        if abs(e.imag) < 1e-9 and min(a, b) < e.real < max(a, b)]) > 1:
            break
    else:
        pytest.skip("no wider interval with an odd number of eigenvalues")
    a, b = sorted((a, b))
    forged = forge(c, data={"v_lo": q(a), "v_hi": q(b)}, params={**c["claim"]["params"], "v_lo": q(a), "v_hi": q(b)})
    rejects(forged, "reduced eigenvector system is not certified invertible")


def test_eigenline_without_blowup_is_rejected(R, W):
    """A genuine real eigenline of the model's head whose sign v·ûᵀA_hû is negative: Σ = s·ûûᵀ decays."""
    forged = _eigenline(R["eig"], W, head=HEAD, dh=32, choose=lambda v, a: v * a < -1e-8 * abs(v * a) - 1e-12)
    rejects(forged, "v·ûᵀA_hû is not certified positive")
