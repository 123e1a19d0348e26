"""The high-precision reference integrator against closed forms (docs/mathematics.md §3, §4, §6).

Every comparison is at ≥ 25 digits: softmax with V = I (Σ⁻¹ is linear in t), Alcalde's
drift model with V = vI (Σ⁻¹ solves a linear Lyapunov ODE), Sinkhorn in d = 1 (a scalar
ODE, solved independently by mpmath.odefun), blow-up at T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}).
"""
from __future__ import annotations

import random
import zlib

import mpmath
import pytest
import sympy as sp

from symbolic_tf.numeric._jet_compiler import compile_rhs
from symbolic_tf.numeric.reference import reference_solve, reference_solve_problem
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.symbolic import symbols as S
from symbolic_tf.symbolic.moments import derive, derive_for_problem, problem_env

R = sp.Rational
DPS = 60  # digits of the closed-form side


def _Ms(name, rows=S.d, cols=S.d):
    return sp.MatrixSymbol(name, rows, cols)


def _mp(M):
    """A rational SymPy matrix as an mpmath matrix at DPS digits."""
    M = sp.Matrix(M)
    with mpmath.workdps(DPS):
        return mpmath.matrix([[mpmath.mpf(int(e.p)) / int(e.q) for e in M.row(i)] for i in range(M.rows)])


def _relerr(X, Y):
    X, Y = mpmath.matrix(X), mpmath.matrix(Y)
    num = max(abs(X[i, j] - Y[i, j]) for i in range(Y.rows) for j in range(Y.cols))
    den = max(abs(Y[i, j]) for i in range(Y.rows) for j in range(Y.cols))
    return num / den if den else num  # an exactly zero reference is compared absolutely


def _rand_rat(rng, lo=-6, hi=6, den=4):
    return R(rng.randint(lo, hi), rng.randint(1, den))


def _rand_spd(rng, d):
    L = sp.Matrix(d, d, lambda i, j: _rand_rat(rng, -3, 3, 2) if i > j else (R(rng.randint(1, 3), 2) if i == j else 0))
    return L * L.T + sp.eye(d) / 4


def _lam_max(Sigma0, Ssym):
    """λ_max(Σ₀^{1/2} S Σ₀^{1/2}) = λ_max(Cᵀ S C) with Σ₀ = C Cᵀ, at DPS digits."""
    with mpmath.workdps(DPS):
        C = mpmath.cholesky(_mp(Sigma0))
        return max(mpmath.eigsy(C.T * _mp(Ssym) * C)[0])


def _softmax_env(A, V, Sigma0, alpha0):
    return {S.Sigma: sp.ImmutableMatrix(Sigma0), S.alpha: sp.ImmutableMatrix(alpha0),
            _Ms("A"): sp.ImmutableMatrix(A), _Ms("V"): sp.ImmutableMatrix(V)}


# ---------------------------------------------------------------------------------------
# the compiled right-hand side agrees with the symbolic layer
# ---------------------------------------------------------------------------------------
def _parse_val(s):
    with mpmath.workdps(DPS):
        if "/" in s:
            p, q = s.split("/")
            return mpmath.mpf(int(p)) / int(q)
        return mpmath.mpf(s)


@pytest.mark.parametrize("case", ["softmax", "l2", "sinkhorn", "linear", "multihead", "drift"])
def test_compiled_rhs_matches_symbolic_evaluation(case):
    rng = random.Random(zlib.crc32(case.encode()) % 1000)  # str hash() differs per process
    d = 3 if case in ("softmax", "l2", "drift") else 2
    Sigma0, alpha0 = _rand_spd(rng, d), sp.Matrix(d, 1, lambda i, j: _rand_rat(rng))
    rm = lambda r=d, c=d: sp.ImmutableMatrix(sp.Matrix(r, c, lambda i, j: _rand_rat(rng)))  # noqa: E731
    env = {S.Sigma: sp.ImmutableMatrix(Sigma0), S.alpha: sp.ImmutableMatrix(alpha0)}
    k = None
    if case == "l2":
        system, k = derive("l2"), 2
        env.update({_Ms("Q", S.k, S.d): rm(k, d), _Ms("K", S.k, S.d): rm(k, d), _Ms("V"): rm()})
    elif case == "multihead":
        system = derive("multihead")
        for h in ("1", "2"):
            env.update({_Ms(f"A_{h}"): rm(), _Ms(f"V_{h}"): rm(), _Ms(f"W_{h}"): rm()})
    elif case == "drift":
        system = derive("softmax", drift=True)
        env.update({_Ms("A"): rm(), _Ms("V"): rm(), _Ms("F"): rm(), _Ms("b", S.d, 1): rm(d, 1)})
    else:
        system = derive(case)
        env.update({_Ms("A"): rm(), _Ms("V"): rm()})
    f = compile_rhs(system, env, d, k)
    ma, mc = f(_mp(alpha0), _mp(Sigma0))
    val = system.evaluate(env, d, k)
    with mpmath.workdps(DPS):
        ea = mpmath.matrix([[_parse_val(x)] for x in val.mean_rhs])
        ec = mpmath.matrix([[_parse_val(x) for x in row] for row in val.cov_rhs])
        assert _relerr(ma, ea) < mpmath.mpf(10) ** -28
        assert _relerr(mc, ec) < mpmath.mpf(10) ** -28


# ---------------------------------------------------------------------------------------
# softmax, V = I: Σ(t) = (Σ₀⁻¹ − t(A+Aᵀ))⁻¹ exactly
# ---------------------------------------------------------------------------------------
def _softmax_case(d, kind, seed):
    rng = random.Random(seed)
    if kind == "positive":  # A + Aᵀ ≻ 0: symmetric PD part plus a skew part
        B = sp.Matrix(d, d, lambda i, j: _rand_rat(rng, -2, 2, 2))
        K = sp.Matrix(d, d, lambda i, j: _rand_rat(rng))
        A = (B * B.T + sp.eye(d)) / 2 + (K - K.T) / 2
    else:
        while True:
            A = sp.Matrix(d, d, lambda i, j: _rand_rat(rng))
            with mpmath.workdps(DPS):
                ev = mpmath.eigsy(_mp(A + A.T))[0]
            if min(ev) < 0 < max(ev):
                break
    return A, _rand_spd(rng, d), sp.Matrix(d, 1, lambda i, j: _rand_rat(rng))


@pytest.mark.parametrize("d,kind", [(2, "indefinite"), (2, "positive"), (3, "indefinite"), (3, "positive")])
def test_softmax_identity_value_closed_form(d, kind):
    A, Sigma0, alpha0 = _softmax_case(d, kind, seed=10 * d + len(kind))
    Ssym = A + A.T
    Tstar = 1 / _lam_max(Sigma0, Ssym)
    T = R(int(mpmath.floor(0.85 * Tstar * 1000)), 1000)
    times = [0, T / 4, T / 2, T]
    res = reference_solve(derive("softmax"), _softmax_env(A, sp.eye(d), Sigma0, alpha0), d, T, times=times)
    assert not res.blowup and len(res.Sigma) == 4
    with mpmath.workdps(DPS):
        assert abs(res.t_end - mpmath.mpf(T.p) / T.q) < mpmath.mpf(10) ** -40
    assert res.error_estimate < mpmath.mpf(10) ** -30
    P0 = Sigma0.inv()
    with mpmath.workdps(DPS):
        for t, Sig in zip(times, res.Sigma):
            exact = _mp((P0 - R(t) * Ssym).inv())  # rational t: a rational matrix
            assert _relerr(Sig, exact) < mpmath.mpf(10) ** -28, (t, _relerr(Sig, exact))


def test_softmax_singular_initial_covariance():
    # rank 2 in d = 3: Σ(t) = Σ₀(I − t(A+Aᵀ)Σ₀)⁻¹, and the rank stays 2
    A = sp.Matrix([[1, R(1, 2), 0], [R(-1, 3), R(1, 4), 1], [0, 1, -1]])
    v, w = sp.Matrix([1, 2, -1]), sp.Matrix([0, 1, 1])
    Sigma0 = v * v.T + w * w.T / 2
    T = R(1, 20)
    res = reference_solve(derive("softmax"), _softmax_env(A, sp.eye(3), Sigma0, sp.zeros(3, 1)), 3, "0.05")
    exact = Sigma0 * (sp.eye(3) - T * (A + A.T) * Sigma0).inv()
    with mpmath.workdps(DPS):
        assert _relerr(res.Sigma[-1], _mp(exact)) < mpmath.mpf(10) ** -28
        assert abs(mpmath.det(res.Sigma[-1])) < mpmath.mpf(10) ** -35


def test_softmax_scalar_mean_closed_form():
    # d = 1, V = 1: s' = 2as², α' = (1 + as)α ⇒ s = s₀/(1 − 2as₀t), α = α₀ eᵗ (1 − 2as₀t)^{-1/2}
    a, s0, a0, T = R(3, 4), R(1, 2), R(-2, 3), R(1)
    res = reference_solve(derive("softmax"), _softmax_env([[a]], [[1]], [[s0]], [[a0]]), 1, T)
    with mpmath.workdps(DPS):
        g = 1 - 2 * mpmath.mpf(a.p) / a.q * mpmath.mpf(s0.p) / s0.q * T
        s_ex = (mpmath.mpf(s0.p) / s0.q) / g
        a_ex = mpmath.mpf(a0.p) / a0.q * mpmath.e ** T / mpmath.sqrt(g)
        assert abs(res.Sigma[-1][0, 0] - s_ex) / s_ex < mpmath.mpf(10) ** -30
        assert abs(res.alpha[-1][0, 0] - a_ex) / abs(a_ex) < mpmath.mpf(10) ** -30


def test_homogeneity_general_value_matrix():
    # Σ_{cΣ₀}(t) = c Σ_{Σ₀}(ct) (docs/mathematics.md §4), for a non-symmetric V (no closed form)
    rng = random.Random(7)
    d, c = 3, R(2)
    A = sp.Matrix(d, d, lambda i, j: _rand_rat(rng))
    V = sp.Matrix(d, d, lambda i, j: _rand_rat(rng))
    Sigma0 = _rand_spd(rng, d) / 20
    T = R(1, 40)
    sysm = derive("softmax")
    r1 = reference_solve(sysm, _softmax_env(A, V, Sigma0, sp.zeros(d, 1)), d, c * T, times=[c * T])
    r2 = reference_solve(sysm, _softmax_env(A, V, c * Sigma0, sp.zeros(d, 1)), d, T, times=[T])
    assert not r1.blowup and not r2.blowup
    with mpmath.workdps(DPS):
        assert _relerr(r2.Sigma[-1], r1.Sigma[-1] * c) < mpmath.mpf(10) ** -30


# ---------------------------------------------------------------------------------------
# Alcalde's model with V = vI: P = Σ⁻¹ solves Ṗ = −(FᵀP + PF) − R, R = v(B + Bᵀ)
# ---------------------------------------------------------------------------------------
def _drift_env(A, V, F, b, Sigma0, alpha0):
    d = A.rows
    return {S.Sigma: sp.ImmutableMatrix(Sigma0), S.alpha: sp.ImmutableMatrix(alpha0),
            _Ms("A"): sp.ImmutableMatrix(A), _Ms("V"): sp.ImmutableMatrix(V),
            _Ms("F"): sp.ImmutableMatrix(F), _Ms("b", S.d, 1): sp.ImmutableMatrix(b.reshape(d, 1))}


@pytest.mark.parametrize("d,v,f,sign", [(2, R(1, 2), R(1), -1), (3, R(-1, 3), R(-1, 2), 1),
                                        (2, R(1), R(1, 3), 1)])
def test_drift_scalar_feedforward_closed_form(d, v, f, sign):
    rng = random.Random(d * 100 + int(sign))
    # choose B with sign·(B + Bᵀ) ≻ 0, so R = v(B + Bᵀ) has the sign of sign·v
    K = sp.Matrix(d, d, lambda i, j: _rand_rat(rng))
    G = sp.Matrix(d, d, lambda i, j: _rand_rat(rng, -2, 2, 2))
    B = sign * (G * G.T + sp.eye(d)) / 2 + (K - K.T) / 2
    Rm = v * (B + B.T)
    Sigma0, alpha0 = _rand_spd(rng, d), sp.Matrix(d, 1, lambda i, j: _rand_rat(rng))
    b = sp.Matrix(d, 1, lambda i, j: _rand_rat(rng))
    P0, Pstar = Sigma0.inv(), -Rm / (2 * f)
    T = R(1)
    # if R ≻ 0 (blow-up regime), stay below T* = ln(1 + f/ρ)/(2f), ρ = λ_max(Σ₀^{1/2}RΣ₀^{1/2})/2
    rho = _lam_max(Sigma0, Rm) / 2
    if rho > 0 and f > -rho:
        Tstar = mpmath.log(1 + f / rho) / (2 * f)
        T = min(T, R(int(mpmath.floor(0.8 * Tstar * 1000)), 1000))
    times = [T / 3, T]
    res = reference_solve(derive("softmax", drift=True),
                          _drift_env(B, v * sp.eye(d), f * sp.eye(d), b, Sigma0, alpha0), d, T, times=times)
    assert not res.blowup
    with mpmath.workdps(DPS):
        for t, Sig in zip(times, res.Sigma):
            P = _mp(Pstar) + mpmath.exp(-2 * mpmath.mpf(f.p) / f.q * mpmath.mpf(t.p) / t.q) * _mp(P0 - Pstar)
            assert _relerr(Sig, mpmath.inverse(P)) < mpmath.mpf(10) ** -25, t


def test_drift_general_feedforward_lyapunov_closed_form():
    # F anti-Hurwitz, R ≺ 0: P(t) = P* + e^{−Fᵀt}(P₀ − P*)e^{−Ft}, FᵀP* + P*F = −R
    rng = random.Random(3)
    d, v = 3, R(1, 2)
    F = sp.Matrix([[1, R(1, 2), -1], [0, R(3, 2), R(1, 3)], [R(1, 4), 0, 2]])
    G = sp.Matrix(d, d, lambda i, j: _rand_rat(rng, -2, 2, 2))
    B = -(G * G.T + sp.eye(d)) / 2 + sp.Matrix([[0, 1, 0], [-1, 0, 2], [0, -2, 0]]) / 3
    Rm = v * (B + B.T)
    Pv = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"p{min(i, j)}{max(i, j)}"))
    sol = sp.solve(list(F.T * Pv + Pv * F + Rm), list(Pv.free_symbols), dict=True)[0]
    Pstar = Pv.subs(sol)
    Sigma0 = _rand_spd(rng, d)
    T = R(1, 2)
    res = reference_solve(derive("softmax", drift=True),
                          _drift_env(B, v * sp.eye(d), F, sp.zeros(d, 1), Sigma0, sp.ones(d, 1)), d, T)
    assert not res.blowup
    with mpmath.workdps(DPS):
        E = mpmath.expm(-_mp(F) * mpmath.mpf(T.p) / T.q)
        P = _mp(Pstar) + E.T * _mp(Sigma0.inv() - Pstar) * E
        assert _relerr(res.Sigma[-1], mpmath.inverse(P)) < mpmath.mpf(10) ** -25


# ---------------------------------------------------------------------------------------
# Sinkhorn, d = 1: ṡ = 4vas²/(1 + √(1 + 4a²s²)), α̇ = vα
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("v,a,s0", [(R(1, 2), R(3, 2), R(2, 3)), (R(-1), R(1, 2), R(5, 2))])
def test_sinkhorn_scalar_against_odefun(v, a, s0):
    T, a0 = R(1), R(3, 2)
    res = reference_solve(derive("sinkhorn"), _softmax_env([[a]], [[v]], [[s0]], [[a0]]), 1, T)
    assert not res.blowup
    with mpmath.workdps(40):
        vm, am = mpmath.mpf(v.p) / v.q, mpmath.mpf(a.p) / a.q
        sol = mpmath.odefun(lambda t, s: 4 * vm * am * s ** 2 / (1 + mpmath.sqrt(1 + 4 * am ** 2 * s ** 2)),
                            0, mpmath.mpf(s0.p) / s0.q)
        s_ex = sol(1)
        assert abs(res.Sigma[-1][0, 0] - s_ex) / s_ex < mpmath.mpf(10) ** -25
        a_ex = mpmath.mpf(a0.p) / a0.q * mpmath.exp(vm)
        assert abs(res.alpha[-1][0, 0] - a_ex) / a_ex < mpmath.mpf(10) ** -30


def test_sinkhorn_and_l2_self_consistent_in_d3():
    # no closed form: an independent run at higher precision and order agrees
    rng = random.Random(5)
    d = 3
    Sigma0 = _rand_spd(rng, d)
    A = sp.Matrix(d, d, lambda i, j: _rand_rat(rng, -4, 4, 3))
    V = sp.Matrix(d, d, lambda i, j: _rand_rat(rng, -4, 4, 4))
    res = reference_solve(derive("sinkhorn"), _softmax_env(A, V, Sigma0, sp.ones(d, 1)), d, R(1, 2), verify=True)
    assert res.verified and not res.blowup and res.error_estimate < mpmath.mpf(10) ** -30
    prob = parse_problem({"variant": "l2", "d": 2, "Q": [["1/2", 1]], "K": [[1, "-1/3"]],
                          "V": [[1, "1/2"], [0, -1]], "T": "1/2",
                          "initial": {"mean": [1, 0], "cov": [[1, "1/3"], ["1/3", "1/2"]]}})
    res = reference_solve_problem(prob, verify=True)
    assert res.verified and not res.blowup and res.error_estimate < mpmath.mpf(10) ** -30


# ---------------------------------------------------------------------------------------
# problems, temperature, blow-up
# ---------------------------------------------------------------------------------------
def test_problem_with_temperature_matches_closed_form():
    prob = parse_problem({"variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/2", "1/3"]],
                          "V": [[1, 0], [0, 1]], "scale": "1/2", "T": "1/5",
                          "initial": {"mean": [0, 1], "cov": [[2, "1/2"], ["1/2", 1]]}})
    res = reference_solve_problem(prob)
    A = sp.Matrix([[1, R(1, 2)], [R(-1, 2), R(1, 3)]]) / 2  # scale·A
    exact = (sp.Matrix([[2, R(1, 2)], [R(1, 2), 1]]).inv() - R(1, 5) * (A + A.T)).inv()
    with mpmath.workdps(DPS):
        assert _relerr(res.Sigma[-1], _mp(exact)) < mpmath.mpf(10) ** -28
    # the problem route and the explicit route agree
    system = derive_for_problem(prob)
    res2 = reference_solve(system, problem_env(prob, system), 2, "1/5")
    assert res2.Sigma[-1] == res.Sigma[-1]


def test_blowup_detected_at_T_star():
    A, Sigma0, alpha0 = _softmax_case(2, "indefinite", seed=11)
    with mpmath.workdps(DPS):
        Tstar = 1 / _lam_max(Sigma0, A + A.T)
        T = 2 * Tstar
        times = [Tstar / 2, 3 * Tstar / 2, T]
    res = reference_solve(derive("softmax"), _softmax_env(A, sp.eye(2), Sigma0, alpha0), 2, T, times=times)
    assert res.blowup and res.reason
    assert len(res.times) == 1 and len(res.Sigma) == 1  # nothing after the blow-up
    with mpmath.workdps(DPS):
        assert abs(res.t_end - Tstar) / Tstar < 1e-6
        assert res.t_end < Tstar * (1 + mpmath.mpf(10) ** -30)  # never past T*
        t = Tstar / 2
        exact = mpmath.inverse(mpmath.inverse(_mp(Sigma0)) - t * _mp(A + A.T))
        assert _relerr(res.Sigma[0], exact) < mpmath.mpf(10) ** -28
