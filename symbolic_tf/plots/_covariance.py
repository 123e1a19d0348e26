"""Covariance views of 2×2 covariances Σ = [[a, c], [c, b]] and rank plots (matplotlib).

* the SPD-cone view — coordinates (a − b, 2c, a + b) (:func:`to_cone`), in which Σ ⪰ 0 is the
  solid cone a + b ≥ √((a − b)² + (2c)²) (drawn translucently) and rank-1 matrices vvᵀ are its
  surface;
* the normalised disk view — (u, w) = (a − b, 2c)/(a + b) of Σ/trΣ (:func:`to_disk`), inside the
  unit disk (the circle is the rank-1 boundary);
* eigenvalue-ratio and rank plots of limit covariances in d ≥ 3.

Panels are titled with the run's name, or with ``names[variant]`` when a mapping of display
names is given; nothing here knows a variant or an experiment by name.
"""
from __future__ import annotations

from pathlib import Path
from typing import Collection, Mapping

import numpy as np

from ._base import figure, save_figure

__all__ = ["to_cone", "to_disk", "cone_figure", "disk_figure", "plane3d_figure", "rank_histograms",
           "rank_decay_figure"]


def to_cone(S):
    """Cone coordinates (a − b, 2c, a + b) of 2×2 covariances Σ = [[a, c], [c, b]].

    In these coordinates Σ ⪰ 0 is the solid cone a + b ≥ √((a − b)² + (2c)²).
    """
    S = np.asarray(S)
    return np.stack([S[..., 0, 0] - S[..., 1, 1], 2 * S[..., 0, 1], S[..., 0, 0] + S[..., 1, 1]], axis=-1)


def to_disk(S):
    """Disk coordinates (u, w) = (a − b, 2c)/(a + b) of the normalised covariance Σ/trΣ.

    The open unit disk is the set of positive definite Σ/trΣ, its circle the rank-1 ones.
    """
    X = to_cone(S)
    tr = np.where(X[..., 2] > 0, X[..., 2], np.nan)
    return X[..., :2] / tr[..., None]


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


def _panel_per_run(runs, Sigma0_uw, width, height):
    """(figure, run names, rows, cols, colours) of a figure with one width × height panel per run,
    the trajectories coloured by the w of their Σ₀."""
    names = list(runs)
    nr, nc = _layout(len(names))
    return figure((width * nc, height * nr)), names, nr, nc, _colors(np.asarray(Sigma0_uw)[:, 1])


def _wrapped(title: str, width_in: float, fontsize: float = 10) -> str:
    """``title`` broken into lines that fit a figure ``width_in`` inches wide (mathtext kept whole)."""
    import textwrap

    per_line = max(30, int(width_in * 72 / (0.55 * fontsize)))
    if "$" in title:  # never break inside $…$
        return title
    return "\n".join(textwrap.wrap(title, per_line))


def _save(fig, stem, suptitle, *, tight=True) -> list[Path]:
    """Title (when ``suptitle``, wrapped to the figure's width), lay out and write ``fig`` at ``stem``."""
    if suptitle:
        fig.suptitle(_wrapped(suptitle, fig.get_figwidth()), fontsize=10)
    if tight:
        fig.tight_layout()
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# the cone view
# ----------------------------------------------------------------------------------------
def _cone_panel(ax, Sig, colors, *, lines=(), wedge=None, title="", elev=20, azim=-112):
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    X = to_cone(Sig)                       # (B, n, 3)
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
    from matplotlib.ticker import MaxNLocator

    ax.view_init(elev=elev, azim=azim)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(4))
    ax.zaxis.set_major_locator(MaxNLocator(4, prune="lower"))  # the apex tick 0 would sit on the 2c ticks
    ax.tick_params(labelsize=7, pad=1)
    ax.set_xlabel("a − b", fontsize=9, labelpad=4)
    ax.set_ylabel("2c", fontsize=9, labelpad=4)
    ax.set_zlabel("a + b", fontsize=9, labelpad=4)
    ax.set_box_aspect(None, zoom=0.92)  # keep the tick and axis labels inside the panel
    ax.set_title(title, fontsize=9, pad=0)


def cone_figure(runs: dict, Sigma0_uw, stem, *, lines=(), wedge=None, suptitle="", azim=-112,
                names: Mapping[str, str] | None = None) -> list[Path]:
    """SPD-cone view of Σ(t): the trajectories in (a − b, 2c, a + b), one 3-D panel per run."""
    labels = names or {}
    fig, names, nr, nc, colors = _panel_per_run(runs, Sigma0_uw, 4.4, 4.4)
    if nc == 1:  # one panel: wide enough for the figure's title
        fig.set_figwidth(5.6)
    for i, name in enumerate(names):
        ax = fig.add_subplot(nr, nc, i + 1, projection="3d")
        run = runs[name]
        _cone_panel(ax, run["Sigma"], colors, lines=lines, wedge=wedge, azim=azim,
                    title=f"{labels.get(run.get('variant', name), name)}, T = {run['T']:g}")
    lines = _wrapped(suptitle, fig.get_figwidth()).count("\n") + 1 if suptitle else 0
    top = 1 - (0.3 + 0.22 * lines) / fig.get_figheight()  # room for the figure's title above the panels' titles
    fig.subplots_adjust(left=0.0, right=0.97, bottom=0.0, top=top, wspace=0.02, hspace=0.06)
    return _save(fig, stem, suptitle, tight=False)  # tight_layout mis-measures 3-D axes


# ----------------------------------------------------------------------------------------
# the normalised disk view
# ----------------------------------------------------------------------------------------
def disk_figure(runs: dict, Sigma0_uw, stem, *, suptitle="", lines=(), names: Mapping[str, str] | None = None,
                may_blow_up: Collection[str] = ()) -> list[Path]:
    """(u, w) of Σ(t)/trΣ(t) in the unit disk, one panel per run.

    Members the integrator stopped (‖Σ‖_F above the norm bound, or the step collapsed) end with
    ×; the title counts them as exactly that — "‖Σ‖ bound exceeded", not "blow-up": a flow that
    grows at most exponentially (e.g. ℓ2 and Sinkhorn, docs/mathematics.md §4) has no finite-time
    blow-up to count, and its title says "(growth, no blow-up)".
    """
    labels = names or {}
    from matplotlib.collections import LineCollection

    fig, names, nr, nc, colors = _panel_per_run(runs, Sigma0_uw, 3.6, 3.9)
    th = np.linspace(0, 2 * np.pi, 200)
    for i, name in enumerate(names):
        ax = fig.add_subplot(nr, nc, i + 1)
        run = runs[name]
        uw = to_disk(np.concatenate([run["Sigma"], run["Sigma_end"][:, None]], axis=1))
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
        what = "‖Σ‖ bound exceeded" + ("" if variant in may_blow_up else " (growth, no blow-up)")
        ax.set_title(f"{labels.get(variant, name)}: {n_bl}/{blown.size} {what}", fontsize=9)
    return _save(fig, stem, suptitle)


# ----------------------------------------------------------------------------------------
# d = 3: convergence to a plane
# ----------------------------------------------------------------------------------------
def plane3d_figure(run: dict, q, stem, *, suptitle="") -> list[Path]:
    """Convergence to a plane in d = 3.

    Left: λ_i(t)/λ_max(t) (log–log) for every member; right: √λ·u of the two leading
    eigenpairs of Σ(T) in ℝ³ with the plane q^⊥ drawn translucently.
    """
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    q = np.asarray(q, dtype=float).ravel()
    q = q / np.linalg.norm(q)
    fig = figure((9.5, 4.2))
    ax = fig.add_subplot(1, 2, 1)
    t = run["t"]
    ev = np.linalg.eigvalsh(run["Sigma"])          # (B, n, 3)
    ratio = ev / ev[..., -1:]
    mask = t > 0
    for b in range(ev.shape[0]):
        ax.loglog(t[mask], np.clip(ratio[b, mask, 0], 1e-18, None), color="tab:red", alpha=0.4, linewidth=0.7)
        ax.loglog(t[mask], ratio[b, mask, 1], color="tab:blue", alpha=0.4, linewidth=0.7)
    ax.set_xlabel("t")
    ax.set_ylabel(r"$\lambda_i / \lambda_{\max}$")
    ax.set_title(r"$\lambda_{\min}/\lambda_{\max}$ (red) → 0 like 1/t; $\lambda_{\mathrm{mid}}/\lambda_{\max}$ (blue) stays",
                 fontsize=8)
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
    from matplotlib.ticker import MaxNLocator

    for axis in (ax3.xaxis, ax3.yaxis, ax3.zaxis):
        axis.set_major_locator(MaxNLocator(4))
    ax3.tick_params(labelsize=7, pad=1)
    ax3.set_title(r"principal axes of Σ(T) lie in $q^\perp$ (arrow: q)", fontsize=8)
    return _save(fig, stem, suptitle)


# ----------------------------------------------------------------------------------------
# rank histograms
# ----------------------------------------------------------------------------------------
def rank_histograms(summary: dict, stem, *, suptitle="", names: Mapping[str, str] | None = None) -> list[Path]:
    """Histograms of the rank of the limit covariance.

    Grouped bars of the numerical rank of the limit (one bar per threshold) and the exact
    rank where known (black outline), rows = (variant, V), columns = d.
    """
    labels = names or {}
    rows = list(dict.fromkeys((r["variant"], r["V"]) for r in summary.values()))
    dims = sorted({r["d"] for r in summary.values()})
    fig = figure((3.3 * len(dims), 2.5 * len(rows)))
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
                       label=rf"$\lambda/\lambda_{{\max}}$ > {float(th):.0e}")
            if isinstance(row["exact_rank"], list):
                ax.bar(x, row["exact_rank"], width=0.9, fill=False, edgecolor="k", linewidth=1.2, label="exact")
            else:
                ax.text(0.02, 0.95, "exact: no theorem", transform=ax.transAxes, fontsize=7, va="top")
            ax.set_xticks(x)
            if i == 0:
                ax.set_title(f"d = {d}", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{labels.get(var, var)}, V = {'I' if V == 'I' else 'GᵀG'}", fontsize=8)
            if i == len(rows) - 1:
                ax.set_xlabel("rank of the limit")
            if i == 0 and j == len(dims) - 1:
                ax.legend(fontsize=6, loc="upper left")
    return _save(fig, stem, suptitle)


def rank_decay_figure(data: dict, stem, thresholds=(1e-2, 1e-4, 1e-8), *, suptitle="") -> list[Path]:
    """λ_i/λ_max(t) for every draw of the given runs (log–log), with the rank thresholds and 1/t."""
    keys = list(data)
    fig = figure((3.6 * len(keys), 3.3))
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
            ax.set_ylabel(r"$\lambda_i/\lambda_{\max}$")
            ax.legend(fontsize=7)
    return _save(fig, stem, suptitle)

