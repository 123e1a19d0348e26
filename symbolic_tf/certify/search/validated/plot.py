"""Figure of a validated tube: per entry Σ_ij (i ≤ j) the certified enclosure bands (arb balls: the
Picard boxes over every step and the step-end balls) over the float trajectory of
:func:`symbolic_tf.numeric.integrate.integrate`; written atomically."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["float_trajectory", "tube_figure"]


def float_trajectory(problem, T: float, samples: int = 400):
    """(t, Σ(t)) samples of the float moment ODE (numerical, not certified); None on failure.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem, with Σ₀.
    T : float
        The end time.
    samples : int
        The number of equally spaced sample times in [0, T].

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray) or None
        The sample times reached and Σ at them (shape (n, d, d)), or None on failure.
    """
    from ....numeric.phases import integrate_problem

    try:
        ts = np.linspace(0.0, T, samples)
        with np.errstate(all="ignore"):
            sol = integrate_problem(problem, T, t_eval=ts, rtol=1e-11, atol=1e-13)
        t_end = float(sol.t_end[0])
        keep = ts <= t_end + 1e-15
        return ts[keep], sol.Sigma[0][keep]
    except Exception:  # noqa: BLE001 - the float curve is decoration; the tube is the result
        return None


def tube_figure(tube, problem, out) -> Path:
    """Draw the tube (one panel per entry Σ_ij, i ≤ j) and write it atomically to ``out``
    (format from the suffix: png, pdf or svg).

    Parameters
    ----------
    tube : Tube
        The validated tube.
    problem : symbolic_tf.spec.problem.Problem
        Its problem (for the float trajectory drawn on top).
    out : str or pathlib.Path
        The output file.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ....atomic import atomic_target

    out = Path(out)
    fmt = out.suffix.lower().lstrip(".") or "png"
    if fmt not in ("png", "pdf", "svg"):
        fmt = "png"
    d = tube.final.nrows()
    pairs = [(i, j) for i in range(d) for j in range(i, d)]
    ncol = min(3, len(pairs))
    nrow = (len(pairs) + ncol - 1) // ncol
    fig = Figure(figsize=(4.2 * ncol, 3.0 * nrow + 0.6))
    FigureCanvasAgg(fig)
    t_end = float(tube.t_final)
    traj = float_trajectory(problem, t_end) if t_end > 0 else None
    tk = [float(t) for t in tube.times]
    for k, (i, j) in enumerate(pairs):
        ax = fig.add_subplot(nrow, ncol, k + 1)
        for s, Y in enumerate(tube.boxes):
            lo = float(Y[i, j].mid()) - float(Y[i, j].rad())
            hi = float(Y[i, j].mid()) + float(Y[i, j].rad())
            ax.fill_between([tk[s], tk[s + 1]], [lo, lo], [hi, hi], color="tab:orange", alpha=0.35, lw=0,
                            label="certified enclosure (arb)" if s == 0 else None)
        mids = [float(S[i, j].mid()) for S in tube.ends]
        ax.plot(tk, mids, "o", ms=2.5, color="tab:red", label="certified step ends (arb)")
        if traj is not None:
            ax.plot(traj[0], traj[1][:, i, j], "-", lw=1.0, color="tab:blue", label="float trajectory (numerical)")
        ax.set_xlabel("t")
        ax.set_ylabel(f"Σ_{i + 1}{j + 1}(t)")
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=7, loc="best")
    status = (f"reached T = {float(tube.T):.6g}" if tube.complete else f"stopped at t ≈ {t_end:.6g}")
    fig.suptitle(f"Σ(t): certified enclosure (arb) vs float trajectory (numerical) — {tube.steps} steps, "
                 f"{status}", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    with atomic_target(out) as tmp:
        fig.savefig(tmp, format=fmt, dpi=130)
    return out
