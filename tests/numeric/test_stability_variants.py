"""The stability constant of every variant (issue 50 item 2): its ingredients against finite differences of
the variant's own velocity, and the property "measured ratio ≤ C(t)" over seeds and random problems."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symbolic_tf import variants
from symbolic_tf.numeric.masked import conditional_wasserstein
from symbolic_tf.numeric.stability import measure_stability, stability_bound, stability_constant
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.problem import parse_problem

ot = pytest.importorskip("ot")

BALL = {"law": "uniform_ball", "center": [0, 0], "radius": "1/2"}
VARIANTS = ("softmax", "l2", "sinkhorn", "sigmoid", "masked", "multihead")


def _mat(rng, scale, d=2):
    return [[f"{x:.3f}" for x in row] for row in scale * rng.standard_normal((d, d))]


def _problem(name, rng, scale=0.7, **extra):
    """A random small problem of variant ``name`` (exact entries with three decimals)."""
    doc = {"variant": name, "d": 2, "initial": BALL, **extra}
    if name == "l2":
        doc.update(Q=_mat(rng, scale), K=_mat(rng, scale), V=_mat(rng, 1.0))
    elif name == "multihead":
        doc["heads"] = [{"variant": "softmax", "A": _mat(rng, scale), "V": _mat(rng, 1.0), "W": _mat(rng, 0.7)},
                        {"variant": "sigmoid", "A": _mat(rng, scale), "V": _mat(rng, 1.0)},
                        {"variant": "sinkhorn", "A": _mat(rng, scale), "V": _mat(rng, 0.5)}]
    else:
        doc.update(A=_mat(rng, scale), V=_mat(rng, 1.0))
    return parse_problem(doc)


def _in_ball(rng, n, R):
    z = rng.standard_normal((n, 2))
    return R * rng.uniform(0, 1, (n, 1)) ** 0.5 * z / np.linalg.norm(z, axis=1, keepdims=True)


def _field(problem):
    """x ↦ Γ_μ(x) for the problem's variant, its own numeric velocity (positions for masked)."""
    v = variants.bind(problem)
    q = v.numeric_params(v.exact_params(problem))

    def gamma(Xq, Y, sq=None, sy=None):
        kw = {"sq": sq, "sy": sy} if v.causal else {}
        return v.velocity(Xq, Y, q, **kw)

    return gamma


@pytest.mark.parametrize("name", VARIANTS)
def test_lipschitz_ingredients_dominate_finite_differences(name):
    """|Γ| ≤ gR, |Γ_μ(x) − Γ_μ(x')| ≤ L_x|x − x'| and |Γ_μ(x) − Γ_ν(x)| ≤ L_μ W₁(μ, ν) on B(R), random pairs."""
    from symbolic_tf.numeric.distances import wasserstein

    rng = np.random.default_rng(sum(map(ord, name)))
    worst = {"grow": 0.0, "lx": 0.0, "lmu": 0.0}
    for trial in range(12):
        p = _problem(name, rng, scale=float(rng.uniform(0.2, 1.5)))
        R = float(rng.uniform(0.3, 1.2))
        n = 8
        Y = _in_ball(rng, n, R)
        Z = np.clip(Y + 0.2 * R * rng.standard_normal(Y.shape), -R, R)
        Z *= np.minimum(1.0, R / np.linalg.norm(Z, axis=1, keepdims=True))  # ν also in B(R)
        s = np.sort(np.concatenate([[0.0, 0.0], rng.uniform(0, 1, n - 2)])) if name == "masked" else None
        b = stability_bound(p, cone_mass=2 / n) if name == "masked" else stability_bound(p)
        (L, _, _), = b.phases
        gamma = _field(p)
        x = _in_ball(rng, 6, R)
        x2 = x + 1e-3 * R * rng.standard_normal(x.shape)
        x2 *= np.minimum(1.0, R / np.linalg.norm(x2, axis=1, keepdims=True))
        sq = s[rng.integers(0, n, 6)] if s is not None else None
        kw = {"sq": sq, "sy": s}
        G = gamma(x, Y, **kw)
        worst["grow"] = max(worst["grow"], np.linalg.norm(G, axis=1).max() / (L.grow * R))
        dx = np.linalg.norm(G - gamma(x2, Y, **kw), axis=1) / np.linalg.norm(x - x2, axis=1)
        worst["lx"] = max(worst["lx"], dx.max() / float(L.lx(R)))
        if name == "masked":  # conditional distance on shared positions, smallest cone mass 2/n
            W = conditional_wasserstein(Y, Z, s, p=2)
        else:
            W = wasserstein(Y, Z, 1, method="exact")["value"]
        dmu = np.linalg.norm(G - gamma(x, Z, **kw), axis=1).max() / W
        worst["lmu"] = max(worst["lmu"], dmu / float(L.lmu(R)))
    assert all(0 < w <= 1 for w in worst.values()), worst


def test_the_leading_term_of_the_softmax_constant_is_attained():
    """A = 0: Γ_μ(x) = V·mean(μ), so shifting μ along V's top singular direction gives exactly ‖V‖ W₁ = L_μ W₁."""
    p = parse_problem({"variant": "softmax", "d": 2, "A": [[0, 0], [0, 0]], "V": [[2, 1], [0, 1]], "initial": BALL})
    (L, _, _), = stability_bound(p).phases
    V = np.array([[2.0, 1.0], [0.0, 1.0]])
    u, sv, wt = np.linalg.svd(V)
    Y = _in_ball(np.random.default_rng(0), 10, 0.5)
    delta = 1e-2 * wt[0]
    diff = _field(p)(Y[:1], Y + delta) - _field(p)(Y[:1], Y)
    assert math.isclose(np.linalg.norm(diff), float(L.lmu(0.6)) * 1e-2, rel_tol=1e-9)
    assert math.isclose(float(L.lmu(0.6)), sv[0], rel_tol=1e-9) and float(L.lx(0.6)) == 0.0


def test_masked_constant_scales_with_the_smallest_cone_and_sup_is_softmax():
    rng = np.random.default_rng(5)
    p = _problem("masked", rng)
    soft = parse_problem({"variant": "softmax", "d": 2, "A": [[f"{float(x)}" for x in r] for r in p.A],
                          "V": [[f"{float(x)}" for x in r] for r in p.V], "initial": BALL})
    R = 0.8
    (Ls, _, _), = stability_bound(soft).phases
    (Lsup, _, _), = stability_bound(p, reduce="sup").phases
    (Lm, _, _), = stability_bound(p, cone_mass=1 / 16, p=2).phases
    assert math.isclose(float(Lsup.lmu(R)), float(Ls.lmu(R)), rel_tol=1e-12)
    assert math.isclose(float(Lm.lmu(R)), 4 * float(Ls.lmu(R)), rel_tol=1e-12)  # (1/16)^(-1/2) = 4


def test_variants_without_a_constant_say_why_in_one_line():
    rng = np.random.default_rng(1)
    for name, word in (("linear", "cube"), ("unnormalised", "faster")):
        bound, reason = stability_constant(_problem(name, rng))
        assert bound is None and word in reason and "\n" not in reason
        with pytest.raises(InvalidParameters, match="finite depth"):
            stability_bound(_problem(name, rng))
        res = measure_stability(_problem(name, rng), 0.2, (("shift", 0.05),), N=8, seeds=(0,), steps=4, n_save=2)
        assert res["constant"]["available"] is False and res["log_C_max"] is None and res["all_sound"] is None


@pytest.mark.parametrize("name", VARIANTS)
def test_measured_ratio_stays_below_the_constant(name):
    """Fast tier: one random problem per variant, two seeds, two perturbations."""
    rng = np.random.default_rng(17 + len(name))
    extra = {"masked": {"positions": "grid:3", "sink": "1/4"}} if name == "masked" else {}
    p = _problem(name, rng, scale=1.0, F=[["1/4", 0], [0, "-1/4"]], b=["1/10", 0], **extra)
    res = measure_stability(p, 0.4, (("shift", 0.05), ("noise", 0.02)), N=12, seeds=(0, 1), steps=6, n_save=3)
    assert res["constant"]["available"] and res["all_sound"] is True
    for r in res["runs"]:
        assert r["ratio"][0] == 1.0 and np.all(np.log(r["ratio"][1:]) <= np.array(r["log_C"][1:]))
    if name == "masked":
        assert res["all_sound_sup"] is True and res["positions"] == {"kind": "grid:3", "sink": 0.25}
        assert all(r["cone_mass"] == 3 / 12 for r in res["runs"])  # round(12/4) sink tokens at s = 0


@pytest.mark.heavy
@pytest.mark.parametrize("name", VARIANTS)
def test_measured_ratio_stays_below_the_constant_sweep(name):
    """Many seeds and random problems: the measured ratio never exceeds C(t) (W_p, p = 1 and 2)."""
    rng = np.random.default_rng(1000 + len(name))
    perts = (("shift", 0.1), ("scale", 0.2), ("noise", 0.05), ("rotate", 0.3))
    for trial in range(5):
        extra = {}
        if name == "masked":
            extra["masked"] = {"positions": ["uniform", "grid:4"][trial % 2], "sink": ["0", "1/5"][trial % 2]}
        p = _problem(name, rng, scale=float(rng.uniform(0.3, 2.0)), F=_mat(rng, 0.5), b=["1/10", "-1/10"], **extra)
        for order in (1, 2):
            res = measure_stability(p, 0.5, perts, N=20, seeds=tuple(range(4)), steps=10, n_save=5, p=order)
            assert res["all_sound"] is True, (trial, order)
            if name == "masked":
                assert res["all_sound_sup"] is True
