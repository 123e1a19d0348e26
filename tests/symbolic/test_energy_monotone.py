"""The gradient-flow condition on V (issue 50 item 3): M = VA⁻¹ symmetric definite, decided per pair.

Each exact rate is re-computed here independently of the engine: by Gauss–Hermite quadrature of
dE/dt = ∫⟨∇_x δE/δμ, Γ_μ⟩dμ from the definitions (inner integrals over y by quadrature too, no
tilting lemma, no M), and at a Dirac mass by a finite difference of E(δ_{α(t)}) = ½e^{α(t)ᵀAα(t)}.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from numpy.polynomial.hermite_e import hermegauss

from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.symbolic.energy_monotone import (dirac_energy_rate, gaussian_energy_rate,
                                                  twisted_gradient_flow_pair)


def _quadrature_rate(A, V, alpha, Sigma, n=40):
    """dE/dt = ∫⟨∇_x δE/δμ(x), Γ(x)⟩dμ(x) for μ = N(α, Σ), d = 2, from the definitions:
    δE/δμ(x) = ½∫(e^{yᵀAx} + e^{xᵀAy})dμ(y), Γ(x) = V∫y e^{yᵀAx}dμ(y)/∫e^{yᵀAx}dμ(y)."""
    A, V, a, S = (np.array(X, dtype=float) for X in (A, V, alpha, Sigma))
    z, w = hermegauss(n)
    w = w / w.sum()
    L = np.linalg.cholesky(S)
    Z1, Z2 = np.meshgrid(z, z, indexing="ij")
    pts = a + np.stack([Z1.ravel(), Z2.ravel()], axis=1) @ L.T          # nodes of N(α, Σ)
    wts = np.outer(w, w).ravel()
    total = 0.0
    for x, wx in zip(pts, wts):
        e1, e2 = np.exp(pts @ (A @ x)), np.exp(pts @ (A.T @ x))           # e^{yᵀAx}, e^{xᵀAy}
        grad = 0.5 * (A.T @ ((wts * e1) @ pts) + A @ ((wts * e2) @ pts))
        gamma = V @ ((wts * e1) @ pts) / (wts @ e1)
        total += wx * grad @ gamma
    return total


def _dirac_fd(A, V, alpha, h=1e-6):
    from scipy.linalg import expm

    A, V, a = (np.array(X, dtype=float) for X in (A, V, alpha))
    E = lambda t: 0.5 * np.exp((expm(t * V) @ a) @ A @ (expm(t * V) @ a))   # α(t) = e^{tV}α solves α̇ = Vα
    return (E(h) - E(-h)) / (2 * h)


def test_indefinite_M_is_refuted_by_exact_instances_of_both_signs():
    """A = I, V = [[1, 2], [0, 0]]: M_sym = [[1, 1], [1, 0]] is indefinite; E increases at one exact
    instance and decreases at another, Dirac and Gaussian, the signs confirmed by quadrature."""
    A, V = [[1, 0], [0, 1]], [[1, 2], [0, 0]]
    v = twisted_gradient_flow_pair(A, V)
    assert v.status == "REFUTED" and v.evidence["definite"] == "indefinite"
    for key, sign in (("increases_at", 1), ("decreases_at", -1)):
        inst = v.evidence[key]
        alpha = [sp.Rational(e) for e in inst["alpha"]]
        expo, rate = dirac_energy_rate(A, V, alpha)
        assert sign * rate > 0 and str(rate) == inst["rate_factor"]
        fd = _dirac_fd(A, V, alpha)
        assert np.sign(fd) == sign and abs(fd - float(sp.exp(expo) * rate)) < 1e-5 * abs(fd)
        g = inst["gaussian"]
        Sig = [[sp.Rational(g["epsilon"]), 0], [0, sp.Rational(g["epsilon"])]]
        r = gaussian_energy_rate(A, V, alpha, Sig)
        assert sign * r["q"] > 0 and str(r["q"]) == g["q"]
        quad = _quadrature_rate(A, V, alpha, Sig)
        assert np.sign(quad) == sign
        assert abs(quad - float(r["rate"])) < 1e-8 * abs(quad)             # the closed form, value too


def test_gaussian_rate_closed_form_against_quadrature_at_a_wide_gaussian():
    """Not a near-Dirac instance: N(α, Σ) with a full Σ and a symmetric non-diagonal A."""
    A, V = [[sp.Rational(1, 2), sp.Rational(1, 4)], [sp.Rational(1, 4), -sp.Rational(1, 3)]], [[1, -1], [2, 1]]
    alpha, Sig = [sp.Rational(1, 2), -1], [[sp.Rational(1, 2), sp.Rational(1, 5)], [sp.Rational(1, 5), sp.Rational(1, 3)]]
    r = gaussian_energy_rate(A, V, alpha, Sig)
    quad = _quadrature_rate(A, V, alpha, Sig)
    assert abs(quad - float(r["rate"])) < 1e-8 * max(1.0, abs(quad))
    with pytest.raises(InvalidParameters):
        gaussian_energy_rate([[3]], [[1]], [0], [[1]])                       # Σ⁻¹ − AΣA = 1 − 9 < 0: E = ∞


def _float_energy(A, alpha, Sigma):
    """E(N(α, Σ)) = ½E[e^{yᵀAx}], x, y iid, from the Gaussian integral of e^{½zᵀHz} (H = [[0, Aᵀ], [A, 0]])."""
    d = len(alpha)
    H = np.block([[np.zeros((d, d)), A.T], [A, np.zeros((d, d))]])
    S = np.block([[Sigma, np.zeros((d, d))], [np.zeros((d, d)), Sigma]])
    m = np.concatenate([alpha, alpha])
    K = np.eye(2 * d) - S @ H
    b = H @ m
    return 0.5 * np.linalg.det(K) ** -0.5 * np.exp(0.5 * m @ H @ m + 0.5 * b @ np.linalg.solve(K, S @ b))


@pytest.mark.parametrize("V,direction", [([[2, 0], [0, 1]], -1), ([[-1, 0], [0, -3]], 1)])
def test_symmetric_definite_M_is_proved_and_E_is_monotone_along_the_flow(V, direction):
    """A = diag(−1, −2) (so the flow stays finite), M = VA⁻¹ symmetric definite: PROVED, and E along a float
    integration of the moment ODE moves monotonically in the stated direction."""
    import symbolic_tf as stf

    A = [[-1, 0], [0, -2]]
    v = twisted_gradient_flow_pair(A, V)
    assert v.status == "PROVED"
    assert v.evidence["monotone"] == ("increasing" if direction > 0 else "decreasing")
    M = sp.Matrix(V) * sp.Matrix(A).inv()
    assert M == M.T and (direction * M).is_positive_definite                 # the condition, independently
    p = stf.Problem("softmax", A=A, V=V, cov=[["1/4", "1/10"], ["1/10", "1/5"]], mean=["1/2", "-1/3"])
    sol = stf.integrate(p, 0.15, t_eval=np.linspace(0, 0.15, 26))   # E is finite here (M ≻ 0: E = +∞ from t ≈ 0.2)
    An = np.array(A, dtype=float)
    E = [_float_energy(An, sol.alpha[0][k], sol.Sigma[0][k]) for k in range(len(sol.t_eval))]
    steps = np.diff(E)
    assert np.all(np.isfinite(E)) and len(E) > 5 and np.all(direction * steps > -1e-12) and direction * (E[-1] - E[0]) > 0


def test_other_cases_refuted_or_undecided_with_reasons():
    """Non-symmetric A: the velocity identity fails at x = 0 (½VA⁻¹(A − Aᵀ)α, recomputed); skew M: the
    energy is stationary at a Dirac mass that moves; M_sym ≻ 0 with M ≠ Mᵀ: UNDECIDED, E monotone."""
    v = twisted_gradient_flow_pair([[1, 1], [0, 1]], [[2, 0], [0, 1]])
    assert v.status == "REFUTED"
    A, V = sp.Matrix([[1, 1], [0, 1]]), sp.Matrix([[2, 0], [0, 1]])
    al = sp.Matrix([sp.Rational(e) for e in v.evidence["alpha"]])
    assert [sp.Rational(e) for e in v.evidence["difference"]] == list(V * al - V * A.inv() * (A + A.T) * al / 2)
    v = twisted_gradient_flow_pair([[1, 0], [0, 1]], [[0, 1], [-1, 0]])
    assert v.status == "REFUTED"
    inst = v.evidence["stationary_energy_moving_mass"]
    al = [sp.Rational(e) for e in inst["alpha"]]
    assert dirac_energy_rate([[1, 0], [0, 1]], [[0, 1], [-1, 0]], al)[1] == 0
    assert any(sp.Rational(e) != 0 for e in inst["velocity"])
    v = twisted_gradient_flow_pair([[1, 0], [0, 1]], [[1, 1], [-1, 1]])
    assert v.status == "UNDECIDED" and "increases monotonically" in v.reason
    assert twisted_gradient_flow_pair([[1, 0], [0, 0]], [[1, 0], [0, 1]]).status == "UNDECIDED"   # A singular
