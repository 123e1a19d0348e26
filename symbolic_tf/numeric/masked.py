r"""Masked (causal) attention tokens: positions, the attention sink, the conditional distance.

Tokens are pairs (x, s): x ∈ ℝ^d moves, the position s ∈ [0, 1] is fixed along the flow.  The
position marginal λ is given; a query at s attends to the cone s' ≤ s, normalised over it
(docs/masked_relu.md §1):

.. math::

    Γ_μ(x, s) = V\,\frac{\int_{s' \le s} e^{y^T A x}\, y \, dμ(y, s')}{\int_{s' \le s} e^{y^T A x}\, dμ(y, s')}.

This module gives

* :func:`marginal` — the position marginal of a problem: its ``[masked]`` table, with options
  that override it;
* :func:`positions` — N positions from a named marginal: ``uniform`` (sorted i.i.d. U[0, 1]),
  ``grid:K`` (K equally spaced positions k/K, k = 1..K, N/K tokens each), optionally with a
  Dirac mass ``sink`` ∈ [0, 1) at s = 0 (round(sink·N) tokens there: the attention sink);
* :func:`sink_attention` — the attention mass a query gives to the tokens at the first position,
  P_i = Σ_{j: s_j = s_min} e^{y_jᵀAx_i} / Σ_{j: s_j ≤ s_i} e^{y_jᵀAx_i} (log domain);
* :func:`conditional_wasserstein` — the conditional Wasserstein distance between two token
  clouds on the *same* positions (docs/masked_relu.md §2): with μ^s, ν^s the conditional laws
  of x given s,

  .. math::

      W_p^{\mathrm{cond}}(μ, ν) = \Big(\int W_p(μ^s, ν^s)^p\, dλ(s)\Big)^{1/p},
      \qquad W_{p,∞}^{\mathrm{cond}}(μ, ν) = \operatorname{ess\,sup}_{s∼λ} W_p(μ^s, ν^s),

  each W_p(μ^s, ν^s) exact: by sorting in d = 1, by an optimal assignment (an exact linear
  program over permutations, equal-size uniform clouds) otherwise, and ‖x − y‖ when a position
  carries one token;
* :func:`sink_experiment` — the attention-sink experiment: the mean attention on the first
  position across depth, for several sink masses, beside the share the sink would receive from
  uniform (content-blind) attention; and the conditional distance between the flow and a
  perturbed flow on the same positions (numerical evidence).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..spec.errors import InvalidParameters
from ._positions import POSITION_KINDS, positions  # one home, shared with the token sampler

__all__ = ["positions", "marginal", "sink_attention", "conditional_wasserstein", "SinkExperiment", "sink_experiment",
           "POSITION_KINDS"]

#: Most tokens at one position for the exact per-position optimal assignment (an n×n cost matrix,
#: O(n³) time): 4096 tokens make a 128 MB matrix and a few seconds.
MAX_TOKENS_PER_POSITION = 4096




def marginal(problem, kind: str | None = None, sink: float | None = None) -> tuple[str, float]:
    """The position marginal (kind, sink mass) of ``problem``: its ``[masked]`` table, overridden by
    ``kind`` and ``sink`` when given; uniform without a sink when neither says.

    Parameters
    ----------
    problem : Problem
    kind : str, optional
        "uniform" or "grid:K" (an option that overrides the table).
    sink : float, optional
        The sink mass m₀ ∈ [0, 1) (an option that overrides the table).

    Returns
    -------
    (str, float)

    Raises
    ------
    InvalidParameters
        A ``[masked]`` table on a variant without positions, or a bad kind or mass.
    """
    from .. import variants
    from ..spec.masked import parse_position_kind

    table = getattr(problem, "masked", None)
    if table is not None and not variants.get(problem.variant).causal:
        raise InvalidParameters("masked", f"the [masked] table sets token positions; variant "
                                          f"{problem.variant!r} has none (use variant = \"masked\")")
    k = parse_position_kind(kind, "--positions") if kind is not None else (table.kind if table else "uniform")
    if sink is None:
        m0 = float(table.sink) if table else 0.0
    else:
        m0 = sink
        if not (isinstance(m0, (int, float)) and math.isfinite(m0) and 0 <= m0 < 1):
            raise InvalidParameters("--sinks", f"the sink mass must lie in [0, 1), got {sink!r}")
    return k, float(m0)


def sink_attention(X, s, A, *, chunk: int | None = None) -> np.ndarray:
    """Attention mass P_i that query i puts on the tokens at the first position (module docstring).

    Computed in the log domain: P_i = exp(lse_{j ∈ sink} ℓ_ij − lse_{j: s_j ≤ s_i} ℓ_ij) with
    logits ℓ_ij = x_jᵀ A x_i.  Every query sees the first position (s_min ≤ s_i), so P_i ∈ (0, 1].

    Parameters
    ----------
    X : array_like, (N, d)
        Tokens.
    s : array_like, (N,)
        Positions.
    A : array_like, (d, d)
        Attention matrix (temperature included).
    chunk : int, optional
        Queries per block (memory).

    Returns
    -------
    ndarray, (N,)
    """
    from scipy.special import logsumexp

    X = np.asarray(X, dtype=float)
    s = np.asarray(s, dtype=float)
    A = np.asarray(A, dtype=float)
    N, d = X.shape
    if s.shape != (N,) or A.shape != (d, d):
        raise InvalidParameters("positions", f"expected {N} positions and A of shape ({d}, {d})")
    first = s == s.min()
    G = X @ A  # ℓ_ij = G_j · x_i
    step = chunk or max(1, 2**22 // max(N, 1))
    out = np.empty(N)
    for a in range(0, N, step):
        b = min(a + step, N)
        L = X[a:b] @ G.T
        L[s[None, :] > s[a:b, None]] = -np.inf
        out[a:b] = np.exp(logsumexp(np.where(first[None, :], L, -np.inf), axis=1) - logsumexp(L, axis=1))
    return out


def _wp_equal(X: np.ndarray, Y: np.ndarray, p: float) -> float:
    """W_p^p between two uniform clouds of the same size (exact: sorting in 1-D, assignment else)."""
    n = X.shape[0]
    if n == 1:
        return float(np.linalg.norm(X[0] - Y[0]) ** p)
    if X.shape[1] == 1:
        return float(np.mean(np.abs(np.sort(X[:, 0]) - np.sort(Y[:, 0])) ** p))
    from scipy.optimize import linear_sum_assignment
    from scipy.spatial.distance import cdist

    C = cdist(X, Y) ** p
    r, c = linear_sum_assignment(C)
    return float(C[r, c].mean())


def conditional_wasserstein(X, Y, s, *, p: float = 2, reduce: str = "mean") -> float:
    r"""W_p^cond between the clouds X and Y carried by the same positions ``s``.

    Tokens with equal position form the conditional law at that position (λ its share of the
    tokens).  ``reduce="mean"``: (Σ_s λ_s W_p(μ^s, ν^s)^p)^{1/p}; ``reduce="sup"``: max_s W_p(μ^s, ν^s).

    Parameters
    ----------
    X, Y : array_like (N, d)
    s : array_like (N,)
        The shared positions (token i of X and of Y sits at s_i).
    p : float ≥ 1
    reduce : "mean" or "sup"

    Returns
    -------
    float

    Notes
    -----
    With distinct positions every conditional law is a single Dirac, so W_p^cond is the
    position-matched distance ((1/N) Σ_i ‖x_i − y_i‖^p)^{1/p}: the condition forbids moving
    mass across positions.  Exact OT per position costs O(n³) for n tokens at a position (at most
    :data:`MAX_TOKENS_PER_POSITION` when d > 1).
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    s = np.asarray(s, dtype=float)
    if X.ndim != 2 or X.shape != Y.shape or s.shape != (X.shape[0],):
        raise InvalidParameters("Y", f"expected two clouds of one shape (N, d) and N positions, got "
                                     f"{X.shape}, {Y.shape}, {s.shape}")
    if not (math.isfinite(p) and p >= 1):
        raise InvalidParameters("p", f"expected p ≥ 1, got {p!r}")
    if reduce not in ("mean", "sup"):
        raise InvalidParameters("reduce", f"expected 'mean' or 'sup', got {reduce!r}")
    N = X.shape[0]
    vals, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
    if X.shape[1] > 1 and counts.max() > MAX_TOKENS_PER_POSITION:
        raise InvalidParameters("positions", f"{counts.max()} tokens share one position; the exact per-position "
                                             f"transport handles at most {MAX_TOKENS_PER_POSITION} (use more positions)")
    total, worst = 0.0, 0.0
    for k in range(len(vals)):
        idx = np.flatnonzero(inverse == k)
        wpp = _wp_equal(X[idx], Y[idx], p)
        total += len(idx) / N * wpp
        worst = max(worst, wpp)
    return float((total if reduce == "mean" else worst) ** (1.0 / p))


@dataclass
class SinkExperiment:
    """Outcome of :func:`sink_experiment` (numerical evidence; JSON face :meth:`to_dict`)."""

    settings: dict
    t: list
    runs: list = field(default_factory=list)  # one dict per sink mass
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """The experiment as JSON-ready data.

        Returns
        -------
        dict
        """
        return {"settings": self.settings, "t": self.t, "runs": self.runs, "notes": self.notes,
                "label": "numerical evidence"}


def sink_experiment(problem, *, N: int = 400, T=None, steps: int = 40, save_every: int = 4,
                    sinks=(0.0, 0.05, 0.2), kind: str = "uniform", perturb: float = 0.01,
                    seed: int = 0) -> SinkExperiment:
    """Attention on the first position across depth, and W_p^cond to a perturbed flow.

    For each sink mass m₀: N tokens x_i ~ the problem's initial Gaussian (independent of the
    position), positions from ``kind`` with mass m₀ at 0; simulate the masked flow (RK4) and
    record at each saved depth t

    * ``attention``: the mean over the queries off the first position of
      :func:`sink_attention`, and its ``baseline`` — the mean share of the first position in
      the query's cone, n₀/#{j: s_j ≤ s_i}, which is what content-blind (uniform) attention
      would give; attention above the baseline means the first token attracts attention;
    * ``cond_w2`` and ``cond_w2_sup``: W₂^cond (mean and sup over positions) between the flow
      and the flow from x_i + ε z_i (z_i standard normal, same positions), divided by its value
      at t = 0 (an empirical stability ratio).

    Parameters
    ----------
    problem : Problem
        A causal (masked) variant with an initial Gaussian.
    N : int
    T : float, optional
        Depth (the problem's T, else 1).
    steps, save_every : int
    sinks : sequence of float
        Sink masses m₀.
    kind : str
        How positions are drawn.
    perturb : float
        ε.
    seed : int

    Returns
    -------
    SinkExperiment
    """
    from .particles import sample_initial, simulate
    from .. import variants

    v = variants.bind(problem)
    if not v.causal:
        raise InvalidParameters("variant", f"the attention-sink experiment needs a causal (masked) variant, "
                                           f"got {v.name!r}")
    if problem.cov is None:
        raise InvalidParameters("initial.cov", "needed to sample the initial tokens")
    if not (math.isfinite(perturb) and perturb > 0):
        raise InvalidParameters("perturb", f"expected a positive number, got {perturb!r}")
    T = float(problem.T) if T is None and problem.T is not None else (1.0 if T is None else float(T))
    A = problem.numeric_params()["A"] * float(problem.scale)
    X0, _ = sample_initial(problem, N, seed)
    Z = np.random.default_rng([seed, 1]).standard_normal(X0.shape)
    out = SinkExperiment({"N": N, "T": T, "steps": steps, "save_every": save_every, "kind": kind,
                          "sinks": list(sinks), "perturb": perturb, "seed": seed,
                          "problem_hash": problem.content_hash()}, [])
    for m0 in sinks:
        s = positions(kind, N, np.random.default_rng([seed, 2]), sink=m0)
        run = simulate(problem, X0, T, steps=steps, positions=s, save_every=save_every)
        pert = simulate(problem, X0 + perturb * Z, T, steps=steps, positions=s, save_every=save_every)
        first = s == s.min()
        queries = ~first if np.any(~first) else first
        cone = np.searchsorted(s, s, side="right")  # #{j: s_j ≤ s_i} (s is sorted)
        baseline = float(np.mean(first.sum() / cone[queries]))
        n = min(len(run.t), len(pert.t))
        w0 = conditional_wasserstein(run.X[0], pert.X[0], s)
        w0s = conditional_wasserstein(run.X[0], pert.X[0], s, reduce="sup")
        att, cw, cws = [], [], []
        for k in range(n):
            att.append(float(np.mean(sink_attention(run.X[k], s, A)[queries])))
            cw.append(conditional_wasserstein(run.X[k], pert.X[k], s) / w0)
            cws.append(conditional_wasserstein(run.X[k], pert.X[k], s, reduce="sup") / w0s)
        out.runs.append({"sink": m0, "first_position_tokens": int(first.sum()), "baseline": baseline,
                         "attention": att, "cond_w2_ratio": cw, "cond_w2_sup_ratio": cws,
                         "cond_w2_initial": w0, "nonfinite": bool(run.nonfinite or pert.nonfinite),
                         "t": [float(x) for x in run.t[:n]]})
        if len(run.t[:n]) > len(out.t):
            out.t = [float(x) for x in run.t[:n]]
        if run.nonfinite or pert.nonfinite:
            out.notes.append(f"sink {m0}: a run left the float range at t = {min(run.t_final, pert.t_final):.4g}")
    return out
