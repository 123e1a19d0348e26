"""Forgeries of ``matrix-identity`` certificates (symbolic_tf/certify/check/kinds/matrix_identity.py).

Genuine certificates (as in tests/soundness/test_tampering.py, < 0.1 s): the replayed proof
``homogeneity`` (PROVED) and the exact counter-witness of "d/dt tr(V⁻¹Σ) = tr(Σ(A + Aᵀ)Σ) for any
invertible V" (REFUTED).  A forged statement re-renders the claim from the forged document.
"""
from __future__ import annotations

import copy
from fractions import Fraction as Fr

import pytest

from symbolic_tf.certify.search.matrix_proofs import library as ML
from symbolic_tf.certify.search.matrix_proofs.certificates import identity_certificate, search_witness, witness_certificate
from symbolic_tf.certify.check.matrix_proofs.replay import parse_statement, statement_params

from .forge import accepts, forge, q, rejects


@pytest.fixture(scope="module")
def G():
    stmt = ML.trace_identity_statement(False).doc
    return {"proved": identity_certificate(ML.proof("homogeneity")).to_dict(),
            "refuted": witness_certificate(stmt, search_witness(stmt, dims=(2,))).to_dict()}


def _doc(c, edit):
    doc = copy.deepcopy(c["data"]["proof"])
    edit(doc)
    return doc


def _params(doc):
    return statement_params(parse_statement(doc))


def _mul(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) for j in range(len(Y[0]))] for i in range(len(X))]


def _T(X):
    return [list(r) for r in zip(*X)]


def _sigma_dot(w):
    """Σ' = VΣAΣ + ΣAᵀΣVᵀ exactly, the refuted statement's equation."""
    A, V, S = ([[Fr(x) for x in r] for r in w["values"][k]] for k in ("A", "V", "Sigma"))
    P = _mul(_mul(_mul(V, S), A), S)
    return [[q(P[i][j] + P[j][i]) for j in range(len(P))] for i in range(len(P))]


def test_genuine_certificates_check(G):
    assert accepts(G["proved"]).status == "PROVED"
    assert accepts(G["refuted"]).status == "REFUTED"


def test_unknown_hypothesis_kind_is_rejected(G):
    doc = _doc(G["proved"], lambda d: d["hypotheses"].update(invertible=["V"]))
    rejects(forge(G["proved"], data={"proof": doc}), "hypotheses are {symmetric, positive, equations, derivatives}")


def test_undeclared_derivative_is_rejected(G):
    """d/dt tr(AS) = tr(AṠ) needs A constant; a proof that never says so is refused."""
    doc = {"name": "t", "symbols": {"matrices": {"A": ["d", "d"], "S": ["d", "d"], "Sdot": ["d", "d"]}, "scalars": []},
           "hypotheses": {"symmetric": ["S"], "positive": [], "equations": [], "derivatives": {"S": ["sym", "Sdot"]}},
           "lhs": ["ddt", ["tr", ["*", ["sym", "A"], ["sym", "S"]]]], "rhs": ["tr", ["*", ["sym", "A"], ["sym", "Sdot"]]],
           "steps": [{"on": "lhs", "rule": "differentiate", "args": {},
                      "result": ["tr", ["*", ["sym", "A"], ["sym", "Sdot"]]]}]}
    rejects(forge(G["proved"], data={"proof": doc}, params=_params(doc)), "no derivative declared for A")


def test_tampered_step_is_rejected(G):
    doc = _doc(G["proved"], lambda d: d["steps"][1].update(result=d["steps"][0]["result"]))
    rejects(forge(G["proved"], data={"proof": doc}), "the stated result is not what the rule gives")


def test_other_right_side_is_rejected(G):
    """The statement's rhs doubled (claim re-rendered), the steps kept."""
    doc = _doc(G["proved"], lambda d: d.update(rhs=["*", ["num", "2"], d["rhs"]]))
    rejects(forge(G["proved"], data={"proof": doc}, params=_params(doc)), "the two sides do not meet")


def test_false_identity_without_steps_is_rejected(G):
    """The refuted statement claimed PROVED by an empty proof."""
    doc = _doc(G["refuted"], lambda d: d.update(steps=[]))
    rejects(forge(G["refuted"], data={"proof": doc, "witness": None}, status="PROVED"), "the two sides do not meet")


def test_proof_dropped_is_rejected(G):
    doc = _doc(G["proved"], lambda d: d.update(steps=[]))
    rejects(forge(G["proved"], data={"proof": doc}), "the two sides do not meet")


def test_witness_with_steps_is_rejected(G):
    w = {"d": 1, "values": {"A": [["1"]], "V": [["1"]], "S": [["1"]], "Sdot": [["2"]], "c": "2"}}
    rejects(forge(G["proved"], data={"witness": w}, status="REFUTED"), "a witness certificate carries no proof steps")


def test_witness_where_the_sides_agree_is_rejected(G):
    """A true identity (homogeneity) 'refuted' at an admissible point where both sides agree."""
    doc = _doc(G["proved"], lambda d: d.pop("steps"))
    w = {"d": 1, "values": {"A": [["1"]], "V": [["1"]], "S": [["1"]], "Sdot": [["2"]], "c": "2"}}
    rejects(forge(G["proved"], data={"proof": doc, "witness": w}, status="REFUTED"), "the two sides agree at the witness")


def test_witness_violating_a_hypothesis_is_rejected(G):
    """Σ not positive definite (Σ' recomputed from the equation, so only positivity fails)."""
    w = copy.deepcopy(G["refuted"]["data"]["witness"])
    w["values"]["Sigma"] = [["1/2", "0"], ["0", "-1"]]
    w["values"]["Sigma'"] = _sigma_dot(w)
    rejects(forge(G["refuted"], data={"witness": w}), "Sigma is not positive definite")


def test_witness_violating_an_equation_is_rejected(G):
    w = copy.deepcopy(G["refuted"]["data"]["witness"])
    w["values"]["Sigma'"][0][0] = q(Fr(w["values"]["Sigma'"][0][0]) + 1)
    rejects(forge(G["refuted"], data={"witness": w}), "an equation of the hypotheses fails at the point")


def test_witness_of_another_dimension_is_rejected(G):
    w = copy.deepcopy(G["refuted"]["data"]["witness"])
    w["d"] = 3
    rejects(forge(G["refuted"], data={"witness": w}), "has the wrong shape")


def test_witness_missing_a_symbol_is_rejected(G):
    w = copy.deepcopy(G["refuted"]["data"]["witness"])
    w["values"].pop("V")
    rejects(forge(G["refuted"], data={"witness": w}), "a value for every symbol")
