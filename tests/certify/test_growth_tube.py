"""Global existence with at most exponential growth of this Σ₀ (kind ``tube-growth``): softmax in
d = 2 with a drift F and a general V whose Σ(t)/tr Σ(t) settles on an isotropic direction of A.

Cross-checks: an independent float integration of the *projective* field (X, u) in the time τ
(docs/mathematics.md §8; not the split Σ = sP + Y the certificate uses) runs to τ = 10⁶: u > 0
throughout, t = ∫u dτ keeps growing like log τ / λ, X → P, and u·τ → 1/λ with λ the closed-form
growth rate φ(Y*, 0) = tr DQ(P)[Y*] + tr L(P), which the certified bounds [λ_lo, K] must contain.
Tampered certificates are rejected; problems where the claim is false or the kind does not apply
never get it."""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated._tube_growth import find_growth
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("growth-tube")

# five problems of the issue-15 general-V soak that no other kind decides (A, V, F, Σ₀)
DOCS = {
    26: ([["1/4", "-1/3"], ["-5/3", "-3/4"]], [["-2", "2"], ["0", "0"]], [["-4/3", "4/3"], ["-2", "1"]],
         [["19/8", "-3/2"], ["-3/2", "217/36"]]),
    29: ([["0", "-4/3"], ["1/2", "1/2"]], [["3/2", "1/3"], ["1/2", "2"]], [["2", "1"], ["1/2", "-3/2"]],
         [["33/4", "1"], ["1", "3/2"]]),
    50: ([["-1", "1"], ["2", "-1/2"]], [["0", "-1"], ["1", "0"]], [["-2", "-2"], ["1", "4/3"]],
         [["69/16", "-21/4"], ["-21/4", "117/16"]]),
    56: ([["2", "-2"], ["-1/2", "-3/2"]], [["2/3", "-3/2"], ["1/4", "0"]], [["-1/3", "3/2"], ["2", "2"]],
         [["217/36", "2/3"], ["2/3", "13/36"]]),
    59: ([["0", "1"], ["2/3", "-1/3"]], [["1/2", "-5/4"], ["-3/2", "-2"]], [["-2", "-1"], ["2", "-1/4"]],
         [["169/36", "17/9"], ["17/9", "95/18"]]),
}


def _p(A, V, F, S0):
    doc = {"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": S0}}
    if F is not None:
        doc["F"] = F
    return parse_problem(doc)


def _f(M):
    return np.array([[float(Fraction(x)) for x in r] for r in M])


def _isotropic(A):
    S = A + A.T
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    return [np.outer(w, w) / (w @ w) for w in
            (np.array([1.0, (-b + s * math.sqrt(b * b - a * c)) / c]) for s in (1, -1))]


def _rate(V, A, F, P):
    """λ = φ(Y*, 0) with 𝓜Y* + b = 0 (closed form of the module docstring of the kind)."""
    def DQ(X, E):
        H = V @ E @ A @ X + V @ X @ A @ E
        return H + H.T

    basis = [np.array([[1.0, 0], [0, -1]]), np.array([[0.0, 1], [1, 0]])]
    LP = F @ P + P @ F.T
    M = np.array([[(DQ(P, E) - np.trace(DQ(P, E)) * P)[k] for E in basis] for k in [(0, 0), (0, 1)]])
    bm = LP - np.trace(LP) * P
    y = -np.linalg.solve(M, [bm[0, 0], bm[0, 1]])
    return float(np.trace(DQ(P, y[0] * basis[0] + y[1] * basis[1])) + np.trace(LP))


@pytest.fixture(scope="module")
def verdicts():
    return {i: find_growth(_p(*doc), seconds=60.0) for i, doc in DOCS.items()}


@pytest.mark.parametrize("i", sorted(DOCS))
def test_proved_and_rechecked(verdicts, i):
    v = verdicts[i]
    assert v.status == "PROVED", v.reason
    cert = v.evidence["certificate"]
    res = check(copy.deepcopy(cert))
    assert res.ok and res.claim.subject == "GLOBAL_EXISTENCE"


# issue 15's fixed general-V set, seed 0 #20: φ varies fast across the cone (|∇φ| ≈ 60 against λ ≈ 1.25),
# so only a thin cone verifies, and with a constant centre its residual v·R(Y*) forces v_max ≈ 2⁻⁹:
# the tube cannot get that far in time.  The first-order centre Y* + v·Y₁ admits v_max = 2⁻⁶.
THIN = ([["-1/3", "2"], ["-2", "3/4"]], [["2", "-3/4"], ["-5/4", "1/3"]], [["0", "-1/3"], ["0", "3/2"]],
        [["65/16", "-7/2"], ["-7/2", "169/36"]])


@pytest.fixture(scope="module")
def thin_verdict():
    return find_growth(_p(*THIN), seconds=60.0)


def test_first_order_centre_certifies_a_thin_cone(thin_verdict):
    v = thin_verdict
    assert v.status == "PROVED", v.reason
    data = v.evidence["certificate"]["data"]
    assert "Y_one" in data and Fraction(data["v_max"]) >= Fraction(1, 64)
    assert check(copy.deepcopy(v.evidence["certificate"])).ok


@pytest.mark.parametrize("what", ["dropped", "negated", "trace"])
def test_tampered_first_order_centre_is_rejected(thin_verdict, what):
    c = copy.deepcopy(thin_verdict.evidence["certificate"])
    d = c["data"]
    if what == "dropped":    # the constant centre's residual is too large for this v_max
        del d["Y_one"]
    elif what == "negated":
        d["Y_one"] = [[str(-Fraction(x)) for x in r] for r in d["Y_one"]]
    else:
        d["Y_one"][1][1] = str(Fraction(d["Y_one"][1][1]) + 1)
    with pytest.raises(CertificationFailed):
        check(Certificate.from_dict(c))


def test_centre_residual_expansion_matches_direct_evaluation():
    # r(v) = Ĝ(c(v), v) from its coefficients, against G and φ evaluated at the point c(v) for exact v
    import flint

    from symbolic_tf.certify.check.kinds.tube_cluster import isotropic_points
    from symbolic_tf.certify.check.kinds.tube_growth import _centre_residual, growth_fields, trace_zero
    from symbolic_tf.certify.check.kinds.tube_ray import ProjectiveField
    from symbolic_tf.certify.search.validated.tube import psd_flow_inputs
    from symbolic_tf.exact.precision import working_precision

    heads, Fq, _S0 = psd_flow_inputs(_p(*THIN), True, "")
    Ys = flint.fmpq_mat([[flint.fmpq(-1, 2), flint.fmpq(1, 5)], [flint.fmpq(1, 5), flint.fmpq(1, 2)]])
    Y1 = flint.fmpq_mat([[flint.fmpq(3, 7), flint.fmpq(-2, 3)], [flint.fmpq(-2, 3), flint.fmpq(-3, 7)]])
    with working_precision(200):
        P = isotropic_points(heads[0][1])[0]
        pf = ProjectiveField(heads, Fq, flint.arb_mat)
        for v in (flint.fmpq(0), flint.fmpq(1, 8), flint.fmpq(3, 4)):
            got = _centre_residual(pf, P, Ys, Y1, flint.arb(v))
            c = flint.arb_mat(Ys) + flint.arb_mat(Y1) * flint.arb(v)
            G, phi = growth_fields(pf, P, trace_zero(c[0, 0], c[0, 1]), flint.arb(v))
            want = [G[i] + flint.arb(v) ** 2 * phi * flint.arb(Y1[a, b]) for i, (a, b) in enumerate([(0, 0), (0, 1)])]
            for g, w in zip(got, want):
                assert (g - w).contains(0) and abs(float((g - w).mid())) < 1e-40


@pytest.mark.parametrize("i", [26, 59, "thin"])
def test_projective_float_integration_grows_without_blowup(verdicts, thin_verdict, i):
    from scipy.integrate import solve_ivp

    A, V, F, S0 = (_f(M) for M in (THIN if i == "thin" else DOCS[i]))

    def rhs(_tau, z):
        X, u = z[:4].reshape(2, 2), z[4]
        H = V @ X @ A @ X
        Q = H + H.T
        L = F @ X + X @ F.T
        c = np.trace(Q) + u * np.trace(L)
        return np.concatenate([(Q + u * L - c * X).ravel(), [-c * u, u]])

    s0 = np.trace(S0)
    taus = [1e2, 1e4, 1e6]
    sol = solve_ivp(rhs, (0.0, taus[-1]), np.concatenate([(S0 / s0).ravel(), [1 / s0, 0.0]]), method="LSODA",
                    rtol=1e-10, atol=1e-14, t_eval=taus)
    assert sol.status == 0
    X, u, t = sol.y[:4, -1].reshape(2, 2), sol.y[4], sol.y[5]
    assert np.all(u > 0)                      # Σ = X/u stays finite
    assert np.all(np.diff(t) > 0)             # t(τ) keeps growing: no finite blow-up time
    # X → P, an isotropic rank-one point: wᵀ(A + Aᵀ)w = 0 for its range, det X → 0
    P = min(_isotropic(A), key=lambda P: np.abs(X - P).max())
    assert np.abs(X - P).max() < 1e-4
    lam = _rate(V, A, F, P)
    # u·τ → 1/λ: tr Σ = 1/u ≈ λτ and t ≈ (log τ)/λ, i.e. tr Σ(t) ≈ e^{λt}
    assert abs(u[-1] * taus[-1] * lam - 1) < 1e-2
    assert abs((t[-1] - t[-2]) * lam / math.log(100) - 1) < 1e-2
    # the certified bounds of (log tr Σ)˙ contain the float rate
    num = (thin_verdict if i == "thin" else verdicts[i]).numerical
    assert num["growth_lower"] < lam < num["growth_upper"]


@pytest.mark.parametrize("A_, V_, F_, why", [
    ([[1, 0], [0, -1]], [[1, 0], [0, 1]], [["1/10", 0], [0, "1/10"]], "blows up"),   # V = I: blow-up
    ([[1, 0], [0, 1]], [[1, 0], [0, 1]], [["-1", 0], [0, "-1"]], "not indefinite"),  # no isotropic direction
    ([["1/4", "-1/3"], ["-5/3", "-3/4"]], [[-2, 2], [0, 0]], None, "no drift"),
])
def test_no_claim_where_it_does_not_apply(A_, V_, F_, why):
    v = find_growth(_p([[str(x) for x in r] for r in A_], [[str(x) for x in r] for r in V_], F_,
                       [["1", "0"], ["0", "1"]]))
    assert v.status == "UNDECIDED", why


@pytest.mark.parametrize("what", ["step", "truncated", "Y_star", "rho", "mu", "v_max", "v_max_small", "branch"])
def test_tampered_certificate_is_rejected(verdicts, what):
    c = copy.deepcopy(verdicts[50].evidence["certificate"])
    d = c["data"]
    if what == "step":       # one giant step: its Picard enclosure cannot validate
        d["steps"] = d["steps"][:2] + [str(Fraction(d["steps"][-1]) * 1000)]
    elif what == "truncated":  # the tube stops at its first step, before the cone
        d["steps"] = d["steps"][:2]
    elif what == "Y_star":   # the cone moved off the centre manifold
        d["Y_star"][0][0] = str(Fraction(d["Y_star"][0][0]) + 1)
        d["Y_star"][1][1] = str(-Fraction(d["Y_star"][0][0]))
    elif what == "rho":
        d["rho"] = str(Fraction(d["rho"]) * 10 ** 4)
    elif what == "mu":
        d["mu"] = str(Fraction(d["mu"]) * 1000)
    elif what == "v_max":    # the region reaches small tr Σ, where the drift dominates
        d["v_max"] = "1000"
    elif what == "v_max_small":  # the tube's end is below 1/v_max
        d["v_max"] = str(Fraction(d["v_max"]) / 10 ** 6)
    else:
        d["branch"] = 1 - d["branch"]
    with pytest.raises(CertificationFailed):
        check(Certificate.from_dict(c))
