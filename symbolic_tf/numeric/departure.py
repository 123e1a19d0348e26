r"""How far a token cloud is from its moment-matched Gaussian, against the noise floor.

The per-cloud metrics of the Gaussianity probe (:mod:`symbolic_tf.models.probe`), also used by
the ReLU feed-forward experiment (:mod:`symbolic_tf.numeric.relu`).  All metrics are computed on
the whitened cloud Y = Λ^{-1/2}Uᵀ(X − m̂) (:func:`~symbolic_tf.numeric.distances.whiten`), whose
moment-matched Gaussian is N(0, I_r), r the numerical rank:

* Mardia's skewness b₁ and kurtosis b₂ (:func:`symbolic_tf.numeric.gaussianity.mardia`);
  Gaussian references b₂ ≈ r(r+2)(N−1)/(N+1), b₁ ≈ r(r+1)(r+2)/N;
* sliced W₂ between Y and a fresh N(0, I_r) sample of the same size;
* energy distance between Y and a fresh N(0, I_r) sample of the same size.

Noise floor: the same numbers for exactly Gaussian clouds of the same N and rank
(:func:`noise_floor`); for a Gaussian X the metric and the floor have the same distribution.
"""
from __future__ import annotations

import numpy as np

from ..spec.errors import InvalidParameters
from .distances import energy_distance, sliced_w2, whiten
from .gaussianity import mardia

__all__ = ["METRICS", "cloud_metrics", "noise_floor"]

#: The per-cloud Gaussianity metrics, in report order.
METRICS = ("mardia_b1", "mardia_b2", "sliced_w2", "energy")


def cloud_metrics(X, *, seed: int = 0, directions: int = 128) -> dict:
    """Rank and the :data:`METRICS` of one cloud (see the module docstring).

    Parameters
    ----------
    X : array_like, (N, d)
    seed : int
        Seed of the fresh Gaussian reference sample and of the slicing directions.
    directions : int
        Directions of the sliced W₂.

    Returns
    -------
    dict
        ``rank`` and one float per metric name.
    """
    Y = whiten(X)
    G = np.random.default_rng(seed).standard_normal(Y.shape)
    b1, b2 = mardia(Y)
    return {"rank": int(Y.shape[1]), "mardia_b1": b1, "mardia_b2": b2,
            "sliced_w2": sliced_w2(Y, G, directions=directions, seed=seed + 1),
            "energy": energy_distance(Y, G)}


def noise_floor(N: int, rank: int, *, repeats: int = 8, seed: int = 0, directions: int = 128) -> dict:
    """The :data:`METRICS` on ``repeats`` exactly Gaussian clouds (N × rank): mean and spread.

    The spread ``sd`` of the sliced W₂ and the energy distance is the sample standard
    deviation over the repeats.  For Mardia's statistics it is the asymptotic one under
    normality (few repeats estimate a standard deviation poorly):
    sd(b₂) = √(8r(r+2)/N), and N b₁/6 ~ χ²_f with f = r(r+1)(r+2)/6, so sd(b₁) = (6/N)√(2f);
    the sample sd is kept as ``sample_sd``.  The means are the repeats' means (at N/r of a few
    the asymptotic means r(r+2)(N−1)/(N+1), 6f/N are slightly off; they are kept as
    ``reference``).

    Parameters
    ----------
    N : int
        Cloud size.
    rank : int
        Dimension r of the Gaussian clouds.
    repeats, seed, directions : int

    Returns
    -------
    dict
        Metric name → {"mean", "sd", "sample_sd", …}.
    """
    if repeats < 2:
        raise InvalidParameters("floor_repeats", "need at least 2 repeats for a standard deviation")
    rows = []
    for k in range(repeats):
        rng = np.random.default_rng([seed, rank, k])
        rows.append(cloud_metrics(rng.standard_normal((N, rank)), seed=int(rng.integers(2**31)),
                                  directions=directions))
    f = rank * (rank + 1) * (rank + 2) / 6
    asymptotic_sd = {"mardia_b1": 6.0 / N * np.sqrt(2.0 * f), "mardia_b2": np.sqrt(8.0 * rank * (rank + 2) / N)}
    out = {"N": N, "rank": rank, "repeats": repeats,
           "reference": {"mardia_b1": 6.0 * f / N, "mardia_b2": rank * (rank + 2) * (N - 1) / (N + 1)}}
    for m in METRICS:
        vals = np.array([r[m] for r in rows])
        sd = float(asymptotic_sd[m]) if m in asymptotic_sd else float(vals.std(ddof=1))
        out[m] = {"mean": float(vals.mean()), "sd": sd, "sample_sd": float(vals.std(ddof=1)),
                  "sd_kind": "asymptotic" if m in asymptotic_sd else "sample"}
    return out
