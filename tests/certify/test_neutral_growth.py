"""Neutral growth in d = 3 (kind ``tube-growth-neutral``): the identity that makes the middle
eigenvalue stationary at the growth rest point (symbolically, and at exact rational points), a
PROVED certificate that agrees with an independent integration (the limit direction, steady
exponential growth), homogeneity, a growth certificate that is not a clustering one, and tampered
certificates rejected."""
from __future__ import annotations

import copy
import random
import time
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.claims import Claim, Quantifier
from symbolic_tf.certify.check.neutral_chart import Chart, cone_point
from symbolic_tf.certify.check.kinds.tube_growth_neutral import growth_identity_parts
from symbolic_tf.certify.search.validated._tube_growth_neutral import find_neutral_growth
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("neutral-growth")

# seed 0 #1 of benchmarks/undecided_rate.py's general-V set; S1 is a dyadic rounding of its Σ(1.5)
A1 = [["1/2", "-2", "-7/4"], ["-2", "1", "2"], ["-2", "1/2", "-2/3"]]
V1 = [["-2", "-2/3", "-1"], ["1", "-1/2", "-3/2"], ["2", "-1/3", "-1"]]
S1 = [["1171712753/1048576", "40886233/131072", "-107684457/524288"],
      ["40886233/131072", "91611447/1048576", "-30317375/524288"],
      ["-107684457/524288", "-30317375/524288", "20228669/524288"]]


def _p(S0, A=A1, V=V1):
    return parse_problem({"variant": "softmax", "d": 3, "A": A, "V": V, "initial": {"cov": S0}})


def _float(M):
    return np.array([[float(Fraction(x)) for x in row] for row in M])


def test_the_rate_of_the_middle_eigenvalue_has_the_factor_B_symbolically():
    # G·|ẑ|⁴(qᵀp)(∇a·p) / B is a polynomial, and β = −B·J∇a/(|ẑ|²∇a·p): generic V, A at r = 0
    # (every chart point is r = 0 after the change of basis L, so this covers every r)
    V = sp.Matrix(3, 3, sp.symbols("v0:9"))
    A = sp.Matrix(3, 3, sp.symbols("a0:9"))
    ch = Chart(V.tolist(), A.tolist(), [sp.Integer(0), sp.Integer(0)])
    B, G, beta = growth_identity_parts(ch)
    den = ch.nz ** 2 * (ch.q[0] * ch.p[0] + ch.q[1] * ch.p[1]) * ch.grad_a(ch.p)
    num, rest = sp.fraction(sp.cancel(sp.together(G * den / B)))
    assert rest == 1 and sp.Poly(num, *V, *A).total_degree() > 0
    ga = [ch.grad_a([1, 0]), ch.grad_a([0, 1])]
    Jga = [-ga[1], ga[0]]
    for i in range(2):
        assert sp.cancel(sp.together(beta[i] + B * Jga[i] / (ch.nz * ch.grad_a(ch.p)))) == 0


@pytest.mark.parametrize("seed", range(4))
def test_where_B_vanishes_G_vanishes_exactly(seed):
    # exact rationals at a random r: choose V's (2, 2) entry so that B(r) = 0; then G(r) = 0 exactly,
    # and β = 0 (the growth rest point), while a generic V gives G ≠ 0
    rng = random.Random(seed)
    rq = lambda: flint.fmpq(rng.randint(-9, 9), rng.randint(1, 5))  # noqa: E731
    V = [[rq() for _ in range(3)] for _ in range(3)]
    A = [[rq() for _ in range(3)] for _ in range(3)]
    r = [rq(), rq()]
    B0, G0, _b = growth_identity_parts(Chart(V, A, r))
    V[2][2] += 1
    B1, _G, _b = growth_identity_parts(Chart(V, A, r))
    V[2][2] += -1 - B0 / (B1 - B0)            # B is affine in V₂₂ at fixed r and A
    B, G, beta = growth_identity_parts(Chart(V, A, r))
    assert B == 0 and G == 0 and beta == [0, 0]
    assert G0 != 0


@pytest.fixture(scope="module")
def proved():
    v = find_neutral_growth(_p(S1), seconds=60.0)
    assert v.status == "PROVED", v.reason
    return v


def test_certificate_checks_and_agrees_with_an_independent_integration(proved):
    cert = proved.evidence["certificate"]
    res = check(copy.deepcopy(cert))
    assert res.ok and res.status == "PROVED" and res.claim.subject == "GLOBAL_EXISTENCE"
    # independent: LSODA in scale-free form (N = Σ/tr Σ, u = log tr Σ, ds = tr Σ dt) from the same Σ₀;
    # the top eigenvector tends to w* = (1, r_c(θ*)) in the certificate's frame, and log tr Σ grows
    # at a steady positive rate (no blow-up up to t = 8)
    data = cert["data"]
    P = _float(data["frame"])
    V, A, S0 = P @ _float(V1) @ P.T, P @ _float(A1) @ P.T, P @ _float(S1) @ P.T
    rt, td = [float(Fraction(x)) for x in data["r_tilde"]], [float(Fraction(x)) for x in data["t_dir"]]
    th = np.mean([float(Fraction(x)) for x in data["theta_star"]])
    _s, rc = cone_point(A.tolist(), rt, td, [-td[1], td[0]], th)

    def rhs(_s, y):
        N = y[:9].reshape(3, 3)
        H = V @ N @ A @ N
        Q = H + H.T
        return np.concatenate([(Q - np.trace(Q) * N).ravel(), [np.trace(Q), np.exp(-y[9])]])

    def past(_s, y):
        return y[10] - 8.5

    past.terminal = True
    y0 = np.concatenate([(S0 / np.trace(S0)).ravel(), [np.log(np.trace(S0)), 0.0]])
    sol = solve_ivp(rhs, (0, 1e9), y0, method="LSODA", rtol=1e-11, atol=1e-14, events=past)
    t_of, u_of = sol.y[10], sol.y[9]
    assert t_of[-1] > 8
    N = sol.y[:9, -1].reshape(3, 3)
    w = np.linalg.eigh(N)[1][:, -1]
    assert np.abs(w[1:] / w[0] - np.array(rc)).max() < 1e-3
    rates = [np.interp(b, t_of, u_of) - np.interp(a, t_of, u_of) for a, b in ((6, 7), (7, 8))]
    assert rates[0] > 0.5 and abs(rates[1] / rates[0] - 1) < 0.05


def test_homogeneity_and_a_permuted_basis():
    v = find_neutral_growth(_p([[str(2 * Fraction(x)) for x in row] for row in S1]), seconds=60.0)
    assert v.status == "PROVED", v.reason
    perm = [1, 2, 0]
    pm = lambda M: [[M[perm[i]][perm[j]] for j in range(3)] for i in range(3)]  # noqa: E731
    v = find_neutral_growth(_p(pm(S1), pm(A1), pm(V1)), seconds=60.0)
    assert v.status == "PROVED", v.reason


def test_a_growth_certificate_is_not_a_clustering_one(proved):
    # the clustering kind needs φ to change sign on theta_star; here φ ≠ 0 and b changes sign
    c = copy.deepcopy(proved.evidence["certificate"])
    c["kind"] = "tube-cluster-neutral"
    c["claim"] = Claim("CLUSTERING", Quantifier.THIS, {"rank": 1}).to_dict()
    with pytest.raises(CertificationFailed, match="does not change sign"):
        check(c)


def _tamper(cert, key, val):
    c = copy.deepcopy(cert)
    c["data"][key] = val
    return c


@pytest.mark.parametrize("key,how", [
    ("k", lambda d: str(Fraction(d["k"]) / 100)),                 # the funnel is too thin to be invariant
    ("theta_star", lambda d: [d["theta_box"][0], d["theta_star"][0]]),   # no sign change of b
    ("zeta_max", lambda d: str(Fraction(d["zeta_max"]) / 2)),      # the entry is above ζ̄_max
    ("s_width", lambda d: str(Fraction(d["s_width"]) / 1000)),    # the transversal offset may leave
    ("theta_box", lambda d: [str(Fraction(d["theta_star"][0]) - Fraction(1, 10 ** 9)), d["theta_box"][1]]),
    ("mu", lambda d: str(Fraction(d["mu"]) * 100)),              # no contraction at that rate
])
def test_tampered_certificate_is_rejected(proved, key, how):
    cert = proved.evidence["certificate"]
    with pytest.raises(CertificationFailed):
        check(_tamper(cert, key, how(cert["data"])))


def test_refuses_other_dimensions():
    v = find_neutral_growth(parse_problem({"variant": "softmax", "d": 2, "A": [[1, 0], [0, -1]], "V": [[1, 0], [0, 1]],
                                           "initial": {"cov": [[1, 0], [0, 1]]}}))
    assert v.status == "UNDECIDED" and "d = 3" in v.reason


# ----------------------------------------------------------------------------- check 1′
def _continued(cert, tau_end, apriori="taylor"):
    """The certificate with a projective continuation of its tube (integrate_projective, the checker's
    own step) to τ ≥ tau_end.  The funnel is forward invariant, so the region data still fit there."""
    from symbolic_tf.certify.check.tube_replay import flow_pairs
    from symbolic_tf.certify.search.validated._projective_tube import integrate_projective
    from symbolic_tf.exact.rational import qmat

    pairs, _F = flow_pairs(_p(S1), None)
    run = integrate_projective(pairs, None, qmat(S1), lambda X, u, s, tau: tau >= tau_end, prec=128, order=20,
                               deadline=time.perf_counter() + 120, tol=1e-17, apriori=apriori)
    assert run.stop == "accepted by until"
    c = copy.deepcopy(cert)
    c["data"].update(proj_steps=[str(x) for x in run.taus], proj_order=20, proj_apriori=apriori)
    return c, run


@pytest.fixture(scope="module")
def continued(proved):
    return _continued(proved.evidence["certificate"], 4)


def test_a_projective_continuation_is_checked_and_its_end_is_scale_free(continued):
    # the checks 1–7 now run at X(τ) = Σ(t)/tr Σ(t), t = s(τ): the region data of the original entry still
    # fit (the funnel is forward invariant) and the verdict is the same
    c, run = continued
    res = check(copy.deepcopy(c))
    assert res.ok and res.status == "PROVED" and res.claim.subject == "GLOBAL_EXISTENCE"
    X = run.box
    assert abs(sum(float(X[i, i].mid()) for i in range(3)) - 1) < 1e-12      # X is the direction: tr X = 1


@pytest.mark.parametrize("how", ["drop_order", "skip_step", "not_zero", "picard", "order"])
def test_a_tampered_projective_continuation_is_rejected(continued, how):
    c = copy.deepcopy(continued[0])
    d = c["data"]
    if how == "drop_order":
        del d["proj_order"]                                  # proj_steps without proj_order
    elif how == "skip_step":
        d["proj_steps"] = [d["proj_steps"][0], d["proj_steps"][-1]]     # one step too long to validate
    elif how == "not_zero":
        d["proj_steps"] = d["proj_steps"][1:]
    elif how == "picard":
        d["proj_apriori"] = "picard"                       # the first-order test fails at these step sizes
    else:
        d["proj_order"] = 6                                # the remainder of an order-6 step is too wide
    with pytest.raises(CertificationFailed):
        check(c)
