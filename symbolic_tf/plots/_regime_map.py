"""Regime-map figures: certified cells coloured by regime, with the closed-form boundaries."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ._base import figure, save_figure
from ..exact.rational import float_of

__all__ = ["REGIME_COLOURS", "regime_map_figure"]


# ----------------------------------------------------------------------------------------
# regime maps
# ----------------------------------------------------------------------------------------
REGIME_COLOURS = {"EQUILIBRIUM": "#4daf4a", "CLUSTERING": "#377eb8", "BOUNDED": "#80b1d3",
                  "GLOBAL_EXISTENCE": "#fdb462", "UNDECIDED": "#ffffff", "OUTSIDE": "#d9d9d9"}


def regime_map_figure(doc: dict, stem, *, theory=None, formats=("png", "pdf")) -> list[Path]:
    """A certified regime map.

    Every cell is coloured by its certified regime, blow-up cells by the certified T* (upper
    end of the bracket, log colour scale), undecided cells hatched (a dot for an exact point
    verdict at the centre), outside cells grey.
    """
    from fractions import Fraction

    from matplotlib.collections import PolyCollection
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Patch

    spec, cells, tot = doc["spec"], doc["cells"], doc["totals"]
    fig = figure((7.4, 6.0))
    ax = fig.add_subplot(1, 1, 1)
    Ts = [float_of(c.get("T_hi") or c["T_lo"]) for c in cells
          if c["status"] == "PROVED" and c["regime"] == "BLOWUP" and (c.get("T_hi") or Fraction(c["T_lo"]) > 0)]
    norm = LogNorm(vmin=min(Ts), vmax=max(max(Ts), min(Ts) * 1.01)) if Ts else None
    import matplotlib

    cmap = matplotlib.colormaps["inferno_r"]
    pts = {}
    filled, colours, hatched = [], [], []     # one collection each: a patch per cell is slow to draw
    for c in cells:
        x0, x1, y0, y1 = (float_of(b) for b in c["box"])
        quad = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        if c["status"] == "PROVED" and c["regime"] == "BLOWUP":
            T = c.get("T_hi") or c["T_lo"]
            filled.append(quad)
            colours.append(cmap(norm(float_of(T))) if norm and float_of(T) > 0 else "#e41a1c")
        elif c["status"] in ("PROVED", "OUTSIDE"):
            filled.append(quad)
            colours.append(REGIME_COLOURS.get(c["regime"], "#999999"))
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
    for reg, xy in pts.items():
        xy = np.array(xy)
        colour = "#e41a1c" if reg == "BLOWUP" else REGIME_COLOURS.get(reg, "k")
        ax.plot(xy[:, 0], xy[:, 1], ".", ms=1.5, color=colour)
    handles = [Patch(facecolor=REGIME_COLOURS[k], label=k.lower().replace("_", " "))
               for k in ("EQUILIBRIUM", "CLUSTERING", "BOUNDED", "GLOBAL_EXISTENCE")
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
    xr = [float_of(v) for v in spec["x"]["range"]]
    yr = [float_of(v) for v in spec["y"]["range"]]
    ax.set_xlim(*xr)
    ax.set_ylim(*yr)
    ax.set_xlabel(spec["x"]["label"])
    ax.set_ylabel(spec["y"]["label"])
    ax.set_aspect("equal" if abs((xr[1] - xr[0]) / (yr[1] - yr[0]) - 1) < 0.5 else "auto")
    ax.legend(handles=handles, loc="upper left", fontsize=7, framealpha=0.85)
    ax.set_title(f"{spec.get('name') or 'regime map'}\n{100 * tot['decided_fraction']:.2f}% of the area certified, "
                 f"{len(cells)} cells", fontsize=9)
    return save_figure(fig, stem, formats)
