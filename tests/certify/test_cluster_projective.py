"""Clustering of a stiff transient (kind ``tube-cluster`` with its projective continuation, check 1′).

Σ₀ = [[5, −3], [−3, 5]] under V = [[1/4, −1], [−1, 1]], A = diag(2, −1) settles within t ≈ 1 on
≈ 4033·wwᵀ with w isotropic for A (wᵀAw = 0): the rates of Σ̇ grow with the size of Σ, so a tube in
t crawls (thousands of steps to t ≈ 0.3), while the projective flow in the scale-free time
dτ = tr Σ·dt is not stiff.  The PROVED verdict is cross-checked against an independent explicit
DOP853 integration of Σ̇ = VΣAΣ + ΣAᵀΣVᵀ: the float solution settles, loses rank, and its limit
direction is isotropic for A.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated._tube_cluster import find_cluster
from symbolic_tf.spec.problem import parse_problem

DOC = {"variant": "softmax", "d": 2, "A": [["2", "0"], ["0", "-1"]], "V": [["1/4", "-1"], ["-1", "1"]],
       "initial": {"cov": [["5", "-3"], ["-3", "5"]]}}

pytestmark = pytest.mark.heavy   # the search takes ≈ 5 s


def _dop853(T):
    V = np.array([[0.25, -1.0], [-1.0, 1.0]])
    A = np.diag([2.0, -1.0])

    def rhs(_t, y):
        S = y.reshape(2, 2)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    sol = solve_ivp(rhs, (0, T[-1]), np.array([[5.0, -3.0], [-3.0, 5.0]]).ravel(), method="DOP853",
                    rtol=1e-11, atol=1e-10, t_eval=T)
    assert sol.status == 0
    return A, [y.reshape(2, 2) for y in sol.y.T]


@pytest.fixture(scope="module")
def verdict():
    return find_cluster(parse_problem(DOC), seconds=20.0)


def test_stiff_clustering_is_proved_through_the_projective_continuation(verdict):
    assert verdict.status == "PROVED" and verdict.evidence["rank"] == 1, verdict.reason
    cert = verdict.evidence["certificate"]
    assert len(cert["data"]["proj_steps"]) > 1          # the continuation is what reached the basin
    check(cert)                                          # the independent checker accepts it


def test_independent_float_integration_agrees(verdict):
    assert verdict.status == "PROVED", verdict.reason
    A, (S2, S4, S6) = _dop853([2.0, 4.0, 6.0])
    # global and settled: the solution stops moving (relative change ≪ 1) at a finite nonzero size
    assert np.linalg.norm(S6 - S4) < 1e-6 * np.linalg.norm(S6) and np.trace(S6) > 1
    # of rank one: det/tr² → 0
    assert abs(np.linalg.det(S6)) / np.trace(S6) ** 2 < 1e-9
    # along an isotropic line of A (the equilibria of the rank-one part)
    w = np.linalg.eigh(S6)[1][:, -1]
    assert abs(w @ A @ w) < 1e-8
    # and the certified ellipsoid's centre is that line (the certified limit is the float one)
    Xs = np.array([[float(Fraction(x)) for x in r] for r in
                   verdict.evidence["certificate"]["data"]["X_star"]])
    assert np.abs(Xs - S6 / np.trace(S6)).max() < 1e-3


#: issue 49's first map at (x, y) = (1/2, 3/8): V = [[1, 1/2], [0, 1]] (a Jordan block), A = [[3/8, 1], [−1, −1]],
#: Σ₀ = I.  tr Σ passes 10⁸ near t ≈ 2 (the float outlook's 'blow-up'), but Σ/tr Σ leaves the ray e₁e₁ᵀ on its
#: repelling side and settles on an isotropic rank-one point, where c = tr Q(X) → 0: the scale converges
#: (tr Σ → e^{28.6}) — a rank-one limit, which the pre-check now reads off the scale-free flow
JORDAN = {"variant": "softmax", "d": 2, "A": [["3/8", "1"], ["-1", "-1"]], "V": [["1", "1/2"], ["0", "1"]],
          "initial": {"cov": [["1", "0"], ["0", "1"]]}}


def test_a_float_blowup_that_clusters_is_proved_and_the_scale_free_flow_agrees():
    v = find_cluster(parse_problem(JORDAN), seconds=20.0)
    assert v.status == "PROVED" and v.evidence["rank"] == 1, v.reason
    check(v.evidence["certificate"])
    # independent: the scale-free flow X′ = Q(X) − cX, (log u)′ = −c in DOP853; ∫c dτ converges (no blow-up,
    # which needs u → 0) and X settles on the isotropic point the certificate's ellipsoid is centred on
    A, V = np.array([[0.375, 1.0], [-1.0, -1.0]]), np.array([[1.0, 0.5], [0.0, 1.0]])

    def rhs(_tau, z):
        X = z[:4].reshape(2, 2)
        Q = V @ X @ A @ X
        Q = Q + Q.T
        c = np.trace(Q)
        return np.concatenate([(Q - c * X).ravel(), [c]])

    sol = solve_ivp(rhs, (0, 3000), np.concatenate([np.eye(2).ravel() / 2, [0.0]]), method="DOP853",
                    rtol=1e-11, atol=1e-14, t_eval=[1500, 3000])
    assert sol.status == 0
    (X1, I1), (X2, I2) = (sol.y[:4, 0].reshape(2, 2), sol.y[4, 0]), (sol.y[:4, 1].reshape(2, 2), sol.y[4, 1])
    assert abs(I2 - I1) < 1e-6 and 10 < I2 < 60            # ∫c dτ converged: tr Σ → 2·e^{∫c}, finite
    w = np.linalg.eigh(X2)[1][:, -1]
    assert abs(w @ (A + A.T) @ w) < 1e-8 and abs(np.linalg.det(X2)) < 1e-9
    Xs = np.array([[float(Fraction(x)) for x in r] for r in v.evidence["certificate"]["data"]["X_star"]])
    assert np.abs(Xs - X2).max() < 1e-3
