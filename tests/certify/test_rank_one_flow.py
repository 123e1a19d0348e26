"""The rank-one reduction (search/_rank_one_flow.py, kind rank-one-flow): Σ = xxᵀ with ẋ = f·x + (xᵀÃx)Cx solves the
covariance flow exactly, and the certified regimes agree with an independent integration of ẋ (a float integration
of the 3- or 6-dimensional Σ-flow from a singular Σ₀ is not trustworthy: rounding leaves the rank-one stratum, and an
unstable transversal direction then blows up or loses Σ ⪰ 0)."""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search._rank_one_flow import rank_one_flow
from symbolic_tf.certify.search.routes import Context
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.variants import quadratic_heads

_S = ("-2", "-1", "-1/2", "-1/3", "0", "1/4", "1/3", "1/2", "1", "2")


def _random_doc(rng, d, drift=None):
    m = lambda: [[_S[rng.integers(10)] for _ in range(d)] for _ in range(d)]  # noqa: E731
    w = [int(rng.integers(-2, 3)) for _ in range(d)]
    w[0] = w[0] or 1
    c = Fraction(int(rng.integers(1, 4)), int(rng.integers(1, 3)))
    doc = {"variant": "softmax", "d": d, "A": m(), "V": m(),
           "initial": {"cov": [[str(c * w[a] * w[b]) for b in range(d)] for a in range(d)]}}
    if drift is not None:
        doc["F"] = [[drift if a == b else "0" for b in range(d)] for a in range(d)]
        doc["b"] = ["0"] * d
    return doc, w, c


def _floats(M):
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


@pytest.mark.parametrize("seed", range(4))
def test_factor_solves_the_covariance_flow_exactly(seed):
    """d/dt(xxᵀ) = ẋxᵀ + xẋᵀ equals 2fΣ + CΣÃΣ + ΣÃᵀΣCᵀ at Σ = xxᵀ, exactly over ℚ, at random rational x."""
    rng = np.random.default_rng(seed)
    d = 2 + seed % 2
    doc, _, _ = _random_doc(rng, d, drift="-1/3")
    (C, At), = quadratic_heads(parse_problem(doc))
    f = flint.fmpq(-1, 3)
    x = flint.fmpq_mat(d, 1, [flint.fmpq(int(rng.integers(-5, 6)), int(rng.integers(1, 4))) for _ in range(d)])
    xdot = f * x + (x.transpose() * At * x)[0, 0] * (C * x)
    S = x * x.transpose()
    rhs = 2 * f * S + C * S * At * S + S * At.transpose() * S * C.transpose()
    assert xdot * x.transpose() + x * xdot.transpose() == rhs


def _x_ode(doc, w, c, T):
    (C, At), = quadratic_heads(parse_problem(doc))
    C, At = _floats(C), _floats(At)
    f = float(Fraction(doc["F"][0][0])) if "F" in doc else 0.0
    x0 = np.sqrt(float(c)) * np.array(w, float)
    big = lambda t, x: np.linalg.norm(x) - 1e6  # noqa: E731
    big.terminal = True
    return solve_ivp(lambda t, x: f * x + (x @ At @ x) * (C @ x), (0, T), x0, method="DOP853", rtol=1e-11,
                     atol=1e-14, events=[big]), C, At, f


@pytest.mark.parametrize("seed", range(12))
def test_certified_regime_agrees_with_the_factor_ode(seed):
    """Every PROVED verdict of the route passes the independent check and agrees with a direct integration of ẋ:
    a blow-up inside the bracket (|x| = 10⁶ is reached just before T*), a rank-one limit (ẋ → 0 with x away from 0),
    a collapse (x → 0)."""
    rng = np.random.default_rng(1000 + seed)
    d = 2 + seed % 2
    doc, w, c = _random_doc(rng, d, drift=None if seed % 3 else "-1/4")
    problem = parse_problem(doc)
    v = rank_one_flow(problem, Context())
    if v.status != "PROVED":
        pytest.skip(f"undecided: {v.reason[:80]}")
    res = check(v.evidence["certificate"])
    assert res.status == "PROVED"
    claim = res.claim
    if claim.subject == "BLOWUP":
        lo, hi = (float(Fraction(claim.params[k])) for k in ("T_lo", "T_hi"))
        sol, *_ = _x_ode(doc, w, c, 2 * hi + 1)
        assert sol.status == 1 and lo * (1 - 1e-6) <= sol.t[-1] <= hi
    else:
        sol, C, At, f = _x_ode(doc, w, c, 400.0)
        x = sol.y[:, -1]
        speed = np.linalg.norm(f * x + (x @ At @ x) * (C @ x))
        assert sol.status == 0
        if claim.params["rank"] == 1:
            assert speed < 1e-2 * max(np.linalg.norm(x), 1e-12) and np.linalg.norm(x) > 1e-4
        else:
            assert np.linalg.norm(x) < 0.2 * np.sqrt(float(c)) * np.linalg.norm(w)
