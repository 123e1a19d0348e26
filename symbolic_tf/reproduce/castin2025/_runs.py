"""Running one batch: the compiled moment systems, the integrator call and the run summaries.

A *run* is the dict :func:`integrate_run` returns for one variant and one batch of Σ₀ (sample
times, Σ(t), status, end times, step counts, seconds); :func:`run_summary` reduces it to the
JSON-ready counts and statistics the experiments report.  :func:`to_json` drops an
experiment's arrays.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np

from ...numeric.solution import BLOWUP, STATUS_NAMES
from .conventions import ATOL, BLOWUP_NORM, RTOL, finite_time_blowup

__all__ = ["STATUS", "progress_log", "system_of", "has_closed_form", "sample_times", "integrate_run",
           "status_counts", "stats", "run_summary", "jsonable", "to_json", "grid_settings", "integrator_settings"]

#: status code → name of the integrator's stopping statuses (running excluded)
STATUS = {code: name for code, name in STATUS_NAMES.items() if code}


def progress_log(progress: bool, msg: str) -> None:
    """Print ``[castin2025] msg`` to stderr when ``progress`` is set."""
    if progress:
        print(f"[castin2025] {msg}", file=sys.stderr, flush=True)


def system_of(variant: str, heads: int = 2):
    """The compiled moment system of a variant (derived once per process: :func:`system_for`).

    A composite variant (multi-head) is derived with ``heads`` softmax heads, the others as
    single-head systems (the variant's own ``composite`` declaration decides).
    """
    from ...variants import get

    from ...numeric.codegen import compile_system
    from ...symbolic.systems import system_for

    return compile_system(system_for(variant, heads=heads if get(variant).composite else None, scale=None))


def has_closed_form(variant: str, params: dict, S0, heads: int = 2) -> bool:
    """Whether the flow has the closed form of :mod:`symbolic_tf.numeric.closed_form` (α₀ = 0).

    That is single-head softmax with V = vI (Σ(t) = Σ₀(I − t·v(A+Aᵀ)Σ₀)⁻¹, docs/mathematics.md
    §4), asked of :func:`symbolic_tf.numeric.closed_form.applies`.
    """
    from ...numeric.closed_form import applies

    S0 = np.asarray(S0)
    B, d = S0.shape[0], S0.shape[-1]
    return applies(system_of(variant, heads).system, np.zeros((B, d)), params, d, B) is None


def sample_times(T: float, t_show: float | None = None, n_lin: int = 50, n_geo: int = 30):
    """Sample times: n_lin uniform points on [0, t_show], then n_geo geometric ones up to T."""
    if t_show is None or t_show >= T:
        return np.linspace(0.0, T, n_lin + n_geo)
    t = np.concatenate([np.linspace(0.0, t_show, n_lin), np.geomspace(t_show, T, n_geo + 1)[1:]])
    return np.unique(t)


def integrate_run(variant, params, S0, T, t_eval, *, heads=2, progress=False, label="", **kw) -> dict:
    """Integrate the covariance flow Σ̇ = JΣ + ΣJᵀ of one variant for a batch of Σ₀ (α₀ = 0).

    Calls :func:`symbolic_tf.numeric.integrate.integrate` with the tolerances and norm bound
    of :mod:`.conventions` unless given in ``kw``.
    """
    from ...numeric.integrate import integrate

    t0 = time.perf_counter()
    S0 = np.asarray(S0, dtype=float)
    sol = integrate(system_of(variant, heads), np.zeros(S0.shape[:2]), S0, params, float(T),
                    t_eval=t_eval, rtol=kw.pop("rtol", RTOL), atol=kw.pop("atol", ATOL),
                    blowup_norm=kw.pop("blowup_norm", BLOWUP_NORM), **kw)
    secs = time.perf_counter() - t0
    run = {"variant": variant, "t": sol.t_eval, "Sigma": sol.Sigma, "status": sol.status, "t_end": sol.t_end,
           "Sigma_end": sol.Sigma_end, "n_steps": sol.n_steps, "seconds": secs, "T": float(T)}
    counts = status_counts(sol.status)
    progress_log(progress, f"  {label}{variant}: {S0.shape[0]} Σ₀, T = {T:g}, {counts}, {secs:.1f} s")
    return run


def status_counts(status) -> dict:
    """Number of members per stopping status."""
    status = np.asarray(status)
    return {name: int(np.sum(status == code)) for code, name in STATUS.items()}


def stats(x) -> dict | None:
    """Minimum, median and maximum of the finite entries."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return None
    return {"min": float(x.min()), "median": float(np.median(x)), "max": float(x.max())}


def eigvalsh_or_nan(S):
    """Eigenvalues (ascending) of each symmetric matrix in ``S``; NaN for a matrix with a NaN entry.

    The integrator reports NaN samples past a blow-up, a failure or the step limit, where there
    is no state to read (numeric.solution.Solution).
    """
    S = np.asarray(S, dtype=float)
    out = np.full(S.shape[:-1], np.nan)
    ok = np.isfinite(S).all(axis=(-2, -1))
    if ok.any():
        out[ok] = np.linalg.eigvalsh(S[ok])
    return out


def run_summary(run: dict, S0) -> dict:
    """Counts, blow-up times, trace ratios and eigenvalue ratios at the end of a batch run.

    For a variant that cannot blow up in finite time (:func:`.conventions.finite_time_blowup`)
    a BLOWUP status means the norm bound was reached by growth, and the mean exponential rate
    to the bound is reported.
    """
    st, Se = run["status"], run["Sigma_end"]
    tr0 = np.trace(S0, axis1=-2, axis2=-1)
    tr_end = np.trace(Se, axis1=-2, axis2=-1)
    ev = eigvalsh_or_nan(Se)
    alive = st != BLOWUP
    out = {
        "members": int(st.size),
        "T": run["T"],
        "counts": status_counts(st),
        "seconds": round(run["seconds"], 3),
        "max_steps": int(run["n_steps"].max()),
        "blowup_time": stats(run["t_end"][st == BLOWUP]),
        "trace_ratio_end": stats((tr_end / tr0)[alive]),
        "eig_ratio_end": stats((ev[:, 0] / np.maximum(ev[:, -1], 1e-300))[alive]),
    }
    if not finite_time_blowup(run["variant"]):
        out["status_meaning"] = ("blowup = the norm bound was reached by growth; this variant has no "
                                 "finite-time blow-up (docs/mathematics.md §4)")
        bl = st == BLOWUP
        if np.any(bl):
            n0 = np.linalg.norm(S0[bl], axis=(1, 2))
            n1 = np.linalg.norm(Se[bl], axis=(1, 2))
            out["mean_exponential_rate_to_norm_bound"] = stats(np.log(n1 / n0) / run["t_end"][bl])
    else:
        out["status_meaning"] = "blowup = finite-time blow-up detected (‖Σ‖_F > bound or step collapse)"
    return out


def jsonable(x):
    """A JSON-ready copy: numpy arrays and scalars to Python, non-finite floats to strings."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if math.isfinite(v) else ("inf" if v > 0 else "-inf" if v < 0 else "nan")
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, (complex, np.complexfloating)):
        z = complex(x)
        return jsonable(z.real) if z.imag == 0 else f"{z.real:.6g}{z.imag:+.6g}j"
    return x


def to_json(exp: dict) -> dict:
    """The experiment dict without its arrays (``"data"``), numpy converted to plain Python."""
    return jsonable({k: v for k, v in exp.items() if k != "data"})


def grid_settings(n, half_width, S0) -> dict:
    """The record of a trace-one Σ₀ grid (:func:`.conventions.trace_one_grid`)."""
    return {"grid_n": int(n), "half_width": float(half_width), "members": int(S0.shape[0]),
            "grid": "Σ₀ = [[(1+u)/2, w/2], [w/2, (1−u)/2]], (u, w) on an n×n grid of [−h, h]², u²+w² < 1"}


def integrator_settings(**extra) -> dict:
    """The record of the integrator, its tolerances and its blow-up rule."""
    return {"integrator": "symbolic_tf.numeric.integrate (Dormand–Prince 5(4), Σ = ΦΣ₀Φᵀ)",
            "rtol": RTOL, "atol": ATOL, "blowup_norm": BLOWUP_NORM,
            "blowup_rule": "status BLOWUP when ‖Σ‖_F > blowup_norm·(‖Σ₀‖_F + 1) or the step collapses",
            **extra}
