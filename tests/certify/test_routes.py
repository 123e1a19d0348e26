"""Routes and kinds as declarations: registry meta-tests, and the exact V = vI routes
(stationary Σ₀, F = fI brackets, bounded and growth statements for R ⪯ 0) against closed forms."""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import expm

from symbolic_tf.certify.check import check, declaration, kind_names
from symbolic_tf.certify.check.claims import Quantifier
from symbolic_tf.certify.search.routes import SEARCH_MODULES, registry
from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem


def _p(**doc):
    return parse_problem({"variant": "softmax", **doc})


# ------------------------------------------------------------------------------ declarations
def test_routes_are_declared():
    rs = registry()
    names = [r.name for r in rs]
    assert len(names) == len(set(names)) and len(rs) >= 9
    for r in rs:
        assert r.doc  # one line: what it proves and when it applies
        assert set(r.modes) <= {"point", "uniform"} and r.modes
        assert all(x in ("CLUSTERING", "EQUILIBRIUM", "BOUNDED", "GLOBAL_EXISTENCE", "BLOWUP") for x in r.regimes)
    assert [r.order for r in rs] == sorted(r.order for r in rs)


def test_every_declaring_module_is_listed():
    # registry() imports SEARCH_MODULES only: a route declared elsewhere would be silently missing
    from pathlib import Path

    import symbolic_tf.certify.search as search

    root = Path(search.__file__).parent
    declaring = {".".join(p.relative_to(root).with_suffix("").parts) for p in root.rglob("*.py")
                 if "\ndeclare(" in p.read_text(encoding="utf-8")}
    assert declaring == set(SEARCH_MODULES)


@pytest.mark.parametrize("name", kind_names())
def test_kinds_declare_schema_and_derivation(name):
    decl = declaration(name)
    assert isinstance(decl.schema, dict) and callable(decl.derive) and decl.derive.__doc__


# ------------------------------------------------------------------------------ stationary
@pytest.mark.parametrize("doc", [
    {"variant": "softmax", "A": [[1, 0], [0, 1]], "V": [[2, 1], [0, 1]]},
    {"variant": "sinkhorn", "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]},
    {"variant": "l2", "Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]},
])
def test_zero_covariance_is_stationary(doc):
    c = classify(parse_problem({"d": 2, **doc, "initial": {"cov": [[0, 0], [0, 0]]}}))
    assert c.regime == "EQUILIBRIUM" and c.status == "PROVED" and c.rank == 0 and c.route == "stationary"
    assert check(c.certificate).ok


@given(f=st.fractions(min_value=-3, max_value=3).filter(lambda x: x != 0), a=st.fractions(min_value=-2, max_value=2).filter(lambda x: x != 0))
@settings(max_examples=25, deadline=None)
def test_scalar_equilibrium_is_exactly_stationary(f, a):
    # d = 1: ṡ = 2fs + 2as² vanishes at s* = −f/a; if s* > 0 it is an exact equilibrium
    s = -f / a
    if s <= 0:
        return
    c = classify(_p(d=1, A=[[str(a)]], V=[[1]], F=[[str(f)]], initial={"cov": [[str(s)]]}))
    assert c.regime == "EQUILIBRIUM" and c.route == "stationary" and c.claim_data.params["rank"] == 1


# ------------------------------------------------------------------------------ F = fI brackets
def _tstar(f, lam):
    return math.log1p(2 * f / lam) / (2 * f) if f else 1 / lam


@given(f=st.fractions(min_value=-2, max_value=2, max_denominator=8), s=st.fractions(min_value=Fraction(1, 8), max_value=4, max_denominator=8),
       a=st.fractions(min_value=Fraction(1, 4), max_value=2, max_denominator=4))
@settings(max_examples=30, deadline=None)
def test_scalar_drift_bracket_contains_closed_form(f, s, a):
    # d = 1, R = 2a > 0: blow-up iff f ≥ 0 or s·R > 2|f|, at T* = ln(1 + 2f/(sR))/(2f)
    lam = float(s * 2 * a)
    c = classify(_p(d=1, A=[[str(a)]], V=[[1]], F=[[str(f)]], initial={"cov": [[str(s)]]}))
    assert c.status == "PROVED"
    if f < 0 and lam <= -2 * f:
        assert c.regime in ("CLUSTERING", "EQUILIBRIUM")
        return
    assert c.regime == "BLOWUP"
    T = _tstar(float(f), lam)
    assert float(Fraction(c.T_lo)) <= T * (1 + 1e-12) and T * (1 - 1e-12) <= float(Fraction(c.T_hi))


def test_near_threshold_blowup_needs_no_horizon():
    # f = −1, R = 2, s₀ = 1 + 10⁻⁷: T* = ln(1 − 1/s₀)/(−2) ≈ 8.06 (the grid search stopped at the horizon)
    c = classify(_p(d=1, A=[[1]], V=[[1]], F=[[-1]], initial={"cov": [["10000001/10000000"]]}))
    T = math.log1p(-1 / (1 + 1e-7)) / -2
    assert c.regime == "BLOWUP" and float(Fraction(c.T_lo)) <= T <= float(Fraction(c.T_hi))
    bad = copy.deepcopy(c.certificate)
    bad["data"]["G_lo"] = str(Fraction(bad["data"]["G_lo"]) / 2)
    with pytest.raises(CertificationFailed):
        check(bad)


# ------------------------------------------------------------------------------ R ⪯ 0 with drift
def test_singular_sigma0_is_not_an_equilibrium_of_the_pd_attractor():
    # A = −I, V = I, F = I: every Σ₀ ≻ 0 → Σ* = I, but a rank-1 Σ₀ stays rank 1: diag(1, 0) is
    # itself an equilibrium (Σ̇ = 2Σ − 2Σ² = 0), and diag(2, 0) flows to it
    p = _p(d=2, A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]], F=[[1, 0], [0, 1]], initial={"cov": [[1, 0], [0, 0]]})
    c = classify(p)
    assert c.regime == "EQUILIBRIUM" and c.route == "stationary" and c.rank == 1
    p = _p(d=2, A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]], F=[[1, 0], [0, 1]], initial={"cov": [[2, 0], [0, 0]]})
    c = classify(p)
    assert c.status == "PROVED" and c.claim_data.quantifier in (Quantifier.EVERY_PSD, Quantifier.THIS)
    star = c.claim_data.params.get("Sigma_star")
    if star is not None:  # an equilibrium of the rank-1 stratum, never the PD attractor
        from symbolic_tf.exact.rational import qmat

        assert qmat(star).rank() == 1
    # its PD sibling converges to I
    q = _p(d=2, A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]], F=[[1, 0], [0, 1]], initial={"cov": [[2, 0], [0, "1/2"]]})
    c2 = classify(q)
    assert c2.regime == "EQUILIBRIUM" and c2.claim_data.params["Sigma_star"] == [["1", "0"], ["0", "1"]]


@pytest.mark.parametrize("F", [[[1, 2], [-3, -1]], [[0, 1], [-1, 0]], [[0, 0], [0, 0]]])
def test_rotating_drift_is_bounded(F):
    # V = 0: Σ(t) = e^{Ft}Σ₀e^{Fᵀt}; the certificate's X-trace never grows
    p = _p(d=2, A=[[0, 0], [0, 0]], V=[[0, 0], [0, 0]], F=F, initial={"cov": [[2, 1], [1, 1]]})
    c = classify(p)
    if np.allclose(np.array(F, dtype=float), 0):
        assert c.regime == "EQUILIBRIUM"  # stationary
        return
    assert c.regime == "BOUNDED" and c.status == "PROVED"
    X = np.array([[float(Fraction(x)) for x in r] for r in c.certificate["data"]["X"]])
    Ff, S0 = np.array(F, dtype=float), np.array([[2.0, 1], [1, 1]])
    for t in np.linspace(0, 20, 41):
        E = expm(Ff * t)
        assert np.trace(X @ E @ S0 @ E.T) <= np.trace(X @ S0) * (1 + 1e-9)


def test_growth_bound_holds_along_the_flow():
    from scipy.integrate import solve_ivp

    A, F = np.array([[-1.0, 0.5], [0, -2]]), np.array([[1.0, 2], [0, -1]])
    p = _p(d=2, A=[[-1, "1/2"], [0, -2]], V=[[1, 0], [0, 1]], F=[[1, 2], [0, -1]], initial={"cov": [[3, 1], [1, 1]]})
    c = classify(p)
    assert c.status == "PROVED" and c.regime in ("GLOBAL_EXISTENCE", "BOUNDED", "CLUSTERING")
    if c.regime != "GLOBAL_EXISTENCE":
        return
    g = float(Fraction(c.claim_data.params["gamma"]))

    def rhs(t, y):
        S = y.reshape(2, 2)
        return (F @ S + S @ F.T + S @ A @ S + S @ A.T @ S).ravel()

    sol = solve_ivp(rhs, (0, 5), np.array([3.0, 1, 1, 1]), rtol=1e-10, atol=1e-12, dense_output=True)
    for t in np.linspace(0, 5, 26):
        assert np.linalg.norm(sol.sol(t).reshape(2, 2), 2) <= np.linalg.norm(sol.sol(0).reshape(2, 2), 2) * math.exp(g * t) * (1 + 1e-8)


def test_tampered_new_kinds_are_rejected():
    from symbolic_tf.certify.search.riccati import bounded_nsd

    p = _p(d=2, A=[[-1, 0], [0, 0]], V=[[1, 0], [0, 1]], F=[[0, 1], [-1, 0]], initial={"cov": [[1, 0], [0, 1]]})
    # (classify proves more here — the rotation averages R = diag(−2, 0) to −I: Σ → 0, periodic-riccati-vI)
    assert classify(p).certificate["kind"] == "periodic-riccati-vI"
    cert = bounded_nsd(p).evidence["certificate"]
    assert cert["kind"] == "bounded-drift-vI-nsd"
    for mutate in (lambda c: c["data"].__setitem__("X", [["1", "0"], ["0", "-1"]]),
                   lambda c: c.__setitem__("status", "REFUTED"),
                   lambda c: c["claim"].__setitem__("quantifier", "every Σ₀ ≻ 0"),
                   lambda c: c["claim"].__setitem__("subject", "CLUSTERING")):
        bad = copy.deepcopy(cert)
        mutate(bad)
        with pytest.raises(CertificationFailed):
            check(bad)
    st_cert = classify(_p(d=1, A=[[1]], V=[[1]], F=[[-1]], initial={"cov": [[1]]})).certificate
    assert st_cert["kind"] == "stationary"
    bad = copy.deepcopy(st_cert)
    bad["problem"]["initial"]["cov"] = [["2"]]
    bad["problem_hash"] = parse_problem(bad["problem"]).content_hash()
    with pytest.raises(CertificationFailed):
        check(bad)


# ------------------------------------------------------------------------------ invariant stratum
def test_singular_sigma0_decided_on_its_invariant_range():
    """A = −I, V = I, F = I, Σ₀ = diag(2, 0): the range e₁ is invariant, on it ṡ = 2s − 2s²,
    so Σ(t) → diag(1, 0) — the rank-1 equilibrium, not the PD attractor I."""
    from scipy.integrate import solve_ivp

    p = _p(d=2, A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]], F=[[1, 0], [0, 1]], initial={"cov": [[2, 0], [0, 0]]})
    c = classify(p)
    assert c.regime == "EQUILIBRIUM" and c.route == "invariant-stratum" and c.quantifier == "this Σ₀"
    assert c.claim_data.params["Sigma_star"] == [["1", "0"], ["0", "0"]]
    sol = solve_ivp(lambda t, y: (2 * y.reshape(2, 2) - 2 * y.reshape(2, 2) @ y.reshape(2, 2)).ravel(), (0, 30),
                    [2.0, 0, 0, 0], rtol=1e-11, atol=1e-13)
    assert np.allclose(sol.y[:, -1].reshape(2, 2), [[1, 0], [0, 0]], atol=1e-9)
    cert = c.certificate
    for mutate in (lambda c: c["data"].__setitem__("B", [["2"], ["0"]]),
                   lambda c: c["data"]["reduced"]["claim"]["params"].__setitem__("Sigma_star", [["2"]]),
                   lambda c: c["claim"]["params"].__setitem__("Sigma_star", [["1", "0"], ["0", "1"]]),
                   lambda c: c["data"].__setitem__("reduced", {"kind": "stratum"})):
        bad = copy.deepcopy(cert)
        mutate(bad)
        with pytest.raises(CertificationFailed):
            check(bad)


def test_general_V_stratum_blowup_bracket_is_the_reduced_one():
    # V = [[1, 1], [0, 2]] leaves e₁ invariant (V e₁ = e₁); A e₁·e₁ = a: on the line ṡ = 2a s²
    p = _p(d=2, A=[[1, 3], [-2, 1]], V=[[1, 1], [0, 2]], initial={"cov": [[1, 0], [0, 0]]})
    c = classify(p)
    assert c.status == "PROVED" and c.regime == "BLOWUP"
    assert float(Fraction(c.T_lo)) <= 0.5 <= float(Fraction(c.T_hi))  # s(t) = 1/(1 − 2t)


def test_non_invariant_range_is_not_reduced():
    p = _p(d=2, A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]], F=[[1, 1], [1, 1]], initial={"cov": [[1, 0], [0, 0]]})
    c = classify(p)
    assert c.route != "invariant-stratum"
    assert "not invariant" in c.reason or c.status == "PROVED"
