"""ReLU feed-forward (issue 17, item 6): the [relu] table, the refusals of the moment paths, the
Gaussian linearisation, the residual norm (closed form vs Monte Carlo), the first-order estimate,
and the departure → 0 as the kink leaves the support."""
from __future__ import annotations

import hashlib
import json
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.numeric.particles import simulate
from symbolic_tf.numeric._feedforward import relu_drift
from symbolic_tf.numeric.relu import affine_twin, gaussian_linearisation, relu_departure, residual_norm
from symbolic_tf.spec.errors import CertificationFailed, InvalidParameters, NotGaussianClosed
from symbolic_tf.spec.problem import parse_problem, problem_to_dict

BASE = {"variant": "softmax", "d": 2, "A": [["-1/2", 0], [0, "-1/2"]], "V": [[1, 0], [0, 1]],
        "initial": {"mean": [0, 0], "cov": [[1, "1/4"], ["1/4", "1/2"]]}}


def relu_problem(b1=(0, "1/2"), W1=((1, 0), (1, 1)), W2=((1, "1/2"), (0, 1))):
    return parse_problem({**BASE, "relu": {"W1": [list(r) for r in W1], "b1": list(b1),
                                           "W2": [list(r) for r in W2]}})


# ----- the problem file ----------------------------------------------------------------------
def test_problem_without_relu_keeps_its_serialisation_and_hash():
    p = parse_problem(BASE)
    doc = problem_to_dict(p)
    assert doc == {"variant": "softmax", "d": 2, "A": [["-1/2", "0"], ["0", "-1/2"]], "V": [["1", "0"], ["0", "1"]],
                   "initial": {"mean": ["0", "0"], "cov": [["1", "1/4"], ["1/4", "1/2"]]}}
    blob = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    assert p.content_hash() == hashlib.sha256(blob.encode()).hexdigest()


def test_relu_table_round_trips_exactly_and_changes_the_hash():
    p = relu_problem()
    assert p.relu.W2[0][1] == Fraction(1, 2) and p.relu.b1 == (0, Fraction(1, 2))
    assert parse_problem(problem_to_dict(p)) == p
    assert p.content_hash() != parse_problem(BASE).content_hash()


@pytest.mark.parametrize("table, field", [({"W1": [[1, 0]], "W2": [[1, 0]]}, "relu.W2"),
                                          ({"W1": [[1, 0, 0]], "W2": [[1], [0]]}, "relu.W1"),
                                          ({"W1": [[1, 0]], "b1": [0, 1], "W2": [[1], [0]]}, "relu.b1"),
                                          ({"W2": [[1], [0]]}, "relu.W1"),
                                          ({"W1": [[1, 0]], "W2": [[1], [0]], "c": 1}, "relu.c")])
def test_bad_relu_tables_are_refused_naming_the_field(table, field):
    with pytest.raises(InvalidParameters) as e:
        parse_problem({**BASE, "relu": table})
    assert str(e.value).startswith(field)


# ----- the moment paths refuse a ReLU problem -------------------------------------------------
def test_moment_ode_and_certification_refuse_a_relu_problem():
    import symbolic_tf as stf
    from symbolic_tf.regimes.classify import classify
    from symbolic_tf.symbolic.moments import derive_for_problem, rhs

    p = relu_problem()
    for call in (derive_for_problem, rhs, lambda q: stf.integrate(q, 0.1)):
        with pytest.raises(NotGaussianClosed, match="ReLU"):
            call(p)
    c = classify(p)
    assert c.status == "UNDECIDED" and "ReLU" in c.reason and c.certificate is None
    # a certificate of the ReLU-free problem, re-labelled with the ReLU problem, is rejected
    plain = classify(parse_problem(BASE))
    doc = dict(plain.certificate)
    doc["problem"], doc["problem_hash"] = problem_to_dict(p), p.content_hash()
    with pytest.raises(CertificationFailed, match="ReLU"):
        Certificate.from_dict(doc).parsed_problem()


def test_validated_tube_refuses_a_relu_problem():
    from symbolic_tf.certify.search.validated import enclose

    with pytest.raises(NotGaussianClosed):
        enclose(relu_problem(), Fraction(1, 10))


# ----- the Gaussian linearisation and the residual ---------------------------------------------
def _sample(p, n, seed):
    cov = np.array([[float(e) for e in r] for r in p.cov])
    return np.random.default_rng(seed).multivariate_normal(np.zeros(2), cov, size=n)


def test_linearisation_is_the_least_squares_affine_fit_and_residual_matches_monte_carlo():
    p = relu_problem()
    lin = gaussian_linearisation(p.relu, p.mean, p.cov)
    X = _sample(p, 400_000, 1)
    G = relu_drift(p)(X)
    # method 2: ordinary least squares of g on (x, 1) over a large Gaussian sample
    coef, *_ = np.linalg.lstsq(np.c_[X, np.ones(len(X))], G, rcond=None)
    np.testing.assert_allclose(coef[:2].T, lin.F, atol=6e-3)
    np.testing.assert_allclose(coef[2], lin.b, atol=6e-3)
    R = G - (X @ lin.F.T + lin.b)
    mc = np.sqrt(np.mean(np.sum(R * R, axis=1)))
    exact = residual_norm(p.relu, p.mean, p.cov)
    se = np.std(np.sum(R * R, axis=1)) / np.sqrt(len(X)) / (2 * mc)  # delta method
    assert abs(mc - exact) < 5 * se


def test_residual_vanishes_as_the_kink_leaves_the_support():
    """z₂ = x₁ + x₂ has sd √2, so b₁ = 8 puts its kink 5.7 sd away; beyond, the float residual is at
    rounding level (a difference of O(1) second moments)."""
    values = [residual_norm(relu_problem(b1=(b, b)).relu, (0, 0), ((1, 0), (0, 1))) for b in (0, 1, 2, 4, 8, 16)]
    assert all(a > b for a, b in zip(values[:5], values[1:5]))
    assert values[0] > 0.5 and values[4] < 1e-4 and values[5] < 1e-6
    neg = [residual_norm(relu_problem(b1=(-b, -b)).relu, (0, 0), ((1, 0), (0, 1))) for b in (0, 8, 16)]
    assert neg[0] == pytest.approx(values[0]) and neg[1] < 1e-4 and neg[2] < 1e-6  # ReLU = 0 on the mass


# ----- tokens: the hook, the first-order estimate, departure → 0 ----------------------------------
def test_kink_far_from_the_tokens_makes_relu_tokens_equal_the_affine_problem():
    """b₁ = 40: no token crosses the kink, ReLU is the identity on every token, so the ReLU run is
    the affine-drift run F = W₂W₁, b = W₂b₁ (and the Gaussian linearisation is that drift)."""
    p = relu_problem(b1=(40, 40))
    X0 = _sample(p, 300, 2)
    run = simulate(p, X0, 0.5, steps=10)
    lin = gaussian_linearisation(p.relu, p.mean, p.cov)
    np.testing.assert_allclose(lin.F, [[1.5, 0.5], [1, 1]], atol=1e-15)
    aff = simulate(affine_twin(p, lin), X0, 0.5, steps=10)
    assert np.max(np.abs(run.final - aff.final)) < 1e-10


def test_coupled_departure_has_the_first_order_slope():
    """D(t) = t·‖Σ₀^{-1/2} r‖_{L²(μ₀^N)} + O(t²): the measured ratio D(t)/t approaches the sample norm."""
    p = relu_problem()
    rep = relu_departure(p, N=400, T=0.04, steps=4, save_every=1, floor_repeats=2, directions=16)
    ratios = [c / t for c, t in zip(rep.coupled[1:], rep.t[1:])]
    errs = [abs(r - rep.residual_empirical) for r in ratios]
    assert errs[0] < 0.02 * rep.residual_empirical
    assert errs[0] < errs[-1]  # the O(t) error of the ratio shrinks as t → 0
    assert rep.coupled[0] == 0 and rep.to_dict()["label"] == "numerical evidence"


def test_measured_departure_falls_to_the_noise_floor_as_the_kink_leaves():
    near = relu_departure(relu_problem(b1=(0, 0)), N=800, T=1, steps=8, save_every=8, floor_repeats=4)
    far = relu_departure(relu_problem(b1=(40, 40)), N=800, T=1, steps=8, save_every=8, floor_repeats=4)
    assert near.coupled[-1] > 0.2 and far.coupled[-1] < 1e-10
    f = near.floor["sliced_w2"]
    assert near.metrics[-1]["sliced_w2"] > f["mean"] + 3 * f["sd"]  # kink in the bulk: visibly non-Gaussian
    assert abs(far.metrics[-1]["sliced_w2"] - far.twin_metrics[-1]["sliced_w2"]) < 1e-8  # same cloud as the twin


def test_relu_departure_needs_a_relu_table():
    with pytest.raises(InvalidParameters, match="relu"):
        relu_departure(parse_problem(BASE), N=50)


def test_hostile_relu_tables_are_refused():
    wide = {"W1": [[1, 0]] * 65, "W2": [[1] * 65, [0] * 65]}
    for table in (wide, {"W1": [["1e99999", 0]], "W2": [[1], [0]]}, {"W1": "x", "W2": [[1], [0]]}, [1, 2]):
        with pytest.raises(InvalidParameters):
            parse_problem({**BASE, "relu": table})
