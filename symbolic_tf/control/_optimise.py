"""Numerical search for a steering schedule when no constructive one is admissible.

Used by :func:`symbolic_tf.control.steer.steer` with ``optimise=True`` (typically under a
``max_norm`` bound that the constructive routes exceed).  The search space: K phases of equal
duration T/K; on each phase the free controls of the restriction (controls="any": F, b, A, V;
"attention": A, V; "feedforward": F, b), each a matrix/vector X parametrised as

    X = m·Y/√(1 + ‖Y‖²)      (so ‖X‖ < m strictly; X = Y without a bound),

Y unconstrained.  The objective is the end-point residual r(θ) = (α(T) − α₁, vech-weighted
Σ(T) − Σ₁) whose Euclidean norm is √(‖Δα‖² + ‖ΔΣ‖_F²), integrated phase by phase with the
project's batched Dormand–Prince integrator (:func:`symbolic_tf.numeric.integrate.integrate`,
rtol 1e-10; members that blow up or exceed 30·(1 + max|Σ|) get a constant penalty) on the
compiled softmax+drift moment system; the Jacobian by central differences is one batched
integration.  ``scipy.optimize.least_squares`` (trust-region reflective) from ``starts`` seeded
random starts, each stopped at the float integrator's noise floor (residual < ``tol``) or after
``max_nfev`` evaluations; the best schedule is rounded to exact dyadic rationals (norms
re-checked exactly) and its residual re-measured with the high-precision reference integrator.

The outcome is **numerical evidence only** — the verdict is UNDECIDED whatever the residual
(a residual of 1e-12 does not prove the target reachable within the bound, and a large one does
not prove it unreachable: the search is local).  For feed-forward schedules (every phase linear)
the residual is additionally enclosed rigorously (:func:`.certified.certify_linear_schedule`).
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from ..exact.rational import frac_str
from ..spec.verdict import UNDECIDED, Verdict
from ._certified import certify_linear_schedule
from ._mpmatrix import mp_distance
from ._schedule import Phase, SteeringResult, simulate_schedule, sq_norm, zero_matrix

__all__ = ["optimise_schedule", "optimised_result"]

_BLOCKS = {"any": ("F", "b", "A", "V"), "attention": ("A", "V"), "feedforward": ("F", "b")}


def _compiled():
    from ..numeric.codegen import compile_system
    from ..symbolic.systems import system_for

    return compile_system(system_for("softmax", drift=True, scale=None))


class _Problem:
    def __init__(self, m0, c0, m1, c1, T, controls, max_norm, phases):
        self.d = d = len(c0)
        self.a0 = np.array([float(x) for x in m0])
        self.S0 = np.array([[float(x) for x in r] for r in c0])
        self.a1 = np.array([float(x) for x in m1])
        self.S1 = np.array([[float(x) for x in r] for r in c1])
        self.T = Fraction(T)
        self.K = phases
        self.dur = float(self.T / phases)
        self.m = None if max_norm is None else float(max_norm)
        self.blocks = _BLOCKS[controls]
        self.sizes = {"F": d * d, "A": d * d, "V": d * d, "b": d}
        self.per_phase = sum(self.sizes[k] for k in self.blocks)
        self.n = self.per_phase * phases
        self.iu = np.triu_indices(d)
        w = np.where(self.iu[0] == self.iu[1], 1.0, math.sqrt(2.0))
        self.w = w
        self.comp = _compiled()
        # a member whose Σ exceeds this is hopeless (target and start are far below it)
        self.blowup = 30.0 * (1.0 + max(np.abs(self.S0).max(), np.abs(self.S1).max()))

    def controls(self, Y):
        """Y (B, n) → dict name → (B, K, …) bounded controls."""
        B = Y.shape[0]
        out = {}
        off = 0
        Yk = Y.reshape(B, self.K, self.per_phase)
        for name in self.blocks:
            sz = self.sizes[name]
            blk = Yk[:, :, off:off + sz]
            off += sz
            if self.m is not None:
                nrm = np.sqrt(1.0 + np.sum(blk * blk, axis=-1, keepdims=True))
                blk = self.m * blk / nrm
            out[name] = blk.reshape(B, self.K, self.d, self.d) if name != "b" else blk
        return out

    def end_states(self, Y):
        from ..numeric.integrate import integrate
        from ..numeric.solution import HORIZON

        B = Y.shape[0]
        d = self.d
        X = self.controls(Y)
        a = np.broadcast_to(self.a0, (B, d)).copy()
        S = np.broadcast_to(self.S0, (B, d, d)).copy()
        ok = np.ones(B, dtype=bool)
        zero = np.zeros((B, d, d))
        for k in range(self.K):
            # members that already failed rest (zero controls) instead of integrating garbage
            live = ok[:, None, None].astype(float)
            prm = {"F": X["F"][:, k] * live if "F" in X else zero,
                   "A": X["A"][:, k] * live if "A" in X else zero,
                   "V": X["V"][:, k] * live if "V" in X else zero,
                   "b": (X["b"][:, k] * live[:, :, 0] if "b" in X else np.zeros((B, d)))[..., None],
                   "tau": 1.0}
            sol = integrate(self.comp, a, S, prm, self.dur, rtol=1e-10, atol=1e-12,
                            blowup_norm=self.blowup, max_steps=4000)
            ok &= sol.status == HORIZON
            a = sol.alpha_end.copy()
            S = sol.Sigma_end.copy()
            bad = ~np.isfinite(a).all(axis=1) | ~np.isfinite(S).all(axis=(1, 2))
            ok &= ~bad
            a[~ok] = 0.0
            S[~ok] = self.S0
        return a, S, ok

    def residuals(self, Y):
        a, S, ok = self.end_states(Y)
        dS = (S - self.S1)[:, self.iu[0], self.iu[1]] * self.w
        R = np.concatenate([a - self.a1, dS], axis=1)
        R[~ok] = 1e3
        return R


def optimise_schedule(m0, c0, m1, c1, T, controls: str, max_norm=None, phases: int = 4,
                      starts: int = 3, seed: int = 0, max_nfev: int = 60,
                      tol: float = 1e-11) -> tuple[list, dict]:
    """Best piecewise-constant schedule found numerically (see the module doc): ``phases`` equal
    phases, controls squashed into the ball of radius ``max_norm`` (X = m·Y/√(1 + ‖Y‖²)), scipy
    least squares on the end-point residual from ``starts`` seeded starts.
    """
    from scipy.optimize import least_squares

    t0 = time.perf_counter()
    P = _Problem(m0, c0, m1, c1, T, controls, max_norm, phases)
    rng = np.random.default_rng(seed)

    class _Done(Exception):
        pass

    track = {}
    counts = {"fun": 0, "jac": 0}

    def fun(y):
        counts["fun"] += 1
        r = P.residuals(y[None])[0]
        n = float(np.linalg.norm(r))
        if n < track.get("best", (math.inf,))[0]:
            track["best"] = (n, y.copy())
        if n < tol:  # at the float integrator's noise floor: nothing left to gain
            raise _Done
        return r

    def jac(y):
        counts["jac"] += 1
        h = 1e-5 * (1.0 + np.abs(y))
        E = np.diag(h)
        R = P.residuals(np.concatenate([y + E, y - E], axis=0))
        return ((R[:P.n] - R[P.n:]) / (2 * h[:, None])).T

    best = None
    for s in range(max(1, starts)):
        y0 = rng.normal(scale=0.5, size=P.n)
        track.clear()
        try:
            least_squares(fun, y0, jac=jac, method="trf", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                          max_nfev=max_nfev)
        except _Done:
            pass
        res, x = track["best"]
        if best is None or res < best[0]:
            best = (res, x, s)
        if res < tol:
            break
    res, y, s_best = best
    X = P.controls(y[None])
    d = P.d
    dur = P.T / phases
    m = None if max_norm is None else Fraction(max_norm)

    def exact(arr):
        if arr.ndim == 1:
            return tuple(Fraction(float(x)) for x in arr)
        return tuple(tuple(Fraction(float(x)) for x in row) for row in arr)

    def within(x):
        # the float squashing keeps ‖X‖ < m; enforce it exactly after conversion
        while m is not None and sq_norm(x) > m * m:
            f = Fraction(1) - Fraction(1, 2 ** 40)
            x = tuple(tuple(e * f for e in r) for r in x) if x and isinstance(x[0], tuple) else tuple(e * f for e in x)
        return x

    sched = []
    for k in range(phases):
        F = within(exact(X["F"][0, k])) if "F" in X else zero_matrix(d)
        A = within(exact(X["A"][0, k])) if "A" in X else zero_matrix(d)
        V = within(exact(X["V"][0, k])) if "V" in X else zero_matrix(d)
        b = within(exact(X["b"][0, k])) if "b" in X else tuple(Fraction(0) for _ in range(d))
        sched.append(Phase(dur, F, b, A, V, f"optimised phase {k + 1}/{phases}"))
    info = {"method": "scipy.optimize.least_squares (trf), central-difference Jacobian by one batched "
                      "Dormand–Prince integration (rtol 1e-10)",
            "phases": phases, "parameters": P.n, "free_controls": list(P.blocks), "starts": starts,
            "best_start": s_best, "seed": seed, "evaluations": counts["fun"],
            "jacobians": counts["jac"], "stop_tolerance": tol,
            "residual_float": res, "seconds": round(time.perf_counter() - t0, 3),
            "max_norm": None if m is None else frac_str(m),
            "parametrisation": "X = m·Y/√(1 + ‖Y‖²) per control and phase" if m is not None else "free"}
    return sched, info


def optimised_result(constructive: SteeringResult, claim, ev, m0, c0, m1, c1, T, controls, max_norm,
                     phases: int = 4, seed: int = 0, starts: int = 3) -> SteeringResult:
    """UNDECIDED result carrying the optimised schedule, its residual (reference integration) and,
    for linear (feed-forward) schedules, a rigorous enclosure of the residual.
    """
    sched, info = optimise_schedule(m0, c0, m1, c1, T, controls, max_norm, phases=phases,
                                    starts=starts, seed=seed)
    try:
        a, S = simulate_schedule(sched, m0, c0)
        resid = mp_distance(a, S, m1, c1)
    except RuntimeError as exc:  # reference integration blew up (cannot happen for a float-verified schedule)
        resid = math.inf
        info["reference_error"] = str(exc)
    info["residual"] = resid
    cert = certify_linear_schedule(sched, m0, c0, m1, c1)
    norm = math.sqrt(float(max(p.free_norm_sq() for p in sched)))
    why = constructive.verdict.reason if constructive is not None else "no constructive schedule"
    reason = (f"numerical evidence only, residual {resid:.3g}: no constructive schedule is admissible "
              f"({why}); the best of {info['starts']} optimisation start(s) over {phases} "
              f"piecewise-constant phases ({info['parameters']} parameters, controls ≤ "
              f"{info['max_norm']}) ends at distance {resid:.3g} from the target (reference "
              f"integration) — not a proof of reachability, nor of unreachability (local search)")
    notes = [f"free-control norm {norm:.6g}", *(constructive.notes if constructive else [])]
    if cert is not None:
        notes.append(f"rigorous enclosure of the residual (linear phases, arb): ‖ΔΣ‖_F ≤ {cert['cov']:.3g}, "
                     f"‖Δα‖ ≤ {cert['mean']:.3g}")
    evs = {**ev, "schedule": [p.to_dict() for p in sched]}
    return SteeringResult(
        Verdict(UNDECIDED, claim, "numerical-optimisation", evs,
                numerical={"end_error": resid, "optimisation": info}, reason=reason),
        schedule=sched, predicted_end=None, numerical_error=resid, certified_bound=cert,
        certified_reason="" if cert is not None else "optimised schedule with attention phases: no closed form",
        exact=False, strategy="optimised", notes=notes, optimisation=info)
