"""Kind ``tube-ray-cusp`` (search/validated/_tube_ray_cusp.py, check/kinds/tube_ray_cusp.py): blow-up along a
rank-one ray that attracts without hyperbolic contraction (issue 48; issue 49's Jordan-block map).

* every PROVED bracket contains the blow-up time of an independent float integration (DOP853 on the factor form
  Y' = (J(X) + uF − (c/2)I)Y of the projective flow, X = YYᵀ/tr YYᵀ, u' = −cu, t' = u — another formulation than
  the validated tube's, and PSD by construction);
* the cusp's exact polynomial data agree with the field: the interpolated face polynomial equals the field at
  extra rational points, the ray point is an equilibrium with c = 2·(vᵀAv)(vᵀVv)/|v|⁴;
* issue 49's points with Σ₀ = I and a fresh Jordan-V problem with drift (a float "blow-up" at tr Σ = 10⁸) are
  refused with the reason: there the solution reaches the ray on its repelling side and X = Σ/tr Σ converges to an
  isotropic rank-one point, where ∫c dτ converges — u stays bounded below, t = ∫u dτ → ∞: no blow-up, so no
  blow-up certificate may exist.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.kinds.tube_ray_cusp import CuspField, coefficients
from symbolic_tf.certify.search.validated._tube_ray_cusp import find_cusp_blowup
from symbolic_tf.spec.problem import parse_problem


def _jordan(x, y, cov, f=None):
    doc = {"variant": "softmax", "d": 2, "A": [[y, "1"], ["-1", "-1"]], "V": [["1", x], ["0", "1"]],
           "initial": {"cov": cov}}
    if f is not None:
        doc["F"] = [[f, "0"], ["0", f]]
        doc["b"] = ["0", "0"]
    return doc


def _mats(doc):
    V = np.array([[float(Fraction(e)) for e in r] for r in doc["V"]])
    A = np.array([[float(Fraction(e)) for e in r] for r in doc["A"]])
    F = np.array([[float(Fraction(e)) for e in r] for r in doc["F"]]) if "F" in doc else np.zeros((2, 2))
    S0 = np.array([[float(Fraction(e)) for e in r] for r in doc["initial"]["cov"]])
    return V, A, F, S0


def _projective(doc, tau_end):
    """DOP853 on the factor form of the projective flow; returns the solution (state Y, log u, t, ∫c)."""
    V, A, F, S0 = _mats(doc)
    L = np.linalg.cholesky(S0)

    def rhs(_tau, z):
        Y = z[:4].reshape(2, 2)
        X = Y @ Y.T
        X = X / np.trace(X)
        u = np.exp(z[4])
        J = V @ X @ A + u * F
        c = 2 * np.trace(J @ X)
        dY = (J - 0.5 * c * np.eye(2)) @ Y - 0.5 * (np.trace(Y @ Y.T) - 1) * Y   # keeps tr YYᵀ near 1
        return np.concatenate([dY.ravel(), [-c, u, c]])

    z0 = np.concatenate([(L / np.sqrt(np.trace(S0))).ravel(), [np.log(1 / np.trace(S0)), 0.0, 0.0]])
    return solve_ivp(rhs, (0.0, tau_end), z0, method="DOP853", rtol=1e-12, atol=1e-14, dense_output=True)


CASES = [
    pytest.param(_jordan("1/2", "3/8", [["1", "1/2"], ["1/2", "1"]]), id="x=1/2,y=3/8"),
    pytest.param(_jordan("-1/2", "3/8", [["1", "-1/2"], ["-1/2", "1"]]), id="x=-1/2,y=3/8", marks=pytest.mark.heavy),
    pytest.param(_jordan("1/2", "3/8", [["1", "1/2"], ["1/2", "1"]], f="1/4"), id="drift-fI", marks=pytest.mark.heavy),
    pytest.param(_jordan("1/2", "7/8", [["2", "1"], ["1", "1"]]), id="x=1/2,y=7/8", marks=pytest.mark.heavy),
    # issue 48's newcomer problem (V = [[1, 2], [0, 1]]): the ray e₁e₁ᵀ that tube-ray calls degenerate
    pytest.param({"variant": "softmax", "d": 2, "A": [["1", "1/2"], ["-1/3", "1/4"]], "V": [["1", "2"], ["0", "1"]],
                  "initial": {"cov": [["1", "1/5"], ["1/5", "1/2"]]}}, id="newcomer", marks=pytest.mark.heavy),
]


@pytest.mark.parametrize("doc", CASES)
def test_bracket_contains_the_float_blowup_time(doc):
    v = find_cusp_blowup(parse_problem(doc))
    assert v.status == "PROVED", v.reason
    cert = v.evidence["certificate"]
    assert check(cert).ok
    T_lo, T_hi = Fraction(cert["data"]["T_lo"]), Fraction(cert["data"]["T_hi"])
    assert 0 < T_lo <= T_hi and float(T_hi - T_lo) <= 1e-5 * float(T_lo)
    sol = _projective(doc, 400.0)
    z = sol.y[:, -1]
    assert z[4] < -60        # u = 1/tr Σ has collapsed: the float solution blows up ...
    T_float = z[5]           # ... at t = ∫u dτ (the tail u/c is below e^-60)
    tol = 1e-9 * T_float
    assert float(T_lo) - tol <= T_float <= float(T_hi) + tol, (float(T_lo), T_float, float(T_hi))


def test_cusp_polynomials_agree_with_the_field():
    x, y = flint.fmpq(1, 2), flint.fmpq(3, 8)
    pairs = [(flint.fmpq_mat(2, 2, [1, x, 0, 1]), flint.fmpq_mat(2, 2, [y, 1, -1, -1]))]
    cf = CuspField(pairs, [flint.fmpq(1), flint.fmpq(0)], 1)
    P0, Q0, c0 = cf.rates(flint.fmpq(0), flint.fmpq(0), flint.fmpq_mat)
    assert (P0, Q0) == (0, 0) and c0 == 2 * y          # X* = e₁e₁ᵀ: Q(X*) = 2(e₁ᵀAe₁)(e₁ᵀVe₁)·X*
    K = flint.fmpq(3, 2)

    def face(q):
        P, Qd, _ = cf.rates(K * q * q, q, flint.fmpq_mat)
        return 2 * K * q * Qd - P

    coef = coefficients(face, 10)
    assert coef[0] == 0 and coef[1] == 0               # G vanishes to second order at the apex ...
    assert coef[2] == 2 * y * (K - 1)                  # ... with G ≈ 2y(K − 1)q² (p relaxes to q² at rate 2y)
    for qq in (flint.fmpq(1, 7), flint.fmpq(-5, 3), flint.fmpq(22, 9)):
        assert sum((c * qq ** k for k, c in enumerate(coef)), flint.fmpq(0)) == face(qq)
    # the off-diagonal rate on the rank-one curve starts like −xy·q² (the Jordan block's slow direction)
    slow = cf.rates(flint.fmpq(0), flint.fmpq(1, 1000), flint.fmpq_mat)[1] * 10 ** 6
    assert float(slow.p) / float(slow.q) == pytest.approx(-float(x.p) * float(y.p) / float(x.q * y.q), rel=1e-2)


# fresh seed 3584266472 #115: a Jordan V = [[−2, 0], [−1/2, −2]] with F = I/4 whose float solution passes tr Σ = 10⁸
# at t ≈ 0.47 on the repelling side of the ray e₂e₂ᵀ (∫tr Q dτ converges to ≈ 34.9: global growth like e^{t/2})
SEED_115 = {"variant": "softmax", "d": 2, "A": [["1/2", "-1/3"], ["1/3", "-1/3"]], "V": [["-2", "0"], ["-1/2", "-2"]],
            "initial": {"cov": [["8", "-1"], ["-1", "5/4"]]}, "F": [["1/4", "0"], ["0", "1/4"]], "b": ["0", "0"]}
REPELLED = [pytest.param(_jordan("1/2", "1/8", [["1", "0"], ["0", "1"]]), id="issue49-y=1/8", marks=pytest.mark.heavy),
            pytest.param(_jordan("1/2", "3/8", [["1", "0"], ["0", "1"]]), id="issue49-y=3/8"),
            pytest.param(SEED_115, id="seed-115-drift", marks=pytest.mark.heavy)]


@pytest.mark.parametrize("doc", REPELLED)
def test_float_blowups_on_the_repelling_side_are_refused_and_are_not_blowups(doc):
    v = find_cusp_blowup(parse_problem(doc))
    assert v.status == "UNDECIDED" and "repelling side" in v.reason
    sol = _projective(doc, 2000.0)
    # ∫c dτ converges: u = 1/tr Σ stays bounded below, so t = ∫u dτ grows without bound (no blow-up)
    z1, z2 = sol.sol(1000.0), sol.sol(2000.0)
    assert abs(z2[6] - z1[6]) < 1e-6 and z2[6] < 60 and abs(z2[4] - z1[4]) < 1e-6
    Y = z2[:4].reshape(2, 2)
    X = Y @ Y.T / np.trace(Y @ Y.T)
    V, A, _F, _S0 = _mats(doc)
    assert np.linalg.det(X) < 1e-8 and abs(np.trace(V @ X @ A @ X)) < 1e-8   # an isotropic rank-one limit


@pytest.mark.heavy
def test_random_jordan_problems_every_proved_bracket_holds_the_float_blowup_time():
    """Random d = 2 problems with a Jordan-block V (upper or lower), random A, Σ₀ ≻ 0 and F ∈ {0, ±I/4} (seeded):
    every PROVED bracket contains the independent float blow-up time, and the kind decides some of them."""
    import random

    rng = random.Random(7)
    vals = ["-2", "-1", "-1/2", "-1/3", "0", "1/4", "1/3", "1/2", "1", "2"]
    proved = 0
    for _ in range(16):
        a, b = rng.choice(["1", "2", "-1", "1/2"]), rng.choice(["1", "-1", "1/2", "2", "-1/2"])
        V = [[a, b], ["0", a]] if rng.random() < 0.5 else [[a, "0"], [b, a]]
        A = [[rng.choice(vals) for _ in range(2)] for _ in range(2)]
        s11, s22 = rng.choice(["1", "2", "1/2"]), rng.choice(["1", "2", "1/2"])
        s12 = rng.choice(["0", "1/2", "-1/2", "1/3", "-1/3"])
        doc = {"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": [[s11, s12], [s12, s22]]}}
        f = rng.choice([None, None, "1/4", "-1/4"])
        if f:
            doc["F"], doc["b"] = [[f, "0"], ["0", f]], ["0", "0"]
        v = find_cusp_blowup(parse_problem(doc), seconds=8.0)
        if v.status != "PROVED":
            continue
        proved += 1
        cert = v.evidence["certificate"]
        assert check(cert).ok
        lo, hi = float(Fraction(cert["data"]["T_lo"])), float(Fraction(cert["data"]["T_hi"]))
        z = _projective(doc, 600.0).y[:, -1]
        assert z[4] < -50, doc
        assert lo - 1e-9 * hi <= z[5] <= hi + 1e-9 * hi, (doc, lo, z[5], hi)
    assert proved >= 3
