"""Generated numpy right-hand sides against exact evaluation, batching, and the disk cache."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf import variants
from symbolic_tf.numeric.codegen import compile_system, generate_source, numeric_env
from symbolic_tf.spec import parse_problem
from symbolic_tf.symbolic.moments import derive, derive_for_problem, rhs

CLOSED = [n for n in variants.names() if variants.get(n).expected_closed]


def _q(rng, den=4):
    return f"{rng.randint(-4, 4)}/{den}"


def _doc(name, d, rng, drift):
    L = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(d)]
    cov = [[str(sum(L[i][k] * L[j][k] for k in range(d)) + (2 if i == j else 0)) for j in range(d)] for i in range(d)]
    M = lambda r, c: [[_q(rng) for _ in range(c)] for _ in range(r)]  # noqa: E731
    doc = {"variant": name, "d": d, "scale": "3/2", "initial": {"mean": [_q(rng) for _ in range(d)], "cov": cov}}
    if name == "multihead":
        doc["heads"] = [{"A": M(d, d), "V": M(d, d), "W": M(d, d)}, {"A": M(d, d), "V": M(d, d)}]
    elif name == "l2":
        doc.update(Q=M(d + 1, d), K=M(d + 1, d), V=M(d, d))
    else:
        doc.update(A=M(d, d), V=M(d, d))
    if drift:
        doc.update(F=M(d, d), b=[_q(rng) for _ in range(d)])
    return doc


@pytest.mark.parametrize("name", CLOSED)
@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("drift", [False, True])
def test_generated_rhs_matches_exact_evaluation(name, d, drift, tmp_path):
    rng = random.Random(hash((name, d, drift)) % 1000)
    problem = parse_problem(_doc(name, d, rng, drift))
    system = derive_for_problem(problem)
    compiled = compile_system(system, cache=tmp_path)
    env = numeric_env(problem, system)
    a0 = np.array([float(x) for x in problem.mean])
    S0 = np.array([[float(x) for x in r] for r in problem.cov])
    da, dS = compiled.rhs(a0, S0, env)
    exact = rhs(problem)
    want_a = np.array([float(Fraction(x)) if exact.exact else float(x) for x in exact.mean_rhs])
    want_S = np.array([[float(Fraction(x)) if exact.exact else float(x) for x in r] for r in exact.cov_rhs])
    scale = max(1.0, np.abs(want_S).max(), np.abs(want_a).max())
    assert np.abs(dS[0] - want_S).max() <= 1e-12 * scale
    assert np.abs(da[0] - want_a).max() <= 1e-12 * scale


@pytest.mark.parametrize("name", CLOSED)
def test_batched_equals_unbatched(name, tmp_path):
    rng = random.Random(11)
    probs = [parse_problem(_doc(name, 2, rng, True)) for _ in range(4)]
    system = derive_for_problem(probs[0])
    compiled = compile_system(system, cache=tmp_path)
    envs = [numeric_env(p, system) for p in probs]
    A0 = np.array([[float(x) for x in p.mean] for p in probs])
    S0 = np.array([[[float(x) for x in r] for r in p.cov] for p in probs])
    batched = {k: np.stack([np.broadcast_to(np.asarray(e[k], float), np.shape(envs[0][k])) for e in envs])
               for k in envs[0]}
    batched = {k: (v if v.ndim != 1 else v) for k, v in batched.items()}
    da, dS = compiled.rhs(A0, S0, batched)
    for i, e in enumerate(envs):
        da1, dS1 = compiled.rhs(A0[i], S0[i], e)
        np.testing.assert_allclose(dS[i], dS1[0], rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(da[i], da1[0], rtol=1e-14, atol=1e-14)


def test_cache_is_content_addressed(tmp_path, monkeypatch):
    system = derive("softmax", scale=None)
    c1 = compile_system(system, cache=tmp_path)
    assert c1.path.exists() and c1.path.parent == tmp_path
    assert c1.path.read_text() == generate_source(system)
    assert compile_system(derive("softmax", scale=None), cache=tmp_path).path == c1.path
    other = compile_system(derive("linear", scale=None), cache=tmp_path)
    assert other.path != c1.path


def test_generated_code_is_matrix_form_not_expanded():
    src = generate_source(derive("multihead", scale=None))
    assert "@" in src and "Sigma_00" not in src
