"""Rotating collapse (kind ``tube-rotation-collapse``, d = 2, no drift): Σ(t) → 0 while the top
eigenvector turns.  Cross-checked against an independent high-accuracy integration; invariant
under Σ₀ ↦ cΣ₀ and a rational orthogonal change of basis; refuses a rotating blow-up; tampered
certificates are rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.validated._tube_rotation_collapse import find_rotation_collapse
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

A0 = [[-1, "-1/4"], ["3/2", "-1/2"]]            # A + Aᵀ ≺ 0
V0 = [["1/3", -2], [1, "1/4"]]                  # no real eigenvector: the rank-one circle has no rest point
S0 = [["17/4", 4], [4, "33/4"]]


def _p(A, V, S):
    return parse_problem({"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"cov": S}})


def _fl(M):
    return np.array([[float(Fraction(str(x))) for x in r] for r in M])


@pytest.fixture(scope="module")
def proved():
    v = find_rotation_collapse(_p(A0, V0, S0), seconds=60.0)
    assert v.status == "PROVED", v.reason
    return v


def test_claim_is_collapse_and_matches_integration(proved):
    assert proved.evidence["regime"] == "CLUSTERING" and proved.evidence["rank"] == 0
    # independent evidence: the trace decays and the eigenvector keeps turning
    A, V = _fl(A0), _fl(V0)

    def rhs(_t, y):
        S = y.reshape(2, 2)
        H = V @ S @ A @ S
        return (H + H.T).ravel()

    ts = [0, 10, 40, 160]
    sol = solve_ivp(rhs, (0, 160), _fl(S0).ravel(), t_eval=ts, method="DOP853", rtol=1e-12, atol=1e-14)
    tr = [np.trace(y.reshape(2, 2)) for y in sol.y.T]
    assert all(a > b for a, b in zip(tr, tr[1:])) and tr[-1] < 0.05 * tr[0]
    vecs = [np.linalg.eigh(y.reshape(2, 2))[1][:, -1] for y in sol.y.T]
    assert min(abs(vecs[1] @ vecs[2]), abs(vecs[2] @ vecs[3])) < 0.999   # still turning


def test_scaling_and_change_of_basis():
    S3 = [[str(3 * Fraction(str(x))) for x in r] for r in S0]
    assert find_rotation_collapse(_p(A0, V0, S3), seconds=60.0).status == "PROVED"
    O = [[Fraction(3, 5), Fraction(-4, 5)], [Fraction(4, 5), Fraction(3, 5)]]

    def conj(M):
        M = [[Fraction(str(x)) for x in r] for r in M]
        OM = [[sum(O[i][k] * M[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
        return [[str(sum(OM[i][k] * O[j][k] for k in range(2))) for j in range(2)] for i in range(2)]

    v = find_rotation_collapse(_p(conj(A0), conj(V0), conj(S0)), seconds=60.0)
    assert v.status == "PROVED", v.reason


def test_rotating_blowup_is_not_a_collapse():
    # A = I, V = I + 2J blows up at T* = 1/4 (see test_rotation.py): the growth rate is positive
    v = find_rotation_collapse(_p([[1, 0], [0, 1]], [[1, -2], [2, 1]], [[2, 0], [0, 1]]))
    assert v.status == "UNDECIDED" and "not negative" in v.reason


@pytest.mark.parametrize("field, value", [("D0", "1/2"), ("phi_a", None), ("steps", None), ("max_depth", 0)])
def test_tampered_certificates_are_rejected(proved, field, value):
    d = copy.deepcopy(proved.evidence["certificate"])
    check(Certificate.from_dict(d))
    if field == "phi_a":
        d["data"]["phi_a"][0] = str(Fraction(d["data"]["phi_a"][0]) + 1)
    elif field == "steps":
        d["data"]["steps"] = d["data"]["steps"][:2]
    else:
        d["data"][field] = value
    with pytest.raises(CertificationFailed):
        check(Certificate.from_dict(d))
