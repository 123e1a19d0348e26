"""The registry, and each variant's numeric velocity against its own symbolic declaration."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symbolic_tf import variants
from symbolic_tf.spec import UnknownVariant, parse_problem
from symbolic_tf.spec.errors import InvalidParameters


def test_registry_lists_the_issue_variants():
    assert {"softmax", "l2", "sinkhorn", "linear", "unnormalised", "sigmoid", "multihead", "masked"} <= set(
        variants.names())
    assert variants.get("ℓ2").name == "l2" and variants.get("SoftMax").name == "softmax"


def test_unknown_variant_is_a_project_error():
    with pytest.raises(UnknownVariant) as exc:
        variants.get("bogus")
    assert exc.value.field == "variant" and "softmax" in str(exc.value)


def _params(v, d, k, rng):
    P = {"scale": sp.Rational(1, 2), "sigmoid_bias": sp.Rational(1, 3)}
    for m in v.matrices:
        shape = (k, d) if m in ("Q", "K") else (d, d)
        P[m] = sp.Matrix(*shape, lambda i, j: sp.Rational(int(rng.integers(-3, 4)), 4))
    return {key: val for key, val in P.items() if key in v.matrices or key in v.scalars}


SIMPLE = [n for n in variants.names() if not variants.get(n).composite and variants.get(n).normalisation != "bistochastic"]


@pytest.mark.parametrize("name", SIMPLE)
def test_numeric_velocity_matches_the_declared_kernel(name):
    """Γ from the declared SymPy kernel (lambdified, summed over a point cloud) = ``velocity``."""
    v = variants.get(name)
    rng = np.random.default_rng(3)
    d, k, N, M = 2, 3, 7, 4
    P = _params(v, d, k, rng)
    xs, ys = sp.Matrix(sp.symbols("x0:2")), sp.Matrix(sp.symbols("y0:2"))
    kern = sp.lambdify(list(xs) + list(ys), sp.sympify(v.kernel(xs, ys, P)).doit(), "math")
    Vn = np.array(v.value(P).tolist(), dtype=float)
    Y, X = rng.normal(size=(N, d)), rng.normal(size=(M, d))
    sy, sq = rng.uniform(size=N), rng.uniform(size=M)
    want = np.zeros((M, d))
    for i in range(M):
        mask = (sy <= sq[i]) if v.causal else np.ones(N, bool)
        w = np.array([kern(*X[i], *Y[j]) for j in range(N)]) * mask
        num = Vn @ (w @ Y) / N
        want[i] = num / (w.sum() / N) if v.normalisation == "row" and w.sum() > 0 else (num if v.normalisation != "row" else 0)
    exact = {key: val for key, val in P.items()}
    numeric = v.numeric_params({key: (val.tolist() if isinstance(val, sp.MatrixBase) else val) for key, val in exact.items()})
    kw = {"sq": sq, "sy": sy} if v.causal else {}
    got = v.velocity(X, Y, numeric, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)


def test_multihead_velocity_is_the_weighted_sum_of_heads():
    doc = {"variant": "multihead", "d": 2, "heads": [
        {"A": [[1, 0], [0, "1/2"]], "V": [[1, 2], [0, 1]], "W": [[0, 1], [1, 0]]},
        {"A": [[0, 1], [-1, 0]], "V": [[1, 0], [0, -1]]}]}
    problem = parse_problem(doc)
    v = variants.bind(problem)
    params = v.numeric_params(v.exact_params(problem))
    rng = np.random.default_rng(0)
    Y, X = rng.normal(size=(9, 2)), rng.normal(size=(3, 2))
    soft = variants.get("softmax")
    want = np.zeros((3, 2))
    for h in problem.heads:
        p = soft.numeric_params({"A": h.A, "V": h.V, "scale": 1})
        W = np.eye(2) if h.W is None else np.array(h.W, dtype=float)
        want += soft.velocity(X, Y, p) @ W.T
    np.testing.assert_allclose(v.velocity(X, Y, params), want, rtol=1e-13)


def test_bind_reports_missing_matrices():
    with pytest.raises(InvalidParameters) as exc:
        variants.bind(parse_problem({"variant": "l2", "d": 1, "A": [[1]], "V": [[1]]}))
    assert exc.value.field == "Q"
    with pytest.raises(InvalidParameters) as exc:
        variants.bind(parse_problem({"variant": "softmax", "d": 1, "A": [[1]]}))
    assert exc.value.field == "V"
    with pytest.raises(InvalidParameters) as exc:
        variants.bind(parse_problem({"variant": "multihead", "d": 1}))
    assert exc.value.field == "heads"
