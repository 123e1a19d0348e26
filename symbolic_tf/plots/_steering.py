"""Steering figures: covariance ellipses along a control schedule."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ._base import figure, save_figure

__all__ = ["steering_figure"]


# ----------------------------------------------------------------------------------------
# control: covariance ellipses along a steering schedule
# ----------------------------------------------------------------------------------------
def steering_figure(path, target, stem) -> list[Path]:
    """Covariance ellipses (first two coordinates, 1-σ) and the mean along a schedule."""
    fig = figure((6, 5))
    fig.set_layout_engine("constrained")  # the colour bar takes its room beside the axes, never over the title
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
    from matplotlib.colors import Normalize

    sm = cm.ScalarMappable(cmap="viridis", norm=Normalize(0, T))
    fig.colorbar(sm, ax=ax, label="depth t (ellipse colour)", shrink=0.8)
    ax.set_title("Steering a Gaussian: 1-σ covariance ellipses", fontsize=11)
    return save_figure(fig, stem)
