"""A tube that fails the check on a step is retimed and re-checked (search/validated/retime.py).

The fixture is a ``tube-collapse`` certificate (softmax with drift F = −2I, a symmetric V, Σ₀ =
diag(8, 2): Σ(t) → 0) whose search-side steps once failed the checker's a priori test on step 12.
"""
import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

from symbolic_tf.certify.check import derive
from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.search.validated.retime import checked_retimed, retimed
from symbolic_tf.spec.errors import CertificationFailed

CERT = json.loads((Path(__file__).parent / "data" / "tube_collapse_retime.json").read_text())


def _coarse(cert, start):
    """Merge the steps pairwise from ``start`` on: longer steps than the checker accepts."""
    out = copy.deepcopy(cert)
    ts = out["data"]["steps"]
    out["data"]["steps"] = ts[:start] + ts[start:-1][1::2] + ts[-1:]
    return out


def test_fixture_passes_and_its_coarsening_fails_on_a_step():
    assert derive(Certificate.from_dict(CERT))[0] == "PROVED"
    with pytest.raises(CertificationFailed, match=r"fails on step \d+ \["):
        derive(Certificate.from_dict(_coarse(CERT, 10)))


def test_retimed_tube_passes_the_checker_with_a_refinement_of_the_times():
    coarse = _coarse(CERT, 10)
    fixed, cert, (status, claim, _) = checked_retimed(coarse, derive)
    assert status == "PROVED" and claim.same_as(Certificate.from_dict(CERT).claim)
    old = [Fraction(t) for t in coarse["data"]["steps"]]
    new = [Fraction(t) for t in fixed["data"]["steps"]]
    assert set(old) <= set(new) and new == sorted(new) and new[-1] == old[-1] and len(new) > len(old)
    assert {k: v for k, v in fixed.items() if k != "data"} == {k: v for k, v in coarse.items() if k != "data"}


def test_retimed_needs_a_step_named_by_the_checker():
    assert retimed(CERT, "the claim is not the checked one") is None
    assert retimed(CERT, "the a priori (Picard) enclosure fails on step 3 [0.5, 0.75]") is None  # no such times


def test_retiming_never_rescues_a_false_claim():
    # a forged Σ₀ (the claim no longer matches the data) stays rejected however the steps are cut
    forged = _coarse(CERT, 10)
    forged["problem"]["initial"]["cov"] = [["9", "0"], ["0", "2"]]
    with pytest.raises(CertificationFailed):
        checked_retimed(forged, derive)
