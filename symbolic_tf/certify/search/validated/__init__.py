"""Validated (rigorous, ball-arithmetic) integration of the covariance flow (issue 15).

* :func:`enclose` — a :class:`Tube` of exact step times and arb ball enclosures of Σ(t) for
  single-head and multi-head softmax with affine drift F (d ≤ 6);
* :func:`symbolic_tf.certify.search.validated._tube_basin.find_tube_basin` — integrate the problem's Σ₀
  until the tube's end box lies in a certified basin of attraction (certificate kind
  ``tube-basin``, checked independently by :mod:`symbolic_tf.certify.check.kinds.tube_basin`).

This is search-side code: the checker never imports it.
"""
from .tube import Tube, enclose, flow_data

__all__ = ["Tube", "enclose", "flow_data"]
