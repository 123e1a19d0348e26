"""Forgeries of ``twisted-gaussian-convexity`` certificates (symbolic_tf/certify/check/kinds/twisted_gaussian_convexity.py).

Genuine certificate: ``symmetric_convexity_certificate`` for A = [[2, ½], [½, 1]] (< 0.2 s, as in
tests/soundness/test_tampering.py).  Every forgery re-renders the claim (A and its definiteness label).
"""
from __future__ import annotations

import pytest

from symbolic_tf.certify.search.twisted_gaussian import symmetric_convexity_certificate

from .forge import accepts, forge, rejects


@pytest.fixture(scope="module")
def G():
    return symmetric_convexity_certificate([[2, "1/2"], ["1/2", 1]])


def _with(c, label=None, **data):
    d = {**c["data"], **data}
    return forge(c, data=data, params={"A": d["A"], "definite": label or c["claim"]["params"]["definite"]})


def test_genuine_certificate_checks(G):
    assert accepts(G).ok
    assert G["claim"]["params"]["definite"] == "positive"


def test_singular_semidefinite_A_checks(G):
    """The semidefinite branch is genuine too (Sylvester's identity replaces R⁻¹)."""
    assert accepts(_with(G, "positive semidefinite", A=[["1", "1"], ["1", "1"]])).ok


def test_other_theorem_is_rejected(G):
    rejects(_with(G, theorem="twisted-semidefinite-determinant"), "the claim needs theorem")


def test_other_theorem_hash_is_rejected(G):
    rejects(_with(G, theorem_sha256="0" * 64), "another SHA-256")


def test_non_square_A_is_rejected(G):
    rejects(_with(G, A=[["2", "1/2"]]), "square of size 1…12")


def test_nonsymmetric_A_is_rejected(G):
    rejects(_with(G, A=[["2", "1"], ["0", "1"]]), "A must be symmetric")


def test_indefinite_A_is_rejected(G):
    rejects(_with(G, A=[["1", "0"], ["0", "-1"]]), "A must be definite, or semidefinite and singular")


def test_indefinite_singular_A_is_rejected(G):
    rejects(_with(G, A=[["1", "0", "0"], ["0", "-1", "0"], ["0", "0", "0"]]),
            "A must be definite, or semidefinite and singular")


@pytest.mark.parametrize("label", ["negative", "positive semidefinite"])
def test_wrong_definiteness_label_is_rejected(G, label):
    rejects(_with(G, label), "not the one the data prove")
