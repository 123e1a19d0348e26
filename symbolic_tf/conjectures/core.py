"""Conjectures and the runner that hunts for certified counterexamples.

Two kinds:

* :class:`RegimeConjecture` — "for every problem drawn from ``strategy`` (the hypothesis,
  satisfied by construction) the certified regime satisfies ``conclusion``".  The runner
  draws problems with hypothesis, classifies each (``symbolic_tf.regimes.classify``), and
  stops at the first *certified* violation (a PROVED classification contradicting the
  conclusion, with its certificate); hypothesis then shrinks it to a small example that is
  still a certified violation.  Violations seen only numerically are reported separately.
  Otherwise the report says "no counterexample in N examples" with what was tried.
* :class:`IdentityConjecture` — decided symbolically: PROVED for all parameters or REFUTED
  with an exact instance.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["RegimeConjecture", "IdentityConjecture", "VerifyReport", "verify", "CONCLUSIONS"]

GLOBAL = {"BOUNDED", "CLUSTERING", "EQUILIBRIUM", "GLOBAL_EXISTENCE"}


def _rank_of_cov(problem) -> int:
    from ..exact.rational import qmat

    return problem.exact.Sigma0.rank() if problem.cov is not None else problem.d


# conclusion(classification, problem) -> True (certified to hold) | False (certified violated) | None
def _bounded(c, p):
    if c.status != "PROVED":
        return None
    return c.regime in ("BOUNDED", "CLUSTERING", "EQUILIBRIUM") if c.regime != "GLOBAL_EXISTENCE" else None


def _no_blowup(c, p):
    if c.status != "PROVED":
        return None
    return c.regime in GLOBAL


def _blowup(c, p):
    if c.status != "PROVED":
        return None
    return c.regime == "BLOWUP"


def _global_rank_deficient(c, p):
    if c.status != "PROVED":
        return None
    if c.regime == "BLOWUP":
        return False
    if c.regime in ("CLUSTERING", "EQUILIBRIUM") and c.rank is not None:
        return c.rank < p.d
    if c.regime == "EQUILIBRIUM" and c.rank is None:
        return None
    return None


def _blowup_possible(c, p):
    """Some Σ₀ blows up: holds on a certified blow-up; violated by a *uniform* global verdict."""
    if c.status != "PROVED":
        return None
    if c.regime == "BLOWUP":
        return True
    return False if (c.uniform and c.regime in GLOBAL) else None


CONCLUSIONS: dict[str, Callable] = {
    "blowup_possible": _blowup_possible,
    "bounded": _bounded,
    "no_blowup": _no_blowup,
    "blowup": _blowup,
    "global_rank_deficient": _global_rank_deficient,
}


@dataclass
class RegimeConjecture:
    """Hypothesis (a strategy of problems) ⇒ conclusion (a predicate on the certified regime)."""

    name: str
    statement: str
    source: str
    strategy: object  # hypothesis SearchStrategy producing symbolic_tf.spec.Problem
    conclusion: str = "no_blowup"
    uniform: bool = False
    kind: str = "regime"
    explicit: list = field(default_factory=list)  # candidate problem documents tried first
    # reject draws with A = 0 or V = 0 (every head's, for multi-head): where the hypothesis
    # is then vacuous or trivially met, such a "counterexample" says nothing about the claim
    nondegenerate: bool = False


def degenerate(problem) -> bool:
    """True when the attention or value matrix is zero (every head's for multi-head): the flow is
    then the drift alone and a claim about attention is not tested.

    Parameters
    ----------
    problem : Problem
        A problem (single- or multi-head).

    Returns
    -------
    bool
        True iff A = 0 or V = 0 (for every head, in the multi-head case).
    """
    def zero(M):
        return M is None or all(x == 0 for row in M for x in row)

    if problem.heads:
        return all(zero(h.attention) or zero(h.V) for h in problem.heads)
    return zero(problem.A) or zero(problem.V)


@dataclass
class IdentityConjecture:
    """A symbolic identity decided by ``decide() -> Verdict`` (PROVED or REFUTED + instance)."""

    name: str
    statement: str
    source: str
    decide: Callable
    kind: str = "identity"


@dataclass
class VerifyReport:
    name: str
    statement: str
    source: str
    verdict: str                 # REFUTED | PROVED | NO_COUNTEREXAMPLE | UNDECIDED
    examples: int = 0
    seconds: float = 0.0
    counterexample: dict | None = None   # problem dict + classification
    certificate: dict | None = None
    tried: dict = field(default_factory=dict)
    numerical_violations: list = field(default_factory=list)
    evidence: dict = field(default_factory=dict)
    reason: str = ""
    #: proof for every d | proof for fixed d | certified counterexample | no counterexample in N examples | undecided
    evidence_kind: str = ""

    def to_dict(self) -> dict:
        """The report as a plain dict (one key per field).

        Returns
        -------
        dict
            Field name → value.
        """
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class _Counterexample(Exception):
    def __init__(self, problem, classification):
        super().__init__("certified counterexample")
        self.problem = problem
        self.classification = classification


def _numerically_violated(problem, conclusion: str, horizon: float = 20.0) -> bool:
    """Integrate the moment ODE (float): does it contradict the conclusion? (evidence only)"""
    import numpy as np

    from ..numeric.phases import integrate_problem
    from ..numeric.solution import BLOWUP

    try:
        # a large norm threshold, so exponential growth up to the horizon is not read as blow-up
        with np.errstate(all="ignore"):
            sol = integrate_problem(problem, horizon, rtol=1e-8, atol=1e-12, max_steps=20000, blowup_norm=1e30)
    except Exception:  # numerical evidence only: a failed run is no evidence
        return False
    blew = sol.status[0] == BLOWUP
    if conclusion in ("bounded", "no_blowup", "global_rank_deficient"):
        return bool(blew)
    if conclusion == "blowup":
        return not blew
    return False


def verify(conj, examples: int = 100, seed: int = 0, progress: Callable | None = None) -> VerifyReport:
    """Decide or test a conjecture (see the module docstring).

    An :class:`IdentityConjecture` is decided by its ``decide()``; a :class:`RegimeConjecture` is
    searched with hypothesis: each drawn problem is classified and the first PROVED
    classification that violates the conclusion is a certified counterexample (then shrunk).

    Parameters
    ----------
    conj : RegimeConjecture or IdentityConjecture
        The conjecture.
    examples : int
        The number of problems hypothesis draws (regime conjectures).
    seed : int
        The hypothesis seed.
    progress : callable, optional
        Called with a progress message every 10 distinct problems.

    Returns
    -------
    VerifyReport
        Verdict PROVED / REFUTED (identity), REFUTED with the counterexample and its certificate,
        or NO_COUNTEREXAMPLE with what was tried and the numerically violated problems.
    """
    t0 = time.perf_counter()
    if isinstance(conj, IdentityConjecture):
        from .theorems import COUNTEREXAMPLE, FIXED_D, UNDECIDED_KIND

        v = conj.decide()
        kind = v.evidence.get("evidence_kind") or {"PROVED": FIXED_D, "REFUTED": COUNTEREXAMPLE}.get(v.status, UNDECIDED_KIND)
        return VerifyReport(conj.name, conj.statement, conj.source, v.status, 1, time.perf_counter() - t0,
                            evidence=v.evidence, reason=v.reason, evidence_kind=kind)
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from ..regimes.classify import classify
    from ..spec.problem import parse_problem, problem_to_dict

    pred = CONCLUSIONS[conj.conclusion]
    seen: dict[str, tuple] = {}
    numeric: list = []

    @hseed(seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=(Phase.explicit, Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(conj.strategy)
    def search(problem):
        _search_body(problem)

    for doc in conj.explicit:  # researcher-supplied candidates (explicit phase; not shrunk)
        from hypothesis import example

        from ..spec.problem import parse_problem

        search = example(parse_problem(doc))(search)

    def _search_body(problem):
        if conj.nondegenerate and degenerate(problem):
            from hypothesis import reject

            reject()
        key = problem.content_hash()
        if key in seen:
            c = seen[key][1]
        else:
            c = classify(problem, uniform=conj.uniform, horizon=50.0)
            seen[key] = (problem, c)
            if progress and len(seen) % 10 == 0:
                progress(f"{conj.name}: {len(seen)} examples")
        ok = pred(c, problem)
        if ok is False:
            raise _Counterexample(problem, c)
        if ok is None and len(numeric) < 5 and not conj.uniform and problem.cov is not None:
            if _numerically_violated(problem, conj.conclusion):
                numeric.append(problem_to_dict(problem))

    found = None
    try:
        search()
    except _Counterexample as exc:
        found = exc
    tried = {
        "dimensions": dict(Counter(p.d for p, _ in seen.values())),
        "regimes": dict(Counter(f"{c.regime}/{c.status}" for _, c in seen.values())),
    }
    rep = VerifyReport(conj.name, conj.statement, conj.source, "", len(seen), time.perf_counter() - t0,
                       tried=tried, numerical_violations=numeric)
    if found is not None:
        c = found.classification
        rep.verdict = "REFUTED"
        rep.counterexample = {"problem": problem_to_dict(found.problem), "regime": c.regime, "status": c.status,
                              "rank": c.rank, "T_lo": c.T_lo, "T_hi": c.T_hi}
        rep.certificate = c.certificate
        rep.evidence_kind = "certified counterexample"
        rep.reason = f"certified counterexample: {c.regime} ({c.claim})"
        if any(parse_problem(doc).content_hash() == found.problem.content_hash() for doc in conj.explicit):
            rep.reason += " — from an explicit candidate"
    else:
        undecided = sum(1 for _, c in seen.values() if c.status != "PROVED")
        rep.verdict = "NO_COUNTEREXAMPLE"
        rep.evidence_kind = f"no counterexample in {len(seen)} examples"
        rep.reason = (f"no certified counterexample in {len(seen)} examples ({undecided} undecided)"
                      + (f"; {len(numeric)} numerically violated but not certified" if numeric else ""))
    return rep
