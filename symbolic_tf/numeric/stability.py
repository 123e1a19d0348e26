r"""The Dobrushin-type stability constant C(t) of every attention variant, and its measurement.

docs/stability.md §3 derives, for a velocity field

    Γ_μ(x) + F x + b [+ W₂ReLU(W₁x + b₁)]      (Γ_μ the attention field of the problem's variant)

and two solutions μ_t, ν_t whose initial supports lie in the ball |x| ≤ R₀, the estimate

    W_p(μ_t, ν_t) ≤ C(t) W_p(μ₀, ν₀),   C(t) = exp ∫₀ᵗ ( L_x(R(s)) + ‖F‖ + L_μ(R(s)) ) ds,   every p ≥ 1,

from three facts about Γ on the ball B(R), declared per variant in
:mod:`symbolic_tf.numeric._stability_variants` (one table): |Γ_μ(x)| ≤ g·R, Γ_μ is L_x(R)-Lipschitz
in x and L_μ(R)-Lipschitz in μ for W₁.  The support radius obeys Ṙ ≤ kR + |b| with k = g + ‖F‖, so

* R(t) = e^{kt}R₀ + |b|(e^{kt} − 1)/k  (R₀ + |b|t if k = 0);
* a ReLU feed-forward term enters like the drift: ‖F‖ + ‖W₂‖‖W₁‖ for ‖F‖, |b| + ‖W₂‖|b₁| for |b|;
* masked attention: the same estimate in the conditional distance W_p^cond (mean over positions,
  with L_μ divided by m₀^{1/p}, m₀ the smallest mass of a cone {s' ≤ s}; the attention sink makes
  m₀ ≥ the sink mass) and in its supremum over positions (the softmax constant);
* a piecewise-constant depth schedule: the largest k, |b| and rate over its phases.

Variants without a constant (linear, unnormalised: the velocity outgrows the radius) and
schedules polynomial in t get a one-line reason instead of a bound
(:func:`stability_constant`).  The integrand increases with s, so
:func:`log_stability_constant` evaluates the integral by an *upper* Riemann sum (right end
points), which over-estimates it; C is astronomically large for R₀²‖A‖ of order one or more and
is returned as log C (+∞ when it overflows a float).

:func:`measure_stability` measures the ratio W_p(μ_t, ν_t)/W_p(μ₀, ν₀) for N-token empirical
measures (exact optimal transport, :func:`~symbolic_tf.numeric.distances.wasserstein`; masked:
:func:`~symbolic_tf.numeric.masked.conditional_wasserstein`) under a family of perturbations ν₀ of
μ₀, beside C(t).  For empirical measures the estimate holds for the particle system itself (the
proof only uses the characteristics and an optimal coupling), so the comparison is like for like;
the ratios are numerical evidence (RK4 tokens), C(t) a proven bound evaluated in floating point.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..spec.errors import InvalidParameters
from ._stability_variants import Context, Lipschitz, NoConstant, lipschitz_data, spectral_norm

__all__ = ["StabilityBound", "stability_bound", "stability_constant", "log_stability_constant", "perturb",
           "parse_perturbation", "measure_stability", "PERTURBATIONS"]

#: Perturbation kinds: ν₀ from the cloud X of μ₀ and a size ε (see :func:`perturb`).
PERTURBATIONS = ("shift", "scale", "noise", "rotate")


class StabilityBound:
    """The ingredients of C(t) for one problem: per phase the attention's Lipschitz data and the drift.

    ``phases`` is a list of (Lipschitz data, nF, nb): nF bounds the Lipschitz constant of the
    feed-forward terms (‖F‖ + ‖W₂‖‖W₁‖) and nb their value at 0 (|b| + ‖W₂‖|b₁|).
    """

    def __init__(self, variant: str, phases: list, distance: str = "W_p"):
        self.variant, self.phases, self.distance = variant, list(phases), distance
        self.k = max(L.grow + nF for L, nF, _ in self.phases)
        self.beta = max(nb for _, _, nb in self.phases)

    def radius(self, R0: float, t):
        """R(t) = e^{kt}R₀ + |b|(e^{kt} − 1)/k (k = g + ‖F‖), the bound on the support radius.

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
        if self.k == 0:
            return R0 + self.beta * t
        return np.exp(self.k * t) * R0 + self.beta * np.expm1(self.k * t) / self.k

    def rate(self, R):
        """L_x(R) + ‖F‖ + L_μ(R), the largest over the phases (docs/stability.md §3).

        Parameters
        ----------
        R : float or ndarray
            Support radius.

        Returns
        -------
        float or ndarray
        """
        with np.errstate(over="ignore"):
            rates = [L.lx(R) + nF + L.lmu(R) for L, nF, _ in self.phases]
        return np.maximum.reduce([np.asarray(r, dtype=float) for r in rates])

    def to_dict(self) -> dict:
        """The norms as JSON-ready data.

        Returns
        -------
        dict
        """
        return {"variant": self.variant, "distance": self.distance, "k": self.k, "norm_b": self.beta,
                "phases": [{"norms": dict(L.norms), "grow": L.grow, "norm_F": nF, "norm_b": nb}
                           for L, nF, nb in self.phases]}


def stability_constant(problem, *, p: float = 2.0, cone_mass: float = 1.0, reduce: str = "mean"):
    """The bound of C(t) for ``problem``, or the one-line reason why there is none.

    A piecewise-constant depth schedule gives, phase by phase, the data of that phase; R(t) uses
    the largest growth rate and |b| over the phases and the integrand the largest rate: each
    phase's estimate holds with larger constants, so the combined bound dominates the
    phase-by-phase one at every depth.  Entries polynomial in t have no single bound on their
    norms: no constant.

    Parameters
    ----------
    problem : Problem
    p : float
        Order of W_p (enters the masked constant through m₀^{−1/p}).
    cone_mass : float in (0, 1]
        Masked attention: the smallest λ-mass of a cone {s' ≤ s}.
    reduce : "mean" or "sup"
        Masked attention: the conditional distance W_p^cond (mean over positions) or its supremum
        over positions (then ``cone_mass`` plays no part).

    Returns
    -------
    (StabilityBound or None, str or None)
        The bound and None, or None and the reason.
    """
    from .. import variants

    if not (0 < cone_mass <= 1):
        raise InvalidParameters("cone_mass", f"expected a mass in (0, 1], got {cone_mass!r}")
    if reduce not in ("mean", "sup"):
        raise InvalidParameters("reduce", f"expected 'mean' or 'sup', got {reduce!r}")
    v = variants.bind(problem)
    if not v.causal:
        distance = "W_p"
    elif reduce == "sup":
        distance, cone_mass = "sup over positions of W_p(μ^s, ν^s)", 1.0
    else:
        distance = f"conditional W_p (mean over positions; smallest cone mass m₀ = {cone_mass:.6g})"
    ctx = Context(p=float(p), cone_mass=float(cone_mass))
    problems = [problem]
    if getattr(problem, "schedule", None) is not None:
        from ..spec.schedule import problem_at, segments

        segs = segments(problem.schedule)
        if not all(seg.constant for seg in segs):
            return None, ("the stability constant covers piecewise-constant schedules only: an entry polynomial "
                          "in t has no single bound on its norm")
        problems = [problem_at(problem, seg.t0) for seg in segs]
    try:
        phases = [_phase(q, ctx) for q in problems]
    except NoConstant as exc:
        return None, str(exc)
    return StabilityBound(v.name, phases, distance), None


def stability_bound(problem, *, p: float = 2.0, cone_mass: float = 1.0, reduce: str = "mean") -> StabilityBound:
    """The ingredients of C(t) for ``problem`` (see :func:`stability_constant`).

    Parameters
    ----------
    problem : Problem
    p : float
        Order of W_p.
    cone_mass : float in (0, 1]
        Masked attention: the smallest λ-mass of a cone.
    reduce : "mean" or "sup"
        Masked attention: which conditional distance.

    Returns
    -------
    StabilityBound

    Raises
    ------
    InvalidParameters
        When the variant or the schedule has no constant (the reason is the message).
    """
    bound, reason = stability_constant(problem, p=p, cone_mass=cone_mass, reduce=reduce)
    if bound is None:
        raise InvalidParameters("variant", reason)
    return bound


def _phase(problem, ctx: Context) -> tuple:
    """(attention data, nF, nb) of a problem with constant parameters."""
    from .. import variants

    v = variants.bind(problem)
    L: Lipschitz = lipschitz_data(v.name, v.numeric_params(v.exact_params(problem)), ctx)
    prm = problem.numeric_params()
    nF = 0.0 if problem.F is None else spectral_norm(prm["F"])
    nb = 0.0 if problem.b is None else float(np.linalg.norm(prm["b"])) * (1 + 1e-12)
    relu = getattr(problem, "relu", None)
    if relu is not None:  # W2·ReLU(W1 x + b1): Lipschitz ‖W2‖‖W1‖, |g(x)| ≤ ‖W2‖(‖W1‖|x| + |b1|)
        n1 = spectral_norm(np.array(relu.W1, dtype=float))
        n2 = spectral_norm(np.array(relu.W2, dtype=float))
        nF += n2 * n1 * (1 + 1e-12)
        nb += n2 * float(np.linalg.norm(np.array([float(e) for e in relu.b1]))) * (1 + 1e-12)
    return L, nF, nb


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


def _finite(values) -> list:
    """Floats for JSON: +∞ (an overflowing log C) becomes None."""
    return [float(x) if math.isfinite(x) else None for x in np.asarray(values, dtype=float)]


def measure_stability(problem, T: float, perturbations=(("shift", 0.05), ("scale", 0.05), ("noise", 0.05),
                                                      ("rotate", 0.05)),
                      N: int = 200, seeds=(0, 1, 2), steps: int = 100, n_save: int = 10, p: float = 2,
                      positions: str | None = None, sink: float | None = None) -> dict:
    """Measured W_p(μ_t, ν_t)/W_p(μ₀, ν₀) for N-token clouds against C(t) (see the module docstring).

    μ₀ is N tokens from the problem's initial law (seeded); every (seed, perturbation) gives ν₀,
    both clouds are simulated with RK4 (``steps`` steps to T) and compared with exact OT at
    ``n_save`` + 1 times.  C(t) uses R₀ = the largest norm ‖x‖ over both initial clouds.  Masked
    attention: both clouds sit on the same positions, drawn from the problem's ``[masked]`` marginal
    (``positions``/``sink`` override it), and the distance is W_p^cond (mean over positions, against
    the constant with m₀ = the share of the first position), with its supremum over positions
    beside it (against the softmax constant).  A variant without a constant is measured all the
    same; ``constant`` then says why there is no bound.

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
    positions : str, optional
        Masked attention: "uniform" or "grid:K" (default: the problem's ``[masked]`` table, else uniform).
    sink : float, optional
        Masked attention: the sink mass m₀ ∈ [0, 1) (default: the problem's table, else 0).

    Returns
    -------
    dict
        Times, the measured ratios per perturbation and seed, and C(t) (numerical evidence).
    """
    from .. import variants
    from .distances import wasserstein
    from .masked import conditional_wasserstein, marginal, positions as draw_positions
    from .particles import sample_initial, simulate

    T = float(T)
    if not (math.isfinite(T) and T > 0):
        raise InvalidParameters("T", f"must be finite and positive, got {T!r}")
    if not isinstance(N, int) or N < 1:
        raise InvalidParameters("N", f"expected a positive integer, got {N!r}")
    if not (math.isfinite(p) and p >= 1):
        raise InvalidParameters("p", f"expected p ≥ 1, got {p!r}")
    causal = variants.bind(problem).causal
    if not causal and (positions is not None or sink is not None):
        raise InvalidParameters("--positions" if positions is not None else "--sink",
                                f"token positions belong to masked attention; variant {problem.variant!r} has none")
    kind, m_sink = marginal(problem, positions, sink)
    every = max(1, steps // n_save)
    t0 = time.perf_counter()
    rows, reason, bound_doc, distance = [], None, None, None
    for seed in seeds:
        X0, _ = sample_initial(problem, N, np.random.default_rng(seed))
        s = draw_positions(kind, N, np.random.default_rng([seed, 2]), sink=m_sink) if causal else None
        m0 = float(np.mean(s == s.min())) if causal else 1.0
        bound, reason = stability_constant(problem, p=p, cone_mass=m0)
        bound_sup = stability_constant(problem, p=p, reduce="sup")[0] if causal else None
        if bound is not None:
            bound_doc, distance = bound.to_dict(), bound.distance
        run_mu = simulate(problem, X0, T, steps=steps, save_every=every, positions=s)
        for j, (kind_j, eps) in enumerate(perturbations):
            Y0 = perturb(X0, kind_j, eps, np.random.default_rng([seed, j]))
            run_nu = simulate(problem, Y0, T, steps=steps, save_every=every, positions=s)
            if run_mu.nonfinite or run_nu.nonfinite:
                raise InvalidParameters("T", f"the token cloud left the float64 range before T = {T}; choose a shorter T")
            pairs = list(zip(run_mu.X, run_nu.X))
            if causal:
                W = np.array([conditional_wasserstein(a, b, s, p=p) for a, b in pairs])
                Wsup = np.array([conditional_wasserstein(a, b, s, p=p, reduce="sup") for a, b in pairs])
            else:
                W = np.array([wasserstein(a, b, p, method="exact")["value"] for a, b in pairs])
            R0 = float(max(np.linalg.norm(X0, axis=1).max(), np.linalg.norm(Y0, axis=1).max()))
            R0 = math.nextafter(R0, math.inf)
            row = {"seed": int(seed), "perturbation": f"{kind_j}:{eps:g}", "R0": R0, "W0": float(W[0]),
                   "W": W.tolist(), "ratio": _ratio(W).tolist(), "log_C": None, "sound": None}
            if bound is not None:
                logC = log_stability_constant(bound, R0, run_mu.t)
                row.update(log_C=_finite(logC), sound=_sound(row["ratio"], logC))
            if causal:
                row.update(cone_mass=m0, W_sup=Wsup.tolist(), ratio_sup=_ratio(Wsup).tolist())
                logC_sup = log_stability_constant(bound_sup, R0, run_mu.t)
                row.update(log_C_sup=_finite(logC_sup), sound_sup=_sound(row["ratio_sup"], logC_sup))
            rows.append(row)
    t = run_mu.t
    with np.errstate(divide="ignore"):
        log_ratio_max = np.nanmax(np.log(np.array([r["ratio"] for r in rows], dtype=float)), axis=0)
    out = {
        "T": T, "N": N, "p": float(p), "steps": steps, "seeds": [int(s) for s in seeds],
        "perturbations": [f"{k}:{e:g}" for k, e in perturbations], "t": t.tolist(),
        "variant": variants.bind(problem).name, "log_ratio_max": log_ratio_max.tolist(),
        "constant": {"available": reason is None, "reason": reason,
                     "distance": distance or ("conditional W_p (mean over positions)" if causal else "W_p")},
        "bound": bound_doc, "runs": rows,
        "distance": ("exact per-position OT of the N-token clouds on shared positions (conditional W_p)" if causal
                     else "exact OT (ot.emd2) between the N-token empirical measures"),
        "label": "numerical evidence (measured ratios, RK4 tokens); C(t) is the proven bound of docs/stability.md "
                 "evaluated in floating point (upper Riemann sum)",
    }
    if causal:
        out["positions"] = {"kind": kind, "sink": m_sink}
    if reason is None:
        logCs = np.array([[np.inf if x is None else x for x in r["log_C"]] for r in rows])
        gaps = [logCs[i, -1] - math.log(r["ratio"][-1]) for i, r in enumerate(rows) if r["W0"] > 0]
        out.update(log_C_min=_finite(logCs.min(axis=0)), log_C_max=_finite(logCs.max(axis=0)),
                   looseness_log10_at_T=(float(min(gaps) / math.log(10)) if gaps and math.isfinite(min(gaps))
                                         else None),
                   all_sound=all(r["sound"] for r in rows))
    else:
        out.update(log_C_min=None, log_C_max=None, looseness_log10_at_T=None, all_sound=None)
    if causal:
        out["all_sound_sup"] = all(r["sound_sup"] for r in rows)
    out["seconds"] = time.perf_counter() - t0
    return out


def _ratio(W: np.ndarray) -> np.ndarray:
    """W/W[0] (NaN when the clouds start equal)."""
    return W / W[0] if W[0] > 0 else np.full_like(W, np.nan)


#: The measured ratio is a float computation (exact OT of RK4 clouds): its rounding (≈ 1e-15 relative, e.g.
#: a ratio 1 + 1e-15 when Γ = 0 and C = 1) is not a violation of the bound.
ROUNDING = 1e-9


def _sound(ratio, logC) -> bool:
    """log ratio ≤ log C + ROUNDING at every saved time after 0 (true when the clouds start equal)."""
    r = np.asarray(ratio, dtype=float)[1:]
    if np.any(np.isnan(r)):
        return True
    with np.errstate(divide="ignore"):
        return bool(np.all(np.log(r) <= np.asarray(logC, dtype=float)[1:] + ROUNDING))
