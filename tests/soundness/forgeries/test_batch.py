"""Forgeries of ``blowup-riccati-vI-batch`` (kinds/batch.py): many Σ₀ ≻ 0 with their blow-up brackets
for softmax with V = vI, no drift — one per hypothesis, each consistent in every other field (the
claim's bracket list and member count re-rendered).  The genuine certificate comes from the library's
own search (``blowup_brackets_batch``) on the batch of tests/soundness/test_tampering.py."""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check.kinds.blowup_riccati_vI_batch import batch_params
from symbolic_tf.spec.problem import parse_problem

from ..oracle import closed_form_Tstar
from .forge import accepts, forge, q, rejects

F = Fraction
A = [[F(1), F(7, 10)], [F(-1, 10), F(-1, 5)]]  # A + Aᵀ indefinite
MEMBERS = [((F(1), F(0)), (F(0), F(1))), ((F(1, 2), F(1, 4)), (F(1, 4), F(1, 2))),
           ((F(2), F(-1, 2)), (F(-1, 2), F(1, 4)))]


@pytest.fixture(scope="module")
def batch():
    from symbolic_tf.certify.search._batch import blowup_brackets_batch

    brackets, cert = blowup_brackets_batch(A, 1, MEMBERS)
    assert all(b is not None for b in brackets)
    c = cert.to_dict()
    accepts(c)
    return c


def _members(c, k, **changes):
    """A forgery with member k changed (a value None deletes the key) and the claim re-rendered."""
    members = copy.deepcopy(c["data"]["members"])
    for key, val in changes.items():
        if val is None:
            members[k].pop(key, None)
        else:
            members[k][key] = val
    data = {**c["data"], "members": members}
    n = sum("undecided" not in m for m in members)
    try:
        params = batch_params(data, n)
    except KeyError:  # a member without its bracket: the forger keeps the stated one
        params = c["claim"]["params"]
    return forge(c, data={"members": members}, params=params)


def _Tstar(S):
    """T* = 1/λ_max(Σ₀^½RΣ₀^½) from the oracle's independent closed form."""
    doc = {"variant": "softmax", "d": 2, "A": [[q(x) for x in r] for r in A], "V": [["1", "0"], ["0", "1"]],
           "initial": {"cov": [[q(x) for x in r] for r in S]}}
    return closed_form_Tstar(parse_problem(doc))


def test_batch_A_not_square(batch):
    A3 = [row + ["0"] for row in batch["data"]["A"]]
    data = {**batch["data"], "A": A3}
    rejects(forge(batch, data={"A": A3}, params=batch_params(data, 3)), r"A is not a square d×d matrix")


def test_batch_members_listed_and_complete(batch):
    rejects(forge(batch, data={"members": []}, params=batch_params({**batch["data"], "members": []}, 0)), r"no members")
    for key in ("T_lo", "T_hi", "witness"):
        f = _members(batch, 1, **{key: None})
        rejects(f, rf"member 1: a member with a bracket needs {key}")


def test_batch_member_sigma0_not_pd(batch):
    """Σ₀ = diag(1, 0) (singular) and an indefinite Σ₀, with the first member's numbers."""
    for S in ([["1", "0"], ["0", "0"]], [["1", "2"], ["2", "1"]], [["1", "0"], ["1", "1"]]):
        rejects(_members(batch, 0, Sigma0=S), r"member 0: Σ₀ is not symmetric positive definite")


def test_batch_member_bracket_order(batch):
    m = batch["data"]["members"][2]
    rejects(_members(batch, 2, T_lo=m["T_hi"], T_hi=m["T_lo"]), r"member 2: need 0 < T_lo ≤ T_hi")
    rejects(_members(batch, 2, T_lo="0"), r"member 2: need 0 < T_lo ≤ T_hi")


def test_batch_member_not_pd_at_T_lo(batch):
    """The bracket [T_hi, T_hi]: T* < T_hi (closed form), so the claim is false."""
    m = batch["data"]["members"][1]
    assert _Tstar(MEMBERS[1]) < float(Fraction(m["T_hi"]))
    rejects(_members(batch, 1, T_lo=m["T_hi"]), r"member 1: Σ₀⁻¹ − T_lo·R is not positive definite")


def test_batch_member_witness(batch):
    """The bracket [T_lo, T_lo] (T* > T_lo: no witness can exist), a zero witness, a short one."""
    m = batch["data"]["members"][0]
    assert _Tstar(MEMBERS[0]) > float(Fraction(m["T_lo"]))
    rejects(_members(batch, 0, T_hi=m["T_lo"]), r"member 0: the witness does not show blow-up before T_hi")
    rejects(_members(batch, 0, witness=["0", "0"]), r"member 0: zero witness")
    rejects(_members(batch, 0, witness=["1"]), r"member 0: the witness is not a vector of length 2")


def test_batch_undecided_member_claims_nothing(batch):
    """Marking a member undecided (its numbers kept or not) removes its bracket from the claim; a
    forged claim keeping the bracket is refused."""
    f = _members(batch, 0, undecided="forged")
    accepts(f)
    assert f["claim"]["params"]["brackets"][0] is None and f["claim"]["params"]["members"] == 2
    g = copy.deepcopy(f)
    g = forge(g, params={**g["claim"]["params"], "brackets": batch["claim"]["params"]["brackets"]})
    rejects(g, r"stated claim is not the one the data prove")


def test_batch_other_A_or_v(batch):
    """The members' numbers under another v (−1: R ≺ 0 on the first member's direction) or another A."""
    data = {**batch["data"], "v": "-1"}
    rejects(forge(batch, data={"v": "-1"}, params=batch_params(data, 3)), r"member \d: ")
    A2 = [["1", "0"], ["0", "1"]]
    data = {**batch["data"], "A": A2}
    rejects(forge(batch, data={"A": A2}, params=batch_params(data, 3)), r"member \d: ")
    assert np.isfinite(_Tstar(MEMBERS[0]))
