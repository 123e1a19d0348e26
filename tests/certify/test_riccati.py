"""V = vI certificates: blow-up brackets, clustering ranks, stable equilibria — soundness,
known values, metamorphic properties and tampering."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.riccati import classify_vI
from symbolic_tf.spec import parse_problem
from symbolic_tf.spec.errors import CertificationFailed

small = st.fractions(min_value=-2, max_value=2, max_denominator=4)


def _doc(A, v, S, F=None):
    d = len(A)
    doc = {"variant": "softmax", "d": d, "A": [[str(x) for x in r] for r in A],
           "V": [[str(v if i == j else 0) for j in range(d)] for i in range(d)],
           "initial": {"cov": [[str(x) for x in r] for r in S]}}
    if F is not None:
        doc["F"] = [[str(x) for x in r] for r in F]
    return doc


@st.composite
def vI_problems(draw, drift=False):
    d = draw(st.integers(1, 3))
    A = [[draw(small) for _ in range(d)] for _ in range(d)]
    if draw(st.booleans()):  # boundary: singular A + Aᵀ on purpose
        A[0] = [-A[j][0] for j in range(d)]
        A[0][0] = Fraction(0)
    v = draw(st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(-1), Fraction(2), Fraction(0)]))
    r = draw(st.integers(0, d))  # rank of Σ₀, 0 included on purpose
    L = [[draw(small) for _ in range(r)] for _ in range(d)]
    S = [[sum((L[i][k] * L[j][k] for k in range(r)), Fraction(0)) for j in range(d)] for i in range(d)]
    F = None
    if drift:
        f = draw(st.fractions(min_value=-1, max_value=1, max_denominator=4))
        F = [[f if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    return parse_problem(_doc(A, v, S, F))


def _mp(q: Fraction):
    return mpmath.mpf(q.numerator) / q.denominator


def _exact_Tstar(problem):
    """T* = 1/λ_max(Σ₀^{1/2}RΣ₀^{1/2}) at 50 digits (independent of the certificate code)."""
    mpmath.mp.dps = 50
    d = problem.d
    A = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in problem.A])
    v = problem.V[0][0]
    R = (A + A.T) * (mpmath.mpf(v.numerator) / v.denominator)
    S = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in problem.cov])
    E, Q = mpmath.eigsy(S)
    half = Q * mpmath.diag([mpmath.sqrt(max(e, 0)) for e in E]) * Q.T
    lam = max(mpmath.eigsy(half * R * half)[0])
    return 1 / lam if lam > mpmath.mpf(10) ** -40 else mpmath.inf


@settings()
@given(vI_problems())
def test_softmax_vI_sound_against_closed_form(problem):
    v = classify_vI(problem)
    Ts = _exact_Tstar(problem)
    if v.status != "PROVED":
        assert v.status == "UNDECIDED"
        return
    cert = v.evidence["certificate"]
    assert check(cert).ok
    regime = v.evidence["regime"]
    if regime == "BLOWUP":
        lo, hi = Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])
        assert _mp(lo) <= Ts <= _mp(hi) * (1 + mpmath.mpf(10) ** -40)
        assert (hi - lo) <= Fraction(1, 10**12) * hi
    else:
        assert Ts == mpmath.inf
        rank_S0 = np.linalg.matrix_rank(np.array(problem.cov, dtype=float))
        assert v.evidence["rank"] <= rank_S0


@settings(max_examples=max(10, settings.default.max_examples // 3))
@given(vI_problems(drift=True))
def test_drift_fI_bracket_contains_closed_form(problem):
    """F = fI: T* = ln(1 + f/ρ)/(2f), ρ = λ_max(Σ₀^{1/2}RΣ₀^{1/2})/2 (docs/mathematics.md §6)."""
    v = classify_vI(problem, horizon=50)
    if v.status != "PROVED" or v.evidence.get("regime") != "BLOWUP":
        return
    assert check(v.evidence["certificate"]).ok
    f = mpmath.mpf(problem.F[0][0].numerator) / problem.F[0][0].denominator if problem.F else 0
    T0 = _exact_Tstar(problem)  # = 1/(2ρ)
    rho = 1 / (2 * T0)
    Ts = mpmath.log(1 + f / rho) / (2 * f) if f != 0 else T0
    lo, hi = Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])
    assert _mp(lo) * (1 - mpmath.mpf(10) ** -30) <= Ts <= _mp(hi) * (1 + mpmath.mpf(10) ** -30)


def test_known_V_identity_blowup_and_width():
    p = parse_problem(_doc([[1, Fraction(1, 2)], [0, Fraction(1, 3)]], 1, [[1, Fraction(1, 4)], [Fraction(1, 4), Fraction(1, 2)]]))
    v = classify_vI(p)
    lo, hi = Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])
    assert _mp(lo) <= _exact_Tstar(p) <= _mp(hi) and (hi - lo) / hi < Fraction(1, 10**12)


def test_clustering_rank_from_kernel():
    """V = I, A + Aᵀ = −2 e₁e₁ᵀ ⪯ 0 with a kernel of dimension 2: limit rank 2 for Σ₀ ≻ 0."""
    A = [[-1, 1, 0], [-1, 0, 0], [0, 0, 0]]
    p = parse_problem(_doc(A, 1, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    v = classify_vI(p)
    assert v.evidence["regime"] == "CLUSTERING" and v.evidence["rank"] == 2
    assert check(v.evidence["certificate"]).ok


def test_stable_equilibrium_drift():
    A = [[-1, Fraction(1, 2)], [0, -1]]
    F = [[1, Fraction(1, 4)], [0, 1]]
    p = parse_problem(_doc(A, 1, [[1, 0], [0, 1]], F))
    v = classify_vI(p)
    assert v.evidence["regime"] == "EQUILIBRIUM"
    cert = v.evidence["certificate"]
    assert check(cert).ok
    # Σ* = P*⁻¹ is an equilibrium of FΣ + ΣFᵀ + ΣRΣ exactly
    import sympy as sp

    S = sp.Matrix([[sp.Rational(x) for x in r] for r in v.evidence["Sigma_star"]])
    Fm = sp.Matrix(F)
    R = sp.Matrix(A) + sp.Matrix(A).T
    assert Fm * S + S * Fm.T + S * R * S == sp.zeros(2, 2)


def test_homogeneity_metamorphic():
    base = [[1, Fraction(1, 4)], [Fraction(1, 4), Fraction(1, 2)]]
    A = [[1, Fraction(1, 2)], [0, Fraction(1, 3)]]
    v1 = classify_vI(parse_problem(_doc(A, 1, base)))
    c = Fraction(3)
    v2 = classify_vI(parse_problem(_doc(A, 1, [[c * x for x in r] for r in base])))
    lo1, hi1 = Fraction(v1.evidence["T_lo"]), Fraction(v1.evidence["T_hi"])
    lo2, hi2 = Fraction(v2.evidence["T_lo"]), Fraction(v2.evidence["T_hi"])
    assert max(lo1 / c, lo2) <= min(hi1 / c, hi2)  # T*(cΣ₀) = T*(Σ₀)/c lies in both


def _cayley(S):
    import sympy as sp

    S = sp.Matrix(S)
    I = sp.eye(S.rows)
    return (I - S) * (I + S).inv()


@pytest.mark.parametrize("skew", [Fraction(1, 2), Fraction(-3, 4)])
def test_orthogonal_change_of_basis(skew):
    import sympy as sp

    Rm = _cayley([[0, skew], [-skew, 0]])
    assert Rm * Rm.T == sp.eye(2)
    A = sp.Matrix([[1, sp.Rational(1, 2)], [0, sp.Rational(-1, 3)]])
    S = sp.Matrix([[1, sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(1, 2)]])
    v1 = classify_vI(parse_problem(_doc(A.tolist(), 1, S.tolist())))
    v2 = classify_vI(parse_problem(_doc((Rm * A * Rm.T).tolist(), 1, (Rm * S * Rm.T).tolist())))
    assert v1.evidence["regime"] == v2.evidence["regime"]
    if v1.evidence["regime"] == "BLOWUP":
        lo = max(Fraction(v1.evidence["T_lo"]), Fraction(v2.evidence["T_lo"]))
        hi = min(Fraction(v1.evidence["T_hi"]), Fraction(v2.evidence["T_hi"]))
        assert lo <= hi


def _tamper_variants(cert):
    out = []
    data = cert["data"]
    for key in ("T_lo", "T_hi"):
        if key in data:
            c = copy.deepcopy(cert)
            f = Fraction(c["data"][key])
            c["data"][key] = str(f * (Fraction(11, 10) if key == "T_lo" else Fraction(9, 10)))
            out.append(c)
    if "B" in data:
        c = copy.deepcopy(cert)
        c["data"]["B"][0][0] = str(Fraction(c["data"]["B"][0][0]) + 1)
        out.append(c)
    if "P_star" in data:
        c = copy.deepcopy(cert)
        c["data"]["P_star"][0][0] = str(Fraction(c["data"]["P_star"][0][0]) + Fraction(1, 7))
        out.append(c)
    if "limit_rank" in data:
        c = copy.deepcopy(cert)
        c["data"]["limit_rank"] += 1
        out.append(c)
    c = copy.deepcopy(cert)
    c["problem"]["A"][0][0] = str(Fraction(c["problem"]["A"][0][0]) + 1)
    out.append(c)
    c = copy.deepcopy(cert)
    c["problem_hash"] = "0" * 64
    out.append(c)
    c = copy.deepcopy(cert)
    del c["data"][next(iter(c["data"]))]
    out.append(c)
    return out


@pytest.mark.parametrize("doc", [
    _doc([[1, Fraction(1, 2)], [0, Fraction(1, 3)]], 1, [[1, Fraction(1, 4)], [Fraction(1, 4), Fraction(1, 2)]]),
    _doc([[1, Fraction(1, 2)], [0, Fraction(1, 3)]], 1, [[1, Fraction(1, 4)], [Fraction(1, 4), Fraction(1, 2)]],
         [[Fraction(1, 2), 0], [0, Fraction(1, 2)]]),
    _doc([[-1, 1, 0], [-1, 0, 0], [0, 0, 0]], 1, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
    _doc([[-1, Fraction(1, 2)], [0, -1]], 1, [[1, 0], [0, 1]], [[1, Fraction(1, 4)], [0, 1]]),
])
def test_tampering_is_rejected(doc):
    cert = classify_vI(parse_problem(doc)).evidence["certificate"]
    assert check(cert).ok
    for bad in _tamper_variants(cert):
        with pytest.raises(CertificationFailed):
            check(bad)


@pytest.mark.parametrize("seed", [0, 1])
def test_general_drift_bracket_against_reference_integrator(seed):
    """Non-scalar F: the ball-arithmetic bracket vs the 40-digit Taylor reference integrator:
    the solution exists past 0.999·T_lo and blows up before 1.001·T_hi."""
    from symbolic_tf.numeric.reference import reference_solve_problem

    rng = np.random.default_rng(seed)
    F = [[Fraction(int(x), 4) for x in row] for row in rng.integers(-2, 3, size=(2, 2))]
    A = [[1, Fraction(1, 2)], [0, Fraction(1, 2)]]
    p = parse_problem(_doc(A, 1, [[1, Fraction(1, 4)], [Fraction(1, 4), Fraction(1, 2)]], F))
    v = classify_vI(p, horizon=20)
    assert v.status == "PROVED" and v.evidence["regime"] == "BLOWUP"
    assert check(v.evidence["certificate"]).ok
    lo, hi = Fraction(v.evidence["T_lo"]), Fraction(v.evidence["T_hi"])
    before = reference_solve_problem(p, T=float(lo) * 0.999, dps=30)
    assert not before.blowup
    after = reference_solve_problem(p, T=float(hi) * 1.001, dps=30)
    assert after.blowup and float(after.t_end) <= float(hi) * 1.001


def test_equilibrium_mean_converges_numerically():
    """v < 0: the certified α* = −M*⁻¹b is where the integrated mean goes (numerical evidence)."""
    from symbolic_tf.numeric.codegen import compile_system, numeric_env
    from symbolic_tf.numeric.integrate import integrate
    from symbolic_tf.symbolic.moments import derive_for_problem

    doc = _doc([[1, Fraction(1, 2)], [0, 1]], -1, [[1, 0], [0, 1]], [[1, Fraction(1, 4)], [Fraction(-1, 4), Fraction(3, 2)]])
    doc["b"] = ["0", "1"]
    doc["initial"]["mean"] = ["2", "-1"]
    p = parse_problem(doc)
    v = classify_vI(p)
    assert v.evidence["regime"] == "EQUILIBRIUM" and "alpha_star" in v.evidence
    assert check(v.evidence["certificate"]).ok
    system = derive_for_problem(p)
    sol = integrate(compile_system(system), np.array([2.0, -1.0]), np.eye(2), numeric_env(p, system), 60.0)
    a_star = np.array([float(Fraction(x)) for x in v.evidence["alpha_star"]])
    S_star = np.array([[float(Fraction(x)) for x in r] for r in v.evidence["Sigma_star"]])
    assert np.allclose(sol.alpha_end[0], a_star, atol=1e-8)
    assert np.allclose(sol.Sigma_end[0], S_star, atol=1e-8)


def test_drift_threshold_below_is_global_and_above_blows_up():
    """R ≻ 0, F Hurwitz (docs/mathematics.md §6): blow-up iff λ_max(Σ₀^{1/2}P*Σ₀^{1/2}) > 1 — small Σ₀
    certified global (Σ → 0), large Σ₀ certified blow-up; the integrator agrees."""
    from symbolic_tf.numeric.codegen import compile_system, numeric_env
    from symbolic_tf.numeric.integrate import integrate
    from symbolic_tf.numeric.solution import BLOWUP
    from symbolic_tf.symbolic.moments import derive_for_problem

    A = [[1, 0], [0, 1]]
    F = [[-1, Fraction(1, 2)], [0, -1]]
    small = parse_problem(_doc(A, 1, [[Fraction(1, 10), 0], [0, Fraction(1, 10)]], F))
    big = parse_problem(_doc(A, 1, [[4, 0], [0, 4]], F))
    vs, vb = classify_vI(small), classify_vI(big)
    assert vs.status == "PROVED" and vs.evidence["regime"] == "CLUSTERING" and vs.evidence["rank"] == 0
    assert vb.status == "PROVED" and vb.evidence["regime"] == "BLOWUP"
    for v in (vs, vb):
        cert = v.evidence["certificate"]
        assert check(cert).ok
        bad = copy.deepcopy(cert)
        key = "W_inf" if "W_inf" in bad["data"] else "T_lo"
        if key == "W_inf":
            bad["data"]["W_inf"][0][0] = str(Fraction(bad["data"]["W_inf"][0][0]) / 2)
        else:
            bad["data"]["T_lo"] = bad["data"]["T_hi"] = str(2 * Fraction(bad["data"]["T_hi"]))
        with pytest.raises(CertificationFailed):
            check(bad)
    system = derive_for_problem(small)
    sol = integrate(compile_system(system), np.zeros(2), np.eye(2) / 10, numeric_env(small, system), 30.0)
    assert sol.status[0] != BLOWUP and np.linalg.norm(sol.Sigma_end[0]) < 1e-6
