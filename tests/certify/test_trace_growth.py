"""Trace functionals on the PSD cone (kind ``trace-growth-lmi``, search
:mod:`symbolic_tf.certify.search._trace_growth_lmi`): the principal-minor forms, the exact identity that makes a
skew A work in d = 2, a PROVED certificate cross-checked against integrations from singular and
regular Σ₀, a blow-up the search refuses and a forged certificate for it rejected, tamperings."""
from __future__ import annotations

import copy
import random
from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.claims import Claim, Quantifier
from symbolic_tf.certify.check.lmi import trace_qform
from symbolic_tf.certify.check.kinds.trace_growth_lmi import minor_forms
from symbolic_tf.certify.search._trace_growth_lmi import find_trace_growth
from symbolic_tf.exact.rational import qmat
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# seed 0 #23 of benchmarks/undecided_rate.py's general-V set: a skew A, V non-symmetric, an unstable drift
SKEW = dict(A=[["0", "-2"], ["2", "0"]], V=[["0", "-1"], ["2", "1"]], F=[["0", "1"], ["-1", "3/2"]],
            S0=[["5/4", "-3/4"], ["-3/4", "77/16"]])


def _p(A, V, S0, F=None):
    doc = {"variant": "softmax", "d": len(A), "A": A, "V": V, "initial": {"cov": S0}}
    if F is not None:
        doc["F"] = F
    return parse_problem(doc)


def _f(M):
    return np.array([[float(Fraction(x)) for x in row] for row in M])


def test_minor_forms_are_the_principal_minors():
    rng = random.Random(3)
    d = 3
    for _ in range(5):
        S = [[Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(d)] for _ in range(d)]
        S = [[S[max(i, j)][min(i, j)] for j in range(d)] for i in range(d)]
        s = flint.fmpq_mat(d * (d + 1) // 2, 1, [flint.fmpq(S[i][j].numerator, S[i][j].denominator)
                                                  for i in range(d) for j in range(i, d)])
        pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
        for (i, j), D in zip(pairs, minor_forms(d)):
            got = (s.transpose() * D * s)[0, 0]
            assert Fraction(int(got.p), int(got.q)) == S[i][i] * S[j][j] - S[i][j] ** 2


def test_a_skew_A_in_d2_makes_q_P_a_multiple_of_the_determinant():
    # Σ A Σ = det(Σ)·A for a skew 2×2 A, so q_P(Σ) = 2 tr(P V Σ A Σ) = 2 tr(PVA)·det Σ: indefinite on Sym(2),
    # but ≤ 0 on the PSD cone when tr(PVA) ≤ 0 — exactly Q_P = 2 tr(PVA)·D_01
    p = _p(SKEW["A"], SKEW["V"], SKEW["S0"], SKEW["F"])
    V, A = qmat(SKEW["V"]), qmat(SKEW["A"])
    rng = random.Random(5)
    for _ in range(4):
        a, b, c = (flint.fmpq(rng.randint(1, 9), rng.randint(1, 4)) for _ in range(3))
        P = flint.fmpq_mat([[a + c, b], [b, a + 2 * c]])
        Q = trace_qform(P, [(V, A)], 2)
        tr = sum(((P * V * A)[i, i] for i in range(2)), flint.fmpq(0))
        assert Q == minor_forms(2)[0] * (2 * tr)
    assert p.d == 2


@pytest.fixture(scope="module")
def skew_verdict():
    v = find_trace_growth(_p(SKEW["A"], SKEW["V"], SKEW["S0"], SKEW["F"]))
    assert v.status == "PROVED", v.reason
    return v


def test_the_skew_case_is_proved_and_agrees_with_integrations(skew_verdict):
    cert = skew_verdict.evidence["certificate"]
    res = check(copy.deepcopy(cert))
    assert res.ok and res.claim.subject == "GLOBAL_EXISTENCE" and res.claim.quantifier is Quantifier.EVERY_PSD
    P, kappa = _f(cert["data"]["P"]), float(Fraction(cert["data"]["kappa"]))
    V, A, F = _f(SKEW["V"]), _f(SKEW["A"]), _f(SKEW["F"])

    def rhs(_t, y):
        S = y.reshape(2, 2)
        K = F + V @ S @ A
        return (K @ S + S @ K.T).ravel()

    rng = np.random.default_rng(0)
    starts = [_f(SKEW["S0"]), np.outer([1.0, -2.0], [1.0, -2.0])]          # the problem's Σ₀ and a rank-one one
    starts += [(lambda G: G @ G.T)(rng.normal(size=(2, 2))) for _ in range(3)]
    for S0 in starts:
        ts = np.linspace(0, 3, 31)
        sol = solve_ivp(rhs, (0, 3), S0.ravel(), method="LSODA", rtol=1e-10, atol=1e-12, t_eval=ts)
        assert sol.status == 0                       # no blow-up on [0, 3]
        trP = [np.trace(P @ y.reshape(2, 2)) for y in sol.y.T]
        bound = np.trace(P @ S0) * np.exp(kappa * ts)
        assert np.all(np.array(trP) <= bound * (1 + 1e-7) + 1e-9)


def test_without_drift_a_dissipative_A_is_bounded_and_a_blowup_is_refused():
    v = find_trace_growth(_p([["-1", "0"], ["0", "-1"]], [["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]]))
    assert v.status == "PROVED" and check(v.evidence["certificate"]).claim.subject == "BOUNDED"
    # V = I, A = I: Σ̇ = 2Σ², which blows up — the SDP is infeasible, and a forged certificate fails
    p = _p([["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]])
    assert find_trace_growth(p).status == "UNDECIDED"
    from symbolic_tf.certify.check.certificate import Certificate

    forged = Certificate.for_problem(p, "trace-growth-lmi", Claim("BOUNDED", Quantifier.EVERY_PSD, {}), "PROVED",
                                     {"P": [["1", "0"], ["0", "1"]], "lam": ["100"], "kappa": "0"})
    with pytest.raises(CertificationFailed, match="not negative semidefinite"):
        check(forged)


@pytest.mark.parametrize("key,val", [("lam", ["-12"]), ("lam", ["11"]), ("lam", []), ("kappa", "1"),
                                     ("P", [["1", "2"], ["2", "1"]]), ("P", [["1", "0"], ["1", "1"]])])
def test_tampered_certificate_is_rejected(skew_verdict, key, val):
    c = copy.deepcopy(skew_verdict.evidence["certificate"])
    c["data"][key] = val
    with pytest.raises(CertificationFailed):
        check(c)


def test_a_relabelled_claim_is_rejected(skew_verdict):
    c = copy.deepcopy(skew_verdict.evidence["certificate"])
    c["claim"] = Claim("BOUNDED", Quantifier.EVERY_PSD, {}).to_dict()
    res = None
    try:
        res = check(c)
    except CertificationFailed:
        return
    assert not res.ok


def test_a_singular_symmetric_part_is_proved_on_the_face_it_forces():
    """sym(A) = diag(1, 0): q_P(e₂e₂ᵀ) = 0 for every P and the minors vanish there, so every feasible M annihilates
    svec(e₂e₂ᵀ) and the LMI has no interior — the plain rounding cannot land in it.  The face search does: the
    stored P, λ give M·svec(e₂e₂ᵀ) = 0 exactly, the certificate re-verifies, and tr(PΣ) does not increase along
    integrations from random Σ₀ ⪰ 0 (a fresh problem that was UNDECIDED)."""
    from symbolic_tf.certify.search._trace_growth_lmi import _roundings, _sdp, _exact_ok
    from symbolic_tf.certify.check.kinds.trace_growth_lmi import cone_form
    from symbolic_tf.variants import quadratic_heads

    doc = {"variant": "softmax", "d": 2, "A": [["1", "-5/8"], ["5/8", "0"]], "V": [["-1/3", "-2"], ["1", "-1/3"]],
           "initial": {"cov": [["5/4", "0"], ["0", "5/4"]]}}
    problem = parse_problem(doc)
    heads = quadratic_heads(problem)
    guess = _sdp(heads, 2)
    assert not isinstance(guess, str)
    assert not any(_exact_ok(P, lam, heads, 2) for P, lam in _roundings(*guess))
    v = find_trace_growth(problem)
    assert v.status == "PROVED", v.reason
    cert = v.evidence["certificate"]
    assert check(cert).claim.subject == "BOUNDED"
    P, lam = qmat(cert["data"]["P"]), [qmat([[x]])[0, 0] for x in cert["data"]["lam"]]
    s0 = flint.fmpq_mat(3, 1, [0, 0, 1])   # svec(e₂e₂ᵀ) in (Σ₁₁, Σ₁₂, Σ₂₂)
    assert cone_form(P, lam, heads, 2) * s0 == flint.fmpq_mat(3, 1)
    (C, At), = heads
    C, At, Pf = (np.array([[float(M[i, j]) for j in range(2)] for i in range(2)]) for M in (C, At, P))
    rng = np.random.default_rng(7)
    for _ in range(3):
        B = rng.normal(size=(2, 2))
        rhs = lambda t, s: (lambda S: (C @ S @ At @ S + S @ At.T @ S @ C.T).ravel())(s.reshape(2, 2))  # noqa: E731
        sol = solve_ivp(rhs, (0, 20), (B @ B.T).ravel(), rtol=1e-10, atol=1e-12, dense_output=True)
        y = [np.trace(Pf @ sol.sol(t).reshape(2, 2)) for t in np.linspace(0, 20, 200)]
        assert all(b <= a * (1 + 1e-7) + 1e-10 for a, b in zip(y, y[1:]))
