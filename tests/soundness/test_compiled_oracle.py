"""The compiled oracle (numba DOP853, tests/soundness/_compiled_oracle.py) against the SciPy one and
against the closed form T* of V = vI (docs/mathematics.md §4, §6).

The soak judges every PROVED verdict with the compiled engine, so it must see what the SciPy
engine sees: the same outcome (reached / blow-up / budget) and the same state, to the accuracy
both integrators are asked for.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from soundness import oracle as o
from soundness.strategies import random_document
from symbolic_tf.spec.problem import parse_problem

# heavy tier: compiling the numba kernels costs ~20 s of CPU in a fresh clone (then numba's cache)
pytestmark = pytest.mark.heavy


@pytest.fixture(scope="module")
def compiled():
    o.warm_up()
    yield
    o.use_engine("scipy")


def _run(engine, problem, *args, **kw):
    prev = o.use_engine(engine)
    try:
        return o.simulate(problem, *args, **kw)
    finally:
        o.use_engine(prev)


def _vI_problem(rng, d, drift):
    """softmax with V = vI (v ≠ 0), A with A + Aᵀ ≠ 0, Σ₀ ≻ 0, no drift or F = f·I."""
    q = lambda: str(Fraction(int(rng.integers(-4, 5)), int(rng.integers(1, 4))))  # noqa: E731
    A = [[q() for _ in range(d)] for _ in range(d)]
    A[0][0] = "1"  # A + Aᵀ has a positive diagonal entry: some Σ₀ direction blows up when v > 0
    B = rng.integers(-2, 3, size=(d, d))
    S = B @ B.T + np.eye(d)
    doc = {"variant": "softmax", "d": d, "A": A, "V": [["1" if i == j else "0" for j in range(d)] for i in range(d)],
           "initial": {"mean": ["0"] * d, "cov": [[str(int(x)) for x in row] for row in S]}}
    if drift:
        f = str(Fraction(int(rng.integers(-2, 3)), 4))
        doc["F"] = [[f if i == j else "0" for j in range(d)] for i in range(d)]
    return parse_problem(doc)


def test_compiled_blowup_time_matches_the_closed_form(compiled):
    """V = vI: T* = 1/(2ρ) (no drift) or ln(1 + f/ρ)/(2f) (F = f·I), ρ = λ_max(Σ₀^½ v(A+Aᵀ) Σ₀^½)/2."""
    rng = np.random.default_rng(20261207)
    seen = 0
    for k in range(24):
        p = _vI_problem(rng, 1 + k % 3, drift=k % 2 == 1)
        T = o.closed_form_Tstar(p)
        if T is None or not math.isfinite(T):
            continue
        r = _run("compiled", p, 2 * T)
        assert r.status == "blowup", (k, r.status, r.message)
        assert abs(r.t - T) <= 1e-8 * T, (k, r.t, T)
        seen += 1
    assert seen >= 10


def _agree(n, seed):
    """Every family of the soak's generator: the same outcome as the SciPy engine, the same
    blow-up time (relative 1e-8), and Σ(t) at the sample times and the end no farther from a
    tight-tolerance SciPy reference (rtol 1e-13) than the SciPy engine at the same rtol (1e-10)
    is, up to a factor 3 or 1e-7 relative (the two step sequences differ)."""
    rng0 = np.random.default_rng(seed)
    outcomes = set()
    for i in range(n):
        p = parse_problem(random_document(np.random.default_rng([int(rng0.integers(2**31)), i])))
        kw = dict(times=(0.5, 2.0), max_evals=20_000)
        a = _run("scipy", p, 4.0, rtol=1e-10, **kw)
        b = _run("compiled", p, 4.0, rtol=1e-10, **kw)
        outcomes.add(a.status)
        if "budget" in (a.status, b.status):
            continue  # the step sequences differ a little: a budget may end one run a step earlier
        assert a.status == b.status, (i, p.variant, a.status, b.status, a.message, b.message)
        if a.status == "blowup":
            assert abs(a.t - b.t) <= 1e-8 * a.t, (i, a.t, b.t)
        if a.status == "reached" and math.isfinite(a.s) and a.s > -600:
            ref = _run("scipy", p, 4.0, rtol=1e-13, atol=1e-16, times=(0.5, 2.0), max_evals=100_000)
            if ref.status != "reached":
                continue
            assert [t for t, *_ in a.samples] == [t for t, *_ in b.samples] == [0.5, 2.0]
            ends = [(r.samples + [(4.0, r.s, r.U)]) for r in (ref, a, b)]
            for (_, sr, Ur), (_, sa, Ua), (_, sb, Ub) in zip(*ends):
                Sr, Sa, Sb = (math.exp(x) * M for x, M in ((sr, Ur), (sa, Ua), (sb, Ub)))
                err_a, err_b = (np.max(np.abs(S - Sr)) for S in (Sa, Sb))
                assert err_b <= max(3 * err_a, 1e-7 * np.max(np.abs(Sr))), (i, p.variant, err_a, err_b)
    return outcomes


def test_compiled_and_scipy_engines_agree_on_random_problems(compiled):
    """:func:`_agree` on eight problems of the soak's generator."""
    assert {"reached", "blowup"} <= _agree(8, 7)


def test_compiled_and_scipy_engines_agree_on_many_random_problems(compiled):
    """:func:`_agree` on 60 more problems (the SciPy reference costs a minute)."""
    assert {"reached", "blowup"} <= _agree(60, 8)


def test_compiled_engine_keeps_the_budget_and_the_judgement(compiled):
    """The evaluation budget means the same for both engines (a long run stops as "budget"),
    and a judgement computed with either engine is the same."""
    doc = {"variant": "softmax", "d": 2, "A": [["0", "1"], ["-1", "0"]], "V": [["1", "0"], ["0", "1"]],
           "F": [["0", "1"], ["-1", "0"]], "initial": {"mean": ["0", "0"], "cov": [["1", "0"], ["0", "1/2"]]}}
    # A and F skew: d/dt tr Σ = 2 tr(FΣ) + 2 tr(AΣ²) = 0, so Σ(t) ⪰ 0 stays bounded and keeps turning
    p = parse_problem(doc)
    r = _run("compiled", p, 1e4, max_evals=2_000)
    assert r.status == "budget"
    prev = o.use_engine("compiled")
    try:
        jc = o.judge_no_blowup(p)
    finally:
        o.use_engine(prev)
    js = o.judge_no_blowup(p)
    assert jc.ok is js.ok is True
