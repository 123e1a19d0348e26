"""bounded-riccati-vI: V = vI, any drift, this Σ₀ stays below M⁻¹ (P = Σ⁻¹ ⪰ M for all t).

Cross-checks against independent computations: the closed form of a diagonal saddle, and a float
integration of Σ̇ for a d = 3 problem whose float solution leaves the cone near its singular limit
(an LSODA run "blows up" at t ≈ 69 while P(t) ⪰ M exactly).
"""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search._bounded_riccati_vI import bounded_riccati_vI
from symbolic_tf.exact.rational import qmat
from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec.problem import parse_problem

from soundness.oracle import simulate


def _M_inv(cert):
    M = qmat(cert["data"]["M"])
    return np.array([[float(M.inv()[i, j].p) / float(M.inv()[i, j].q) for j in range(M.ncols())]
                     for i in range(M.nrows())])


SADDLE = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "-1"]], "V": [["1", "0"], ["0", "1"]],
          "F": [["-1", "0"], ["0", "1"]], "initial": {"cov": [["1/2", "0"], ["0", "1/2"]]}}

#: a fresh random problem of issue 48 (seed 1688874118, #3): V = −I/2, a general drift with eigenvalues
#: ≈ −4/3, −0.07, 1.57; R = v(A + Aᵀ) indefinite
D3 = {"variant": "softmax", "d": 3, "A": [["0", "-1/3", "2"], ["1/2", "2", "1"], ["1/2", "-1", "-1/3"]],
      "V": [["-1/2", "0", "0"], ["0", "-1/2", "0"], ["0", "0", "-1/2"]],
      "F": [["1/3", "1/3", "2"], ["-1/3", "-1/2", "2"], ["1/2", "1/2", "1/3"]],
      "initial": {"cov": [["1", "-2", "-2"], ["-2", "33/4", "5"], ["-2", "5", "17/4"]]}}


def test_saddle_closed_form_stays_below_M_inverse():
    """p₁₁ = 1 + e^{2t}, p₂₂ = 1 + e^{−2t} (R = diag(2, −2), F = diag(−1, 1), Σ₀ = I/2): Σ(t) ⪯ M⁻¹."""
    v = bounded_riccati_vI(parse_problem(SADDLE))
    assert v.status == "PROVED"
    cert = v.evidence["certificate"]
    assert check(cert).ok and cert["claim"]["subject"] == "BOUNDED"
    Minv = _M_inv(cert)
    for t in np.linspace(0, 20, 81):
        S = np.diag([1 / (1 + np.exp(2 * t)), 1 / (1 + np.exp(-2 * t))])
        assert np.linalg.eigvalsh(Minv - S).min() > -1e-12


def test_a_blowing_up_sigma0_is_not_proved():
    """Σ₀ = diag(2, 1/2) on the saddle blows up at ln 2/2 (p₁₁ = 1 − e^{2t}/2): no M may exist."""
    prob = parse_problem({**SADDLE, "initial": {"cov": [["2", "0"], ["0", "1/2"]]}})
    assert simulate(prob, 1.0).status == "blowup"
    assert bounded_riccati_vI(prob).status == "UNDECIDED"


def test_d3_drift_float_integration_stays_below_M_inverse():
    v = bounded_riccati_vI(parse_problem(D3))
    assert v.status == "PROVED", v.reason
    cert = v.evidence["certificate"]
    assert check(cert).ok
    Minv = _M_inv(cert)
    times = np.linspace(0.5, 12, 24)
    r = simulate(parse_problem(D3), 12.0, times=times)
    assert r.status == "reached"
    assert len(r.samples) == len(times)
    for _, s, U in r.samples:
        S = np.exp(s) * U
        assert np.linalg.eigvalsh(Minv - S).max() > 0
        assert np.linalg.eigvalsh(Minv - S).min() > -1e-7 * max(1.0, np.abs(Minv).max())


@pytest.mark.heavy
def test_classify_decides_the_d3_drift_problem_bounded():
    c = classify(parse_problem(D3), budget=30)
    assert str(c.regime) == "BOUNDED"


def test_singular_sigma0_closed_form_stays_below_M_inverse():
    """A rank-one Σ₀ = bbᵀ, b = (1/2, 1/2), on the saddle: Σ(t) = e^{Ft}b X(t)⁻¹bᵀe^{Fᵀt} with the scalar
    X(t) = 1 − bᵀW(t)b (closed form) and a float integration both stay below M⁻¹."""
    doc = {**SADDLE, "initial": {"cov": [["1/4", "1/4"], ["1/4", "1/4"]]}}
    v = bounded_riccati_vI(parse_problem(doc))
    assert v.status == "PROVED", v.reason
    cert = v.evidence["certificate"]
    assert check(cert).ok
    Minv = _M_inv(cert)
    # Σ₀ = bbᵀ, b = (1/2, 1/2); the factor moves as e^{Ft}b and X(t) = 1 − bᵀW(t)b with
    # W(t) = diag(2∫e^{−2s}, −2∫e^{2s}) = diag(1 − e^{−2t}, 1 − e^{2t})
    b = np.array([0.5, 0.5])
    for t in np.linspace(0, 15, 61):
        X = 1 - (b[0] ** 2 * (1 - np.exp(-2 * t)) + b[1] ** 2 * (1 - np.exp(2 * t)))
        u = np.array([np.exp(-t), np.exp(t)]) * b
        S = np.outer(u, u) / X
        assert X > 0 and np.linalg.eigvalsh(Minv - S).min() > -1e-12
    r = simulate(parse_problem(doc), 5.0)
    assert r.status == "reached" and np.linalg.eigvalsh(Minv - np.exp(r.s) * r.U).min() > -1e-8


#: fresh seed 2219040412 #53 (V = I/4, a general drift, a singular Σ₀): the Van Loan product W = e^{Fᵀt}E₁₂ shows a
#: float "crossing" of X(t) at t ≈ 20.9 although the solution is bounded
SPURIOUS = {"variant": "softmax", "d": 3, "A": [["-2", "-2", "-1"], ["-1/2", "-1", "1"], ["-2", "-1/3", "-1/3"]],
            "V": [["1/4", "0", "0"], ["0", "1/4", "0"], ["0", "0", "1/4"]],
            "F": [["1/2", "0", "-1/2"], ["1/2", "-1", "-1"], ["1/2", "2", "-2"]],
            "initial": {"cov": [["2", "1/2", "2"], ["1/2", "5/4", "1/2"], ["2", "1/2", "2"]]}}


def test_a_spurious_float_crossing_is_not_bracketed():
    """The blow-up search skips its ball covers when an exact sublevel M exists (no blow-up at all), and the
    float integration of Σ̇ stays below M⁻¹ past the spurious crossing time."""
    from symbolic_tf.certify.search.riccati import blowup_bracket_vI

    prob = parse_problem(SPURIOUS)
    b = blowup_bracket_vI(prob)
    assert b.status == "UNDECIDED" and "spurious" in b.reason and b.numerical["T_float"] < 30
    v = bounded_riccati_vI(prob)
    assert v.status == "PROVED" and check(v.evidence["certificate"]).ok
    Minv = _M_inv(v.evidence["certificate"])
    r = simulate(prob, 30.0, times=np.linspace(1, 30, 30))
    assert r.status == "reached"
    for _, s, U in r.samples:
        assert np.linalg.eigvalsh(Minv - np.exp(s) * U).min() > -1e-7 * max(1.0, np.abs(Minv).max())
