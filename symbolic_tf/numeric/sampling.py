r"""Sampling initial clouds: the exact factor of a Gaussian covariance, the non-Gaussian initial
laws of :mod:`symbolic_tf.spec.initial`, and their support radius.

:func:`exact_factor`: B with BBᵀ = cov from an exact rational LDLᵀ (singular covariances give
exactly degenerate samples).

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
from fractions import Fraction

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["exact_factor", "sample_law", "sample_mixture", "support_radius"]


def exact_factor(cov) -> np.ndarray:
    """A float factor B (d × r) with B Bᵀ = cov, from an exact rational LDLᵀ.

    Symmetric Gaussian elimination over ℚ with diagonal pivoting (largest pivot first):
    cov = Σ_k D_k ℓ_k ℓ_kᵀ exactly, r = rank cov, and B = [√D_k ℓ_k]_k.  For a PSD input
    a zero pivot means its whole remaining row is zero, so the rank is exact and the
    sampled cloud lies (up to rounding of B) in the range of cov — a singular covariance
    gives exactly degenerate samples (e.g. cov = [[1, 1], [1, 1]] gives x₁ = x₂ exactly).

    Parameters
    ----------
    cov : sequence of sequences
        A symmetric positive semidefinite d×d matrix of exact entries (Fraction, int, "p/q").

    Returns
    -------
    ndarray, shape (d, r)
        B with B Bᵀ = cov up to the rounding of √D_k and ℓ_k to floats.
    """
    d = len(cov)
    R = [[Fraction(e) for e in row] for row in cov]
    remaining = list(range(d))
    cols = []
    while remaining:
        k = max(remaining, key=lambda i: R[i][i])
        piv = R[k][k]
        if piv <= 0:
            break
        ell = [R[i][k] / piv if i in remaining else Fraction(0) for i in range(d)]
        cols.append((piv, ell))
        remaining.remove(k)
        for i in remaining:
            for j in remaining:
                R[i][j] -= ell[i] * piv * ell[j]
    B = np.zeros((d, len(cols)))
    for c, (piv, ell) in enumerate(cols):
        B[:, c] = math.sqrt(piv) * np.array([float(e) for e in ell])
    return B


def _f(v):
    return np.array([float(x) for x in v], dtype=float)


def sample_law(law, N: int, rng: np.random.Generator) -> np.ndarray:
    """N tokens from a declared non-Gaussian initial law.

    Box: x = low + (high − low) ⊙ u, u uniform on [0, 1)^d; ball: x = c + r·U^{1/d}·z/|z|;
    mixture: :func:`sample_mixture`; empirical cloud: the cloud itself when N equals its size,
    else a subsample (N smaller, without replacement) or a resample (N larger, with replacement).

    Parameters
    ----------
    law : symbolic_tf.spec.initial.InitialLaw
    N : int
        Number of tokens.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (N, d)

    Raises
    ------
    InvalidParameters
        For a law kind without a sampler.
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
    (:func:`exact_factor`, so singular S_k give exactly degenerate samples).

    Parameters
    ----------
    law : symbolic_tf.spec.initial.InitialLaw
        Of kind ``mixture`` (weights, means, covs).
    N : int
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray, shape (N, d)
    labels : ndarray, shape (N,)
        The component index of each token.
    """
    w = _f(law.get("weights"))
    means, covs = law.get("means"), law.get("covs")
    k = rng.choice(len(w), size=N, p=w / w.sum())
    X = np.empty((N, len(means[0])))
    for j in range(len(w)):
        idx = np.flatnonzero(k == j)
        B = exact_factor(covs[j])
        X[idx] = _f(means[j]) + rng.standard_normal((idx.size, B.shape[1])) @ B.T
    return X, k


def support_radius(law) -> float:
    """R₀ = sup{|x| : x ∈ supp μ₀} of an initial law, the starting radius of the stability constant
    (docs/stability.md).

    Parameters
    ----------
    law : symbolic_tf.spec.initial.InitialLaw

    Returns
    -------
    float
        A float upper bound (rounded up); ∞ for a Gaussian mixture (unbounded support).
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
