r"""Sampling initial clouds: the non-Gaussian initial laws of :mod:`symbolic_tf.spec.initial` and
their support radius (Gaussian factors: :func:`symbolic_tf.exact.definiteness.float_factor`, from
the exact rational LDLᵀ, so singular covariances give exactly degenerate samples).

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

from ..exact.definiteness import float_factor
from ..spec.errors import InvalidParameters

__all__ = ["sample_law", "sample_mixture", "support_radius"]


def _f(v):
    return np.array([float(x) for x in v], dtype=float)


def sample_law(law, N: int, rng: np.random.Generator) -> np.ndarray:
    """N tokens from a declared non-Gaussian initial law.

    Box: x = low + (high − low) ⊙ u, u uniform on [0, 1)^d; ball: x = c + r·U^{1/d}·z/|z|;
    mixture: :func:`sample_mixture`; empirical cloud: the cloud itself when N equals its size,
    else a subsample (N smaller, without replacement) or a resample (N larger, with replacement).
    """
    if law.kind == "uniform_box":
        lo, hi = _f(law.get("low")), _f(law.get("high"))
        return lo + (hi - lo) * rng.random((N, lo.size))
    if law.kind == "uniform_ball":
        c, r = _f(law.get("center")), float(law.get("radius"))
        z = rng.standard_normal((N, c.size))
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        return c + r * rng.random((N, 1)) ** (1.0 / c.size) * z
    if law.kind == "mixture":
        return sample_mixture(law, N, rng)[0]
    if law.kind == "empirical":
        P = np.asarray(law.points)
        if N == P.shape[0]:
            return P.copy()
        idx = rng.choice(P.shape[0], size=N, replace=N > P.shape[0])
        return P[idx].copy()
    raise InvalidParameters("initial.law", f"no sampler for {law.kind!r}")


def sample_mixture(law, N: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """N tokens from a Gaussian mixture law Σ_k w_k N(m_k, S_k) and the component of each.

    Component k is drawn with probability w_k/Σw, then x = m_k + B_k z with B_k B_kᵀ = S_k
    (:func:`~symbolic_tf.exact.definiteness.float_factor`, so singular S_k give exactly degenerate samples).
    """
    w = _f(law.get("weights"))
    means, covs = law.get("means"), law.get("covs")
    k = rng.choice(len(w), size=N, p=w / w.sum())
    X = np.empty((N, len(means[0])))
    for j in range(len(w)):
        idx = np.flatnonzero(k == j)
        B = float_factor(covs[j])
        X[idx] = _f(means[j]) + rng.standard_normal((idx.size, B.shape[1])) @ B.T
    return X, k


def support_radius(law) -> float:
    """R₀ = sup{|x| : x ∈ supp μ₀} of an initial law, the starting radius of the stability constant
    (docs/stability.md).
    """
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
