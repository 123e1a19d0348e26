"""Forgeries of ``tube-singular-equilibrium`` (kinds/singular_eq.py): this Σ₀ converges to an equilibrium
of rank d − 1 (drift + general V), through a validated tube into a contracting ellipsoid on which
det Σ decays and e_{d−1}(Σ) stays positive.  One forgery per hypothesis of the argument, every other
field kept consistent, and the multi-field forgeries tried while hunting for holes: all are rejected
but one, a singular Σ₀, whose claim (a rank-one limit) is true — shown here by integration.

The genuine certificate is the tampering suite's, found by the library's search in a tenth of a second.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, edited, forge, q, rejects

DOC = {"variant": "softmax", "d": 2, "A": [["-2", "2/3"], ["3/2", "1"]], "V": [["1/4", "2"], ["-1/2", "1/2"]],
       "F": [["0", "-5/3"], ["-2/3", "-3/2"]], "initial": {"cov": [["1/2", "1/4"], ["1/4", "1/2"]]}}


@pytest.fixture(scope="module")
def cert():
    from symbolic_tf.certify.search.validated.tube_singular_equilibrium import find_singular_equilibrium

    v = find_singular_equilibrium(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    assert c["kind"] == "tube-singular-equilibrium" and c["claim"]["params"] == {"rank": 1}
    accepts(c)
    return c


def _problem(c, **changes):
    return edited(c["problem"], **changes)


def _fr(M):
    return [[Fraction(x) for x in row] for row in M]


def _residual_norm(c) -> Fraction:
    """rᵀWr for r = svec G(Sigma_star), G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ, exactly."""
    S, W = _fr(c["data"]["Sigma_star"]), _fr(c["data"]["W"])
    V, A, F = (_fr(c["problem"][k]) for k in ("V", "A", "F"))
    d = len(S)

    def mul(P, R):
        return [[sum(P[i][k] * R[k][j] for k in range(d)) for j in range(d)] for i in range(d)]

    M = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(mul(F, S), mul(mul(mul(V, S), A), S))]
    r = [M[i][j] + M[j][i] for i in range(d) for j in range(i, d)]
    return sum(r[i] * W[i][j] * r[j] for i in range(len(r)) for j in range(len(r)))


# ------------------------------------------------------------------ one forgery per hypothesis
def test_singular_other_variant(cert):
    rejects(forge(cert, problem=_problem(cert, variant="masked")), r"not the quadratic softmax-type field")


def test_singular_schedule(cert):
    sched = _problem(cert, phase=[{"duration": "1/1000"}, {"duration": 1, "F": [["-1", "0"], ["0", "-1"]]}])
    rejects(forge(cert, problem=sched), r"covers constant parameters only")


def test_singular_sigma0_indefinite(cert):
    """An indefinite Σ₀ cannot even be embedded: the problem's parser decides Σ₀ ⪰ 0 exactly (the hash
    cannot be recomputed for it, so the forger's best is the genuine hash)."""
    c = copy.deepcopy(cert)
    c["problem"]["initial"] = {"cov": [["1/2", "1"], ["1", "1/2"]]}
    rejects(c, r"not positive semidefinite")


def test_singular_tube_step_too_long(cert):
    steps = cert["data"]["steps"]
    rejects(forge(cert, data={"steps": [steps[0], steps[-1]]}), r"a priori \(Picard\) enclosure fails on step 1")


def test_singular_W_indefinite(cert):
    W = copy.deepcopy(cert["data"]["W"])
    W[-1][-1] = q(-Fraction(W[-1][-1]))
    rejects(forge(cert, data={"W": W}), r"W is not positive definite")


def test_singular_ellipsoid_leaves_the_box(cert):
    R = list(cert["data"]["R"])
    R[0] = q(Fraction(R[0]) / 4)     # a smaller box only helps every other check
    rejects(forge(cert, data={"R": R}), r"ellipsoid zᵀWz ≤ rho leaves the box in coordinate 0")


def test_singular_minors_not_positive_over_the_box(cert):
    """d = 2: e₁ = tr Σ; a radius 1 on Σ₂₂ (the ellipsoid still inside) lets tr Σ reach below 0."""
    R = list(cert["data"]["R"])
    R[2] = "1"
    rejects(forge(cert, data={"R": R}), r"e_\{d−1\}\(Σ\) > 0 is not verified over the box")


def test_singular_det_not_decaying_over_the_box(cert):
    """A radius 1 on Σ₁₂ (tr Σ unchanged): tr(F + VΣA), whose Σ₁₂ coefficient is (AV)₁₂ + (AV)₂₁ ≠ 0, changes sign."""
    R = list(cert["data"]["R"])
    R[1] = "1"
    rejects(forge(cert, data={"R": R}), r"\(log det Σ\)˙ = 2 tr\(F \+ Σ_h C_hΣA_h\) < 0 is not verified")


def test_singular_contraction_rate_too_large(cert):
    mu = Fraction(cert["data"]["mu"])
    rejects(forge(cert, data={"mu": q(8 * mu)}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")


def test_singular_residual_too_large(cert):
    """mu lowered below √(rᵀWr/rho) (the contraction only gets easier)."""
    rWr, rho = _residual_norm(cert), Fraction(cert["data"]["rho"])
    assert rWr > 0
    mu = Fraction(1, 2 ** 80)
    while mu * mu * rho < rWr:
        mu *= 2
    mu /= 4
    assert mu * mu * rho < rWr and mu < Fraction(cert["data"]["mu"])
    rejects(forge(cert, data={"mu": q(mu)}), r"centre's residual is too large for the contraction rate")


def test_singular_tube_ends_outside_the_ellipsoid(cert):
    rejects(forge(cert, data={"steps": cert["data"]["steps"][:2]}), r"tube's end is not inside the certified ellipsoid")


# ------------------------------------------------------------------ the hunt
@pytest.mark.parametrize("change", ["sigma0-zero", "sigma0-doubled", "drift-dropped", "drift-negated", "scale",
                                    "V-negated", "multihead"])
def test_singular_data_reused_with_another_problem(cert, change):
    p = cert["problem"]
    cov = _fr(p["initial"]["cov"])
    new = {
        "sigma0-zero": lambda: _problem(cert, initial={"cov": [["0", "0"], ["0", "0"]]}),
        "sigma0-doubled": lambda: _problem(cert, initial={"cov": [[q(2 * x) for x in row] for row in cov]}),
        "drift-dropped": lambda: _problem(cert, F=None),
        "drift-negated": lambda: _problem(cert, F=[[q(-Fraction(x)) for x in row] for row in p["F"]]),
        "scale": lambda: _problem(cert, scale="1/2"),
        "V-negated": lambda: _problem(cert, V=[[q(-Fraction(x)) for x in row] for row in p["V"]]),
        "multihead": lambda: {"variant": "multihead", "d": 2, "F": p["F"], "initial": p["initial"],
                              "heads": [{"A": p["A"], "V": p["V"]}, {"A": p["A"], "V": p["V"]}]},
    }[change]()
    rejects(forge(cert, problem=new), r"^tube-singular-equilibrium certificate: ")


def test_singular_sigma0_of_rank_one_is_accepted_and_true(cert):
    """The hunt's one acceptance: the genuine data with Σ₀ = e₁e₁ᵀ.  Sound: Σ(t) = Φ(t)Σ₀Φ(t)ᵀ keeps rank 1,
    and the tube still ends in 𝓔; an independent DOP853 integration (tests/soundness/oracle.py) settles on
    a rank-one limit near Sigma_star."""
    doc = _problem(cert, initial={"cov": [["1", "0"], ["0", "0"]]})
    forged = forge(cert, problem=doc)
    accepts(forged)
    res = simulate(parse_problem(doc), 60.0)
    assert res.status == "reached", res.message
    S = res.Sigma
    ev = np.linalg.eigvalsh(S)
    star = np.array(_fr(cert["data"]["Sigma_star"]), dtype=float)
    assert ev[0] < 1e-8 * ev[1] and ev[1] > 1e-3
    assert np.abs(S - star).max() < 1e-6
