"""Compiled (numba) kernels against the numpy path and against closed forms.

The compiled path runs the same algorithm as the numpy path (same state (α, Ψ), tableau, error
norm, step rule, stopping rules), so for every Gaussian-closed variant of the registry, the drift
model and multi-head the two agree to the integration tolerance and stop for the same reason at
the same time; DOP853 is checked against the closed forms of docs/mathematics.md §4, §6.
"""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.numeric.closed_form import applies, closed_form
from symbolic_tf.numeric.codegen import compile_system
from symbolic_tf.numeric.integrate import integrate
from symbolic_tf.numeric.solution import BLOWUP, CONVERGED, HORIZON
from symbolic_tf.spec.errors import InvalidParameters, NotGaussianClosed
from symbolic_tf.symbolic.moments import derive
from symbolic_tf.variants import get, names

pytest.importorskip("numba")


def _systems():
    """(label, derive kwargs) for every registered variant, the drift model and mixed multi-head."""
    out = [(v, {"variant": v}) for v in names()]
    out.append(("softmax+drift", {"variant": "softmax", "drift": True}))
    out.append(("multihead[softmax,l2,sinkhorn]", {"variant": "multihead", "heads": ["softmax", "l2", "sinkhorn"]}))
    return out


_COMPILED: dict = {}


def _compiled(kw):
    key = repr(sorted(kw.items()))
    if key not in _COMPILED:
        _COMPILED[key] = compile_system(derive(kw["variant"], **{k: v for k, v in kw.items() if k != "variant"},
                                               scale=None))
    return _COMPILED[key]


def _params(comp, d, rng):
    """Random parameters of the right shapes (Q, K ∈ ℝ^{k×d} with k = d − 1 when d > 1)."""
    import sympy as sp

    from symbolic_tf.symbolic import symbols as S

    k = max(d - 1, 1)
    prm = {}
    for e in (comp.system.closure.J, comp.system.closure.c):
        for m in sorted(e.atoms(sp.MatrixSymbol), key=lambda m: m.name):  # a fixed order: a fixed problem
            if m.name in ("alpha", "Sigma") or m.name in prm:
                continue
            r, c = (int(sp.sympify(x).subs({S.d: d, S.k: k})) for x in m.shape)
            prm[m.name] = 0.4 * rng.normal(size=(r, c))
    for name in comp.parameters:
        prm.setdefault(name, 0.8)   # scalars: τ
    return prm


def _rel(x, y):
    return np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-300)


def _cases():
    """Every system at d = 2 (unrolled entries); at d = 5 (loop helpers) the mixed multi-head, whose
    heads use every construct of the loop printer (products, inverse, square root), and the drift."""
    out = [pytest.param(label, kw, 2, id=f"{label}-d2") for label, kw in _systems()]
    out += [pytest.param(label, kw, 5, id=f"{label}-d5") for label, kw in _systems()
            if label.startswith("multihead[") or label == "softmax+drift"]
    return out


@pytest.mark.parametrize("label,kw,d", _cases())
def test_compiled_equals_numpy_on_every_variant(label, kw, d):
    """Same samples, statuses, stop times and step counts as the numpy path, every variant."""
    try:
        comp = _compiled(kw)
    except NotGaussianClosed:
        assert get(kw["variant"]).expected_closed is False  # only the non-closed variants have no system
        return
    rng = np.random.default_rng(d)
    B = 6
    prm = _params(comp, d, rng)
    L = rng.normal(size=(B, d, d))
    S0 = L @ L.transpose(0, 2, 1) / d
    S0[0] = np.outer(L[0, :, 0], L[0, :, 0])   # a singular Σ₀ (rank 1)
    a0 = 0.3 * rng.normal(size=(B, d))
    ts = np.linspace(0, 1.5, 6)
    kw_int = dict(t_eval=ts, rtol=1e-10, atol=1e-12)
    ref = integrate(comp, a0, S0, prm, 1.5, backend="numpy", **kw_int)
    got = integrate(comp, a0, S0, prm, 1.5, backend="compiled", **kw_int)
    assert got.method == "dopri5/compiled" and ref.method == "dopri5/numpy"
    np.testing.assert_array_equal(got.status, ref.status)
    live = got.status == HORIZON
    assert live.any()  # the comparison below must see members that reached the horizon
    assert _rel(got.Sigma[live], ref.Sigma[live]) <= 1e-9
    assert _rel(got.alpha[live], ref.alpha[live]) <= 1e-9
    np.testing.assert_allclose(got.t_end[live], ref.t_end[live], rtol=1e-12)
    # a blow-up stops where ‖Σ‖ crosses blowup_norm·(1 + ‖Σ₀‖): the last steps before the
    # singularity amplify rounding, so the stop times agree to the event's resolution
    np.testing.assert_allclose(got.t_end[~live], ref.t_end[~live], rtol=1e-6)
    # same algorithm: the step sequences coincide up to rounding-level decisions
    assert np.all(np.abs(got.n_steps - ref.n_steps)[live] <= 2)
    # the kernel's own right-hand side equals the numpy one at random states
    from symbolic_tf.numeric.integrate import _k_rows
    from symbolic_tf.numeric._kernels import kernel_for

    kern = kernel_for(comp.system, d, _k_rows(comp.system, prm, d))
    da, dS = kern.rhs(a0, S0, prm)
    na, nS = comp.rhs(a0, S0, prm)
    assert _rel(dS, nS) <= 1e-12 and _rel(da, na) <= 1e-12


@pytest.mark.parametrize("d", [1, 2, 8])
@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_compiled_softmax_identity_value_closed_form(d, method):
    """V = I: Σ(t) = Σ₀(I − t(A+Aᵀ)Σ₀)⁻¹ and blow-up at T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}) (§4)."""
    comp = _compiled({"variant": "softmax"})
    rng = np.random.default_rng(10 + d)
    B = 5
    A = rng.normal(size=(d, d)) + np.eye(d)
    L = rng.normal(size=(B, d, d))
    S0 = L @ L.transpose(0, 2, 1) / d + 0.1 * np.eye(d)
    M = A + A.T
    lam = np.array([np.linalg.eigvalsh(np.linalg.cholesky(S).T @ M @ np.linalg.cholesky(S)).max() for S in S0])
    assert np.all(lam > 0)
    Ts = 1 / lam
    ts = np.linspace(0, 0.9 * Ts.min(), 5)
    sol = integrate(comp, np.zeros((B, d)), S0, {"A": A, "V": np.eye(d), "tau": 1.0}, 2 * Ts.max(), t_eval=ts,
                    backend="compiled", method=method, rtol=1e-11, atol=1e-13, blowup_norm=1e9)
    assert np.all(sol.status == BLOWUP)
    assert np.max(np.abs(sol.t_end - Ts) / Ts) <= 1e-7
    for j, t in enumerate(ts):
        exact = np.array([S @ np.linalg.inv(np.eye(d) - t * M @ S) for S in S0])
        assert _rel(sol.Sigma[:, j], exact) <= 1e-8


def test_events_fire_at_the_same_times():
    """Blow-up, convergence and horizon: same members, same times, numpy vs compiled."""
    comp = _compiled({"variant": "softmax", "drift": True})
    d = 2
    F = np.array([[1.0, 0.3], [-0.2, 0.8]])
    Bm = -np.eye(d) + np.array([[0, 0.4], [-0.4, 0]])
    prm_conv = {"A": Bm, "V": np.eye(d), "F": F, "b": np.zeros((d, 1)), "tau": 1.0}
    S0 = np.stack([np.eye(d) * s for s in (0.3, 1.0, 2.5)])
    runs = [integrate(comp, np.zeros((3, d)), S0, prm_conv, 60.0, stop_on_convergence=True, converge_tol=1e-9,
                      backend=b) for b in ("numpy", "compiled")]
    assert np.all(runs[0].status == CONVERGED)
    np.testing.assert_array_equal(runs[0].status, runs[1].status)
    np.testing.assert_allclose(runs[1].t_end, runs[0].t_end, rtol=1e-9)
    prm_blow = {"A": -Bm, "V": 1.3 * np.eye(d), "F": 0.7 * np.eye(d), "b": np.zeros((d, 1)), "tau": 1.0}
    runs = [integrate(comp, np.zeros((3, d)), S0, prm_blow, 10.0, backend=b) for b in ("numpy", "compiled")]
    assert np.all(runs[0].status == BLOWUP)
    np.testing.assert_array_equal(runs[0].status, runs[1].status)
    np.testing.assert_allclose(runs[1].t_end, runs[0].t_end, rtol=1e-9)
    exact = closed_form(comp.system, np.zeros((3, d)), S0, prm_blow, 10.0, [0.0, 10.0])
    np.testing.assert_allclose(runs[1].t_end, exact.t_end, rtol=1e-6)


def test_auto_backend_choice():
    from symbolic_tf.numeric.integrate import AUTO_MIN_BATCH

    comp = _compiled({"variant": "softmax"})
    d = 2
    prm = {"A": -np.eye(d), "V": np.eye(d), "tau": 1.0}
    small = integrate(comp, np.zeros(d), np.eye(d), prm, 1.0)
    big = integrate(comp, np.zeros((AUTO_MIN_BATCH, d)), np.broadcast_to(np.eye(d), (AUTO_MIN_BATCH, d, d)), prm, 1.0)
    assert small.method == "dopri5/numpy" and big.method == "dopri5/compiled"
    # Σ(1) = (I + 2I)⁻¹ for A = −I, V = I, Σ₀ = I (§4)
    assert np.allclose(big.Sigma_end, np.eye(d) / 3, rtol=1e-9)


def test_threaded_batch_equals_member_by_member_runs():
    """The threaded runner (B ≥ PARALLEL_MIN_BATCH) gives every member exactly its own serial result."""
    from symbolic_tf.numeric._kernels import PARALLEL_MIN_BATCH

    comp = _compiled({"variant": "softmax"})
    rng = np.random.default_rng(3)
    d, B = 2, PARALLEL_MIN_BATCH
    L = rng.normal(size=(B, d, d))
    S0 = L @ L.transpose(0, 2, 1) / d + 0.1 * np.eye(d)
    prm = {"A": rng.normal(size=(d, d)), "V": np.eye(d) + 0.3 * rng.normal(size=(d, d)), "tau": 1.0}
    for method in ("dopri5", "dop853"):
        big = integrate(comp, np.zeros((B, d)), S0, prm, 2.0, backend="compiled", method=method)
        for b in (0, B // 2, B - 1):
            one = integrate(comp, np.zeros(d), S0[b], prm, 2.0, backend="compiled", method=method)
            assert big.status[b] == one.status[0] and big.t_end[b] == one.t_end[0]
            np.testing.assert_array_equal(big.Sigma_end[b], one.Sigma_end[0])


# ---- closed forms ----------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [0.0, 0.6, -0.4])
def test_closed_form_matches_integration_and_the_blowup_formula(f):
    """Σ(t) = e^{2ft}Σ₀(I − g(t)RΣ₀)⁻¹ and T* = ln(1 + 2f/λ)/(2f) against the integrator (§6)."""
    comp = _compiled({"variant": "softmax", "drift": True})
    rng = np.random.default_rng(4)
    d, B = 2, 4
    A = rng.normal(size=(d, d)) + 1.2 * np.eye(d)
    v = 0.8
    L = rng.normal(size=(B, d, d))
    S0 = L @ L.transpose(0, 2, 1) / d
    S0[1] = np.outer(L[1, :, 0], L[1, :, 0])  # rank one
    prm = {"A": A, "V": v * np.eye(d), "F": f * np.eye(d), "b": np.zeros((d, 1)), "tau": 1.0}
    T = 3.0
    ts = np.linspace(0, T, 13)
    cf = integrate(comp, np.zeros((B, d)), S0, prm, T, t_eval=ts, closed_form=True)
    num = integrate(comp, np.zeros((B, d)), S0, prm, T, t_eval=ts, rtol=1e-12, atol=1e-14, blowup_norm=1e10,
                    backend="compiled", method="dop853")
    assert cf.method == "closed form"
    np.testing.assert_array_equal(cf.status, num.status)
    for b in range(B):
        ok = ts < (cf.t_end[b] if cf.status[b] == BLOWUP else np.inf)
        assert _rel(num.Sigma[b, ok], cf.Sigma[b, ok]) <= 1e-9
        if cf.status[b] == BLOWUP:
            assert abs(num.t_end[b] - cf.t_end[b]) <= 1e-8 * cf.t_end[b]
            assert np.all(np.isnan(cf.Sigma[b, ~ok]))
    # the residual of Σ̇ = 2fΣ + ΣRΣ at the closed form, by a central difference
    R = v * (A + A.T)
    t, e = 0.3 * cf.t_end.min(), 1e-6
    Sm, S, Sp = (closed_form(comp.system, np.zeros((B, d)), S0, prm, T, [t + s]).Sigma[:, 0] for s in (-e, 0, e))
    resid = (Sp - Sm) / (2 * e) - (2 * f * S + S @ R @ S)
    assert np.max(np.abs(resid)) <= 1e-6 * np.max(np.abs(S @ R @ S) + 1)


def test_closed_form_declines_what_it_does_not_cover():
    soft = _compiled({"variant": "softmax"})
    d = 2
    base = {"A": np.eye(d), "V": np.eye(d), "tau": 1.0}
    assert applies(soft.system, np.zeros((1, d)), base, d, 1) is None
    assert "multiple of the identity" in applies(soft.system, np.zeros((1, d)), {**base, "V": np.diag([1.0, 2.0])}, d, 1)
    assert "α₀" in applies(soft.system, np.ones((1, d)), base, d, 1)
    l2 = _compiled({"variant": "l2"})
    assert applies(l2.system, np.zeros((1, d)), base, d, 1) is not None
    # declined → integrated, labelled as such
    sol = integrate(soft, np.zeros(d), np.eye(d), {**base, "V": np.diag([1.0, 2.0])}, 0.1, closed_form=True)
    assert sol.method.startswith("dopri5")


def test_bad_backend_and_method_inputs():
    comp = _compiled({"variant": "softmax"})
    prm = {"A": np.eye(2), "V": np.eye(2), "tau": 1.0}
    with pytest.raises(InvalidParameters):
        integrate(comp, np.zeros(2), np.eye(2), prm, 1.0, backend="gpu")
    with pytest.raises(InvalidParameters):
        integrate(comp, np.zeros(2), np.eye(2), prm, 1.0, method="rk4")
    with pytest.raises(InvalidParameters):
        integrate(comp, np.zeros(2), np.eye(2), prm, 1.0, backend="numpy", method="dop853")
    with pytest.raises(InvalidParameters):
        integrate(comp, np.zeros(9), np.eye(9), {"A": np.eye(9), "V": np.eye(9), "tau": 1.0}, 1.0, backend="compiled")
    with pytest.raises(InvalidParameters):
        integrate(comp, np.zeros(2), np.eye(2), prm, 1.0, rtol=-1.0)
    with pytest.raises(InvalidParameters):  # a parameter batch of the wrong length
        integrate(comp, np.zeros((3, 2)), np.broadcast_to(np.eye(2), (3, 2, 2)),
                  {**prm, "A": np.ones((2, 2, 2))}, 1.0, backend="compiled")


def test_dop853_coefficients_are_scipys():
    """The copied DOP853 tableau equals SciPy's, and its 8th-order weights are consistent."""
    from scipy.integrate._ivp import dop853_coefficients as c8

    from symbolic_tf.numeric import _tableaus as ours

    n = c8.N_STAGES
    np.testing.assert_array_equal(np.array(ours.DOP853_A), c8.A[:n, :n])
    np.testing.assert_array_equal(np.array(ours.DOP853_B), c8.B)
    np.testing.assert_array_equal(np.array(ours.DOP853_E3), c8.E3)
    np.testing.assert_array_equal(np.array(ours.DOP853_E5), c8.E5)
    assert abs(sum(ours.DOP853_B) - 1) < 1e-14  # consistency: Σ b_i = 1
