"""The batched Dormand–Prince integrator against closed forms (docs/mathematics.md §4, §6)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import sqrtm

from symbolic_tf.numeric.codegen import compile_system
from symbolic_tf.numeric.integrate import integrate
from symbolic_tf.numeric.solution import BLOWUP, CONVERGED, HORIZON
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.symbolic.moments import derive


@pytest.fixture(scope="module")
def softmax(tmp_path_factory):
    return compile_system(derive("softmax", scale=None), cache=tmp_path_factory.mktemp("gen"))


@pytest.fixture(scope="module")
def drift(tmp_path_factory):
    return compile_system(derive("softmax", drift=True, scale=None), cache=tmp_path_factory.mktemp("gen"))


def _blowup_time(S0, A):
    R = np.real(sqrtm(S0))
    lam = np.linalg.eigvalsh(R @ (A + A.T) @ R).max()
    return 1 / lam if lam > 0 else np.inf


def _random_case(rng, d):
    A = rng.normal(size=(d, d))
    L = rng.normal(size=(d, d))
    S0 = L @ L.T / d + 0.2 * np.eye(d)
    return A, S0


@pytest.mark.parametrize("d", [2, 3, 5])
def test_softmax_identity_value_closed_form(softmax, d):
    """V = I: Σ(t) = (Σ₀⁻¹ − t(A+Aᵀ))⁻¹ to 1e-9 relative before 0.9·T*; blow-up within 1e-3 of T*."""
    rng = np.random.default_rng(d)
    for _ in range(3):
        A, S0 = _random_case(rng, d)
        Ts = _blowup_time(S0, A)
        if not np.isfinite(Ts):
            continue
        ts = np.linspace(0, 0.9 * Ts, 7)
        sol = integrate(softmax, np.zeros(d), S0, {"A": A, "V": np.eye(d), "tau": 1.0}, 2 * Ts, t_eval=ts)
        for j, t in enumerate(ts):
            exact = np.linalg.inv(np.linalg.inv(S0) - t * (A + A.T))
            assert np.linalg.norm(sol.Sigma[0, j] - exact) <= 1e-9 * np.linalg.norm(exact)
        assert sol.status[0] == BLOWUP
        assert abs(sol.t_end[0] - Ts) <= 1e-3 * Ts


def test_rank_invariance_for_singular_initial_covariance(softmax):
    """Rank-1 Σ₀: Σ(t) = Σ₀(I − t(A+Aᵀ)Σ₀)⁻¹ stays rank 1 (docs/mathematics.md §4)."""
    rng = np.random.default_rng(5)
    d = 3
    A = rng.normal(size=(d, d))
    v = rng.normal(size=(d, 1))
    S0 = v @ v.T
    M = A + A.T
    lam = (v.T @ M @ v).item()
    T = 0.8 / lam if lam > 0 else 1.0
    ts = np.linspace(0, T, 5)
    sol = integrate(softmax, np.zeros(d), S0, {"A": A, "V": np.eye(d), "tau": 1.0}, T, t_eval=ts)
    for j, t in enumerate(ts):
        S = sol.Sigma[0, j]
        sv = np.linalg.svd(S, compute_uv=False)
        assert sv[1] <= 1e-12 * sv[0]
        exact = S0 @ np.linalg.inv(np.eye(d) - t * M @ S0)
        assert np.linalg.norm(S - exact) <= 1e-9 * np.linalg.norm(exact)
        assert np.array_equal(S, S.T)


def test_drift_scalar_blowup_time(drift):
    """F = fI, V = vI: T* = ln(1 + f/ρ)/(2f), ρ = λ_max(Σ₀^{1/2}RΣ₀^{1/2})/2, R = v(B+Bᵀ) (docs/mathematics.md §6)."""
    rng = np.random.default_rng(2)
    d = 2
    B = rng.normal(size=(d, d)) + 1.5 * np.eye(d)
    S0 = np.array([[1.0, 0.2], [0.2, 0.6]])
    f, v = 0.7, 1.3
    R = v * (B + B.T)
    Rh = np.real(sqrtm(S0))
    rho = np.linalg.eigvalsh(Rh @ R @ Rh).max() / 2
    assert rho > 0
    Ts = np.log(1 + f / rho) / (2 * f)
    prm = {"A": B, "V": v * np.eye(d), "F": f * np.eye(d), "b": np.zeros((d, 1)), "tau": 1.0}
    sol = integrate(drift, np.zeros(d), S0, prm, 3 * Ts)
    assert sol.status[0] == BLOWUP and abs(sol.t_end[0] - Ts) <= 1e-3 * Ts


def test_drift_stable_equilibrium(drift):
    """R ≺ 0, F anti-Hurwitz: Σ → Σ* = P*⁻¹ with FᵀP* + P*F = −R (docs/mathematics.md §6)."""
    from scipy.linalg import solve_continuous_lyapunov

    d = 2
    F = np.array([[1.0, 0.3], [-0.2, 0.8]])
    B = -np.eye(d) + np.array([[0, 0.4], [-0.4, 0]])
    v = 1.0
    R = v * (B + B.T)
    Pstar = solve_continuous_lyapunov(F.T, -R)
    Sstar = np.linalg.inv(Pstar)
    prm = {"A": B, "V": np.eye(d), "F": F, "b": np.zeros((d, 1)), "tau": 1.0}
    sol = integrate(drift, np.zeros(d), np.eye(d), prm, 40.0, stop_on_convergence=True, converge_tol=1e-11)
    assert sol.status[0] in (CONVERGED, HORIZON)
    assert np.linalg.norm(sol.Sigma_end[0] - Sstar) <= 1e-8 * np.linalg.norm(Sstar)


def test_convergence_event_and_batch_consistency(softmax):
    """A + Aᵀ ≺ 0, V = I: global solution, Σ → 0; batched members equal single runs."""
    d = 2
    A = np.array([[-1.0, 0.5], [-0.3, -0.7]])
    S0s = np.stack([np.eye(d) * s for s in (0.5, 1.0, 2.0)])
    prm = {"A": A, "V": np.eye(d), "tau": 1.0}
    sol = integrate(softmax, np.zeros((3, d)), S0s, prm, 1e4, stop_on_convergence=True, converge_tol=1e-6)
    assert all(s == CONVERGED for s in sol.status)
    for b in range(3):
        one = integrate(softmax, np.zeros(d), S0s[b], prm, 2.0)
        batch = integrate(softmax, np.zeros((3, d)), S0s, prm, 2.0)
        np.testing.assert_allclose(batch.Sigma_end[b], one.Sigma_end[0], rtol=1e-13, atol=1e-15)


def test_homogeneity_metamorphic(softmax):
    """Σ_{cΣ₀}(t) = cΣ_{Σ₀}(ct), so T*(cΣ₀) = T*(Σ₀)/c (docs/mathematics.md §4), general V."""
    rng = np.random.default_rng(9)
    d = 2
    A, S0 = _random_case(rng, d)
    A = A + 2 * np.eye(d)
    V = rng.normal(size=(d, d)) + 2 * np.eye(d)
    prm = {"A": A, "V": V, "tau": 1.0}
    s1 = integrate(softmax, np.zeros(d), S0, prm, 50.0)
    s2 = integrate(softmax, np.zeros(d), 3 * S0, prm, 50.0)
    assert s1.status[0] == BLOWUP and s2.status[0] == BLOWUP
    assert abs(s2.t_end[0] - s1.t_end[0] / 3) <= 1e-6 * s1.t_end[0]


def test_bad_inputs(softmax):
    prm = {"A": np.eye(2), "V": np.eye(2), "tau": 1.0}
    with pytest.raises(InvalidParameters):
        integrate(softmax, np.zeros(2), np.array([[1.0, 2.0], [0.0, 1.0]]), prm, 1.0)
    with pytest.raises(InvalidParameters):
        integrate(softmax, np.zeros(2), np.eye(2), prm, -1.0)
    with pytest.raises(InvalidParameters):
        integrate(softmax, np.zeros(3), np.eye(2), prm, 1.0)
    with pytest.raises(InvalidParameters):
        integrate(softmax, np.zeros(2), np.full((2, 2), np.nan), prm, 1.0)
