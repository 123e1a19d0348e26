"""Forgeries of ``nonconvexity-witness`` certificates (symbolic_tf/certify/check/kinds/nonconvexity_witness.py).

Genuine certificate: the library's search (``find_nonconvexity_witness(-1, optimise=False)``, < 1 s):
A = −1 in d = 1, μ = ½δ₀ + ½δ₀ with ξ = (1, 0) — the mass split μ_s = ½δ_s + ½δ₀, a geodesic
of W₂ along which E(μ_s) = ⅛(e^{−s²} + 3), so d²E/ds²(0) = −1/4 and ∫∣ξ∣²dμ = 1/2.
"""
from __future__ import annotations

import math

import pytest

from symbolic_tf.certify.search.convexity import find_nonconvexity_witness

from .forge import accepts, forge, rejects


@pytest.fixture(scope="module")
def G():
    c = find_nonconvexity_witness(-1, optimise=False).evidence["certificate"]
    assert c["data"]["value_upper"] == "-1/4" and c["data"]["xi_norm2"] == "1/2"
    return c


def _claim(c, **data):
    """Data changed, the claim re-rendered from them (A and lambda_bound)."""
    d = {**c["data"], **data}
    return forge(c, data=data, params={"A": d["A"], "lambda_bound": d["lambda_bound"]})


def test_genuine_certificate_checks(G):
    assert accepts(G).ok
    # the closed form of the docstring, independently: E(μ_s) = (e^{−s²} + 3)/8
    h = 1e-4
    E = lambda s: (math.exp(-s * s) + 3) / 8
    assert abs((E(h) - 2 * E(0) + E(-h)) / h ** 2 + 0.25) < 1e-6


def test_displacements_of_another_count_are_rejected(G):
    rejects(_claim(G, displacements=[["1"]]), "one displacement per position")


def test_non_square_A_is_rejected(G):
    rejects(_claim(G, A=[["-1", "0"]]), "A must be square|inconsistent dimensions")


def test_too_many_particles_are_rejected(G):
    rejects(_claim(G, positions=[["0"]] * 257, displacements=[["1"]] * 257), "at most 256 particles")


def test_upper_bound_below_the_second_variation_is_rejected(G):
    """−1/2 < −1/4 = d²E/ds²: a stronger claim (λ_bound = −1) than the witness shows."""
    rejects(_claim(G, value_upper="-1/2", lambda_bound="-1"), "not below the claimed upper bound")


def test_other_A_with_the_same_numbers_is_rejected(G):
    """A = −1/2 (claim and data): d²E/ds² = −1/8 > −1/4."""
    rejects(_claim(G, A=[["-1/2"]]), "not below the claimed upper bound")


def test_nonnegative_upper_bound_is_rejected(G):
    """A = +1: d²E/ds² = +1/4 — a true statement for λ > 1/2, but no nonconvexity."""
    rejects(_claim(G, A=[["1"]], value=["0.25", "0"], value_upper="1/4", lambda_bound="1/2"),
            "upper bound is not negative")


def test_value_ball_elsewhere_is_rejected(G):
    rejects(_claim(G, value=["-0.3", "0"]), "value ball does not contain")


def test_wrong_displacement_norm_is_rejected(G):
    """∫∣ξ∣² stated 1 instead of 1/2, λ_bound = −1/4 consistently: a stronger claim."""
    rejects(_claim(G, xi_norm2="1", lambda_bound="-1/4"), "∫∣ξ∣²dμ is wrong or zero".replace("∣", "|"))


def test_lower_lambda_bound_is_rejected(G):
    rejects(_claim(G, lambda_bound="-1"), "lambda_bound ≠ value_upper / ∫")


def test_excessive_precision_is_rejected(G):
    rejects(_claim(G, prec=5000), "prec must be at most 4096")
