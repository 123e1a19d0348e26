r"""Figures of the pretrained-model probes (matplotlib, Agg canvas, written atomically as PNG).

* :func:`probe_figure` — each Gaussianity metric against the layer, with the noise-floor band
  (floor mean ± 2 sd), and the closure errors of the attention sub-blocks (log scale);
* :func:`heads_figure` — layers × heads heatmaps: λ_max of sym(A_h) and the verdict category;
* :func:`layers_figure` — per layer, the covariance change of tokens and of the multi-head flow
  against depth, and their difference;
* :func:`modified_figure` — the value-modified layers run forward beside their certified verdicts.

Matplotlib is imported lazily; figures are drawn on explicit ``Figure`` objects (no pyplot
state, no display needed) and saved with :func:`symbolic_tf.atomic.atomic_target`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..numeric.departure import METRICS
from ._labels import METRIC_LABELS

__all__ = ["probe_figure", "heads_figure", "layers_figure", "modified_figure"]


def _figure(figsize):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, stem) -> list[Path]:
    from ..atomic import atomic_target

    target = Path(stem).with_suffix(".png")
    with atomic_target(target) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
    return [target]


def probe_figure(result, stem) -> list[Path]:
    """Metric vs layer with the noise floor (mean ± 2 sd); closure errors vs layer (log scale)."""

    rows = result.rows
    x = np.arange(len(rows))
    names = [r["name"].replace("layer ", "L") for r in rows]
    panels = len(METRICS) + (1 if result.closure else 0)
    fig = _figure((3.2 * panels, 3.2))
    axes = fig.subplots(1, panels)
    for ax, m in zip(axes, METRICS):
        val = np.array([r[m] for r in rows])
        lo = np.array([result.floors[r["rank"]][m]["mean"] - 2 * result.floors[r["rank"]][m]["sd"] for r in rows])
        hi = np.array([result.floors[r["rank"]][m]["mean"] + 2 * result.floors[r["rank"]][m]["sd"] for r in rows])
        ax.fill_between(x, lo, hi, color="0.8", label="noise floor ±2 sd")
        ax.plot(x, val, "o-", color="C0", label="token cloud")
        ax.set_xticks(x, names, rotation=45)
        ax.set_title(METRIC_LABELS[m])
        ax.set_xlabel("layer output")
        ax.set_ylabel(f"{METRIC_LABELS[m]} (whitened cloud, dimensionless)")
    axes[0].legend(fontsize=7)
    if result.closure:
        ax = axes[-1]
        lx = [c["layer"] for c in result.closure]
        xi = [names.index(f"L{i}") for i in lx]
        for key, lab, st in ((("pooled", "euler", "cov"), "pooled Euler: Σ", "s-"),
                             (("sequence", "cov"), "per-sequence: Σ", "o-"),
                             (("sequence", "token"), "per-sequence: tokens", "^-")):
            vals = []
            for c in result.closure:
                v = c
                for k in key:
                    v = v[k]
                vals.append(max(v, 1e-6))
            ax.semilogy(xi, vals, st, label=lab)
        ax.axhline(1.0, color="0.5", lw=0.8, ls="--")
        ax.set_xticks(x, names, rotation=45)
        ax.set_title("attention vs Gaussian closure")
        ax.set_xlabel("layer output")
        ax.set_ylabel("relative error (log scale)")
        ax.legend(fontsize=7)
    s = result.settings
    fig.suptitle(f"{result.model.get('name', '')}: N = {s['samples']} Gaussian tokens "
                 f"({s['samples'] // s['seq_len']}×{s['seq_len']}), LN {'on' if s['layernorm'] else 'off'}, "
                 f"MLP {s['mlp']}", fontsize=9)
    return _save(fig, stem)


_CATEGORY_COLORS = ("#d62728", "#7f7f7f", "#1f77b4")


def heads_figure(report, stem) -> list[Path]:
    """Heatmaps (computed layers × heads) of λ_max(sym A_h) and of the head verdict category.

    Only the layers that were computed are drawn (rows labelled with their layer index)."""
    from matplotlib.colors import ListedColormap

    H = report.num_heads
    rows = sorted({h["layer"] for h in report.heads})
    where = {L: i for i, L in enumerate(rows)}
    lam = np.full((len(rows), H), np.nan)
    cat = np.full((len(rows), H), np.nan)
    codes = {c: i for i, c in enumerate(report.categories)}
    for h in report.heads:
        lam[where[h["layer"]], h["head"]] = h["spectrum_symA"]["lambda_max"]
        if h.get("category") is not None:
            cat[where[h["layer"]], h["head"]] = codes[h["category"]]
    fig = _figure((11, 1.6 + 0.5 * len(rows)))
    ax1, ax2 = fig.subplots(1, 2)
    im = ax1.imshow(lam, cmap="viridis", aspect="auto")
    fig.colorbar(im, ax=ax1, label="λ_max of (A_h + A_hᵀ)/2")
    ax1.set_title("attention matrix A_h = W_Kᵀ W_Q / √d_h")
    cmap = ListedColormap(_CATEGORY_COLORS[:len(report.categories)])
    im2 = ax2.imshow(cat, cmap=cmap, vmin=-0.5, vmax=len(report.categories) - 0.5, aspect="auto")
    cb = fig.colorbar(im2, ax=ax2, ticks=range(len(report.categories)))
    cb.ax.set_yticklabels([c.replace("_", " ") for c in report.categories], fontsize=7)
    ax2.set_title("single-head Gaussian flow (A_h, V = C_h)")
    for ax in (ax1, ax2):
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_xticks(range(H))
        ax.set_yticks(range(len(rows)), [str(L) for L in rows])
    fig.suptitle(report.model.get("name", ""), fontsize=9)
    return _save(fig, stem)


def layers_figure(report, stem) -> list[Path]:
    """Per layer: the relative change ‖Σ(t) − Σ₀‖/‖Σ₀‖ of the tokens (real attention sub-block,
    repeated) and of the flow against depth, and the relative covariance error; the verdict in
    each panel's title."""
    rows = report.rows
    fig = _figure((3.0 * max(len(rows), 1), 5.4))
    axes = np.atleast_2d(fig.subplots(2, max(len(rows), 1), squeeze=False))
    for j, row in enumerate(rows):
        m, v = row["measured"], row["verdict"]
        t = np.asarray(m["t"])
        ax = axes[0, j]
        ax.plot(t, m["change_flow"], "-", color="C0", label="flow (RK4)")
        ax.plot(t, m["change_tokens"], "o", ms=3, color="C1", label="tokens (real sub-block)")
        verdict = f"{v['regime']} (PROVED)" if v["status"] == "PROVED" else f"UNDECIDED (r = {v['r']})"
        ax.set_title(f"layer {row['layer']}: {verdict}", fontsize=8)
        ax.set_xlabel("depth t")
        ax.set_ylabel("‖Σ(t) − Σ₀‖_F / ‖Σ₀‖_F")
        ax2 = axes[1, j]
        err = np.asarray(m["rel_error"][1:], dtype=np.float64)
        ax2.semilogy(t[1:], np.where(np.isfinite(err), np.maximum(err, 1e-8), np.nan), "s-", color="C0", label="flow")
        ax2.axhline(1.0, color="0.5", ls="--", lw=0.8, label="error = the flow's own change")
        ax2.set_xlabel("depth t")
        ax2.set_ylabel("relative covariance error")
    axes[0, 0].legend(fontsize=7)
    axes[1, 0].legend(fontsize=7)
    s = report.settings
    fig.suptitle(f"{report.model.get('name', '')}: each layer's heads as one multi-head Gaussian flow\n"
                 f"(numerical evidence; N = {s['samples']}, n = {s['seq_len']})", fontsize=8)
    return _save(fig, stem)


def _finite_ratio(values) -> np.ndarray:
    """values / values[0], with non-finite or non-positive entries as NaN (not drawn)."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        r = x / x[0]
    return np.where(np.isfinite(r) & (r > 0), r, np.nan)


def modified_figure(runs, stem, name: str = "") -> list[Path]:
    """tr Σ of the modified real layer's tokens beside the flow and the certified verdict (one
    panel per run); a certified blow-up bracket is drawn as a vertical band."""
    fig = _figure((3.6 * max(len(runs), 1), 3.4))
    axes = np.atleast_1d(fig.subplots(1, max(len(runs), 1), squeeze=False)[0])
    for ax, r in zip(axes, runs):
        t = np.asarray(r["t"])
        ax.semilogy(t, _finite_ratio(r["trace_flow"]), "-", color="C0", label="flow (RK4)")
        ax.semilogy(t, _finite_ratio(r["trace_tokens"]), "o", ms=2.5, color="C1",
                    label="modified real layer (tokens)")
        v = r["verdict"] or {}
        if v.get("T_lo") is not None:
            ax.axvspan(v["T_lo"], v["T_hi"], color="C3", alpha=0.4, lw=2, label="certified T*")
            ax.axvline(v["T_lo"], color="C3", lw=1)
            ax.set_xlim(0, 1.05 * v["T_hi"])
        ax.set_title(f"layer {r['layer']}, v = {r['v']:+.0f}: {v.get('regime', '?')} ({v.get('status', '?')})",
                     fontsize=8)
        ax.set_xlabel("depth t")
        ax.set_ylabel("tr Σ(t) / tr Σ₀ (log scale)")
        ax.legend(fontsize=7)
    fig.suptitle(f"{name}: value maps modified, same sign (v > 0) / opposite sign (v < 0);\n"
                 "certified verdict of the flow beside the modified network run forward", fontsize=8)
    return _save(fig, stem)
