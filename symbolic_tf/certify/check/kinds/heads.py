"""Independent checker of attention-head witnesses (kind ``head-symA-witness``).

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

from ....atomic import file_sha256
from ....exact.precision import working_precision
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier

KIND = "head-symA-witness"
CLAIMS = {("REFUTED", "symA_nsd"), ("PROVED", "identity_value_blowup"), ("REFUTED", "conjecture_hypothesis")}


def _fail(msg):
    raise CertificationFailed(f"head certificate: {msg}")


def _rows(handle, keys, name, layer, lo, hi):
    for prefix in ("", "bert."):
        key = f"{prefix}encoder.layer.{layer}.attention.self.{name}.weight"
        if key in keys:
            W = handle.get_tensor(key)
            if W.ndim != 2 or hi > W.shape[0] or W.shape[1] != W.shape[0]:
                _fail(f"tensor {key} has shape {W.shape}")
            return W[lo:hi]
    _fail(f"no {name} weight for layer {layer} in the checkpoint")


def _config_heads(path: Path) -> tuple[int, int]:
    """(hidden_size, num_attention_heads) from the checkpoint folder's ``config.json``: the head
    partition (head h = rows h·d_h … (h+1)·d_h − 1) is defined there, not by the weights."""
    import json

    cfg_path = path.parent / "config.json"
    try:
        if cfg_path.stat().st_size > 1_000_000:
            raise ValueError("too large")
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        hidden, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    except (OSError, ValueError, KeyError, TypeError):
        _fail("the checkpoint folder has no readable config.json with hidden_size and num_attention_heads, "
              "so the head partition is unknown")
    if not (type(hidden) is int and type(nh) is int and hidden > 0 and nh > 0 and hidden % nh == 0):
        _fail("config.json: hidden_size must be a positive multiple of num_attention_heads")
    return hidden, nh


def _head_tensors(data: dict, with_value_output: bool):
    """The head's W_K, W_Q (and W_V rows, W_O columns) read from the pinned checkpoint."""
    path = Path(data["model_file"])
    if not path.is_file():
        _fail(f"checkpoint {str(path)!r} not found")
    if file_sha256(path) != data["sha256"]:
        _fail("the checkpoint's SHA-256 does not match the certificate")
    layer, head, dh = int(data["layer"]), int(data["head"]), int(data["head_dim"])
    # the claim names a head by its index: the rows it stands for must be the model's own head
    hidden, nh = _config_heads(path)
    if dh != hidden // nh:
        _fail(f"head_dim = {dh} is not the checkpoint's head size hidden_size/num_attention_heads = "
              f"{hidden}/{nh} = {hidden // nh}: head {head} would name other rows than the model's head {head}")
    if not 0 <= head < nh:
        _fail(f"head {head} is not a head of the checkpoint (0 ≤ head < {nh})")
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        keys = set(f.keys())
        out = [_rows(f, keys, name, layer, head * dh, (head + 1) * dh) for name in ("key", "query")]
        if out[0].shape[1] != hidden:
            _fail(f"the weights have width {out[0].shape[1]}, config.json says hidden_size = {hidden}")
        if with_value_output:
            out.append(_rows(f, keys, "value", layer, head * dh, (head + 1) * dh))
            key = next((k for k in (f"{p}encoder.layer.{layer}.attention.output.dense.weight" for p in ("", "bert."))
                        if k in keys), None)
            if key is None:
                _fail(f"no output projection for layer {layer}")
            out.append(f.get_tensor(key)[:, head * dh:(head + 1) * dh])  # W_O,h: d × d_h
    return out


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


_HEAD = {"model_file": "str", "sha256": "str", "layer": "int", "head": "int", "head_dim": "int"}

_FORGERIES = "tests/soundness/forgeries/test_heads.py"
_PINNED = Hypothesis("checkpoint-pinned", "The weights are read from a checkpoint file whose SHA-256 is the one "
                     "the claim names (float32 entries taken at their exact dyadic values).",
                     f"{_FORGERIES}::test_other_checkpoint_hash_is_rejected")
_PARTITION = Hypothesis("head-partition", "Head h of layer l is the model's own head: d_h = hidden_size ÷ "
                        "num_attention_heads from the checkpoint's config.json, 0 ≤ h < num_attention_heads, and "
                        "its rows h·d_h … (h+1)·d_h − 1 of W_Q, W_K, W_V (columns of W_O) are read.",
                        f"{_FORGERIES}::test_other_head_size_is_rejected")
#: the hypotheses of a sign witness
WITNESS_HYPOTHESES = (
    _PINNED, _PARTITION,
    Hypothesis("x-nonzero", "x is a nonzero integer vector of the model's width.",
               f"{_FORGERIES}::test_zero_witness_is_rejected"),
    Hypothesis("form-positive", "For the verdicts symA_nsd and identity_value_blowup, (W_K x)·(W_Q x) > 0 exactly, "
               "so xᵀ(A_h + A_hᵀ)x > 0: A_h + A_hᵀ is not ⪯ 0, and with V = I, Σ(t)⁻¹ = Σ₀⁻¹ − t(A_h + A_hᵀ) loses "
               "definiteness in finite time from every Σ₀ ≻ 0.", f"{_FORGERIES}::test_negative_direction_is_rejected"),
    Hypothesis("form-of-the-verdict", "For the verdict conjecture_hypothesis the form is the one of C_hA_h + "
               "A_hᵀC_hᵀ, C_h = W_O,hW_V,h: (W_K W_Vᵀ W_Oᵀ x)·(W_Q x) > 0 exactly; a witness of A_h + A_hᵀ does "
               "not serve for it.", f"{_FORGERIES}::test_witness_of_the_other_form_is_rejected"),
)
#: the hypotheses of an eigenline blow-up
EIGENLINE_HYPOTHESES = (
    _PINNED, _PARTITION,
    Hypothesis("interval-of-one-sign", "v_lo < v_hi have one sign (so 0 is not in the interval) and the indices "
               "k, r lie in 0 … d_h − 1.", f"{_FORGERIES}::test_interval_through_zero_is_rejected"),
    Hypothesis("eigenvalue-in-interval", "The exact characteristic polynomial of W_V,hW_O,h (the nonzero spectrum "
               "of C_h) changes sign on [v_lo, v_hi]: a real eigenvalue v* lies there.",
               f"{_FORGERIES}::test_interval_beside_the_eigenvalue_is_rejected"),
    Hypothesis("simple-eigenline", "W_V,hW_O,h − vI with row r and column k removed is certified invertible for "
               "every v in [v_lo, v_hi], so at v* the eigenvector z is unique with z_k = 1, and u = W_O,h z ≠ 0 "
               "satisfies C_hu = v*u.", f"{_FORGERIES}::test_singular_reduced_system_is_rejected"),
    Hypothesis("blowup-sign", "v*·ûᵀA_hû > 0 (a ball over the interval): on the invariant line Σ = s·ûûᵀ, "
               "ṡ = 2v*(ûᵀA_hû)s², which blows up in finite time from every s₀ > 0.",
               f"{_FORGERIES}::test_eigenline_without_blowup_is_rejected"),
)
_STATUS = {v: s for s, v in CLAIMS}


def _head_params(data, **more):
    # head_dim is part of the claim: "head h" names rows h·d_h … (h + 1)·d_h − 1 of the layer
    return {"sha256": data["sha256"], "layer": int(data["layer"]), "head": int(data["head"]),
            "head_dim": int(data["head_dim"]), **more}


@kind(KIND, {**_HEAD, "verdict": ("enum", *sorted(_STATUS)), "x": "int[]"}, needs_problem=False,
      hypotheses=WITNESS_HYPOTHESES)
def check_head_witness(cert, problem):
    """REFUTED "A_h + A_hᵀ ⪯ 0" / PROVED "V = I blows up from every Σ₀ ≻ 0" / REFUTED
    "C_hA_h + A_hᵀC_hᵀ ⪯ 0", from an integer witness x (status derived from the verdict).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        the status derived from the verdict (PROVED or REFUTED) and
        ``Claim("head-property", NONE, {...})``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the checkpoint's SHA-256 differs or the witness does not show the verdict exactly.
    """
    _check_head_witness(cert, problem)
    verdict = cert.data["verdict"]
    return _STATUS[verdict], Claim("head-property", Quantifier.NONE, _head_params(cert.data, verdict=verdict))


def _check_head_witness(cert, problem):
    data = cert.data
    x = [int(v) for v in data["x"]]
    if not any(x):
        _fail("the witness x is zero")
    ca = data["verdict"] == "conjecture_hypothesis"
    tensors = _head_tensors(data, ca)
    K, Q = tensors[:2]
    if ca:
        V, O = tensors[2:]
    if K.shape[1] != len(x):
        _fail(f"x has {len(x)} entries, the model dimension is {K.shape[1]}")
    if ca:
        left = _exact_dot_rows(K, _exact_dot_rows(V.T, _exact_dot_rows(O.T, x)))  # W_K W_Vᵀ W_Oᵀ x
    else:
        left = _exact_dot_rows(K, x)
    val = sum((a * b for a, b in zip(left, _exact_dot_rows(Q, x))), Fraction(0))
    if not val > 0:
        _fail(f"xᵀ(A_h + A_hᵀ)x ∝ (W_K x)·(W_Q x) = {val} is not positive")


# ---------------------------------------------------------------------------------------
# head-eigenline-blowup: the head's own Gaussian flow blows up from a rank-one Σ₀
# ---------------------------------------------------------------------------------------
def _int_matrix(W):
    """(N, s) with W = N·2^{-s} exactly, N a flint integer matrix (W float32/float64 values)."""
    import flint

    ratios = [[float(w).as_integer_ratio() for w in row] for row in W.tolist()]
    s = max((q.bit_length() - 1 for row in ratios for _, q in row), default=0)
    return flint.fmpz_mat([[p << (s - (q.bit_length() - 1)) for p, q in row] for row in ratios]), s


@kind("head-eigenline-blowup", {**_HEAD, "v_lo": "rat", "v_hi": "rat", "k": "int", "r": "int"}, needs_problem=False,
      hypotheses=EIGENLINE_HYPOTHESES)
def check_head_eigenline(cert, problem):
    """PROVED: the head's own Gaussian flow blows up from a rank-one Σ₀ on a real eigenline.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("head-eigenline-blowup", NONE, {..., "v_lo", "v_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the checkpoint's SHA-256 differs or the eigenline enclosure does not check.
    """
    from ....exact.rational import frac_str

    _check_head_eigenline(cert, problem)
    d = cert.data
    return "PROVED", Claim("head-eigenline-blowup", Quantifier.NONE,
                           _head_params(d, v_lo=frac_str(Fraction(d["v_lo"])), v_hi=frac_str(Fraction(d["v_hi"]))))


def _check_head_eigenline(cert, problem):
    """For Σ₀ = ûûᵀ with C_hû = vû (C_h = W_O,hW_V,h), Σ(t) = ûûᵀ/(1 − 2v·a·t), a = ûᵀA_hû
    (docs/mathematics.md §3 closure restricted to the invariant rank-one line), so v·a > 0 proves blow-up.

    Data: the checkpoint, layer, head, rationals v_lo < v_hi of one sign and indices k, r.
    Checked: (1) the exact characteristic polynomial of W_V,hW_O,h (same nonzero spectrum as
    C_h) changes sign on [v_lo, v_hi], so a real eigenvalue v* lies inside; (2) the linear
    system (W_VW_O − vI)z = 0 with z_k = 1 and row r dropped is solved in ball arithmetic for
    every v in the interval (arb ``solve`` fails if any matrix is singular), so at v* its unique
    solution is an eigenvector (an eigenvector with z_k = 0, or a 2-dimensional eigenspace, would
    make the reduced matrix singular); (3) with u = W_O z (then C_hu = v*u), the ball of
    v·(W_K u)·(W_Q u) is positive — the sign of v*·ûᵀA_hû (positive factors dropped)."""
    import flint

    data = cert.data
    dh = int(data["head_dim"])
    lo, hi = Fraction(data["v_lo"]), Fraction(data["v_hi"])
    k, r = int(data["k"]), int(data["r"])
    if not (lo < hi and lo * hi > 0) or not (0 <= k < dh and 0 <= r < dh):
        _fail("need v_lo < v_hi of one sign (0 not inside) and indices 0 ≤ k, r < head_dim")
    K, Q, V, O = _head_tensors(data, True)
    (Vi, sV), (Oi, sO), (Ki, _), (Qi, _) = (_int_matrix(M) for M in (V, O, K, Q))
    N = Vi * Oi                                # = 2^{sV+sO} W_V W_O
    sc = Fraction(2) ** (sV + sO)
    P = flint.fmpq_poly(N.charpoly())
    a_, b_ = lo * sc, hi * sc
    pa = P(flint.fmpq(a_.numerator, a_.denominator))
    pb = P(flint.fmpq(b_.numerator, b_.denominator))
    if not pa * pb < 0:
        _fail("the characteristic polynomial does not change sign on [v_lo, v_hi]")
    with working_precision(256):
        lam = flint.arb(flint.fmpq(a_.numerator, a_.denominator)).union(flint.arb(flint.fmpq(b_.numerator, b_.denominator)))
        rows = [i for i in range(dh) if i != r]
        cols = [j for j in range(dh) if j != k]
        Mred = flint.arb_mat(dh - 1, dh - 1, [flint.arb(N[i, j]) - (lam if i == j else 0) for i in rows for j in cols])
        rhs = flint.arb_mat(dh - 1, 1, [-(flint.arb(N[i, k]) - (lam if i == k else 0)) for i in rows])
        try:
            zc = Mred.solve(rhs)
        except ZeroDivisionError:
            _fail("the reduced eigenvector system is not certified invertible on the interval")
        z = flint.arb_mat(dh, 1)
        it = iter(range(dh - 1))
        for j in range(dh):
            z[j, 0] = flint.arb(1) if j == k else zc[next(it), 0]
        u = flint.arb_mat(Oi) * z
        a = ((flint.arb_mat(Ki) * u).transpose() * (flint.arb_mat(Qi) * u))[0, 0]
        if not (lam * a) > 0:
            _fail("v·ûᵀA_hû is not certified positive")
