"""The classification's time budget (certify/search/budget.py) and the uniform fallback of a point
classification (a claim for a class of Σ₀ containing this Σ₀ decides it)."""

import time

import pytest

from symbolic_tf.certify.search.budget import (BudgetSpent, capped_seconds, check_budget, remaining, spent,
                                               suspended, time_budget)
from symbolic_tf.certify.search.routes import Context, prove
from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec.problem import parse_problem


def test_no_budget_is_a_no_op():
    assert remaining() is None and not spent()
    check_budget()
    assert capped_seconds(5.0) == 5.0


def test_budget_spends_and_nests():
    with time_budget(0.05):
        assert 0 < remaining() <= 0.05
        assert capped_seconds(10.0) <= 0.05
        with time_budget(100):        # an inner budget never extends the outer deadline
            assert remaining() <= 0.05
        time.sleep(0.06)
        assert spent()
        with pytest.raises(BudgetSpent):
            check_budget()
        with suspended():             # a certificate in hand is checked outside the budget
            check_budget()
            assert remaining() is None
        assert spent()
    assert remaining() is None


def test_backstop_interrupts_a_search_that_never_checks():
    # a loop with no cooperative check is stopped by the main thread's alarm, a grace second after
    t0 = time.monotonic()
    with pytest.raises(BudgetSpent):
        with time_budget(0.1):
            while True:
                sum(range(1000))
    assert time.monotonic() - t0 < 5.0


def _problem(A, cov, V=((1, 0), (0, 1))):
    return parse_problem({"variant": "softmax", "d": 2, "A": [list(r) for r in A], "V": [list(r) for r in V],
                          "initial": {"cov": [list(r) for r in cov]}})


def test_a_spent_budget_is_undecided_with_its_reason_never_a_different_claim():
    p = _problem([[1, "1/2"], ["-1/3", "1/4"]], [[1, "1/5"], ["1/5", "1/2"]], V=[[1, 2], [0, 1]])
    cut = classify(p, budget=1e-3, evidence=False)
    assert cut.status == "UNDECIDED"
    assert "time budget" in cut.reason
    assert cut.claim_data is None


def test_budget_leaves_a_decision_unchanged():
    # V = I, A + Aᵀ ≺ 0: the same checked claim with and without a budget
    p = _problem([[-1, 1], [0, -1]], [[2, 1], [1, 1]])
    a, b = classify(p, budget=None, evidence=False), classify(p, budget=60, evidence=False)
    assert a.status == b.status == "PROVED"
    assert a.claim_data.same_as(b.claim_data)


def test_uniform_claims_decide_the_instance_only_when_they_cover_it():
    # V = I, A = −I: "every Σ₀ ≻ 0 collapses" decides Σ₀ = I, and never the singular diag(1, 0)
    full = prove(_problem([[-1, 0], [0, -1]], [[1, 0], [0, 1]]), Context(uniform=True, instance=True))
    assert full.claim is not None and full.claim.regime == "CLUSTERING"
    singular = _problem([[-1, 0], [0, -1]], [[1, 0], [0, 0]])
    out = prove(singular, Context(uniform=True, instance=True))
    assert out.claim is None or out.claim.quantifier.value != "every Σ₀ ≻ 0"
    assert any("does not cover this Σ₀" in r for r in out.reasons)


def test_route_seconds_are_measured_and_account_for_the_wall_time():
    """classify reports each route's measured seconds (the route order's evidence in benchmarks/fresh_problems.py):
    the routes tried are exactly those named, the winner among them, and their sum is within the wall time."""
    doc = {"variant": "softmax", "d": 2, "A": [["1", "1/2"], ["-1/3", "1/4"]], "V": [["1", "2"], ["0", "1"]],
           "initial": {"cov": [["1", "1/5"], ["1/5", "1/2"]]}}
    t0 = time.perf_counter()
    c = classify(parse_problem(doc), evidence=False)
    wall = time.perf_counter() - t0
    secs = c.route_seconds
    assert c.status == "PROVED" and c.route in secs
    assert all(v >= 0 for v in secs.values()) and sum(secs.values()) <= wall
    assert c.to_dict()["route_seconds"].keys() == secs.keys()


def test_a_budget_spent_inside_the_float_hint_never_escapes(monkeypatch):
    """The float outlook is asked outside a route too (after a proved global claim, to decide whether to look for a
    sharper one): a budget that runs out inside it gives no hint ("unknown"), never a BudgetSpent out of classify."""
    from symbolic_tf.certify.search import routes

    def spent_now(problem, horizon):
        raise BudgetSpent()

    monkeypatch.setattr(routes, "_float_outlook", spent_now)
    p = _problem([[-1, 1], [0, -1]], [[2, 1], [1, 1]])
    ctx = Context()
    assert ctx.float_outlook(p) == "unknown" and not ctx._outlook
    c = classify(p, evidence=False)
    assert c.status == "PROVED"


def test_the_numerical_evidence_stays_within_the_budget(monkeypatch):
    """The float evidence of an UNDECIDED result gets what is left of the budget (at least
    EVIDENCE_SECONDS): an integration that never ends is cut, and classify still returns its reason."""
    from symbolic_tf.regimes import _evidence, classify as classify_module

    def endless(problem, horizon=None):
        while True:
            sum(range(1000))

    monkeypatch.setattr(_evidence, "numerical_evidence", endless)
    p = _problem([[1, "1/2"], ["-1/3", "1/4"]], [[1, "1/5"], ["1/5", "1/2"]], V=[[1, 2], [0, 1]])
    t0 = time.monotonic()
    cut = classify(p, budget=1e-3)
    wall = time.monotonic() - t0
    assert cut.status == "UNDECIDED" and "time budget" in cut.reason
    assert cut.numerical["outcome"] == "unfinished" and "cut by the time budget" in cut.numerical["summary"]
    # the evidence's own share plus the backstop's grace second and its tick
    assert wall < classify_module.EVIDENCE_SECONDS + 3.0, wall
