r"""Experiments on non-Gaussian initial laws: how the components of a Gaussian mixture depart
from Gaussianity along the token flow (:func:`mixture_departure`, numerical evidence).

The samplers themselves live in :mod:`symbolic_tf.numeric._sampling`.
"""
from __future__ import annotations

import numpy as np

from ..spec.errors import InvalidParameters
from .gaussianity import mardia
from .particles import simulate
from ._sampling import sample_mixture

__all__ = ["mixture_departure"]


def mixture_departure(problem, T: float, N: int = 2000, steps: int = 100, n_save: int = 10, seed: int = 0) -> dict:
    """Measured departure of a mixture's components from Gaussianity over depth (numerical evidence).

    Tokens are sampled from the problem's ``mixture`` law with their component labels and moved
    by the token ODE; at each saved depth the tokens of each label are compared with their own
    moment-matched Gaussian by Mardia's kurtosis excess b₂ − d(d+2).  If the flow kept each
    component Gaussian this would stay at the sampling noise floor (its t = 0 value, about
    ±√(8d(d+2)/N_k)); the labelled components are one decomposition of the cloud, so this
    measures departure from the *transported* mixture, not from every two-component mixture
    (the exact statement is :func:`symbolic_tf.symbolic.mixture.mixture_witness`).

    Parameters
    ----------
    problem : Problem
        With an ``[initial]`` law of kind ``mixture``.
    T : float
        Depth.
    N : int
        Tokens.
    steps : int
        Integration steps of the token simulator.
    n_save : int
        About how many depths to save.
    seed : int

    Returns
    -------
    dict
        ``t``, ``components``, ``mardia_excess`` (per saved depth and component), ``noise_floor``,
        and the settings (``N``, ``seed``, ``steps``, ``nonfinite``, ``label``).

    Raises
    ------
    InvalidParameters
        Without a mixture law.
    """
    law = getattr(problem, "initial_law", None)
    if law is None or law.kind != "mixture":
        raise InvalidParameters("initial.law", "the mixture departure needs an [initial] law = \"mixture\"")
    X0, k = sample_mixture(law, int(N), np.random.default_rng(seed))
    run = simulate(problem, X0, float(T), steps=int(steps), save_every=max(1, int(steps) // n_save))
    d = problem.d
    labels = sorted(set(k.tolist()))
    excess = [[float(mardia(X[k == j])[1] - d * (d + 2)) for j in labels] for X in run.X]
    floor = [float(np.sqrt(8 * d * (d + 2) / max(1, int(np.sum(k == j))))) for j in labels]
    return {"t": run.t.tolist(), "components": labels, "mardia_excess": excess, "noise_floor": floor,
            "N": int(N), "seed": int(seed), "steps": int(steps), "nonfinite": bool(run.nonfinite),
            "label": "numerical evidence"}
