r"""Gaussianity through the layers of a pretrained encoder (the Alcalde–Ji–Zuazua probe, docs/mathematics.md §6).

Input.  ``samples`` = N tokens drawn i.i.d. from N(m, S) and cut into N/n sequences of
``seq_len`` = n tokens; they enter the first encoder layer directly (the token embedding is
bypassed).  The default (m, S) is the empirical mean and population covariance of the rows of
the word-embedding matrix (for all-MiniLM-L6-v2: 30 522 rows, tr S ≈ 1.18).

The token cloud of a layer is **all tokens of all sequences pooled** (N points in ℝ^d).  Tokens
of one sequence are exchangeable but not independent after attention (they share their
sequence's keys), so the pooled cloud also carries the between-sequence variation — an effect
of finite n that vanishes in the mean-field limit n → ∞ (see the closure check below).

Gaussianity metrics of a cloud X (all on the whitened cloud Y = Λ^{-1/2}Uᵀ(X − m̂) of
:func:`~symbolic_tf.numeric.distances.whiten`, whose moment-matched Gaussian is N(0, I_r),
r the numerical rank):

* Mardia's skewness b₁ and kurtosis b₂ (:func:`symbolic_tf.numeric.gaussianity.mardia`);
  Gaussian references b₂ ≈ r(r+2)(N−1)/(N+1), b₁ ≈ r(r+1)(r+2)/N;
* sliced W₂ between Y and a fresh N(0, I_r) sample of the same size;
* energy distance between Y and a fresh N(0, I_r) sample of the same size.

Noise floor.  The same four numbers for a Gaussian cloud G₁ ~ N(0, I_r) of the same N (itself
whitened by its own moments) against an independent G₂: for a Gaussian X the metric and the
floor have the same distribution (:mod:`~symbolic_tf.numeric.distances`), so the floor is the
value "exactly Gaussian" produces at this N.  It is repeated ``floor_repeats`` times (mean and
spread, see :func:`noise_floor`); ``z = (metric − floor mean)/(sd·√(1 + 1/repeats))`` is
reported (|z| ≲ 3 is "at the noise floor").

Closure check of each layer's attention sub-block Y = x + attn(x) (before LayerNorm), against
the multi-head Gaussian closure of docs/mathematics.md §3 (:mod:`symbolic_tf.models._heads`):

* ``pooled`` — the one-step prediction of the moment ODE from the pooled input moments
  (α̂, Σ̂): ``euler`` (α + Jα + c, Σ + JΣ + ΣJᵀ) and ``pushforward`` ((I+J)Σ(I+J)ᵀ);
* ``sequence`` — the same closure with each sequence's own empirical moments (α_s, Σ_s): the
  keys a token really sees; ``token`` = ‖Ŷ − Y‖_F/‖Y − X‖_F over all tokens.

Errors are relative to the change the layer makes: mean ‖α_pred − α_Y‖/‖α_Y − α_X‖, covariance
‖Σ_pred − Σ_Y‖_F/‖Σ_Y − Σ_X‖_F; ``change`` = ‖Σ_Y − Σ_X‖_F/‖Σ_X‖_F.  (An error ≥ 1 means the
prediction is no better than "nothing changes".)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..numeric.departure import METRICS, cloud_metrics, noise_floor
from ..numeric.gaussianity import empirical_moments
from ..spec.errors import InvalidParameters
from ._labels import METRIC_LABELS

__all__ = ["METRICS", "default_input_moments", "gaussian_tokens", "cloud_metrics", "noise_floor",
           "closure_check", "ProbeResult", "probe"]


def default_input_moments(model) -> tuple[np.ndarray, np.ndarray]:
    """The probe's default input law, declared by the architecture (float64).

    Token models: the mean and population covariance of the rows of the token-embedding
    matrix; ViT/DeiT: the image of white pixel noise under the patch embedding, N(b_p, W_pW_pᵀ)
    (:mod:`symbolic_tf.models.architectures`).

    Parameters
    ----------
    model : Encoder
        The loaded model.

    Returns
    -------
    mean : numpy.ndarray, shape (d,)
        The mean.
    cov : numpy.ndarray, shape (d, d)
        The covariance.
    """
    return model.arch.input_moments(model)


def gaussian_tokens(mean, cov, N: int, rng: np.random.Generator) -> np.ndarray:
    r"""N i.i.d. draws m + L z, z ~ N(0, I), L = UΛ^{1/2} from cov = UΛUᵀ (singular cov allowed).

    Parameters
    ----------
    mean : array_like, shape (d,)
        Mean m.
    cov : array_like, shape (d, d)
        Covariance (symmetric, positive semidefinite).
    N : int
        Number of draws.
    rng : numpy.random.Generator
        The source of z.

    Returns
    -------
    numpy.ndarray, shape (N, d)
        The tokens.

    Raises
    ------
    InvalidParameters
        For mismatched shapes, non-finite entries, or a non-symmetric or non-PSD cov.
    """
    mean = np.asarray(mean, dtype=np.float64)
    cov = np.asarray(cov, dtype=np.float64)
    d = mean.shape[0]
    if mean.ndim != 1 or cov.shape != (d, d):
        raise InvalidParameters("cov", f"expected mean (d,) and cov (d, d), got {mean.shape} and {cov.shape}")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))) or not np.allclose(cov, cov.T):
        raise InvalidParameters("cov", "mean and cov must be finite and cov symmetric")
    lam, U = np.linalg.eigh(0.5 * (cov + cov.T))
    if lam.min() < -1e-9 * max(lam.max(), 0.0):
        raise InvalidParameters("cov", f"not positive semidefinite (eigenvalue {lam.min():.3g})")
    L = U * np.sqrt(np.clip(lam, 0.0, None))
    return mean + rng.standard_normal((N, d)) @ L.T


def _rel(a, b, ref) -> float:
    den = float(np.linalg.norm(ref))
    return float(np.linalg.norm(a - b) / den) if den > 0 else float("nan")


def closure_check(model, layer: int, H, Y) -> dict:
    r"""Compare the attention sub-block output Y (B, n, d) of ``layer`` on inputs H with the
    multi-head Gaussian closure (module docstring).

    Parameters
    ----------
    model : BertEncoder
        The encoder.
    layer : int
        0-based layer index.
    H : array_like, shape (B, n, d)
        The layer's input sequences.
    Y : array_like, shape (B, n, d)
        Its attention sub-block output x + attn(x) (before LayerNorm).

    Returns
    -------
    dict
        ``layer``, ``change`` = ‖Σ_Y − Σ_X‖_F/‖Σ_X‖_F, ``pooled`` (per prediction kind: relative
        ``mean`` and ``cov`` errors) and ``sequence`` (``token``, ``mean``, ``cov`` errors).
    """
    from ._heads import moment_step, sequence_closure

    H = np.asarray(H, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    d = H.shape[-1]
    X2, Y2 = H.reshape(-1, d), Y.reshape(-1, d)
    aX, SX = empirical_moments(X2)
    aY, SY = empirical_moments(Y2)
    out = {"layer": layer, "change": _rel(SY, SX, SX)}
    pooled = {}
    for kind, (a, S) in moment_step(model, layer, aX, SX).items():
        pooled[kind] = {"mean": _rel(a, aY, aY - aX), "cov": _rel(S, SY, SY - SX)}
    out["pooled"] = pooled
    Yh = sequence_closure(model, layer, H)
    aH, SH = empirical_moments(Yh.reshape(-1, d))
    out["sequence"] = {"token": _rel(Yh, Y, Y - H), "mean": _rel(aH, aY, aY - aX), "cov": _rel(SH, SY, SY - SX)}
    return out


@dataclass
class ProbeResult:
    """Everything :func:`probe` measured; :meth:`to_dict` is its JSON, :meth:`table` its text."""

    settings: dict
    model: dict
    rows: list                      # per cloud: {"name", "layer", **cloud_metrics, "z": {...}}
    floors: dict                    # rank → noise_floor(...)
    closure: list                   # per layer: closure_check(...)
    figures: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """The JSON form of the result.

        Returns
        -------
        dict
            ``settings``, ``model``, ``layers``, ``noise_floor``, ``closure``, ``figures`` and
            ``notes``.
        """
        return {"settings": self.settings, "model": self.model, "layers": self.rows,
                "noise_floor": {str(k): v for k, v in self.floors.items()}, "closure": self.closure,
                "figures": [str(f) for f in self.figures],
                "notes": ["metrics on whitened pooled token clouds; floor = two Gaussian samples of the "
                          "same size and rank; closure errors relative to the layer's own change "
                          "(numerical evidence)"]}

    def table(self) -> str:
        """The text form of the result: noise floors, per-cloud metrics with z, closure errors.

        Returns
        -------
        str
            The table, one line per row.
        """
        s = self.settings
        lines = [f"Gaussianity probe: {self.model.get('name', '')} ({s['samples']} tokens = "
                 f"{s['samples'] // s['seq_len']} sequences x {s['seq_len']}, seed {s['seed']}, "
                 f"layernorm {'on' if s['layernorm'] else 'off'}, mlp {s['mlp']}, {s['dtype']})"]
        for r, f in sorted(self.floors.items()):
            lines.append(f"noise floor (N = {f['N']}, rank {r}, {f['repeats']} Gaussian pairs): "
                         + ", ".join(f"{METRIC_LABELS[m]} {f[m]['mean']:.4g} ± {f[m]['sd']:.2g}" for m in METRICS))
        head = f"{'cloud':<8}{'rank':>5}" + "".join(f"{METRIC_LABELS[m]:>20}" for m in METRICS)
        lines += ["", head + "   (value [z vs floor])"]
        for row in self.rows:
            cells = "".join(f"{row[m]:>12.5g} [{row['z'][m]:>5.1f}]" for m in METRICS)
            lines.append(f"{row['name']:<8}{row['rank']:>5}{cells}")
        if self.closure:
            lines += ["", "attention sub-block vs the multi-head Gaussian closure (relative to the layer's change):",
                      f"{'layer':<8}{'|dS|/|S|':>10}{'pooled Euler':>14}{'pooled push':>13}"
                      f"{'per-seq cov':>13}{'per-seq tok':>13}{'mean (Euler)':>14}"]
            for c in self.closure:
                p, q = c["pooled"], c["sequence"]
                lines.append(f"{c['layer']:<8}{c['change']:>10.3g}{p['euler']['cov']:>14.3g}"
                             f"{p['pushforward']['cov']:>13.3g}{q['cov']:>13.3g}{q['token']:>13.3g}"
                             f"{p['euler']['mean']:>14.3g}")
        if self.figures:
            lines += ["", "figure: " + ", ".join(str(f) for f in self.figures)]
        return "\n".join(lines)


def _layer_list(model, layers) -> list[int]:
    L = model.config.num_layers
    if layers is None:
        return list(range(L))
    idx = sorted({int(i) for i in layers})
    if not idx or idx[0] < 0 or idx[-1] >= L:
        raise InvalidParameters("layers", f"layer indices must lie in 0..{L - 1}, got {list(layers)}")
    return idx


def probe(model=None, *, samples: int = 2048, seq_len: int = 64, seed: int = 0, layers=None,
          layernorm: bool = True, mlp: str = "full", mean=None, cov=None, dtype="float32",
          directions: int = 128, floor_repeats: int = 8, closure: bool = True,
          out_dir=None) -> ProbeResult:
    r"""Run the Gaussianity probe.

    Parameters
    ----------
    model : BertEncoder, optional
        Default: the shipped all-MiniLM-L6-v2.
    samples, seq_len : int
        N tokens in N/n sequences of n tokens (N must be a multiple of n and exceed d).
    seed : int
    layers : iterable of int, optional
        0-based layer indices to report (the stack runs up to the largest); default all.
    layernorm, mlp
        Switches of :func:`symbolic_tf.models._forward.encoder_layer`.
    mean, cov : array_like, optional
        Input law; default :func:`default_input_moments`.
    dtype : {"float32", "float64"}
    directions : int
        Slices of the sliced W₂.
    floor_repeats : int
        Gaussian pairs per noise floor (≥ 2).
    closure : bool
        Also run :func:`closure_check` on every reported layer.
    out_dir : path, optional
        Write ``probe.json`` and ``probe_gaussianity.png`` there (atomically).

    Returns
    -------
    ProbeResult
        Per-cloud metrics and z-scores, noise floors, closure checks and written figures.
    """
    from ._forward import encode
    from .loader import load_bert

    model = load_bert() if model is None else model
    d = model.config.hidden_size
    if seq_len < 2 or samples < 2 or samples % seq_len:
        raise InvalidParameters("samples", f"need seq_len >= 2 and samples a multiple of seq_len, got "
                                f"samples {samples}, seq_len {seq_len}")
    if samples <= d:
        raise InvalidParameters("samples", f"need more tokens than the dimension d = {d} (whitening), got {samples}")
    if dtype not in ("float32", "float64"):
        raise InvalidParameters("dtype", f"expected float32 or float64, got {dtype!r}")
    idx = _layer_list(model, layers)
    source = {2: "user mean/covariance", 1: "user mean or covariance (the other from the word embeddings)",
              0: "word-embedding mean/covariance"}[(mean is not None) + (cov is not None)]
    if mean is None or cov is None:
        m0, S0 = default_input_moments(model)
        mean = m0 if mean is None else mean
        cov = S0 if cov is None else cov
    rng = np.random.default_rng(seed)
    X0 = gaussian_tokens(mean, cov, samples, rng)
    H = X0.reshape(samples // seq_len, seq_len, d)
    _, traces = encode(model, H, layers=idx[-1] + 1, dtype=np.dtype(dtype), layernorm=layernorm, mlp=mlp,
                       trace=True)
    clouds = [("input", -1, X0)] + [(f"layer {i}", i, traces[i].out.reshape(samples, d)) for i in idx]
    rows, floors = [], {}
    from ..display import progress

    for k, (name, layer, X) in progress(enumerate(clouds), total=len(clouds), desc="clouds", unit="layer"):
        met = cloud_metrics(X, seed=seed * 1000 + k + 7, directions=directions)
        r = met["rank"]
        if r not in floors:
            floors[r] = noise_floor(samples, r, repeats=floor_repeats, seed=seed, directions=directions)
        f = floors[r]
        # the floor mean is itself an average of `repeats` draws: its error widens the scale
        z = {m: (met[m] - f[m]["mean"]) / (f[m]["sd"] * np.sqrt(1 + 1 / floor_repeats))
             if f[m]["sd"] > 0 else float("nan") for m in METRICS}
        rows.append({"name": name, "layer": layer, **met, "z": z})
    checks = []
    if closure:
        for i in progress(idx, desc="closure checks", unit="layer"):
            Hin = H if i == 0 else traces[i - 1].out
            tr = traces[i]
            # the attention acts on the tokens it sees (LN₁(H) in a pre-LN block): compare
            # Z + attn(Z) with the closure on Z's moments
            if model.config.norm == "pre" and layernorm:
                Z = tr.attn_input
                checks.append(closure_check(model, i, Z, Z + (tr.attn_residual - Hin)))
            else:
                checks.append(closure_check(model, i, Hin, tr.attn_residual))
    settings = {"samples": samples, "seq_len": seq_len, "seed": seed, "layers": idx, "layernorm": layernorm,
                "mlp": mlp, "dtype": dtype, "directions": directions, "floor_repeats": floor_repeats,
                "input": source,
                "input_trace_cov": float(np.trace(np.asarray(cov, dtype=np.float64)))}
    result = ProbeResult(settings, {**model.config.to_dict(), "path": str(model.path)}, rows, floors, checks)
    if out_dir is not None:
        from pathlib import Path

        from ..atomic import write_json_atomic
        from ._figures import probe_figure

        out = Path(out_dir)
        result.figures = probe_figure(result, out / "probe_gaussianity")
        from ..display import tagged

        write_json_atomic(out / "probe.json", tagged("probe", result.to_dict()))
    return result
