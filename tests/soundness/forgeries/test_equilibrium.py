"""Forgeries of ``equilibrium-krawczyk`` certificates (symbolic_tf/certify/check/kinds/equilibrium_krawczyk.py and
its helper krawczyk_box.py).

Genuine certificates: the library's search (:func:`symbolic_tf.certify.search._equilibrium_krawczyk.find_equilibrium`)
on the problems of tests/certify/test_equilibrium.py — a stable PD equilibrium with a convergent
mean (general V, drift, bias) and an unstable one (the blow-up threshold of V = I, F Hurwitz).
"""
from __future__ import annotations

import copy
from fractions import Fraction as Fr

import pytest

from symbolic_tf.certify.check.kinds.equilibrium_krawczyk import EQ_PART_ORDER
from symbolic_tf.certify.search._equilibrium_krawczyk import find_equilibrium
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, forge, q, qm, rejects


def _doc(A, V, F, S0, b=None):
    doc = {"variant": "softmax", "d": len(A), "A": qm(A), "V": qm(V), "F": qm(F), "initial": {"cov": qm(S0)}}
    if b is not None:
        doc["b"] = [q(x) for x in b]
    return doc


I2 = [[1, 0], [0, 1]]
STABLE = _doc([[1, Fr(1, 5)], [0, 1]], [[-1, Fr(1, 10)], [Fr(-1, 20), -1]], I2, I2, b=[1, 2])
UNSTABLE = _doc(I2, I2, [[-1, Fr(1, 2)], [0, -2]], [[5, 0], [0, 5]])


@pytest.fixture(scope="module")
def G():
    out = {}
    for name, doc in (("stable", STABLE), ("unstable", UNSTABLE)):
        ver = find_equilibrium(parse_problem(doc))
        out[name] = ver.evidence["certificate"]
    assert out["stable"]["data"]["claims"] == ["exists-unique", "pd", "stable", "mean"]
    assert out["unstable"]["data"]["claims"] == ["exists-unique", "pd", "unstable"]
    return out


def _parts(cert, parts, **data):
    """The certificate re-stated with other parts (and data), the claim re-rendered."""
    params = {**cert["claim"]["params"], "parts": [p for p in EQ_PART_ORDER if p in parts]}
    if "mean" not in parts:  # the α* box is claimed with the mean part only
        params.pop("alpha_mid", None), params.pop("alpha_rad", None)
    return forge(cert, data={"claims": list(parts), **data}, params=params)


def test_genuine_certificates_check(G):
    for c in G.values():
        assert accepts(c).ok


@pytest.mark.parametrize("variant", ["sinkhorn", "linear"])
def test_another_variant_is_rejected(G, variant):
    c = G["stable"]
    rejects(forge(c, problem={**c["problem"], "variant": variant}), "needs one quadratic .softmax. head")


def test_stable_and_unstable_together_are_rejected(G):
    c = G["stable"]
    rejects(_parts(c, ["exists-unique", "pd", "stable", "unstable"]), "exclude each other")


def test_parts_without_existence_are_rejected(G):
    rejects(_parts(G["stable"], ["pd", "stable"]), "must include 'exists-unique'")


def test_mean_without_stable_is_rejected(G):
    rejects(_parts(G["stable"], ["exists-unique", "pd", "mean"]), "'mean' needs 'stable'")


def test_zero_radius_is_rejected(G):
    c = G["stable"]
    rejects(forge(c, data={"r": "0"}, params={**c["claim"]["params"], "r": "0"}), "radius r must be positive")


def test_box_of_other_parameters_is_rejected(G):
    """The same box for a problem with another V (rehashed): Σ* moved, the inclusion fails."""
    c = G["stable"]
    rejects(forge(c, problem={**c["problem"], "V": [["-1", "1/9"], ["-1/20", "-1"]]}), "Krawczyk test fails")


def test_box_moved_is_rejected(G):
    c = G["stable"]
    mid = [[q(Fr(x) + Fr(1, 100)) for x in row] for row in c["data"]["Sigma_mid"]]
    rejects(forge(c, data={"Sigma_mid": mid}, params={**c["claim"]["params"], "Sigma_mid": mid}), "Krawczyk test fails")


def test_zero_equilibrium_called_pd_is_rejected(G):
    """Σ = 0 solves G(Σ) = 0 for every problem; a genuine Krawczyk box around it (Y = DG(0)⁻¹ =
    ½·I for F = I) proves existence and uniqueness, but Σ* = 0 is not positive definite."""
    c = G["stable"]
    zero = [["0", "0"], ["0", "0"]]
    Y = qm([[Fr(1, 2) if i == j else 0 for j in range(3)] for i in range(3)])
    base = {"Sigma_mid": zero, "r": "1/100", "Y": Y, "W": None, "mean": None}
    assert accepts(_parts(forge(c, params={**c["claim"]["params"], "Sigma_mid": zero, "r": "1/100"}),
                          ["exists-unique"], **base)).ok
    forged = _parts(forge(c, params={**c["claim"]["params"], "Sigma_mid": zero, "r": "1/100"}),
                    ["exists-unique", "pd"], **base)
    rejects(forged, "not certified positive definite")


def test_unstable_equilibrium_called_stable_is_rejected(G):
    c = G["unstable"]
    I3 = qm([[1 if i == j else 0 for j in range(3)] for i in range(3)])
    rejects(_parts(c, ["exists-unique", "pd", "stable"], W=I3), r"−\(LᵀW \+ WL\) is not certified PD")


def test_stable_without_W_is_rejected(G):
    c = G["stable"]
    rejects(forge(c, data={"W": None}), "needs the Lyapunov matrix W")


def test_stable_equilibrium_called_unstable_is_rejected(G):
    """−W makes LᵀW + WL ≻ 0 true, but −W has no positive direction: nothing shows an unstable mode."""
    c = G["stable"]
    negW = [[q(-Fr(x)) for x in row] for row in c["data"]["W"]]
    rejects(_parts(c, ["exists-unique", "pd", "unstable"], W=negW, mean=None), "W has no positive direction")


def test_mean_without_a_hurwitz_certificate_is_rejected(G):
    c = G["stable"]
    mean = copy.deepcopy(c["data"]["mean"])
    mean["W"] = [[q(-Fr(x)) for x in row] for row in mean["W"]]
    rejects(forge(c, data={"mean": mean}), "mean.W is not positive definite")


def test_mean_without_data_is_rejected(G):
    rejects(forge(G["stable"], data={"mean": None}), "the part mean needs the mean data")


def test_mean_box_of_another_bias_is_rejected(G):
    """The bias b enters only the mean: Σ* and its box stay valid, α* = −M*⁻¹b moves out of the box."""
    c = G["stable"]
    rejects(forge(c, problem={**c["problem"], "b": ["1", "3"]}), "α\\* enclosure is not inside the stated box")
