"""The oracle's integrator, compiled: one DOP853 segment of the (U, s) covariance flow in numba.

Used by tests/soundness/oracle.py when its engine is "compiled" (benchmarks/soak.py); the
judgement logic stays in oracle.py and is the same for both engines.  Like the rest of the
oracle, nothing here uses symbolic_tf: the right-hand side is written out by hand from
docs/mathematics.md §3 (the same formulas as ``oracle.rhs_for``) and the integrator is the
Dormand–Prince 8(5,3) pair with the step-size control of SciPy's ``DOP853`` (its Butcher table is
read from SciPy, the only thing shared with the SciPy engine), run to the same ``rtol``/``atol``.

The state is y = (upper triangle of U, s) with Σ = e^s U, ‖U‖_F = 1:

    G = F U + U Fᵀ + e^s Σ_h (J_h U + U J_hᵀ),   J_h = C_h U A_h      (all heads softmax)
    G = (J Σ + Σ Jᵀ)/e^s,  J = F + Σ_h J_h(Σ),   Σ = e^s U           (otherwise), with
        J_h = C_h Σ A_h (softmax),  2 C_h Σ (I + 2 c_h KᵀK Σ)⁻¹ A_h (l2),  C_h M A_h (sinkhorn,
        M = Σ(I + RΣ)⁻¹ from the Sinkhorn fixed point, warm-started),
    U̇ = G − U⟨U, G⟩ − U(‖U‖² − 1),   ṡ = ⟨U, G⟩.

Differences from the SciPy engine, none of which loosens the integration's tolerance: the Sinkhorn
fixed point also stops when its step stalls at the rounding level (≤ 1e-13 relative and no longer
shrinking) instead of running on to 300 iterations; output times are hit by
shortening the step that would pass them (SciPy interpolates its dense output), and the event
"s reached s_top" is reported at the end of the first accepted step with s ≥ s_top (SciPy
locates the crossing).  tests/soundness/test_compiled_oracle.py cross-checks the two engines and
the closed form T* of V = vI.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop

__all__ = ["SOFTMAX", "L2", "SINKHORN", "pack_heads", "segment", "warm_up"]

SOFTMAX, L2, SINKHORN = 0, 1, 2
_NS = _dop.N_STAGES
_A = np.ascontiguousarray(_dop.A[:_NS, :_NS])
_B = np.ascontiguousarray(_dop.B)
_C = np.ascontiguousarray(_dop.C[:_NS])
_E3 = np.ascontiguousarray(_dop.E3)
_E5 = np.ascontiguousarray(_dop.E5)

# segment outcomes
END, EVENT, BUDGET, FAILED = 0, 1, 2, 3


def pack_heads(heads, F):
    """Arrays for :func:`segment` from the oracle's head list [(kind, A, C, KᵀK, scale)] and F.

    Parameters
    ----------
    heads : list of tuple
        ``(kind, A, C, KtK, scale)`` with kind "softmax", "l2" or "sinkhorn" (``KtK`` None
        unless l2).
    F : ndarray
        The drift (zeros without one).

    Returns
    -------
    tuple
        ``(kinds, As, Cs, KtKs, scs, F, quad)`` for :func:`segment`.
    """
    d = F.shape[0]
    code = {"softmax": SOFTMAX, "l2": L2, "sinkhorn": SINKHORN}
    H = len(heads)
    kinds = np.array([code[h[0]] for h in heads], dtype=np.int64)
    As = np.zeros((H, d, d))
    Cs = np.zeros((H, d, d))
    KtKs = np.zeros((H, d, d))
    scs = np.zeros(H)
    for k, (kind, A, C, KtK, sc) in enumerate(heads):
        As[k], Cs[k], scs[k] = A, C, sc
        if KtK is not None:
            KtKs[k] = KtK
    quad = bool(np.all(kinds == SOFTMAX))
    return kinds, As, Cs, KtKs, scs, np.ascontiguousarray(F, dtype=float), quad


@njit(cache=True)
def _mm(X, Y, out):
    n = X.shape[0]
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for k in range(n):
                acc += X[i, k] * Y[k, j]
            out[i, j] = acc


@njit(cache=True)
def _sinkhorn_gain(S, A, P):
    """M = Σ(I + RΣ)⁻¹ of the Gaussian Sinkhorn self-coupling; P (warm start) updated in place."""
    d = S.shape[0]
    I = np.eye(d)
    last = np.inf
    for _ in range(300):
        N = S @ np.linalg.inv(I + P @ S)
        R = A @ N @ A.T
        M = S @ np.linalg.inv(I + R @ S)
        Pn = A.T @ M @ A
        Pn = (Pn + Pn.T) / 2
        step = np.max(np.abs(Pn - P))
        scale = 1 + np.max(np.abs(Pn))
        # converged, or stalled at the rounding level (the step no longer shrinks below 1e-13)
        conv = step <= 1e-15 * scale or (step <= 1e-13 * scale and step >= last)
        last = step
        P[:, :] = Pn
        if conv:
            break
    N = S @ np.linalg.inv(I + P @ S)
    R = A @ N @ A.T
    return S @ np.linalg.inv(I + R @ S)


@njit(cache=True)
def _rhs(y, out, d, kinds, As, Cs, KtKs, scs, F, quad, Ps, U, G, J, T1, T2):
    n = d * (d + 1) // 2
    k = 0
    for i in range(d):
        for j in range(i, d):
            U[i, j] = y[k]
            U[j, i] = y[k]
            k += 1
    s = y[n]
    H = kinds.shape[0]
    if quad:
        # G = F U + U Fᵀ + e^s Σ_h (J U + U Jᵀ), J = C U A
        _mm(F, U, T1)
        for i in range(d):
            for j in range(d):
                G[i, j] = T1[i, j] + T1[j, i]
        if s > -700.0:
            e = math.exp(s)
            for h in range(H):
                _mm(Cs[h], U, T1)
                _mm(T1, As[h], J)
                _mm(J, U, T2)
                for i in range(d):
                    for j in range(d):
                        G[i, j] += e * (T2[i, j] + T2[j, i])
    else:
        nrm = math.exp(min(s, 700.0))
        S = nrm * U
        for i in range(d):
            for j in range(d):
                J[i, j] = F[i, j]
        for h in range(H):
            if kinds[h] == SOFTMAX:
                Jh = Cs[h] @ S @ As[h]
            elif kinds[h] == L2:
                Jh = 2.0 * Cs[h] @ S @ np.linalg.inv(np.eye(d) + 2.0 * scs[h] * KtKs[h] @ S) @ As[h]
            else:
                Jh = Cs[h] @ _sinkhorn_gain(S, As[h], Ps[h]) @ As[h]
            J += Jh
        _mm(J, S, T2)
        for i in range(d):
            for j in range(d):
                G[i, j] = (T2[i, j] + T2[j, i]) / nrm
    ip = 0.0
    uu = 0.0
    for i in range(d):
        for j in range(d):
            g = 0.5 * (G[i, j] + G[j, i])
            T1[i, j] = g
            ip += U[i, j] * g
            uu += U[i, j] * U[i, j]
    k = 0
    for i in range(d):
        for j in range(i, d):
            out[k] = T1[i, j] - U[i, j] * ip - U[i, j] * (uu - 1.0)
            k += 1
    out[n] = ip


@njit(cache=True)
def _rms(x):
    acc = 0.0
    for v in x:
        acc += v * v
    return math.sqrt(acc / x.shape[0])


@njit(cache=True)
def segment(y0, t0, t_end, s_top, t_eval, rtol, atol, evals_left,
            kinds, As, Cs, KtKs, scs, F, quad, Ps, Ac, Bc, Cc, E3, E5):
    """Integrate from (t0, y0) towards t_end with DOP853 until t_end, s ≥ s_top, the budget
    (``evals_left`` right-hand side evaluations) or a step-size collapse.

    Returns (code, t, y, ts, ys, m, evals): ``code`` END/EVENT/BUDGET/FAILED, the last accepted
    state, the states at the first ``m`` requested times ``t_eval`` (ascending, each ≥ t0) and the
    number of evaluations used."""
    d = F.shape[0]
    n = y0.shape[0]
    U = np.zeros((d, d))
    G = np.zeros((d, d))
    J = np.zeros((d, d))
    T1 = np.zeros((d, d))
    T2 = np.zeros((d, d))
    ns = Ac.shape[0]
    K = np.zeros((ns + 1, n))
    ts = np.zeros(t_eval.shape[0])
    ys = np.zeros((t_eval.shape[0], n))
    m = 0
    t = t0
    y = y0.copy()
    ynew = np.zeros(n)
    ytmp = np.zeros(n)
    f = np.zeros(n)
    f1 = np.zeros(n)
    sc = np.zeros(n)
    evals = 0
    while m < t_eval.shape[0] and t_eval[m] <= t:
        ts[m] = t
        ys[m] = y
        m += 1
    if t >= t_end:
        return END, t, y, ts, ys, m, evals
    _rhs(y, f, d, kinds, As, Cs, KtKs, scs, F, quad, Ps, U, G, J, T1, T2)
    evals += 1
    # initial step (Hairer–Nørsett–Wanner II.4, as SciPy)
    for i in range(n):
        sc[i] = atol + abs(y[i]) * rtol
    d0 = _rms(y / sc)
    d1 = _rms(f / sc)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, t_end - t)
    for i in range(n):
        ytmp[i] = y[i] + h0 * f[i]
    _rhs(ytmp, f1, d, kinds, As, Cs, KtKs, scs, F, quad, Ps, U, G, J, T1, T2)
    evals += 1
    d2 = _rms((f1 - f) / sc) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    h_abs = min(100 * h0, h1, t_end - t)
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(f1))):
        return FAILED, t, y, ts, ys, m, evals
    while True:
        t_stop = t_end if m >= t_eval.shape[0] else min(t_end, t_eval[m])
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if h_abs < min_step:
            h_abs = min_step
        rejected = False
        while True:
            if h_abs < min_step:
                return FAILED, t, y, ts, ys, m, evals
            if evals + ns > evals_left:
                return BUDGET, t, y, ts, ys, m, evals
            t_new = t + h_abs
            if t_new > t_stop:
                t_new = t_stop
            h = t_new - t
            for i in range(n):
                K[0, i] = f[i]
            for st in range(1, ns):
                for i in range(n):
                    acc = 0.0
                    for r in range(st):
                        acc += K[r, i] * Ac[st, r]
                    ytmp[i] = y[i] + h * acc
                _rhs(ytmp, K[st], d, kinds, As, Cs, KtKs, scs, F, quad, Ps, U, G, J, T1, T2)
            for i in range(n):
                acc = 0.0
                for r in range(ns):
                    acc += K[r, i] * Bc[r]
                ynew[i] = y[i] + h * acc
            _rhs(ynew, K[ns], d, kinds, As, Cs, KtKs, scs, F, quad, Ps, U, G, J, T1, T2)
            evals += ns
            e5 = 0.0
            e3 = 0.0
            for i in range(n):
                s_i = atol + max(abs(y[i]), abs(ynew[i])) * rtol
                a5 = 0.0
                a3 = 0.0
                for r in range(ns + 1):
                    a5 += K[r, i] * E5[r]
                    a3 += K[r, i] * E3[r]
                e5 += (a5 / s_i) ** 2
                e3 += (a3 / s_i) ** 2
            if e5 == 0.0 and e3 == 0.0:
                err = 0.0
            else:
                err = abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n)
            if err < 1.0:  # accepted (a NaN error is never accepted)
                factor = 10.0 if err == 0.0 else min(10.0, 0.9 * err ** (-1.0 / 8.0))
                if rejected:
                    factor = min(1.0, factor)
                if not (t_new == t_stop and t_stop < t_end):  # a step shortened to hit an output time
                    h_abs = abs(h) * factor                  # keeps its proposal for the next step
                break
            if err != err:
                h_abs *= 0.2
            else:
                h_abs *= max(0.2, 0.9 * err ** (-1.0 / 8.0))
            rejected = True
        t = t_new
        for i in range(n):
            y[i] = ynew[i]
            f[i] = K[ns, i]
        while m < t_eval.shape[0] and t_eval[m] <= t:
            ts[m] = t
            ys[m] = y
            m += 1
        if y[n - 1] >= s_top:
            return EVENT, t, y, ts, ys, m, evals
        if t >= t_end:
            return END, t, y, ts, ys, m, evals


def run_segment(packed, Ps, y0, t0, t_end, s_top, t_eval, rtol, atol, evals_left):
    """:func:`segment` with the packed right-hand side and the Butcher table filled in.

    Parameters
    ----------
    packed : tuple
        :func:`pack_heads` output.
    Ps : ndarray
        Sinkhorn warm starts, shape (heads, d, d), updated in place.
    y0, t0, t_end, s_top, t_eval, rtol, atol, evals_left
        See :func:`segment`.

    Returns
    -------
    tuple
        :func:`segment`'s (code, t, y, ts, ys, m, evals).
    """
    kinds, As, Cs, KtKs, scs, F, quad = packed
    return segment(np.ascontiguousarray(y0, dtype=float), float(t0), float(t_end), float(s_top),
                   np.ascontiguousarray(t_eval, dtype=float), float(rtol), float(atol), int(evals_left),
                   kinds, As, Cs, KtKs, scs, F, quad, Ps, _A, _B, _C, _E3, _E5)


def warm_up():
    """Compile (or load from numba's cache) both right-hand side paths once.

    Returns
    -------
    None
    """
    for kind in ("softmax", "sinkhorn", "l2"):
        d = 2
        A = np.eye(d)
        packed = pack_heads([(kind, A, -A, np.eye(d) if kind == "l2" else None, 1.0)], np.zeros((d, d)))
        Ps = np.zeros((1, d, d))
        y0 = np.array([1.0 / math.sqrt(2), 0.0, 1.0 / math.sqrt(2), 0.0])
        run_segment(packed, Ps, y0, 0.0, 0.1, 25.0, np.array([0.05]), 1e-10, 1e-14, 10_000)
