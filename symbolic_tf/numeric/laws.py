r"""Sampling the non-Gaussian initial laws of :mod:`symbolic_tf.spec.initial`, and their support radius.

* ``uniform_box``: x = low + (high − low) ⊙ u, u uniform on [0, 1)^d;
* ``uniform_ball``: x = c + r·U^{1/d}·z/|z|, z ~ N(0, I), U uniform on [0, 1) (the radius of a
  uniform point of the d-ball has CDF ρ^d);
* ``mixture``: component k with probability w_k, then its Gaussian (exact LDLᵀ factor of S_k,
  so a singular S_k gives exactly degenerate samples);
* ``empirical``: N equal to the cloud size returns the cloud itself (the empirical measure,
  exactly); N smaller subsamples without replacement; N larger resamples with replacement.

:func:`support_radius` is R₀ = sup{|x| : x ∈ supp μ₀} (∞ for a mixture), the starting radius of
the stability constant (docs/stability.md).
"""
from __future__ import annotations

import math

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["sample_law", "support_radius"]


def _f(v):
    return np.array([float(x) for x in v], dtype=float)


def sample_law(law, N: int, rng: np.random.Generator) -> np.ndarray:
    """N tokens from a declared non-Gaussian initial law (shape (N, d))."""
    from .particles import exact_factor

    if law.kind == "uniform_box":
        lo, hi = _f(law.get("low")), _f(law.get("high"))
        return lo + (hi - lo) * rng.random((N, lo.size))
    if law.kind == "uniform_ball":
        c, r = _f(law.get("center")), float(law.get("radius"))
        z = rng.standard_normal((N, c.size))
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        return c + r * rng.random((N, 1)) ** (1.0 / c.size) * z
    if law.kind == "mixture":
        w = _f(law.get("weights"))
        means, covs = law.get("means"), law.get("covs")
        k = rng.choice(len(w), size=N, p=w / w.sum())
        X = np.empty((N, len(means[0])))
        for j in range(len(w)):
            idx = np.flatnonzero(k == j)
            B = exact_factor(covs[j])
            X[idx] = _f(means[j]) + rng.standard_normal((idx.size, B.shape[1])) @ B.T
        return X
    if law.kind == "empirical":
        P = np.asarray(law.points)
        if N == P.shape[0]:
            return P.copy()
        idx = rng.choice(P.shape[0], size=N, replace=N > P.shape[0])
        return P[idx].copy()
    raise InvalidParameters("initial.law", f"no sampler for {law.kind!r}")


def support_radius(law) -> float:
    """sup |x| over the support (a float upper bound, rounded up); ∞ for a Gaussian mixture."""
    if law.kind == "uniform_box":
        lo, hi = _f(law.get("low")), _f(law.get("high"))
        r = float(np.linalg.norm(np.maximum(np.abs(lo), np.abs(hi))))
    elif law.kind == "uniform_ball":
        r = float(np.linalg.norm(_f(law.get("center")))) + float(law.get("radius"))
    elif law.kind == "empirical":
        r = float(np.linalg.norm(np.asarray(law.points), axis=1).max())
    else:
        return math.inf
    return math.nextafter(r, math.inf)
