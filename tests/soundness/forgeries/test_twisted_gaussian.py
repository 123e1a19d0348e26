"""Forgeries of ``twisted-gaussian-nonconvexity`` certificates (symbolic_tf/certify/check/kinds/twisted_gaussian_nonconvexity.py).

Genuine certificate: the library's search for A = diag(1, −1), V = I (``twisted_gaussian_witness``,
< 0.2 s, as in tests/soundness/test_tampering.py).  Every forgery re-renders the claim from its data.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data
from symbolic_tf.certify.search.twisted_gaussian import twisted_gaussian_witness
from symbolic_tf.exact.rational import qmat

from .forge import accepts, forge, q, rejects


@pytest.fixture(scope="module")
def G():
    return twisted_gaussian_witness([[1, 0], [0, -1]], [[1, 0], [0, 1]]).evidence["certificate"]


def _with(c, **data):
    d = {**c["data"], **data}
    return forge(c, data=data, params={k: d[k] for k in ("A", "V", "Sigma", "B")})


def test_genuine_certificate_checks(G):
    assert accepts(G).ok
    # independently, in floats: E(Σ_s) = ½det(I − AᵀΣ_sAΣ_s)^(-1/2) is concave at s = 0 along the geodesic
    import numpy as np

    A, V, S, B = (np.array([[float(Fr(x)) for x in r] for r in G["data"][k]]) for k in ("A", "V", "Sigma", "B"))
    P = lambda s: np.eye(2) + s * V @ np.linalg.inv(A) @ B
    E = lambda s: 0.5 * np.linalg.det(np.eye(2) - A.T @ (P(s) @ S @ P(s).T) @ A @ (P(s) @ S @ P(s).T)) ** -0.5
    h = 1e-4
    assert (E(h) - 2 * E(0) + E(-h)) / h ** 2 < -1e-3


def test_matrices_of_different_sizes_are_rejected(G):
    rejects(_with(G, V=[["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]), "square of one size")


def test_singular_A_is_rejected(G):
    rejects(_with(G, A=[["1", "0"], ["0", "0"]]), "A must be invertible")


def test_nonsymmetric_B_is_rejected(G):
    rejects(_with(G, B=[["0", "-1"], ["0", "0"]]), "B symmetric")


def test_indefinite_sigma_is_rejected(G):
    rejects(_with(G, Sigma=[["17/32", "0"], ["0", "-1/32"]]), "Σ must be symmetric positive definite")


def test_sigma_of_infinite_energy_is_rejected(G):
    S = [[q(Fr(x) * 4) for x in row] for row in G["data"]["Sigma"]]  # (17/8)² > 1: Σ⁻¹ − AᵀΣA ⊁ 0
    rejects(_with(G, Sigma=S), "energy is not finite")


def test_zero_displacement_is_rejected(G):
    rejects(_with(G, B=[["0", "0"], ["0", "0"]]), "displacement is zero")


def test_zero_value_matrix_is_rejected(G):
    """V = 0: N = VA⁻¹B = 0, no motion at all."""
    rejects(_with(G, V=[["0", "0"], ["0", "0"]]), "displacement is zero")


def test_convex_direction_is_rejected(G):
    d = G["data"]
    A, V, S = qmat(d["A"]), qmat(d["V"]), qmat(d["Sigma"])
    for B in ([[1, 0], [0, 1]], [[1, 0], [0, 0]], [[0, 0], [0, 1]], [[1, 1], [1, 1]]):
        sign, xi2 = second_variation_sign_data(A, V, S, qmat(B))
        if sign >= 0 and xi2 > 0:
            break
    else:
        raise AssertionError("no convex direction among the candidates")
    rejects(_with(G, B=[[q(x) for x in row] for row in B]), "second variation is not negative")
