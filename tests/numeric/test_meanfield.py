"""The mean-field check: W₂ between tokens and the moment ODE decays like N^{-1/2}."""
from __future__ import annotations

import pytest

from symbolic_tf.numeric.meanfield import meanfield_check
from symbolic_tf.spec import parse_problem
from symbolic_tf.spec.errors import InvalidParameters

BASE = {"d": 2, "V": [[1, 0], ["1/2", 1]], "initial": {"mean": [0, "1/2"], "cov": [[1, 0], [0, "1/2"]]}, "T": "1/4"}


def _problem(variant, **kw):
    doc = {"variant": variant, **BASE, **kw}
    if variant == "l2":
        doc.update(Q=[[1, 0], [0, 1]], K=[["1/2", 0], [0, "1/2"]])
    elif "heads" not in doc:
        doc["A"] = [["1/2", "1/4"], [0, "-1/2"]]
    return parse_problem(doc)


@pytest.mark.parametrize("variant", ["softmax", "l2"])
def test_slope_is_minus_one_half(variant):
    rep = meanfield_check(_problem(variant), Ns=(100, 200, 400, 800), seeds=range(8), steps=8)
    assert rep.gaussian_closed
    assert -0.7 <= rep.slope <= -0.3, (rep.slope, rep.mean_distance)


def test_sigmoid_reports_departure_from_gaussianity():
    rep = meanfield_check(_problem("sigmoid", sigmoid_bias=1), Ns=(100, 200), seeds=(0,), steps=4)
    assert not rep.gaussian_closed and rep.slope is None
    assert all(m is not None for m in rep.mardia_excess)
    assert len(rep.kurtosis[0]) == 2


def test_masked_runs_with_positions():
    rep = meanfield_check(_problem("masked"), Ns=(50, 100), seeds=(0,), steps=4)
    assert not rep.gaussian_closed and len(rep.mardia_excess) == 2


def test_horizon_beyond_blowup_is_a_clear_error():
    doc = {"variant": "softmax", "d": 1, "A": [[1]], "V": [[1]], "initial": {"cov": [[1]]}}
    with pytest.raises(InvalidParameters) as exc:
        meanfield_check(parse_problem(doc), Ns=(10, 20), seeds=(0,), T=1.0)  # T* = 1/2
    assert exc.value.field == "T"
