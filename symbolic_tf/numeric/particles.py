r"""Finite-N token simulation: the particle version of the Transformer PDE (docs/mathematics.md §1–§2).

N tokens x_1, …, x_N ∈ ℝ^d with empirical measure μ^N = (1/N) Σ_j δ_{x_j} move by

.. math::

    \dot x_i = Γ_{μ^N_t}(x_i) + F x_i + b\ [+\ W_2\,\mathrm{ReLU}(W_1 x_i + b_1)], \qquad i = 1, …, N,

where Γ is the velocity field of the problem's attention variant (softmax, ℓ2, Sinkhorn,
linear, unnormalised, sigmoid, multi-head, masked) evaluated by the variant's own numeric
``velocity`` (:mod:`symbolic_tf.variants.velocity`), and F x + b is the problem's optional
affine feed-forward drift (absent = 0); a problem with a ``[relu]`` table adds the ReLU
feed-forward term (:mod:`symbolic_tf.numeric.relu`).  Masked (causal) tokens also carry positions
s_i ∈ [0, 1], fixed in time; a token attends to the tokens with s_j ≤ s_i.

Integration is fixed-step float64: classical RK4 (default) or explicit Euler, on the
uniform grid t_n = n·T/steps.  Every stage of RK4 evaluates the velocity of the *stage*
cloud (queries = support = the stage positions), as the ODE system requires.

Memory is bounded by the velocity functions, which work on (chunk, N) blocks of about
4 MB (``chunk`` overrides the block height); the simulator itself keeps O(N·d) arrays
(the state, four RK4 slopes) plus the saved snapshots.

Blow-up is not an error: when a stage or a state becomes non-finite, or the attention
logits overflow float64, the run stops and returns the last finite cloud with
``nonfinite=True`` (its time is ``run.t[-1]``).

Sinkhorn attention solves an entropic self-coupling at every velocity evaluation
(:func:`~symbolic_tf.variants.velocity.sinkhorn_potential`, tolerance ``sinkhorn_tol``,
at most ``sinkhorn_max_iter`` iterations).  That solver starts from g = 0 and takes no
initial guess, so no warm start across steps is possible; non-convergence is counted in
``run.info`` and reported by one :class:`RuntimeWarning` at the end of the run.
"""
from __future__ import annotations

import math
import sys
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..exact.definiteness import float_factor
from ..spec.errors import InvalidParameters
from ._feedforward import relu_drift
from ._sampling import sample_law

__all__ = ["ParticleRun", "simulate", "sample_initial", "METHODS"]

#: Fixed-step integration methods.
METHODS = ("rk4", "euler")

_SINKHORN_TOL = 1e-10
_SINKHORN_MAX_ITER = 10000


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class ParticleRun:
    """The outcome of :func:`simulate`.

    Attributes
    ----------
    t : ndarray, shape (S,)
        Saved times, increasing; ``t[0] = 0`` and ``t[-1]`` is the time of ``final``
        (T, or the last finite time when ``nonfinite``).
    X : ndarray, shape (S, N, d)
        Saved clouds, ``X[k]`` at time ``t[k]`` (``X[-1] is final``).
    final : ndarray, shape (N, d)
        The last (finite) cloud.
    variant : str
        Registry name of the attention variant.
    N, d : int
        Number of tokens and their dimension.
    steps : int
        Steps actually completed (fewer than requested when ``nonfinite``).
    seconds : float
        Wall-clock time of the integration.
    nonfinite : bool
        The run stopped early because the cloud (or a stage, or the attention logits)
        left the float64 range.
    method : str
        ``"rk4"`` or ``"euler"``.
    dt : float
        Step size T/steps.
    T : float
        Requested horizon.
    positions : ndarray of shape (N,) or None
        Token positions (masked variant only), constant in time.
    info : dict
        Diagnostics: ``evaluations`` (velocity evaluations), ``nonfinite_reason``
        (when ``nonfinite``); for Sinkhorn ``sinkhorn_max_marginal_error``,
        ``sinkhorn_unconverged`` (evaluations whose coupling missed the tolerance) and
        ``sinkhorn_max_iterations``.
    """

    t: np.ndarray
    X: np.ndarray
    final: np.ndarray
    variant: str
    N: int
    d: int
    steps: int
    seconds: float
    nonfinite: bool
    method: str
    dt: float
    T: float
    positions: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def t_final(self) -> float:
        """Time of :attr:`final` (the last finite time when :attr:`nonfinite`)."""
        return float(self.t[-1])


class _NonFinite(Exception):
    """Internal: the trajectory left the float64 range."""


# --------------------------------------------------------------------------- validation


def _real(name: str, value, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise InvalidParameters(name, f"expected a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise InvalidParameters(name, f"must be finite, got {value!r}")
    if positive and not v > 0:
        raise InvalidParameters(name, f"must be positive, got {value!r}")
    return v


def _int(name: str, value, *, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise InvalidParameters(name, f"expected an integer >= {minimum}, got {value!r}")
    return int(value)


def _cloud(name: str, X, d: int) -> np.ndarray:
    try:
        X = np.array(X, dtype=np.float64)  # a private copy: the caller's array is never touched
    except (TypeError, ValueError) as exc:
        raise InvalidParameters(name, f"cannot be converted to a float64 array ({exc})") from None
    if X.ndim != 2 or X.shape[1] != d or X.shape[0] < 1:
        raise InvalidParameters(name, f"expected shape (N, {d}) with N >= 1, got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InvalidParameters(name, "entries must be finite (found nan or inf)")
    return X


def _positions(positions, N: int) -> np.ndarray:
    try:
        s = np.array(positions, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameters("positions", f"cannot be converted to a float64 array ({exc})") from None
    if s.shape != (N,):
        raise InvalidParameters("positions", f"expected shape ({N},) to match X0, got {s.shape}")
    if not np.all(np.isfinite(s)) or np.any((s < 0) | (s > 1)):
        raise InvalidParameters("positions", "positions must be finite and lie in [0, 1]")
    s.setflags(write=False)
    return s


def _grid(T, steps, dt) -> tuple[int, float]:
    if steps is None and dt is None:
        raise InvalidParameters("steps", "give the number of steps or the step size dt")
    if steps is not None:
        steps = _int("steps", steps)
        if dt is not None:
            dt = _real("dt", dt, positive=True)
            if abs(steps * dt - T) > 1e-9 * T:
                raise InvalidParameters("dt", f"steps·dt = {steps * dt!r} differs from T = {T!r}")
        return steps, T / steps
    dt = _real("dt", dt, positive=True)
    steps = max(1, math.ceil(T / dt - 1e-9))
    return steps, T / steps


class _RHS:
    """x ↦ (Γ_{μ^N}(x_i) + F x_i + b)_i for the problem's variant, with diagnostics."""

    def __init__(self, problem, positions, chunk, sinkhorn_tol, sinkhorn_max_iter):
        from .. import variants
        from ..variants.base import BISTOCHASTIC

        v = variants.bind(problem)
        self.variant = v
        self.scheduled, self.at = problem if problem.schedule is not None else None, None
        params = v.numeric_params(v.exact_params(problem))
        # one term per head: (variant, its numeric params, output weight W or None)
        if v.composite:
            self.terms = [(sub, q, q["W"]) for sub, q in params["heads"]]
        else:
            self.terms = [(v, params, None)]
        self.kw = []
        for sub, _, _ in self.terms:
            kw: dict[str, Any] = {}
            if chunk is not None:
                kw["chunk"] = chunk
            if sub.causal:
                kw["sq"] = kw["sy"] = positions
            self.kw.append(kw)
        self.bistochastic = [sub.normalisation == BISTOCHASTIC for sub, _, _ in self.terms]
        self.tol = sinkhorn_tol
        self.max_iter = sinkhorn_max_iter
        prm = problem.numeric_params()
        self.F, self.b = prm.get("F"), prm.get("b")
        self.extra = relu_drift(problem)  # the non-affine feed-forward W2·ReLU(W1 x + b1), or None
        self.evaluations = 0
        self.sk_err = 0.0
        self.sk_unconverged = 0
        self.sk_iters = 0

    def _at_depth(self, t: float, start: float) -> None:
        """Parameters at depth t, in the phase of the step start, for a scheduled problem
        (docs/schedules.md)."""
        from fractions import Fraction

        from ..spec.schedule import problem_at

        p = problem_at(self.scheduled, Fraction(t), Fraction(start))
        key = (p.A, p.V, p.F, p.b)
        if key != self.at:
            params = self.variant.numeric_params(self.variant.exact_params(p))
            self.terms = [(self.variant, params, None)]  # schedules are single-head
            prm = p.numeric_params()
            self.F, self.b = prm.get("F"), prm.get("b")
            self.at = key

    def __call__(self, X: np.ndarray, t: float = 0.0, start: float | None = None) -> np.ndarray:
        from ..variants.velocity import drift_velocity, sinkhorn_potential

        if self.scheduled is not None:
            self._at_depth(t, t if start is None else start)
        self.evaluations += 1
        out = None
        for (sub, q, W), kw, bist in zip(self.terms, self.kw, self.bistochastic):
            if bist:
                res = sinkhorn_potential(X, q["A"], tol=self.tol, max_iter=self.max_iter)
                self.sk_err = max(self.sk_err, res.marginal_error)
                self.sk_iters = max(self.sk_iters, res.iterations)
                self.sk_unconverged += not res.converged
                kw = dict(kw, potential=res)
            g = sub.velocity(X, X, q, **kw)
            if W is not None:
                g = g @ W.T
            out = g if out is None else out + g
        if self.F is not None or self.b is not None:
            out = out + drift_velocity(X, self.F, self.b)
        if self.extra is not None:
            out = out + self.extra(X)
        return out

    def guarded(self, X: np.ndarray, t: float = 0.0, start: float | None = None) -> np.ndarray:
        """Like calling, but leaving the float64 range raises :class:`_NonFinite`."""
        if not np.all(np.isfinite(X)):
            raise _NonFinite("a stage cloud is not finite")
        try:
            k = self(X, t, start)
        except ValueError as exc:  # the velocity functions' overflow / non-finite reports
            raise _NonFinite(str(exc)) from None
        if not np.all(np.isfinite(k)):
            raise _NonFinite("the velocity is not finite")
        return k


# --------------------------------------------------------------------------- public API


def simulate(problem, X0, T=None, *, steps=None, dt=None, positions=None, method="rk4",
             save_every=None, chunk=None, progress=False,
             sinkhorn_tol=_SINKHORN_TOL, sinkhorn_max_iter=_SINKHORN_MAX_ITER) -> ParticleRun:
    r"""Integrate the token ODE ẋ_i = Γ_{μ^N}(x_i) + F x_i + b from ``X0`` up to time ``T``.

    Parameters
    ----------
    problem : symbolic_tf.spec.Problem
        Variant, parameters (``scale`` applied) and optional drift F, b.  Its ``initial``
        law is ignored (see :func:`sample_initial`).  With a depth schedule every stage uses
        the parameters at its own depth (docs/schedules.md; put phase boundaries on the grid).
    X0 : array_like, shape (N, d)
        Initial tokens (d = ``problem.d``, finite); copied, never modified.
    T : float, optional
        Horizon (> 0); defaults to ``problem.T``.
    steps : int, optional
        Number of steps (≥ 1).
    dt : float, optional
        Step size; with ``steps`` absent the grid has ⌈T/dt⌉ steps of size T/⌈T/dt⌉.
        Given together with ``steps`` it must satisfy steps·dt = T.
    positions : array_like, shape (N,), optional
        Token positions in [0, 1]; required for (and only for) the masked variant.
    method : {"rk4", "euler"}
        Classical fourth-order Runge–Kutta (4 velocity evaluations per step) or explicit
        Euler (1 evaluation).
    save_every : int, optional
        Save the cloud every ``save_every`` steps (the initial and final clouds are
        always saved); default: only those two.
    chunk : int, optional
        Query block height passed to the velocity functions (memory ∝ chunk·N).
    progress : bool
        Print progress lines to stderr.
    sinkhorn_tol, sinkhorn_max_iter :
        Stopping rule of the Sinkhorn coupling (Sinkhorn heads only).

    Returns
    -------
    ParticleRun

    Raises
    ------
    InvalidParameters
        Bad shapes, non-finite inputs, T ≤ 0, steps < 1, unknown method, a problem the
        variant cannot run, positions missing for the masked variant (or given for
        another).
    """
    from .. import variants

    v = variants.bind(problem)
    d = problem.d
    X = _cloud("X0", X0, d)
    N = X.shape[0]
    if T is None:
        if problem.T is None:
            raise InvalidParameters("T", "no horizon given and the problem has no T")
        T = problem.T
    if isinstance(T, Fraction):
        T = float(T)
    T = _real("T", T, positive=True)
    steps, h = _grid(T, steps, dt)
    if method not in METHODS:
        raise InvalidParameters("method", f"expected one of {', '.join(METHODS)}, got {method!r}")
    if save_every is not None:
        save_every = _int("save_every", save_every)
    if chunk is not None:
        chunk = _int("chunk", chunk)
    sinkhorn_tol = _real("sinkhorn_tol", sinkhorn_tol, positive=True)
    sinkhorn_max_iter = _int("sinkhorn_max_iter", sinkhorn_max_iter)
    if v.causal:
        if positions is None:
            raise InvalidParameters("positions", f"variant {v.name!r} needs token positions in [0, 1]")
        positions = _positions(positions, N)
    elif positions is not None:
        raise InvalidParameters("positions", f"variant {v.name!r} has no token positions")

    rhs = _RHS(problem, positions, chunk, sinkhorn_tol, sinkhorn_max_iter)
    t0 = time.perf_counter()
    try:
        k1 = rhs(X)  # outside the guard: a bad problem is an error, not a blow-up
    except InvalidParameters:
        raise
    except ValueError as exc:
        raise InvalidParameters("problem", f"the velocity cannot be evaluated at X0: {exc}") from None
    if not np.all(np.isfinite(k1)):
        raise InvalidParameters("X0", "the velocity at X0 is not finite (overflow)")

    times = [0.0]
    saved = [X.copy()]
    nonfinite = False
    reason = None
    done = 0
    report = max(1, steps // 10)
    with np.errstate(over="ignore", invalid="ignore"):
        for n in range(steps):
            try:
                tn = T * n / steps  # the depth, for scheduled parameters
                if n > 0:
                    k1 = rhs.guarded(X, tn)
                if method == "euler":
                    Xn = X + h * k1
                else:
                    k2 = rhs.guarded(X + (0.5 * h) * k1, tn + 0.5 * h, tn)
                    k3 = rhs.guarded(X + (0.5 * h) * k2, tn + 0.5 * h, tn)
                    k4 = rhs.guarded(X + h * k3, tn + h, tn)
                    Xn = X + (h / 6.0) * (k1 + 2.0 * (k2 + k3) + k4)
                if not np.all(np.isfinite(Xn)):
                    raise _NonFinite("the cloud is not finite")
            except _NonFinite as exc:
                nonfinite, reason = True, str(exc)
                break
            X = Xn
            done = n + 1
            last = done == steps
            if last or (save_every is not None and done % save_every == 0):
                times.append(T if last else T * done / steps)
                saved.append(X.copy())
            if progress and (done % report == 0 or last):
                print(f"[particles] {v.name}: step {done}/{steps}, t = {T * done / steps:.6g}, "
                      f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    if nonfinite and (times[-1] != T * done / steps):
        times.append(T * done / steps)
        saved.append(X.copy())
    seconds = time.perf_counter() - t0

    info: dict[str, Any] = {"evaluations": rhs.evaluations}
    if nonfinite:
        info["nonfinite_reason"] = reason
        if progress:
            print(f"[particles] {v.name}: stopped at t = {times[-1]:.6g} ({reason})",
                  file=sys.stderr, flush=True)
    if any(rhs.bistochastic):
        info.update(sinkhorn_max_marginal_error=rhs.sk_err,
                    sinkhorn_unconverged=rhs.sk_unconverged,
                    sinkhorn_max_iterations=rhs.sk_iters)
        if rhs.sk_unconverged:
            warnings.warn(
                f"Sinkhorn coupling missed tol {sinkhorn_tol:.3g} in {rhs.sk_unconverged} of "
                f"{rhs.evaluations} velocity evaluations (max marginal error {rhs.sk_err:.3g})",
                RuntimeWarning, stacklevel=2)
    Xs = np.stack(saved)
    Xs.setflags(write=False)
    return ParticleRun(
        t=np.array(times), X=Xs, final=Xs[-1], variant=v.name, N=N, d=d, steps=done,
        seconds=seconds, nonfinite=nonfinite, method=method, dt=h, T=T,
        positions=positions, info=info,
    )


def sample_initial(problem, N, rng):
    r"""N i.i.d. tokens from the problem's initial Gaussian N(mean, cov), or its declared law.

    A non-Gaussian ``[initial]`` law (box, ball, mixture, empirical cloud) is sampled by
    :func:`symbolic_tf.numeric._sampling.sample_law`.

    x_i = mean + B z_i with z_i ~ N(0, I_r) and B Bᵀ = cov from an exact rational LDLᵀ
    factorisation (rank r = rank cov exactly, so singular covariances are handled: the
    samples stay in mean + range(cov)).  ``mean`` defaults to 0; ``cov`` is required.

    Parameters
    ----------
    problem : symbolic_tf.spec.Problem
    N : int
        Number of tokens (≥ 1).
    rng : numpy.random.Generator or int or None
        Random source (an int is a seed for :func:`numpy.random.default_rng`).

    Returns
    -------
    X0 : ndarray, shape (N, d)
    positions : ndarray, shape (N,), or None
        For causal (masked) variants, N positions in [0, 1] sorted increasingly (token i is the
        i-th in the sequence): i.i.d. uniform, or the ``[masked]`` table's marginal (uniform or
        grid:K, with its sink mass at 0); None otherwise.
    """
    from .. import variants

    N = _int("N", N)
    law = getattr(problem, "initial_law", None)
    if problem.cov is None and law is None:
        raise InvalidParameters("initial.cov", "needed to sample the initial cloud")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    if law is not None:  # a non-Gaussian law of the [initial] table (symbolic_tf.numeric._sampling)
        X0 = sample_law(law, N, rng)
    else:
        d = problem.d
        mean = np.zeros(d) if problem.mean is None else np.array([float(e) for e in problem.mean])
        B = float_factor(problem.cov)
        X0 = mean + rng.standard_normal((N, B.shape[1])) @ B.T
    positions = None
    if variants.get(problem.variant).causal:
        table = getattr(problem, "masked", None)
        if table is None:
            positions = np.sort(rng.uniform(0.0, 1.0, N))
        else:  # the problem file's [masked] table: its position marginal and sink mass
            from ._positions import positions as marginal_positions

            positions = np.array(marginal_positions(table.kind, N, rng, sink=float(table.sink)))
    return X0, positions
