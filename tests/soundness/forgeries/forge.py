"""Tools of the forgery suite: consistent multi-field forgeries of genuine certificates.

A *forgery* changes a genuine certificate's data, problem, status and claim together, so that
every field a forger controls is consistent (the problem hash recomputed, the claim's text
re-rendered from its data) and only the mathematics is wrong: the hypothesis under test is
violated, every other one still holds.  The checker must reject it with one
:class:`CertificationFailed` whose message names the failed hypothesis.
"""
from __future__ import annotations

import copy
import re
from fractions import Fraction

import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.claims import Claim, Quantifier
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

__all__ = ["forge", "edited", "rejects", "accepts", "q", "qm"]


def q(x) -> str:
    """A rational as the certificate's "p/q" string."""
    f = Fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def qm(M) -> list:
    return [[q(x) for x in row] for row in M]


def edited(doc: dict, **changes) -> dict:
    """A deep copy of a document (e.g. an embedded problem) with top-level keys replaced; a value
    ``None`` removes the key."""
    out = copy.deepcopy(doc)
    for k, v in changes.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = copy.deepcopy(v)
    return out


def forge(cert: dict, *, data: dict | None = None, problem: dict | None = None, status: str | None = None,
          subject: str | None = None, quantifier: str | None = None, params: dict | None = None) -> dict:
    """A copy of ``cert`` with the given fields replaced, the problem hash recomputed and the
    claim text re-rendered: a forgery consistent in every field a file carries.

    ``data`` entries are merged into the certificate's data (a value ``None`` deletes the key);
    ``params`` replaces the claim's parameters."""
    m = copy.deepcopy(cert)
    if data is not None:
        for k, v in data.items():
            if v is None:
                m["data"].pop(k, None)
            else:
                m["data"][k] = copy.deepcopy(v)
    if problem is not None:
        m["problem"] = copy.deepcopy(problem)
    if m.get("problem") is not None:
        m["problem_hash"] = parse_problem(m["problem"]).content_hash()
    if status is not None:
        m["status"] = status
    cl = m["claim"]
    if subject is not None:
        cl["subject"] = subject
    if quantifier is not None:
        cl["quantifier"] = Quantifier(quantifier).value
    if params is not None:
        cl["params"] = copy.deepcopy(params)
    cl["text"] = Claim(cl["subject"], Quantifier(cl["quantifier"]), cl["params"]).text()
    return m


def rejects(cert: dict, pattern: str) -> str:
    """Assert that :func:`check` rejects ``cert`` with one CertificationFailed whose message
    matches ``pattern`` (a regular expression, case-insensitive: the failed hypothesis).
    Returns the message."""
    with pytest.raises(CertificationFailed) as exc:
        check(cert)
    msg = str(exc.value)
    assert "\n" not in msg.strip(), msg
    assert re.search(pattern, msg, re.IGNORECASE), f"rejected, but not for {pattern!r}: {msg}"
    return msg


def accepts(cert: dict):
    """The genuine certificate checks (the forgery's starting point is sound)."""
    return check(cert)
