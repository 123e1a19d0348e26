"""The mean-field check: finite-N tokens against the Gaussian moment ODE.

For each N, sample N tokens from the problem's initial Gaussian N(α₀, Σ₀), simulate the
token ODE to time T, and compare the empirical mean/covariance (α̂_N, Σ̂_N) with the moment
ODE's prediction (α(T), Σ(T)) by the Bures–Wasserstein distance

    W₂²(N(α̂,Σ̂), N(α,Σ)) = |α̂ − α|² + tr Σ̂ + tr Σ − 2 tr(Σ^{1/2} Σ̂ Σ^{1/2})^{1/2}.

Sampling fluctuations of the empirical mean and covariance are O(N^{-1/2}) (central limit
theorem), and this W₂ between two Gaussians is Lipschitz in them near Σ ≻ 0, so the log–log
slope of the mean distance against N should be ≈ −1/2 for a Gaussian-closed variant
(propagation of chaos).  (This is not the W₂ between empirical measures, whose N^{-1/d} rate
would depend on d.)  The fit is only as good as its data: ``slope_stderr`` is its standard
error over the per-seed points; a few seeds over a factor-4 range of N give slopes anywhere
from about −1 to 0.  For a
variant that does not preserve Gaussians the cloud is compared with its *own* moment-matched
Gaussian: principal excess kurtosis and Mardia's kurtosis excess b₂ − d(d+2), which
converge to a nonzero limit as N grows (instead of to 0).  The same holds for a problem whose
``[initial]`` table declares a non-Gaussian law (:mod:`symbolic_tf.spec.initial`): tokens are
sampled from it and no Gaussian prediction is made.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["MeanFieldReport", "meanfield_check"]


@dataclass
class MeanFieldReport:
    """Result of :func:`meanfield_check` (JSON-ready through :meth:`to_dict`)."""

    variant: str
    gaussian_closed: bool
    T: float
    Ns: list
    seeds: list
    steps: int
    distances: list = field(default_factory=list)      # per N: list over seeds (closed only)
    mean_distance: list = field(default_factory=list)
    slope: float | None = None
    intercept: float | None = None
    #: standard error of the slope, from the least-squares fit of log W₂ on log N over every
    #: (N, seed) point (None with fewer than three points): the seed-to-seed scatter it measures
    #: is what makes a fit over few seeds and a narrow range of N land far from −1/2
    slope_stderr: float | None = None
    kurtosis: list = field(default_factory=list)        # per N: mean principal excess kurtosis per direction
    mardia_excess: list = field(default_factory=list)   # per N: mean b₂ − d(d+2)
    prediction: dict = field(default_factory=dict)
    seconds: float = 0.0
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """The report as JSON-ready data.

        Returns
        -------
        dict
        """
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _predict(problem, T):
    """(α(T), Σ(T)) from the batched integrator (status must be HORIZON)."""
    from ..symbolic.systems import system_for_problem
    from .codegen import compile_system, numeric_env
    from .integrate import integrate
    from .solution import HORIZON, STATUS_NAMES

    system = system_for_problem(problem)
    comp = compile_system(system)
    prm = problem.numeric_params()
    a0 = prm["mean"] if "mean" in prm else np.zeros(problem.d)
    S0 = prm["cov"]
    if problem.schedule is not None:  # depth-dependent parameters: phase by phase (docs/schedules.md)
        from .phases import integrate_problem

        sol = integrate_problem(problem, T, rtol=1e-11, atol=1e-13)
    else:
        sol = integrate(comp, a0, S0, numeric_env(problem, system), T, rtol=1e-11, atol=1e-13, closed_form=True)
    if sol.status[0] != HORIZON:
        raise InvalidParameters(
            "T", f"the moment ODE stops before T = {T} ({STATUS_NAMES[int(sol.status[0])]} at "
                 f"t = {sol.t_end[0]:.6g}); choose a shorter horizon")
    return sol.alpha_end[0], sol.Sigma_end[0]


def meanfield_check(problem, Ns=(250, 500, 1000, 2000, 4000), seeds=(0, 1, 2), T=None, steps=None,
                    progress=None) -> MeanFieldReport:
    """Run the mean-field check (see module docstring).

    Parameters
    ----------
    problem : Problem with an ``initial`` Gaussian
    Ns : token counts
    seeds : one independent sample per seed and N (numpy ``default_rng(seed·1000003 + N)``)
    T : horizon (default ``problem.T``, else 1)
    steps : RK4 steps (default max(20, ⌈40·T⌉))
    progress : callable(str) for progress lines, or None

    Returns
    -------
    MeanFieldReport
    """
    from ..symbolic.closure import decide_invariance
    from ..variants import bind
    from .gaussianity import bures_wasserstein, empirical_moments, excess_kurtosis_principal, loglog_slope, mardia
    from .particles import sample_initial, simulate

    variant = bind(problem)
    law = getattr(problem, "initial_law", None)
    if problem.cov is None and law is None:
        raise InvalidParameters("initial.cov", "the mean-field check samples from the initial law")
    Ns = [int(n) for n in Ns]
    if not Ns or min(Ns) < 2:
        raise InvalidParameters("--N", "token counts must be integers ≥ 2")
    T = float(T if T is not None else (problem.T if problem.T is not None else 1))
    if not np.isfinite(T) or T <= 0:
        raise InvalidParameters("T", "horizon must be positive")
    steps = int(steps or max(20, int(np.ceil(40 * T))))
    closed = decide_invariance(variant).status == "PROVED"
    if variant.composite:
        closed = all(decide_invariance(h.variant).status == "PROVED" for h in problem.heads)
    if law is not None:  # non-Gaussian data: no moment-ODE prediction, the Gaussianity statistics only
        closed = False
    t0 = time.perf_counter()
    rep = MeanFieldReport(variant.name, closed, T, Ns, list(seeds), steps)
    if law is not None:
        rep.notes.append(f"the initial law is {law.kind!r}, not Gaussian: no moment-ODE prediction; the statistics "
                         "measure the cloud against its moment-matched Gaussian")
    if closed:
        a_T, S_T = _predict(problem, T)
        rep.prediction = {"mean": a_T.tolist(), "cov": S_T.tolist()}
    d = problem.d
    for N in Ns:
        dists, kurts, mards = [], [], []
        for seed in seeds:
            rng = np.random.default_rng(seed * 1000003 + N)
            X0, pos = sample_initial(problem, N, rng)
            run = simulate(problem, X0, T, steps=steps, positions=pos)
            if run.nonfinite:
                rep.notes.append(f"N={N}, seed={seed}: token cloud became non-finite at t={run.t[-1]:.4g}")
                continue
            m, S = empirical_moments(run.final)
            if closed:
                dists.append(bures_wasserstein(m, S, a_T, S_T))
            try:  # undefined for a degenerate cloud (e.g. Σ₀ = 0): recorded as missing
                kurts.append(excess_kurtosis_principal(run.final).tolist())
                mards.append(mardia(run.final)[1] - d * (d + 2))
            except InvalidParameters as exc:
                if not any("Gaussianity statistics" in n for n in rep.notes):
                    rep.notes.append(f"Gaussianity statistics undefined: {exc.reason}")
        rep.distances.append(dists)
        rep.mean_distance.append(float(np.mean(dists)) if dists else None)
        rep.kurtosis.append(np.nanmean(np.array(kurts), axis=0).tolist() if kurts else None)
        rep.mardia_excess.append(float(np.mean(mards)) if mards else None)
        if progress:
            msg = f"N={N}: " + (f"W2 = {rep.mean_distance[-1]:.3e}" if closed and dists else
                               f"Mardia kurtosis excess = {rep.mardia_excess[-1]:.3f}")
            progress(msg)
    if closed:
        pairs = [(n, e) for n, e in zip(Ns, rep.mean_distance) if e is not None and e > 0]
        if len(pairs) >= 2:
            rep.slope, rep.intercept = (float(v) for v in loglog_slope([p[0] for p in pairs], [p[1] for p in pairs]))
        pts = np.array([(np.log(n), np.log(e)) for n, ds in zip(Ns, rep.distances) for e in ds if e > 0])
        if len(pts) >= 3 and np.ptp(pts[:, 0]) > 0:
            x, y = pts[:, 0], pts[:, 1]
            k, c = np.polyfit(x, y, 1)
            resid = y - (k * x + c)
            rep.slope_stderr = float(np.sqrt(resid @ resid / (len(x) - 2) / np.sum((x - x.mean()) ** 2)))
    rep.seconds = time.perf_counter() - t0
    return rep
