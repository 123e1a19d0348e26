"""Display labels of the Gaussianity metrics, shared by the probe's text table and its figures."""
from __future__ import annotations

__all__ = ["METRIC_LABELS"]

#: metric name (:data:`symbolic_tf.numeric.departure.METRICS`) → its label in tables and figures
METRIC_LABELS = {"mardia_b1": "Mardia b1", "mardia_b2": "Mardia b2", "sliced_w2": "sliced W2", "energy": "energy"}
