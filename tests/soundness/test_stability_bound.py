"""Soundness of the stability constant (docs/stability.md §3): for N-token empirical measures the
estimate W_p(μ_t, ν_t) ≤ C(t)·W_p(μ₀, ν₀) is a theorem about the particle systems themselves, so
the measured ratio (exact optimal transport) may never exceed C(t) — whatever the parameters,
the drift, a ReLU feed-forward term, the initial law, the perturbation, p and the seed.  Radii and depths are drawn small,
where C(t) is within a few orders of magnitude of the measurement, so the property has teeth."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symbolic_tf.numeric.stability import PERTURBATIONS, measure_stability
from symbolic_tf.spec.problem import parse_problem

pytest.importorskip("ot")

small = st.fractions(min_value=-1, max_value=1, max_denominator=4)


def _mat(draw, d):
    return [[str(draw(small)) for _ in range(d)] for _ in range(d)]


@st.composite
def cases(draw):
    d = draw(st.integers(1, 2))
    r = draw(st.fractions(min_value="1/8", max_value=1, max_denominator=8))
    law = draw(st.sampled_from(["ball", "box"]))
    init = ({"law": "uniform_ball", "center": ["0"] * d, "radius": str(r)} if law == "ball"
            else {"law": "uniform_box", "low": [str(-r)] * d, "high": [str(r)] * d})
    doc = {"variant": "softmax", "d": d, "A": _mat(draw, d), "V": _mat(draw, d), "initial": init}
    if draw(st.booleans()):
        doc["F"] = _mat(draw, d)
        doc["b"] = [str(draw(small)) for _ in range(d)]
    if draw(st.booleans()):  # a ReLU feed-forward W2·ReLU(W1 x + b1) with m hidden units
        m = draw(st.integers(1, 2))
        doc["relu"] = {"W1": [[str(draw(small)) for _ in range(d)] for _ in range(m)],
                       "b1": [str(draw(small)) for _ in range(m)],
                       "W2": [[str(draw(small)) for _ in range(m)] for _ in range(d)]}
    kind = draw(st.sampled_from([k for k in PERTURBATIONS if d >= 2 or k != "rotate"]))
    eps = draw(st.sampled_from([1e-3, 0.05, 0.3]))
    T = draw(st.sampled_from([0.05, 0.2, 0.5]))
    p = draw(st.sampled_from([1, 2, 3]))
    return doc, (kind, eps), T, p, draw(st.integers(0, 10**6))


@settings(max_examples=40)
@given(case=cases())
def test_measured_ratio_never_exceeds_C(case):
    doc, pert, T, p, seed = case
    res = measure_stability(parse_problem(doc), T, (pert,), N=16, seeds=(seed,), steps=8, n_save=4, p=p)
    run = res["runs"][0]
    ratio, logC = np.array(run["ratio"]), np.array(run["log_C"])
    assert run["W0"] > 0 and ratio[0] == 1.0
    assert np.all(np.log(ratio[1:]) <= logC[1:]), (doc, pert, T, p, seed, ratio.tolist(), logC.tolist())
