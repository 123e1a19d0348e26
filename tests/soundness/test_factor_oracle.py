"""The oracle's factor form for singular Σ₀ (tests/soundness/oracle.py, factor_simulate): Σ = XXᵀ with Ẋ = J(XXᵀ)X
keeps the rank exactly, where a float integration of Σ leaves the stratum by rounding."""
from __future__ import annotations

import numpy as np

from symbolic_tf.spec.problem import parse_problem

from .oracle import factor_simulate, judge, simulate

# a rank-one Σ₀ whose rank-one stratum is transversally unstable: the exact solution converges to a rank-one
# equilibrium (its factor freezes on an isotropic line of A), the float Σ-integration leaves the stratum
UNSTABLE = {"variant": "softmax", "d": 3, "A": [["1/3", "1/2", "1/4"], ["-1/3", "-1/2", "0"], ["1/4", "-1/3", "-1"]],
            "V": [["-1", "-2", "-1/2"], ["0", "-1/2", "-1"], ["-1/3", "1/2", "-1/3"]],
            "initial": {"cov": [["0", "0", "0"], ["0", "1", "0"], ["0", "0", "0"]]}}


def test_factor_and_sigma_forms_agree_where_the_stratum_is_harmless():
    """On a short horizon both integrate the same flow: Σ(1) agrees to 1e-8, or both blow up at the same time (a
    rank-one Σ₀ without drift; a rank-two Σ₀ with a drift that blows up at t ≈ 0.284)."""
    docs = [dict(UNSTABLE),
            {"variant": "softmax", "d": 3, "A": [["1", "0", "1/2"], ["0", "-1", "0"], ["1/3", "0", "1/2"]],
             "V": [["1", "1/2", "0"], ["0", "1", "0"], ["1/4", "0", "-1"]], "F": [["-1", "1", "0"], ["0", "-1", "0"],
                                                                                 ["0", "0", "-1/2"]],
             "b": ["0", "0", "0"], "initial": {"cov": [["2", "1", "0"], ["1", "1", "0"], ["0", "0", "0"]]}}]
    for doc in docs:
        p = parse_problem(doc)
        a = simulate(p, 1.0, rtol=1e-11, atol=1e-14)
        b = factor_simulate(p, 1.0, rtol=1e-11, atol=1e-14)
        assert a.status == b.status and a.status in ("reached", "blowup")
        if a.status == "reached":
            assert np.allclose(a.Sigma, b.Sigma, rtol=1e-8, atol=1e-10)
        else:   # both read the same blow-up time
            assert abs(a.t - b.t) <= 1e-6 * a.t


def test_the_factor_form_keeps_the_rank_where_the_sigma_form_leaves_it():
    p = parse_problem(UNSTABLE)
    long = factor_simulate(p, 400.0)
    assert long.status == "reached"
    w = np.linalg.eigvalsh(long.Sigma)
    assert w.min() > -1e-12 * w.max() and np.sort(w)[-2] < 1e-10 * w.max()   # rank one, Σ ⪰ 0
    sig = simulate(p, 400.0, rtol=1e-10, atol=1e-14, max_evals=60_000)
    # the Σ-form float run has left the rank-one stratum (blown up, or a second eigenvalue of size)
    assert sig.status != "reached" or np.sort(np.abs(np.linalg.eigvalsh(sig.Sigma)))[-2] > 1e-6


def test_a_rank_one_limit_is_judged_on_the_factor_form():
    from symbolic_tf.certify.search._rank_one_flow import rank_one_flow
    from symbolic_tf.certify.search.routes import Context

    p = parse_problem(UNSTABLE)
    v = rank_one_flow(p, Context())
    assert v.status == "PROVED"
    assert judge(p, v.evidence["certificate"]).ok is True
