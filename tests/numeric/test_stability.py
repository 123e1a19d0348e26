"""Non-Gaussian initial laws, W_p with POT, the stability constant C(t) and the mixture witness (issue 17)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.numeric.distances import wasserstein
from symbolic_tf.numeric._sampling import sample_law, support_radius
from symbolic_tf.numeric.particles import sample_initial, simulate
from symbolic_tf.numeric.stability import (log_stability_constant, measure_stability, perturb,
                                           stability_bound)
from symbolic_tf.spec.errors import InvalidParameters, NotGaussianClosed
from symbolic_tf.spec.problem import parse_problem, problem_to_dict

pytest.importorskip("ot")

BASE = {"variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/2", 1]], "V": [[1, 0], [0, 1]]}
BALL = {"law": "uniform_ball", "center": [0, 0], "radius": "1/2"}


def _p(initial, **kw):
    return parse_problem({**BASE, **kw, "initial": initial})


def test_gaussian_problem_keeps_its_serialisation_and_hash():
    doc = {**BASE, "initial": {"mean": [0, 0], "cov": [[1, 0], [0, "1/2"]]}}
    p = parse_problem(doc)
    assert p.initial_law is None and "law" not in problem_to_dict(p)["initial"]
    # the hash of a Gaussian problem is the SHA-256 of the same canonical JSON as before the hook
    import hashlib
    import json

    blob = json.dumps(problem_to_dict(p), sort_keys=True, separators=(",", ":"))
    assert p.content_hash() == hashlib.sha256(blob.encode()).hexdigest()
    assert set(problem_to_dict(p)) == {"variant", "d", "A", "V", "initial"}


def test_laws_round_trip_and_sample_inside_their_support(tmp_path):
    cloud = np.random.default_rng(1).standard_normal((40, 2))
    np.save(tmp_path / "c.npy", cloud)
    (tmp_path / "c.csv").write_text("\n".join(f"{float(a)!r},{float(b)!r}" for a, b in cloud))
    laws = [BALL, {"law": "uniform_box", "low": [-1, "-1/2"], "high": [1, "1/2"]},
            {"law": "mixture", "weights": ["1/3", "2/3"], "means": [[-1, 0], [1, 0]],
             "covs": [[[1, 0], [0, 1]], [["1/2", 0], [0, 0]]]},
            {"law": "empirical", "file": str(tmp_path / "c.npy")}, {"law": "empirical", "file": str(tmp_path / "c.csv")}]
    for init in laws:
        p = _p(init)
        q = parse_problem(problem_to_dict(p))
        assert q == p and q.content_hash() == p.content_hash()
        X, _ = sample_initial(p, 40, np.random.default_rng(0))
        assert X.shape == (40, 2) and np.all(np.isfinite(X))
        assert np.linalg.norm(X, axis=1).max() <= support_radius(p.initial_law)
    assert np.array_equal(sample_initial(_p(laws[3]), 40, 0)[0], cloud)  # N = cloud size: the cloud itself
    assert np.array_equal(sample_initial(_p(laws[4]), 40, 0)[0], cloud)  # csv repr round-trips exactly
    box = sample_law(_p(laws[1]).initial_law, 20000, np.random.default_rng(0))
    assert np.allclose(box.mean(0), 0, atol=0.02) and np.allclose(box.var(0), [1 / 3, 1 / 12], rtol=0.05)
    mix = sample_law(_p(laws[2]).initial_law, 20000, np.random.default_rng(0))
    assert abs(mix[:, 0].mean() - 1 / 3) < 0.03  # (1/3)(−1) + (2/3)(1); component 2 is degenerate in x₂
    assert abs(mix[:, 1].var() - 1 / 3) < 0.02  # (1/3)·1 + (2/3)·0


@pytest.mark.parametrize("init, field", [
    ({"law": "uniform_ball", "center": [0, 0], "radius": 0}, "initial.radius"),
    ({"law": "uniform_box", "low": [0, 0], "high": [1, 0]}, "initial.high"),
    ({"law": "mixture", "weights": ["1/2", "1/3"], "means": [[0, 0], [1, 1]], "covs": [[[1, 0], [0, 1]]] * 2},
     "initial.weights"),
    ({"law": "mixture", "weights": [1], "means": [[0, 0]], "covs": [[[1, 2], [2, 1]]]}, "initial.covs[0]"),
    ({"law": "empirical", "file": "no-such.npy"}, "initial.file"),
    ({"law": "cauchy"}, "initial.law"),
    ({"law": "uniform_ball", "center": [0, 0], "radius": 1, "cov": [[1, 0], [0, 1]]}, "initial.cov"),
])
def test_bad_laws_are_refused(init, field):
    with pytest.raises(InvalidParameters) as e:
        _p(init)
    assert e.value.field == field


def test_bad_clouds_are_refused(tmp_path):
    (tmp_path / "bad.csv").write_text("1,2\n3,x\n")
    (tmp_path / "wide.csv").write_text("1,2,3\n")
    np.save(tmp_path / "nan.npy", np.array([[0.0, np.nan]]))
    np.save(tmp_path / "shape.npy", np.zeros((3, 5)))
    for name in ("bad.csv", "wide.csv", "nan.npy", "shape.npy"):
        with pytest.raises(InvalidParameters, match="initial.file"):
            _p({"law": "empirical", "file": str(tmp_path / name)})


def test_gaussian_paths_refuse_non_gaussian_data():
    from symbolic_tf.regimes.classify import classify
    from symbolic_tf.symbolic.moments import derive_for_problem, problem_env

    p = _p(BALL)
    assert classify(p).status == "UNDECIDED" and "not Gaussian" in classify(p).reason
    with pytest.raises(NotGaussianClosed):
        problem_env(p, derive_for_problem(p))


def test_wasserstein_exact_identities():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2))
    assert wasserstein(X, X)["value"] == 0.0
    assert wasserstein(X, X[rng.permutation(60)])["value"] == 0.0  # a measure, not an ordering
    shift = np.array([3.0, 4.0])
    for p in (1, 2, 3):  # translation: W_p = |shift| exactly (the identity coupling is optimal)
        assert math.isclose(wasserstein(X, X + shift, p)["value"], 5.0, rel_tol=1e-12)
    # two methods: sliced W2 is a lower bound of exact W2, and both agree in d = 1
    Y = rng.standard_normal((60, 2)) * 2
    ex, sl = wasserstein(X, Y), wasserstein(X, Y, method="sliced")
    assert ex["method"].startswith("exact") and sl["method"].startswith("sliced") and sl["value"] <= ex["value"]
    x1, y1 = X[:, :1], Y[:, :1]
    assert math.isclose(wasserstein(x1, y1)["value"], wasserstein(x1, y1, method="sliced", directions=1)["value"],
                        rel_tol=1e-9)


def test_identical_flows_have_distance_zero():
    p = _p(BALL)
    X0, _ = sample_initial(p, 50, np.random.default_rng(3))
    a = simulate(p, X0, 0.5, steps=10)
    b = simulate(p, X0[::-1], 0.5, steps=10)  # the same measure, tokens listed in another order
    assert wasserstein(a.final, b.final)["value"] < 1e-12  # only summation-order rounding


def test_stability_constant_closed_form_without_growth():
    # V = 0, F = 0: R(t) = R0 and the rate is constant: log C(t) = t·L with L = 0 here (Γ = 0)
    p = parse_problem({**BASE, "V": [[0, 0], [0, 0]], "initial": BALL})
    b = stability_bound(p)
    assert np.allclose(log_stability_constant(b, 0.5, [0.0, 1.0]), 0.0)
    # V = I: the integrand is increasing, so the upper Riemann sum is >= the exact integral,
    # and it converges to it (the exact integral by a fine midpoint rule)
    b = stability_bound(_p(BALL))
    t = 0.3
    s = np.linspace(0, t, 200001)
    exact = np.trapezoid(b.rate(b.radius(0.5, s)), s)
    coarse = log_stability_constant(b, 0.5, [t], substeps=64)[0]
    fine = log_stability_constant(b, 0.5, [t])[0]
    assert coarse >= fine >= exact and fine - exact < 1e-3 * exact


def test_stability_bound_refuses_a_variant_without_a_constant():
    with pytest.raises(InvalidParameters, match="linear attention"):
        stability_bound(parse_problem({**BASE, "variant": "linear", "initial": BALL}))


@pytest.mark.parametrize("init, T", [(BALL, 0.6), ({"law": "uniform_box", "low": [-1, 0], "high": [1, "1/2"]}, 0.3)])
def test_measured_ratio_never_exceeds_the_stability_constant(init, T):
    """Soundness of the bound: many seeds and perturbations, empirical-to-empirical with exact OT."""
    p = _p(init, F=[["1/2", 0], [0, "-1/4"]], b=["1/10", 0])
    perts = [("shift", 0.1), ("scale", 0.2), ("noise", 0.05), ("rotate", 0.3), ("noise", 0.001)]
    res = measure_stability(p, T, perts, N=40, seeds=tuple(range(6)), steps=12, n_save=4)
    assert res["all_sound"] and len(res["runs"]) == 30
    for r in res["runs"]:
        assert np.all(np.log(r["ratio"][1:]) <= r["log_C"][1:])
        assert r["ratio"][0] == 1.0
    assert res["looseness_log10_at_T"] > 0


def test_perturbations_have_their_exact_sizes():
    X = np.random.default_rng(0).standard_normal((30, 2))
    rng = np.random.default_rng(1)
    assert math.isclose(wasserstein(X, perturb(X, "shift", 0.25, rng))["value"], 0.25, rel_tol=1e-9)
    Y = perturb(X, "rotate", 0.3, rng)
    assert np.allclose(np.linalg.norm(Y, axis=1), np.linalg.norm(X, axis=1))


def test_mixture_witness_is_exact():
    from symbolic_tf.symbolic.mixture import mixture_witness

    w = mixture_witness()
    assert (w["rank_tangent"], w["rank_augmented"], w["witness"]) == (6, 7, True)
    assert w["gamma_second_derivative_at_0"] == "-64/27"
    # Γ(x) = v(s a x + m·tanh-type term): its Taylor coefficients are exact rationals; the first
    # two by hand: Γ(0) = mean of μ₀ = (1/3)(−1) + (2/3)(1) = 1/3, Γ'(0) = a·Var(μ₀) = 2·(1 + 8/9)
    assert w["gamma_taylor_at_0"][:2] == ["1/3", str(Fraction(2) * (1 + Fraction(8, 9)))]
    # controls: a single Gaussian stays Gaussian (f in the span) ...
    assert mixture_witness(w=1)["witness"] is False
    # ... and at a·s = 1 the density is the softmax normaliser, so (ρΓ)' is in the span even
    # though Γ''(0) ≠ 0: a nonzero second derivative alone is no witness for mixtures
    d = mixture_witness(a=1)
    assert d["witness"] is False and d["gamma_second_derivative_at_0"] != "0"
    assert mixture_witness(a=1, s=Fraction(1, 2))["witness"] is True


def test_mixture_departure_grows_beyond_the_noise_floor():
    from symbolic_tf.numeric.laws import mixture_departure

    p = parse_problem({"variant": "softmax", "d": 1, "A": [[2]], "V": [[1]],
                       "initial": {"law": "mixture", "weights": ["1/3", "2/3"], "means": [[-1], [1]],
                                   "covs": [[[1]], [[1]]]}})
    r = mixture_departure(p, 0.8, N=1500, steps=16, n_save=2)
    assert r["label"] == "numerical evidence"
    last = np.abs(r["mardia_excess"][-1])
    assert np.max(last / np.array(r["noise_floor"])) > 3


def test_relative_cloud_file_is_read_from_the_problem_folder(tmp_path, monkeypatch):
    from symbolic_tf.spec.problem import load_problem

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "c.csv").write_text("# tokens\n0,1\n1,0\n-1,0\n")
    (tmp_path / "data" / "p.toml").write_text(
        'variant = "softmax"\nd = 2\nA = [[1, 0], [0, 1]]\nV = [[1, 0], [0, 1]]\n'
        '[initial]\nlaw = "empirical"\nfile = "c.csv"\n')
    monkeypatch.chdir(tmp_path)
    p = load_problem(tmp_path / "data" / "p.toml")
    assert np.array_equal(p.initial_law.points, [[0, 1], [1, 0], [-1, 0]])
    assert support_radius(p.initial_law) >= 1.0
    doc = problem_to_dict(p)
    assert doc["initial"]["file"] == "c.csv" and len(doc["initial"]["sha256"]) == 64
    (tmp_path / "data" / "c.csv").write_text("0,1\n")  # the file changed: its digest no longer matches
    with pytest.raises(InvalidParameters, match="initial.sha256"):
        parse_problem(doc, base_dir=tmp_path / "data")


def test_meanfield_and_api_accept_a_non_gaussian_law():
    import symbolic_tf as stf
    from symbolic_tf.numeric.meanfield import meanfield_check

    p = stf.Problem("softmax", A=BASE["A"], V=BASE["V"], initial=BALL)
    assert p == _p(BALL)
    with pytest.raises(InvalidParameters, match="initial"):
        stf.Problem("softmax", A=BASE["A"], V=BASE["V"], initial=BALL, cov=[[1, 0], [0, 1]])
    rep = meanfield_check(p, Ns=(20, 40), seeds=(0,), T=0.1, steps=4)
    assert rep.gaussian_closed is False and rep.prediction == {} and "not Gaussian" in rep.notes[0]
    # uniform on a disc: Mardia's kurtosis b₂ = E|z|⁴ over whitened samples is 16/3 < d(d+2) = 8 exactly
    assert all(m < 0 for m in rep.mardia_excess)
