"""Forgeries of ``stratum`` certificates (symbolic_tf/certify/check/kinds/stratum.py, HYPOTHESES): each violates
one hypothesis of the reduction Σ = BSBᵀ to the invariant range of a singular Σ₀."""
from __future__ import annotations

import copy

import pytest

from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, edited, forge, rejects

# the drift model with V = I, A = −I, F = I from a rank-one Σ₀: the reduced flow Σ̇ = 2Σ − 2Σ² on range e₁
# converges to 1, so Σ(t) → Σ* = diag(1, 0)
DOC = {"variant": "softmax", "d": 2, "A": [["-1", "0"], ["0", "-1"]], "V": [["1", "0"], ["0", "1"]],
       "F": [["1", "0"], ["0", "1"]], "initial": {"cov": [["2", "0"], ["0", "0"]]}}


def _classified(doc, kind):
    """The certificate of ``kind`` from the first point-mode route that proves it (as classify runs them)."""
    from symbolic_tf.certify.search.routes import Context, registry

    problem, ctx = parse_problem(doc), Context(uniform=False)
    for r in registry():
        if "point" not in r.modes or r.applies(problem, ctx) is not None:
            continue
        v = r.search(problem, ctx)
        cert = v.evidence.get("certificate") if v is not None else None
        if v is not None and v.status == "PROVED" and cert and cert["kind"] == kind:
            return cert
    raise AssertionError(f"no route gave a {kind} certificate")


@pytest.fixture(scope="module")
def cert():
    c = _classified(DOC, "stratum")
    assert accepts(c).claim.params == {"Sigma_star": [["1", "0"], ["0", "0"]]}
    assert c["data"]["B"] == [["1"], ["0"]] and c["data"]["S0"] == [["2"]]
    return c


def _doc(base=DOC, **kw):
    return edited(base, **kw)


def test_no_sigma0(cert):
    rejects(forge(cert, problem=_doc(initial=None)), "no Σ₀")


def test_schedule(cert):
    rejects(forge(cert, problem=_doc(phase=[{"duration": "1/2"}, {"duration": 1, "F": [["-1", "0"], ["0", "-1"]]}])),
            "constant parameters only")


def test_not_quadratic(cert):
    rejects(forge(cert, problem=_doc(variant="sinkhorn")), "not a sum of quadratic \\(softmax-type\\) heads")


def test_B_not_full_rank(cert):
    rejects(forge(cert, data={"B": [["0"], ["0"]]}), "B must be d×r of full column rank")
    rejects(forge(cert, data={"B": [["1", "0"], ["0", "1"]], "S0": [["2", "0"], ["0", "0"]]}),
            "B must be d×r of full column rank with 0 < r < d")


def test_S0_not_positive_definite(cert):
    # Σ₀ = 0 = B·0·Bᵀ: S₀ = 0 is not a regular reduced initial covariance
    rejects(forge(cert, problem=_doc(initial={"cov": [["0", "0"], ["0", "0"]]}), data={"S0": [["0"]]}),
            "S0 must be symmetric positive definite")


def test_factor_not_sigma0(cert):
    # the stored S₀ = 2 with the problem's Σ₀ = diag(3, 0): the reduced certificate is about the wrong Σ₀
    rejects(forge(cert, problem=_doc(initial={"cov": [["3", "0"], ["0", "0"]]})), "B·S0·Bᵀ ≠ Σ₀")


def test_range_not_invariant(cert):
    # F e₁ = e₁ + e₂ leaves range(B) = span e₁: Σ(t) does not stay BS(t)Bᵀ
    rejects(forge(cert, problem=_doc(F=[["1", "0"], ["1", "1"]])), "range of Σ₀ is not invariant")
    rejects(forge(cert, problem=_doc(V=[["1", "0"], ["1", "1"]])), "range of Σ₀ is not invariant")


def test_reduced_about_other_problem(cert):
    # A = diag(−2, −1): the reduced flow is Σ̇ = 2Σ − 4Σ² (Σ* = 1/2), the stored reduced certificate is about −1
    rejects(forge(cert, problem=_doc(A=[["-2", "0"], ["0", "-1"]])), "not about the reduced problem")


def test_reduced_is_stratum(cert):
    rejects(forge(cert, data={"reduced": copy.deepcopy(cert)}), "must be a \\(non-stratum\\) certificate")


def test_reduced_fails_check(cert):
    sub = copy.deepcopy(cert["data"]["reduced"])
    sub["data"]["P_star"] = [["2"]]   # P* = Σ*⁻¹ no longer solves the reduced Lyapunov equation
    rejects(forge(cert, data={"reduced": sub}), "the reduced certificate fails its check")
    sub = forge(cert["data"]["reduced"], params={"Sigma_star": [["2"]]})   # its claim changed, text re-rendered
    rejects(forge(cert, data={"reduced": sub}, params={"Sigma_star": [["2", "0"], ["0", "0"]]}),
            "the reduced certificate fails its check")


def test_reduced_does_not_cover(cert):
    # a genuine Krawczyk enclosure of the reduced equilibrium: a property of the parameters, about no Σ₀
    from symbolic_tf.certify.search._equilibrium_krawczyk import find_equilibrium

    ver = find_equilibrium(parse_problem(cert["data"]["reduced"]["problem"]))
    assert ver.status == "PROVED", ver.reason
    sub = ver.evidence["certificate"]
    assert accepts(sub).claim.quantifier.value == "no Σ₀"
    rejects(forge(cert, data={"reduced": sub}), "does not cover the reduced Σ₀")


def test_claim_not_mapped(cert):
    # Σ* must be BS*Bᵀ = diag(1, 0); stating the reduced Σ* padded elsewhere, or the reduced quantifier, is refused
    rejects(forge(cert, params={"Sigma_star": [["0", "0"], ["0", "1"]]}), "not the one the data prove.*\\[1, 0; 0, 0\\]")
    rejects(forge(cert, quantifier="every Σ₀ ≻ 0"), "not the one the data prove")
    rejects(forge(cert, subject="CLUSTERING", params={"rank": 1}), "not the one the data prove")
