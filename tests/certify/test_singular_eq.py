"""Clustering onto a rank-deficient equilibrium of the drift model (kind
``tube-singular-equilibrium``): the 40-digit reference settles on a singular limit near the
certified centre, the claim's rank is d − 1, and tampered certificates are rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated.tube_singular_equilibrium import find_singular_equilibrium
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

DOC = {"variant": "softmax", "d": 2, "A": [["-2", "2/3"], ["3/2", 1]], "V": [["1/4", 2], ["-1/2", "1/2"]],
       "F": [[0, "-5/3"], ["-2/3", "-3/2"]], "initial": {"cov": [["41/36", 2], [2, "21/4"]]}}


@pytest.fixture(scope="module")
def verdict():
    return find_singular_equilibrium(parse_problem(DOC), seconds=120.0)


def test_rank_one_limit_matches_the_reference(verdict):
    assert verdict.status == "PROVED" and verdict.evidence["rank"] == 1, verdict.reason
    ref = reference_solve_problem(parse_problem(DOC), T=60, times=[60], dps=40)
    S = ref.Sigma[0]
    assert abs(mpmath.det(S)) < 1e-20 * (S[0, 0] + S[1, 1]) ** 2     # the limit is singular
    centre = verdict.evidence["certificate"]["data"]["Sigma_star"]
    assert all(abs(S[i, j] - mpmath.mpf(Fraction(centre[i][j]).numerator) / Fraction(centre[i][j]).denominator)
               < 1e-9 for i in range(2) for j in range(2))


def test_not_claimed_without_drift_or_for_a_full_rank_limit():
    no_drift = {k: v for k, v in DOC.items() if k != "F"}
    assert find_singular_equilibrium(parse_problem(no_drift)).status == "UNDECIDED"
    # a positive definite limit (drift F = −I, V = −I): not rank d − 1
    pd = dict(DOC, V=[[-1, 0], [0, -1]], A=[[1, 0], [0, 1]], F=[[1, 0], [0, 1]])
    assert find_singular_equilibrium(parse_problem(pd)).status == "UNDECIDED"


@pytest.mark.parametrize("what", ["Sigma_star", "rho", "mu", "steps"])
def test_tampered_certificate_is_rejected(verdict, what):
    c = copy.deepcopy(verdict.evidence["certificate"])
    d = c["data"]
    if what == "Sigma_star":
        d["Sigma_star"][0][0] = str(Fraction(d["Sigma_star"][0][0]) + Fraction(1, 10))
    elif what == "rho":
        d["rho"] = str(Fraction(d["rho"]) * 10 ** 8)
    elif what == "mu":
        d["mu"] = str(Fraction(d["mu"]) * 1000)
    else:
        d["steps"] = d["steps"][:2]
    with pytest.raises(CertificationFailed):
        check(Certificate.from_dict(c))


def test_no_claim_at_a_saddle_reached_on_its_stable_manifold():
    """V = 2I, F = −2I, A + Aᵀ = diag(2, 0), Σ₀ = [[1, 1], [1, 5]]: with Σ = [[a, b], [b, c]] the flow is
    a' = 4a(a − 1), b' = 4b(a − 1), c' = 4(b² − c) (written out by hand), so a ≡ 1, b ≡ 1 exactly and
    Σ → [[1, 1], [1, 1]] of rank one — but that equilibrium is a saddle (a' has slope +4 there; the
    b-direction is neutral), so its linearisation has eigenvalues 4, 0, −4 and no contracting
    ellipsoid exists: the search refuses instead of failing on the singular Newton step."""
    import numpy as np

    a, b = 1.0, 1.0
    J = np.array([[4 * (2 * a - 1), 0, 0], [4 * b, 4 * (a - 1), 0], [0, 8 * b, -4]])   # ∂(a', b', c')/∂(a, b, c)
    assert sorted(np.linalg.eigvals(J).real) == [-4.0, 0.0, 4.0]
    doc = {"variant": "softmax", "d": 2, "A": [["1", "1/2"], ["-1/2", "0"]], "V": [["2", "0"], ["0", "2"]],
           "F": [["-2", "0"], ["0", "-2"]], "initial": {"cov": [["1", "1"], ["1", "5"]]}}
    v = find_singular_equilibrium(parse_problem(doc), seconds=5.0)
    assert v.status == "UNDECIDED" and "not hyperbolically attracting" in v.reason
