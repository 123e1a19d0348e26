"""Certified equilibria of the drift model with general V (Krawczyk + Lyapunov in balls):
known V = vI equilibria, a non-symmetric V, tampering, no PD equilibrium, unstable equilibria."""
from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search._equilibrium_krawczyk import find_equilibrium
from symbolic_tf.spec import parse_problem
from symbolic_tf.spec.errors import CertificationFailed


def _s(M):
    return [[str(x) for x in r] for r in M]


def _problem(A, V, F, S0, b=None, scale=None):
    doc = {"variant": "softmax", "d": len(A), "A": _s(A), "V": _s(V), "F": _s(F), "initial": {"cov": _s(S0)}}
    if b is not None:
        doc["b"] = [str(x) for x in b]
    if scale is not None:
        doc["scale"] = str(scale)
    return parse_problem(doc)


def _eye(d, v=1):
    return [[v if i == j else 0 for j in range(d)] for i in range(d)]


def _R(M):
    return sp.Matrix([[sp.Rational(str(x)) for x in r] for r in M])


def _known_equilibrium(p):
    """Σ* = P*⁻¹ with FᵀP* + P*F = −v(A + Aᵀ) (docs/mathematics.md §6), exactly, by SymPy."""
    d = p.d
    v = _R(p.V)[0, 0]
    A = _R(p.A) * sp.Rational(str(p.scale))
    F = _R(p.F)
    P = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"p{min(i, j)}{max(i, j)}"))
    sol = sp.solve(list(F.T * P + P * F + v * (A + A.T)), list(P.free_symbols), dict=True)[0]
    return P.subs(sol).inv()


def _in_box(S, ev) -> bool:
    mid, rad = ev["Sigma_star_box"]["mid"], Fraction(ev["Sigma_star_box"]["rad"])
    d = len(mid)
    return all(abs(Fraction(str(S[i, j])) - Fraction(mid[i][j])) <= rad for i in range(d) for j in range(d))


VI_STABLE = [
    # v, A, F, scale — R = v(A + Aᵀ) ≺ 0 and F anti-Hurwitz: a stable PD equilibrium
    (1, [[-1, 0], [0, -1]], [[1, 0], [0, 1]], None),
    (2, [[-1, 1], ["-1/2", -2]], [[1, "1/3"], [0, 2]], "1/2"),
    ("1/2", [[-1, "1/3", 0], ["-1/3", -2, "1/4"], [0, 0, -1]], [[1, "1/2", 0], [0, 2, "1/5"], [0, 0, 3]], None),
    (-1, [[1, "1/2"], [0, 1]], [[1, "1/2"], [0, 1]], "3/2"),
]


@pytest.mark.parametrize("v, A, F, scale", VI_STABLE)
def test_vI_known_equilibrium_is_in_the_box(v, A, F, scale):
    d = len(A)
    p = _problem(A, _eye(d, v), F, _eye(d), b=[1] + [0] * (d - 1), scale=scale)
    ver = find_equilibrium(p)
    assert ver.status == "PROVED", ver.reason
    assert ver.evidence["regime"] == "EQUILIBRIUM"
    assert check(ver.evidence["certificate"]).ok
    assert "stable" in ver.evidence["certificate"]["data"]["claims"]
    S = _known_equilibrium(p)
    assert _in_box(S, ver.evidence)
    # the mean: M* = F + vI + vΣ*A has spectrum on v + iℝ, so it is certified iff v < 0
    has_mean = "alpha_star_box" in ver.evidence
    assert has_mean == (Fraction(str(v)) < 0)
    if has_mean:
        vv = sp.Rational(str(v))
        M = _R(F) + vv * sp.eye(d) + vv * S * _R(A) * sp.Rational(str(p.scale))
        alpha = -M.inv() * sp.Matrix([1] + [0] * (d - 1))
        box = ver.evidence["alpha_star_box"]
        assert all(abs(Fraction(str(alpha[i])) - Fraction(box["mid"][i])) <= Fraction(box["rad"][i]) for i in range(d))


def test_guess_replaces_the_ode_start():
    p = _problem([[-1, 0], [0, -1]], _eye(2), _eye(2), [[2, 0], [0, "1/2"]])
    ver = find_equilibrium(p, guess=[[1, 0], [0, 1]])
    assert ver.status == "PROVED" and "ode" not in ver.numerical
    assert ver.evidence["Sigma_star_box"]["mid"] == [["1", "0"], ["0", "1"]]


GENERAL = [
    # non-symmetric V: perturbations of V = I stable cases (A + Aᵀ ≺ 0, F anti-Hurwitz)
    ([[-1, "1/5"], [0, -1]], [[1, "1/10"], ["-1/20", 1]], [[1, 0], [0, 1]], "3/2"),
    ([[-1, "1/4", 0], [0, -1, "1/5"], ["-1/6", 0, -2]], [[1, "1/8", 0], [0, "9/10", "-1/10"], ["1/7", 0, "11/10"]],
     [[1, "1/3", 0], [0, "3/2", 0], ["1/4", 0, 2]], None),
]


def _integrate_to(p, S0, T=60.0):
    from symbolic_tf.numeric import codegen
    from symbolic_tf.numeric.integrate import integrate
    from symbolic_tf.symbolic.moments import derive_for_problem

    system = derive_for_problem(p)
    env = codegen.numeric_env(p, system)
    sol = integrate(codegen.compile_system(system), np.zeros(p.d), S0, env, T, rtol=1e-12, atol=1e-15)
    assert sol.status_names() == ["horizon"]
    return sol.Sigma_end[0]


@pytest.mark.parametrize("A, V, F, scale", GENERAL)
def test_general_V_proved_checked_and_attracting(A, V, F, scale):
    d = len(A)
    p = _problem(A, V, F, _eye(d), b=[1] * d, scale=scale)
    ver = find_equilibrium(p)
    assert ver.status == "PROVED", ver.reason
    cert = ver.evidence["certificate"]
    assert check(cert).ok
    assert {"exists-unique", "pd", "stable"} <= set(cert["data"]["claims"])
    mid = np.array([[float(Fraction(x)) for x in r] for r in ver.evidence["Sigma_star_box"]["mid"]])
    rad = float(Fraction(ver.evidence["Sigma_star_box"]["rad"]))
    assert np.linalg.eigvalsh(mid).min() > 0
    # numerical: the moment ODE from a nearby Σ₀ converges into the certified box
    rng = np.random.default_rng(0)
    E = rng.normal(size=(d, d)) * 0.05
    S_end = _integrate_to(p, mid + E + E.T)
    assert np.abs(S_end - mid).max() <= rad


# --------------------------------------------------------------------------------------------
# tampering
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stable_cert():
    # V ≈ −I (non-symmetric), A + Aᵀ ≻ 0, F anti-Hurwitz: stable PD equilibrium, convergent mean
    p = _problem([[1, "1/5"], [0, 1]], [[-1, "1/10"], ["-1/20", -1]], [[1, 0], [0, 1]], _eye(2), b=[1, 2])
    ver = find_equilibrium(p)
    assert ver.status == "PROVED", ver.reason
    cert = ver.evidence["certificate"]
    assert "mean" in cert["data"]["claims"]  # V ≈ −I: the mean converges too
    assert check(cert).ok
    return cert


def _tampered(cert, fn):
    c = copy.deepcopy(cert)
    fn(c)
    return c


def _neg(M):
    return [[str(-Fraction(x)) for x in r] for r in M]


def _bump_mid(c):
    c["data"]["Sigma_mid"][0][1] = str(Fraction(c["data"]["Sigma_mid"][0][1]) + Fraction(1, 1000))
    c["data"]["Sigma_mid"][1][0] = c["data"]["Sigma_mid"][0][1]


def _bump_problem(c):
    c["problem"]["V"][0][1] = "1/9"


def _bump_problem_rehash(c):
    _bump_problem(c)
    c["problem_hash"] = parse_problem(c["problem"]).content_hash()


def _claim_mean_without_data(c):
    c["data"].pop("mean")


def _alpha(c):
    c["data"]["mean"]["alpha_mid"][0] = str(Fraction(c["data"]["mean"]["alpha_mid"][0]) + Fraction(1, 10**6))


TAMPERS = {
    "r=0": lambda c: c["data"].__setitem__("r", "0"),
    "r negative": lambda c: c["data"].__setitem__("r", "-1/1000"),
    "r huge": lambda c: c["data"].__setitem__("r", "100"),
    "Sigma_mid": _bump_mid,
    "Sigma_mid asymmetric": lambda c: c["data"]["Sigma_mid"][0].__setitem__(1, "1/3"),
    "Y negated": lambda c: c["data"].__setitem__("Y", _neg(c["data"]["Y"])),
    "Y zero": lambda c: c["data"].__setitem__("Y", [["0"] * len(r) for r in c["data"]["Y"]]),
    "W negated": lambda c: c["data"].__setitem__("W", _neg(c["data"]["W"])),
    "W missing": lambda c: c["data"].pop("W"),
    "mean W negated": lambda c: c["data"]["mean"].__setitem__("W", _neg(c["data"]["mean"]["W"])),
    "alpha box moved": _alpha,
    "mean data missing": _claim_mean_without_data,
    "problem, stale hash": _bump_problem,
    "problem, rehashed": _bump_problem_rehash,
    "claim text": lambda c: c["claim"].__setitem__("text", c["claim"]["text"].replace("exactly one", "at least one")),
    "claim part added": lambda c: c["claim"]["params"]["parts"].append("mean"),
    "claim radius": lambda c: c["claim"]["params"].__setitem__("r", "1/1000000000000"),
    "claims token dropped": lambda c: c["data"]["claims"].remove("pd"),
    "unknown basis": lambda c: c["data"].__setitem__("basis", "svec-orthonormal"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_tampering_is_detected(stable_cert, name):
    with pytest.raises(CertificationFailed):
        check(_tampered(stable_cert, TAMPERS[name]))


# --------------------------------------------------------------------------------------------
# no PD equilibrium / unstable equilibrium / not applicable
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("F", [[[1, 0], [0, 1]], [[0, 0], [0, 0]], [[1, 1], [0, "1/2"]]])
def test_no_pd_equilibrium_is_undecided(F):
    # V = I, R = 2I ≻ 0 and F with no stable eigenvalue: every PD Σ₀ blows up, no PD equilibrium
    p = _problem(_eye(2), _eye(2), F, _eye(2))
    ver = find_equilibrium(p)
    assert ver.status == "UNDECIDED"
    assert "certificate" not in ver.evidence


@pytest.mark.parametrize("S0", [[["1/10", 0], [0, "1/10"]], [[5, 0], [0, 5]]])
def test_unstable_equilibrium_is_never_called_stable(S0):
    # V = I, R = 2I ≻ 0, F Hurwitz: Σ* = P*⁻¹ ≻ 0 exists but is a repeller (the blow-up threshold)
    p = _problem(_eye(2), _eye(2), [[-1, "1/2"], [0, -2]], S0)
    ver = find_equilibrium(p)
    assert ver.status == "UNDECIDED"
    assert ver.evidence.get("stability") == "unstable"
    cert = ver.evidence["certificate"]
    assert "stable" not in cert["data"]["claims"] and "unstable" in cert["data"]["claims"]
    assert check(cert).ok
    assert _in_box(_known_equilibrium(p), ver.evidence)
    # relabelling it "stable" is caught (claim text, then W)
    bad = copy.deepcopy(cert)
    bad["data"]["claims"] = ["exists-unique", "pd", "stable"]
    with pytest.raises(CertificationFailed):
        check(bad)
    bad["claim"]["text"] = bad["claim"]["text"].replace(
        "Σ* is unstable (the linearisation has an eigenvalue with positive real part)",
        "Σ* is locally exponentially stable (the linearisation on symmetric matrices is Hurwitz)")
    with pytest.raises(CertificationFailed):
        check(bad)


def test_saddle_is_not_called_stable():
    # V = I, A = diag(−1, 2) (R indefinite), F = diag(1, −2): Σ* = I is an equilibrium whose
    # linearisation on symmetric matrices has eigenvalues −2, 1, 4 (a saddle)
    p = _problem([[-1, 0], [0, 2]], _eye(2), [[1, 0], [0, -2]], _eye(2))
    ver = find_equilibrium(p, guess=[[1, 0], [0, 1]])
    assert ver.status == "UNDECIDED"
    assert ver.evidence["stability"] == "unstable"
    cert = ver.evidence["certificate"]
    assert cert["data"]["claims"] == ["exists-unique", "pd", "unstable"]
    assert check(cert).ok
    assert _in_box(sp.eye(2), ver.evidence)


def test_not_applicable():
    p = _problem(_eye(2), _eye(2), _eye(2), _eye(2))
    assert find_equilibrium(dataclasses.replace(p, variant="l2")).status == "UNDECIDED"


small = st.fractions(min_value=-2, max_value=2, max_denominator=4)


@st.composite
def vI_drift_problems(draw):
    d = draw(st.integers(1, 2))
    A = [[draw(small) for _ in range(d)] for _ in range(d)]
    F = [[draw(small) for _ in range(d)] for _ in range(d)]
    v = draw(st.sampled_from([Fraction(1), Fraction(-1), Fraction(1, 2)]))
    return _problem(A, _eye(d, v), F, _eye(d))


@settings(max_examples=15)
@given(vI_drift_problems())
@example(parse_problem({"variant": "softmax", "d": 1, "A": [[-1]], "V": [[1]], "F": [[1]], "initial": {"cov": [[1]]}}))
def test_vI_sound_against_closed_form(p):
    """V = vI: a PD equilibrium is P*⁻¹ and it is stable iff F is anti-Hurwitz (docs/mathematics.md §6)."""
    ver = find_equilibrium(p)
    json.dumps(ver.to_dict())
    if "certificate" not in ver.evidence:
        assert ver.status == "UNDECIDED"
        return
    assert check(ver.evidence["certificate"]).ok
    S = _known_equilibrium(p)
    assert _in_box(S, ver.evidence)
    anti_hurwitz = np.linalg.eigvals(np.array(p.F, dtype=float)).real.min() > 0
    assert (ver.status == "PROVED") <= anti_hurwitz
    if ver.status != "PROVED":
        assert "stable" not in ver.evidence["certificate"]["data"]["claims"]
