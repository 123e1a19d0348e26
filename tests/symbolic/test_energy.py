"""Interaction energies, first variations and gradient-flow identities (docs/mathematics.md §7)."""
from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

from symbolic_tf.spec.verdict import PROVED, REFUTED, UNDECIDED
from symbolic_tf.symbolic.energy import (
    empirical_energy, empirical_first_variation, entropic_self_transport_1d,
    entropic_self_transport_value, gaussian_energy, gaussian_first_variation,
    is_positive_definite_exact, sinkhorn_bures_wasserstein_gradient_flow,
    softmax_is_twisted_gradient_flow, vector_symbols,
)


def rq(rng, lo=-3, hi=3, den=4):
    return sp.Rational(rng.randint(lo, hi), den)


def _mc_energy(kernel, A=None, Q=None, K=None, alpha=None, Sigma=None, n=100_000, seed=1):
    rng = np.random.default_rng(seed)
    d = len(alpha)
    L = np.linalg.cholesky(np.array(Sigma, dtype=float))
    x = np.array(alpha, dtype=float) + rng.standard_normal((n, d)) @ L.T
    y = np.array(alpha, dtype=float) + rng.standard_normal((n, d)) @ L.T
    if kernel == "softmax":
        w = np.exp(np.einsum("ni,ij,nj->n", y, np.array(A, dtype=float), x))
    else:
        r = x @ np.array(Q, dtype=float).T - y @ np.array(K, dtype=float).T
        w = np.exp(-(r**2).sum(1))
    w = 0.5 * w
    return w.mean(), w.std(ddof=1) / np.sqrt(n)


def test_softmax_energy_matches_monte_carlo_d2():
    E = gaussian_energy("softmax", 2)
    A = sp.Matrix([[sp.Rational(1, 4), sp.Rational(-1, 8)], [sp.Rational(1, 8), sp.Rational(1, 5)]])
    Sig = sp.Matrix([[1, sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(1, 2)]])
    al = sp.Matrix([sp.Rational(1, 2), sp.Rational(-1, 3)])
    vals = {"A": A, "Sigma": Sig, "alpha": al}
    assert E.is_finite(vals)
    exact = float(E.evaluate(vals))
    mc, se = _mc_energy("softmax", A=A.tolist(), alpha=list(al), Sigma=Sig.tolist())
    assert abs(mc - exact) < 5 * se, (mc, exact, se)


def test_l2_energy_matches_monte_carlo_d2():
    E = gaussian_energy("l2", 2)
    Q = sp.Matrix([[1, sp.Rational(1, 2)], [0, sp.Rational(1, 3)]])
    K = sp.Matrix([[sp.Rational(1, 2), 0], [sp.Rational(-1, 4), 1]])
    Sig = sp.Matrix([[sp.Rational(1, 2), sp.Rational(1, 8)], [sp.Rational(1, 8), sp.Rational(1, 3)]])
    al = sp.Matrix([sp.Rational(1, 2), 1])
    vals = {"Q": Q, "K": K, "Sigma": Sig, "alpha": al}
    assert E.is_finite(vals)
    exact = float(E.evaluate(vals))
    mc, se = _mc_energy("l2", Q=Q.tolist(), K=K.tolist(), alpha=list(al), Sigma=Sig.tolist())
    assert abs(mc - exact) < 5 * se, (mc, exact, se)


def test_softmax_energy_1d_closed_form_and_condition():
    E = gaussian_energy("softmax", 1)
    a, s, al = sp.symbols("A_00 Sigma_00 alpha_0", real=True)
    expected = sp.exp(a * al**2 / (1 - a * s)) / (2 * sp.sqrt(1 - a**2 * s**2))
    pt = {a: sp.Rational(1, 3), s: sp.Rational(3, 2), al: sp.Rational(2, 5)}
    assert sp.nsimplify(E.expr.xreplace(pt) / expected.xreplace(pt)) == 1
    # finite iff |a| s < 1 (d = 1): the condition matrix decides it exactly
    assert E.is_finite({"A": [[sp.Rational(1, 2)]], "Sigma": [[sp.Rational(19, 10)]], "alpha": [[0]]})
    assert not E.is_finite({"A": [[sp.Rational(1, 2)]], "Sigma": [[sp.Rational(21, 10)]], "alpha": [[0]]})
    assert not E.is_finite({"A": [[sp.Rational(-1, 2)]], "Sigma": [[3]], "alpha": [[0]]})
    with pytest.raises(ValueError):
        E.evaluate({"A": [[1]], "Sigma": [[2]], "alpha": [[0]]})


def test_condition_matrix_d2_is_congruent_form():
    E = gaussian_energy("softmax", 2)
    A = sp.Matrix([[1, 2], [0, 1]])
    Sig = sp.eye(2) / 4
    M = E.condition.xreplace(E.subs({"A": A, "Sigma": Sig, "alpha": sp.zeros(2, 1)}))
    inv_form = sp.BlockMatrix([[Sig.inv(), -A.T], [-A, Sig.inv()]]).as_explicit()
    assert is_positive_definite_exact(M) == is_positive_definite_exact(inv_form) is True
    A2 = 3 * A
    M2 = E.condition.xreplace(E.subs({"A": A2, "Sigma": Sig, "alpha": sp.zeros(2, 1)}))
    inv2 = sp.BlockMatrix([[Sig.inv(), -A2.T], [-A2, Sig.inv()]]).as_explicit()
    assert is_positive_definite_exact(M2) == is_positive_definite_exact(inv2) is False


def test_user_kernel_matches_l2():
    x, y = vector_symbols(1)
    Eu = gaussian_energy(lambda x, y: sp.exp(-(x[0] - y[0]) ** 2), 1)
    El = gaussian_energy("l2", 1)
    vals = {"Sigma": [[sp.Rational(2, 3)]], "alpha": [[sp.Rational(1, 2)]]}
    lhs = Eu.evaluate(vals)
    rhs = El.evaluate({**vals, "Q": [[1]], "K": [[1]]})
    assert sp.nsimplify(lhs - rhs) == 0
    with pytest.raises(ValueError):
        gaussian_energy(lambda x, y: sp.exp(x[0] ** 3 * y[0]), 1)


def test_dimension_free_form_matches_explicit():
    E0 = gaussian_energy("softmax", None)
    E1 = gaussian_energy("softmax", 1)
    assert E0.d is None and E0.expr.has(sp.Determinant)
    assert E1.d == 1


@pytest.mark.parametrize("kernel", ["softmax", "l2"])
def test_first_variation_gradient_vs_finite_differences(kernel):
    rng = random.Random(7)
    fv = gaussian_first_variation(kernel, 2)
    P = fv.symbols
    sub = {}
    for name in ("A", "Q", "K"):
        for e in P[name]:
            sub[e] = rq(rng, den=8)
    B = sp.Matrix(2, 2, lambda i, j: rq(rng, den=4))
    Sig = B * B.T + sp.eye(2) / 4
    for i in range(2):
        for j in range(2):
            sub[P["Sigma"][i, j]] = Sig[i, j]
        sub[P["alpha"][i]] = rq(rng)
    for trial in range(2):
        pt = {xi: rq(rng) for xi in fv.x}
        f = sp.lambdify(list(fv.x), fv.expr.xreplace(sub), "mpmath")
        grad = [sp.N(g.xreplace(sub).xreplace(pt), 30) for g in fv.gradient]
        with mpmath.workdps(40):
            for k in range(2):
                h = mpmath.mpf(10) ** -12
                args_p = [mpmath.mpf(sp.Rational(pt[xi]).p) / sp.Rational(pt[xi]).q for xi in fv.x]
                args_m = list(args_p)
                args_p[k] += h
                args_m[k] -= h
                fd = (f(*args_p) - f(*args_m)) / (2 * h)
                assert abs(fd - mpmath.mpf(str(grad[k]))) < 1e-15 * max(1, abs(fd))


def test_first_variation_gaussian_matches_monte_carlo():
    fv = gaussian_first_variation("softmax", 1)
    P = fv.symbols
    a, s, al, x0 = sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(1, 4), sp.Rational(2, 3)
    val = float(fv.expr.xreplace({P["A"][0, 0]: a, P["Sigma"][0, 0]: s, P["alpha"][0]: al, fv.x[0]: x0}))
    rng = np.random.default_rng(3)
    y = float(al) + np.sqrt(float(s)) * rng.standard_normal(100_000)
    w = 0.5 * (np.exp(float(a) * y * float(x0)) + np.exp(float(a) * float(x0) * y))
    assert abs(w.mean() - val) < 5 * w.std(ddof=1) / np.sqrt(len(w))


def test_empirical_first_variation_is_weight_derivative():
    A = sp.Matrix([[sp.Rational(1, 2), 1], [sp.Rational(-1, 3), sp.Rational(1, 4)]])
    pts = [[0, 1], [sp.Rational(1, 2), -1], [1, sp.Rational(1, 3)]]
    w = sp.symbols("w0:3")
    E = empirical_energy("softmax", pts, {"A": A}, weights=w)
    wv = {w[0]: sp.Rational(1, 3), w[1]: sp.Rational(1, 6), w[2]: sp.Rational(1, 2)}
    for k in range(3):
        dE = sp.diff(E, w[k]).xreplace(wv)
        fv = empirical_first_variation("softmax", pts, pts[k], {"A": A}, weights=[wv[t] for t in w])
        assert sp.simplify(dE - fv) == 0
        # finite differences in the weight
        h = sp.Rational(1, 10**8)
        fd = (E.xreplace({**wv, w[k]: wv[w[k]] + h}) - E.xreplace({**wv, w[k]: wv[w[k]] - h})) / (2 * h)
        assert abs(sp.N(fd - fv, 30)) < 1e-12


def test_twisted_identity_symmetric_holds():
    v1 = softmax_is_twisted_gradient_flow(1)
    assert v1.status == PROVED and v1.evidence["residual"] == ["0"]
    assert v1.evidence["residual_with_minus_sign"] != ["0"]   # the sign is +M∇δE/δμ/Z
    v2 = softmax_is_twisted_gradient_flow(2, assume_symmetric=True)
    assert v2.status == PROVED and v2.evidence["residual"] == ["0", "0"]
    v3 = softmax_is_twisted_gradient_flow(2, A=[[sp.Rational(1, 2), sp.Rational(-2, 3)],
                                               [sp.Rational(-2, 3), 2]])
    assert v3.status == PROVED
    assert "A = Aᵀ" in v2.reason


def test_twisted_identity_nonsymmetric_fails_exactly():
    v = softmax_is_twisted_gradient_flow(2)
    assert v.status == REFUTED
    assert v.evidence["lhs_velocity"] == ["1", "0"]
    assert v.evidence["rhs_M_grad_over_Z"] == ["1/2", "1/2"]
    assert v.evidence["difference"] == ["1/2", "-1/2"]
    vA = softmax_is_twisted_gradient_flow(2, A=[[1, sp.Rational(1, 2)], [sp.Rational(-1, 3), 2]])
    assert vA.status == REFUTED
    assert any(sp.Rational(e) != 0 for e in vA.evidence["difference"])
    # independent recomputation of the witness: Vα vs ½VA⁻¹(A + Aᵀ)α at x = 0
    A = sp.Matrix([[1, 1], [0, 1]])
    al = sp.Matrix([1, 0])
    assert list(al - A.inv() * (A + A.T) * al / 2) == [sp.Rational(1, 2), sp.Rational(-1, 2)]


def test_entropic_value_1d_derivative_vs_fd_and_optimality():
    t = entropic_self_transport_1d()
    s, a, c = t["s"], t["a"], t["c_symbol"]
    rng = random.Random(11)
    for _ in range(3):
        pt = {s: sp.Rational(rng.randint(1, 8), 4), a: sp.Rational(rng.choice([-3, -1, 1, 2, 5]), 4)}
        F = sp.lambdify(s, t["F"].xreplace({a: pt[a]}), "mpmath")
        with mpmath.workdps(40):
            h = mpmath.mpf(10) ** -12
            s0 = mpmath.mpf(pt[s].p) / pt[s].q
            fd = (F(s0 + h) - F(s0 - h)) / (2 * h)
            sym = mpmath.mpf(str(sp.N(t["dF"].xreplace(pt), 35)))
            assert abs(fd - sym) < 1e-15
            # c* minimises the objective over |c| < s
            obj = sp.lambdify(c, t["objective"].xreplace(pt), "mpmath")
            cs = mpmath.mpf(str(sp.N(t["c"].xreplace(pt), 35)))
            assert abs(cs) < s0
            for dc in (mpmath.mpf("1e-3"), mpmath.mpf("-1e-3")):
                assert obj(cs + dc) > obj(cs)
        # the 1-D value agrees with the d-dimensional routine
        with mpmath.workdps(35):
            v = entropic_self_transport_value([[pt[s]]], [[pt[a]]], dps=35)
            assert abs(v - mpmath.mpf(str(sp.N(t["F"].xreplace(pt), 35)))) < 1e-25


def test_sinkhorn_bw_identity_1d_symbolic():
    v = sinkhorn_bures_wasserstein_gradient_flow(1)
    assert v.status == PROVED
    assert v.evidence["factor"] == "1/2"
    assert v.evidence["sdot_equals_-2sF'"] is True and v.evidence["sdot_equals_-4sF'"] is False
    assert v.evidence["envelope_dF_eq_minus_a_c_over_s"] is True


def test_sinkhorn_bw_identity_2d_numeric():
    v = sinkhorn_bures_wasserstein_gradient_flow(2, samples=3, seed=5)
    assert v.status == UNDECIDED and v.argument == "numerical"
    assert v.numerical["max_rel_err"] < 1e-6
    assert all(p["rel_err_factor_1"] > 0.1 for p in v.numerical["points"])   # the ½ is real
