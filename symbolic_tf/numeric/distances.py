r"""Two-sample distances between token clouds, and whitening (the Gaussianity probe of real models).

:mod:`symbolic_tf.numeric.gaussianity` has the one-sample statistics (Mardia, moments,
Bures–Wasserstein); the probe also needs two *two-sample* distances, which live here:

* :func:`sliced_w2` — the sliced 2-Wasserstein distance

  .. math::

      SW_2(X, Y) = \Big(\frac1L \sum_{k=1}^{L} W_2^2(θ_k^T X, θ_k^T Y)\Big)^{1/2},

  θ_k uniform on the sphere (seeded), each 1-D W₂ between two equal-size empirical laws
  computed exactly by sorting, W_2^2 = (1/N) Σ_i (a_{(i)} − b_{(i)})²;
* :func:`energy_distance` — Székely's energy distance (unbiased U-statistic form)

  .. math::

      \mathcal E(X, Y) = \frac{2}{nm}\sum_{i,j}|x_i - y_j|
        - \frac{1}{n(n-1)}\sum_{i\ne j}|x_i - x_j| - \frac{1}{m(m-1)}\sum_{i\ne j}|y_i - y_j|,

  whose population value is ≥ 0 with equality iff the laws agree (the U-statistic itself
  fluctuates around 0 for equal laws, so it can be slightly negative);
* :func:`wasserstein` — W_p between two empirical measures (uniform weights): exact optimal
  transport (POT's network simplex, ``ot.emd2``, cost |x − y|^p) up to :data:`EXACT_OT_MAX`
  points, the sliced W₂ above (a lower bound of W₂, labelled as such); every value carries its
  method;
* :func:`whiten` — y_i = Λ^{-1/2}Uᵀ(x_i − m) on the numerical range of the population
  covariance S = UΛUᵀ (eigenvalues ≤ rtol·λ_max dropped), so the moment-matched Gaussian
  of the cloud becomes N(0, I_r).

Measuring on whitened clouds makes the numbers comparable across layers (scale-free) and lets
one noise floor serve every cloud of the same size N and rank r: for a Gaussian cloud
X = a + BZ the whitened cloud is an orthogonal image of the whitened Z, and both distances
are rotation invariant against an isotropic reference sample, so metric(X) and the floor
metric(G₁) (G₁ ~ N(0, I_r), whitened by its own moments) have the same distribution.
"""
from __future__ import annotations

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["whiten", "sliced_w2", "energy_distance", "wasserstein", "WHITEN_RTOL", "EXACT_OT_MAX"]

#: Largest cloud for which :func:`wasserstein` solves the exact transport problem (an N × M
#: cost matrix: 3000² doubles = 72 MB).
EXACT_OT_MAX = 3000

#: Relative eigenvalue cut-off of :func:`whiten`.  Clouds computed in float32 carry rounding
#: noise of relative size ~1e-7 per coordinate, i.e. ~1e-14 in variance; 1e-8 separates
#: such numerically-null directions (e.g. the hyperplane 1ᵀ(x − β)/γ = 0 of a LayerNorm
#: output) from genuine ones by orders of magnitude.
WHITEN_RTOL = 1e-8

_BLOCK = 2**22  # float64 elements per work block (32 MB)


def _cloud(name: str, X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise InvalidParameters(name, f"expected a cloud of shape (N, d) with N >= 2, got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InvalidParameters(name, "entries must be finite")
    return X


def whiten(X, *, rtol: float = WHITEN_RTOL) -> np.ndarray:
    """Whitened cloud Λ^{-1/2}Uᵀ(x_i − m) on the numerical range (N × r): m the empirical mean,
    Ŝ = UΛUᵀ the empirical covariance, r the eigenvalues above ``rtol``·λ_max.

    Parameters
    ----------
    X : array_like, (N, d)
    rtol : float
        Relative threshold of the numerical rank.

    Returns
    -------
    ndarray, (N, r)
    """
    from ..numeric.gaussianity import empirical_moments

    X = _cloud("X", X)
    m, S = empirical_moments(X)
    lam, U = np.linalg.eigh(S)
    keep = lam > rtol * max(lam.max(), 0.0)
    if not np.any(keep):
        raise InvalidParameters("X", "the cloud has zero covariance; it cannot be whitened")
    return ((X - m) @ U[:, keep]) / np.sqrt(lam[keep])


def sliced_w2(X, Y, *, directions: int = 128, seed: int = 0) -> float:
    """Sliced W₂ between two clouds of the same size N in the same dimension:
    (mean over random unit directions θ of W₂²(θᵀX, θᵀY))^{1/2}, each 1-D W₂ by sorting.

    Parameters
    ----------
    X, Y : array_like, (N, d)
    directions : int
        Number of random directions.
    seed : int

    Returns
    -------
    float
        A lower bound of W₂ (up to the Monte Carlo error of the directions).
    """
    X, Y = _cloud("X", X), _cloud("Y", Y)
    if X.shape != Y.shape:
        raise InvalidParameters("Y", f"expected the shape of X {X.shape}, got {Y.shape}")
    if directions < 1:
        raise InvalidParameters("directions", "need at least one direction")
    rng = np.random.default_rng(seed)
    T = rng.standard_normal((X.shape[1], directions))
    T /= np.linalg.norm(T, axis=0, keepdims=True)
    a = np.sort(X @ T, axis=0)
    b = np.sort(Y @ T, axis=0)
    return float(np.sqrt(np.mean((a - b) ** 2)))


def _mean_dist(X: np.ndarray, Y: np.ndarray, same: bool) -> float:
    """Mean of |x_i − y_j| over all pairs (over i ≠ j when ``same``), in row blocks."""
    nx, ny = X.shape[0], Y.shape[0]
    x2 = np.sum(X * X, axis=1)
    y2 = np.sum(Y * Y, axis=1)
    step = max(1, _BLOCK // ny)
    total = 0.0
    for s in range(0, nx, step):
        D2 = x2[s:s + step, None] + y2[None, :] - 2.0 * (X[s:s + step] @ Y.T)
        if same:
            idx = np.arange(s, min(s + step, nx))
            D2[idx - s, idx] = 0.0
        total += float(np.sum(np.sqrt(np.maximum(D2, 0.0))))
    return total / (nx * (nx - 1) if same else nx * ny)


def energy_distance(X, Y) -> float:
    """Energy distance (U-statistic) between two clouds in the same dimension:
    2E|X − Y| − E|X − X'| − E|Y − Y'|.

    Parameters
    ----------
    X : array_like, (N, d)
    Y : array_like, (M, d)

    Returns
    -------
    float
    """
    X, Y = _cloud("X", X), _cloud("Y", Y)
    if X.shape[1] != Y.shape[1]:
        raise InvalidParameters("Y", f"expected dimension {X.shape[1]}, got {Y.shape[1]}")
    return 2.0 * _mean_dist(X, Y, False) - _mean_dist(X, X, True) - _mean_dist(Y, Y, True)


def wasserstein(X, Y, p: float = 2, *, method: str = "auto", directions: int = 128, seed: int = 0) -> dict:
    """W_p between the empirical measures (1/N)Σδ_{x_i} and (1/M)Σδ_{y_j}, labelled with its method.

    ``method="exact"``: W_p^p = min_π Σ π_ij ‖x_i − y_j‖^p over couplings, solved exactly by
    POT's network simplex (``ot.emd2``; the ``pot`` package, imported lazily).
    ``method="sliced"``: :func:`sliced_w2` (p = 2 and N = M only), a lower bound of W₂.
    ``"auto"`` is exact up to :data:`EXACT_OT_MAX` points on either side, sliced beyond.

    Parameters
    ----------
    X : array_like, (N, d)
    Y : array_like, (M, d)
    p : float
        Order, ≥ 1.
    method : "auto", "exact" or "sliced"
    directions, seed : int
        Of the sliced estimate.

    Returns
    -------
    dict
        ``value``, ``p``, ``method`` ("exact OT (ot.emd2)" or "sliced W2 (L directions, lower
        bound of W2)"), ``N``, ``M``.
    """
    X, Y = _points("X", X), _points("Y", Y)
    if X.shape[1] != Y.shape[1]:
        raise InvalidParameters("Y", f"expected dimension {X.shape[1]}, got {Y.shape[1]}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not np.isfinite(p) or p < 1:
        raise InvalidParameters("p", f"expected a real number p >= 1, got {p!r}")
    if method == "auto":
        method = "exact" if max(X.shape[0], Y.shape[0]) <= EXACT_OT_MAX else "sliced"
    out = {"p": float(p), "N": int(X.shape[0]), "M": int(Y.shape[0])}
    if method == "exact":
        try:
            import ot
        except ImportError:
            raise InvalidParameters("method", "exact optimal transport needs the `pot` package "
                                              "(pip install 'symbolic-tf[dev]' or pip install pot)") from None
        from scipy.spatial.distance import cdist

        C = cdist(X, Y) ** p  # differences first: identical points cost exactly 0
        a = np.full(X.shape[0], 1.0 / X.shape[0])
        b = np.full(Y.shape[0], 1.0 / Y.shape[0])
        val = float(ot.emd2(a, b, C, numItermax=10_000_000))
        return {**out, "value": max(val, 0.0) ** (1.0 / p), "method": "exact OT (ot.emd2)"}
    if method == "sliced":
        if p != 2:
            raise InvalidParameters("p", f"the sliced distance is W2 only (got p = {p}); use method='exact'")
        return {**out, "value": sliced_w2(X, Y, directions=directions, seed=seed),
                "method": f"sliced W2 ({directions} directions, lower bound of W2)"}
    raise InvalidParameters("method", f"expected 'auto', 'exact' or 'sliced', got {method!r}")


def _points(name: str, X) -> np.ndarray:
    """A cloud of at least one point (W_p between single points is their distance)."""
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameters(name, f"cannot be converted to a float64 array ({exc})") from None
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise InvalidParameters(name, f"expected a cloud of shape (N, d), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InvalidParameters(name, "entries must be finite")
    return X
