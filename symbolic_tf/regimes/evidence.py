"""Numerical evidence for an UNDECIDED verdict: what an accurate float integration saw.

Never a proof and never labelled as one: the dictionary returned says ``"numerical evidence"``
and describes the run (horizon, tolerances, what happened: "blows up near t ≈ 0.726",
"converges to a rank-1 limit", "still growing at t = 50").  A researcher never gets a bare
UNDECIDED.
"""
from __future__ import annotations

import numpy as np

__all__ = ["numerical_evidence"]

_MAX_STEPS = 20_000


def _rank(S: np.ndarray, rel: float = 1e-6) -> int:
    w = np.linalg.eigvalsh(0.5 * (S + S.T))
    top = max(float(np.abs(w).max()), 1e-300)
    return int((w > rel * top).sum()) if top > 1e-12 else 0


def numerical_evidence(problem, horizon: float | None = None) -> dict:
    """Integrate the problem's moment ODE (Dormand–Prince, rtol 1e-10) and summarise.

    Returns a dict with ``label`` = "numerical evidence", ``outcome`` (``"blowup"``,
    ``"converged"``, ``"horizon"``, ``"unfinished"`` (the step budget ran out first), ``"failed"``), ``t_end``, ``norm_end``, ``rank_end`` and a
    one-line ``summary``.  Any failure is reported in the summary, never raised.

    Parameters
    ----------
    problem : Problem
        A problem with its Σ₀ (``problem.cov``).
    horizon : float, optional
        The integration horizon (default: ``problem.T``, else 50).

    Returns
    -------
    dict
        The summary described above (with ``horizon`` and ``label``).
    """
    T = float(horizon) if horizon else (float(problem.T) if problem.T is not None else 50.0)
    out = {"label": "numerical evidence (float integration, not a proof)", "horizon": T}
    try:
        from ..numeric.phases import integrate_problem
        from ..numeric.solution import BLOWUP, CONVERGED, HORIZON, MAX_STEPS

        # 20 000 steps: the evidence of a slow, long growth costs seconds, not minutes (it then says so)
        opts = dict(rtol=1e-10, atol=1e-13, stop_on_convergence=True, converge_tol=1e-11, max_steps=_MAX_STEPS)
        with np.errstate(all="ignore"):  # a depth schedule is integrated phase by phase
            sol = integrate_problem(problem, T, **opts)
        st, t_end = int(sol.status[0]), float(sol.t_end[0])
        S = sol.Sigma_end[0]
        norm = float(np.linalg.norm(S))
        out.update(t_end=t_end, norm_end=norm)
        if st == BLOWUP:
            out.update(outcome="blowup", summary=f"numerical evidence: blows up near t ≈ {t_end:.6g} "
                                                 f"(‖Σ‖ > 1e8 or the step size collapsed)")
        elif st in (CONVERGED, HORIZON) and np.isfinite(norm):
            r = _rank(S)
            out["rank_end"] = r
            if st == CONVERGED:
                what = "→ 0 (collapse)" if norm < 1e-9 else f"→ a rank-{r} limit (‖Σ̇‖ ≈ 0 at t ≈ {t_end:.4g})"
                out.update(outcome="converged", summary=f"numerical evidence: Σ(t) {what}")
            else:
                out.update(outcome="horizon", summary=f"numerical evidence: no blow-up up to t = {T:g}; "
                                                      f"‖Σ(T)‖_F ≈ {norm:.4g}, numerical rank {r}")
        elif st == MAX_STEPS and np.isfinite(norm):
            out.update(outcome="unfinished", rank_end=_rank(S),
                       summary=f"numerical evidence: still evolving at t ≈ {t_end:.4g} after {_MAX_STEPS} steps "
                               f"(‖Σ‖_F ≈ {norm:.4g}, numerical rank {_rank(S)}); no outcome up to there")
        else:
            out.update(outcome="failed", summary=f"numerical evidence: the integration stopped at t ≈ {t_end:.4g}")
    except Exception as exc:  # evidence is best-effort; it must never turn a verdict into a crash
        out.update(outcome="failed", summary=f"numerical evidence unavailable ({type(exc).__name__}: {str(exc)[:100]})")
    return out
