"""Forgeries of ``tube-cluster`` (kinds/cluster.py): one per hypothesis of its argument, each
consistent in every other field, plus the reviewer's moves (a drift, several heads, Σ₀ = 0, other
Σ₀ under the genuine ellipsoid, a stretched claim).  The strongest is a contracting ellipsoid
forged around an attracting *blow-up ray* of another problem (A + Aᵀ indefinite, so isotropic
lines exist, but elsewhere): every check but "an isotropic point lies in the ellipsoid" passes,
and the solution blows up (closed form).  No forgery was accepted before the hypotheses were
declared."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, forge, q, qm, rejects

DOC = {"variant": "softmax", "d": 2, "A": [["1/2", "-1"], ["1/2", "-1/3"]], "V": [["0", "-2/3"], ["3/2", "-1/2"]],
       "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}
_UP = [(0, 0), (0, 1), (1, 1)]


@pytest.fixture(scope="module")
def genuine():
    """The tampering suite's genuine certificate (the library's search, about 1 s)."""
    from symbolic_tf.certify.search.validated._tube_cluster import find_cluster

    v = find_cluster(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    accepts(c)
    return c


def _f(M):
    return np.array([[float(Fraction(x)) for x in r] for r in M])


def _jacobian(V, A, X, kappa):
    """Float Jacobian of Φ(X) = Q(X) − c̃(X)·X, c̃ = tr Q(X) + κ(tr X − 1), in svec-upper coordinates
    (written out here from the module docstring, not taken from the toolkit)."""
    def dQ(E):
        H = V @ E @ A @ X + V @ X @ A @ E
        return H + H.T

    H = V @ X @ A @ X
    ct = np.trace(H + H.T) + kappa * (np.trace(X) - 1)
    cols = []
    for i, j in _UP:
        E = np.zeros((2, 2))
        E[i, j] = E[j, i] = 1.0
        top = dQ(E) - (np.trace(dQ(E)) + kappa * np.trace(E)) * X - ct * E
        cols.append([top[a, b] for a, b in _UP])
    return np.array(cols).T


def _isotropic(A):
    S = A + A.T
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    return [np.outer(w, w) / (w @ w) for w in
            (np.array([1.0, (-b + s * math.sqrt(b * b - a * c)) / c]) for s in (1, -1))]


def _energy(W, X, centre):
    z = np.array([X[i, j] - centre[i, j] for i, j in _UP])
    return float(z @ W @ z)


def test_cluster_with_a_drift(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "F": [["-1", "0"], ["0", "-1"]]}),
            r"covers d = 2 without drift only")


def test_cluster_other_problem_classes(genuine):
    p = genuine["problem"]
    two = {"variant": "multihead", "d": 2, "initial": p["initial"],
           "heads": [{"A": p["A"], "V": p["V"]}, {"A": p["A"], "V": p["V"]}]}
    rejects(forge(genuine, problem=two), r"covers single-head softmax only")
    rejects(forge(genuine, problem={**p, "variant": "sinkhorn"}), r"not the quadratic softmax-type field")
    phases = [{"duration": "1/2"}, {"duration": "1", "V": [["1", "0"], ["0", "1"]]}]
    rejects(forge(genuine, problem={**p, "phase": phases}), r"constant parameters only")
    d3 = {"variant": "softmax", "d": 3, "A": qm(np.eye(3, dtype=int)), "V": qm(np.eye(3, dtype=int)),
          "initial": {"cov": qm(np.eye(3, dtype=int))}}
    rejects(forge(genuine, problem=d3), r"covers d = 2 without drift only")


def test_cluster_sigma0_not_psd(genuine):
    import copy

    c = copy.deepcopy(genuine)
    c["problem"]["initial"] = {"cov": [["1", "1/4"], ["1/4", "-1/100"]]}
    rejects(c, r"not positive semidefinite")


def test_cluster_tube_step_too_long(genuine):
    steps = genuine["data"]["steps"]
    rejects(forge(genuine, data={"steps": steps[:2] + [q(Fraction(steps[-1]) * 1000)]}),
            r"a priori \(Picard\) enclosure fails on step 2")


def test_cluster_sigma0_zero(genuine):
    """Σ₀ = 0 is an equilibrium: Σ ≡ 0 and the limit has rank 0, not 1.  The tube replays (it stays
    at 0) and every ellipsoid check is unchanged; tr Σ(t_N) = 0 is refused."""
    prob = {**genuine["problem"], "initial": {"cov": [["0", "0"], ["0", "0"]]}}
    assert simulate(parse_problem(prob), 1.0).s == -math.inf
    rejects(forge(genuine, problem=prob), r"tr Σ\(t_N\) is not positive")


def test_cluster_W_not_positive_definite(genuine):
    W = genuine["data"]["W"]
    bad = [W[0], W[1], [W[2][0], W[2][1], q(-Fraction(W[2][2]))]]
    rejects(forge(genuine, data={"W": bad}), r"W is not positive definite")


def test_cluster_ellipsoid_leaves_the_box(genuine):
    """Halved radii: the Jacobian would be bounded over a box that does not contain 𝓔."""
    R = [q(Fraction(x) / 2) for x in genuine["data"]["R"]]
    rejects(forge(genuine, data={"R": R}), r"leaves the box in coordinate 0")


def test_cluster_contraction_rate_too_large(genuine):
    """mu × 1000: the exact residual check only gets easier (rᵀWr < mu²·rho); the contraction fails."""
    mu = q(Fraction(genuine["data"]["mu"]) * 1000)
    rejects(forge(genuine, data={"mu": mu}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")
    rejects(forge(genuine, data={"kappa": "-1"}), r"kappa must be ≥ 0")


def test_cluster_centre_off_the_equilibrium(genuine):
    """X_star moved by 0.3·√rho (in the W-norm) along the Jacobian's eigenvector of rate 1 (ten times
    mu): the residual at the centre is too large, while the isotropic point and the tube's end are
    still well inside the moved ellipsoid (float check) and the contraction still holds."""
    d = genuine["data"]
    V, A, Xs, W, rho = _f(DOC["V"]), _f(DOC["A"]), _f(d["X_star"]), _f(d["W"]), float(Fraction(d["rho"]))
    ev, vecs = np.linalg.eig(_jacobian(V, A, Xs, float(Fraction(d["kappa"]))))
    v = np.real(vecs[:, int(np.argmin(np.abs(ev.real + 1)))])
    delta = 0.3 * math.sqrt(rho) * v / math.sqrt(v @ W @ v)
    shift = [Fraction(x).limit_denominator(10 ** 12) for x in delta]
    moved = [[Fraction(d["X_star"][i][j]) + shift[_UP.index((min(i, j), max(i, j)))] for j in range(2)]
             for i in range(2)]
    M = np.array([[float(x) for x in r] for r in moved])
    iso = min(_isotropic(A), key=lambda P: _energy(W, P, M))
    S_end = simulate(parse_problem(DOC), float(Fraction(d["steps"][-1]))).Sigma
    assert _energy(W, iso, M) < 0.2 * rho and _energy(W, S_end / np.trace(S_end), M) < 0.9 * rho
    rejects(forge(genuine, data={"X_star": qm(moved)}), r"the centre's residual is too large")


def test_cluster_tube_ends_outside(genuine):
    """The tube cut after its first step: a genuine enclosure, outside the ellipsoid."""
    rejects(forge(genuine, data={"steps": genuine["data"]["steps"][:2]}),
            r"the tube's end is not inside the certified ellipsoid")


def test_cluster_other_sigma0_under_the_genuine_ellipsoid(genuine):
    """Σ₀ = I with the genuine tube and ellipsoid: the tube replays, its end is elsewhere."""
    prob = {**genuine["problem"], "initial": {"cov": [["1", "0"], ["0", "1"]]}}
    rejects(forge(genuine, problem=prob), r"the tube's end is not inside the certified ellipsoid")


# A = diag(1, −1) (A + Aᵀ indefinite: isotropic lines w = (1, ±1)), V = diag(2, 1), no drift.
# X* = diag(1, 0) is a zero of Φ with tr Q(X*) = 4 > 0 — a blow-up ray — and attracting for κ = 4
# (Jacobian eigenvalues −8, −4, −1).  From Σ₀ = diag(1, 1/100) the flow stays diagonal:
# λ₁' = 4λ₁², λ₂' = −2λ₂², so Σ(t) = diag(1/(1 − 4t), 1/(100 + 2t)) blows up at T* = 1/4.
RAY = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "-1"]], "V": [["2", "0"], ["0", "1"]],
       "initial": {"cov": [["1", "0"], ["0", "1/100"]]}}


def _ray_ellipsoid(kappa=4, rho=Fraction(1, 10 ** 5)):
    """A contracting ellipsoid around X* = diag(1, 0) for the RAY problem: W from the Lyapunov
    equation JᵀW + WJ = −I at X*, mu a fraction of 1/(2λ_max(W)), R just above √(rho·(W⁻¹)_kk)."""
    from scipy.linalg import solve_continuous_lyapunov

    J = _jacobian(_f(RAY["V"]), _f(RAY["A"]), np.diag([1.0, 0.0]), float(kappa))
    Wf = solve_continuous_lyapunov(J.T, -np.eye(3))
    W = [[Fraction(Wf[i, j]).limit_denominator(2 ** 30) for j in range(3)] for i in range(3)]
    W = [[W[min(i, j)][max(i, j)] for j in range(3)] for i in range(3)]
    Winv = np.linalg.inv(np.array(W, dtype=float))
    mu = Fraction(0.3 / np.linalg.eigvalsh(Wf).max()).limit_denominator(2 ** 20)
    R = [Fraction(1.01 * math.sqrt(float(rho) * Winv[k, k])).limit_denominator(2 ** 30) for k in range(3)]
    return {"X_star": [["1", "0"], ["0", "0"]], "W": qm(W), "rho": q(rho), "mu": q(mu), "R": [q(x) for x in R],
            "kappa": q(kappa), "prec": 128, "steps": ["0", "1/32", "1/16", "3/32", "1/8"], "order": 14,
            "tube_prec": 128, "method": "qr"}


def test_cluster_ellipsoid_around_a_blowup_ray(genuine):
    """Every hypothesis but one holds: the tube replays to t = 1/8, the ellipsoid around the blow-up
    ray X* = diag(1, 0) is contracting with zero residual and contains the tube's end — but no
    isotropic point: X(τ) → X* where c̃ = 4 ≠ 0, so Σ blows up instead of settling."""
    p = parse_problem(RAY)
    # independent: the closed form solves the ODE, and the integration blows up near T* = 1/4
    V, A = _f(RAY["V"]), _f(RAY["A"])
    for t in (0.0, 0.1, 0.2):
        S = np.diag([1 / (1 - 4 * t), 1 / (100 + 2 * t)])
        dS = np.diag([4 / (1 - 4 * t) ** 2, -2 / (100 + 2 * t) ** 2])
        H = V @ S @ A @ S
        assert np.allclose(H + H.T, dS, rtol=1e-12)
    sim = simulate(p, 1.0)
    assert sim.status == "blowup" and abs(sim.t - 0.25) < 1e-6, sim
    data = _ray_ellipsoid()
    forged = forge(genuine, problem=RAY, data=data)
    rejects(forged, r"no isotropic rank-one point of A \+ Aᵀ lies in the certified ellipsoid")


def test_cluster_claim_is_rank_one_for_this_sigma0(genuine):
    rejects(forge(genuine, params={"rank": 0}), r"stated claim is not the one the data prove")
    rejects(forge(genuine, quantifier="every Σ₀ ≻ 0"), r"stated claim is not the one the data prove")
    rejects(forge(genuine, subject="BOUNDED", params={}), r"stated claim is not the one the data prove")
    rejects(forge(genuine, status="REFUTED"), r"status")


# ---- the projective continuation (check 1′) ----
_PROJ = {"proj_steps": ["0", "1/64", "1/32", "1/16"], "proj_order": 20, "proj_apriori": "taylor"}


def test_cluster_projective_continuation_is_accepted(genuine):
    """A short projective continuation of the genuine tube: its end is the same solution at a later
    time (X/tr X = Σ/tr Σ), still inside the forward-invariant ellipsoid, so the certificate still
    holds and the checker must accept it (the datum is not a loophole that rejects everything)."""
    accepts(forge(genuine, data=_PROJ))


def test_cluster_projective_step_too_long(genuine):
    """One projective step of length 10⁴ in τ does not validate (the Picard / Taylor enclosure of
    such a step fails), whatever the end would be."""
    rejects(forge(genuine, data={**_PROJ, "proj_steps": ["0", "10000"]}), r"projective tube's step 1 does not validate")


@pytest.mark.parametrize("drop", ["proj_steps", "proj_order"])
def test_cluster_projective_fields_go_together(genuine, drop):
    rejects(forge(genuine, data={**_PROJ, drop: None}), r"proj_steps and proj_order go together")


def test_cluster_projective_times_start_at_zero_and_increase(genuine):
    rejects(forge(genuine, data={**_PROJ, "proj_steps": ["1/64", "1/32"]}), r"first projective time must be 0")
    rejects(forge(genuine, data={**_PROJ, "proj_steps": ["0", "1/32", "1/64"]}), r"strictly increasing")
