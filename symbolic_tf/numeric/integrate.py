"""Batched adaptive integration of moment systems (Dormand–Prince 5(4)) with events.

State per batch member: the mean α and a factor Ψ with Σ(t) = Ψ(t) Ψ(t)ᵀ, Ψ = ΦL₀ where Φ is
the congruence factor of docs/mathematics.md §4 and Σ₀ = L₀L₀ᵀ:

    α̇ = J(α, Σ) α + c(α, Σ),      Ψ̇ = J(α, Σ) Ψ,   Ψ(0) = L₀.

Integrating Ψ instead of Σ keeps Σ positive semidefinite and its rank invariant (rank-deficient
Σ₀ is legal: L₀ has rank Σ₀ columns of substance), whatever the step error; reported Σ are
symmetrised exactly.  Each member has its own
step size (standard embedded error control, PI-free with safety factor 0.9) and stops on

* ``HORIZON``   t = T (steps are shortened to land on T exactly);
* ``BLOWUP``    ‖Σ‖_F > ``blowup_norm``·(1 + ‖Σ₀‖_F): detected at the end of an accepted step and
  *located inside it* on the step's continuous extension — the crossing θ* of
  ‖Σ(t_n + θh)‖_F = threshold is bisected to 2⁻⁵² h, and ``t_end`` and the end state are those at
  t_n + θ*h; or the step size collapses below ``h_min·max(1, t)`` (the last time reached is
  reported). Either way the member is frozen;
* ``CONVERGED`` ‖Σ̇‖_F < ``converge_tol``·(1 + ‖Σ‖_F) (only when ``stop_on_convergence``),
  tested at step ends and reported there (locating it inside the step would cost a right-hand
  side evaluation per bisection step; the criterion is a threshold on a slowly decaying
  quantity, so the step end is as meaningful a stop time);
* ``FAILED``    non-finite values;
* ``MAX_STEPS`` the step budget ``max_steps`` ran out.

``BLOWUP`` is numerical evidence only: for flows that cannot blow up (ℓ2, Sinkhorn) it means
the norm threshold was reached by exponential growth.

Sampled output at user times ``t_eval`` comes from the continuous extension (dense output) of
the accepted step that covers each time — Dormand–Prince's order-4 interpolant for DOPRI5,
Hairer's order-7 one for DOP853 (3 extra stages, paid only in steps that cover a sample or an
event); coefficients in :mod:`symbolic_tf.numeric._tableaus`.  The steps do not depend on
``t_eval``: a dense grid costs interpolations, not steps.  α and Ψ are interpolated and
Σ = sym(ΨΨᵀ) at the sample, so sampled Σ stay positive semidefinite.  The step-size control bounds the local
error of the step, not of its interpolant: samples between step ends are accurate to a small
multiple of the tolerance (measured on the blow-up experiment of benchmarks/bench_integrate.py:
≈ 10× rtol up to 0.9·T*, ≈ 100× at 0.99·T*, where the global error grows anyway); ask for a
tighter rtol when sampled values matter more than end states.

Two implementations of exactly this algorithm (``backend``):

* ``"numpy"``    — batched BLAS over the whole batch; every step pays a fixed Python/numpy
  overhead (≈ 0.5 ms), so it wins only when d is large;
* ``"compiled"`` — the whole adaptive loop of each member compiled with numba
  (:mod:`symbolic_tf.numeric._kernels`), members in parallel; d ≤ 8.  It also offers
  Hairer's Dormand–Prince 8(5,3) pair (``method="dop853"``), the better choice at tight
  tolerances.

``"auto"`` (the default) takes the compiled path when numba is installed, d ≤ ``AUTO_MAX_D``
and the batch has at least ``AUTO_MIN_BATCH`` members (below that a cold numba cache costs more
than it saves); the crossover constants are read off ``benchmarks/bench_scaling.py``.
"""
from __future__ import annotations

import numpy as np

from ..spec.errors import InvalidParameters
# FAILED, STATUS_NAMES: still imported from here by cli.py, reproduce/, regimes/evidence.py, conjectures/core.py
# (to move to .solution there; then drop them from this line)
from .solution import BLOWUP, CONVERGED, FAILED, HORIZON, MAX_STEPS, RUNNING, STATUS_NAMES, Solution  # noqa: F401
from ._tableaus import DENSE_BISECTIONS, DOPRI5_A, DOPRI5_B5, DOPRI5_C, DOPRI5_E, DOPRI5_P

__all__ = ["integrate", "AUTO_MAX_D", "AUTO_MIN_BATCH", "METHODS"]

AUTO_MAX_D = 8        # compiled kernels exist for d ≤ 8 (benchmarks/bench_scaling.py: they win there)
AUTO_MIN_BATCH = 64   # smaller batches stay on numpy (no numba import, no compile on a cold cache)
METHODS = ("dopri5", "dop853")

def _dense5(a_old, P_old, KA, KP, h, theta):
    """DOPRI5's order-4 continuous extension at θ ∈ [0, 1] (one θ per member): y_n + h Σ_s k_s b_s(θ),
    b_s(θ) = Σ_j P[s, j] θ^(j+1) (``tableaus.DOPRI5_P``), for α and Ψ; KA (m, 7, d), KP (m, 7, d, d)."""
    theta = np.asarray(theta, dtype=float)
    w = np.stack([theta, theta ** 2, theta ** 3, theta ** 4], -1) @ DOPRI5_P.T * h[:, None]  # (m, 7)
    return a_old + np.einsum("ms,msi->mi", w, KA), P_old + np.einsum("ms,msij->mij", w, KP)


def _subset_params(params: dict, idx: np.ndarray, B: int) -> dict:
    out = {}
    for k, v in params.items():
        a = np.asarray(v, dtype=float)
        batched = (a.ndim == 3 and a.shape[0] == B and B > 1) or (a.ndim == 1 and a.shape[0] == B and B > 1)
        out[k] = a[idx] if batched else a
    return out


def _choose_backend(backend: str, method: str, d: int, B: int) -> str:
    from . import _kernels as kernels

    if backend == "numpy":
        if method != "dopri5":
            raise InvalidParameters("method", f"{method} runs on the compiled backend only")
        return "numpy"
    if backend == "auto" and method == "dopri5" and (B < AUTO_MIN_BATCH or d > AUTO_MAX_D):
        return "numpy"  # decided without importing numba
    ok = d <= kernels.MAX_COMPILED_D and kernels.available()
    if backend == "compiled" or method != "dopri5":
        if not ok:
            why = "numba is not installed" if d <= kernels.MAX_COMPILED_D else \
                f"compiled kernels cover d ≤ {kernels.MAX_COMPILED_D}, got d = {d}"
            raise InvalidParameters("backend", f"the compiled backend is unavailable: {why}")
        return "compiled"
    return "compiled" if ok else "numpy"


def _k_rows(system, params: dict, d: int) -> int:
    """Rows k of the query/key matrices (Q, K ∈ ℝ^{k×d}) given in ``params``; d when there are none."""
    names = _K_NAMES.get(id(system))
    if names is None or names[0] is not system:
        import sympy as sp

        from ..symbolic import symbols as S

        found = sorted({m.name for e in (system.closure.J, system.closure.c) for m in e.atoms(sp.MatrixSymbol)
                        if m.shape[0] == S.k})
        names = _K_NAMES[id(system)] = (system, found)
    for name in names[1]:
        if name in params:
            return int(np.asarray(params[name]).shape[-2])
    return d


_K_NAMES: dict = {}


def _poly_at(params: dict, poly: dict, ts) -> dict:
    """The parameters at the (B,) times ``ts``: ``poly[name]`` holds polynomial coefficients
    (n_coef, …), lowest first; the result has a leading batch axis."""
    out = dict(params)
    for name, c in poly.items():
        c = np.asarray(c, dtype=float)
        powers = np.asarray(ts, dtype=float)[:, None] ** np.arange(c.shape[0])[None, :]
        out[name] = np.tensordot(powers, c, axes=(1, 0))
    return out


def _integrate_compiled(compiled, alpha0, Sigma0, Phi, scale0, h, params, T, t_eval, rtol, atol, blowup_norm,
                        h_min, stop_on_convergence, converge_tol, max_steps, method, poly=None) -> Solution:
    """The same algorithm, one compiled loop per member (:mod:`symbolic_tf.numeric._kernels`)."""
    from ._kernels import PARALLEL_MIN_BATCH, kernel_for

    B, d = alpha0.shape
    system = compiled.system
    kern = kernel_for(system, d, _k_rows(system, params, d))
    n = len(t_eval)
    out_a = np.empty((B, n, d))
    out_S = np.empty((B, n, d, d))
    status = np.zeros(B, dtype=np.int64)
    t_end = np.zeros(B)
    a_end = np.empty((B, d))
    Psi_end = np.empty((B, d, d))
    n_steps = np.zeros(B, dtype=np.int64)
    n_rej = np.zeros(B, dtype=np.int64)
    f = np.ascontiguousarray
    name = ("run" if B >= PARALLEL_MIN_BATCH else "run_serial") + ("5" if method == "dopri5" else "8") + (
        "t" if poly else "")
    runner = getattr(kern.module, name)
    packed = kern.pack_poly(params, poly, B) if poly else kern.pack(params, B)
    runner(f(alpha0, dtype=float), f(Phi), f(Sigma0), f(scale0), f(t_eval, dtype=float), float(T),
           float(rtol), float(atol), float(blowup_norm), float(h_min), bool(stop_on_convergence),
           float(converge_tol), f(h, dtype=float), int(max_steps),
           *packed, out_a, out_S, status, t_end, a_end, Psi_end, n_steps, n_rej)
    X = Psi_end @ np.swapaxes(Psi_end, 1, 2)
    Sig_end = 0.5 * (X + np.swapaxes(X, 1, 2))
    return Solution(t_eval, out_a, out_S, status, t_end, a_end, Sig_end, n_steps, n_rej,
                    method=f"{method}/compiled")


def integrate(compiled, alpha0, Sigma0, params: dict, T: float, *, t_eval=None, rtol: float = 1e-10,
              atol: float = 1e-12, blowup_norm: float = 1e8, h_min: float = 1e-14,
              stop_on_convergence: bool = False, converge_tol: float = 1e-10, h0: float | None = None,
              max_steps: int = 1_000_000, backend: str = "auto", method: str = "dopri5",
              closed_form: bool = False, params_poly: dict | None = None) -> Solution:
    """Integrate α̇ = Jα + c, Σ = ΦΣ₀Φᵀ with Φ̇ = JΦ, batched, from t = 0 to T.

    Parameters
    ----------
    compiled : CompiledSystem (``symbolic_tf.numeric.codegen.compile_system``)
    alpha0 : (B, d) or (d,) initial means
    Sigma0 : (B, d, d) or (d, d) initial covariances (symmetric PSD; singular allowed)
    params : name → array, broadcast over the batch (see ``CompiledSystem``)
    T : horizon > 0
    t_eval : sample times in [0, T] (default: [0, T]); values from the dense output of the covering step
    rtol, atol : the error tolerances of the embedded pair (mixed error norm on α and Ψ)
    blowup_norm, h_min, stop_on_convergence, converge_tol, max_steps : stopping rules (module docstring)
    h0 : first trial step (default min(T, 10⁻²T + 10⁻³)/10)
    backend : ``"auto"``, ``"numpy"`` or ``"compiled"`` (module docstring)
    method : ``"dopri5"`` (Dormand–Prince 5(4), both backends) or ``"dop853"`` (8(5,3), compiled only)
    closed_form : when True and the flow has a closed form (softmax, V = vI, drift F = fI, α₀ = 0,
        b = 0: :mod:`symbolic_tf.numeric.closed_form`, docs/mathematics.md §4, §6), return it instead
        of integrating (``Solution.method == "closed form"``; a blow-up is reported at T* exactly)
    params_poly : dict, optional
        Parameters that are polynomials in the time t ∈ [0, T] of this run (polynomial-in-t
        schedules, docs/schedules.md): name → coefficients (n_coef, …), lowest degree first,
        the same for every member; they override ``params``.  Each Runge–Kutta stage evaluates
        them at its own time t + c_s·h, on both backends.

    Returns
    -------
    Solution
        Samples at ``t_eval``, per-member status (``symbolic_tf.numeric.solution``), end states
        and step counts.

    Raises
    ------
    InvalidParameters
        Malformed shapes, a Σ₀ that is not symmetric positive semidefinite, a bad horizon or
        sample grid, an unknown backend or method, or ``"compiled"`` where it is unavailable.
    """
    Sigma0 = np.asarray(Sigma0, dtype=float)
    if Sigma0.ndim == 2:
        Sigma0 = Sigma0[None]
    if Sigma0.ndim != 3 or Sigma0.shape[1] != Sigma0.shape[2]:
        raise InvalidParameters("Sigma0", f"expected shape (B, d, d), got {Sigma0.shape}")
    B, d, _ = Sigma0.shape
    alpha0 = np.asarray(alpha0, dtype=float)
    if alpha0.ndim == 1 and alpha0.shape[0] == d:
        alpha0 = np.broadcast_to(alpha0, (B, d))
    if alpha0.shape != (B, d):
        raise InvalidParameters("alpha0", f"expected shape ({B}, {d}), got {alpha0.shape}")
    if not (np.all(np.isfinite(Sigma0)) and np.all(np.isfinite(alpha0))):
        raise InvalidParameters("Sigma0", "initial state is not finite")
    if not np.allclose(Sigma0, np.swapaxes(Sigma0, 1, 2), rtol=0, atol=1e-12 * (1 + np.abs(Sigma0).max())):
        raise InvalidParameters("Sigma0", "not symmetric")
    if not np.isfinite(T) or T <= 0:
        raise InvalidParameters("T", f"horizon must be positive and finite, got {T}")
    t_eval = np.array([0.0, T]) if t_eval is None else np.asarray(t_eval, dtype=float)
    if t_eval.ndim != 1 or np.any(np.diff(t_eval) < 0) or t_eval[0] < 0 or t_eval[-1] > T * (1 + 1e-12):
        raise InvalidParameters("t_eval", "sample times must be increasing within [0, T]")

    if backend not in ("auto", "numpy", "compiled"):
        raise InvalidParameters("backend", f"expected 'auto', 'numpy' or 'compiled', got {backend!r}")
    if method not in METHODS:
        raise InvalidParameters("method", f"expected one of {', '.join(METHODS)}, got {method!r}")
    for name, val in (("rtol", rtol), ("atol", atol)):
        if not (np.isfinite(val) and val > 0):
            raise InvalidParameters(name, f"tolerance must be positive and finite, got {val}")
    use = _choose_backend(backend, method, d, B)
    poly = dict(params_poly) if params_poly else None
    params_at = None if poly is None else (lambda ts: _poly_at(params, poly, ts))

    n = len(t_eval)
    out_a = np.empty((B, n, d))
    out_S = np.empty((B, n, d, d))
    alpha = alpha0.copy()
    lam, U = np.linalg.eigh(0.5 * (Sigma0 + np.swapaxes(Sigma0, 1, 2)))
    tol = 1e-12 * np.maximum(1.0, np.abs(lam).max(axis=1, keepdims=True))
    if np.any(lam < -tol):
        raise InvalidParameters("Sigma0", "not positive semidefinite")
    Phi = U * np.sqrt(np.clip(lam, 0.0, None))[:, None, :]  # the factor Ψ(0) = L₀, Σ₀ = L₀L₀ᵀ
    if closed_form and not poly:
        from .closed_form import closed_form as _closed

        sol = _closed(compiled.system, alpha0, Sigma0, params, T, t_eval)
        if sol is not None:
            return sol
    t = np.zeros(B)
    status = np.zeros(B, dtype=int)
    n_steps = np.zeros(B, dtype=int)
    n_rej = np.zeros(B, dtype=int)
    nxt = np.zeros(B, dtype=int)  # index of the next sample time per member
    scale0 = np.linalg.norm(Sigma0, axis=(1, 2)) + 1.0
    h = np.full(B, h0 if h0 is not None else min(T, 1e-2 * T + 1e-3) / 10)
    if use == "compiled":
        return _integrate_compiled(compiled, alpha0, Sigma0, Phi, scale0, h, params, T, t_eval, rtol, atol,
                                   blowup_norm, h_min, stop_on_convergence, converge_tol, max_steps, method, poly)

    def sig(P, S0=None):
        X = P @ np.swapaxes(P, -1, -2)
        return 0.5 * (X + np.swapaxes(X, -1, -2))  # exactly symmetric in floating point

    def f(a, P, S0, prm):
        # stages use ΨΨᵀ unsymmetrised (asymmetry ~ 1 ulp; reported states are symmetrised)
        J, c = compiled.J_c(a, P @ np.swapaxes(P, -1, -2), prm)
        return (J @ a[..., None])[..., 0] + c, J @ P

    # FSAL (first same as last): the 7th stage of an accepted step is the 1st of the next
    fa_last = np.zeros((B, d))
    fP_last = np.zeros((B, d, d))
    have_last = np.zeros(B, dtype=bool)

    # samples at t = 0
    for b in range(B):
        while nxt[b] < n and t_eval[nxt[b]] <= 0.0:
            out_a[b, nxt[b]] = alpha[b]
            out_S[b, nxt[b]] = Sigma0[b]
            nxt[b] += 1

    # trial stages of an oversized step may overflow: such steps are rejected, not errors
    with np.errstate(over="ignore", invalid="ignore"):
        iters = 0
        while True:
            act = np.nonzero(status == RUNNING)[0]
            if act.size == 0:
                break
            iters += 1
            if iters > max_steps:
                status[act] = MAX_STEPS
                break
            if act.size == B:  # everyone running: plain views, no fancy-index copies
                prm, a0, P0, S0 = params, alpha, Phi, Sigma0
            else:
                prm = _subset_params(params, act, B)
                a0, P0, S0 = alpha[act], Phi[act], Sigma0[act]
            ta = t[act]
            hh = np.minimum(h[act], np.maximum(T - ta, 0.0))  # land on T only; samples: dense output
            hh = np.where(hh <= 0, h[act], hh)
            ka, kP = [], []
            for s in range(7):
                if params_at is not None:
                    prm = params_at(ta + DOPRI5_C[s] * hh)
                if s == 0:
                    reuse = have_last[act]
                    fa, fP = fa_last[act], fP_last[act]
                    if not reuse.all():
                        miss = ~reuse
                        fa_m, fP_m = f(a0[miss], P0[miss], S0[miss], _subset_params(prm, np.nonzero(miss)[0], act.size))
                        fa, fP = fa.copy(), fP.copy()
                        fa[miss], fP[miss] = fa_m, fP_m
                else:
                    ya = a0 + hh[:, None] * sum(DOPRI5_A[s][j] * ka[j] for j in range(s))
                    yP = P0 + hh[:, None, None] * sum(DOPRI5_A[s][j] * kP[j] for j in range(s))
                    fa, fP = f(ya, yP, S0, prm)
                ka.append(fa)
                kP.append(fP)
            a5 = a0 + hh[:, None] * sum(DOPRI5_B5[j] * ka[j] for j in range(7) if DOPRI5_B5[j])
            P5 = P0 + hh[:, None, None] * sum(DOPRI5_B5[j] * kP[j] for j in range(7) if DOPRI5_B5[j])
            ea = hh[:, None] * sum(DOPRI5_E[j] * ka[j] for j in range(7) if DOPRI5_E[j])
            eP = hh[:, None, None] * sum(DOPRI5_E[j] * kP[j] for j in range(7) if DOPRI5_E[j])
            sa = atol + rtol * np.maximum(np.abs(a0), np.abs(a5))
            sP = atol + rtol * np.maximum(np.abs(P0), np.abs(P5))
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.sqrt((np.sum((ea / sa) ** 2, axis=1) + np.sum((eP / sP) ** 2, axis=(1, 2))) / (d + d * d))
            finite = np.isfinite(err) & np.all(np.isfinite(P5), axis=(1, 2)) & np.all(np.isfinite(a5), axis=1)
            accept = finite & (err <= 1.0)
            fac = np.where(finite, 0.9 * np.maximum(err, 1e-10) ** (-0.2), 0.2)
            fac = np.clip(fac, 0.2, 5.0)
            fac = np.where(accept, fac, np.minimum(fac, 1.0))
            h_new = hh * fac

            # accepted members advance
            acc = act[accept]
            t_old, h_acc = ta[accept], hh[accept]
            a_old, P_old = a0[accept], P0[accept]  # copies (fancy indexing) of the states before the step
            stages = [ka, kP, accept]  # stacked below only when a sample or an event needs the dense output
            t[acc] = t_old + h_acc
            hit = np.abs(t[acc] - T) <= 1e-14 * np.maximum(1.0, T)
            t[acc] = np.where(hit, T, t[acc])
            alpha[acc] = a5[accept]
            Phi[acc] = P5[accept]
            fa_last[acc] = ka[6][accept]
            fP_last[acc] = kP[6][accept]
            have_last[act] = accept | have_last[act]
            n_steps[acc] += 1
            rej = act[~accept]
            n_rej[rej] += 1
            # step size for the next attempt (do not let landing on T shrink it permanently)
            h[act] = np.where(accept & (hh < h[act]) & (fac >= 1.0), np.maximum(h[act], h_new), h_new)

            # events on accepted members
            if acc.size:
                Sg = sig(Phi[acc], Sigma0[acc])
                nS = np.linalg.norm(Sg, axis=(1, 2))
                pos = np.arange(acc.size)
                blown = nS > blowup_norm * scale0[acc]
                th_stop = np.ones(acc.size)
                k = nxt[acc]
                if blown.any() or np.any((k < n) & (t_eval[np.minimum(k, n - 1)] <= t[acc] * (1 + 1e-14) + 1e-300)):
                    KA, KP = np.stack(stages[0], 1)[stages[2]], np.stack(stages[1], 1)[stages[2]]
                if blown.any():  # locate the crossing ‖Σ(θ)‖_F = blowup_norm·scale on the interpolant
                    i_b = pos[blown]
                    thr = blowup_norm * scale0[acc[i_b]]
                    lo, hi = np.zeros(i_b.size), np.ones(i_b.size)
                    for _ in range(DENSE_BISECTIONS):
                        mid = 0.5 * (lo + hi)
                        _, Pm = _dense5(a_old[i_b], P_old[i_b], KA[i_b], KP[i_b], h_acc[i_b], mid)
                        up = np.linalg.norm(sig(Pm), axis=(1, 2)) > thr
                        hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
                    a_x, P_x = _dense5(a_old[i_b], P_old[i_b], KA[i_b], KP[i_b], h_acc[i_b], hi)
                    alpha[acc[i_b]], Phi[acc[i_b]] = a_x, P_x
                    t[acc[i_b]] = t_old[i_b] + hi * h_acc[i_b]
                    th_stop[i_b] = hi
                    Sg[i_b] = sig(P_x)
                    nS[i_b] = np.linalg.norm(Sg[i_b], axis=(1, 2))
                while True:  # every sample time reached, from the dense output (vectorised over members)
                    k = nxt[acc]
                    due = (k < n) & (t_eval[np.minimum(k, n - 1)] <= t[acc] * (1 + 1e-14) + 1e-300)
                    if not due.any():
                        break
                    i_d = pos[due]
                    th = (t_eval[k[due]] - t_old[i_d]) / h_acc[i_d]
                    end = (th >= th_stop[i_d]) | (t_eval[k[due]] >= t[acc[i_d]])  # at (or past) the stop: the end state
                    a_s, P_s = _dense5(a_old[i_d], P_old[i_d], KA[i_d], KP[i_d], h_acc[i_d], np.minimum(th, 1.0))
                    out_a[acc[i_d], k[due]] = np.where(end[:, None], alpha[acc[i_d]], a_s)
                    out_S[acc[i_d], k[due]] = np.where(end[:, None, None], Sg[i_d], sig(P_s))
                    nxt[acc[due]] += 1
                status[acc[blown]] = BLOWUP
                if stop_on_convergence:
                    live = acc[~blown]
                    if live.size:
                        prm_live = params_at(t[live]) if params_at is not None else _subset_params(params, live, B)
                        _, dS = compiled.rhs(alpha[live], Sg[~blown], prm_live)
                        conv = np.linalg.norm(dS, axis=(1, 2)) < converge_tol * (1 + nS[~blown])
                        status[live[conv]] = CONVERGED
                done = (status[acc] == RUNNING) & (t[acc] >= T * (1 - 1e-15))
                status[acc[done]] = HORIZON
            # step-size collapse / non-finite on the rejected or failing members
            small = (h[act] < h_min * np.maximum(1.0, t[act])) & (status[act] == RUNNING)
            status[act[small]] = BLOWUP
            bad = ~finite & (status[act] == RUNNING) & (hh < h_min * 10 * np.maximum(1.0, ta))
            status[act[bad]] = BLOWUP

    # freeze stopped members in the remaining samples
    Sig_end = sig(Phi, Sigma0)
    for b in range(B):
        for j in range(nxt[b], n):
            out_a[b, j] = alpha[b]
            out_S[b, j] = Sig_end[b]
    return Solution(t_eval, out_a, out_S, status, t, alpha, Sig_end, n_steps, n_rej)
