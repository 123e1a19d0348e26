r"""How Gaussian is a token cloud?  Moments, distances and normality statistics (NumPy).

Used to compare particle simulations (:mod:`symbolic_tf.numeric.particles`) with the
Gaussian moment ODEs of docs/mathematics.md §3, and to measure how far a cloud is from its
moment-matched Gaussian (the Alcalde–Ji–Zuazua probe, docs/mathematics.md §6).

* :func:`empirical_moments` — weighted mean and population covariance;
* :func:`bures_wasserstein` — the 2-Wasserstein distance between two Gaussians;
* :func:`excess_kurtosis_principal` — excess kurtosis along each principal direction;
* :func:`mardia` — Mardia's multivariate skewness and kurtosis;
* :func:`loglog_slope` — convergence rates, error ≈ C·N^slope;
* :func:`attention_ess` — how many of N tokens a softmax query effectively averages over.

All inputs are validated (float64, finite, matching shapes); bad input raises
:class:`~symbolic_tf.spec.errors.InvalidParameters` naming the argument.
"""
from __future__ import annotations

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = [
    "empirical_moments",
    "bures_wasserstein",
    "excess_kurtosis_principal",
    "mardia",
    "loglog_slope",
    "attention_ess",
]

#: Target size (float64 elements) of one work block in :func:`mardia` (32 MB).
_WORK_ELEMENTS = 2**22


def _array(name: str, value, ndim: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameters(name, f"cannot be converted to a float64 array ({exc})") from None
    if arr.ndim != ndim:
        raise InvalidParameters(name, f"expected a {ndim}-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InvalidParameters(name, "entries must be finite (found nan or inf)")
    return arr


def _cloud(X, min_n: int = 1) -> np.ndarray:
    X = _array("X", X, 2)
    if X.shape[0] < min_n or X.shape[1] < 1:
        raise InvalidParameters("X", f"expected shape (N, d) with N >= {min_n}, d >= 1, got {X.shape}")
    return X


def _sym_eigh(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of the symmetric part of S, tiny negative eigenvalues clipped to 0."""
    lam, U = np.linalg.eigh(0.5 * (S + S.T))
    return np.clip(lam, 0.0, None), U


def _psd_sqrt(S: np.ndarray) -> np.ndarray:
    """The symmetric PSD square root S^{1/2}.

    Eigenvalues ≤ d·ε·λ_max (rounding noise of a singular matrix, including tiny negative
    ones) are set to 0: their square roots, ~√ε, would otherwise pollute the result.
    """
    lam, U = _sym_eigh(S)
    lam[lam <= S.shape[0] * np.finfo(float).eps * lam.max(initial=0.0)] = 0.0
    return (U * np.sqrt(lam)) @ U.T


def empirical_moments(X, w=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Weighted mean and population covariance of a cloud.

    .. math::

        m = \sum_i p_i x_i, \qquad S = \sum_i p_i (x_i - m)(x_i - m)^T,
        \qquad p_i = w_i / \sum_j w_j

    (uniform p_i = 1/N by default, so S is the 1/N "population" covariance, the
    covariance of the empirical measure μ^N).

    Parameters
    ----------
    X : array_like, shape (N, d)
    w : array_like, shape (N,), optional
        Non-negative weights with positive sum.

    Returns
    -------
    mean : ndarray, shape (d,)
    cov : ndarray, shape (d, d), exactly symmetric
    """
    X = _cloud(X)
    N = X.shape[0]
    if w is None:
        p = np.full(N, 1.0 / N)
    else:
        p = _array("w", w, 1)
        if p.shape != (N,):
            raise InvalidParameters("w", f"expected shape ({N},) to match X, got {p.shape}")
        if np.any(p < 0) or not p.sum() > 0:
            raise InvalidParameters("w", "weights must be non-negative with a positive sum")
        p = p / p.sum()
    mean = p @ X
    Xc = X - mean
    cov = (Xc * p[:, None]).T @ Xc
    return mean, 0.5 * (cov + cov.T)


def bures_wasserstein(m1, S1, m2, S2) -> float:
    r"""2-Wasserstein distance between N(m1, S1) and N(m2, S2) (S1, S2 ⪰ 0, maybe singular).

    .. math::

        W_2^2 = |m_1 - m_2|^2 + \operatorname{tr} S_1 + \operatorname{tr} S_2
                - 2 \operatorname{tr}\big(S_1^{1/2} S_2 S_1^{1/2}\big)^{1/2}.

    The covariance part is evaluated without cancellation as a Frobenius norm,

    .. math::

        \operatorname{tr} S_1 + \operatorname{tr} S_2 - 2\|S_2^{1/2} S_1^{1/2}\|_*
        = \min_{U^TU = I} \|S_1^{1/2} - S_2^{1/2} U\|_F^2
        = \|S_1^{1/2} - S_2^{1/2} P Q^T\|_F^2,

    with S_2^{1/2} S_1^{1/2} = P Λ Qᵀ an SVD (‖·‖_* the nuclear norm, which equals
    tr(S_1^{1/2}S_2S_1^{1/2})^{1/2}).  Square roots are symmetric eigen-decompositions
    with tiny negative rounding eigenvalues clipped, so singular PSD matrices are fine;
    the absolute error of W2 is O(ε·√(tr S1 + tr S2)) rather than the O(√ε) of the
    trace formula, and the result is ≥ 0 by construction.

    Parameters
    ----------
    m1, m2 : array_like, (d,)
        Means.
    S1, S2 : array_like, (d, d)
        Symmetric positive semidefinite covariances.

    Returns
    -------
    float
        W2 (the distance, not its square).
    """
    m1 = _array("m1", m1, 1)
    d = m1.shape[0]
    m2 = _array("m2", m2, 1)
    if m2.shape != (d,):
        raise InvalidParameters("m2", f"expected shape ({d},) to match m1, got {m2.shape}")
    S1 = _array("S1", S1, 2)
    S2 = _array("S2", S2, 2)
    for name, S in (("S1", S1), ("S2", S2)):
        if S.shape != (d, d):
            raise InvalidParameters(name, f"expected shape ({d}, {d}), got {S.shape}")
    R1 = _psd_sqrt(S1)
    R2 = _psd_sqrt(S2)
    P, _, Qt = np.linalg.svd(R2 @ R1)
    D = R1 - R2 @ (P @ Qt)
    w2sq = float(np.sum((m1 - m2) ** 2) + np.sum(D * D))
    return float(np.sqrt(w2sq))


def excess_kurtosis_principal(X) -> np.ndarray:
    r"""Excess kurtosis of the cloud along each principal direction.

    With S = U Λ Uᵀ the population covariance (eigenvalues in *decreasing* order) and
    z_i = Uᵀ(x_i − m) the principal coordinates,

    .. math::

        κ_k = \frac{\frac1N \sum_i z_{ik}^4}{\big(\frac1N \sum_i z_{ik}^2\big)^2} - 3,

    which is 0 for a Gaussian (standard error ≈ √(24/N)), −1.2 for a uniform law,
    −2 for a symmetric two-point law.  Directions of (numerically) zero variance,
    λ_k ≤ d·ε·λ_max, get NaN.

    Parameters
    ----------
    X : array_like, shape (N, d), N ≥ 2

    Returns
    -------
    ndarray, shape (d,)
    """
    X = _cloud(X, min_n=2)
    mean, S = empirical_moments(X)
    lam, U = _sym_eigh(S)
    order = np.argsort(lam)[::-1]
    lam, U = lam[order], U[:, order]
    Z = (X - mean) @ U
    m2 = np.mean(Z * Z, axis=0)
    m4 = np.mean(Z**4, axis=0)
    tiny = lam <= X.shape[1] * np.finfo(float).eps * max(lam[0], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = m4 / (m2 * m2) - 3.0
    k[tiny | ~(m2 > 0)] = np.nan
    return k


def mardia(X, *, method: str = "auto") -> tuple[float, float]:
    r"""Mardia's multivariate skewness b₁ and kurtosis b₂.

    With m, S the empirical mean and population covariance and
    y_i = S^{-1/2}(x_i − m) the whitened tokens,

    .. math::

        b_1 = \frac{1}{N^2} \sum_{i,j} (y_i^T y_j)^3, \qquad
        b_2 = \frac{1}{N} \sum_i |y_i|^4 .

    For a Gaussian sample b₂ → d(d+2) (E b₂ = d(d+2)(N−1)/(N+1), sd ≈ √(8d(d+2)/N)) and
    N b₁/6 is asymptotically χ² with d(d+1)(d+2)/6 degrees of freedom, so
    b₁ ≈ d(d+1)(d+2)/N.  A singular covariance is whitened on its range (eigenvalues
    ≤ d·ε·λ_max dropped), so d is then replaced by the numerical rank.

    b₁ is computed one of two equal ways:

    * ``"gram"``: the double sum over the N×N Gram matrix y_iᵀy_j, formed in row blocks
      of about 32 MB — O(N²d) time;
    * ``"tensor"``: Σ_{i,j}(y_iᵀy_j)³ = Σ_{a,b,c} T_{abc}² with the third-moment tensor
      T_{abc} = Σ_i y_{ia}y_{ib}y_{ic}, accumulated over row blocks — O(N d³) time;

    ``"auto"`` picks the cheaper (tensor when d² < N).

    Parameters
    ----------
    X : array_like, shape (N, d), N ≥ 2
    method : {"auto", "gram", "tensor"}

    Returns
    -------
    (b1, b2) : tuple of float
    """
    X = _cloud(X, min_n=2)
    if method not in ("auto", "gram", "tensor"):
        raise InvalidParameters("method", f"expected 'auto', 'gram' or 'tensor', got {method!r}")
    mean, S = empirical_moments(X)
    lam, U = _sym_eigh(S)
    keep = lam > X.shape[1] * np.finfo(float).eps * max(lam.max(), 0.0)
    if not np.any(keep):
        raise InvalidParameters("X", "the cloud has zero covariance; Mardia's statistics are undefined")
    Y = ((X - mean) @ U[:, keep]) / np.sqrt(lam[keep])
    N = Y.shape[0]
    b2 = float(np.mean(np.sum(Y * Y, axis=1) ** 2))
    r = Y.shape[1]
    if method == "auto":
        method = "tensor" if r * r < N else "gram"
    total = 0.0
    if method == "gram":
        step = max(1, _WORK_ELEMENTS // N)
        YT = np.ascontiguousarray(Y.T)
        for start in range(0, N, step):
            G = Y[start:start + step] @ YT
            total += float(np.sum(G * G * G))
    else:
        step = max(1, _WORK_ELEMENTS // (r * r))
        T = np.zeros((r * r, r))
        for start in range(0, N, step):
            B = Y[start:start + step]
            T += (B[:, :, None] * B[:, None, :]).reshape(B.shape[0], r * r).T @ B
        total = float(np.sum(T * T))
    return total / (N * N), b2


def loglog_slope(Ns, errors) -> tuple[float, float]:
    r"""Least-squares fit log(error) ≈ slope·log(N) + intercept.

    error ≈ e^{intercept}·N^{slope}; a Monte Carlo error decays with slope ≈ −1/2, a
    p-th order integrator's error in the step count with slope ≈ −p.

    Parameters
    ----------
    Ns, errors : array_like, shape (n,), n ≥ 2
        Positive sizes (at least two distinct) and positive errors.

    Returns
    -------
    (slope, intercept) : tuple of float
    """
    Ns = _array("Ns", Ns, 1)
    errors = _array("errors", errors, 1)
    if Ns.shape != errors.shape or Ns.shape[0] < 2:
        raise InvalidParameters("errors", f"need two arrays of the same length >= 2, got {Ns.shape} and {errors.shape}")
    if np.any(Ns <= 0) or np.any(errors <= 0):
        raise InvalidParameters("errors", "sizes and errors must be positive (logarithms are taken)")
    x = np.log(Ns)
    if np.ptp(x) == 0:
        raise InvalidParameters("Ns", "need at least two distinct sizes")
    slope, intercept = np.polyfit(x, np.log(errors), 1)
    return float(slope), float(intercept)


def attention_ess(X, A, queries=None) -> np.ndarray:
    r"""Effective sample size of the softmax attention weights of each query.

    For a query x the weights over the cloud are w_j ∝ e^{y_jᵀAx}; their effective sample
    size is ESS(x) = (Σ_j w_j)² / Σ_j w_j² ∈ [1, N], computed in the log domain as
    exp(2·lse(ℓ) − lse(2ℓ)) with ℓ_j = y_jᵀAx.

    Why it matters (docs/mathematics.md §6, the finite-N gap of ``reproduce alcalde2026``):
    for y ~ N(α, Σ) the population value is ESS/N = e^{−cᵀΣc} with c = Ax (the tilting
    lemma: E e^{2cᵀy} / (E e^{cᵀy})² = e^{cᵀΣc}).  N samples represent the tilted Gaussian
    N(α + Σc, Σ) — the mean the moment ODE uses — only while ESS ≫ 1, i.e. while
    cᵀΣc ≪ ln N; beyond that the empirical softmax saturates at the extreme tokens, a bias
    that decays like a power of 1/ln N rather than N^{-1/2}.

    Parameters
    ----------
    X : array_like, shape (N, d)
        The cloud (the support of the attention).
    A : array_like, shape (d, d)
        Attention matrix (logits yᵀAx).
    queries : array_like, shape (M, d), optional
        Query points; default the cloud itself.

    Returns
    -------
    ndarray, shape (M,)
        ESS of each query (between 1 and N).
    """
    X = _cloud(X)
    A = _array("A", A, 2)
    if A.shape != (X.shape[1], X.shape[1]):
        raise InvalidParameters("A", f"expected shape ({X.shape[1]}, {X.shape[1]}), got {A.shape}")
    Q = X if queries is None else _array("queries", queries, 2)
    if Q.shape[1] != X.shape[1]:
        raise InvalidParameters("queries", f"expected {X.shape[1]} columns, got {Q.shape}")
    G = X @ A  # row j: y_jᵀA, so G @ x = (y_jᵀAx)_j
    out = np.empty(Q.shape[0])
    step = max(1, _WORK_ELEMENTS // X.shape[0])
    for start in range(0, Q.shape[0], step):
        L = Q[start:start + step] @ G.T
        L = L - L.max(axis=1, keepdims=True)
        out[start:start + step] = np.exp(2.0 * np.log(np.exp(L).sum(axis=1)) - np.log(np.exp(2.0 * L).sum(axis=1)))
    return out
