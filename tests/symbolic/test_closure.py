"""The closure engine against docs/mathematics.md §3 (exact residuals), against SymPy's own integration
over ℝ (d = 1), and its non-closure witnesses against independent quadrature."""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from symbolic_tf import variants
from symbolic_tf.spec import parse_problem
from symbolic_tf.symbolic import symbols as S
from symbolic_tf.symbolic.closure import decide_invariance, default_instance, witness_derivative
from symbolic_tf.symbolic.moments import derive, rhs
from symbolic_tf.symbolic._sinkhorn import coupling_1d, coupling_fixed_point

CLOSED = [n for n in variants.names() if variants.get(n).expected_closed]
OPEN = [n for n in variants.names() if not variants.get(n).expected_closed]


def rq(rng, lo=-3, hi=3, den=4):
    return sp.Rational(rng.randint(lo, hi), den)


def rmat(rng, r, c, **kw):
    return sp.Matrix(r, c, lambda i, j: rq(rng, **kw))


def spd(rng, d, rank=None):
    L = rmat(rng, d, rank or d)
    return L * L.T / 2 + (sp.eye(d) / 4 if rank is None else sp.zeros(d, d))


def s_(M):
    return [[str(e) for e in M.row(i)] for i in range(M.rows)]


def frac_matrix(rows):
    return sp.Matrix([[sp.Rational(Fraction(e).numerator, Fraction(e).denominator) for e in r] for r in rows])


# ----- docs/mathematics.md §3 formulas, written independently of the engine ----------------------------
def _softmax(p):
    Sg, A, V, a = p["Sigma"], p["A"], p["V"], p["alpha"]
    return V * (sp.eye(Sg.rows) + Sg * A) * a, V * Sg * A * Sg + Sg * A.T * Sg * V.T


def _l2(p):
    Sg, Q, K, V, a = p["Sigma"], p["Q"], p["K"], p["V"], p["alpha"]
    A = K.T * Q
    I = sp.eye(Sg.rows)
    J = 2 * V * Sg * (I + 2 * K.T * K * Sg).inv() * A
    mean = V * (I + 2 * Sg * K.T * K).inv() * (a + 2 * Sg * K.T * Q * a)
    return mean, J * Sg + Sg * J.T


def _linear(p):
    Sg, A, V, a = p["Sigma"], p["A"], p["V"], p["alpha"]
    M2 = Sg + a * a.T
    return V * M2 * A * a, V * M2 * A * Sg + Sg * A.T * M2 * V.T


def _multihead(p):
    Sg, a = p["Sigma"], p["alpha"]
    mean, cov = sp.zeros(Sg.rows, 1), sp.zeros(Sg.rows, Sg.rows)
    for A, V, W in p["heads"]:
        C = W * V
        mean += C * (sp.eye(Sg.rows) + Sg * A) * a
        cov += C * Sg * A * Sg + Sg * A.T * Sg * C.T
    return mean, cov


EXACT_FORMULAS = {"softmax": _softmax, "l2": _l2, "linear": _linear, "multihead": _multihead}
NUMERIC_ONLY = {"sinkhorn"}  # matrix square root: irrational in general, checked at 40 digits


def _problem(name, d, rng, drift=False):
    p = {"alpha": rmat(rng, d, 1), "Sigma": spd(rng, d)}
    doc = {"variant": name, "d": d, "initial": {"mean": [str(e) for e in p["alpha"]], "cov": s_(p["Sigma"])}}
    if name == "multihead":
        p["heads"] = [(rmat(rng, d, d), rmat(rng, d, d), rmat(rng, d, d)) for _ in range(2)]
        doc["heads"] = [{"A": s_(A), "V": s_(V), "W": s_(W)} for A, V, W in p["heads"]]
    elif name == "l2":
        k = d + 1
        p.update(Q=rmat(rng, k, d), K=rmat(rng, k, d), V=rmat(rng, d, d))
        doc.update(Q=s_(p["Q"]), K=s_(p["K"]), V=s_(p["V"]))
    else:
        p.update(A=rmat(rng, d, d), V=rmat(rng, d, d))
        doc.update(A=s_(p["A"]), V=s_(p["V"]))
    if drift:
        p.update(F=rmat(rng, d, d), b=rmat(rng, d, 1))
        doc.update(F=s_(p["F"]), b=[str(e) for e in p["b"]])
    return p, parse_problem(doc)


def test_every_closed_variant_has_an_independent_formula():
    assert set(CLOSED) <= set(EXACT_FORMULAS) | NUMERIC_ONLY, "add the docs/mathematics.md formula of the new variant"


@pytest.mark.parametrize("name", sorted(set(CLOSED) - NUMERIC_ONLY))
@pytest.mark.parametrize("d", [2, 3, 4])
def test_exact_zero_residual_against_math_md(name, d):
    rng = random.Random(1000 * d + len(name))
    for _ in range(2):
        p, problem = _problem(name, d, rng)
        val = rhs(problem)
        assert val.exact
        mean, cov = EXACT_FORMULAS[name](p)
        assert frac_matrix(val.cov_rhs) - cov == sp.zeros(d, d)
        assert frac_matrix([[e] for e in val.mean_rhs]) - mean == sp.zeros(d, 1)


@pytest.mark.parametrize("d", [2, 3])
def test_drift_model_alcalde(d):
    """docs/mathematics.md §6: α̇ = (F + V)α + VΣBα + b, Σ̇ = FΣ + ΣFᵀ + VΣBΣ + ΣBᵀΣVᵀ."""
    rng = random.Random(7 + d)
    p, problem = _problem("softmax", d, rng, drift=True)
    val = rhs(problem)
    Sg, A, V, F, b, a = p["Sigma"], p["A"], p["V"], p["F"], p["b"], p["alpha"]
    assert frac_matrix(val.cov_rhs) == F * Sg + Sg * F.T + V * Sg * A * Sg + Sg * A.T * Sg * V.T
    assert frac_matrix([[e] for e in val.mean_rhs]) == (F + V) * a + V * Sg * A * a + b


@pytest.mark.parametrize("d", [2, 3, 4])
def test_sinkhorn_against_fixed_point(d):
    """The closed form (whitened SVD) vs the (P, R) fixed point of docs/mathematics.md §3, 40 digits."""
    rng = random.Random(99 + d)
    p, problem = _problem("sinkhorn", d, rng)
    val = rhs(problem)
    assert not val.exact
    fp = coupling_fixed_point(p["Sigma"].tolist(), p["A"].tolist())
    assert fp.converged and fp.residual < 1e-28
    mpmath.mp.dps = 40
    Sg = mpmath.matrix(p["Sigma"].tolist())
    V = mpmath.matrix(p["V"].tolist())
    J = V * fp.gain
    cov = J * Sg + Sg * J.T
    mean = V * mpmath.matrix(p["alpha"].tolist())
    for i in range(d):
        assert abs(mpmath.mpf(val.mean_rhs[i]) - mean[i]) < 1e-25
        for j in range(d):
            assert abs(mpmath.mpf(val.cov_rhs[i][j]) - cov[i, j]) < 1e-25 * (1 + abs(cov[i, j]))


def test_sinkhorn_d1_closed_form():
    """ṡ = 4 v a s² / (1 + √(1 + 4a²s²)) from the symbolic d = 1 solution of the fixed point."""
    c = coupling_1d()
    s, a = c["s"], c["a"]
    v = sp.Symbol("v")
    assert sp.simplify(2 * v * c["gain"] * s - 4 * v * a * s**2 / (1 + sp.sqrt(1 + 4 * a**2 * s**2))) == 0
    system = derive("sinkhorn")
    _, cov = system.entries(1)
    A0, S00, V0 = sp.symbols("A_00 Sigma_00 V_00")
    expr = cov[0, 0].subs({A0: a, S00: s, V0: v})
    assert sp.simplify(expr - 2 * v * c["gain"] * s) == 0


# ----- SymPy's own integration over ℝ, d = 1 -------------------------------------------------
def _sympy_velocity_1d(kernel, x, y, al, s, v):
    dens = sp.exp(-(y - al) ** 2 / (2 * s)) / sp.sqrt(2 * sp.pi * s)
    num = sp.integrate(kernel * v * y * dens, (y, -sp.oo, sp.oo), conds="none")
    den = sp.integrate(kernel * dens, (y, -sp.oo, sp.oo), conds="none")
    return num, den


@pytest.mark.parametrize("name", ["softmax", "l2", "linear"])
def test_d1_against_sympy_integration(name):
    x, y, al = sp.symbols("x y alpha", real=True)
    s = sp.Symbol("s", positive=True)
    v = sp.Symbol("v", real=True)
    # concrete small rationals for the attention parameters keep sympy's integrator fast
    a, q, k = sp.Rational(1, 2), sp.Rational(2, 3), sp.Rational(3, 4)
    system = derive(name)
    if name == "l2":
        kernel = sp.exp(-(q * x - k * y) ** 2)
        env = {S.param_symbol("Q"): sp.Matrix([[q]]), S.param_symbol("K"): sp.Matrix([[k]])}
    elif name == "softmax":
        kernel = sp.exp(a * x * y)
        env = {S.param_symbol("A"): sp.Matrix([[a]])}
    else:
        kernel = a * x * y
        env = {S.param_symbol("A"): sp.Matrix([[a]])}
    num, den = _sympy_velocity_1d(kernel, x, y, al, s, v)
    gamma = num / den if name != "linear" else num
    env.update({S.param_symbol("V"): sp.Matrix([[v]]), S.Sigma: sp.Matrix([[s]]), S.alpha: sp.Matrix([[al]])})
    dims = {S.d: 1, S.k: 1}
    J = system.closure.J.subs(dims).xreplace({k_.subs(dims): w for k_, w in env.items()}).doit()
    c = system.closure.c.subs(dims).xreplace({k_.subs(dims): w for k_, w in env.items()}).doit()
    engine = sp.Matrix(J)[0, 0] * x + sp.Matrix(c)[0, 0]
    assert sp.simplify(gamma - engine) == 0


# ----- non-closure witnesses -------------------------------------------------------------------
@pytest.mark.parametrize("name", OPEN)
def test_open_variants_are_refuted_with_witness(name):
    verdict = decide_invariance(name)
    assert verdict.status == "REFUTED"
    ev = verdict.evidence
    assert ev["order"] >= 2
    if not ev["exact_rational"]:
        mid, rad = (mpmath.mpf(t) for t in ev["ball"])
        assert abs(mid) > rad  # the ball excludes zero


def _quadrature_derivative(name, order):
    """Γ^{(n)}(0) along e₁ by mpmath quadrature + numerical differentiation (d = 1)."""
    v = variants.get(name)
    inst = default_instance(v, 1)
    P = inst["P"]
    comps = [(float(p), float(a[0]), float(Sg[0, 0])) for p, a, Sg in inst["mixture"].components]
    A, V = float(P["A"][0, 0]), float(P["V"][0, 0])
    b0 = float(P.get("sigmoid_bias", 0))
    mpmath.mp.dps = 30

    def kern(x, y):
        if name == "sigmoid":
            return 1 / (1 + mpmath.exp(-(A * x * y + b0)))
        return mpmath.exp(A * x * y)

    def integral(f):
        return sum(p * mpmath.quad(lambda y: f(y) * mpmath.npdf(y, m, mpmath.sqrt(s)), [-mpmath.inf, m, mpmath.inf])
                   for p, m, s in comps)

    def gamma(x):
        num = integral(lambda y: kern(x, y) * V * y)
        if v.normalisation == "none":
            return num
        return num / integral(lambda y: kern(x, y))

    return mpmath.diff(gamma, 0, order)


@pytest.mark.parametrize("name", OPEN)
def test_witness_matches_independent_quadrature(name):
    verdict = decide_invariance(name)
    n = verdict.evidence["order"]
    exact = sp.sympify(verdict.evidence["derivative"][0])
    quad = _quadrature_derivative(name, n)
    assert abs(quad - mpmath.mpf(str(sp.N(exact, 30)))) < 1e-8
    assert abs(quad) > 1e-3


@pytest.mark.parametrize("name", ["softmax", "linear"])
def test_witness_route_sees_closed_variants_as_affine(name):
    """Consistency of the two routes: for a closed variant, derivatives of order ≥ 2 vanish."""
    v = variants.get(name)
    for d in (1, 2):
        inst = default_instance(v, d)
        derivs = witness_derivative(v, inst["P"], inst["mixture"], inst["u"], 3)
        assert all(e == 0 for n in (2, 3) for e in derivs[n])


def test_masked_reduces_to_softmax_for_position_independent_law():
    v = variants.get("masked")
    inst = default_instance(v, 1)
    one = sp.Matrix([1])
    from symbolic_tf.symbolic._gaussian import GaussianMixture

    same = GaussianMixture([(sp.Rational(1, 3), one, sp.eye(1)), (sp.Rational(2, 3), one, sp.eye(1))])
    derivs = witness_derivative(v, inst["P"], same, inst["u"], 3)
    assert all(e == 0 for n in (2, 3) for e in derivs[n])


def test_sigmoid_zero_bias_needs_third_order():
    """σ''(0) = 0, so the witness moves to order 3 (σ'''(0) = −1/8): still REFUTED."""
    v = variants.get("sigmoid")
    inst = default_instance(v, 1)
    inst["P"]["sigmoid_bias"] = sp.Integer(0)
    verdict = decide_invariance(v, instance=inst)
    assert verdict.status == "REFUTED" and verdict.evidence["order"] == 3


def test_covariance_is_alpha_free_where_math_md_says():
    for name in ("softmax", "l2", "sinkhorn", "multihead"):
        assert not derive(name).cov_rhs.has(S.alpha), name
    assert derive("linear").cov_rhs.has(S.alpha)


@pytest.mark.parametrize("name", sorted(set(CLOSED) - NUMERIC_ONLY))
def test_entries_are_the_matrix_form(name):
    """Explicit entries at d = 2 equal the matrix form evaluated at random rationals."""
    system = derive(name)
    d = 2
    a_dot, s_dot = system.entries(d)
    rng = random.Random(5)
    env = system.explicit_symbols(d)
    values = {}
    for sym, M in env.items():
        for e in M:
            values.setdefault(e, rq(rng))
    # symmetric Σ shares symbols: make it PD-ish by a diagonal shift
    for i in range(d):
        values[sp.Symbol(f"Sigma_{i}{i}")] = values[sp.Symbol(f"Sigma_{i}{i}")] + 3
    aux = getattr(system, "aux", {})
    sub = dict(values)
    for name_aux, _ in aux.items():
        M = sp.Matrix(d, d, lambda r, c: sp.Symbol(f"{name_aux}_{r}{c}"))
        idx = int(name_aux[3:]) - 1
        invs = sorted(system.cov_rhs.atoms(sp.Inverse) | system.mean_rhs.atoms(sp.Inverse), key=sp.default_sort_key)
        inner = invs[idx].arg.subs({S.d: d, S.k: d})
        inner = inner.xreplace({s.subs({S.d: d, S.k: d}): m.subs(values) for s, m in env.items()}).doit()
        Minv = sp.Matrix(inner).inv()
        sub.update({M[r, c]: Minv[r, c] for r in range(d) for c in range(d)})
    direct_env = {s: m.subs(values) for s, m in env.items()}
    val = system.evaluate(direct_env, d)
    assert [sp.Rational(Fraction(e)) for e in val.mean_rhs] == list(a_dot.subs(sub))
    assert sp.Matrix([[sp.Rational(Fraction(e)) for e in row] for row in val.cov_rhs]) == s_dot.subs(sub)
