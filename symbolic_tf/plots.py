"""Matplotlib figures (the library's drawing face).

Matplotlib is imported lazily inside the functions, and figures are drawn on explicit
``Figure`` objects with the Agg canvas (no pyplot state, no display needed).  Every figure is
written as PNG and PDF atomically: to a temporary file in the target folder, then
``os.replace``.

Covariance views (2×2 covariances Σ = [[a, c], [c, b]]):

* the SPD-cone view — coordinates (a − b, 2c, a + b), in which Σ ⪰ 0 is the solid cone
  a + b ≥ √((a − b)² + (2c)²) (drawn translucently) and rank-1 matrices vvᵀ are its surface;
* the normalised disk view — (u, w) = (a − b, 2c)/(a + b) of Σ/trΣ, inside the unit disk
  (the circle is the rank-1 boundary).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["save_figure", "cone_figure", "disk_figure", "plane3d_figure", "rank_histograms",
           "rank_decay_figure", "castin_figures", "meanfield_figure", "steering_figure", "regime_map_figure",
           "sink_figure", "relu_figure"]


# ----------------------------------------------------------------------------------------
# infrastructure
# ----------------------------------------------------------------------------------------
def _figure(figsize):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, stem, formats=("png", "pdf"), dpi: int = 150) -> list[Path]:
    """Write ``stem.png`` / ``stem.pdf`` atomically (temp file in the same folder, then rename)."""
    from .atomic import atomic_target

    stem = Path(stem)
    paths = []
    for ext in formats:
        target = stem.parent / f"{stem.name}.{ext}"
        with atomic_target(target) as tmp:
            fig.savefig(tmp, format=ext, dpi=dpi)
        paths.append(target)
    return paths


def _cone_coords(S):
    from .reproduce.castin2025 import to_cone

    return to_cone(S)


def _disk_coords(S):
    from .reproduce.castin2025 import to_disk

    return to_disk(S)


def _rank1_coords(v):
    v = np.asarray(v, dtype=float)
    v = v / np.linalg.norm(v)
    return np.array([v[0] ** 2 - v[1] ** 2, 2 * v[0] * v[1], 1.0])


def _colors(values, cmap="viridis"):
    from matplotlib import colormaps

    values = np.asarray(values, dtype=float)
    lo, hi = np.nanmin(values), np.nanmax(values)
    x = (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)
    return colormaps[cmap](x)


def _layout(n):
    """(rows, cols): one row up to 3 panels, two columns for 4."""
    return (2, 2) if n == 4 else (1, max(n, 1))


_NAMES = {"softmax": "softmax", "l2": "ℓ2", "sinkhorn": "Sinkhorn", "multihead": "multi-head (H = 2)"}
# variants whose Gaussian flow can blow up in finite time (ℓ2 with K invertible and Sinkhorn grow
# at most exponentially, docs/mathematics.md §4): only there may a stopped run suggest a blow-up
_MAY_BLOW_UP = ("softmax", "multihead")


# ----------------------------------------------------------------------------------------
# the cone view
# ----------------------------------------------------------------------------------------
def _cone_panel(ax, Sig, colors, *, lines=(), wedge=None, title="", elev=20, azim=-112):
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    X = _cone_coords(Sig)                       # (B, n, 3)
    scale = float(np.nanmax(X[..., 2])) if X.size else 1.0
    ax.add_collection3d(Line3DCollection(list(X), colors=colors, alpha=0.6, linewidths=0.8))
    ax.scatter(X[:, -1, 0], X[:, -1, 1], X[:, -1, 2], color=colors, s=4)
    r, th = np.meshgrid(np.linspace(0, scale, 20), np.linspace(0, 2 * np.pi, 60))
    ax.plot_surface(r * np.cos(th), r * np.sin(th), r, alpha=0.07, color="k", linewidth=0)
    c = np.linspace(0, scale, 50)
    for v in lines:
        d = _rank1_coords(v)
        ax.plot(d[0] * c, d[1] * c, d[2] * c, color="crimson", linewidth=1.2, alpha=0.8)
    if wedge is not None:
        p1, p2 = (_rank1_coords(v) * scale for v in wedge)
        ax.add_collection3d(Poly3DCollection([[np.zeros(3), p1, p2]], alpha=0.15, facecolor="crimson"))
    ax.view_init(elev=elev, azim=azim)
    ax.set_xlabel("a − b")
    ax.set_ylabel("2c")
    ax.set_zlabel("a + b")
    ax.set_title(title, fontsize=9)


def cone_figure(runs: dict, Sigma0_uw, stem, *, lines=(), wedge=None, suptitle="", azim=-112) -> list[Path]:
    """SPD-cone view of Σ(t), one 3-D panel per run (``runs``: name → run dict with ``Sigma``)."""
    names = list(runs)
    nr, nc = _layout(len(names))
    fig = _figure((4.2 * nc, 4.4 * nr))
    colors = _colors(np.asarray(Sigma0_uw)[:, 1])
    for i, name in enumerate(names):
        ax = fig.add_subplot(nr, nc, i + 1, projection="3d")
        run = runs[name]
        _cone_panel(ax, run["Sigma"], colors, lines=lines, wedge=wedge, azim=azim,
                    title=f"{_NAMES.get(run.get('variant', name), name)}, T = {run['T']:g}")
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# the normalised disk view
# ----------------------------------------------------------------------------------------
def disk_figure(runs: dict, Sigma0_uw, stem, *, suptitle="", lines=()) -> list[Path]:
    """(u, w) of Σ(t)/trΣ(t) in the unit disk, one panel per run.

    Members the integrator stopped (‖Σ‖_F above the norm bound, or the step collapsed) end with
    ×; the title counts them as exactly that — "‖Σ‖ bound exceeded", not "blow-up": for ℓ2 and
    Sinkhorn the flow grows at most exponentially (docs/mathematics.md §4), so no finite-time
    blow-up exists to count.
    """
    from matplotlib.collections import LineCollection

    names = list(runs)
    nr, nc = _layout(len(names))
    fig = _figure((3.6 * nc, 3.9 * nr))
    colors = _colors(np.asarray(Sigma0_uw)[:, 1])
    th = np.linspace(0, 2 * np.pi, 200)
    for i, name in enumerate(names):
        ax = fig.add_subplot(nr, nc, i + 1)
        run = runs[name]
        uw = _disk_coords(np.concatenate([run["Sigma"], run["Sigma_end"][:, None]], axis=1))
        blown = np.asarray(run["status"]) == 2
        ax.add_collection(LineCollection(list(uw), colors=colors, alpha=0.6, linewidths=0.7))
        for mask, marker, size in ((blown, "x", 10), (~blown, "o", 4)):
            if mask.any():
                ax.scatter(uw[mask, -1, 0], uw[mask, -1, 1], color=colors[mask], s=size, marker=marker,
                           linewidths=0.7)
        ax.plot(np.cos(th), np.sin(th), color="k", alpha=0.5, linewidth=0.8)
        for v in lines:
            d = _rank1_coords(v)
            ax.scatter([d[0]], [d[1]], color="crimson", s=30, marker="*", zorder=5)
        ax.set_aspect("equal")
        ax.set_xlim(-1.08, 1.08)
        ax.set_ylim(-1.08, 1.08)
        ax.set_xlabel("(a − b)/(a + b)")
        if i % nc == 0:
            ax.set_ylabel("2c/(a + b)")
        n_bl = int(blown.sum())
        variant = run.get("variant", name)
        what = "‖Σ‖ bound exceeded" + ("" if variant in _MAY_BLOW_UP else " (growth, no blow-up)")
        ax.set_title(f"{_NAMES.get(variant, name)}: {n_bl}/{blown.size} {what}", fontsize=9)
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# d = 3: convergence to a plane
# ----------------------------------------------------------------------------------------
def plane3d_figure(run: dict, q, stem, *, suptitle="") -> list[Path]:
    """Left: λ_i(t)/λ_max(t) (log–log) for every member; right: √λ·u of the two leading
    eigenpairs of Σ(T) in ℝ³ with the plane q^⊥ drawn translucently."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    q = np.asarray(q, dtype=float).ravel()
    q = q / np.linalg.norm(q)
    fig = _figure((9.5, 4.2))
    ax = fig.add_subplot(1, 2, 1)
    t = run["t"]
    ev = np.linalg.eigvalsh(run["Sigma"])          # (B, n, 3)
    ratio = ev / ev[..., -1:]
    mask = t > 0
    for b in range(ev.shape[0]):
        ax.loglog(t[mask], np.clip(ratio[b, mask, 0], 1e-18, None), color="tab:red", alpha=0.4, linewidth=0.7)
        ax.loglog(t[mask], ratio[b, mask, 1], color="tab:blue", alpha=0.4, linewidth=0.7)
    ax.set_xlabel("t")
    ax.set_ylabel("λ_i / λ_max")
    ax.set_title("λ_min/λ_max (red) → 0 like 1/t; λ_mid/λ_max (blue) stays", fontsize=8)
    ax3 = fig.add_subplot(1, 2, 2, projection="3d")
    w, U = np.linalg.eigh(run["Sigma_end"])
    pts = []
    for i in (1, 2):
        P = np.sqrt(np.clip(w[:, i], 0, None))[:, None] * U[:, :, i]
        pts += [P, -P]
    P = np.concatenate(pts)
    ax3.scatter(P[:, 0], P[:, 1], P[:, 2], s=4, color="tab:blue")
    R = float(np.max(np.abs(P))) if P.size else 1.0
    e1 = np.cross(q, [1.0, 0, 0] if abs(q[0]) < 0.9 else [0, 1.0, 0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(q, e1)
    corners = [R * (s1 * e1 + s2 * e2) for s1, s2 in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
    ax3.add_collection3d(Poly3DCollection([corners], alpha=0.15, facecolor="crimson"))
    ax3.quiver(0, 0, 0, *(R * q), color="k", linewidth=1)
    ax3.set_title("principal axes of Σ(T) lie in q^⊥ (arrow: q)", fontsize=8)
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# rank histograms
# ----------------------------------------------------------------------------------------
def rank_histograms(summary: dict, stem, *, suptitle="") -> list[Path]:
    """Grouped bars of the numerical rank of the limit (one bar per threshold) and the exact
    rank where known (black outline), rows = (variant, V), columns = d."""
    rows = list(dict.fromkeys((r["variant"], r["V"]) for r in summary.values()))
    dims = sorted({r["d"] for r in summary.values()})
    fig = _figure((3.3 * len(dims), 2.5 * len(rows)))
    for i, (var, V) in enumerate(rows):
        for j, d in enumerate(dims):
            ax = fig.add_subplot(len(rows), len(dims), i * len(dims) + j + 1)
            row = summary.get(f"{var}/V={V}/d={d}")
            if row is None:
                ax.axis("off")
                continue
            ths = list(row["rank_counts"])
            width = 0.8 / len(ths)
            x = np.arange(d + 1)
            for k, th in enumerate(ths):
                ax.bar(x - 0.4 + width * (k + 0.5), row["rank_counts"][th], width=width,
                       label=f"λ/λmax > {float(th):.0e}")
            if isinstance(row["exact_rank"], list):
                ax.bar(x, row["exact_rank"], width=0.9, fill=False, edgecolor="k", linewidth=1.2, label="exact")
            else:
                ax.text(0.02, 0.95, "exact: no theorem", transform=ax.transAxes, fontsize=7, va="top")
            ax.set_xticks(x)
            if i == 0:
                ax.set_title(f"d = {d}", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{_NAMES.get(var, var)}, V = {'I' if V == 'I' else 'GᵀG'}", fontsize=8)
            if i == len(rows) - 1:
                ax.set_xlabel("rank of the limit")
            if i == 0 and j == len(dims) - 1:
                ax.legend(fontsize=6, loc="upper left")
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


def rank_decay_figure(data: dict, stem, thresholds=(1e-2, 1e-4, 1e-8), *, suptitle="") -> list[Path]:
    """λ_i/λ_max(t) for every draw of the given runs (log–log) with the rank thresholds
    (``data[key]``: ``t``, ``eig_t`` (B, n, d), optional ``t_end`` to hide frozen samples)."""
    keys = list(data)
    fig = _figure((3.6 * len(keys), 3.3))
    for i, key in enumerate(keys):
        ax = fig.add_subplot(1, len(keys), i + 1)
        t, ev = data[key]["t"], data[key]["eig_t"]
        t_end = data[key].get("t_end")
        k = ev.shape[-1]
        for b in range(ev.shape[0]):
            m = (t > 0) & (t <= (t_end[b] if t_end is not None else np.inf))
            r = ev[b] / ev[b, :, -1:]
            for j in range(k - 1):
                ax.loglog(t[m], np.clip(r[m, j], 1e-20, None), color=f"C{j}", alpha=0.25, linewidth=0.6)
        m = t > 0
        for th in thresholds:
            ax.axhline(th, color="k", linestyle="--", linewidth=0.7)
        ax.loglog(t[m], 1.0 / t[m], color="k", linewidth=1.0, label="1/t")
        ax.set_ylim(1e-12, 2)
        ax.set_xlabel("t")
        ax.set_title(key, fontsize=8)
        if i == 0:
            ax.set_ylabel("λ_i/λ_max")
            ax.legend(fontsize=7)
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# dispatcher for symbolic_tf.reproduce.castin2025
# ----------------------------------------------------------------------------------------
def castin_figures(exp: dict, figdir) -> list[Path]:
    """All figures of one experiment dict of :mod:`symbolic_tf.reproduce.castin2025`."""
    figdir = Path(figdir)
    name = exp["experiment"]
    data = exp["data"]
    out: list[Path] = []
    if name == "zero":
        out += cone_figure(data["runs"], data["uw0"], figdir / "castin_1_zero_cone", azim=-174,
                           suptitle="Convergence to 0 (K = −Q, V = GGᵀ)")
    elif name == "line":
        out += cone_figure(data["runs"], data["uw0"], figdir / "castin_2_line_cone", lines=data["lines"], azim=-86,
                           suptitle="Convergence to a line (Q = q, K = −q, V = I); red: ray of q^⊥q^⊥ᵀ")
    elif name == "plane":
        d2 = data["d2"]
        out += cone_figure(d2["runs"], d2["uw0"], figdir / "castin_3_plane_d2_cone", wedge=d2["wedge"], azim=-45,
                           suptitle="Multi-head, one head empty, d = 2: limits on the plane e₁ᵀΣqᵀ = 0 (red wedge)")
        out += plane3d_figure(data["d3"]["run"], data["d3"]["q"], figdir / "castin_3_plane_d3",
                              suptitle="Multi-head, one head empty, d = 3: rank-2 limits with range q^⊥")
    elif name == "two_lines":
        out += cone_figure(data["runs"], data["uw0"], figdir / "castin_4_two_lines_cone", lines=data["lines"],
                           azim=-88, suptitle="A + Aᵀ indefinite, V non-symmetric; red: isotropic lines vᵀAv = 0")
        out += disk_figure(data["runs"], data["uw0"], figdir / "castin_4_two_lines_disk", lines=data["lines"],
                           suptitle="Σ/trΣ; red stars: the two isotropic rank-1 directions")
    elif name == "blowup":
        out += disk_figure(data["runs"], data["uw0"], figdir / "castin_5_blowup_disk",
                           suptitle="A + Aᵀ ≻ 0, V = I: Σ(t)/trΣ(t) (× = finite-time blow-up)")
    elif name == "mixed":
        out += disk_figure(data["runs"], data["uw0"], figdir / "castin_6_mixed_disk",
                           suptitle="A + Aᵀ indefinite, V Gaussian: Σ(t)/trΣ(t) (× = norm bound reached)")
    elif name == "ranks":
        out += rank_histograms(exp["summary"], figdir / "castin_7_rank_histograms",
                               suptitle="Rank of the limit covariance (K = −Q, Q ∈ ℝ^{⌊d/2⌋×d})")
        keys = [k for k in data if k.startswith("softmax/V=I/")]
        if keys:
            out += rank_decay_figure({k: data[k] for k in keys}, figdir / "castin_7_rank_decay",
                                     thresholds=[float(t) for t in exp["settings"]["thresholds"]],
                                     suptitle="softmax, V = I: small eigenvalues decay like 1/t")
    return out


# ----------------------------------------------------------------------------------------
# mean-field check
# ----------------------------------------------------------------------------------------
def meanfield_figure(report, stem) -> list[Path]:
    """Log–log plot of the W₂ distance between tokens and the moment ODE against N (with the
    N^{-1/2} reference line and the per-seed points), or, for a variant that does not preserve
    Gaussians, Mardia's kurtosis excess and the principal excess kurtosis against N."""
    fig = _figure((5.5, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    Ns = np.asarray(report.Ns, dtype=float)
    if report.gaussian_closed:
        for n, ds in zip(Ns, report.distances):
            ax.scatter([n] * len(ds), ds, s=10, color="0.6", zorder=1)
        md = np.array([np.nan if m is None else m for m in report.mean_distance], dtype=float)
        ax.loglog(Ns, md, "o-", color="C0", label="mean over seeds", zorder=2)
        ok = np.isfinite(md)
        if ok.any():
            ref = md[ok][0] * np.sqrt(Ns[ok][0] / Ns)
            ax.loglog(Ns, ref, "--", color="0.3", label="N^{-1/2}")
        if report.slope is not None:
            ax.set_title(f"{report.variant}: W₂ at T = {report.T:g}, slope {report.slope:.2f}")
        ax.set_ylabel("Bures–Wasserstein distance to the moment ODE")
    else:
        me = np.array([np.nan if m is None else m for m in report.mardia_excess], dtype=float)
        ax.semilogx(Ns, me, "o-", label="Mardia b₂ − d(d+2)")
        ks = [k for k in report.kurtosis if k is not None]
        if ks:
            K = np.array([k if k is not None else [np.nan] * len(ks[0]) for k in report.kurtosis], dtype=float)
            for j in range(K.shape[1]):
                ax.semilogx(Ns, K[:, j], "s--", label=f"excess kurtosis, direction {j + 1}")
        ax.axhline(0, color="0.5", lw=0.8)
        ax.set_title(f"{report.variant} (not Gaussian-closed): departure at T = {report.T:g}")
    ax.set_xlabel("number of tokens N")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# masked attention (attention sink) and ReLU feed-forward (docs/masked_relu.md)
# ----------------------------------------------------------------------------------------
def sink_figure(exp: dict, stem) -> list[Path]:
    """Left: mean attention on the first position against depth for each sink mass, with the
    content-blind share as a dashed line.  Right: W₂^cond(flow, perturbed flow) / its value at
    t = 0 (mean over positions solid, sup dotted).  ``exp`` is ``SinkExperiment.to_dict()``."""
    fig = _figure((10, 4))
    ax, bx = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for k, run in enumerate(exp["runs"]):
        c = f"C{k}"
        lab = f"sink mass {run['sink']:g} ({run['first_position_tokens']} token(s) at s = 0)"
        ax.plot(run["t"], run["attention"], "o-", color=c, ms=3, label=lab)
        ax.axhline(run["baseline"], color=c, ls="--", lw=0.8)
        bx.plot(run["t"], run["cond_w2_ratio"], "-", color=c, label=f"sink {run['sink']:g}: mean over s")
        bx.plot(run["t"], run["cond_w2_sup_ratio"], ":", color=c, label=f"sink {run['sink']:g}: sup over s")
    st = exp["settings"]
    _depth_panel(ax, "mean attention on the first position",
                 f"attention sink, N = {st['N']}, positions {st['kind']} (dashed: uniform share)")
    _depth_panel(bx, "W₂^cond(μ_t, ν_t) / W₂^cond(μ₀, ν₀)", f"conditional W₂ to a flow perturbed by ε = {st['perturb']:g}")
    return _finish(fig, stem, "masked attention — numerical evidence")


def _depth_panel(ax, ylabel: str, title: str) -> None:
    ax.set_xlabel("depth t")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def _finish(fig, stem, suptitle: str) -> list[Path]:
    fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


def relu_figure(rep: dict, stem) -> list[Path]:
    """Left: coupled departure ‖Σ₀^{-1/2}(x^ReLU − x^twin)‖ against depth beside the first-order
    estimate t‖Σ₀^{-1/2}r‖.  Right: sliced W₂ of the whitened ReLU cloud and of its affine twin to
    N(0, I), with the noise floor (mean ± 3 sd) and the floor plus the first-order estimate divided
    by √d.  ``rep`` is ``ReLUDeparture.to_dict()``."""
    fig = _figure((10, 4))
    ax, bx = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    t = np.asarray(rep["t"])
    ax.plot(t, rep["coupled_departure"], "o-", ms=3, label="measured: ‖Σ₀^(-1/2)(x_ReLU − x_twin)‖ (L², tokens)")
    ax.plot(t, rep["first_order_estimate"], "--", color="0.3",
            label=f"first-order estimate t·‖Σ₀^(-1/2) r‖ = {rep['residual_norm_whitened']:.3g}·t")
    _depth_panel(ax, "departure (whitened units)", "ReLU term vs its Gaussian linearisation")
    f = rep["noise_floor"]["sliced_w2"]
    bx.plot(t, [m["sliced_w2"] for m in rep["metrics"]], "o-", ms=3, label="ReLU tokens")
    bx.plot(t, [m["sliced_w2"] for m in rep["twin_metrics"]], "s-", ms=3, color="C2", label="affine twin (control)")
    bx.axhspan(f["mean"] - 3 * f["sd"], f["mean"] + 3 * f["sd"], color="0.85", label="noise floor ± 3 sd")
    bx.axhline(f["mean"], color="0.5", lw=0.8)
    bx.plot(t, rep["sliced_w2_estimate"], "--", color="0.3", label="floor + t‖Σ₀^(-1/2) r‖/√d (first order, upper)")
    _depth_panel(bx, "sliced W₂(whitened cloud, N(0, I))",
                 f"departure from the moment-matched Gaussian, N = {rep['settings']['N']}")
    return _finish(fig, stem, "ReLU feed-forward — numerical evidence")


# ----------------------------------------------------------------------------------------
# control: covariance ellipses along a steering schedule
# ----------------------------------------------------------------------------------------
def steering_figure(path, target, stem) -> list[Path]:
    """Covariance ellipses (first two coordinates, 1-σ) and the mean along a schedule.

    ``path`` is a list of (t, mean, cov) float samples; ``target`` is (mean, cov)."""
    fig = _figure((5.5, 5))
    ax = fig.add_subplot(1, 1, 1)
    th = np.linspace(0, 2 * np.pi, 120)
    circle = np.stack([np.cos(th), np.sin(th)])
    T = max(p[0] for p in path) or 1.0
    import matplotlib.cm as cm

    def ellipse(m, S):
        S2 = np.asarray(S, float)[:2, :2]
        w, U = np.linalg.eigh(0.5 * (S2 + S2.T))
        L = U @ np.diag(np.sqrt(np.clip(w, 0, None)))
        return (L @ circle) + np.asarray(m, float)[:2, None]

    for t, m, S in path:
        e = ellipse(m, S)
        ax.plot(e[0], e[1], color=cm.viridis(t / T), lw=1)
    ms = np.array([np.asarray(m, float)[:2] for _, m, _ in path])
    ax.plot(ms[:, 0], ms[:, 1], "k.-", ms=3, lw=0.8, label="mean")
    e = ellipse(*target)
    ax.plot(e[0], e[1], "r--", lw=2, label="target")
    ax.set_aspect("equal")
    ax.set_xlabel("x₁ (token coordinate 1)")
    ax.set_ylabel("x₂ (token coordinate 2)")
    ax.legend(fontsize=8)
    sm = cm.ScalarMappable(cmap="viridis", norm=__import__("matplotlib.colors").colors.Normalize(0, T))
    fig.colorbar(sm, ax=ax, label="depth t", shrink=0.8)
    ax.set_title("steering: 1-σ covariance ellipses (colour = depth t)")
    fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# regime maps
# ----------------------------------------------------------------------------------------
REGIME_COLOURS = {"EQUILIBRIUM": "#4daf4a", "CLUSTERING": "#377eb8", "BOUNDED": "#80b1d3",
                  "EXPONENTIAL_GROWTH": "#fdb462", "UNDECIDED": "#ffffff", "OUTSIDE": "#d9d9d9"}


def regime_map_figure(doc: dict, stem, *, theory=None, formats=("png", "pdf")) -> list[Path]:
    """A certified regime map: every cell coloured by its certified regime, blow-up cells by
    the certified T* (upper end of the bracket, log colour scale), undecided cells hatched
    (a dot for an exact point verdict at the centre), outside cells grey; ``theory`` =
    (X, Y, φ, f) from :func:`symbolic_tf.regimes.maps.theory_fields` overlays the closed-form
    boundaries φ = 0 (blow-up) and f = 0 (equilibrium vs collapse, where φ < 0)."""
    from fractions import Fraction

    from matplotlib.colors import LogNorm
    from matplotlib.patches import Patch, Rectangle

    spec, cells, tot = doc["spec"], doc["cells"], doc["totals"]
    fig = _figure((7.4, 6.0))
    ax = fig.add_subplot(1, 1, 1)
    Ts = [float(Fraction(c.get("T_hi") or c["T_lo"])) for c in cells
          if c["status"] == "PROVED" and c["regime"] == "BLOWUP" and (c.get("T_hi") or Fraction(c["T_lo"]) > 0)]
    norm = LogNorm(vmin=min(Ts), vmax=max(max(Ts), min(Ts) * 1.01)) if Ts else None
    import matplotlib

    cmap = matplotlib.colormaps["inferno_r"]
    pts = {}
    for c in cells:
        x0, x1, y0, y1 = (float(Fraction(b)) for b in c["box"])
        kw = {"linewidth": 0}
        if c["status"] == "PROVED" and c["regime"] == "BLOWUP":
            T = c.get("T_hi") or c["T_lo"]
            kw["facecolor"] = cmap(norm(float(Fraction(T)))) if norm and float(Fraction(T)) > 0 else "#e41a1c"
        elif c["status"] in ("PROVED", "OUTSIDE"):
            kw["facecolor"] = REGIME_COLOURS.get(c["regime"], "#999999")
        else:
            kw.update(facecolor="white", hatch="////", edgecolor="#888888", linewidth=0.0)
            p = c.get("point")
            if p and p["status"] == "PROVED":
                pts.setdefault(p["regime"], []).append(((x0 + x1) / 2, (y0 + y1) / 2))
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, **kw))
    for reg, xy in pts.items():
        xy = np.array(xy)
        colour = "#e41a1c" if reg == "BLOWUP" else REGIME_COLOURS.get(reg, "k")
        ax.plot(xy[:, 0], xy[:, 1], ".", ms=1.5, color=colour)
    handles = [Patch(facecolor=REGIME_COLOURS[k], label=k.lower().replace("_", " "))
               for k in ("EQUILIBRIUM", "CLUSTERING", "BOUNDED", "EXPONENTIAL_GROWTH")
               if k in tot["area_by_regime"]]
    if "BLOWUP" in tot["area_by_regime"]:
        handles.insert(0, Patch(facecolor=cmap(0.5), label="blow-up (colour: T*)"))
    handles.append(Patch(facecolor="white", hatch="////", edgecolor="#888888", label="undecided"))
    if theory is not None:
        X, Y, phi, f = theory
        if np.nanmin(phi) < 0 < np.nanmax(phi):
            ax.contour(X, Y, phi, levels=[0], colors="k", linewidths=1.0, linestyles="--")
            handles.append(matplotlib.lines.Line2D([], [], color="k", ls="--", label="theory: blow-up boundary"))
        fm = np.where(phi < 0, f, np.nan)
        if np.nanmin(fm) < 0 < np.nanmax(fm) if np.isfinite(fm).any() else False:
            ax.contour(X, Y, fm, levels=[0], colors="k", linewidths=0.8, linestyles=":")
            handles.append(matplotlib.lines.Line2D([], [], color="k", ls=":", label="theory: f = 0"))
    if spec["family"] == "cov-disk":
        th = np.linspace(0, 2 * np.pi, 400)
        ax.plot(np.cos(th), np.sin(th), color="k", lw=0.8)
    if norm is not None:
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
        fig.colorbar(sm, ax=ax, label="blow-up time T* (certified upper bound)")
    xr = [float(Fraction(v)) for v in spec["x"]["range"]]
    yr = [float(Fraction(v)) for v in spec["y"]["range"]]
    ax.set_xlim(*xr)
    ax.set_ylim(*yr)
    ax.set_xlabel(spec["x"]["label"])
    ax.set_ylabel(spec["y"]["label"])
    ax.set_aspect("equal" if abs((xr[1] - xr[0]) / (yr[1] - yr[0]) - 1) < 0.5 else "auto")
    ax.legend(handles=handles, loc="upper left", fontsize=7, framealpha=0.85)
    ax.set_title(f"{spec.get('name') or 'regime map'}\n{100 * tot['decided_fraction']:.2f}% of the area certified, "
                 f"{len(cells)} cells", fontsize=9)
    return save_figure(fig, stem, formats)
