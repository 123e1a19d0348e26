"""Trace-functional LMI certificates (docs/mathematics.md §5): search, exact checker, soundness, tampering."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.exact.definiteness import inertia
from symbolic_tf.exact.rational import qmat
from symbolic_tf.certify.search._lmi import (find_blowup_certificate, find_bounded_certificate, p_vector,
                                     q_matrix, svec_index)
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.spec.verdict import PROVED, UNDECIDED

F = Fraction


# ----------------------------------------------------------------------------- helpers
def fs(q) -> str:
    q = F(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def smat(M):
    return [[fs(x) for x in row] for row in M]


def mm(X, Y):
    return [[sum((X[i][k] * Y[k][j] for k in range(len(Y))), F(0)) for j in range(len(Y[0]))]
            for i in range(len(X))]


def tr(X):
    return [list(r) for r in zip(*X)]


def add(X, Y, a=1, b=1):
    return [[a * x + b * y for x, y in zip(rx, ry)] for rx, ry in zip(X, Y)]


def eye(d, s=1):
    return [[F(s) if i == j else F(0) for j in range(d)] for i in range(d)]


def softmax(A, V, cov=None, **kw):
    doc = {"variant": "softmax", "d": len(A), "A": smat(A), "V": smat(V), **kw}
    if cov is not None:
        doc["initial"] = {"cov": smat(cov)}
    return parse_problem(doc)


def cert_of(verdict) -> dict:
    assert verdict.status == PROVED, verdict.reason
    return verdict.evidence["certificate"]


def P_of(cert):
    return [[F(x) for x in row] for row in cert["data"]["P"]]


small = st.integers(-3, 3).map(lambda n: F(n, 2))


@st.composite
def matrices(draw, r, c, elem=small):
    return [[draw(elem) for _ in range(c)] for _ in range(r)]


@st.composite
def bounded_family(draw, d):
    """V = MMᵀ + I/4 ≻ 0 symmetric, A = −LLᵀ + skew with L possibly rank-deficient."""
    r = draw(st.integers(0, d))
    L = draw(matrices(d, r)) if r else [[F(0)] * 1 for _ in range(d)]
    K = draw(matrices(d, d))
    M = draw(matrices(d, d))
    A = add(mm(L, tr(L)), add(K, tr(K), 1, -1), -1, 1)
    V = add(mm(M, tr(M)), eye(d, F(1, 4)))
    N = draw(matrices(d, d))
    cov = add(mm(N, tr(N)), eye(d, F(1, 10)))
    return A, V, cov


@st.composite
def blowup_family(draw, d):
    """A + Aᵀ ≻ 0 (A = LLᵀ + I/2 + skew), V = I."""
    L = draw(matrices(d, d))
    K = draw(matrices(d, d))
    A = add(add(mm(L, tr(L)), eye(d, F(1, 2))), add(K, tr(K), 1, -1))
    N = draw(matrices(d, d))
    cov = add(mm(N, tr(N)), eye(d, F(1, 4)))
    return A, eye(d), cov


def exact_Tstar_vI(A, cov):
    """T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}) at 50 digits (V = I, docs/mathematics.md §4)."""
    with mpmath.workdps(50):
        S = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in add(A, tr(A))])
        C = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in cov])
        R = mpmath.sqrtm(C)
        M = R * S * R
        M = (M + M.T) / 2
        lam = max(mpmath.eigsy(M)[0])
        return 1 / lam


_SYSTEMS: dict = {}


def _compiled(problem):
    from symbolic_tf.numeric.codegen import compile_system, numeric_env
    from symbolic_tf.symbolic.moments import derive_for_problem

    key = (problem.variant, problem.d, len(problem.heads))
    if key not in _SYSTEMS:
        sysm = derive_for_problem(problem)
        _SYSTEMS[key] = (sysm, compile_system(sysm))
    sysm, comp = _SYSTEMS[key]
    return comp, numeric_env(problem, sysm)


def integrate_batch(problem, Sigma0s, T, t_eval=None):
    from symbolic_tf.numeric.integrate import integrate

    comp, env = _compiled(problem)
    S0 = np.array(Sigma0s, dtype=float)
    return integrate(comp, np.zeros((len(S0), problem.d)), S0, env, T, t_eval=t_eval,
                     rtol=1e-12, atol=1e-14)


def random_psd(rng, d, k):
    out = []
    for _ in range(k):
        X = rng.standard_normal((d, d))
        out.append(X @ X.T / d + 0.05 * np.eye(d))
    return out


def assert_sound_bounded(problem, cert, seed=0, T=20.0):
    """tr(PΣ(t)) never exceeds tr(PΣ₀) (1 + 1e-9) along a numerical solution."""
    P = np.array([[float(x) for x in r] for r in P_of(cert)])
    rng = np.random.default_rng(seed)
    S0 = random_psd(rng, problem.d, 3)
    ts = np.linspace(0, T, 41)
    sol = integrate_batch(problem, S0, T, t_eval=ts)
    assert all(s == "horizon" for s in sol.status_names()), sol.status_names()
    for b in range(len(S0)):
        L0 = np.trace(P @ S0[b])
        L = np.einsum("ij,tji->t", P, sol.Sigma[b])
        assert np.all(L <= L0 * (1 + 1e-9)), (L.max() - L0) / L0


def assert_sound_blowup(problem, cert):
    d = cert["data"]
    lo, hi = float(F(d["T_lo"])), float(F(d["T_hi"]))
    sol = integrate_batch(problem, [np.array([[float(x) for x in r] for r in problem.cov])], 1.01 * hi)
    assert sol.status_names() == ["blowup"]
    assert 0.999 * lo <= sol.t_end[0] <= 1.001 * hi, (lo, sol.t_end[0], hi)


def tampered(cert: dict):
    """One-entry alterations that must all be rejected."""
    out = []
    P = cert["data"]["P"]
    c1 = copy.deepcopy(cert)
    c1["data"]["P"][0][1] = fs(F(P[0][1]) + F(1, 7))       # breaks symmetry
    out.append(("P[0][1] changed", c1))
    c2 = copy.deepcopy(cert)
    c2["data"]["P"][0][0] = fs(-F(P[0][0]))                # P no longer ≻ 0
    out.append(("P[0][0] negated", c2))
    c3 = copy.deepcopy(cert)
    A = c3["problem"]["A"] if "A" in c3["problem"] else c3["problem"]["heads"][0]["A"]
    A[0][0] = fs(F(A[0][0]) + 1)                           # problem changed, hash stale
    out.append(("problem changed", c3))
    c4 = copy.deepcopy(cert)
    c4["problem_hash"] = "0" * 64
    out.append(("hash changed", c4))
    if cert["kind"] == "blowup-lmi":
        c5 = copy.deepcopy(cert)
        c5["data"]["c"] = fs(F(cert["data"]["c"]) * F(101, 100))
        out.append(("c increased", c5))
        c6 = copy.deepcopy(cert)
        c6["data"]["T_hi"] = fs(F(cert["data"]["T_hi"]) * F(99, 100))
        out.append(("T_hi decreased", c6))
        c7 = copy.deepcopy(cert)
        c7["data"]["T_lo"] = fs(F(cert["data"]["T_lo"]) * F(101, 100))
        out.append(("T_lo increased", c7))
        c8 = copy.deepcopy(cert)
        c8["data"]["u_Sigma"] = fs(F(cert["data"]["u_Sigma"]) / 2)
        out.append(("u_Sigma too small", c8))
    return out


def assert_tamper_proof(cert: dict):
    check(cert)
    for name, bad in tampered(cert):
        with pytest.raises(CertificationFailed):
            check(bad)
            pytest.fail(f"tampering not detected: {name}")


def cayley(S):
    """R = (I − S)(I + S)⁻¹, rational orthogonal for rational skew S."""
    d = len(S)
    I = qmat(eye(d))
    Sm = qmat(S)
    R = (I - Sm) * (I + Sm).inv()
    return [[F(int(R[i, j].p), int(R[i, j].q)) for j in range(d)] for i in range(d)]


def rotate(R, M):
    return mm(mm(R, M), tr(R))


# ----------------------------------------------------------------------------- exact algebra
def test_q_matrix_matches_the_trace_formula():
    rng = np.random.default_rng(3)
    d = 3
    A, V, P, S = (rng.integers(-4, 5, (d, d)) for _ in range(4))
    P, S = P + P.T, S + S.T
    Qm = q_matrix(qmat(P.tolist()), [(qmat(V.tolist()), qmat(A.tolist()))])
    s = [int(S[i, j]) for i, j in svec_index(d)]
    m = len(s)
    val = sum(Qm[k, l] * s[k] * s[l] for k in range(m) for l in range(m))
    assert val == int(2 * np.trace(P @ V @ S @ A @ S))
    p = p_vector(qmat(P.tolist()))
    assert sum(p[k] * s[k] for k in range(m)) == int(np.trace(P @ S))


# ----------------------------------------------------------------------------- bounded
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=15)
@given(data=st.data())
def test_symmetric_V_and_dissipative_A_are_proved_bounded(d, data):
    A, V, cov = data.draw(bounded_family(d))
    v = find_bounded_certificate(softmax(A, V, cov))
    cert = cert_of(v)
    assert_tamper_proof(cert)


def test_boundary_case_exact_candidate_and_forced_kernel():
    # A + Aᵀ = diag(−2, 0) singular, V = Vᵀ ≻ 0: q_P(e₂e₂ᵀ) = 0 for every P, so the best
    # margin of Q_P ⪯ 0 is 0 and a rounded float P fails; the exact candidates (P = I,
    # P = V⁻¹) and the exact projection onto {Q_P N = 0} succeed.
    from symbolic_tf.certify.search import _lmi as lmi

    A = [[F(-1), F(1)], [F(-1), F(0)]]
    V = [[F(2), F(1)], [F(1), F(1)]]
    prob = softmax(A, V)
    heads = lmi.lmi_heads(prob)
    assert inertia(q_matrix(qmat(V).inv(), heads))[0] == 0  # P = V⁻¹ (docs/mathematics.md §5)
    v = find_bounded_certificate(prob)
    assert "structured" in v.numerical["method"]
    cert = cert_of(v)
    assert_tamper_proof(cert)
    assert_sound_bounded(prob, cert)
    # the SDP path on its own: the unconstrained optimum has margin ≈ 0 ...
    prog = lmi._program("bounded", 2, True)
    G = lmi.g_matrix([(lmi._to_float(C), lmi._to_float(Am)) for C, Am in heads], 2)
    prog.params["GB"].value = G / np.abs(G).max()
    prog.params["B"].value = np.eye(3)
    prog.params["tw"].value = np.array([1.0, 0.0, 1.0])
    prog.params["Pc"].value = np.eye(3)
    prog.problem.solve(solver="CLARABEL")
    assert abs(prog.vars["t"].value) < 1e-6
    xf = np.asarray(prog.vars["z"].value)
    for k in (3, 6, 9):  # ... and plain rounding fails at every precision
        P = lmi._sym_from_svec(lmi._round_svec(xf, k), 2)
        assert inertia(q_matrix(P, heads))[0] > 0
    # while the forced-kernel search with exact projection succeeds
    P, desc = lmi._search_bounded(heads, 2, None, True, {})
    assert P is not None and "projection" in desc, desc
    from symbolic_tf.certify.check.claims import Claim, Quantifier

    c2 = Certificate.for_problem(prob, "bounded-lmi", Claim("BOUNDED", Quantifier.EVERY_PSD, {}), "PROVED",
                                 {"P": [[str(P[i, j]) for j in range(2)] for i in range(2)]})
    assert check(c2).ok


def test_nonsymmetric_V_needs_P_other_than_identity():
    # A = −I: Q_P ⪯ 0 ⇔ PV + VᵀP ⪰ 0; V + Vᵀ is indefinite, so P = I fails, but V has
    # eigenvalues 1, 1 and a Lyapunov P exists.
    A = eye(2, -1)
    V = [[F(1), F(10)], [F(0), F(1)]]
    prob = softmax(A, V, eye(2))
    Qi = q_matrix(qmat(eye(2)), [(qmat(V), qmat(A))])
    assert inertia(Qi)[0] > 0
    cert = cert_of(find_bounded_certificate(prob))
    assert P_of(cert) != eye(2)
    assert_tamper_proof(cert)
    assert_sound_bounded(prob, cert, T=10.0)


def test_facial_reduction_on_a_forced_kernel():
    # non-symmetric V, A + Aᵀ singular: the optimal margin is 0, the float P must be
    # projected exactly onto {Q_P N = 0}
    A = [[F(-1), F(3), F(0)], [F(-3), F(0), F(1)], [F(0), F(-1), F(-2)]]
    V = [[F(2), F(1), F(0)], [F(0), F(1), F(3)], [F(0), F(0), F(1)]]
    prob = softmax(A, V, eye(3))
    v = find_bounded_certificate(prob)
    cert = cert_of(v)
    assert "projection" in v.numerical["method"]
    assert_tamper_proof(cert)
    assert_sound_bounded(prob, cert, T=10.0)


@settings(max_examples=12)
@given(data=st.data())
def test_random_nonsymmetric_V_found_certificates_check(data):
    A = data.draw(matrices(2, 2))
    V = data.draw(matrices(2, 2))
    prob = softmax(A, V, eye(2))
    v = find_bounded_certificate(prob)
    assert v.status in (PROVED, UNDECIDED)
    event(v.status)
    if v.status == PROVED:
        cert = cert_of(v)
        assert_tamper_proof(cert)
        assert_sound_bounded(prob, cert, seed=1, T=10.0)


def test_indefinite_attention_is_not_proved_bounded():
    # V = I, A + Aᵀ indefinite: Σ₀ along the positive direction blows up
    prob = softmax([[F(1), F(0)], [F(0), F(-1)]], eye(2), [[F(1), F(0)], [F(0), F(0)]])
    v = find_bounded_certificate(prob)
    assert v.status == UNDECIDED and v.reason
    sol = integrate_batch(prob, [np.diag([1.0, 0.0])], 2.0)
    assert sol.status_names() == ["blowup"]  # and indeed this Σ₀ is not bounded
    w = find_blowup_certificate(prob)       # nor is every Σ₀ blowing up (e.g. e₂e₂ᵀ)
    assert w.status == UNDECIDED


def test_not_applicable_is_undecided():
    drift = parse_problem({"variant": "softmax", "d": 1, "A": [[-1]], "V": [[1]], "F": [[1]]})
    assert find_bounded_certificate(drift).status == UNDECIDED
    lin = parse_problem({"variant": "linear", "d": 1, "A": [[-1]], "V": [[1]]})
    assert find_blowup_certificate(lin).status == UNDECIDED


def test_checker_rejects_drift_and_other_variants():
    prob = softmax(eye(2, -1), eye(2))
    cert = cert_of(find_bounded_certificate(prob))
    for change in ({"F": [["1", "0"], ["0", "0"]]}, {"variant": "linear"}):
        doc = dict(cert["problem"], **change)
        p2 = parse_problem(doc)
        from symbolic_tf.certify.check.claims import Claim

        bad = Certificate.for_problem(p2, cert["kind"], Claim.from_dict(cert["claim"]), "PROVED", cert["data"]).to_dict()
        with pytest.raises(CertificationFailed):
            check(bad)


# ----------------------------------------------------------------------------- blow-up
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=10)
@given(data=st.data())
def test_dissipation_free_blowup_bracket_contains_exact_Tstar(d, data):
    A, V, cov = data.draw(blowup_family(d))
    prob = softmax(A, V, cov)
    cert = cert_of(find_blowup_certificate(prob))
    assert_tamper_proof(cert)
    lo, hi = F(cert["data"]["T_lo"]), F(cert["data"]["T_hi"])
    Ts = exact_Tstar_vI(A, cov)
    assert mpmath.mpf(lo.numerator) / lo.denominator <= Ts <= mpmath.mpf(hi.numerator) / hi.denominator


def test_blowup_certificate_sound_and_tamper_proof():
    A = [[F(1), F(1)], [F(-1, 2), F(2)]]
    V = [[F(1), F(1, 10)], [F(0), F(1)]]
    cov = [[F(1), F(1, 3)], [F(1, 3), F(2)]]
    prob = softmax(A, V, cov)
    cert = cert_of(find_blowup_certificate(prob))
    assert_tamper_proof(cert)
    assert_sound_blowup(prob, cert)


@settings(max_examples=8)
@given(data=st.data())
def test_blowup_soundness_random(data):
    A, _, cov = data.draw(blowup_family(2))
    E = data.draw(matrices(2, 2, st.integers(-1, 1).map(lambda n: F(n, 10))))
    V = add(eye(2), E)  # V near I
    prob = softmax(A, V, cov)
    v = find_blowup_certificate(prob)
    event(v.status)
    if v.status == PROVED:
        cert = cert_of(v)
        assert_tamper_proof(cert)
        assert_sound_blowup(prob, cert)


def test_bounded_family_has_no_blowup_certificate():
    prob = softmax(eye(2, -1), [[F(2), F(1)], [F(1), F(1)]], eye(2))
    assert find_blowup_certificate(prob).status == UNDECIDED


# ----------------------------------------------------------------------------- multi-head
def test_multihead_bounded_and_blowup():
    def mh(heads, cov):
        return parse_problem({"variant": "multihead", "d": 2, "heads": [
            {"A": smat(A), "V": smat(V), **({"W": smat(W)} if W else {})} for A, V, W in heads],
            "initial": {"cov": smat(cov)}})

    Vs = [[F(2), F(1)], [F(1), F(1)]]
    pb = mh([([[F(-1), F(1)], [F(-1), F(-1)]], Vs, None), ([[F(-2), F(0)], [F(0), F(0)]], Vs, None)], eye(2))
    cert = cert_of(find_bounded_certificate(pb))
    assert_tamper_proof(cert)
    assert_sound_bounded(pb, cert, T=10.0)
    pu = mh([([[F(1), F(1)], [F(0), F(1)]], eye(2), None),
             ([[F(1, 2), F(0)], [F(0), F(1)]], eye(2), [[F(1), F(0)], [F(1, 5), F(1)]])],
            [[F(1), F(0)], [F(0), F(1, 2)]])
    cert = cert_of(find_blowup_certificate(pu))
    assert len(cert["data"]["u_V"]) == 2
    assert_tamper_proof(cert)
    assert_sound_blowup(pu, cert)


# ----------------------------------------------------------------------------- metamorphic
skews = st.integers(-3, 3).map(lambda n: F(n, 3))


@settings(max_examples=12)
@given(data=st.data())
def test_orthogonal_change_of_basis_keeps_the_status(data):
    d = 2
    s = data.draw(skews)
    S = [[F(0), s], [-s, F(0)]]
    R = cayley(S)
    assert mm(R, tr(R)) == eye(d)
    fam = data.draw(st.sampled_from(["bounded", "blowup", "random"]))
    if fam == "bounded":
        A, V, cov = data.draw(bounded_family(d))
    elif fam == "blowup":
        A, V, cov = data.draw(blowup_family(d))
    else:
        A, V = data.draw(matrices(d, d)), data.draw(matrices(d, d))
        cov = eye(d)
    p1 = softmax(A, V, cov)
    p2 = softmax(rotate(R, A), rotate(R, V), rotate(R, cov))
    for find in (find_bounded_certificate, find_blowup_certificate):
        v1, v2 = find(p1), find(p2)
        event(f"{fam}/{find.__name__}: {v1.status}")
        assert v1.status == v2.status, (find.__name__, v1.reason, v2.reason)
        if v1.status == PROVED and find is find_blowup_certificate:
            # the bracket for the rotated Σ₀ brackets the same T*
            a = cert_of(v1)["data"]
            b = cert_of(v2)["data"]
            assert F(a["T_lo"]) <= F(b["T_hi"]) and F(b["T_lo"]) <= F(a["T_hi"])


# ----------------------------------------------------------------------------- reuse
def test_fresh_and_reused_programs_agree():
    prob = softmax(eye(2, -1), [[F(1), F(10)], [F(0), F(1)]])
    a = find_bounded_certificate(prob, reuse=True)
    b = find_bounded_certificate(prob, reuse=False)
    assert a.status == b.status == PROVED
    c = find_bounded_certificate(prob, solver="SCS")
    assert c.status in (PROVED, UNDECIDED)
    if c.status == PROVED:
        assert check(cert_of(c)).ok


def test_temperature_singular_initial_covariance_and_d1():
    # scale 1/2, V = I, A = I, Σ₀ = e₁e₁ᵀ: T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)/2 Σ₀^{1/2}) = 1
    p = parse_problem({"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]],
                       "scale": "1/2", "initial": {"cov": [[1, 0], [0, 0]]}})
    cert = cert_of(find_blowup_certificate(p))
    assert F(cert["data"]["T_lo"]) <= 1 <= F(cert["data"]["T_hi"])
    assert_tamper_proof(cert)
    assert_sound_blowup(p, cert)
    # d = 1: ṡ = 2as², T* = 1/(2 a s₀) = 1/4 for a = 1, s₀ = 2
    p1 = parse_problem({"variant": "softmax", "d": 1, "A": [[1]], "V": [[1]], "initial": {"cov": [[2]]}})
    c1 = cert_of(find_blowup_certificate(p1))
    assert F(c1["data"]["T_lo"]) <= F(1, 4) <= F(c1["data"]["T_hi"])
    # Σ₀ = 0 never blows up
    p0 = parse_problem({"variant": "softmax", "d": 1, "A": [[1]], "V": [[1]], "initial": {"cov": [[0]]}})
    assert find_blowup_certificate(p0).status == UNDECIDED
