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

from ..exact.definiteness import float_factor
from ..spec.errors import InvalidParameters

__all__ = ["sample_law", "sample_mixture", "mixture_departure", "support_radius"]


def _f(v):
    return np.array([float(x) for x in v], dtype=float)


def sample_law(law, N: int, rng: np.random.Generator) -> np.ndarray:
    """N tokens from a declared non-Gaussian initial law (shape (N, d))."""
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
    """N tokens from a mixture law and the component label of each."""
    w = _f(law.get("weights"))
    means, covs = law.get("means"), law.get("covs")
    k = rng.choice(len(w), size=N, p=w / w.sum())
    X = np.empty((N, len(means[0])))
    for j in range(len(w)):
        idx = np.flatnonzero(k == j)
        B = float_factor(covs[j])
        X[idx] = _f(means[j]) + rng.standard_normal((idx.size, B.shape[1])) @ B.T
    return X, k


def mixture_departure(problem, T: float, N: int = 2000, steps: int = 100, n_save: int = 10, seed: int = 0) -> dict:
    """Measured departure of a mixture's components from Gaussianity over depth (numerical evidence).

    Tokens are sampled from the problem's ``mixture`` law with their component labels and moved
    by the token ODE; at each saved depth the tokens of each label are compared with their own
    moment-matched Gaussian by Mardia's kurtosis excess b₂ − d(d+2).  If the flow kept each
    component Gaussian this would stay at the sampling noise floor (its t = 0 value, about
    ±√(8d(d+2)/N_k)); the labelled components are one decomposition of the cloud, so this
    measures departure from the *transported* mixture, not from every two-component mixture
    (the exact statement is :func:`symbolic_tf.symbolic.mixture.mixture_witness`).
    """
    from .gaussianity import mardia
    from .particles import simulate

    law = getattr(problem, "initial_law", None)
    if law is None or law.kind != "mixture":
        raise InvalidParameters("initial.law", "the mixture departure needs an [initial] law = \"mixture\"")
    X0, k = sample_mixture(law, int(N), np.random.default_rng(seed))
    run = simulate(problem, X0, float(T), steps=int(steps), save_every=max(1, int(steps) // n_save))
    d = problem.d
    labels = sorted(set(k.tolist()))
    excess = [[float(mardia(X[k == j])[1] - d * (d + 2)) for j in labels] for X in run.X]
    floor = [float(np.sqrt(8 * d * (d + 2) / max(1, int(np.sum(k == j))))) for j in labels]
    return {"t": run.t.tolist(), "components": labels, "mardia_excess": excess, "noise_floor": floor,
            "N": int(N), "seed": int(seed), "steps": int(steps), "nonfinite": bool(run.nonfinite),
            "label": "numerical evidence"}


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
