"""Matplotlib figures (the library's drawing face).

Matplotlib is imported lazily inside the functions, and figures are drawn on explicit
``Figure`` objects with the Agg canvas (:func:`figure`; no pyplot state, no display needed).
Every figure is written as PNG and/or PDF atomically (:func:`save_figure`): to a temporary file
in the target folder, then ``os.replace``.

Modules by job:

* :mod:`~symbolic_tf.plots._base` — :func:`figure`, :func:`save_figure`;
* :mod:`~symbolic_tf.plots._covariance` — the SPD-cone and normalised-disk views of 2×2
  covariances (:func:`to_cone`, :func:`to_disk`), d = 3 planes, rank histograms and decays;
* :mod:`~symbolic_tf.plots._evidence` — mean-field, masked-attention, ReLU, stability and
  mixture measurements;
* :mod:`~symbolic_tf.plots._steering` — covariance ellipses along a control schedule;
* :mod:`~symbolic_tf.plots._regime_map` — certified regime maps.

The package imports nothing from the faces above it (reproduce/, models/, cli): callers pass
the data and the labels they want drawn.
"""
from __future__ import annotations

from ._base import figure, save_figure
from ._covariance import cone_figure, disk_figure, plane3d_figure, rank_decay_figure, rank_histograms, to_cone, to_disk
from ._evidence import meanfield_figure, mixture_departure_figure, relu_figure, sink_figure, stability_figure
from ._regime_map import REGIME_COLOURS, regime_map_figure
from ._steering import steering_figure

__all__ = ["figure", "save_figure", "to_cone", "to_disk", "cone_figure", "disk_figure", "plane3d_figure",
           "rank_histograms", "rank_decay_figure", "meanfield_figure", "steering_figure", "regime_map_figure",
           "REGIME_COLOURS", "sink_figure", "relu_figure", "stability_figure", "mixture_departure_figure"]
