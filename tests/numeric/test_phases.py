"""Phase-by-phase integration of depth schedules (symbolic_tf.numeric.phases) and the token
simulator with schedules."""
from __future__ import annotations

import numpy as np
import pytest

import symbolic_tf as stf
from symbolic_tf.numeric import _kernels as kernels
from symbolic_tf.numeric.particles import simulate
from symbolic_tf.numeric.phases import integrate_problem
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.problem import parse_problem

BASE = {"variant": "softmax", "d": 2, "V": [[1, 0], [0, 1]], "A": [["1/2", "1/4"], [0, "-1/2"]],
        "initial": {"cov": [[1, "1/5"], ["1/5", "1/2"]]}}
S0 = np.array([[1, 0.2], [0.2, 0.5]])


def _closed_form_vI(W):
    """V = I: Σ(t)⁻¹ = Σ₀⁻¹ − ∫₀ᵗ (A + Aᵀ)(s) ds (docs/mathematics.md §9)."""
    return np.linalg.inv(np.linalg.inv(S0) - W)


def test_constant_schedule_integrates_exactly_like_the_constant_problem():
    const = parse_problem(BASE)
    sched = parse_problem({**BASE, "phase": [{"duration": "1/3"}, {"duration": "1/2", "A": BASE["A"]}]})
    te = [0, 0.1, 0.3, 0.4]
    a, b = stf.integrate(const, 0.4, t_eval=te), stf.integrate(sched, 0.4, t_eval=te)
    assert np.array_equal(a.Sigma, b.Sigma) and np.array_equal(a.Sigma_end, b.Sigma_end)
    assert a.method == b.method


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_piecewise_and_polynomial_phases_match_the_closed_form(backend):
    if backend == "compiled" and not kernels.available():
        pytest.skip("numba not installed")
    A1 = np.array([[0.5, 0.25], [0, -0.5]])
    A2 = np.array([[-1, 0], [1 / 3, 0.25]])
    doc = {**BASE, "phase": [{"duration": "1/2"}, {"duration": "1/2", "A": [[-1, 0], ["1/3", "1/4"]]}]}
    sol = integrate_problem(parse_problem(doc), 1.0, t_eval=[0, 0.25, 0.5, 1.0], backend=backend)
    W1 = 0.25 * (A1 + A1.T)
    np.testing.assert_allclose(sol.Sigma[0, 1], _closed_form_vI(W1), rtol=1e-9)
    np.testing.assert_allclose(sol.Sigma[0, 3], _closed_form_vI(0.5 * (A1 + A1.T) + 0.5 * (A2 + A2.T)), rtol=1e-9)
    # a polynomial phase A(t) = diag(t, −t²) on [1, 3/2] after them (numpy path, t in the rhs)
    doc["phase"].append({"duration": 1, "A": [["t", 0], [0, "-t^2"]]})
    sol = integrate_problem(parse_problem(doc), 1.5, backend=backend)
    W = 0.5 * (A1 + A1.T) + 0.5 * (A2 + A2.T) + 2 * np.diag([(1.5 ** 2 - 1) / 2, -(1.5 ** 3 - 1) / 3])
    np.testing.assert_allclose(sol.Sigma_end[0], _closed_form_vI(W), rtol=1e-9)
    assert sol.status[0] == 1 and sol.t_end[0] == 1.5


def test_blowup_inside_a_phase_stops_the_run():
    doc = {**BASE, "A": [[-1, 0], [0, -1]], "phase": [{"duration": "1/2"}, {"duration": 1, "A": [[1, 0], [0, 1]]}]}
    sol = stf.integrate(parse_problem(doc), 5.0, t_eval=[0, 0.5, 2, 5])
    # Σ(1/2)⁻¹ = Σ₀⁻¹ + I, then Σ⁻¹ − 2(t − 1/2)I is singular at t = 1/2 + λ_min/2
    lam = np.linalg.eigvalsh(np.linalg.inv(S0) + np.eye(2)).min()
    assert sol.status_names() == ["blowup"]
    assert abs(sol.t_end[0] - (0.5 + lam / 2)) < 1e-3
    assert np.isnan(sol.Sigma[0, 2:]).all()  # no values past the blow-up


@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_polynomial_parameters_on_the_compiled_loops(method):
    """The compiled run*t loops evaluate the coefficients at every stage time: same answer as the
    numpy path (dopri5) and as the closed form Σ(t)⁻¹ = Σ₀⁻¹ − ∫(A + Aᵀ) (V = I)."""
    if not kernels.available():
        pytest.skip("numba not installed")
    from symbolic_tf.numeric.codegen import compile_system, numeric_env
    from symbolic_tf.numeric.integrate import integrate
    from symbolic_tf.symbolic.moments import derive_for_problem

    p = parse_problem(BASE)
    system = derive_for_problem(p)
    env = numeric_env(p, system)
    # A(t) = A0 + t·A1 + t²·A2
    poly = {"A": np.array([[[-1, 0], [0, 0.5]], [[0, 0.5], [0, -1]], [[0, 0], [0, 0.25]]], dtype=float)}
    S0b = np.stack([S0, 0.5 * S0])
    comp = compile_system(system)
    c = integrate(comp, np.zeros(2), S0b, env, 0.5, backend="compiled", method=method, params_poly=poly,
                  rtol=1e-12, atol=1e-14)
    A0, A1, A2 = poly["A"]
    W = 0.5 * (A0 + A0.T) + 0.125 * (A1 + A1.T) + (0.125 / 3) * (A2 + A2.T)
    for m, S in enumerate(S0b):
        np.testing.assert_allclose(c.Sigma_end[m], np.linalg.inv(np.linalg.inv(S) - W), rtol=1e-9)
    if method == "dopri5":
        n = integrate(comp, np.zeros(2), S0b, env, 0.5, backend="numpy", params_poly=poly, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(c.Sigma_end, n.Sigma_end, rtol=1e-10)


def test_tokens_follow_the_schedule():
    rng = np.random.default_rng(0)
    X0 = rng.standard_normal((64, 2))
    const = parse_problem(BASE)
    same = parse_problem({**BASE, "phase": [{"duration": "1/4"}, {"duration": 1}]})
    a, b = simulate(const, X0, 0.5, steps=20), simulate(same, X0, 0.5, steps=20)
    assert np.array_equal(a.X, b.X)
    # switching A to 0 at t = 1/4 freezes the tokens from then on (V y averaged with uniform
    # weights is the mean, which is preserved: Γ(x) = mean of the cloud, a pure drift)
    off = parse_problem({**BASE, "phase": [{"duration": "1/4"}, {"duration": 1, "A": [[0, 0], [0, 0]]}]})
    c = simulate(off, X0, 0.5, steps=20)
    full = simulate(const, X0, 0.25, steps=10)
    np.testing.assert_allclose(c.X[-1] - c.X[-1].mean(0), full.X[-1] - full.X[-1].mean(0), atol=1e-12)
    assert not np.allclose(c.X[-1], a.X[-1])


def test_meanfield_predicts_with_the_schedule():
    from symbolic_tf.numeric.meanfield import meanfield_check

    doc = {**BASE, "phase": [{"duration": "1/10"}, {"duration": 1, "A": [["-t", 0], [0, 1]]}]}
    p = parse_problem(doc)
    rep = meanfield_check(p, Ns=(40, 80), seeds=(0,), T=0.2, steps=8)
    want = integrate_problem(p, 0.2, rtol=1e-11, atol=1e-13).Sigma_end[0]
    np.testing.assert_allclose(np.array(rep.to_dict()["prediction"]["cov"]), want, rtol=1e-9)
    const = integrate_problem(parse_problem(BASE), 0.2).Sigma_end[0]
    assert not np.allclose(want, const, rtol=1e-4)  # the schedule matters at this depth


def test_api_problem_takes_phases_and_numpy_entries():
    p = stf.Problem("softmax", A=np.eye(2), V=np.eye(2), cov=S0, F=np.zeros((2, 2)), b=np.zeros(2),
                    phases=[{"duration": "1/4"}, {"duration": 1, "A": -np.eye(2), "b": np.ones((2, 1))}])
    q = parse_problem({"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]],
                       "F": [[0, 0], [0, 0]], "b": [0, 0], "initial": {"cov": S0.tolist()},
                       "phase": [{"duration": "1/4"}, {"duration": 1, "A": [[-1, 0], [0, -1]], "b": [1, 1]}]})
    assert p == q


def test_validated_tubes_refuse_a_schedule():
    from symbolic_tf.certify.search.validated import enclose

    p = parse_problem({**BASE, "phase": [{"duration": "1/4"}, {"duration": 1, "A": [[0, 0], [0, 0]]}]})
    with pytest.raises(InvalidParameters, match="constant parameters"):
        enclose(p, "1/10")
