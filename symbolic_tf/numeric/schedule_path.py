"""Float samples of the moment flow along a piecewise-constant steering schedule (for figures).

Each phase k holds constant controls (A_k, V_k, F_k, b_k) for a duration τ_k; the softmax flow
with affine drift F x + b is integrated phase after phase (batched integrator, restarted at
every boundary), from the state where the previous phase stopped.
"""
from __future__ import annotations

import numpy as np

from ..exact.rational import decimal_fraction, float_of

__all__ = ["schedule_path", "gaussian_floats"]


def schedule_path(schedule, mean0, cov0, samples: int = 8) -> list:
    """Float samples (t, mean, cov) along a schedule (batched integrator on each phase).

    Parameters
    ----------
    schedule : sequence of phases
        Each with exact ``A``, ``V``, ``F`` (d × d), ``b`` (d) and ``duration``.
    mean0, cov0 : sequence
        The initial mean α₀ and covariance Σ₀ (exact or float entries).
    samples : int
        Sample times per phase, both ends included.

    Returns
    -------
    list of tuple
        ``(t, alpha, Sigma)`` with float ``t`` and numpy arrays, starting at ``(0, α₀, Σ₀)``.
    """
    from ..symbolic.systems import system_for
    from .codegen import compile_system
    from .integrate import integrate

    comp = compile_system(system_for("softmax", drift=True, scale=None))
    a = np.array([float(x) for x in mean0])
    S = np.array([[float(x) for x in r] for r in cov0])
    t0, path = 0.0, [(0.0, a.copy(), S.copy())]
    for ph in schedule:
        f = lambda M: np.array([[float(x) for x in r] for r in M])  # noqa: E731
        prm = {"A": f(ph.A), "V": f(ph.V), "F": f(ph.F), "b": np.array([[float(x)] for x in ph.b]), "tau": 1.0}
        dur = float(ph.duration)
        ts = np.linspace(0, dur, samples)
        sol = integrate(comp, a, S, prm, dur, t_eval=ts, rtol=1e-10, atol=1e-12)
        for j in range(1, samples):
            path.append((t0 + ts[j], sol.alpha[0, j], sol.Sigma[0, j]))
        a, S, t0 = sol.alpha_end[0], sol.Sigma_end[0], t0 + dur
    return path


def gaussian_floats(gaussian) -> tuple:
    """A Gaussian (mean, cov) with exact entries as floats (each entry read as a fraction).

    Parameters
    ----------
    gaussian : tuple
        ``(mean, cov)``: a vector and a matrix of exact entries (Fraction, int or their strings).

    Returns
    -------
    tuple of list
        ``(mean, cov)`` as lists of floats.
    """
    mean, cov = gaussian
    return ([float_of(decimal_fraction(x)) for x in mean], [[float_of(decimal_fraction(x)) for x in r] for r in cov])
