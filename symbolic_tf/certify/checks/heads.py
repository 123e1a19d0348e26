"""Independent checker of attention-head witnesses (kind ``head-symA-witness``).

The certificate names a checkpoint file (``model.safetensors``, with its SHA-256), a layer, a
head and an integer vector x.  The checker reads the head's query/key rows itself (the
``safetensors`` reader only; nothing of :mod:`symbolic_tf.models`), takes the float32 weights
at their exact dyadic values, and decides the sign of

    xᵀ(W_KᵀW_Q + W_QᵀW_K)x = 2 (W_K x)·(W_Q x)

in exact rational arithmetic.  A positive value proves n₊(A_h + A_hᵀ) > 0 (A_h = W_KᵀW_Q/√d_h,
the factor 1/√d_h > 0 does not change a sign), hence both

* REFUTED "A_h + A_hᵀ ⪯ 0", and
* PROVED "with V = I the Gaussian flow of A_h blows up from every Σ₀ ≻ 0" (MATH.md §4:
  Σ(t)⁻¹ = Σ₀⁻¹ − t(A + Aᵀ) loses definiteness since Σ₀^½(A+Aᵀ)Σ₀^½ has a positive eigenvalue).

For the verdict ``conjecture_hypothesis`` (REFUTED "C_hA_h + A_hᵀC_hᵀ ⪯ 0", C_h = W_O,hW_V,h)
the form is xᵀ(C_hA_h + A_hᵀC_hᵀ)x = 2 (W_K W_Vᵀ W_Oᵀ x)·(W_Q x)/√d_h, read from the value
rows and the output-projection columns of the head as well.
"""
from __future__ import annotations

import hashlib
from fractions import Fraction
from pathlib import Path

from ...spec.errors import CertificationFailed
from ..check import checker

KIND = "head-symA-witness"
CLAIMS = {("REFUTED", "symA_nsd"), ("PROVED", "identity_value_blowup"), ("REFUTED", "conjecture_hypothesis")}


def _fail(msg):
    raise CertificationFailed(f"{KIND}: {msg}")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _rows(handle, keys, name, layer, lo, hi):
    for prefix in ("", "bert."):
        key = f"{prefix}encoder.layer.{layer}.attention.self.{name}.weight"
        if key in keys:
            W = handle.get_tensor(key)
            if W.ndim != 2 or hi > W.shape[0]:
                _fail(f"tensor {key} has shape {W.shape}")
            return W[lo:hi]
    _fail(f"no {name} weight for layer {layer} in the checkpoint")


def _exact_dot_rows(W, x) -> list:
    """W x exactly (x integers or Fractions), W's float32 entries at their dyadic values."""
    out = []
    for row in W:
        acc = Fraction(0)
        for w, xi in zip(row.tolist(), x):
            if xi and w:
                p, q = float(w).as_integer_ratio()
                acc += Fraction(p, q) * xi
        out.append(acc)
    return out


@checker(KIND)
def check_head_witness(cert, problem):
    data = cert.data
    if (cert.status, data.get("verdict")) not in CLAIMS:
        _fail(f"unsupported claim {data.get('verdict')!r} with status {cert.status}")
    path = Path(data["model_file"])
    if not path.is_file():
        _fail(f"checkpoint {str(path)!r} not found")
    if _sha256(path) != data["sha256"]:
        _fail("the checkpoint's SHA-256 does not match the certificate")
    layer, head, dh = int(data["layer"]), int(data["head"]), int(data["head_dim"])
    x = [int(v) for v in data["x"]]
    if not any(x):
        _fail("x = 0")
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        keys = set(f.keys())
        K = _rows(f, keys, "key", layer, head * dh, (head + 1) * dh)
        Q = _rows(f, keys, "query", layer, head * dh, (head + 1) * dh)
        if data["verdict"] == "conjecture_hypothesis":
            V = _rows(f, keys, "value", layer, head * dh, (head + 1) * dh)
            key = next((k for k in (f"{p}encoder.layer.{layer}.attention.output.dense.weight" for p in ("", "bert."))
                        if k in keys), None)
            if key is None:
                _fail(f"no output projection for layer {layer}")
            O = f.get_tensor(key)[:, head * dh:(head + 1) * dh]  # W_O,h: d × d_h
    if K.shape[1] != len(x):
        _fail(f"x has {len(x)} entries, the model dimension is {K.shape[1]}")
    if data["verdict"] == "conjecture_hypothesis":
        left = _exact_dot_rows(K, _exact_dot_rows(V.T, _exact_dot_rows(O.T, x)))  # W_K W_Vᵀ W_Oᵀ x
    else:
        left = _exact_dot_rows(K, x)
    val = sum((a * b for a, b in zip(left, _exact_dot_rows(Q, x))), Fraction(0))
    if not val > 0:
        _fail(f"xᵀ(A_h + A_hᵀ)x ∝ (W_K x)·(W_Q x) = {val} is not positive")
