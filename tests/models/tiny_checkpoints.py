"""Tiny checkpoints of every declared architecture, written in the standard layout.

Each writer produces a folder with ``config.json`` and ``model.safetensors`` holding random
float32 weights under the architecture's real tensor names (d = 32, 2 layers, 4 heads unless
told otherwise), and returns (folder, weights dict).  The references in test_architectures.py
read these dicts directly, never the package's loader.
"""
from __future__ import annotations

import json

import numpy as np
from safetensors.numpy import save_file


def _write(folder, cfg, shapes, seed, scale=0.2):
    rng = np.random.default_rng(seed)
    w = {}
    for k, s in shapes.items():
        if k.endswith(("LayerNorm.weight", "ln_1.weight", "ln_2.weight", "ln_f.weight", "layernorm_before.weight",
                       "layernorm_after.weight", "layernorm.weight", "norm.weight")):
            w[k] = (1.0 + 0.1 * rng.standard_normal(s)).astype(np.float32)
        else:
            w[k] = (scale * rng.standard_normal(s)).astype(np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    save_file(w, str(folder / "model.safetensors"))
    return folder, w


def bert(folder, d=32, heads=4, layers=2, ff=64, vocab=50, seed=0):
    cfg = {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": d, "num_attention_heads": heads,
           "num_hidden_layers": layers, "intermediate_size": ff, "vocab_size": vocab, "max_position_embeddings": 16,
           "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12}
    s = {"embeddings.word_embeddings.weight": (vocab, d), "embeddings.position_embeddings.weight": (16, d),
         "embeddings.token_type_embeddings.weight": (2, d), "embeddings.LayerNorm.weight": (d,),
         "embeddings.LayerNorm.bias": (d,)}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            s[p + f"attention.self.{n}.weight"], s[p + f"attention.self.{n}.bias"] = (d, d), (d,)
        s.update({p + "attention.output.dense.weight": (d, d), p + "attention.output.dense.bias": (d,),
                  p + "attention.output.LayerNorm.weight": (d,), p + "attention.output.LayerNorm.bias": (d,),
                  p + "intermediate.dense.weight": (ff, d), p + "intermediate.dense.bias": (ff,),
                  p + "output.dense.weight": (d, ff), p + "output.dense.bias": (d,),
                  p + "output.LayerNorm.weight": (d,), p + "output.LayerNorm.bias": (d,)})
    return _write(folder, cfg, s, seed)


def vit(folder, d=32, heads=4, layers=2, ff=64, image=8, patch=4, channels=3, deit=False, seed=1):
    mt = "deit" if deit else "vit"
    cfg = {"model_type": mt, "architectures": ["DeiTModel" if deit else "ViTModel"], "hidden_size": d,
           "num_attention_heads": heads, "num_hidden_layers": layers, "intermediate_size": ff, "hidden_act": "gelu",
           "layer_norm_eps": 1e-12, "image_size": image, "patch_size": patch, "num_channels": channels,
           "qkv_bias": True}
    n = (image // patch) ** 2 + (2 if deit else 1)
    pre = mt + "."
    s = {pre + "embeddings.cls_token": (1, 1, d), pre + "embeddings.position_embeddings": (1, n, d),
         pre + "embeddings.patch_embeddings.projection.weight": (d, channels, patch, patch),
         pre + "embeddings.patch_embeddings.projection.bias": (d,), pre + "layernorm.weight": (d,),
         pre + "layernorm.bias": (d,)}
    if deit:
        s[pre + "embeddings.distillation_token"] = (1, 1, d)
    for i in range(layers):
        p = pre + f"encoder.layer.{i}."
        for nm in ("query", "key", "value"):
            s[p + f"attention.attention.{nm}.weight"], s[p + f"attention.attention.{nm}.bias"] = (d, d), (d,)
        s.update({p + "attention.output.dense.weight": (d, d), p + "attention.output.dense.bias": (d,),
                  p + "layernorm_before.weight": (d,), p + "layernorm_before.bias": (d,),
                  p + "layernorm_after.weight": (d,), p + "layernorm_after.bias": (d,),
                  p + "intermediate.dense.weight": (ff, d), p + "intermediate.dense.bias": (ff,),
                  p + "output.dense.weight": (d, ff), p + "output.dense.bias": (d,)})
    return _write(folder, cfg, s, seed)


def gpt2(folder, d=32, heads=4, layers=2, vocab=50, positions=16, seed=2):
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": d, "n_head": heads,
           "n_layer": layers, "n_inner": None, "vocab_size": vocab, "n_positions": positions,
           "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5}
    ff = 4 * d
    s = {"transformer.wte.weight": (vocab, d), "transformer.wpe.weight": (positions, d),
         "transformer.ln_f.weight": (d,), "transformer.ln_f.bias": (d,)}
    for i in range(layers):
        p = f"transformer.h.{i}."
        s.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,), p + "attn.c_attn.weight": (d, 3 * d),
                  p + "attn.c_attn.bias": (3 * d,), p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
                  p + "ln_2.weight": (d,), p + "ln_2.bias": (d,), p + "mlp.c_fc.weight": (d, ff),
                  p + "mlp.c_fc.bias": (ff,), p + "mlp.c_proj.weight": (ff, d), p + "mlp.c_proj.bias": (d,)})
    return _write(folder, cfg, s, seed)


def modernbert(folder, d=32, heads=4, layers=3, ff=48, vocab=50, window=4, seed=3):
    cfg = {"model_type": "modernbert", "architectures": ["ModernBertModel"], "hidden_size": d,
           "num_attention_heads": heads, "num_hidden_layers": layers, "intermediate_size": ff, "vocab_size": vocab,
           "hidden_activation": "gelu", "norm_eps": 1e-5, "norm_bias": False, "attention_bias": False,
           "mlp_bias": False, "global_rope_theta": 160000.0, "local_rope_theta": 10000.0,
           "local_attention": window, "global_attn_every_n_layers": 2, "max_position_embeddings": 64}
    s = {"model.embeddings.tok_embeddings.weight": (vocab, d), "model.embeddings.norm.weight": (d,),
         "model.final_norm.weight": (d,)}
    for i in range(layers):
        p = f"model.layers.{i}."
        if i > 0:
            s[p + "attn_norm.weight"] = (d,)
        s.update({p + "attn.Wqkv.weight": (3 * d, d), p + "attn.Wo.weight": (d, d), p + "mlp_norm.weight": (d,),
                  p + "mlp.Wi.weight": (2 * ff, d), p + "mlp.Wo.weight": (d, ff)})
    return _write(folder, cfg, s, seed)


WRITERS = {"bert": bert, "vit": vit, "deit": lambda f, **k: vit(f, deit=True, **k), "gpt2": gpt2,
           "modernbert": modernbert}
