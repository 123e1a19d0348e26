"""Figure infrastructure: a pyplot-free Agg figure and atomic PNG/PDF writing.

Matplotlib is imported lazily inside the functions, and figures are drawn on explicit
``Figure`` objects with the Agg canvas (no pyplot state, no display needed).  Every figure is
written atomically: to a temporary file in the target folder, then ``os.replace``.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["figure", "save_figure"]


def figure(figsize):
    """A new matplotlib ``Figure`` on an Agg canvas (no pyplot state, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, stem, formats=("png", "pdf"), dpi: int = 150) -> list[Path]:
    """Write ``stem.png`` / ``stem.pdf`` atomically (temp file in the same folder, then rename)."""
    from ..atomic import atomic_target

    stem = Path(stem)
    paths = []
    for ext in formats:
        target = stem.parent / f"{stem.name}.{ext}"
        with atomic_target(target) as tmp:
            fig.savefig(tmp, format=ext, dpi=dpi)
        paths.append(target)
    return paths
