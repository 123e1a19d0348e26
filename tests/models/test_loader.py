"""Loading BERT checkpoints: the shipped MiniLM, a tiny synthetic checkpoint, and every refusal."""
from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import save_file

from symbolic_tf.models._forward import encode
from symbolic_tf.models.loader import default_model_dir, load_bert
from symbolic_tf.spec.errors import ModelError, SymtfError

TINY = {"model_type": "bert", "architectures": ["BertForMaskedLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 11,
        "max_position_embeddings": 6, "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12}


def tiny_weights(cfg=TINY, prefix="bert.", drop=None, seed=0):
    rng = np.random.default_rng(seed)
    d, ff = cfg["hidden_size"], cfg["intermediate_size"]
    shapes = {"embeddings.word_embeddings.weight": (cfg["vocab_size"], d),
              "embeddings.position_embeddings.weight": (cfg["max_position_embeddings"], d),
              "embeddings.token_type_embeddings.weight": (2, d),
              "embeddings.LayerNorm.weight": (d,), "embeddings.LayerNorm.bias": (d,)}
    for name in ("query", "key", "value"):
        shapes[f"encoder.layer.0.attention.self.{name}.weight"] = (d, d)
        shapes[f"encoder.layer.0.attention.self.{name}.bias"] = (d,)
    shapes.update({"encoder.layer.0.attention.output.dense.weight": (d, d),
                   "encoder.layer.0.attention.output.dense.bias": (d,),
                   "encoder.layer.0.attention.output.LayerNorm.weight": (d,),
                   "encoder.layer.0.attention.output.LayerNorm.bias": (d,),
                   "encoder.layer.0.intermediate.dense.weight": (ff, d),
                   "encoder.layer.0.intermediate.dense.bias": (ff,),
                   "encoder.layer.0.output.dense.weight": (d, ff), "encoder.layer.0.output.dense.bias": (d,),
                   "encoder.layer.0.output.LayerNorm.weight": (d,), "encoder.layer.0.output.LayerNorm.bias": (d,),
                   "cls.predictions.bias": (cfg["vocab_size"],)})   # an MLM head: ignored
    return {(k if k.startswith("cls.") else prefix + k): rng.standard_normal(s).astype(np.float32)
            for k, s in shapes.items() if k != drop}


def write_ckpt(folder, cfg=TINY, weights=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    save_file(tiny_weights(cfg) if weights is None else weights, str(folder / "model.safetensors"))
    return folder


def test_shipped_minilm():
    folder = default_model_dir()
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    m = load_bert()
    cfg = m.config
    assert (cfg.num_layers, cfg.num_heads, cfg.hidden_size, cfg.head_dim) == (6, 12, 384, 32)
    assert len(m.layers) == 6 and m.layers[0].Wq.dtype == np.float32
    assert m.vocab_path is not None and load_bert(folder) is m   # cached


def test_tiny_checkpoint_with_prefix_loads_and_runs(tmp_path):
    m = load_bert(write_ckpt(tmp_path / "tiny"))
    assert m.config.hidden_size == 8 and m.config.head_dim == 4
    w = tiny_weights()
    assert np.array_equal(m.layers[0].Wq, w["bert.encoder.layer.0.attention.self.query.weight"])
    out = encode(m, np.random.default_rng(1).standard_normal((3, 8)))
    assert out.shape == (3, 8) and np.all(np.isfinite(out))


@pytest.mark.parametrize("change,needle", [
    ({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}, "model_type 'llama' is not a supported"),
    ({"model_type": None}, "model_type None is not a supported"),
    ({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}, "missing or malformed field 'n_embd'"),
    ({"architectures": ["RobertaModel"]}, "not a BERT encoder"),
    ({"hidden_act": "relu"}, "hidden_act"),
    ({"is_decoder": True}, "decoder"),
    ({"num_attention_heads": 3}, "multiple"),
])
def test_refuses_other_architectures(tmp_path, change, needle):
    folder = write_ckpt(tmp_path / "m", {**TINY, **change})
    with pytest.raises(ModelError, match=needle):
        load_bert(folder)


def test_missing_things(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        load_bert(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="config.json"):
        load_bert(tmp_path / "empty")
    only_cfg = tmp_path / "cfg"
    only_cfg.mkdir()
    (only_cfg / "config.json").write_text(json.dumps(TINY))
    with pytest.raises(ModelError, match="model.safetensors"):
        load_bert(only_cfg)
    (only_cfg / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ModelError, match="cannot read"):
        load_bert(only_cfg)
    bad_json = tmp_path / "badjson"
    bad_json.mkdir()
    (bad_json / "config.json").write_text("{")
    with pytest.raises(ModelError, match="cannot read"):
        load_bert(bad_json)


def test_missing_or_misshaped_tensor(tmp_path):
    key = "encoder.layer.0.attention.self.key.weight"
    with pytest.raises(ModelError, match="missing"):
        load_bert(write_ckpt(tmp_path / "a", weights=tiny_weights(drop=key)))
    w = tiny_weights()
    w["bert." + key] = np.zeros((8, 7), dtype=np.float32)
    with pytest.raises(ModelError, match="shape"):
        load_bert(write_ckpt(tmp_path / "b", weights=w))
    assert issubclass(ModelError, SymtfError)
