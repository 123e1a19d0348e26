"""Second variations of the softmax interaction energy and certified non-convexity witnesses."""
from __future__ import annotations

import copy
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from symbolic_tf.certify.check import check, kind_names
from symbolic_tf.certify.search.convexity import (diag_family, find_nonconvexity_witness, scan_nonconvexity,
                                           second_variation_ball, second_variation_float)
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.symbolic._convexity import (bw_displacement_norm2, bw_geodesic, energy_dirac,
                                            gaussian_energy, kernel_hessian, second_variation_dirac,
                                            second_variation_dirac_by_s, second_variation_gaussian_bw,
                                            second_variation_gaussian_bw_by_s)

R = sp.Rational


def _rand_q(rng, lo=-3, hi=3, den=4):
    return R(rng.randint(lo * den, hi * den), rng.randint(1, den))


def _rand_data(seed, d, n):
    rng = random.Random(seed)
    A = [[_rand_q(rng, -1, 1) for _ in range(d)] for _ in range(d)]
    xs = [[_rand_q(rng) for _ in range(d)] for _ in range(n)]
    xis = [[_rand_q(rng) for _ in range(d)] for _ in range(n)]
    return A, xs, xis


# ------------------------------------------------------------------ symbolic second variation

def test_kernel_hessian_matches_sympy_hessian():
    d = 2
    a = sp.Matrix(2, 2, sp.symbols("a0:4"))
    x = sp.Matrix(sp.symbols("x0:2"))
    y = sp.Matrix(sp.symbols("y0:2"))
    W = sp.exp((y.T * a * x)[0, 0])
    H = sp.hessian(W, list(x) + list(y))
    assert sp.simplify(kernel_hessian(a, x, y) - H) == sp.zeros(2 * d, 2 * d)


@pytest.mark.parametrize("seed,d,n", [(0, 1, 2), (1, 1, 3), (2, 2, 2), (3, 2, 3), (4, 3, 2)])
def test_two_routes_agree_exactly_and_match_finite_differences(seed, d, n):
    A, xs, xis = _rand_data(seed, d, n)
    v1 = second_variation_dirac(A, xs, xis)
    v2 = second_variation_dirac_by_s(A, xs, xis)
    assert sp.simplify(v1 - v2) == 0
    # finite differences of E(s) in mpmath (high precision)
    s = sp.Symbol("s")
    Es = sp.lambdify(s, energy_dirac(A, xs, xis, s), "mpmath")
    with mpmath.workdps(50):
        fd = mpmath.diff(Es, 0, 2)
        assert abs(fd - sp.N(v1, 50)) < mpmath.mpf(10) ** -30 * (1 + abs(fd))
    # the float formula of the search and the arb ball agree with the symbolic value
    val = float(v1)
    Af = np.array(A, dtype=float)
    assert second_variation_float(Af, np.array(xs, dtype=float), np.array(xis, dtype=float)) == pytest.approx(val, rel=1e-9)
    F = lambda M: [[Fraction(int(e.p), int(e.q)) for e in r] for r in M]  # noqa: E731
    ball = second_variation_ball(F(A), F(xs), F(xis))
    assert ball.overlaps(ball.__class__(str(sp.N(v1, 60))))


def test_two_routes_agree_for_symbolic_A():
    a, b, c = sp.symbols("a b c", real=True)
    A = [[a, b], [c, a]]
    xs = [[1, R(1, 2)], [0, -1]]
    xis = [[R(2, 3), 1], [-1, 0]]
    assert sp.simplify(second_variation_dirac(A, xs, xis) - second_variation_dirac_by_s(A, xs, xis)) == 0


def test_zero_kernel_has_zero_second_variation():
    A, xs, xis = _rand_data(7, 2, 3)
    assert second_variation_dirac([[0, 0], [0, 0]], xs, xis) == 0


# ------------------------------------------------------------------ Gaussian energy (Bures–Wasserstein)

def test_gaussian_energy_monte_carlo_d1():
    a, S = R(1, 2), R(1, 2)  # a·Σ = 1/4: finite energy and finite variance of e^{axy}
    exact = float(gaussian_energy(a, S))
    assert exact == pytest.approx(0.5 / np.sqrt(1 - 1 / 16))
    rng = np.random.default_rng(0)
    x, y = rng.normal(scale=np.sqrt(0.5), size=(2, 400_000))
    w = 0.5 * np.exp(0.5 * x * y)
    assert abs(w.mean() - exact) < 5 * w.std() / np.sqrt(w.size)


def test_gaussian_energy_monte_carlo_d2():
    A = [[R(1, 2), R(1, 4)], [R(-1, 4), R(1, 3)]]
    S = [[R(1, 2), R(1, 8)], [R(1, 8), R(1, 3)]]
    exact = float(gaussian_energy(A, S))
    rng = np.random.default_rng(1)
    L = np.linalg.cholesky(np.array(S, dtype=float))
    x = rng.normal(size=(300_000, 2)) @ L.T
    y = rng.normal(size=(300_000, 2)) @ L.T
    w = 0.5 * np.exp(np.einsum("ni,ij,nj->n", y, np.array(A, dtype=float), x))
    assert abs(w.mean() - exact) < 5 * w.std() / np.sqrt(w.size)


def test_gaussian_bw_second_variation_d1_symbolic_and_fd():
    a, S, t = sp.symbols("a S t", positive=True)
    v = second_variation_gaussian_bw(a, S, t)
    assert sp.simplify(v - second_variation_gaussian_bw_by_s(a, S, t)) == 0
    # closed form: 3a²S²(t−1)²(1 + a²S²)/(1 − a²S²)^{5/2}
    assert sp.simplify(v - 3 * a**2 * S**2 * (t - 1)**2 * (1 + a**2 * S**2) / (1 - a**2 * S**2)**R(5, 2)) == 0
    assert bw_displacement_norm2(S, t) == sp.expand((t - 1)**2 * S)


def test_gaussian_bw_second_variation_d2_fd():
    A = [[R(1, 2), R(1, 4)], [R(-1, 4), R(-1, 3)]]
    S = [[R(1, 2), R(1, 8)], [R(1, 8), R(1, 3)]]
    T = [[R(3, 2), R(1, 5)], [R(1, 5), R(2, 3)]]
    v = second_variation_gaussian_bw(A, S, T)
    assert sp.simplify(v - second_variation_gaussian_bw_by_s(A, S, T)) == 0
    s = sp.Symbol("s")
    Es = sp.lambdify(s, gaussian_energy(A, bw_geodesic(S, T, s)), "mpmath")
    with mpmath.workdps(40):
        assert abs(mpmath.diff(Es, 0, 2) - sp.N(v, 40)) < mpmath.mpf(10) ** -25


# ------------------------------------------------------------------ certified witnesses

@pytest.fixture(scope="module")
def witness_minus_I():
    v = find_nonconvexity_witness([[-1, 0], [0, -1]], n_points=2, starts=3)
    assert v.status == "PROVED"
    return v


def test_paper_case_minus_identity_is_certified(witness_minus_I):
    assert "nonconvexity-witness" in kind_names()
    cert = witness_minus_I.evidence["certificate"]
    assert cert["kind"] == "nonconvexity-witness"
    assert check(cert).ok
    lam = Fraction(cert["data"]["lambda_bound"])
    assert lam < 0
    # the certificate data recomputed exactly-symbolically is indeed negative
    dat = cert["data"]
    val = second_variation_dirac(dat["A"], [[R(e) for e in x] for x in dat["positions"]],
                                 [[R(e) for e in x] for x in dat["displacements"]])
    assert sp.N(val, 50) <= sp.Rational(dat["value_upper"]) < 0


def test_minus_one_d1_certified_quick():
    v = find_nonconvexity_witness(-1, optimise=False)
    assert v.status == "PROVED" and check(v.evidence["certificate"]).ok


def _bump(s):
    return str(Fraction(s) + Fraction(1, 3))


@pytest.mark.parametrize("tamper", ["position", "displacement", "A", "value_sign", "upper_sign",
                                    "lambda", "norm", "drop_point"])
def test_tampered_certificate_rejected(witness_minus_I, tamper):
    cert = copy.deepcopy(witness_minus_I.evidence["certificate"])
    d = cert["data"]
    if tamper == "position":
        d["positions"][0][0] = _bump(d["positions"][0][0])
    elif tamper == "displacement":
        d["displacements"][1][1] = _bump(d["displacements"][1][1])
    elif tamper == "A":
        d["A"] = [["1", "0"], ["0", "1"]]
    elif tamper == "value_sign":
        d["value"][0] = d["value"][0].lstrip("-")
    elif tamper == "upper_sign":
        d["value_upper"] = str(-Fraction(d["value_upper"]))
    elif tamper == "lambda":
        d["lambda_bound"] = str(2 * Fraction(d["lambda_bound"]))
    elif tamper == "norm":
        d["xi_norm2"] = str(Fraction(d["xi_norm2"]) / 2)
    elif tamper == "drop_point":
        d["positions"] = d["positions"][:1]
    with pytest.raises(CertificationFailed):
        check(cert)


def test_forged_certificate_for_zero_kernel_rejected(witness_minus_I):
    cert = copy.deepcopy(witness_minus_I.evidence["certificate"])
    cert["data"]["A"] = [["0", "0"], ["0", "0"]]
    with pytest.raises(CertificationFailed):
        check(cert)


@pytest.mark.parametrize("A", [0, [[0, 0], [0, 0]]])
def test_zero_kernel_no_witness(A):
    v = find_nonconvexity_witness(A, n_points=3, starts=2)
    assert v.status == "UNDECIDED"
    assert "certificate" not in v.evidence


def test_scan_diag_family():
    rows = scan_nonconvexity(diag_family([-1, 0, 1]), n_points=2, starts=2)
    assert len(rows) == 9
    for r in rows:
        a, b = Fraction(r["a"]), Fraction(r["b"])
        if a < 0 or b < 0:  # sym(A) not PSD: one moving Dirac at 0 already gives ξᵀAξ < 0
            assert r["status"] == "PROVED"
        if a == 0 and b == 0:
            assert r["status"] == "UNDECIDED"
        if r["status"] == "PROVED":
            assert check(r["verdict"].evidence["certificate"]).ok
            assert Fraction(r["lambda_bound"]) < 0
        else:
            assert r["result"].startswith("no witness")
