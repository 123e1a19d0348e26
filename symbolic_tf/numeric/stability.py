r"""The Dobrushin-type stability constant C(t) for compactly supported data, and its measurement.

docs/stability.md derives, for softmax attention with an optional affine drift,

    Γ_μ(x) = V ∫ y e^{yᵀAx} dμ(y) / ∫ e^{yᵀAx} dμ(y) + F x + b      (A already scaled),

and two solutions μ_t, ν_t whose initial supports lie in the ball |x| ≤ R₀:

* support radius  R(t) = e^{kt}R₀ + |b|(e^{kt} − 1)/k,  k = ‖V‖ + ‖F‖  (R₀ + |b|t if k = 0);
* Lipschitz in x  L_x(R) = ‖F‖ + ‖V‖‖A‖R²   (D_xΓ = V Cov_{π_x}(y) A + F);
  a ReLU feed-forward term W₂ReLU(W₁x + b₁) enters like the drift, with ‖F‖ + ‖W₂‖‖W₁‖ for
  ‖F‖ and |b| + ‖W₂‖|b₁| for |b| (ReLU is 1-Lipschitz and |ReLU(z)| ≤ |z|);
* Lipschitz in μ  L_μ(R) = ‖V‖(1 + 2‖A‖R²)e^{2‖A‖R²}   (|Γ_μ(x) − Γ_ν(x)| ≤ L_μ W₁(μ, ν));
* W_p(μ_t, ν_t) ≤ C(t) W_p(μ₀, ν₀),  C(t) = exp ∫₀ᵗ (L_x + L_μ)(R(s)) ds,  every p ≥ 1.

‖·‖ is the spectral norm.  The integrand increases with s, so :func:`log_stability_constant`
evaluates the integral by an *upper* Riemann sum (right end points), which over-estimates it:
the returned log C is ≥ the exact one up to floating-point rounding.  C is astronomically
large for R₀²‖A‖ of order one or more; it is returned as log C.

:func:`measure_stability` measures the ratio W_p(μ_t, ν_t)/W_p(μ₀, ν₀) for N-token empirical
measures (exact optimal transport, :func:`~symbolic_tf.numeric.distances.wasserstein`) under
a family of perturbations ν₀ of μ₀, beside C(t).  For empirical measures the estimate holds
for the particle system itself (the proof only uses the characteristics and an optimal
coupling), so the comparison is like for like; the ratios are numerical evidence (RK4 tokens),
C(t) a proven bound evaluated in floating point.
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["StabilityBound", "stability_bound", "log_stability_constant", "perturb", "parse_perturbation",
           "measure_stability", "PERTURBATIONS"]

#: Perturbation kinds: ν₀ from the cloud X of μ₀ and a size ε (see :func:`perturb`).
PERTURBATIONS = ("shift", "scale", "noise", "rotate")


class StabilityBound:
    """The constants of the estimate for one problem (spectral norms as floats)."""

    def __init__(self, normA: float, normV: float, normF: float, normb: float):
        self.normA, self.normV, self.normF, self.normb = normA, normV, normF, normb

    def radius(self, R0: float, t):
        """R(t) = e^{kt}R₀ + |b|(e^{kt} − 1)/k (k = ‖V‖ + ‖F‖), the bound on the support radius.

        Parameters
        ----------
        R0 : float
            Initial support radius.
        t : float or ndarray

        Returns
        -------
        float or ndarray
        """
        t = np.asarray(t, dtype=float)
        k = self.normV + self.normF
        if k == 0:
            return R0 + self.normb * t
        return np.exp(k * t) * R0 + self.normb * np.expm1(k * t) / k

    def rate(self, R):
        """L_x(R) + L_μ(R) (docs/stability.md).

        Parameters
        ----------
        R : float or ndarray
            Support radius.

        Returns
        -------
        float or ndarray
        """
        R2A = self.normA * np.asarray(R, dtype=float) ** 2
        return self.normF + self.normV * R2A + self.normV * (1 + 2 * R2A) * np.exp(2 * R2A)

    def to_dict(self) -> dict:
        """The norms as JSON-ready data.

        Returns
        -------
        dict
        """
        return {"norm_A": self.normA, "norm_V": self.normV, "norm_F": self.normF, "norm_b": self.normb}


def _softmax_declared(variant) -> bool:
    """The variant declares the softmax kernel e^{τyᵀAx}, row normalisation, one head, no mask."""
    return _declared_softmax_kernel(type(variant))


@functools.lru_cache(maxsize=None)
def _declared_softmax_kernel(cls) -> bool:
    import sympy as sp

    variant = cls()

    from ..variants.base import ROW, bilinear

    if variant.composite or variant.causal or variant.normalisation != ROW or tuple(variant.matrices) != ("A", "V"):
        return False
    d = 2
    x, y = sp.Matrix(sp.symbols("x0:2")), sp.Matrix(sp.symbols("y0:2"))
    P = {"A": sp.Matrix(d, d, sp.symbols("a0:4")), "V": sp.Matrix(d, d, sp.symbols("v0:4")), "scale": sp.Symbol("tau")}
    try:
        k = sp.sympify(variant.kernel(x, y, P)).doit()
    except Exception:  # a declaration that needs other parameters: not this kernel
        return False
    return sp.simplify(k - sp.exp(bilinear(x, y, P).doit())) == 0 and variant.value(P) == P["V"]


def stability_bound(problem) -> StabilityBound:
    """The norms entering C(t); refuses variants other than softmax (+ affine drift).

    A piecewise-constant depth schedule gives the largest norm of each parameter over its phases:
    R(t) and L_x + L_μ increase with every norm, so the bound of the largest norms dominates the
    phase-by-phase one at every depth.  Entries polynomial in t are refused (their norms are not
    bounded by one constant).

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    StabilityBound
        Spectral norms of A, V, F and |b| (floats rounded up).

    Raises
    ------
    InvalidParameters
        For a variant other than softmax (+ affine drift), or a schedule polynomial in t.
    """
    if getattr(problem, "schedule", None) is not None:
        from ..spec.schedule import problem_at, segments

        segs = segments(problem.schedule)
        if not all(seg.constant for seg in segs):
            raise InvalidParameters("phase", "the stability constant covers piecewise-constant schedules only: "
                                             "an entry polynomial in t has no single bound on its norm")
        parts = [_constant_bound(problem_at(problem, seg.t0)) for seg in segs]
        return StabilityBound(*(max(getattr(b, k) for b in parts) for k in ("normA", "normV", "normF", "normb")))
    return _constant_bound(problem)


def _constant_bound(problem) -> StabilityBound:
    """The norms of a problem with constant parameters."""
    from .. import variants

    v = variants.bind(problem)
    if not _softmax_declared(v):
        raise InvalidParameters("variant", f"the stability constant is derived for softmax attention (+ affine drift) "
                                           f"only (docs/stability.md), not {v.name!r}")
    P = v.numeric_params(v.exact_params(problem))
    prm = problem.numeric_params()
    nF = 0.0 if problem.F is None else float(np.linalg.norm(prm["F"], 2))
    nb = 0.0 if problem.b is None else float(np.linalg.norm(prm["b"]))
    relu = getattr(problem, "relu", None)
    if relu is not None:  # W2·ReLU(W1 x + b1): Lipschitz ‖W2‖‖W1‖, |g(x)| ≤ ‖W2‖(‖W1‖|x| + |b1|)
        n1 = float(np.linalg.norm(np.array(relu.W1, dtype=float), 2))
        n2 = float(np.linalg.norm(np.array(relu.W2, dtype=float), 2))
        nF += n2 * n1
        nb += n2 * float(np.linalg.norm(np.array([float(e) for e in relu.b1])))
    up = 1 + 1e-12  # spectral norms are computed in floats: round them up
    return StabilityBound(float(np.linalg.norm(P["A"], 2)) * up, float(np.linalg.norm(P["V"], 2)) * up, nF * up,
                          nb * up)


def log_stability_constant(bound: StabilityBound, R0: float, t, substeps: int = 4096) -> np.ndarray:
    """log C(t) at the (increasing, ≥ 0) times ``t`` by an upper Riemann sum on a fine grid.

    Parameters
    ----------
    bound : StabilityBound
    R0 : float
        Initial support radius.
    t : array_like
        Increasing times ≥ 0.
    substeps : int
        Grid cells of the Riemann sum.

    Returns
    -------
    ndarray
    """
    t = np.atleast_1d(np.asarray(t, dtype=float))
    if t.size == 0 or np.any(t < 0) or np.any(np.diff(t) < 0) or not np.all(np.isfinite(t)):
        raise InvalidParameters("t", "expected finite, non-negative, increasing times")
    if not (math.isfinite(R0) and R0 >= 0):
        raise InvalidParameters("R0", f"the support radius must be finite and >= 0, got {R0!r}")
    grid = np.linspace(0.0, float(t[-1]), substeps + 1)
    with np.errstate(over="ignore"):
        rates = bound.rate(bound.radius(R0, grid[1:]))  # right end points: the integrand increases
    cum = np.concatenate([[0.0], np.cumsum(rates * np.diff(grid))])
    # value at t: the cumulative sum at the first grid point ≥ t (over-estimates the integral)
    idx = np.minimum(np.searchsorted(grid, t, side="left"), grid.size - 1)
    return cum[idx]


def parse_perturbation(text: str) -> tuple[str, float]:
    """``"shift:0.05"`` → ("shift", 0.05); the kinds are :data:`PERTURBATIONS`.

    Parameters
    ----------
    text : str

    Returns
    -------
    (str, float)

    Raises
    ------
    InvalidParameters
        For an unknown kind or a bad size.
    """
    kind, _, eps = str(text).partition(":")
    if kind not in PERTURBATIONS:
        raise InvalidParameters("--perturb", f"expected KIND:EPS with KIND one of {', '.join(PERTURBATIONS)}, got {text!r}")
    try:
        e = float(eps)
    except ValueError:
        raise InvalidParameters("--perturb", f"expected KIND:EPS with a number EPS, got {text!r}") from None
    if not (math.isfinite(e) and e > 0):
        raise InvalidParameters("--perturb", f"EPS must be finite and positive, got {text!r}")
    return kind, e


def perturb(X: np.ndarray, kind: str, eps: float, rng: np.random.Generator) -> np.ndarray:
    """ν₀ from the cloud of μ₀: ``shift`` by ε along a random unit vector, ``scale`` by 1 + ε about 0,
    ``noise`` (i.i.d. N(0, ε²I) per token), ``rotate`` by the angle ε in the first two coordinates.

    Parameters
    ----------
    X : ndarray, (N, d)
    kind : str
    eps : float
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, (N, d)
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    if kind == "shift":
        u = rng.standard_normal(d)
        return X + eps * u / np.linalg.norm(u)
    if kind == "scale":
        return (1 + eps) * X
    if kind == "noise":
        return X + eps * rng.standard_normal(X.shape)
    if kind == "rotate":
        if d < 2:
            raise InvalidParameters("--perturb", "rotate needs d >= 2")
        c, s = math.cos(eps), math.sin(eps)
        Y = X.copy()
        Y[:, 0], Y[:, 1] = c * X[:, 0] - s * X[:, 1], s * X[:, 0] + c * X[:, 1]
        return Y
    raise InvalidParameters("--perturb", f"unknown perturbation {kind!r}")


def measure_stability(problem, T: float, perturbations=(("shift", 0.05), ("scale", 0.05), ("noise", 0.05),
                                                      ("rotate", 0.05)),
                      N: int = 200, seeds=(0, 1, 2), steps: int = 100, n_save: int = 10, p: float = 2) -> dict:
    """Measured W_p(μ_t, ν_t)/W_p(μ₀, ν₀) for N-token clouds against C(t) (see the module docstring).

    μ₀ is N tokens from the problem's initial law (seeded); every (seed, perturbation) gives ν₀,
    both clouds are simulated with RK4 (``steps`` steps to T) and compared with exact OT at
    ``n_save`` + 1 times.  C(t) uses R₀ = the largest norm ‖x‖ over both initial clouds.

    Parameters
    ----------
    problem : Problem
    T : float
    perturbations : sequence of (str, float)
    N : int
    seeds : sequence of int
    steps, n_save : int
    p : float
        Order of W_p.

    Returns
    -------
    dict
        Times, the measured ratios per perturbation and seed, and C(t) (numerical evidence).
    """
    from .distances import wasserstein
    from .particles import sample_initial, simulate

    bound = stability_bound(problem)
    T = float(T)
    if not (math.isfinite(T) and T > 0):
        raise InvalidParameters("T", f"must be finite and positive, got {T!r}")
    if not isinstance(N, int) or N < 1:
        raise InvalidParameters("N", f"expected a positive integer, got {N!r}")
    every = max(1, steps // n_save)
    t0 = time.perf_counter()
    rows = []
    for seed in seeds:
        X0, _ = sample_initial(problem, N, np.random.default_rng(seed))
        run_mu = simulate(problem, X0, T, steps=steps, save_every=every)
        for j, (kind, eps) in enumerate(perturbations):
            Y0 = perturb(X0, kind, eps, np.random.default_rng([seed, j]))
            run_nu = simulate(problem, Y0, T, steps=steps, save_every=every)
            if run_mu.nonfinite or run_nu.nonfinite:
                raise InvalidParameters("T", f"the token cloud left the float64 range before T = {T}; choose a shorter T")
            W = np.array([wasserstein(a, b, p, method="exact")["value"] for a, b in zip(run_mu.X, run_nu.X)])
            R0 = float(max(np.linalg.norm(X0, axis=1).max(), np.linalg.norm(Y0, axis=1).max()))
            logC = log_stability_constant(bound, math.nextafter(R0, math.inf), run_mu.t)
            ratio = W / W[0] if W[0] > 0 else np.full_like(W, np.nan)
            rows.append({"seed": int(seed), "perturbation": f"{kind}:{eps:g}", "R0": R0, "W0": float(W[0]),
                         "W": W.tolist(), "ratio": ratio.tolist(), "log_C": logC.tolist(),
                         "sound": bool(np.all(np.log(ratio[1:]) <= logC[1:])) if W[0] > 0 else True})
    t = run_mu.t
    log_ratio_max = np.nanmax(np.log(np.array([r["ratio"] for r in rows])), axis=0)
    logCs = np.array([r["log_C"] for r in rows])
    # looseness of the tightest run: each run against its own C (its own R₀)
    gaps = [r["log_C"][-1] - math.log(r["ratio"][-1]) for r in rows if r["W0"] > 0]
    return {
        "T": T, "N": N, "p": float(p), "steps": steps, "seeds": [int(s) for s in seeds],
        "perturbations": [f"{k}:{e:g}" for k, e in perturbations], "t": t.tolist(),
        "bound": bound.to_dict(), "runs": rows,
        "log_ratio_max": log_ratio_max.tolist(), "log_C_min": logCs.min(axis=0).tolist(),
        "log_C_max": logCs.max(axis=0).tolist(),
        "looseness_log10_at_T": float(min(gaps) / math.log(10)) if gaps else math.nan,
        "all_sound": all(r["sound"] for r in rows),
        "distance": "exact OT (ot.emd2) between the N-token empirical measures",
        "label": "numerical evidence (measured ratios, RK4 tokens); C(t) is the proven bound of docs/stability.md "
                 "evaluated in floating point (upper Riemann sum)",
        "seconds": time.perf_counter() - t0,
    }
