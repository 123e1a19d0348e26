"""Forgeries of ``gaussian-curve-nonconvexity`` certificates (symbolic_tf/certify/check/kinds/gaussian_curve_nonconvexity.py).

Genuine certificate: the library's search for a singular A (``gaussian_convexity_every_curve``,
< 0.1 s, as in tests/soundness/test_tampering.py).  Every forgery re-renders the claim from its data.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import curve_sign_data
from symbolic_tf.certify.search.twisted_gaussian import gaussian_convexity_every_curve
from symbolic_tf.exact.rational import qmat

from .forge import accepts, forge, q, rejects

A3 = [[1, 1, 0], [-1, 0, 0], [0, 0, 0]]


@pytest.fixture(scope="module")
def G():
    return gaussian_convexity_every_curve(A3).evidence["certificate"]


def _with(c, **data):
    d = {**c["data"], **data}
    return forge(c, data=data, params={k: d[k] for k in ("A", "N", "Sigma")})


def _scaled(M, f):
    return [[q(Fr(x) * f) for x in row] for row in M]


def test_genuine_certificate_checks(G):
    assert accepts(G).ok


def test_matrices_of_different_sizes_are_rejected(G):
    rejects(_with(G, N=[["1", "0"], ["0", "1"]]), "square of one size")


def test_singular_sigma_is_rejected(G):
    rejects(_with(G, Sigma=[["1", "0", "0"], ["0", "1", "0"], ["0", "0", "0"]]), "Σ must be symmetric positive definite")


def test_nonsymmetric_sigma_is_rejected(G):
    S = [row[:] for row in G["data"]["Sigma"]]
    S[0][1] = q(Fr(S[0][1]) + Fr(1, 7))
    rejects(_with(G, Sigma=S), "Σ must be symmetric positive definite")


def test_sigma_of_infinite_energy_is_rejected(G):
    rejects(_with(G, Sigma=_scaled(G["data"]["Sigma"], 100)), "energy is not finite")


def test_still_curve_is_rejected(G):
    rejects(_with(G, N=[["0"] * 3 for _ in range(3)]), "displacement is zero")


def test_convex_direction_is_rejected(G):
    """A direction along which E'' ≥ 0 at the same Σ (found with the exact formula)."""
    S = qmat(G["data"]["Sigma"])
    for N in ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 0, 0], [0, 0, 0], [0, 0, 1]], [[1, 0, 0], [0, 0, 0], [0, 0, 0]]):
        sign, xi2 = curve_sign_data(qmat(A3), qmat(N), S)
        if sign >= 0 and xi2 > 0:
            break
    else:
        raise AssertionError("no convex direction among the candidates")
    rejects(_with(G, N=[[q(x) for x in row] for row in N]), "second variation is not negative")


def test_zero_A_is_rejected(G):
    """A = 0: E ≡ ½ is constant, E'' = 0 — nothing nonconvex."""
    rejects(_with(G, A=[["0"] * 3 for _ in range(3)]), "second variation is not negative")
