"""The non-affine ReLU feed-forward term W₂·ReLU(W₁x + b₁) as a float hook for the token simulator
(:mod:`symbolic_tf.numeric.particles`); the experiments on it are in :mod:`symbolic_tf.numeric.relu`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["relu_arrays", "relu_drift"]


def relu_arrays(relu):
    """The weights of a ReLU feed-forward term W₂·ReLU(W₁x + b₁) as float arrays."""
    W1 = np.array([[float(e) for e in row] for row in relu.W1])
    b1 = np.array([float(e) for e in relu.b1])
    W2 = np.array([[float(e) for e in row] for row in relu.W2])
    return W1, b1, W2


def relu_drift(problem):
    """The float map X ↦ ReLU(X W₁ᵀ + b₁) W₂ᵀ (rows are tokens) of ``problem.relu``, or None."""
    relu = getattr(problem, "relu", None)
    if relu is None:
        return None
    W1, b1, W2 = relu_arrays(relu)
    W1T, W2T = np.ascontiguousarray(W1.T), np.ascontiguousarray(W2.T)

    def g(X: np.ndarray) -> np.ndarray:
        return np.maximum(X @ W1T + b1, 0.0) @ W2T

    return g
