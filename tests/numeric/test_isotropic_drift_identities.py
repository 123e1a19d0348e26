"""The identities of docs/mathematics.md §8, "Growth onto the isotropic curve with a drift (d = 3)".

1. Q vanishes along the isotropic curve and its tangent is a null direction of DQ(P) (and of the
   projected 𝓜 on trace-zero matrices): differentiate Q(P(θ)) = 0.
2. A scalar drift reduces exactly to no drift: Σ(t) = e^{2ft}·Γ((e^{2ft} − 1)/(2f)), Γ the
   solution of Γ̇ = Q(Γ) from the same Σ₀ — checked by two independent integrations.
"""
from __future__ import annotations

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.numeric.quadratic_field import FloatField


def _field(V, A, F=None):
    V = flint.fmpq_mat([[flint.fmpq(x) for x in row] for row in V])
    A = flint.fmpq_mat([[flint.fmpq(x) for x in row] for row in A])
    F = None if F is None else flint.fmpq_mat([[flint.fmpq(x) for x in row] for row in F])
    return FloatField([(V, A)], F, 3)


# A = diag(1, 1, −1)/2 + skew: wᵀAw = (w₁² + w₂² − w₃²)/2, the isotropic curve w(θ) = (cos θ, sin θ, 1)
_A = [["1/2", "1", "-1/3"], ["-1", "1/2", "2"], ["1/3", "-2", "-1/2"]]
_V = [["1", "-1", "2"], ["1/4", "1/3", "2"], ["2", "0", "-1"]]


@pytest.mark.parametrize("theta", [0.3, 1.1, 2.5, 4.0])
def test_tangent_of_the_isotropic_curve_is_a_null_direction(theta):
    ff = _field(_V, _A)
    w = np.array([np.cos(theta), np.sin(theta), 1.0])
    dw = np.array([-np.sin(theta), np.cos(theta), 0.0])
    P = np.outer(w, w) / 2.0                       # trace one
    dP = (np.outer(dw, w) + np.outer(w, dw)) / 2.0  # trace zero: w·dw = 0
    scale = np.abs(ff.dQ(P, np.eye(3))).max()
    assert abs(np.trace(P) - 1.0) < 1e-15 and abs(np.trace(dP)) < 1e-15
    assert np.abs(ff.Q(P)).max() < 1e-12 * scale                 # Q(P) = (wᵀAw)(Vwwᵀ + wwᵀVᵀ)/2 = 0
    assert np.abs(ff.dQ(P, dP)).max() < 1e-12 * scale            # DQ(P)[P′] = 0
    assert np.abs(ff.dQ(P, P)).max() < 1e-12 * scale             # DQ(P)[P] = 2Q(P) = 0
    # while a generic trace-zero direction is not null (the identity is not vacuous)
    E = np.diag([1.0, -1.0, 0.0])
    assert np.abs(ff.dQ(P, E)).max() > 1e-3 * scale


@pytest.mark.parametrize("f", ["1/2", "-1/3"])
def test_scalar_drift_is_a_time_change_of_the_driftless_flow(f):
    A = [["-1/2", "-1", "1/4"], ["-1/2", "-1/2", "-1/3"], ["1/2", "-1/3", "2"]]
    V = [["1", "-1", "-2"], ["1", "1/4", "2"], ["2", "0", "1/3"]]
    Fs = [[f if i == j else "0" for j in range(3)] for i in range(3)]
    with_drift, no_drift = _field(V, A, Fs), _field(V, A)
    f = with_drift.F[0, 0]
    S0 = np.array([[1 / 4, 0, -1 / 2], [0, 2, -2], [-1 / 2, -2, 5]])
    t1 = 0.8
    tau = (np.exp(2 * f * t1) - 1) / (2 * f)
    kw = dict(method="DOP853", rtol=1e-12, atol=1e-14)
    S = solve_ivp(with_drift.sigma_rhs, (0, t1), S0.ravel(), **kw).y[:, -1].reshape(3, 3)
    G = solve_ivp(no_drift.sigma_rhs, (0, tau), S0.ravel(), **kw).y[:, -1].reshape(3, 3)
    assert np.abs(S - np.exp(2 * f * t1) * G).max() < 1e-9 * np.abs(S).max()
