"""Batched blow-up brackets: exact closed form inside, checker accepts, tampering rejected."""
from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.search._batch import blowup_brackets_batch
from symbolic_tf.certify.check import check
from symbolic_tf.spec.errors import CertificationFailed


def _grid(n):
    vals = [Fraction(-1) + Fraction(2 * i, n - 1) for i in range(n)]
    return [(((1 + u) / 2, w / 2), (w / 2, (1 - u) / 2)) for u in vals for w in vals if u * u + w * w < 1]


def _Tstar(A, v, S):
    mpmath.mp.dps = 40
    R = mpmath.matrix([[v * (A[i][j] + A[j][i]) for j in range(2)] for i in range(2)])
    Sm = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in S])
    E, Q = mpmath.eigsy(Sm)
    h = Q * mpmath.diag([mpmath.sqrt(e) for e in E]) * Q.T
    lam = max(mpmath.eigsy(h * R * h)[0])
    return 1 / lam if lam > 0 else None


def test_brackets_contain_closed_form_and_verify():
    A = [[Fraction(1), Fraction(7, 10)], [Fraction(-1, 10), Fraction(-1, 5)]]  # A + Aᵀ indefinite
    Ss = _grid(9)
    brackets, cert = blowup_brackets_batch(A, 1, Ss)
    assert check(cert).ok
    for S, b in zip(Ss, brackets):
        T = _Tstar([[float(x) for x in r] for r in A], 1, S)
        if T is None:
            assert b is None
        else:
            lo, hi = b
            assert mpmath.mpf(lo.numerator) / lo.denominator <= T <= mpmath.mpf(hi.numerator) / hi.denominator
            assert (hi - lo) / hi <= Fraction(1, 10**12)


@pytest.mark.parametrize("field", ["T_lo", "T_hi", "witness", "A"])
def test_batch_tampering(field):
    A = [[Fraction(1), Fraction(1, 2)], [0, Fraction(1, 2)]]
    _, cert = blowup_brackets_batch(A, 1, _grid(5))
    c = copy.deepcopy(cert.to_dict())
    m = c["data"]["members"][3]
    if field == "T_lo":
        m["T_lo"] = m["T_hi"] = str(Fraction(m["T_hi"]) * 2)
    elif field == "T_hi":
        m["T_hi"] = m["T_lo"] = str(Fraction(m["T_lo"]) / 2)
    elif field == "witness":
        m["witness"] = ["0", "0"]
    else:
        c["data"]["A"][0][0] = "1/10"
    with pytest.raises(CertificationFailed):
        check(c)
