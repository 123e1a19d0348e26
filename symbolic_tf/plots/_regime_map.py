"""Regime-map figures: certified cells coloured by regime, with the closed-form boundaries.

What is drawn, and what its legend entry says:

* a cell certified whole — filled with its regime's colour (blow-up cells by the certified upper
  end T_hi of their T* bracket, log colour scale);
* an undecided cell — hatched; when the map carries an exact verdict at its centre (a *point
  verdict*, proved for that one point only), a dot at the centre in that regime's colour, one
  legend entry per regime of the dots;
* a cell a time budget did not reach (reason ``"budget"``) — cross-hatched grey;
* a cell outside the domain (Σ₀ not positive definite there) — grey;
* the closed-form boundaries of the V = vI theory (float contours, not certificates), dashed.
"""
from __future__ import annotations

import numpy as np

from ._base import figure, save_figure
from ..exact.rational import float_of

__all__ = ["REGIME_COLOURS", "regime_map_figure"]


# ----------------------------------------------------------------------------------------
# regime maps
# ----------------------------------------------------------------------------------------
REGIME_COLOURS = {"EQUILIBRIUM": "#4daf4a", "CLUSTERING": "#377eb8", "BOUNDED": "#80b1d3",
                  "GLOBAL_EXISTENCE": "#fdb462", "UNDECIDED": "#ffffff", "OUTSIDE": "#d9d9d9"}
_BLOWUP_DOT = "#e41a1c"
_BUDGET = "budget"          # the reason of a cell a run's time budget did not reach (regimes.maps)
_ORDER = ("BLOWUP", "EQUILIBRIUM", "CLUSTERING", "BOUNDED", "GLOBAL_EXISTENCE")


def _words(regime: str) -> str:
    return "blow-up" if regime == "BLOWUP" else regime.lower().replace("_", " ")


def regime_map_figure(doc: dict, stem, *, theory=None, formats=("png", "pdf")) -> list:
    """A certified regime map (see the module docstring for what is drawn).

    Every cell is coloured by its certified regime, blow-up cells by the certified T* (upper
    end of the bracket, log colour scale), undecided cells hatched (a dot for an exact point
    verdict at the centre), cells a time budget did not reach cross-hatched, outside cells grey;
    every kind of mark drawn has a legend entry saying what it certifies.
    """
    from fractions import Fraction

    import matplotlib
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    spec, cells, tot = doc["spec"], doc["cells"], doc["totals"]
    fig = figure((7.4, 6.6))
    ax = fig.add_subplot(1, 1, 1)
    Ts = [float_of(c.get("T_hi") or c["T_lo"]) for c in cells
          if c["status"] == "PROVED" and c["regime"] == "BLOWUP" and (c.get("T_hi") or Fraction(c["T_lo"]) > 0)]
    norm = LogNorm(vmin=min(Ts), vmax=max(max(Ts), min(Ts) * 1.01)) if Ts else None
    cmap = matplotlib.colormaps["inferno_r"]
    pts: dict = {}
    filled, colours, hatched, budget = [], [], [], []     # one collection each: a patch per cell is slow
    seen = set()
    for c in cells:
        x0, x1, y0, y1 = (float_of(b) for b in c["box"])
        quad = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        if c["status"] == "PROVED" and c["regime"] == "BLOWUP":
            T = c.get("T_hi") or c["T_lo"]
            filled.append(quad)
            colours.append(cmap(norm(float_of(T))) if norm and float_of(T) > 0 else _BLOWUP_DOT)
            seen.add("BLOWUP")
        elif c["status"] in ("PROVED", "OUTSIDE"):
            filled.append(quad)
            colours.append(REGIME_COLOURS.get(c["regime"], "#999999"))
            seen.add(c["regime"])
        elif c.get("reason") == _BUDGET:
            budget.append(quad)
        else:
            hatched.append(quad)
            p = c.get("point")
            if p and p["status"] == "PROVED":
                pts.setdefault(p["regime"], []).append(((x0 + x1) / 2, (y0 + y1) / 2))
    if filled:
        ax.add_collection(PolyCollection(filled, facecolors=colours, linewidths=0))
    if hatched:
        ax.add_collection(PolyCollection(hatched, facecolors="white", edgecolors="#888888", hatch="////",
                                         linewidths=0))
    if budget:
        ax.add_collection(PolyCollection(budget, facecolors="#f0f0f0", edgecolors="#aaaaaa", hatch="xx",
                                         linewidths=0))
    # dots: larger on a coarse map, never hiding the cell
    ms = float(np.clip(40 / np.sqrt(max(len(cells), 1)), 1.5, 6))
    handles = []
    if "BLOWUP" in seen:
        handles.append(Patch(facecolor=cmap(0.5), label="blow-up: whole cell certified (colour: certified T* ≤ T_hi)"))
    handles += [Patch(facecolor=REGIME_COLOURS[k], label=f"{_words(k)}: whole cell certified")
                for k in _ORDER[1:] if k in seen]
    if hatched:
        handles.append(Patch(facecolor="white", hatch="////", edgecolor="#888888",
                             label="undecided cell: no whole-cell certificate"))
    for reg in _ORDER:
        if reg in pts:
            xy = np.array(pts[reg])
            colour = _BLOWUP_DOT if reg == "BLOWUP" else REGIME_COLOURS.get(reg, "k")
            ax.plot(xy[:, 0], xy[:, 1], "o", ms=ms, color=colour, mec="k", mew=0.3)
            handles.append(Line2D([], [], ls="", marker="o", ms=5, color=colour, mec="k", mew=0.3,
                                  label=f"{_words(reg)}: proved at an undecided cell's centre only "
                                        f"({len(xy)} point{'s' if len(xy) > 1 else ''})"))
    if budget:
        handles.append(Patch(facecolor="#f0f0f0", hatch="xx", edgecolor="#aaaaaa",
                             label="not computed: the time budget ended (resume to finish)"))
    if "OUTSIDE" in seen:
        handles.append(Patch(facecolor=REGIME_COLOURS["OUTSIDE"], label="outside the domain: Σ₀ not positive definite"))
    if theory is not None:
        X, Y, phi, f = theory
        if np.nanmin(phi) < 0 < np.nanmax(phi):
            ax.contour(X, Y, phi, levels=[0], colors="k", linewidths=1.0, linestyles="--")
            handles.append(Line2D([], [], color="k", ls="--", label="closed-form blow-up boundary (float curve, V = vI theory)"))
        fm = np.where(phi < 0, f, np.nan)
        if np.nanmin(fm) < 0 < np.nanmax(fm) if np.isfinite(fm).any() else False:
            ax.contour(X, Y, fm, levels=[0], colors="k", linewidths=0.8, linestyles=":")
            handles.append(Line2D([], [], color="k", ls=":", label="closed form f = 0: equilibrium (f > 0) | collapse (f < 0)"))
    if spec["family"] == "cov-disk":
        th = np.linspace(0, 2 * np.pi, 400)
        ax.plot(np.cos(th), np.sin(th), color="k", lw=0.8)
        handles.append(Line2D([], [], color="k", lw=0.8, label="u² + w² = 1: rank-one Σ₀ (the disk's edge)"))
    if norm is not None:
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
        fig.colorbar(sm, ax=ax, label="blow-up time T* (certified upper bound)")
    xr = [float_of(v) for v in spec["x"]["range"]]
    yr = [float_of(v) for v in spec["y"]["range"]]
    ax.set_xlim(*xr)
    ax.set_ylim(*yr)
    ax.set_xlabel(spec["x"]["label"])
    ax.set_ylabel(spec["y"]["label"])
    ax.set_aspect("equal" if abs((xr[1] - xr[0]) / (yr[1] - yr[0]) - 1) < 0.5 else "auto")
    # below the axes (centred on the figure), so that it hides no cell
    rows = -(-len(handles) // 2)
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.005), ncol=2, fontsize=6.5,
               frameon=False)
    fig.subplots_adjust(bottom=0.1 + 0.026 * rows, top=0.91)
    done = "" if doc.get("run", {}).get("complete", True) else " (partial: time budget)"
    ax.set_title(f"{spec.get('name') or 'regime map'}\n{100 * tot['decided_fraction']:.2f}% of the area certified, "
                 f"{len(cells)} cells{done}", fontsize=9)
    return save_figure(fig, stem, formats)
