"""Numerical evidence of UNDECIDED verdicts: the scale-free continuation (dτ = tr Σ dt) reads a
blow-up, exponential growth and polynomial growth off closed-form flows."""
import math

from symbolic_tf.regimes._evidence import TAU_DECADES, numerical_evidence, scale_free_outlook
from symbolic_tf.spec.problem import parse_problem


def _problem(d, A, V, S0, F=None):
    doc = {"variant": "softmax", "d": d, "A": A, "V": V, "initial": {"cov": S0}}
    if F is not None:
        doc["F"] = F
    return parse_problem(doc)


def test_bernoulli_blowup_time_is_read_off():
    # d = 1: ṡ = 2vas², s(0) = 3/2, v = 1, a = 1/2 → T* = 1/(2va·s₀) = 2/3
    out = scale_free_outlook(_problem(1, [["1/2"]], [["1"]], [["3/2"]]), 50.0)
    assert out["outcome"] == "blowup" and out["scale_free"]["reading"] == "blowup"
    assert math.isclose(out["scale_free"]["T_estimate"], 2 / 3, rel_tol=1e-6)
    assert "numerical evidence" in out["summary"]


def test_linear_exponential_growth_reads_exponential():
    # V = 0, F = 1: Σ(t) = e^{2t}Σ₀, so τ = (s − s₀)/2 and each decade of τ takes ln 10/2 in t
    out = scale_free_outlook(_problem(1, [["1"]], [["0"]], [["1"]], F=[["1"]]), 50.0)
    sf = out["scale_free"]
    assert sf["reading"] == "exponential" and "outcome" not in out
    assert math.isclose(sf["t"][2] - sf["t"][1], math.log(10) / 2, rel_tol=1e-3)
    assert math.isclose(sf["rho"], 1.0, rel_tol=1e-3)


def test_polynomial_growth_reads_subexponential():
    # V = 0, F = [[0, 1], [0, 0]] (nilpotent), Σ₀ = I: tr Σ(t) = 2 + t², so τ ≈ t³/3 and
    # tr Σ ∝ τ^{2/3}: ρ → 10^{1/3}
    out = scale_free_outlook(_problem(2, [["1", "0"], ["0", "1"]], [["0", "0"], ["0", "0"]],
                                      [["1", "0"], ["0", "1"]], F=[["0", "1"], ["0", "0"]]), 1e4)
    sf = out["scale_free"]
    assert sf["reading"] == "subexponential"
    assert math.isclose(sf["rho"], 10 ** (1 / 3), rel_tol=2e-2)
    for tau, t in zip(TAU_DECADES, sf["t"]):                 # τ(t) = 2t + t³/3 exactly
        assert math.isclose(2 * t + t ** 3 / 3, tau, rel_tol=1e-6)


def test_horizon_reached_in_scale_free_time():
    # Σ(t) = e^{2t}: τ(2) = (e⁴ − 1)/2 < 10³, so t reaches T = 2 first; tr Σ(2) = e⁴, a factor e² over [1, 2]
    out = scale_free_outlook(_problem(1, [["1"]], [["0"]], [["1"]], F=[["1"]]), 2.0)
    sf = out["scale_free"]
    assert sf["reached_T"] and "t = T = 2" in out["summary"]
    assert math.isclose(sf["trace_T"], math.exp(4), rel_tol=1e-6)
    assert math.isclose(sf["growth_factor_half"], math.exp(2), rel_tol=1e-6)
    assert sf["eigenvalue_ratios"] == []


def test_horizon_reached_reports_the_eigenvalue_ratios():
    # V = 0, F = diag(1, 0), Σ₀ = I: Σ(t) = diag(e^{2t}, 1), so at T = 3 the ratio is e⁻⁶
    out = scale_free_outlook(_problem(2, [["1", "0"], ["0", "1"]], [["0", "0"], ["0", "0"]],
                                      [["1", "0"], ["0", "1"]], F=[["1", "0"], ["0", "0"]]), 3.0)
    sf = out["scale_free"]
    assert math.isclose(sf["trace_T"], math.exp(6) + 1, rel_tol=1e-6)
    assert math.isclose(sf["eigenvalue_ratios"][0], math.exp(-6), rel_tol=1e-5)
    assert math.isclose(sf["growth_factor_half"], (math.exp(6) + 1) / (math.exp(3) + 1), rel_tol=1e-6)


def test_blowup_seen_in_t_needs_no_continuation():
    ev = numerical_evidence(_problem(1, [["1/2"]], [["1"]], [["3/2"]]), 50.0)
    assert ev["outcome"] == "blowup" and math.isclose(ev["t_end"], 2 / 3, rel_tol=1e-3)
    assert "scale_free" not in ev


def test_unfinished_slow_growth_gets_the_scale_free_reading():
    # a general-V softmax flow in d = 3 (issue 15's soak set, seed 1 #16) whose run in t exhausts its
    # step budget while tr Σ grows slowly: the continuation reads growth slower than exponential
    # (tr Σ ∝ τ^κ with κ ≈ 0.4 in a separate float run: ρ = 10^{1−κ} ≈ 4)
    p = _problem(3, [["3/4", "2", "1/4"], ["4/3", "2/3", "-1"], ["-3/4", "-2", "2"]],
                 [["1/2", "-1", "1/3"], ["0", "2", "-1/4"], ["-2", "-3/2", "-3/2"]],
                 [["49/18", "53/18", "-4"], ["53/18", "193/36", "-10/3"], ["-4", "-10/3", "33/4"]])
    ev = numerical_evidence(p, 50.0)
    assert ev["outcome"] == "unfinished"
    sf = ev["scale_free"]
    assert sf["reading"] == "subexponential" and 2 < sf["rho"] < 6
    assert sf["t"][0] < sf["t"][1] < sf["t"][2] < 50
    assert "slower than exponentially" in ev["summary"]
