"""Dense output (continuous extensions) of the moment integrators.

Samples at ``t_eval`` and blow-up crossings come from the interpolant of the accepted step that
covers them (DOPRI5: order 4; DOP853: order 7, Hairer's 3 extra stages).  Checked here:

* the coefficients themselves (``symbolic_tf.numeric._tableaus``): θ = 0 and θ = 1 reproduce y_n
  and the step's y_{n+1}, and the local error of the interpolant on the d = 1 Bernoulli flow
  ṡ = 2fs + 2vas² (softmax + drift with V = vI, F = fI; closed form
  s(t) = e^{2ft}s₀/(1 − 2va·g(t)s₀), g(t) = (e^{2ft} − 1)/(2f)) falls like h⁵ and h⁸;
* samples against the closed form (docs/mathematics.md §4, §6) on both backends and methods;
* the blow-up stop time equals the closed-form time at which ‖Σ‖_F reaches the threshold;
* a dense grid of samples costs no extra steps and gives the sparse grid's values.
"""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.numeric import _tableaus as tb
from symbolic_tf.numeric.closed_form import closed_form
from symbolic_tf.numeric.codegen import compile_system
from symbolic_tf.numeric.solution import BLOWUP, HORIZON
from symbolic_tf.symbolic.moments import derive

F_, V_, A_ = 0.3, 0.7, 0.5   # ṡ = 2fs + 2vas² (d = 1)


def _rhs(s):
    return 2 * F_ * s + 2 * V_ * A_ * s * s


def _exact(t, s0):
    g = np.expm1(2 * F_ * t) / (2 * F_)
    return np.exp(2 * F_ * t) * s0 / (1 - 2 * V_ * A_ * g * s0)


def _step_dopri5(y, h):
    """One DOPRI5 step of the scalar flow; returns y₁ and the dense-output function θ ↦ y(θ)."""
    A = [list(r) + [0] * (7 - len(r)) for r in tb.DOPRI5_A]
    K = np.zeros(7)
    for s in range(7):
        K[s] = _rhs(y + h * sum(A[s][j] * K[j] for j in range(s)))
    y1 = y + h * (tb.DOPRI5_B5 @ K)
    return y1, lambda th: y + h * (K @ (tb.DOPRI5_P @ np.array([th, th ** 2, th ** 3, th ** 4])))


def _step_dop853(y, h):
    n = tb.DOP853_N_STAGES
    A = np.zeros((16, 16))
    A[:n, :n] = tb.DOP853_A
    A[n + 1:] = tb.DOP853_A_EXTRA
    K = np.zeros(16)
    for s in range(n):
        K[s] = _rhs(y + h * (A[s, :s] @ K[:s]))
    y1 = y + h * (np.array(tb.DOP853_B) @ K[:n])
    K[n] = _rhs(y1)
    for s in range(n + 1, 16):
        K[s] = _rhs(y + h * (A[s, :s] @ K[:s]))
    dy = y1 - y
    Fc = [dy, h * K[0] - dy, 2 * dy - h * (K[n] + K[0])] + list(h * (np.array(tb.DOP853_D) @ K))

    def dense(th):
        v = 0.0
        for i, c in enumerate(reversed(Fc)):
            v = (v + c) * (th if i % 2 == 0 else 1 - th)
        return y + v
    return y1, dense


@pytest.mark.parametrize("step,order", [(_step_dopri5, 4), (_step_dop853, 7)])
def test_interpolant_endpoints_and_order(step, order):
    """y(0) = y_n, y(1) = y_{n+1}; local interpolation error ∝ h^(order+1) at interior θ."""
    s0 = 0.4
    y1, dense = step(s0, 0.1)
    assert dense(0.0) == s0
    assert abs(dense(1.0) - y1) <= 1e-15 * abs(y1)
    hs = np.array([0.2, 0.1, 0.05, 0.025]) if order == 4 else np.array([0.3, 0.15, 0.075])  # DOP853: above rounding
    err = []
    for h in hs:
        _, dense = step(s0, h)
        err.append(max(abs(dense(th) - _exact(th * h, s0)) for th in (0.25, 0.5, 0.8)))
    slope = np.polyfit(np.log(hs), np.log(err), 1)[0]
    assert order + 1 - 0.4 <= slope <= order + 1 + 0.6, (slope, err)


def test_dopri5_dense_coefficients_are_scipys():
    from scipy.integrate._ivp import dop853_coefficients as c8
    from scipy.integrate._ivp.rk import RK45

    np.testing.assert_allclose(tb.DOPRI5_P, RK45.P, rtol=1e-15, atol=0)
    np.testing.assert_allclose(tb.DOPRI5_P.sum(axis=1), tb.DOPRI5_B5, rtol=0, atol=1e-15)  # θ = 1: the step
    n = c8.N_STAGES
    np.testing.assert_array_equal(np.array(tb.DOP853_A_EXTRA), c8.A[n + 1:])
    np.testing.assert_array_equal(np.array(tb.DOP853_C_EXTRA), c8.C[n + 1:])
    np.testing.assert_array_equal(np.array(tb.DOP853_D), c8.D)


# ---- the integrators ------------------------------------------------------------------------------
_SYS: dict = {}


def _softmax_drift():
    if "s" not in _SYS:
        _SYS["s"] = compile_system(derive("softmax", drift=True, scale=None))
    return _SYS["s"]


def _problem(B=4, d=2, f=0.2, v=0.8, seed=3):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d)) + 1.2 * np.eye(d)
    L = rng.normal(size=(B, d, d))
    S0 = L @ L.transpose(0, 2, 1) / d + 0.05 * np.eye(d)
    prm = {"A": A, "V": v * np.eye(d), "F": f * np.eye(d), "b": np.zeros((d, 1)), "tau": 1.0}
    return S0, prm


def _rel(x, y):
    """Relative max difference; samples past a stop are NaN in both (the same ones) and skipped."""
    x, y = np.asarray(x), np.asarray(y)
    assert np.array_equal(np.isnan(x), np.isnan(y)), "the runs stop at different samples"
    ok = ~np.isnan(y)
    return np.max(np.abs(x[ok] - y[ok])) / max(np.max(np.abs(y[ok])), 1e-300)


_RUNS = [("numpy", "dopri5"), ("compiled", "dopri5"), ("compiled", "dop853")]


@pytest.mark.parametrize("backend,method", _RUNS)
def test_dense_samples_match_the_closed_form(backend, method):
    """400 samples on [0, T] (T below every blow-up time) against Σ(t) in closed form."""
    if backend == "compiled":
        pytest.importorskip("numba")
    comp = _softmax_drift()
    S0, prm = _problem(f=-0.3)
    B, d = S0.shape[:2]
    ex = closed_form(comp.system, np.zeros((B, d)), S0, prm, 50.0, [0.0])
    T = 0.9 * float(np.min(ex.t_end))
    ts = np.linspace(0, T, 400)
    sol = integrate_(comp, S0, prm, T, ts, backend, method, rtol=1e-10, atol=1e-12)
    ref = closed_form(comp.system, np.zeros((B, d)), S0, prm, T, ts)
    assert np.all(sol.status == HORIZON)
    assert _rel(sol.Sigma, ref.Sigma) <= 1e-8
    assert np.all(sol.n_steps < 100)   # far fewer steps than samples: the steps do not land on them
    np.testing.assert_allclose(sol.Sigma[:, -1], sol.Sigma_end, rtol=1e-14)  # T is landed on (not interpolated)


def integrate_(comp, S0, prm, T, ts, backend, method, **kw):
    from symbolic_tf.numeric.integrate import integrate

    B, d = S0.shape[:2]
    return integrate(comp, np.zeros((B, d)), S0, prm, T, t_eval=ts, backend=backend, method=method, **kw)


@pytest.mark.parametrize("backend,method", _RUNS)
def test_blowup_is_located_where_the_norm_crosses_the_threshold(backend, method):
    """t_end = the closed-form time at which ‖Σ(t)‖_F = blowup_norm·(1 + ‖Σ₀‖_F), the state there."""
    if backend == "compiled":
        pytest.importorskip("numba")
    comp = _softmax_drift()
    S0, prm = _problem(f=0.2)
    B, d = S0.shape[:2]
    norm = 1e3
    sol = integrate_(comp, S0, prm, 50.0, np.linspace(0, 50, 5), backend, method, rtol=1e-10, atol=1e-12,
                     blowup_norm=norm)
    assert np.all(sol.status == BLOWUP)
    thr = norm * (1 + np.linalg.norm(S0, axis=(1, 2)))
    ex = closed_form(comp.system, np.zeros((B, d)), S0, prm, 50.0, [0.0])
    for b in range(B):  # bisect the closed form's norm for the crossing time
        lo, hi = 0.0, float(ex.t_end[b])
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            s = closed_form(comp.system, np.zeros((1, d)), S0[b:b + 1], prm, 50.0, [mid]).Sigma[0, 0]
            lo, hi = (lo, mid) if np.linalg.norm(s) > thr[b] else (mid, hi)
        assert abs(sol.t_end[b] - hi) <= 1e-10 * hi, (b, sol.t_end[b], hi)
        assert abs(np.linalg.norm(sol.Sigma_end[b]) / thr[b] - 1) <= 1e-8
    # samples past the blow-up are not values of the solution: NaN
    late = sol.t_eval > sol.t_end[:, None]
    assert late.any()
    assert np.isnan(sol.Sigma[late]).all() and np.isnan(sol.alpha[late]).all()


@pytest.mark.parametrize("backend,method", _RUNS)
def test_dense_grid_equals_sparse_grid_at_common_times(backend, method):
    """The same steps whatever t_eval; values at the common times agree to the tolerance."""
    if backend == "compiled":
        pytest.importorskip("numba")
    comp = _softmax_drift()
    S0, prm = _problem(f=-0.5, seed=5)
    S0[1] = np.outer(S0[1, 0], S0[1, 0])  # rank one
    T = 2.0
    dense_t = np.linspace(0, T, 401)
    sparse_t = dense_t[::40]
    kw = dict(rtol=1e-10, atol=1e-12)
    ex = closed_form(comp.system, np.zeros(S0.shape[:2]), S0, prm, 50.0, [0.0])
    T = min(T, 0.9 * float(np.min(ex.t_end)))
    dense_t, sparse_t = dense_t * T / 2.0, sparse_t * T / 2.0
    dn = integrate_(comp, S0, prm, T, dense_t, backend, method, **kw)
    sp_ = integrate_(comp, S0, prm, T, sparse_t, backend, method, **kw)
    np.testing.assert_array_equal(dn.n_steps, sp_.n_steps)
    np.testing.assert_array_equal(dn.Sigma_end, sp_.Sigma_end)
    assert _rel(dn.Sigma[:, ::40], sp_.Sigma) <= 1e-14
    assert np.all(dn.n_steps < len(dense_t) / 4)


def test_backends_agree_on_dense_samples_and_crossings():
    pytest.importorskip("numba")
    comp = _softmax_drift()
    S0, prm = _problem(B=6, f=0.1, seed=7)
    ts = np.linspace(0, 20.0, 300)
    runs = [integrate_(comp, S0, prm, 20.0, ts, b, "dopri5", blowup_norm=1e4) for b in ("numpy", "compiled")]
    np.testing.assert_array_equal(runs[0].status, runs[1].status)
    np.testing.assert_allclose(runs[1].t_end, runs[0].t_end, rtol=1e-12)
    assert _rel(runs[1].Sigma, runs[0].Sigma) <= 1e-9


def test_timed_dop853_dense_output_uses_the_stage_times():
    """A parameter given as a polynomial in t (here constant in value) must give the same dense samples as
    the plain run: the 3 extra DOP853 stages evaluate it at their own times."""
    pytest.importorskip("numba")
    from symbolic_tf.numeric.integrate import integrate

    comp = _softmax_drift()
    S0, prm = _problem(f=-0.3, seed=9)
    B, d = S0.shape[:2]
    ts = np.linspace(0, 1.0, 57)
    plain = integrate(comp, np.zeros((B, d)), S0, prm, 1.0, t_eval=ts, backend="compiled", method="dop853")
    poly = {"F": np.stack([prm["F"], np.zeros((d, d))])}
    timed = integrate(comp, np.zeros((B, d)), S0, prm, 1.0, t_eval=ts, backend="compiled", method="dop853",
                      params_poly=poly)
    assert _rel(timed.Sigma, plain.Sigma) <= 1e-13
    # a genuinely time-dependent drift F(t) = (f₀ + f₁t)I: Σ(t) = e^{2∫F}Σ₀(...) has no simple form, so
    # compare against a tight numpy run instead
    poly = {"F": np.stack([prm["F"], 0.5 * np.eye(d)])}
    got = integrate(comp, np.zeros((B, d)), S0, prm, 1.0, t_eval=ts, backend="compiled", method="dop853",
                    params_poly=poly, rtol=1e-11, atol=1e-13)
    ref = integrate(comp, np.zeros((B, d)), S0, prm, 1.0, t_eval=ts, backend="numpy", params_poly=poly,
                    rtol=1e-12, atol=1e-14)
    assert _rel(got.Sigma, ref.Sigma) <= 1e-9


def test_kernel_cache_key_follows_the_generated_source(monkeypatch):
    """The on-disk kernel (and numba's cache beside it) is named by the SHA-256 of its source, and the source
    carries the dense-output code and the kernel version: a change of either is a new cache entry."""
    pytest.importorskip("numba")
    import hashlib

    from symbolic_tf.numeric import _kernels as kernels

    system = _softmax_drift().system
    src = kernels.generate_kernel_source(system, 2)
    assert "def _interp(" in src and "BISECT" in src and f"version {kernels.KERNEL_VERSION}" in src
    kern = kernels.kernel_for(system, 2)
    assert kern.path.name == f"kernel_{hashlib.sha256(kern.source.encode()).hexdigest()[:24]}.py"
    monkeypatch.setattr(kernels, "KERNEL_VERSION", kernels.KERNEL_VERSION + "-changed")
    assert kernels.generate_kernel_source(system, 2) != src
