r"""Integration of a problem with depth-dependent parameters, phase by phase.

A schedule (docs/schedules.md) cuts [0, T] into segments on which the parameters are one
function of t (:func:`symbolic_tf.spec.schedule.segments`).  The moment flow is the composition
of the segment flows, Σ(t) = Φ_{[t_k, t]} ∘ … ∘ Φ_{[0, t_1]}(Σ₀), so each segment is integrated
from the state where the previous one stopped, restarting the integrator at the boundary (the
right-hand side jumps there; a restart keeps the error control honest):

* a segment with **constant** parameters runs on any backend of
  :func:`symbolic_tf.numeric.integrate.integrate` (the compiled numba kernels included);
* a segment with **polynomial-in-t** entries passes t into the right-hand side: every
  Runge–Kutta stage sees the parameters at its own time (the polynomials are shifted exactly to
  the time since the segment started; both backends, the compiled one through its ``run*t``
  loops).

A constant problem (or a schedule that never changes) is one segment: the result is then the
very integration of the constant problem.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np

from ..spec.errors import InvalidParameters
from ..spec.schedule import leaves, problem_at, segments, split_key
from .integrate import integrate
from .solution import HORIZON, Solution

__all__ = ["integrate_problem", "pieces", "local_polynomials"]


def pieces(problem, T: float) -> list[tuple[float, float, object]]:
    """[(t0, t1, segment or None)] covering [0, T] (None: the problem is constant).

    Parameters
    ----------
    problem : Problem
        Possibly with a depth schedule (docs/schedules.md).
    T : float
        Horizon.

    Returns
    -------
    list of (float, float, object)
    """
    if problem.schedule is None:
        return [(0.0, float(T), None)]
    out = []
    for seg in segments(problem.schedule):
        t0 = float(seg.t0)
        if t0 >= T:
            break
        t1 = float(T) if seg.t1 is None else min(float(seg.t1), float(T))
        out.append((t0, t1, seg))
    return out


def _shifted(c, t0: Fraction) -> list:
    """Coefficients of u ↦ p(t0 + u) from those of p (exact): Σ_{k≥j} c_k·C(k, j)·t0^{k−j}."""
    return [sum((c[k] * comb(k, j) * t0 ** (k - j) for k in range(j, len(c))), Fraction(0)) for j in range(len(c))]


def local_polynomials(problem, system, seg) -> tuple[dict, dict]:
    """(constant parameters, polynomial parameters) of a polynomial segment in the time since its
    start: name → float coefficients (n_coef, …), lowest degree first, for ``params_poly``.

    Parameters
    ----------
    problem : Problem
    system : MomentSystem
    seg : schedule segment
        A polynomial-in-t segment of the problem's schedule.

    Returns
    -------
    (dict, dict)
    """
    from .codegen import numeric_env

    env = numeric_env(problem_at(problem, seg.t0), system)
    poly = {}
    for key, val in seg.params:
        head, name = split_key(key)
        if head is not None:  # head i's parameter is the system's symbol name_{i+1}
            name = f"{name}_{head + 1}"
        if name not in env:
            continue
        shape = np.asarray(env[name]).shape
        flat = list(leaves(val))
        n = max(len(c) for c in flat)
        arr = np.zeros((n,) + shape)
        for idx, c in enumerate(flat):
            pos = np.unravel_index(idx, shape)
            for k, x in enumerate(_shifted(c, seg.t0)):
                arr[(k,) + pos] = float(x)
        poly[name] = arr
    return env, poly


def integrate_problem(problem, T: float, *, t_eval=None, rtol: float = 1e-10, atol: float = 1e-12,
                      backend: str = "auto", method: str = "dopri5", **kw) -> Solution:
    r"""Integrate a problem's moment ODE from N(mean, cov) to depth T, phase by phase.

    Parameters
    ----------
    problem : Problem
        With or without a schedule; Σ₀ = ``problem.cov``.
    T : float
        Final depth.
    t_eval : sequence of float, optional
        Global sample times in [0, T] (default [0, T]).
    rtol, atol, backend, method, **kw
        As :func:`symbolic_tf.numeric.integrate.integrate`, per segment (``stop_on_convergence``
        applies to the last segment only).

    Returns
    -------
    Solution
        One member; ``t_end``, ``n_steps`` and ``status`` over the whole schedule (the run stops
        at the first segment that does not reach its end: blow-up, failure, step budget).
    """
    from .codegen import compile_system, numeric_env
    from ..symbolic.systems import system_for_problem

    if problem.cov is None:
        raise InvalidParameters("initial.cov", "integration starts from the problem's initial Gaussian")
    system = system_for_problem(problem)
    comp = compile_system(system)
    d = problem.d
    prm = problem.numeric_params()
    a = prm["mean"] if "mean" in prm else np.zeros(d)
    S = prm["cov"]
    te = np.array([0.0, float(T)]) if t_eval is None else np.asarray(t_eval, dtype=float)
    parts = pieces(problem, float(T))
    if len(parts) == 1 and parts[0][2] is None or len(parts) == 1 and parts[0][2].constant:
        env = numeric_env(problem_at(problem, 0), system)
        with np.errstate(all="ignore"):
            return integrate(comp, a, S, env, float(T), t_eval=te, rtol=rtol, atol=atol, backend=backend,
                             method=method, **kw)
    n = len(te)
    out_a, out_S = np.empty((1, n, d)), np.empty((1, n, d, d))
    steps = rej = 0
    status, t_end, methods = HORIZON, 0.0, []
    filled = 0
    for t0, t1, seg in parts:
        local = te[(te >= t0) & (te <= t1)] - t0
        grid = np.unique(np.concatenate([[0.0], local, [t1 - t0]]))
        opts = dict(t_eval=grid, rtol=rtol, atol=atol, **kw)
        if t1 < float(T):  # convergence is a question for the last phase only
            opts["stop_on_convergence"] = False
        with np.errstate(all="ignore"):
            if seg.constant:
                env = numeric_env(problem_at(problem, seg.t0), system)
                sol = integrate(comp, a, S, env, t1 - t0, backend=backend, method=method, **opts)
            else:
                env, poly = local_polynomials(problem, system, seg)
                sol = integrate(comp, a, S, env, t1 - t0, backend=backend, method=method, params_poly=poly, **opts)
        methods.append(sol.method)
        steps += int(sol.n_steps[0])
        rej += int(sol.n_rejected[0])
        for j in range(filled, n):
            if te[j] > t1:
                break
            k = int(np.searchsorted(grid, te[j] - t0))
            k = min(k, len(grid) - 1)
            out_a[0, j], out_S[0, j] = sol.alpha[0, k], sol.Sigma[0, k]
            filled = j + 1
        a, S = sol.alpha_end[0], sol.Sigma_end[0]
        t_end = t0 + float(sol.t_end[0])
        status = int(sol.status[0])
        if status != HORIZON:
            break
    for j in range(filled, n):  # frozen after a stop, as integrate() does
        out_a[0, j], out_S[0, j] = a, S
    label = f"{len(methods)} phases: " + ", ".join(sorted(set(methods)))
    return Solution(te, out_a, out_S, np.array([status]), np.array([t_end]), a[None], S[None],
                    np.array([steps]), np.array([rej]), method=label)
