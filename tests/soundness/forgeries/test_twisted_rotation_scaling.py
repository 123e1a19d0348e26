"""Forgeries of ``twisted-rotation-scaling-convexity`` certificates
(symbolic_tf/certify/check/kinds/twisted_rotation_scaling_convexity.py).

The genuine certificate (A = I + J, V = I) is committed as data/twisted-rotation-scaling-convexity.json:
building it, like checking it the first time in a process, re-derives the family verification in
the kernel (symbolic_tf/certify/check/rotation_scaling.py, < 1 s).  Regenerate by hand with
``_regenerate()``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from .forge import accepts, forge, rejects

DATA = Path(__file__).parent / "data" / "twisted-rotation-scaling-convexity.json"


def _regenerate():  # run by hand: python -c "from tests.soundness.forgeries.test_twisted_rotation_scaling import _regenerate; _regenerate()"
    from symbolic_tf.certify.search.twisted_gaussian import rotation_scaling_convexity_certificate

    cert = rotation_scaling_convexity_certificate([[1, 1], [-1, 1]], [[1, 0], [0, 1]])
    DATA.write_text(json.dumps(cert, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def G():
    return json.loads(DATA.read_text(encoding="utf-8"))


def _with(c, **data):
    d = {**c["data"], **data}
    return forge(c, data=data, params={"A": d["A"], "V": d["V"]})


def test_committed_genuine_certificate_checks(G):
    assert accepts(G).ok


def test_other_dimension_is_rejected(G):
    I3 = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]
    rejects(_with(G, A=I3, V=I3), "A and V must be 2×2")


@pytest.mark.parametrize("A", [[["1", "1"], ["1", "1"]], [["0", "1"], ["-1", "0"]], [["1", "1"], ["-1", "2"]]],
                         ids=["symmetric", "a=0", "unequal-diagonal"])
def test_A_not_a_rotation_scaling_is_rejected(G, A):
    rejects(_with(G, A=A), r"A must be aI \+ bJ")


def _energy_second_derivative(A, V, S, B, h=1e-4):
    """E'' at s = 0 along Σ_s = P_sΣP_sᵀ, P_s = I + sVA⁻¹B, by central differences in floats
    (E(Σ) = ½det(I − AᵀΣAΣ)^(-1/2)), independent of the toolkit."""
    import numpy as np

    N = V @ np.linalg.inv(A) @ B
    E = lambda s: 0.5 * np.linalg.det(np.eye(2) - A.T @ ((np.eye(2) + s * N) @ S @ (np.eye(2) + s * N).T) @ A
                                      @ ((np.eye(2) + s * N) @ S @ (np.eye(2) + s * N).T)) ** -0.5
    return (E(h) - 2 * E(0) + E(-h)) / h ** 2


def test_rotation_beyond_the_range_is_rejected(G):
    """b² = 4 > 3a² = 3: outside the family the argument covers — and there the claim is false: a
    twisted geodesic of finite energy along which E'' < 0 (found by random search, floats)."""
    import numpy as np

    A, V = np.array([[1.0, 2.0], [-2.0, 1.0]]), np.eye(2)
    rng = np.random.default_rng(3)
    for _ in range(5000):
        M = rng.normal(size=(2, 2)) * rng.uniform(0.01, 0.6)
        S = M @ M.T
        if np.linalg.eigvalsh(np.linalg.inv(S) - A.T @ S @ A).min() < 1e-2:
            continue
        B = rng.normal(size=(2, 2))
        B = B + B.T
        if _energy_second_derivative(A, V, S, B) < -1e-6 and _energy_second_derivative(A, V, S, B, h=2e-4) < -1e-6:
            break
    else:
        raise AssertionError("no concave direction found")
    rejects(_with(G, A=[["1", "2"], ["-2", "1"]]), "b² ≤ 3a² fails")


@pytest.mark.parametrize("V", [[["1", "0"], ["0", "2"]], [["1", "1"], ["0", "1"]], [["0", "0"], ["0", "0"]]],
                         ids=["diagonal", "shear", "zero"])
def test_non_scalar_V_is_rejected(G, V):
    rejects(_with(G, V=V), "V must be vI with v ≠ 0")


def test_failed_family_verification_is_rejected(G, monkeypatch):
    """The instance checks are not enough: the family's symbolic verification must hold."""
    from symbolic_tf.certify.check.kinds import twisted_rotation_scaling_convexity as kind

    monkeypatch.setattr(kind, "rotation_scaling_convexity", lambda: {"holds": False})
    rejects(G, "symbolic verification of the rotation–scaling family failed")
