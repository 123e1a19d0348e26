r"""Vectorised NumPy token velocities Γ_{μ^N}(x) for an empirical measure.

The measure is μ^N = Σ_j w_j δ_{y_j} with support ``Y`` (N, d) and weights ``w`` (N,)
(default: uniform, w_j = 1/N).  Velocities are evaluated at query points ``Xq`` (M, d);
the queries need not be support points (Monte Carlo checks of the Gaussian closure use
fresh queries, the particle simulator passes ``Xq = Y``).

Conventions (docs/mathematics.md §1–§2)
---------------------------
* A := KᵀQ ∈ ℝ^{d×d}, so ⟨Qx, Ky⟩ = yᵀ A x.  The caller passes an *already scaled* A:
  no temperature is applied here (the ℓ2 velocity takes Q, K and an explicit ``scale``).
* V ∈ ℝ^{d×d}; every function returns a fresh float64 array of shape (M, d) whose row
  m is Γ(Xq[m]).
* Normalised velocities (softmax, ℓ2, masked, Sinkhorn) do not depend on the total mass
  Σ_j w_j; the unnormalised ones (linear, unnormalised, sigmoid) use ``w`` as given.

Numerics
--------
* Everything is float64.  Exponential weights are computed in the log domain: the logits
  of each query row are shifted by their maximum (log-sum-exp), log w_j is folded into the
  logits, so zero weights are exact zeros and no intermediate overflows.
* Work arrays of shape (chunk, N) are processed chunk by chunk over the queries; the
  default chunk keeps one such array at about 4 MB (cache-resident).  Results do not depend on ``chunk``
  beyond rounding (BLAS summation order).
* Bad input (wrong shape, non-finite entries, negative weights, zero total mass where a
  normalisation needs mass) raises :class:`ValueError` with a message naming the argument;
  callers convert it into the project's error type.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.special import expit

__all__ = [
    "SinkhornResult",
    "softmax_velocity",
    "l2_velocity",
    "linear_velocity",
    "unnormalised_velocity",
    "sigmoid_velocity",
    "masked_velocity",
    "sinkhorn_potential",
    "sinkhorn_velocity",
    "drift_velocity",
]

#: Target size (in float64 elements) of one (chunk, N) work array: 2**19 · 8 B = 4 MB, so that the
#: five passes over a block (bias, row max, shift, exp, row sum) run in cache: at N = 10⁴, d = 16
#: this is 1.6–2× faster than 64 MB blocks (benchmarks/bench_particles.py); at least 8 rows per block.
_WORK_ELEMENTS = 2**19
_MIN_ROWS = 8
#: The Sinkhorn kernel C (N×N) is stored, not recomputed per iteration, up to this many elements (64 MB).
_STORE_ELEMENTS = 2**23


# --------------------------------------------------------------------------- validation


def _array(name: str, value, ndim: int) -> np.ndarray:
    """``value`` as a finite float64 array with ``ndim`` dimensions, else ValueError."""
    if value is None:
        raise ValueError(f"{name}: required, got None")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot be converted to a float64 array ({exc})") from None
    if arr.ndim != ndim:
        want = {1: "a 1-D array", 2: "a 2-D array"}.get(ndim, f"a {ndim}-D array")
        raise ValueError(f"{name}: expected {want}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: entries must be finite (found nan or inf)")
    return arr


def _points(Xq, Y) -> tuple[np.ndarray, np.ndarray, int]:
    """Validate queries (M, d) and support (N, d); return them and d."""
    Xq = _array("Xq", Xq, 2)
    Y = _array("Y", Y, 2)
    if Xq.shape[1] != Y.shape[1]:
        raise ValueError(
            f"Xq and Y: dimension mismatch, Xq has shape {Xq.shape} (d = {Xq.shape[1]}) "
            f"but Y has shape {Y.shape} (d = {Y.shape[1]})"
        )
    if Y.shape[1] == 0:
        raise ValueError("Y: token dimension d must be at least 1")
    return Xq, Y, Y.shape[1]


def _square(name: str, value, d: int) -> np.ndarray:
    arr = _array(name, value, 2)
    if arr.shape != (d, d):
        raise ValueError(f"{name}: expected shape ({d}, {d}), got {arr.shape}")
    return arr


def _bilinear(Xq, Y, A, V):
    """Validate the queries, the support and the square A and V of a velocity with logits yᵀAx."""
    Xq, Y, d = _points(Xq, Y)
    return Xq, Y, _square("A", A, d), _square("V", V, d)


def _weights(w, N: int, *, need_mass: bool) -> np.ndarray:
    """Weights (N,), non-negative and finite; uniform 1/N when ``w`` is None."""
    if w is None:
        if N == 0:
            if need_mass:
                raise ValueError("Y: the empirical measure is empty (N = 0); it has no mass to normalise")
            return np.zeros(0)
        return np.full(N, 1.0 / N)
    w = _array("w", w, 1)
    if w.shape != (N,):
        raise ValueError(f"w: expected shape ({N},) to match Y, got {w.shape}")
    if np.any(w < 0):
        raise ValueError("w: weights must be non-negative")
    if need_mass and not np.sum(w) > 0:
        raise ValueError("w: total weight must be positive for a normalised velocity")
    return w


def _log_weights(w: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(w)  # log 0 = -inf: a zero weight drops out of every log-sum-exp


def _chunk(chunk, N: int) -> int:
    if chunk is None:
        return max(_MIN_ROWS, _WORK_ELEMENTS // max(N, 1))
    if isinstance(chunk, bool) or not isinstance(chunk, Integral) or chunk < 1:
        raise ValueError(f"chunk: expected a positive integer or None, got {chunk!r}")
    return int(chunk)


def _real(name: str, value, *, nonneg: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ValueError(f"{name}: expected a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    if nonneg and value < 0:
        raise ValueError(f"{name}: must be non-negative, got {value!r}")
    return value


# --------------------------------------------------------------------------- kernels


def _small_k_matmul(X, GT):
    """X @ GT; for an inner dimension d ≤ 4 as d broadcast multiply–adds, which OpenBLAS's
    GEMM handles badly (measured ~20× slower at d = 2, N = 4000)."""
    d = X.shape[1]
    if d > 4:
        return X @ GT
    L = X[:, 0:1] * GT[0:1, :]
    for k in range(1, d):
        L += X[:, k:k + 1] * GT[k:k + 1, :]
    return L


def _gibbs_mean(Xq, Y, G, bias, chunk, sq=None, sy=None):
    r"""Log-domain Gibbs average over the support, chunked over the queries.

    For each query x (row of ``Xq``) with logits ℓ_j(x) = G_j·x + bias_j (``G`` is (N, d),
    ``bias`` (N,), possibly -inf), return

        mean(x) = Σ_j e^{ℓ_j} y_j / Σ_j e^{ℓ_j},    lse(x) = log Σ_j e^{ℓ_j}.

    With positions (``sq``, ``sy``) the support points with sy_j > sq(x) are removed.
    Rows whose logits are all -inf (empty cone, or no mass) get mean 0 and lse -inf.
    """
    M, d = Xq.shape
    N = Y.shape[0]
    mean = np.zeros((M, d))
    lse = np.full(M, -np.inf)
    if M == 0 or N == 0:
        return mean, lse
    GT = np.ascontiguousarray(G.T)
    for start in range(0, M, chunk):
        stop = min(start + chunk, M)
        L = _small_k_matmul(Xq[start:stop], GT)
        L += bias
        if sq is not None:
            L[sy[None, :] > sq[start:stop, None]] = -np.inf
        m = L.max(axis=1)
        if np.any(np.isnan(m)) or np.any(m == np.inf):
            raise ValueError("attention logits overflow float64 (inputs too large)")
        empty = m == -np.inf
        shift = np.where(empty, 0.0, m)
        L -= shift[:, None]
        np.exp(L, out=L)  # in [0, 1], the row maximum is exactly 1 unless empty
        denom = L.sum(axis=1)
        num = L @ Y
        safe = np.where(empty, 1.0, denom)
        block = num / safe[:, None]
        block[empty] = 0.0
        mean[start:stop] = block
        with np.errstate(divide="ignore"):
            lse[start:stop] = np.where(empty, -np.inf, m + np.log(safe))
    return mean, lse


# --------------------------------------------------------------------------- velocities


def softmax_velocity(Xq, Y, A, V, w=None, chunk=None) -> np.ndarray:
    r"""Softmax self-attention velocity of an empirical measure.

    .. math::

        Γ(x) = V \frac{\sum_j w_j e^{y_j^T A x} y_j}{\sum_j w_j e^{y_j^T A x}}.

    Computed with log-sum-exp: logits y_jᵀAx + log w_j are shifted by their row maximum.

    Parameters
    ----------
    Xq : array_like, shape (M, d)
        Query points.
    Y : array_like, shape (N, d)
        Support of μ^N.
    A : array_like, shape (d, d)
        Attention matrix KᵀQ, already scaled.
    V : array_like, shape (d, d)
        Value matrix.
    w : array_like, shape (N,), optional
        Non-negative weights with positive sum (default uniform 1/N); only ratios matter.
    chunk : int, optional
        Queries per block (default: (chunk, N) work arrays of about 4 MB).

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, A, V = _bilinear(Xq, Y, A, V)
    w = _weights(w, Y.shape[0], need_mass=True)
    mean, _ = _gibbs_mean(Xq, Y, Y @ A, _log_weights(w), _chunk(chunk, Y.shape[0]))
    return mean @ V.T


def l2_velocity(Xq, Y, Q, K, V, w=None, scale=1.0, chunk=None) -> np.ndarray:
    r"""ℓ2 (distance-kernel) self-attention velocity of an empirical measure.

    .. math::

        Γ(x) = V \frac{\sum_j w_j e^{-s|Qx - K y_j|^2} y_j}{\sum_j w_j e^{-s|Qx - K y_j|^2}},
        \qquad s = \text{scale}.

    The factor e^{-s|Qx|²} is common to a row and cancels, so the logits used are
    2s (Qx)·(Ky_j) − s|Ky_j|² + log w_j (no cancellation of large squared norms), shifted
    by their row maximum (log-sum-exp).  For Gaussian μ = N(α, Σ) the limit is
    V(I + 2sΣKᵀK)⁻¹(α + 2sΣKᵀQx) (docs/mathematics.md §3).

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    Y : array_like, shape (N, d)
    Q, K : array_like, shape (k, d)
        Query and key matrices (same k ≥ 1).
    V : array_like, shape (d, d)
    w : array_like, shape (N,), optional
        Non-negative weights with positive sum (default uniform).
    scale : float, default 1.0
        Non-negative inverse temperature s.
    chunk : int, optional

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, d = _points(Xq, Y)
    Q = _array("Q", Q, 2)
    K = _array("K", K, 2)
    if Q.shape[1] != d or Q.shape[0] < 1:
        raise ValueError(f"Q: expected shape (k, {d}) with k >= 1, got {Q.shape}")
    if K.shape != Q.shape:
        raise ValueError(f"K: expected the shape of Q, {Q.shape}, got {K.shape}")
    V = _square("V", V, d)
    s = _real("scale", scale, nonneg=True)
    w = _weights(w, Y.shape[0], need_mass=True)
    KY = Y @ K.T  # rows K y_j, shape (N, k)
    G = (2.0 * s) * (KY @ Q)  # G_j · x = 2s (K y_j)·(Q x)
    bias = _log_weights(w) - s * np.einsum("ij,ij->i", KY, KY)
    mean, _ = _gibbs_mean(Xq, Y, G, bias, _chunk(chunk, Y.shape[0]))
    return mean @ V.T


def linear_velocity(Xq, Y, A, V, w=None) -> np.ndarray:
    r"""Linear-attention velocity of an empirical measure.

    .. math::

        Γ(x) = V \sum_j w_j (y_j^T A x)\, y_j = V M_2 A x, \qquad
        M_2 = \sum_j w_j y_j y_j^T = Y^T \operatorname{diag}(w) Y.

    Computed as ``Xq @ (V @ M2 @ A).T`` with ``M2 = (Y * w[:, None]).T @ Y``.

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    Y : array_like, shape (N, d)
    A, V : array_like, shape (d, d)
    w : array_like, shape (N,), optional
        Non-negative weights (default uniform 1/N), used as given (not normalised).

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, A, V = _bilinear(Xq, Y, A, V)
    w = _weights(w, Y.shape[0], need_mass=False)
    M2 = (Y * w[:, None]).T @ Y
    J = V @ M2 @ A
    return Xq @ J.T


def unnormalised_velocity(Xq, Y, A, V, w=None, chunk=None) -> np.ndarray:
    r"""Unnormalised exponential-attention velocity of an empirical measure.

    .. math::

        Γ(x) = V \sum_j w_j e^{y_j^T A x} y_j
             = e^{\operatorname{lse}(x)}\; V\, \mathrm{mean}(x),\qquad
        \operatorname{lse}(x) = \log \sum_j w_j e^{y_j^T A x},

    mean(x) being the softmax average.  Each output component is formed as
    sign(c)·exp(lse + log|c|) with c = (V mean(x))_i, so it overflows to ±inf only when
    the true component exceeds the float64 range (and underflows to 0 only when it is
    below it); intermediate exponentials never overflow.

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    Y : array_like, shape (N, d)
    A, V : array_like, shape (d, d)
    w : array_like, shape (N,), optional
        Non-negative weights (default uniform 1/N), used as given.
    chunk : int, optional

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, A, V = _bilinear(Xq, Y, A, V)
    w = _weights(w, Y.shape[0], need_mass=False)
    mean, lse = _gibbs_mean(Xq, Y, Y @ A, _log_weights(w), _chunk(chunk, Y.shape[0]))
    c = mean @ V.T
    with np.errstate(divide="ignore", over="ignore"):
        return np.sign(c) * np.exp(lse[:, None] + np.log(np.abs(c)))


def sigmoid_velocity(Xq, Y, A, V, bias=0.0, w=None, chunk=None) -> np.ndarray:
    r"""Sigmoid-attention velocity of an empirical measure.

    .. math::

        Γ(x) = V \sum_j w_j\, σ(y_j^T A x + b_0)\, y_j, \qquad σ(t) = 1/(1 + e^{-t}),

    with σ evaluated by :func:`scipy.special.expit` (stable for all t).

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    Y : array_like, shape (N, d)
    A, V : array_like, shape (d, d)
    bias : float, default 0.0
        The constant b₀.
    w : array_like, shape (N,), optional
        Non-negative weights (default uniform 1/N), used as given.
    chunk : int, optional

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, A, V = _bilinear(Xq, Y, A, V)
    b0 = _real("bias", bias)
    w = _weights(w, Y.shape[0], need_mass=False)
    step = _chunk(chunk, Y.shape[0])
    GT = np.ascontiguousarray((Y @ A).T)
    WY = Y * w[:, None]
    out = np.zeros(Xq.shape)
    for start in range(0, Xq.shape[0], step):
        S = Xq[start:start + step] @ GT
        S += b0
        expit(S, out=S)
        out[start:start + step] = S @ WY
    return out @ V.T


def masked_velocity(Xq, sq, Y, sy, A, V, w=None, chunk=None) -> np.ndarray:
    r"""Causally masked softmax velocity: a query attends only to earlier positions.

    Tokens carry positions s ∈ [0, 1].  A query x at position s attends to the cone
    C(s) = {j : s_j ≤ s} (comparison of the float positions, ties included):

    .. math::

        Γ(x, s) = V \frac{\sum_{j: s_j \le s} w_j e^{y_j^T A x} y_j}
                        {\sum_{j: s_j \le s} w_j e^{y_j^T A x}},

    and Γ(x, s) = 0 when the cone carries no mass (empty, or all its weights are zero).
    With all positions equal this is :func:`softmax_velocity`.

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    sq : array_like, shape (M,)
        Query positions in [0, 1].
    Y : array_like, shape (N, d)
    sy : array_like, shape (N,)
        Support positions in [0, 1].
    A, V : array_like, shape (d, d)
    w : array_like, shape (N,), optional
        Non-negative weights (default uniform); only ratios within a cone matter.
    chunk : int, optional

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, d = _points(Xq, Y)
    sq = _array("sq", sq, 1)
    sy = _array("sy", sy, 1)
    if sq.shape != (Xq.shape[0],):
        raise ValueError(f"sq: expected shape ({Xq.shape[0]},) to match Xq, got {sq.shape}")
    if sy.shape != (Y.shape[0],):
        raise ValueError(f"sy: expected shape ({Y.shape[0]},) to match Y, got {sy.shape}")
    for name, s in (("sq", sq), ("sy", sy)):
        if np.any((s < 0) | (s > 1)):
            raise ValueError(f"{name}: positions must lie in [0, 1]")
    A = _square("A", A, d)
    V = _square("V", V, d)
    w = _weights(w, Y.shape[0], need_mass=False)
    mean, _ = _gibbs_mean(
        Xq, Y, Y @ A, _log_weights(w), _chunk(chunk, Y.shape[0]), sq=sq, sy=sy
    )
    return mean @ V.T


# --------------------------------------------------------------------------- Sinkhorn


@dataclass(frozen=True, eq=False)
class SinkhornResult:
    r"""Entropic self-coupling of μ^N with itself (output of :func:`sinkhorn_potential`).

    The coupling is π_ij = w_i w_j exp(f_i + g_j + y_jᵀ A y_i) (row i: query y_i, column
    j: key y_j).  The pair (f, g) is defined up to (f + c, g − c); the returned pair is
    normalised so that Σ w_i f_i = Σ w_j g_j, hence f = g when A is symmetric.

    Attributes
    ----------
    f, g : ndarray, shape (N,)
        Log-domain potentials (read-only arrays).
    iterations : int
        Number of f-updates performed.
    marginal_error : float
        max(Σ_i |Σ_j π_ij − w_i|, Σ_j |Σ_i π_ij − w_j|) for the returned (f, g).
    converged : bool
        ``marginal_error < tol``.
    """

    f: np.ndarray
    g: np.ndarray
    iterations: int
    marginal_error: float
    converged: bool


def _lse_(L: np.ndarray, axis: int) -> np.ndarray:
    """log Σ exp(L) along ``axis``, computed in place (L is overwritten).

    Same result as :func:`scipy.special.logsumexp` (max-shifted; all -inf → -inf) but
    without its temporaries, which make it ~30× slower on large work arrays.
    """
    m = L.max(axis=axis, keepdims=True)
    m[~np.isfinite(m)] = 0.0
    L -= m
    np.exp(L, out=L)
    with np.errstate(divide="ignore"):
        return np.log(L.sum(axis=axis)) + np.squeeze(m, axis=axis)


def _lse_rows(Y, B, b, C, chunk):
    """L_i = logsumexp_j(b_j + y_jᵀ B y_i); uses the precomputed C_ij = y_jᵀ B y_i if given."""
    if C is not None:
        return _lse_(C + b[None, :], axis=1)
    GT = np.ascontiguousarray((Y @ B).T)
    out = np.empty(Y.shape[0])
    for start in range(0, Y.shape[0], chunk):
        L = Y[start:start + chunk] @ GT
        L += b
        out[start:start + chunk] = _lse_(L, axis=1)
    return out


def _lse_cols(Y, B, b, C, chunk):
    """L'_j = logsumexp_i(b_i + y_jᵀ B y_i)."""
    if C is not None:
        return _lse_(C + b[:, None], axis=0)
    return _lse_rows(Y, B.T, b, None, chunk)  # y_jᵀ B y_i = y_iᵀ Bᵀ y_j


def sinkhorn_potential(Y, A, w=None, tol=1e-10, max_iter=10000) -> SinkhornResult:
    r"""Entropic (ε = 1) self-coupling of μ^N = Σ_j w_j δ_{y_j} for the kernel e^{yᵀAx}.

    Find potentials f, g with

    .. math::

        π_{ij} = w_i w_j \exp(f_i + g_j + y_j^T A y_i), \qquad
        \sum_j π_{ij} = w_i, \quad \sum_i π_{ij} = w_j,

    by alternating log-domain (max-shifted log-sum-exp) updates

    .. math::

        f_i \leftarrow -\log \sum_j w_j e^{g_j + y_j^T A y_i}, \qquad
        g_j \leftarrow -\log \sum_i w_i e^{f_i + y_j^T A y_i},

    starting from g = 0, until the L1 marginal error max(Σ_i|Σ_jπ_ij − w_i|,
    Σ_j|Σ_iπ_ij − w_j|) is below ``tol``.  The (N, N) kernel matrix is stored when it
    fits in about 64 MB, otherwise rows are recomputed in chunks.  Zero weights are
    allowed: such points carry no mass but still receive the (extension) potentials.

    Parameters
    ----------
    Y : array_like, shape (N, d)
    A : array_like, shape (d, d)
    w : array_like, shape (N,), optional
        Non-negative weights with positive sum (default uniform 1/N).
    tol : float, default 1e-10
        Target L1 marginal error (positive).
    max_iter : int, default 10000
        Maximum number of f-updates.

    Returns
    -------
    SinkhornResult
        Never raises on non-convergence: check ``converged``/``marginal_error``.
    """
    Y = _array("Y", Y, 2)
    N, d = Y.shape
    if d == 0:
        raise ValueError("Y: token dimension d must be at least 1")
    A = _square("A", A, d)
    w = _weights(w, N, need_mass=True)
    tol = _real("tol", tol)
    if not tol > 0:
        raise ValueError(f"tol: must be positive, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, Integral) or max_iter < 1:
        raise ValueError(f"max_iter: expected a positive integer, got {max_iter!r}")

    logw = _log_weights(w)
    chunk = _chunk(None, N)
    C = (Y @ A.T) @ Y.T if N * N <= _STORE_ELEMENTS else None  # C_ij = y_jᵀ A y_i
    if C is not None and not np.all(np.isfinite(C)):
        raise ValueError("Sinkhorn kernel exponents y_jᵀ A y_i overflow float64")

    def col_error(f, g):
        Lc = _lse_cols(Y, A, logw + f, C, chunk)
        return float(np.sum(w * np.abs(np.expm1(g + Lc)))), Lc

    g = np.zeros(N)
    iterations = 0
    while True:
        iterations += 1
        f = -_lse_rows(Y, A, logw + g, C, chunk)
        err, Lc = col_error(f, g)
        if err < tol or iterations >= max_iter:
            break
        g = -Lc
    row_err = float(np.sum(w * np.abs(np.expm1(f + _lse_rows(Y, A, logw + g, C, chunk)))))
    marginal_error = max(row_err, err)

    # gauge: equal weighted means of f and g (π is unchanged by f + c, g − c)
    c = 0.5 * (np.dot(w, g) - np.dot(w, f)) / np.sum(w)
    f = f + c
    g = g - c
    f.setflags(write=False)
    g.setflags(write=False)
    return SinkhornResult(
        f=f,
        g=g,
        iterations=iterations,
        marginal_error=marginal_error,
        converged=bool(marginal_error < tol),
    )


def sinkhorn_velocity(
    Xq, Y, A, V, w=None, potential=None, tol=1e-10, max_iter=10000, chunk=None
) -> np.ndarray:
    r"""Sinkhorn-attention velocity (ε = 1) of an empirical measure.

    .. math::

        Γ(x) = V \int y\, π(dy \mid x), \qquad
        π(y_j \mid x) = \frac{w_j e^{g_j + y_j^T A x}}{\sum_l w_l e^{g_l + y_l^T A x}},

    the out-of-sample extension of the conditional of the self-coupling computed by
    :func:`sinkhorn_potential`.  At a support point x = y_i it equals
    Σ_j π_ij y_j / w_i, the conditional of the discrete coupling.  For Gaussian μ the
    limit is V(α + (Σ⁻¹+R)⁻¹A(x − α)) (docs/mathematics.md §3).

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    Y : array_like, shape (N, d)
    A, V : array_like, shape (d, d)
    w : array_like, shape (N,), optional
        Non-negative weights with positive sum (default uniform).
    potential : SinkhornResult or array_like of shape (N,), optional
        The column potential g (or a result holding it); computed with
        ``sinkhorn_potential(Y, A, w, tol, max_iter)`` when omitted, with a
        :class:`RuntimeWarning` if that computation does not converge.
    tol, max_iter :
        Passed to :func:`sinkhorn_potential` when ``potential`` is None.
    chunk : int, optional

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq, Y, A, V = _bilinear(Xq, Y, A, V)
    w = _weights(w, Y.shape[0], need_mass=True)
    if potential is None:
        res = sinkhorn_potential(Y, A, w, tol=tol, max_iter=max_iter)
        if not res.converged:
            warnings.warn(
                f"Sinkhorn did not converge in {res.iterations} iterations "
                f"(marginal error {res.marginal_error:.3g} >= tol {tol:.3g})",
                RuntimeWarning,
                stacklevel=2,
            )
        g = res.g
    else:
        g = _array("potential", potential.g if isinstance(potential, SinkhornResult) else potential, 1)
        if g.shape != (Y.shape[0],):
            raise ValueError(f"potential: expected g of shape ({Y.shape[0]},), got {g.shape}")
    mean, _ = _gibbs_mean(Xq, Y, Y @ A, _log_weights(w) + g, _chunk(chunk, Y.shape[0]))
    return mean @ V.T


# --------------------------------------------------------------------------- drift


def drift_velocity(Xq, F, b) -> np.ndarray:
    r"""Affine feed-forward drift Γ(x) = F x + b (Alcalde–Ji–Zuazua, docs/mathematics.md §6).

    Parameters
    ----------
    Xq : array_like, shape (M, d)
    F : array_like, shape (d, d), or None
        None means F = 0.
    b : array_like, shape (d,), or None
        None means b = 0.

    Returns
    -------
    ndarray, shape (M, d)
    """
    Xq = _array("Xq", Xq, 2)
    d = Xq.shape[1]
    out = np.zeros(Xq.shape)
    if F is not None:
        out += Xq @ _square("F", F, d).T
    if b is not None:
        b = _array("b", b, 1)
        if b.shape != (d,):
            raise ValueError(f"b: expected shape ({d},), got {b.shape}")
        out += b
    return out
