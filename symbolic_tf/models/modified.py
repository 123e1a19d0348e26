r"""A real layer with its value maps modified into a certified configuration, run forward.

The papers' observation on real networks: the covariance of Gaussian tokens grows when the
heads' value and attention matrices have the same sign structure and stays bounded when the
signs are opposite (docs/mathematics.md §4: for V = vI the flow Σ̇ = vΣ(A + Aᵀ)Σ blows up when
v(A + Aᵀ) has a positive direction and collapses when v(A + Aᵀ) ≺ 0).  Here the attention
matrices stay the real ones — every head's W_Q, W_K of the chosen layer — and only the value
side is modified:

* S = span of the top-k eigenvectors of Σ_h (A_h + A_hᵀ) (k ≤ d_h), an orthonormal basis U
  rounded to float32 (the weights' own precision);
* every head gets W_{V,h} = [Uᵀ; 0] (its first k value rows) and W_{O,h} = (v/2^m)·[U, 0], so
  C_h = W_{O,h}W_{V,h} = (v/2^m)·UUᵀ with the float32 U, 2^m the power of two ≥ H and |v| a
  power of two (so the float32 product is exact and range C_h = span U exactly), and
  every bias of the attention is set to 0 (b_Q, b_K, b_V, b_O).  Without biases a centred
  Gaussian keeps its mean 0 under the flow; the query bias would tilt the keys and push the
  mean, and a moving mean makes the logits of a finite sequence sharp long before the
  covariance itself does (the mean-field limit then needs far more keys per sequence).

Then range C_h = S for every head, the layer's flow from any Σ₀ supported on S stays on S
(:mod:`symbolic_tf.models.layers`: the reduction is exact), and the reduced problem — k×k,
C̃_h = (v/2^m)·UᵀU, Ã_h = UᵀA_hU — is classified and certified.  v > 0 gives the same-sign
configuration (Σ_h UᵀA_hU + (·)ᵀ ≻ 0 on the top eigenvectors: blow-up), v < 0 the opposite one
(bounded).  :func:`run_modified` runs the modified real layer's attention sub-block (LayerNorm
and MLP off) repeatedly on Gaussian tokens N(0, Σ₀) with Σ₀ = √d_h·c·UUᵀ and records tr Σ of
the tokens beside the float flow and the certified verdict (numerical evidence beside proof).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["top_subspace", "modify_values", "run_modified", "modified_report"]


def top_subspace(model, layer: int, k: int) -> np.ndarray:
    r"""Orthonormal top-k eigenvectors of Σ_h (A_h + A_hᵀ) of a layer, rounded to float32.

    Parameters
    ----------
    model : Encoder
        The model.
    layer : int
        0-based layer.
    k : int
        Dimension, 1 ≤ k ≤ d_h.

    Returns
    -------
    numpy.ndarray, shape (d, k)
        float64 array holding float32 values.
    """
    from .layers import layer_flow

    flow = layer_flow(model, layer)
    if not 1 <= k <= flow.head_dim:
        raise InvalidParameters("k", f"need 1 ≤ k ≤ d_h = {flow.head_dim}, got {k}")
    M = sum(A + A.T for A, _ in flow.heads())
    _, vec = np.linalg.eigh(M)
    return vec[:, ::-1][:, :k].astype(np.float32).astype(np.float64)


def modify_values(model, layer: int, U, v: float):
    r"""The model with layer ``layer``'s value maps replaced: C_h = (v/2^m)·UUᵀ for every head, no biases.

    Parameters
    ----------
    model : Encoder
        The model (unchanged).
    layer : int
        0-based layer.
    U : array_like, shape (d, k)
        The subspace basis (float32 values), k ≤ d_h.
    v : float
        The value sign and size of the whole layer: ±(a power of two); each head gets v/2^m,
        2^m the power of two ≥ H.

    Returns
    -------
    Encoder
        A copy whose layer has W_{V,h} = [Uᵀ; 0], W_{O,h} = (v/2^m)[U, 0] and zero attention biases.
    """
    cfg = model.config
    d, nh, dh = cfg.hidden_size, cfg.num_heads, cfg.head_dim
    U = np.asarray(U, dtype=np.float32)
    if U.ndim != 2 or U.shape[0] != d or not 1 <= U.shape[1] <= dh:
        raise InvalidParameters("U", f"expected shape ({d}, k) with 1 ≤ k ≤ {dh}, got {U.shape}")
    k = U.shape[1]
    m = int(np.ceil(np.log2(nh)))
    if v == 0 or not np.isfinite(v) or 2.0 ** round(np.log2(abs(v))) != abs(v):
        raise InvalidParameters("v", f"expected ± a power of two (an exact float32 scale), got {v}")
    Wv = np.zeros((d, d), dtype=np.float32)
    Wo = np.zeros((d, d), dtype=np.float32)
    for h in range(nh):
        Wv[h * dh:h * dh + k] = U.T
        Wo[:, h * dh:h * dh + k] = np.float32(v / 2.0 ** m) * U
    z = np.zeros(d, np.float32)
    lw = dataclasses.replace(model.layers[layer], Wv=Wv, Wo=Wo, bq=z, bk=z.copy(), bv=z.copy(), bo=z.copy())
    layers = tuple(lw if i == layer else x for i, x in enumerate(model.layers))
    return dataclasses.replace(model, layers=layers)


def run_modified(model, layer: int, *, k: int = 2, v: float = 1.0, c=None, T: float | None = None,
                 steps: int = 40, samples: int = 4096, seq_len: int = 512, seed: int = 0,
                 certify: bool = True) -> dict:
    r"""Modify a real layer's value maps (C_h = (v/2^m)·UUᵀ), certify its flow, and run it forward.

    Parameters
    ----------
    model : Encoder
        The model.
    layer : int
        0-based layer whose attention matrices are kept.
    k : int
        Dimension of the subspace S.
    v : float
        Value scale: > 0 the same-sign configuration, < 0 the opposite one.
    c : float, optional
        Σ₀ = √d_h·c·UUᵀ (the reduced problem's X'₀ = c·I_k, c read exactly).  Default: the
        power of two nearest 2^m/(2|v|λ), λ the largest eigenvalue of Σ_h Uᵀ(A_h + A_hᵀ)U·√d_h, so
        that the flow's rates are of order one (T* ≈ 1 in the same-sign case).
    T : float, optional
        Depth (default: 0.9·T* for a certified blow-up, else 4).
    steps : int
        Repetitions of the attention sub-block (ε = T/steps).
    samples, seq_len, seed : int
        The Gaussian tokens.
    certify : bool
        Classify the reduced problem (else the verdict is left out).

    Returns
    -------
    dict
        ``verdict`` (:func:`symbolic_tf.models.layers.layer_verdict`), ``t``, ``trace_tokens``,
        ``trace_flow`` (RK4 of the layer's flow from the tokens' Σ̂₀), ``k``, ``v``, ``c``.
    """
    from fractions import Fraction

    from .layers import layer_flow, layer_verdict, measured_depth

    U = top_subspace(model, layer, k)
    mod = modify_values(model, layer, U, v)
    flow = layer_flow(mod, layer)
    if c is None:
        lam = float(np.linalg.eigvalsh(sum(U.T @ (A + A.T) @ U for A, _ in flow.heads()))[-1]) * np.sqrt(flow.head_dim)
        per_head = abs(v) / 2.0 ** np.ceil(np.log2(flow.num_heads))
        c = 2.0 ** round(np.log2(1.0 / (2.0 * per_head * abs(lam)))) if lam != 0 else 1.0
    X0 = [[Fraction(c) if i == j else Fraction(0) for j in range(k)] for i in range(k)]
    verdict = layer_verdict(flow, basis=U, cov0=X0) if certify else None
    if T is None:
        T = 0.9 * verdict["T_lo"] if verdict and verdict.get("T_lo") else 4.0
    d = model.config.hidden_size
    S0 = float(np.sqrt(flow.head_dim)) * float(c) * (U @ U.T)
    meas = measured_depth(mod, layer, np.zeros(d), S0, T=T, steps=steps, samples=samples, seq_len=seq_len,
                          seed=seed)
    return {"layer": layer, "k": k, "v": float(v), "c": float(c), "verdict": verdict, **meas}


def modified_report(model=None, *, layers=(0,), k: int = 2, steps: int = 80, samples: int = 4096,
                    seq_len: int = 512, seed: int = 0, out_dir=None) -> dict:
    r"""Both configurations (same sign v = +1, opposite sign v = −1) of every chosen layer.

    Parameters
    ----------
    model : Encoder, optional
        Default: the shipped all-MiniLM-L6-v2.
    layers : iterable of int
        0-based layers.
    k, steps, samples, seq_len, seed
        Passed to :func:`run_modified`.
    out_dir : path, optional
        Write ``modified.json`` (certificates embedded) and ``modified.png``.

    Returns
    -------
    dict
        ``{"runs": [...], "text": table, "figures": [...]}``.
    """
    from .loader import load_model

    model = load_model() if model is None else model
    runs = [run_modified(model, int(i), k=k, v=v, steps=steps, samples=samples, seq_len=seq_len, seed=seed)
            for i in layers for v in (1.0, -1.0)]
    lines = [f"value maps modified to C_h = ±UUᵀ/2^m on the top-{k} eigenvectors of Σ_h (A_h + A_hᵀ) "
             "(real W_Q, W_K; biases 0); attention sub-block repeated on Gaussian tokens",
             f"{'L':>2} {'v':>3} {'certified':<30} {'trΣ(T)/trΣ₀ tokens':>20} {'flow':>8}  claim"]
    for r in runs:
        v = r["verdict"]
        lab = f"{v['regime']} ({v['status']})"
        lines.append(f"{r['layer']:>2} {r['v']:>+3.0f} {lab:<30} {r['trace_tokens'][-1] / r['trace_tokens'][0]:>20.4g} "
                     f"{r['trace_flow'][-1] / r['trace_flow'][0]:>8.4g}  {v.get('claim') or v.get('reason', '')}")
    doc = {"runs": runs, "text": "\n".join(lines), "figures": []}
    if out_dir is not None:
        from pathlib import Path

        from ..atomic import write_json_atomic
        from ..display import tagged
        from ._figures import modified_figure

        out = Path(out_dir)
        doc["figures"] = [str(f) for f in modified_figure(runs, out / "modified", model.config.name)]
        write_json_atomic(out / "modified.json", tagged("modified", {k_: v_ for k_, v_ in doc.items() if k_ != "text"}))
    return doc
