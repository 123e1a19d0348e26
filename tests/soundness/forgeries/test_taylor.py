"""Forgeries of ``blowup-taylor-lmi`` certificates (symbolic_tf/certify/check/kinds/blowup_taylor_lmi.py, HYPOTHESES): each
violates one hypothesis of the bracket argument (validated Taylor tube + restarted LMI and norm bounds)."""
from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from symbolic_tf.certify.search._blowup_taylor_lmi import tighten_blowup_bracket
from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, edited, forge, q, rejects

# a general (non-scalar) V; the route's own search with a short, low-order tube (as in test_tampering.py)
DOC = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "1/10"], ["0", "1"]],
       "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}


@pytest.fixture(scope="module")
def cert():
    ver = tighten_blowup_bracket(parse_problem(DOC), order=8, max_steps=40)
    assert ver.status == "PROVED", ver.reason
    c = ver.evidence["certificate"]
    accepts(c)
    assert len(c["data"]["steps"]) > 10
    return c


def _doc(**kw):
    return edited(DOC, **kw)


def _bracket(c):
    return {"T_lo": c["data"]["T_lo"], "T_hi": c["data"]["T_hi"]}


def test_drift(cert):
    # a Hurwitz drift F = −I can stop the blow-up altogether; the tube and the LMI ignore it
    rejects(forge(cert, problem=_doc(F=[["-1", "0"], ["0", "-1"]])), "drift F ≠ 0 is not covered")
    rejects(forge(cert, problem=_doc(b=["1", "0"])), "bias drift b ≠ 0 is not covered")
    rejects(forge(cert, problem=_doc(variant="sinkhorn")), "not softmax / multi-head softmax")


def test_schedule(cert):
    rejects(forge(cert, problem=_doc(phase=[{"duration": "1/8"}, {"duration": 1, "A": [["-1", "0"], ["0", "-1"]]}])),
            "constant parameters only")


def test_sigma0_zero(cert):
    rejects(forge(cert, problem=_doc(initial={"cov": [["0", "0"], ["0", "0"]]})), "Σ₀ = 0 does not blow up")
    rejects(forge(cert, problem=_doc(initial=None)), "no initial covariance Σ₀")


def test_P_not_positive_definite(cert):
    P = cert["data"]["P"]
    rejects(forge(cert, data={"P": [[P[0][0], P[0][1]], [P[1][0], "-1"]]}), "P is not positive definite")
    rejects(forge(cert, data={"P": [[P[0][0], "0"], [P[1][0], P[1][1]]]}), "P is not symmetric")


def test_c_not_positive(cert):
    rejects(forge(cert, data={"c": "0"}), "c must be positive")
    rejects(forge(cert, data={"c": "-1"}), "c must be positive")


def test_lmi_fails(cert):
    # a larger c would lower every restarted upper bound; it breaks q_P ≥ c·tr(PΣ)²
    rejects(forge(cert, data={"c": q(100 * Fr(cert["data"]["c"]))}), "Q_P − c·ppᵀ is not positive semidefinite")
    # the genuine P, c with A + Aᵀ ≺ 0 (which collapses to 0): q_P ≤ 0 there
    rejects(forge(cert, problem=_doc(A=[["-1", "0"], ["0", "-1"]])), "Q_P − c·ppᵀ is not positive semidefinite")


def test_norm_bounds(cert):
    uV = Fr(cert["data"]["u_V"][0])
    rejects(forge(cert, data={"u_V": [q(uV / 2)]}), "u_V = .* is not an upper bound of the Frobenius norm")
    rejects(forge(cert, data={"u_A": ["1/2"]}), "u_A = .* is not an upper bound of the Frobenius norm")
    rejects(forge(cert, data={"u_V": [q(uV), q(uV)]}), "one bound per head")
    # the same flow written as two heads (C/2 each): one pair per head with the halves is genuine
    heads = [{"variant": "softmax", "A": DOC["A"], "V": [["1/2", "1/20"], ["0", "1/2"]]}] * 2
    doc2 = {"variant": "multihead", "d": 2, "heads": heads, "initial": DOC["initial"]}
    rejects(forge(cert, problem=doc2), "one bound per head")
    accepts(forge(cert, problem=doc2, data={"u_V": [q(uV / 2)] * 2, "u_A": cert["data"]["u_A"] * 2}))


def test_tube(cert):
    steps = cert["data"]["steps"]
    rejects(forge(cert, data={"steps": steps[1:]}), "the first step time must be 0")
    rejects(forge(cert, data={"steps": [steps[0], steps[2], steps[1]] + steps[3:]}), "strictly increasing")
    # one step across the whole bracket: no a priori enclosure holds up to T_hi > T*
    rejects(forge(cert, data={"steps": ["0", cert["data"]["T_hi"]]}), "Picard")
    rejects(forge(cert, data={"order": 0}), "order must be an integer")
    rejects(forge(cert, data={"prec": 8}), "prec must be an integer")


def test_T_lo_not_implied(cert):
    rejects(forge(cert, data={"T_lo": cert["data"]["T_hi"]}, params={**_bracket(cert), "T_lo": cert["data"]["T_hi"]}),
            "T_lo = .* is not implied")
    rejects(forge(cert, data={"T_lo": "0"}, params={**_bracket(cert), "T_lo": "0"}), "T_lo must be positive")


def test_T_hi_not_implied(cert):
    rejects(forge(cert, data={"T_hi": cert["data"]["T_lo"]}, params={**_bracket(cert), "T_hi": cert["data"]["T_lo"]}),
            "T_hi = .* is not implied")


def test_weaker_bracket_and_other_sigma0(cert):
    # only the first step: the bounds at t_0 alone (1/(K‖Σ₀‖_F), 1/(c·tr(PΣ₀))) still give a (wider) bracket
    S0 = [[Fr(x) for x in r] for r in DOC["initial"]["cov"]]
    P = [[Fr(x) for x in r] for r in cert["data"]["P"]]
    trPS = sum(P[i][j] * S0[j][i] for i in range(2) for j in range(2))
    K = 2 * Fr(cert["data"]["u_V"][0]) * Fr(cert["data"]["u_A"][0])
    fro2 = sum(x * x for r in S0 for x in r)
    T_lo = Fr(1, 2) / K          # ≤ 1/(K‖Σ₀‖_F), ‖Σ₀‖_F² = 45/32 < 4
    assert (K * T_lo) ** 2 * fro2 <= 1
    T_hi = 1 / (Fr(cert["data"]["c"]) * trPS) + Fr(1, 10**6)
    wide = {"T_lo": q(T_lo), "T_hi": q(T_hi)}
    accepts(forge(cert, data={"steps": ["0"], **wide}, params=wide))
    # the genuine data for 2Σ₀ (T* halves by homogeneity, so it lies below the stored T_lo): rejected
    two = _doc(initial={"cov": [["2", "1/2"], ["1/2", "1"]]})
    rejects(forge(cert, problem=two), "T_lo = .* is not implied|Picard")
    rejects(forge(cert, problem=_doc(initial={"cov": [["1", "0"], ["0", "0"]]})), "is not implied|Picard")
