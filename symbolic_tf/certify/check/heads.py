"""What the checkers of attention heads of a pretrained checkpoint share (kinds ``head-symA-witness`` and
``head-eigenline-blowup``): the pinned checkpoint, the head partition, exact products of float32 rows.

The certificate names a checkpoint file (``model.safetensors``, with its SHA-256), a layer, a
head and an integer vector x.  The checker reads the head's query/key rows itself (the
``safetensors`` reader only; nothing of :mod:`symbolic_tf.models`), takes the float32 weights
at their exact dyadic values, and decides the sign of

    xᵀ(W_KᵀW_Q + W_QᵀW_K)x = 2 (W_K x)·(W_Q x)

in exact rational arithmetic.  A positive value proves n₊(A_h + A_hᵀ) > 0 (A_h = W_KᵀW_Q/√d_h,
the factor 1/√d_h > 0 does not change a sign), hence both

* REFUTED "A_h + A_hᵀ ⪯ 0", and
* PROVED "with V = I the Gaussian flow of A_h blows up from every Σ₀ ≻ 0" (docs/mathematics.md §4:
  Σ(t)⁻¹ = Σ₀⁻¹ − t(A + Aᵀ) loses definiteness since Σ₀^½(A+Aᵀ)Σ₀^½ has a positive eigenvalue).

For the verdict ``conjecture_hypothesis`` (REFUTED "C_hA_h + A_hᵀC_hᵀ ⪯ 0", C_h = W_O,hW_V,h)
the form is xᵀ(C_hA_h + A_hᵀC_hᵀ)x = 2 (W_K W_Vᵀ W_Oᵀ x)·(W_Q x)/√d_h, read from the value
rows and the output-projection columns of the head as well.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ...atomic import file_sha256
from ...exact.rational import float_fraction
from ...spec.errors import CertificationFailed
from . import Hypothesis

def refuse(msg):
    """Reject a head certificate.

    Parameters
    ----------
    msg : str
        The failed hypothesis in words.

    Raises
    ------
    CertificationFailed
        Always.
    """
    raise CertificationFailed(f"head certificate: {msg}")


def _rows(handle, keys, name, layer, lo, hi):
    for prefix in ("", "bert."):
        key = f"{prefix}encoder.layer.{layer}.attention.self.{name}.weight"
        if key in keys:
            W = handle.get_tensor(key)
            if W.ndim != 2 or hi > W.shape[0] or W.shape[1] != W.shape[0]:
                refuse(f"tensor {key} has shape {W.shape}")
            return W[lo:hi]
    refuse(f"no {name} weight for layer {layer} in the checkpoint")


def config_heads(path: Path) -> tuple[int, int]:
    """(hidden_size, num_attention_heads) from the checkpoint folder's ``config.json``: the head
    partition (head h = rows h·d_h … (h+1)·d_h − 1) is defined there, not by the weights.

    Parameters
    ----------
    path : pathlib.Path
        The checkpoint file.

    Returns
    -------
    tuple of (int, int)
        hidden_size and num_attention_heads.
    """
    import json

    cfg_path = path.parent / "config.json"
    try:
        if cfg_path.stat().st_size > 1_000_000:
            raise ValueError("too large")
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        hidden, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    except (OSError, ValueError, KeyError, TypeError):
        refuse("the checkpoint folder has no readable config.json with hidden_size and num_attention_heads, "
              "so the head partition is unknown")
    if not (type(hidden) is int and type(nh) is int and hidden > 0 and nh > 0 and hidden % nh == 0):
        refuse("config.json: hidden_size must be a positive multiple of num_attention_heads")
    return hidden, nh


def head_tensors(data: dict, with_value_output: bool):
    """The head's W_K, W_Q (and W_V rows, W_O columns) read from the pinned checkpoint.

    Parameters
    ----------
    data : dict
        The certificate's data (model_file, sha256, layer, head, head_dim).
    with_value_output : bool
        Whether to read W_V,h and W_O,h as well.

    Returns
    -------
    list of numpy.ndarray
        [W_K,h, W_Q,h] (d_h × d), then W_V,h (d_h × d) and W_O,h (d × d_h) when asked.
    """
    path = Path(data["model_file"])
    if not path.is_file():
        refuse(f"checkpoint {str(path)!r} not found")
    if file_sha256(path) != data["sha256"]:
        refuse("the checkpoint's SHA-256 does not match the certificate")
    layer, head, dh = int(data["layer"]), int(data["head"]), int(data["head_dim"])
    # the claim names a head by its index: the rows it stands for must be the model's own head
    hidden, nh = config_heads(path)
    if dh != hidden // nh:
        refuse(f"head_dim = {dh} is not the checkpoint's head size hidden_size/num_attention_heads = "
              f"{hidden}/{nh} = {hidden // nh}: head {head} would name other rows than the model's head {head}")
    if not 0 <= head < nh:
        refuse(f"head {head} is not a head of the checkpoint (0 ≤ head < {nh})")
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        keys = set(f.keys())
        out = [_rows(f, keys, name, layer, head * dh, (head + 1) * dh) for name in ("key", "query")]
        if out[0].shape[1] != hidden:
            refuse(f"the weights have width {out[0].shape[1]}, config.json says hidden_size = {hidden}")
        if with_value_output:
            out.append(_rows(f, keys, "value", layer, head * dh, (head + 1) * dh))
            key = next((k for k in (f"{p}encoder.layer.{layer}.attention.output.dense.weight" for p in ("", "bert."))
                        if k in keys), None)
            if key is None:
                refuse(f"no output projection for layer {layer}")
            out.append(f.get_tensor(key)[:, head * dh:(head + 1) * dh])  # W_O,h: d × d_h
    return out


def exact_dot_rows(W, x) -> list:
    """W x exactly (x integers or Fractions), W's float32 entries at their dyadic values.

    Parameters
    ----------
    W : numpy.ndarray
        The rows.
    x : sequence of int or Fraction
        The vector.

    Returns
    -------
    list of Fraction
        One exact dot product per row.
    """
    out = []
    for row in W:
        acc = Fraction(0)
        for w, xi in zip(row.tolist(), x):
            if xi and w:
                acc += float_fraction(w) * xi  # w's exact binary value
        out.append(acc)
    return out


def int_matrix(W):
    """(N, s) with W = N·2^{-s} exactly, N a flint integer matrix (W float32/float64 values).

    Parameters
    ----------
    W : numpy.ndarray
        The matrix.

    Returns
    -------
    tuple of (flint.fmpz_mat, int)
        N and the common binary exponent s.
    """
    import flint

    ratios = [[float(w).as_integer_ratio() for w in row] for row in W.tolist()]
    s = max((q.bit_length() - 1 for row in ratios for _, q in row), default=0)
    return flint.fmpz_mat([[p << (s - (q.bit_length() - 1)) for p, q in row] for row in ratios]), s


#: the checkpoint, layer and head a head certificate names
HEAD_SCHEMA = {"model_file": "str", "sha256": "str", "layer": "int", "head": "int", "head_dim": "int"}

#: the forgeries of every hypothesis of these kinds (tests/soundness)
FORGERIES = "tests/soundness/forgeries/test_heads.py"

CHECKPOINT_PINNED = Hypothesis("checkpoint-pinned", "The weights are read from a checkpoint file whose SHA-256 is the one "
                     "the claim names (float32 entries taken at their exact dyadic values).",
                     f"{FORGERIES}::test_other_checkpoint_hash_is_rejected")

HEAD_PARTITION = Hypothesis("head-partition", "Head h of layer l is the model's own head: d_h = hidden_size ÷ "
                        "num_attention_heads from the checkpoint's config.json, 0 ≤ h < num_attention_heads, and "
                        "its rows h·d_h … (h+1)·d_h − 1 of W_Q, W_K, W_V (columns of W_O) are read.",
                        f"{FORGERIES}::test_other_head_size_is_rejected")


def head_claim_params(data, **more):
    # head_dim is part of the claim: "head h" names rows h·d_h … (h + 1)·d_h − 1 of the layer
    """The claim's parameters naming the head: checkpoint hash, layer, head and head_dim
    (head_dim is part of the claim: "head h" names rows h·d_h … (h + 1)·d_h − 1 of the layer).

    Parameters
    ----------
    data : dict
        The certificate's data.
    **more
        Further parameters of the claim.

    Returns
    -------
    dict
        The parameters.
    """
    return {"sha256": data["sha256"], "layer": int(data["layer"]), "head": int(data["head"]),
            "head_dim": int(data["head_dim"]), **more}
