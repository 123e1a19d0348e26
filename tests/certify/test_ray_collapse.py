"""Collapsing rays (kind ``tube-ray-collapse``): the projective field Ψ gives the covariance flow
exactly (rationals), its Jacobian is the derivative (against finite differences), a PROVED
certificate agrees with an independent integration (Σ(t) ≈ C/t with C/tr C = X*), homogeneity and a
permuted basis, and tampered certificates are rejected."""
from __future__ import annotations

import copy
import random
from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.kinds.tube_ray_collapse import CollapseField
from symbolic_tf.certify.check.tube_replay import svec_basis, svec_pairs
from symbolic_tf.certify.search.validated._tube_ray_collapse import find_collapse_ray
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# seed 0 #40 of benchmarks/undecided_rate.py's general-V set; S40 is its own Σ₀, S_RAY a dyadic
# rounding of 10⁵·Σ(10⁵)/16 (by homogeneity, the same flow started near its ray: a short tube)
A40 = [["-2", "-1", "1"], ["-1/2", "-3/4", "-2"], ["5/4", "1", "-7/4"]]
V40 = [["2", "0", "-3/2"], ["1", "5/4", "-1"], ["0", "-1", "1"]]
S40 = [["9/2", "-9/2", "-5/3"], ["-9/2", "25/4", "7/12"], ["-5/3", "7/12", "9/4"]]
S_RAY = [["114999/524288", "-39557/524288", "69633/524288"],
         ["-39557/524288", "57219/524288", "105/16384"],
         ["69633/524288", "105/16384", "63451/524288"]]


def _p(S0, A=A40, V=V40, F=None):
    doc = {"variant": "softmax", "d": 3, "A": A, "V": V, "initial": {"cov": S0}}
    if F is not None:
        doc["F"] = F
    return parse_problem(doc)


def _f(M):
    return np.array([[float(Fraction(x)) for x in row] for row in M])


def _pairs():
    q = lambda M: flint.fmpq_mat([[flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in row]  # noqa: E731
                                  for row in M])
    return [(q(V40), q(A40))]


@pytest.mark.parametrize("seed", range(3))
def test_psi_gives_the_covariance_flow_exactly(seed):
    # Σ = vX: dΣ/dτ = v′X + vX′ = v·Q(X) whatever κ (the c̃-terms cancel), so dΣ/dt = v²Q(X) = Q(Σ)
    rng = random.Random(seed)
    rq = lambda: flint.fmpq(rng.randint(-9, 9), rng.randint(1, 5))  # noqa: E731
    L = flint.fmpq_mat(3, 3, [rq() for _ in range(9)])
    X = L * L.transpose()
    v, kappa = rq() ** 2 + 1, rq() ** 2
    f = CollapseField(_pairs(), flint.fmpq_mat, kappa)
    c = f.c(X, v)
    dX, dv = f.Q(X) - X * c, c * v
    assert X * dv + dX * v == f.Q(X) * v
    assert f.Q(X * v) == f.Q(X) * (v * v)


def test_jacobian_is_the_derivative():
    rng = np.random.default_rng(1)
    G = rng.normal(size=(3, 3))
    Xf, vf, kappa = G @ G.T / 3 + np.eye(3) / 3, 0.7, flint.fmpq(1, 3)
    up = svec_pairs(3)
    fb = CollapseField(_pairs(), flint.arb_mat, flint.arb(kappa))
    X = flint.arb_mat([[flint.arb(x) for x in row] for row in Xf])
    J = np.array([[float(x.mid()) for x in row] for row in fb.jacobian(X, flint.arb(vf), svec_basis(3))])

    def psi(z):
        M = np.zeros((3, 3))
        for k, (i, j) in enumerate(up):
            M[i, j] = M[j, i] = z[k]
        Xb = flint.arb_mat([[flint.arb(x) for x in row] for row in M])
        c = fb.c(Xb, 0)
        top = fb.Q(Xb) - Xb * c
        return np.array([float(top[i, j].mid()) for i, j in up] + [float(c.mid()) * z[-1]])

    z0 = np.array([Xf[i, j] for i, j in up] + [vf])
    h = 1e-6
    for k in range(len(z0)):
        e = np.zeros(len(z0))
        e[k] = h
        assert np.allclose((psi(z0 + e) - psi(z0 - e)) / (2 * h), J[:, k], atol=1e-6)


@pytest.fixture(scope="module")
def proved():
    v = find_collapse_ray(_p(S_RAY), seconds=60.0)
    assert v.status == "PROVED", v.reason
    return v


def test_certificate_checks_and_agrees_with_an_independent_integration(proved):
    cert = proved.evidence["certificate"]
    res = check(copy.deepcopy(cert))
    assert res.ok and res.status == "PROVED" and res.claim.subject == "CLUSTERING" and res.claim.params == {"rank": 0}
    # independent: DOP853 from the same Σ₀; t·Σ(t) settles on C with C/tr C = X*, and tr Σ → 0 like 1/t
    V, A, S0 = _f(V40), _f(A40), _f(S_RAY)

    def rhs(_t, y):
        S = y.reshape(3, 3)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    sol = solve_ivp(rhs, (0, 4e4), S0.ravel(), method="DOP853", rtol=1e-12, atol=1e-16, dense_output=True)
    S1, S2 = sol.sol(2e4).reshape(3, 3), sol.y[:, -1].reshape(3, 3)
    assert abs((4e4 * np.trace(S2)) / (2e4 * np.trace(S1)) - 1) < 1e-3 and np.trace(S2) < 1e-3
    assert np.abs(S2 / np.trace(S2) - _f(cert["data"]["X_star"])).max() < 1e-3


def test_the_benchmark_problem_homogeneity_and_a_permuted_basis():
    assert find_collapse_ray(_p(S40), seconds=60.0).status == "PROVED"
    v = find_collapse_ray(_p([[str(3 * Fraction(x)) for x in row] for row in S_RAY]), seconds=60.0)
    assert v.status == "PROVED", v.reason
    perm = [2, 0, 1]
    pm = lambda M: [[M[perm[i]][perm[j]] for j in range(3)] for i in range(3)]  # noqa: E731
    v = find_collapse_ray(_p(pm(S_RAY), pm(A40), pm(V40)), seconds=60.0)
    assert v.status == "PROVED", v.reason


def _tamper(cert, key, val):
    c = copy.deepcopy(cert)
    c["data"][key] = val
    return c


@pytest.mark.parametrize("key,how", [
    ("kappa", lambda d: "0"),                                     # κ must be positive
    ("kappa", lambda d: str(Fraction(d["kappa"]) * 10 ** 6)),     # the trace direction swamps the rest
    ("mu", lambda d: str(Fraction(d["mu"]) * 100)),               # no contraction at that rate
    ("rho", lambda d: str(Fraction(d["rho"]) * 10 ** 6)),          # the ellipsoid leaves the box
    ("R", lambda d: d["R"][:-1] + [str(Fraction(d["R"][-1]) / 10 ** 6)]),   # the v-radius is too small
    ("X_star", lambda d: [[str(Fraction(x) + Fraction(1, 100)) for x in row] for row in d["X_star"]]),
    ("W", lambda d: [[str(-Fraction(x)) for x in row] for row in d["W"]]),   # W not PD
])
def test_tampered_certificate_is_rejected(proved, key, how):
    cert = proved.evidence["certificate"]
    with pytest.raises(CertificationFailed):
        check(_tamper(cert, key, how(cert["data"])))


def test_refuses_drift_and_a_blow_up():
    v = find_collapse_ray(_p(S40, F=[[1, 0, 0], [0, 0, 0], [0, 0, 0]]))
    assert v.status == "UNDECIDED" and "drift" in v.reason
    v = find_collapse_ray(parse_problem({"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]],
                                         "initial": {"cov": [[1, 0], [0, 1]]}}))
    assert v.status == "UNDECIDED"
