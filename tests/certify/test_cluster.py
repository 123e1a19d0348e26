"""Clustering of this Σ₀ to a rank-one limit (kind ``tube-cluster``): the 40-digit reference
solution approaches the certified isotropic line and loses rank; the verdict survives a rational
orthogonal change of basis; tampered certificates are rejected; a blowing-up or non-indefinite
problem is never given this claim."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated._tube_cluster import find_cluster
from symbolic_tf.numeric.reference import reference_solve_problem
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

A = [["1/2", -1], ["1/2", "-1/3"]]
V = [[0, "-2/3"], ["3/2", "-1/2"]]
S0 = [[1, "1/4"], ["1/4", "1/2"]]


def _p(A, V, S0):
    return parse_problem({"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": S0}})


def _find(p):
    return find_cluster(p, seconds=120.0)


def test_reference_solution_approaches_a_rank_one_limit():
    v = _find(_p(A, V, S0))
    assert v.status == "PROVED" and v.evidence["rank"] == 1, v.reason
    ref = reference_solve_problem(_p(A, V, S0), T=60, times=[30, 60], dps=40)
    mpmath.mp.dps = 40
    S30, S60 = ref.Sigma
    # the limit exists (the solution settles) and has rank one: det/tr² → 0, tr stays away from 0
    assert mpmath.norm(S60 - S30) < 1e-6 * mpmath.norm(S60)
    assert mpmath.det(S60) / (S60[0, 0] + S60[1, 1]) ** 2 < 1e-8
    # and its direction is isotropic for A + Aᵀ: wᵀ(A + Aᵀ)w = 0 for the top eigenvector w
    As = mpmath.matrix([[Fraction(x) for x in r] for r in A])
    As = As + As.T
    X = S60 / (S60[0, 0] + S60[1, 1])
    assert abs((As[0, 0] * X[0, 0] + 2 * As[0, 1] * X[0, 1] + As[1, 1] * X[1, 1])) < 1e-6


def test_orthogonal_change_of_basis():
    O = [[Fraction(3, 5), Fraction(-4, 5)], [Fraction(4, 5), Fraction(3, 5)]]

    def conj(M):
        M = [[Fraction(x) for x in r] for r in M]
        OM = [[sum(O[i][k] * M[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
        return [[str(sum(OM[i][k] * O[j][k] for k in range(2))) for j in range(2)] for i in range(2)]

    v = _find(_p(conj(A), conj(V), conj(S0)))
    assert v.status == "PROVED" and v.evidence["rank"] == 1, v.reason


@pytest.mark.parametrize("A_, V_, why", [
    ([[1, 0], [0, 1]], [[1, 0], [0, 1]], "not indefinite"),      # A + Aᵀ ≻ 0: no isotropic line
    ([[1, 0], [0, -1]], [[1, 0], [0, 1]], "blows up"),           # V = I, A + Aᵀ indefinite: blow-up
])
def test_no_clustering_claim_where_it_is_false(A_, V_, why):
    assert _find(_p(A_, V_, [[1, 0], [0, 1]])).status == "UNDECIDED"


@pytest.fixture(scope="module")
def cert():
    v = _find(_p(A, V, S0))
    assert v.status == "PROVED", v.reason
    return v.evidence["certificate"]


@pytest.mark.parametrize("what", ["step", "X_star", "rho", "mu", "kappa"])
def test_tampered_certificate_is_rejected(cert, what):
    c = copy.deepcopy(cert)
    d = c["data"]
    if what == "step":
        # one giant step (a wrong step size): its Picard enclosure cannot validate
        d["steps"] = d["steps"][:2] + [str(Fraction(d["steps"][-1]) * 1000)]
    elif what == "X_star":   # the ellipsoid moved off the isotropic point
        d["X_star"][0][0] = str(Fraction(d["X_star"][0][0]) + Fraction(1, 10))
    elif what == "rho":
        d["rho"] = str(Fraction(d["rho"]) * 10 ** 8)
    elif what == "mu":
        d["mu"] = str(Fraction(d["mu"]) * 1000)
    else:
        d["kappa"] = "-1"
    with pytest.raises(CertificationFailed):
        check(Certificate.from_dict(c))
