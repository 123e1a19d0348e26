"""Known false PROVEDs and a crash of ``classify`` (issue 14), each checked against the
independent oracle (tests/soundness/oracle.py).  Written as the correct assertions: they fail
until the toolkit is fixed; nothing here is xfail."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec.problem import parse_problem

from .oracle import claim_text, judge, quantifier_of, sigma_star_of, simulate


def _classify(doc, uniform=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return classify(parse_problem(doc), uniform=uniform).to_dict()


def _show(d):
    d = {k: v for k, v in d.items() if k not in ("certificate", "numerical_evidence")}
    return json.dumps(d, default=str, ensure_ascii=False)[:2000]


# 1. rank-deficient Σ₀, V = vI, R = v(A + Aᵀ) ≺ 0, F anti-Hurwitz: the limit has rank 1, it is
#    not the PD equilibrium P*⁻¹ (which attracts every Σ₀ ≻ 0 only).
RANK_DEFICIENT = {"variant": "softmax", "d": 2, "A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]],
                  "F": [[1, 0], [0, 1]], "b": [0, 0],
                  "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 0]]}}


@pytest.mark.parametrize("s0", ["1", "1/2", "3"])
def test_rank_deficient_sigma0_does_not_converge_to_the_pd_equilibrium(s0):
    doc = dict(RANK_DEFICIENT, initial={"mean": [0, 0], "cov": [[s0, 0], [0, 0]]})
    problem = parse_problem(doc)
    # the oracle's own view: Σ(t) = diag(σ(t), 0) with σ̇ = 2σ − 2σ², σ → 1: limit diag(1, 0)
    # (σ₀ = 1: Σ₀ itself is a rank-1 equilibrium)
    r = simulate(problem, 200.0)
    assert r.status == "reached" and np.allclose(r.Sigma, [[1, 0], [0, 0]], atol=1e-9)
    d = _classify(doc)
    if d.get("status") == "PROVED" and d.get("regime") == "EQUILIBRIUM":
        S = sigma_star_of(d, problem)
        assert S is not None, "EQUILIBRIUM PROVED without Σ*: " + _show(d)
        assert np.linalg.matrix_rank(S, tol=1e-9) == 1, "a PD Σ* for a rank-1 Σ₀: " + _show(d)
    if d.get("status") == "PROVED":
        j = judge(problem, d)
        assert j.ok is not False, f"{j.detail}\n{_show(d)}"


# 2. Σ₀ outside the basin of a certified, locally stable PD equilibrium (general V + drift).
#    Found by a numeric search with the oracle (seed 7 of the search in the soundness notes):
#    Σ* ≈ [[0.18803, 0.03669], [0.03669, 0.06233]] is a locally exponentially stable PD
#    equilibrium, but from Σ₀ = I the covariance blows up at T* ≈ 0.4855.
OUTSIDE_BASIN = {"variant": "softmax", "d": 2, "A": [["5/4", "3/4"], ["-5/4", "2"]],
                 "V": [["-2", "-2"], ["-3/2", "-3/4"]], "F": [["3/4", "-3/2"], ["1", "0"]],
                 "b": ["0", "0"], "initial": {"mean": ["0", "0"], "cov": [[1, 0], [0, 1]]}}


def test_sigma0_outside_the_basin_is_not_an_equilibrium():
    problem = parse_problem(OUTSIDE_BASIN)
    r = simulate(problem, 10.0)
    assert r.status == "blowup" and 0.48 < r.t < 0.49, (r.status, r.t)
    d = _classify(OUTSIDE_BASIN)
    assert not (d.get("status") == "PROVED" and d.get("regime") == "EQUILIBRIUM"), _show(d)
    if d.get("status") == "PROVED":
        j = judge(problem, d)
        assert j.ok is not False, f"{j.detail}\n{_show(d)}"


# 3. --uniform on V = vI with drift, R ≺ 0, F anti-Hurwitz: convergence to P*⁻¹ holds for
#    every Σ₀ ≻ 0 only (a singular Σ₀ keeps its rank).
UNIFORM_DOC = {"variant": "softmax", "d": 2, "A": [[-1, "1/2"], [0, -1]], "V": [[1, 0], [0, 1]],
               "F": [[1, 0], [0, "1/2"]], "b": [0, 0],
               "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}


def test_uniform_equilibrium_claim_is_for_positive_definite_sigma0_only():
    d = _classify(UNIFORM_DOC, uniform=True)
    if d.get("status") != "PROVED":
        return
    kind, _ = quantifier_of(d)
    text = claim_text(d)
    if d.get("regime") == "EQUILIBRIUM":
        assert kind == "pd", f"quantifier {kind!r}: {_show(d)}"
        if "every Σ₀" in text:
            assert "≻ 0" in text, text
    q = d.get("quantifier")
    if q is not None and d.get("regime") == "EQUILIBRIUM":
        assert "≻ 0" in str(q), q


# 4. crash: d = 3, V = 0, F = 1000·I (LinAlgError "Eigenvalues did not converge" from an
#    overflowing matrix exponential).
CRASH_DOC = {"variant": "softmax", "d": 3, "A": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
             "V": [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
             "F": [[1000, 0, 0], [0, 1000, 0], [0, 0, 1000]], "b": [0, 0, 0],
             "initial": {"mean": [0, 0, 0], "cov": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}


def test_huge_drift_with_zero_value_does_not_crash():
    d = _classify(CRASH_DOC)  # must not raise
    assert d.get("status") in ("PROVED", "UNDECIDED")
    if d.get("status") == "PROVED":
        # Σ(t) = e^{2000 t} I: exponential growth, no blow-up, no equilibrium, unbounded
        assert d.get("regime") == "GLOBAL_EXISTENCE", _show(d)
    d = _classify(CRASH_DOC, uniform=True)
    assert d.get("status") in ("PROVED", "UNDECIDED")


def test_singular_sigma0_float_artefact_is_not_a_blowup():
    """Soak #730 (seed 2026): V = −I, R = v·scale·(A + Aᵀ) ≺ 0, F anti-Hurwitz, Σ₀ singular
    (rank 2).  The covariance exists for all t (X(t) = D⁻¹ − BᵀW(t)B ⪰ D⁻¹), but a float
    integration of Σ itself leaves the PSD cone along the kernel direction and is then driven to
    −∞ by the negative-definite quadratic term: the oracle must call that inconclusive, and an
    integration of the congruence factor Ψ (Σ = ΨΨᵀ, Ψ̇ = (F + VΣA)Ψ) stays finite."""
    from scipy.integrate import solve_ivp

    from soundness.oracle import judge_classification

    doc = {"variant": "softmax", "d": 3, "scale": "3/2",
           "A": [["1/4", 0, "1/8"], [0, "1/2", "-1/4"], ["1/8", "-1/4", "7/16"]],
           "V": [[-1, 0, 0], [0, -1, 0], [0, 0, -1]],
           "F": [["1/2", "-5/4", "-3/4"], [0, "7/4", -1], [0, 0, "3/4"]], "b": ["3/2", "5/4", "3/4"],
           "initial": {"cov": [[8, "-1/2", -4], ["-1/2", "61/16", "1/4"], [-4, "1/4", 2]]}}
    p = parse_problem(doc)
    c = classify(p)
    assert c.status == "PROVED" and c.regime in ("GLOBAL_EXISTENCE", "BOUNDED", "CLUSTERING", "EQUILIBRIUM")
    assert judge_classification(p, c.to_dict()).ok is not False
    A = 1.5 * np.array([[0.25, 0, 0.125], [0, 0.5, -0.25], [0.125, -0.25, 7 / 16]])
    F = np.array([[0.5, -1.25, -0.75], [0, 1.75, -1], [0, 0, 0.75]])
    S0 = np.array([[8, -0.5, -4], [-0.5, 61 / 16, 0.25], [-4, 0.25, 2]])
    w, U = np.linalg.eigh(S0)
    Psi0 = U @ np.diag(np.sqrt(np.clip(w, 0, None)))

    def rhs(t, y):
        Psi = y.reshape(3, 3)
        S = Psi @ Psi.T
        return ((F - S @ A) @ Psi).ravel()

    sol = solve_ivp(rhs, (0, 60), Psi0.ravel(), method="DOP853", rtol=1e-10, atol=1e-12)
    assert sol.status == 0 and np.all(np.isfinite(sol.y[:, -1]))


# 6. the oracle's own false alarm (fresh seed 1888400146 #48): V = vI, F = fI with Σ₀ exactly on the
#    blow-up threshold f = −ρ.  Here Σ = diag(σ₁, σ₂) with σ̇₁ = −σ₁ + 2σ₁² (σ₁ = 1/2 an unstable rest
#    point) and σ̇₂ = −σ₂: the exact solution clusters onto diag(1/2, 0), rank 1; a float run leaves the
#    rest point by rounding and "blows up" near t ≈ 26.  The oracle must call that inconclusive.
THRESHOLD = {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 0]], "V": [[1, 0], [0, 1]],
             "F": [["-1/2", 0], [0, "-1/2"]], "initial": {"cov": [["1/2", 0], [0, 1]]}}


def test_oracle_does_not_call_a_threshold_problem_false():
    from .oracle import closed_form_outlook

    problem = parse_problem(THRESHOLD)
    assert closed_form_outlook(problem) == "threshold"
    # off the threshold the closed form decides: a larger σ₁ blows up, a smaller one does not
    assert closed_form_outlook(parse_problem(dict(THRESHOLD, initial={"cov": [["3/4", 0], [0, 1]]}))) == "blowup"
    assert closed_form_outlook(parse_problem(dict(THRESHOLD, initial={"cov": [["1/4", 0], [0, 1]]}))) == "global"
    d = _classify(THRESHOLD)
    assert d["status"] == "PROVED" and d["regime"] == "CLUSTERING", _show(d)
    assert judge(problem, d).ok is not False, _show(d)
