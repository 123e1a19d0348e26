"""Twisted geodesic convexity of the softmax energy on Gaussians (issue 20, item 4)."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp

from symbolic_tf.certify.check import check
from symbolic_tf.exact.definiteness import definiteness
from symbolic_tf.exact.rational import qmat
from symbolic_tf.certify.kinds.twisted_gaussian import second_variation_sign_data
from symbolic_tf.certify.twisted_gaussian import rank_one_second_variation, twisted_gaussian_witness


def _energy_along(A, V, S, B):
    s = sp.Symbol("s")
    N = V * A.inv() * B
    P = sp.eye(A.rows) + s * N
    Ss = P * S * P.T
    return s, sp.Rational(1, 2) / sp.sqrt((sp.eye(A.rows) - A.T * Ss * A * Ss).det())


def _rand(rng, d, den=2):
    return sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-3, 3), den))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_exact_sign_term_is_4E_over_E(d):
    """E''(0)/E(0) = ¼(t₁² + 2t₂ − 2t₃), exactly, against SymPy's derivative of the determinant formula."""
    rng = random.Random(d)
    done = 0
    while done < 3:
        A, V, L_, B0 = (_rand(rng, d) for _ in range(4))
        if A.det() == 0:
            continue
        S = (L_ * L_.T + sp.eye(d)) / 8
        B = B0 + B0.T
        if not definiteness(qmat(S.inv() - A.T * S * A)).pd:
            continue
        s, E = _energy_along(A, V, S, B)
        ratio = sp.nsimplify(sp.simplify(sp.diff(E, s, 2).subs(s, 0) / E.subs(s, 0)))
        term, _ = second_variation_sign_data(qmat(A), qmat(V), qmat(S), qmat(B))
        assert sp.Rational(int(term.p), int(term.q)) / 4 == ratio
        done += 1


def test_rank_one_formula_matches_the_determinant_formula():
    s = sp.Symbol("s")
    A = sp.Matrix([[1, sp.Rational(1, 2)], [0, -2]])
    V = sp.Matrix([[2, 1], [0, 1]])
    u, v, eps = sp.Matrix([1, 2]), sp.Matrix([-1, 1]), sp.Rational(1, 20)
    w = V * A.inv() * v
    us = u + s * w
    E = sp.Rational(1, 2) / sp.sqrt((sp.eye(2) - A.T * (eps * us * us.T) * A * (eps * us * us.T)).det())
    first, g = rank_one_second_variation(A.tolist(), V.tolist(), list(u), list(v), eps)
    exact = sp.diff(E, s, 2).subs(s, 0)
    assert sp.simplify(exact - sp.Rational(first.numerator, first.denominator) * sp.Rational(g.numerator, g.denominator) ** sp.Rational(-5, 2)) == 0


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_semidefinite_symmetric_part_gives_nonnegative_rank_one_second_variation(d):
    rng = random.Random(10 + d)
    for _ in range(30):
        L_ = _rand(rng, d)
        K = _rand(rng, d) - _rand(rng, d).T
        A = -(L_ * L_.T + sp.eye(d) / 4) + (K - K.T) / 2   # A + Aᵀ ≺ 0, any skew part
        V = _rand(rng, d) + 3 * sp.eye(d)
        if V.det() == 0:
            continue
        u = [sp.Rational(rng.randint(-3, 3), 2) for _ in range(d)]
        v = [sp.Rational(rng.randint(-3, 3), 2) for _ in range(d)]
        if not any(u):
            continue
        q = (sp.Matrix(u).T * A * sp.Matrix(u))[0, 0]
        eps = Fraction(1, 2) / max(abs(Fraction(int(q.p), int(q.q))), Fraction(1))
        first, g = rank_one_second_variation(A.tolist(), V.tolist(), u, v, eps)
        assert g > 0 and first >= 0


@pytest.mark.parametrize("d", [2, 3, 4])
def test_indefinite_symmetric_part_has_a_certified_witness(d):
    rng = random.Random(20 + d)
    found = 0
    while found < 2:
        A, V = _rand(rng, d), _rand(rng, d) + 2 * sp.eye(d)
        dA = definiteness(qmat(A + A.T))
        if A.det() == 0 or V.det() == 0 or dA.psd or dA.nsd:
            continue
        ver = twisted_gaussian_witness(A.tolist(), V.tolist())
        assert ver.status == "PROVED", ver.reason
        res = check(ver.evidence["certificate"])
        assert res.status == "PROVED"
        found += 1


def test_tampered_witness_is_rejected():
    from symbolic_tf.spec.errors import CertificationFailed

    ver = twisted_gaussian_witness([[1, 0], [0, -1]], [[1, 0], [0, 1]])
    cert = ver.evidence["certificate"]
    bad = {**cert, "data": {**cert["data"], "B": [["0", "0"], ["0", "0"]]}}
    with pytest.raises(CertificationFailed):
        check(bad)
