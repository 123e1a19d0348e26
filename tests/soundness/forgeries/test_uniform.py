"""Forgeries of ``uniform-vI`` (kinds/uniform.py): the regime of every Σ₀ from the exact class of
R = v(A + Aᵀ) for drift-free softmax with V = vI — one per hypothesis, each consistent in every
other field.  Genuine certificates from the library's own search (``uniform_vI``), milliseconds."""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.spec.problem import parse_problem

from ..oracle import closed_form_Tstar, rhs_for, simulate
from .forge import accepts, forge, rejects

I2 = [["1", "0"], ["0", "1"]]
NEG_I2 = [["-1", "0"], ["0", "-1"]]
S0 = [["1", "1/4"], ["1/4", "1/2"]]


def _uniform(A):
    from symbolic_tf.certify.search._uniform_vI import uniform_vI

    p = parse_problem({"variant": "softmax", "d": 2, "A": A, "V": I2, "initial": {"cov": S0}})
    c = uniform_vI(p).evidence["certificate"]
    accepts(c)
    return c


@pytest.fixture(scope="module")
def certs():
    return {"blowup": _uniform([["1", "1/2"], ["0", "1/2"]]),      # A + Aᵀ ≻ 0
            "clustering": _uniform(NEG_I2),                         # A + Aᵀ ≺ 0
            "stationary": _uniform([["0", "1"], ["-1", "0"]])}      # A + Aᵀ = 0


def test_uniform_not_one_softmax_head(certs):
    for c in certs.values():
        rejects(forge(c, problem={**c["problem"], "variant": "sinkhorn"}), r"needs one quadratic \(softmax\) head")


def test_uniform_refuses_a_schedule(certs):
    """A later phase with A = I would turn the clustering problem into a blow-up one."""
    for c in certs.values():
        prob = {**c["problem"], "phase": [{"duration": "1/2"}, {"duration": "1", "A": I2}]}
        rejects(forge(c, problem=prob), r"constant parameters only")


def test_uniform_refuses_a_drift(certs):
    """F = I on the clustering certificate: Σ̇ = 2Σ − 2Σ² tends to I (rank 2), not to a limit of rank 0."""
    c = certs["clustering"]
    prob = {**c["problem"], "F": I2}
    r = simulate(parse_problem(prob), 40.0)
    assert r.status == "reached" and np.allclose(r.Sigma, np.eye(2), atol=1e-8)
    for c in certs.values():
        rejects(forge(c, problem={**c["problem"], "F": I2}), r"drift F ≠ 0")


def test_uniform_V_not_v_identity(certs):
    for c in certs.values():
        rejects(forge(c, problem={**c["problem"], "V": [["1", "1/10"], ["0", "1"]]}), r"V is not v·I")
        rejects(forge(c, data={"v": "2"}), r"V is not v·I for the stored v")


def test_uniform_R_class_wrong(certs):
    """A + Aᵀ indefinite (A = diag(1, −1)) under either class, and the blow-up class on an NSD R."""
    ind = [["1", "0"], ["0", "-1"]]
    p = parse_problem({**certs["blowup"]["problem"], "A": ind})
    assert closed_form_Tstar(p, Sigma0=np.diag([0.0, 1.0])) == float("inf")   # Σ₀ = e₂e₂ᵀ ≠ 0 does not blow up
    rejects(forge(certs["blowup"], problem={**certs["blowup"]["problem"], "A": ind}), r"R = v\(A \+ Aᵀ\) is not PD")
    rejects(forge(certs["clustering"], problem={**certs["clustering"]["problem"], "A": ind}, params={"rank": 0}),
            r"R = v\(A \+ Aᵀ\) is not NSD")
    rejects(forge(certs["clustering"], data={"R_class": "PD", "regime": "BLOWUP"}, subject="BLOWUP",
                  quantifier="every Σ₀ ⪰ 0, Σ₀ ≠ 0", params={}), r"R = v\(A \+ Aᵀ\) is not PD")


def test_uniform_regime_label(certs):
    """R = −2I labelled EQUILIBRIUM ("every Σ₀ ⪰ 0 is stationary": Σ̇ = −2Σ² ≠ 0), R = 0 labelled
    CLUSTERING, R ≻ 0 labelled CLUSTERING."""
    c = certs["clustering"]
    assert np.abs(rhs_for(parse_problem(c["problem"])).f(np.eye(2))).max() == pytest.approx(2)
    rejects(forge(c, data={"regime": "EQUILIBRIUM"}, subject="EQUILIBRIUM", quantifier="every Σ₀ ⪰ 0",
                  params={"stationary": True}), r"the regime is CLUSTERING")
    c = certs["stationary"]
    rejects(forge(c, data={"regime": "CLUSTERING"}, subject="CLUSTERING", quantifier="every Σ₀ ≻ 0",
                  params={"rank": 2}), r"the regime is EQUILIBRIUM")
    c = certs["blowup"]
    rejects(forge(c, data={"regime": "CLUSTERING"}, subject="CLUSTERING", quantifier="every Σ₀ ≻ 0",
                  params={"rank": 0}), r"the regime is BLOWUP")


def test_uniform_reused_on_other_problems(certs):
    """The stored class is re-decided on the embedded problem: another d, another temperature."""
    c = certs["clustering"]
    I3 = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]
    three = {"variant": "softmax", "d": 3, "A": [["-1", "0", "0"], ["0", "-1", "0"], ["0", "0", "0"]], "V": I3,
             "initial": {"cov": I3}}
    # the limit rank is recomputed, d − rank R = 1 here: the claim of rank 0 carried over from the 2×2
    # problem is refused, rank 1 is the true (genuine) claim
    rejects(forge(c, problem=three), r"stated claim is not the one the data prove")
    accepts(forge(c, problem=three, params={"rank": 1}))
    # a temperature changes nothing in the class (τ > 0), so the same file with scale 3 is genuine
    accepts(forge(c, problem={**c["problem"], "scale": "3"}))
