"""Every declared architecture against an independent forward pass written here from its definition.

The references read the weight dicts the tiny-checkpoint writers saved (the real tensor names),
never :mod:`symbolic_tf.models`; they loop over sequences and heads, use ``math.erf`` /
``math.tanh`` and ``-inf`` masks, and rotate query/key pairs one position at a time.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import tiny_checkpoints as tiny
from symbolic_tf.models._forward import embed, encode
from symbolic_tf.models.architectures import supported
from symbolic_tf.models.loader import load_model
from symbolic_tf.models.probe import default_input_moments
from symbolic_tf.spec.errors import ModelError

_erf = np.vectorize(math.erf)
_tanh = np.vectorize(math.tanh)


def f64(w):
    return {k: np.asarray(v, dtype=np.float64) for k, v in w.items()}


def ln(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def gelu_erf(z):
    return 0.5 * z * (1.0 + _erf(z / math.sqrt(2.0)))


def gelu_tanh(z):
    return 0.5 * z * (1.0 + _tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)))


def rope(x, theta):
    """x (n, d_h): position p rotates the pair (x_k, x_{k+d_h/2}) by p·θ^{-2k/d_h}."""
    n, dh = x.shape
    out = np.empty_like(x)
    for p in range(n):
        for k in range(dh // 2):
            a = p * theta ** (-2.0 * k / dh)
            u, v = x[p, k], x[p, k + dh // 2]
            out[p, k], out[p, k + dh // 2] = u * math.cos(a) - v * math.sin(a), v * math.cos(a) + u * math.sin(a)
    return out


def mha(x, Wq, bq, Wk, bk, Wv, bv, Wo, bo, nh, allowed=None, theta=None):
    """Multi-head attention of one sequence x (n, d); allowed[i, j] = query i may see key j."""
    n, d = x.shape
    dh = d // nh
    q, k, v = x @ Wq.T + bq, x @ Wk.T + bk, x @ Wv.T + bv
    outs = []
    for h in range(nh):
        sl = slice(h * dh, (h + 1) * dh)
        qh, kh = q[:, sl], k[:, sl]
        if theta is not None:
            qh, kh = rope(qh, theta), rope(kh, theta)
        s = qh @ kh.T / math.sqrt(dh)
        if allowed is not None:
            s = np.where(allowed, s, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        outs.append(p @ v[:, sl])
    return np.concatenate(outs, axis=1) @ Wo.T + bo


def ref_bert(w, cfg, X):
    W, nh, eps = f64(w), cfg["num_attention_heads"], cfg["layer_norm_eps"]
    out = []
    for x in X:
        for i in range(cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            g = lambda n: (W[p + n + ".weight"], W[p + n + ".bias"])  # noqa: E731
            a = mha(x, *g("attention.self.query"), *g("attention.self.key"), *g("attention.self.value"),
                    *g("attention.output.dense"), nh)
            h = ln(x + a, *g("attention.output.LayerNorm"), eps)
            W1, b1 = g("intermediate.dense")
            W2, b2 = g("output.dense")
            x = ln(h + gelu_erf(h @ W1.T + b1) @ W2.T + b2, *g("output.LayerNorm"), eps)
        out.append(x)
    return np.array(out)


def ref_vit(w, cfg, X, final=False):
    W, nh, eps, pre = f64(w), cfg["num_attention_heads"], cfg["layer_norm_eps"], cfg["model_type"] + "."
    out = []
    for x in X:
        for i in range(cfg["num_hidden_layers"]):
            p = pre + f"encoder.layer.{i}."
            g = lambda n: (W[p + n + ".weight"], W[p + n + ".bias"])  # noqa: E731
            z = ln(x, *g("layernorm_before"), eps)
            x = x + mha(z, *g("attention.attention.query"), *g("attention.attention.key"),
                        *g("attention.attention.value"), *g("attention.output.dense"), nh)
            W1, b1 = g("intermediate.dense")
            W2, b2 = g("output.dense")
            x = x + gelu_erf(ln(x, *g("layernorm_after"), eps) @ W1.T + b1) @ W2.T + b2
        out.append(ln(x, W[pre + "layernorm.weight"], W[pre + "layernorm.bias"], eps) if final else x)
    return np.array(out)


def ref_vit_embed(w, cfg, img):
    """Patch convolution as an explicit sum over the p×p window of each channel."""
    W, pre, p = f64(w), cfg["model_type"] + ".", cfg["patch_size"]
    K, b = W[pre + "embeddings.patch_embeddings.projection.weight"], W[pre + "embeddings.patch_embeddings.projection.bias"]
    g = cfg["image_size"] // p
    toks = [W[pre + "embeddings.cls_token"][0, 0]]
    if cfg["model_type"] == "deit":
        toks.append(W[pre + "embeddings.distillation_token"][0, 0])
    for r in range(g):
        for c in range(g):
            patch = img[:, r * p:(r + 1) * p, c * p:(c + 1) * p]
            toks.append(np.einsum("dcij,cij->d", K, patch) + b)
    return np.array(toks) + W[pre + "embeddings.position_embeddings"][0]


def ref_gpt2(w, cfg, X, final=False):
    W, nh, eps, d = f64(w), cfg["n_head"], cfg["layer_norm_epsilon"], cfg["n_embd"]
    out = []
    for x in X:
        n = x.shape[0]
        causal = np.tril(np.ones((n, n), dtype=bool))
        for i in range(cfg["n_layer"]):
            p = f"transformer.h.{i}."
            z = ln(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
            qkv = z @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]   # Conv1D: x @ W + b
            q, k, v = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
            heads = []
            dh = d // nh
            for h in range(nh):
                sl = slice(h * dh, (h + 1) * dh)
                s = np.where(causal, q[:, sl] @ k[:, sl].T / math.sqrt(dh), -np.inf)
                pr = np.exp(s - s.max(axis=1, keepdims=True))
                heads.append((pr / pr.sum(axis=1, keepdims=True)) @ v[:, sl])
            x = x + np.concatenate(heads, axis=1) @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
            z = ln(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
            x = x + gelu_tanh(z @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"]) @ W[p + "mlp.c_proj.weight"] \
                + W[p + "mlp.c_proj.bias"]
        out.append(ln(x, W["transformer.ln_f.weight"], W["transformer.ln_f.bias"], eps) if final else x)
    return np.array(out)


def ref_modernbert(w, cfg, X, final=False):
    W, nh, eps, d = f64(w), cfg["num_attention_heads"], cfg["norm_eps"], cfg["hidden_size"]
    zero = np.zeros(d)
    out = []
    for x in X:
        n = x.shape[0]
        dist = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
        for i in range(cfg["num_hidden_layers"]):
            p = f"model.layers.{i}."
            glob = i % cfg["global_attn_every_n_layers"] == 0
            theta = cfg["global_rope_theta"] if glob else cfg["local_rope_theta"]
            allowed = None if glob else dist <= cfg["local_attention"] // 2
            z = x if i == 0 else ln(x, W[p + "attn_norm.weight"], zero, eps)
            Wqkv = W[p + "attn.Wqkv.weight"]
            x = x + mha(z, Wqkv[:d], zero, Wqkv[d:2 * d], zero, Wqkv[2 * d:], zero, W[p + "attn.Wo.weight"], zero,
                        nh, allowed, theta)
            a, c = np.split(ln(x, W[p + "mlp_norm.weight"], zero, eps) @ W[p + "mlp.Wi.weight"].T, 2, axis=1)
            x = x + (gelu_erf(a) * c) @ W[p + "mlp.Wo.weight"].T
        out.append(ln(x, W["model.final_norm.weight"], zero, eps) if final else x)
    return np.array(out)


def _close(got, ref, tol):
    scale = max(1.0, float(np.abs(ref).max()))
    assert np.abs(got - ref).max() <= tol * scale


def test_every_architecture_is_declared():
    assert {"bert", "vit", "deit", "gpt2", "modernbert"} <= set(supported())


def test_bert(tmp_path):
    folder, w = tiny.bert(tmp_path / "bert")
    m = load_model(folder)
    X = np.random.default_rng(5).standard_normal((2, 7, 32))
    cfg = {"num_attention_heads": 4, "num_hidden_layers": 2, "layer_norm_eps": 1e-12}
    _close(encode(m, X, dtype=np.float64), ref_bert(w, cfg, X), 1e-10)
    _close(encode(m, X), ref_bert(w, cfg, X), 1e-4)


@pytest.mark.parametrize("deit", [False, True])
def test_vit_and_deit(tmp_path, deit):
    folder, w = tiny.vit(tmp_path / "v", deit=deit)
    m = load_model(folder)
    import json

    cfg = json.loads((folder / "config.json").read_text())
    assert m.config.norm == "pre" and m.config.model_type == cfg["model_type"]
    img = np.random.default_rng(6).standard_normal((2, 3, 8, 8))
    E = embed(m, img, dtype=np.float64)
    assert E.shape == (2, 4 + (2 if deit else 1), 32)
    for b in range(2):
        _close(E[b], ref_vit_embed(w, cfg, img[b]), 1e-10)
    _close(encode(m, E, dtype=np.float64), ref_vit(w, cfg, E), 1e-10)
    _close(encode(m, E, dtype=np.float64, final=True), ref_vit(w, cfg, E, final=True), 1e-10)
    # the default probe law is the exact image of white pixel noise: N(b_p, W_p W_pᵀ)
    mean, cov = default_input_moments(m)
    K = w[cfg["model_type"] + ".embeddings.patch_embeddings.projection.weight"].astype(np.float64).reshape(32, -1)
    assert np.allclose(cov, K @ K.T, rtol=0, atol=1e-12) and mean.shape == (32,)


def test_gpt2_is_causal(tmp_path):
    folder, w = tiny.gpt2(tmp_path / "g")
    m = load_model(folder)
    import json

    cfg = json.loads((folder / "config.json").read_text())
    ids = np.random.default_rng(7).integers(0, 50, size=(2, 9))
    E = embed(m, ids, dtype=np.float64)
    W = f64(w)
    _close(E, W["transformer.wte.weight"][ids] + W["transformer.wpe.weight"][:9][None], 1e-12)
    got = encode(m, E, dtype=np.float64, final=True)
    _close(got, ref_gpt2(w, cfg, E, final=True), 1e-10)
    # causality: changing the last token changes no earlier output
    E2 = E.copy()
    E2[:, -1] += 1.0
    got2 = encode(m, E2, dtype=np.float64)
    assert np.array_equal(got2[:, :-1], encode(m, E, dtype=np.float64)[:, :-1])


def test_modernbert_rotary_gated_windowed(tmp_path):
    folder, w = tiny.modernbert(tmp_path / "mb")
    m = load_model(folder)
    import json

    cfg = json.loads((folder / "config.json").read_text())
    assert m.layers[0].ln1_weight is None and m.layers[1].window == 4 and m.layers[2].window is None
    X = np.random.default_rng(8).standard_normal((2, 10, 32))
    _close(encode(m, X, dtype=np.float64, final=True), ref_modernbert(w, cfg, X, final=True), 1e-10)
    _close(encode(m, X, final=True), ref_modernbert(w, cfg, X, final=True), 1e-4)
    ids = np.array([[1, 2, 3]])
    W = f64(w)
    _close(embed(m, ids, dtype=np.float64)[0], ln(W["model.embeddings.tok_embeddings.weight"][[1, 2, 3]],
                                                 W["model.embeddings.norm.weight"], 0.0, 1e-5), 1e-12)


@pytest.mark.parametrize("change,needle", [
    ({"model_type": "llama"}, "model_type 'llama' is not a supported architecture"),
    ({"activation_function": "relu"}, "activation_function"),
    ({"n_head": 5}, "multiple"),
])
def test_refusals(tmp_path, change, needle):
    folder, _ = tiny.gpt2(tmp_path / "g")
    import json

    cfg = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**cfg, **change}))
    with pytest.raises(ModelError, match=needle):
        load_model(folder)


def test_missing_tensor_is_named(tmp_path):
    folder, w = tiny.modernbert(tmp_path / "mb")
    from safetensors.numpy import save_file

    w.pop("model.layers.1.mlp.Wi.weight")
    save_file(w, str(folder / "model.safetensors"))
    with pytest.raises(ModelError, match="layers.1.mlp.Wi.weight"):
        load_model(folder)


def test_probe_and_heads_run_on_pre_ln_models(tmp_path):
    """The probe compares a pre-LN block's attention with the closure on the tokens it sees (LN₁ of
    the input); heads of a non-BERT checkpoint get exact verdicts but no certificates (the kernel's
    head checkers read BERT's tensor names)."""
    from symbolic_tf.models.probe import probe
    from symbolic_tf.models.verdicts import heads_report

    m = load_model(tiny.vit(tmp_path / "v", d=8, heads=2, image=4, patch=2)[0])
    res = probe(m, samples=64, seq_len=16, floor_repeats=2, layers=[0])
    assert [r["name"] for r in res.rows] == ["input", "layer 0"] and len(res.closure) == 1
    rep = heads_report(m, layers=[1], heads=[0])
    v = rep.heads[0]["verdicts"]
    assert all("certificate" not in x["evidence"] for x in v.values())
    assert v["symA_nsd"]["status"] in ("PROVED", "REFUTED")


def test_heads_heatmap_draws_only_computed_layers(tmp_path, monkeypatch):
    from symbolic_tf.models import _figures
    from symbolic_tf.models.verdicts import heads_report

    m = load_model(tiny.bert(tmp_path / "b", d=8, heads=2, layers=4, ff=8)[0])
    rep = heads_report(m, layers=[1, 3], witnesses=False)
    seen = {}
    monkeypatch.setattr(_figures, "_save", lambda fig, stem: seen.setdefault("fig", fig) and [])
    _figures.heads_figure(rep, tmp_path / "h")
    ax = seen["fig"].axes[0]
    assert ax.images[0].get_array().shape == (2, 2)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "3"]
