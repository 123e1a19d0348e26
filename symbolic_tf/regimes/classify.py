"""Classify a parameter point: one regime with its status, claim and certificate.

Regimes (:class:`symbolic_tf.certify.check.claims.Regime`): CLUSTERING (with the rank of the limit),
EQUILIBRIUM, BOUNDED, GLOBAL_EXISTENCE, BLOWUP (with a rational bracket [T_lo, T_hi]) or
UNDECIDED (with the reason and the numerical evidence).  For the problem's own Σ₀, or with
``uniform=True`` for a class of Σ₀ (the claim's quantifier says which).

:func:`classify` is a loop over the route registry (:mod:`symbolic_tf.certify.search.routes`) in
declared order; it names no route and no variant.  A route's PROVED verdict becomes the
problem's regime only if

1. its certificate passes the independent checker (:func:`symbolic_tf.certify.check.check`),
   which re-derives the claim and status from the data, and
2. the checked claim's quantifier covers the problem's Σ₀, decided exactly
   (:meth:`symbolic_tf.certify.check.claims.Claim.covers`): e.g. "every Σ₀ ≻ 0" does not decide a
   singular Σ₀.

Proved claims that are not regimes of this Σ₀ (a locally stable equilibrium, a statement for
another class of Σ₀) are kept in ``side_claims``.  Float trouble inside a route (overflow,
LinAlgError, solver failure) makes that route pass with a reason — never a traceback.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

from ..certify.search.budget import DEFAULT_BUDGET
from ..certify.check.claims import Claim, Regime
from ..spec.errors import InvalidParameters
from ..spec.verdict import PROVED, UNDECIDED

__all__ = ["Classification", "classify", "REGIMES"]

REGIMES = tuple(r.value for r in Regime)


@dataclass
class Classification:
    """The outcome of :func:`classify` (JSON face: :meth:`to_dict`)."""

    # Declared fields only: their likeness to spec.problem.Problem's is of shape, no shared logic.
    regime: Regime
    status: str
    claim_data: Claim | None = None
    route: str | None = None
    reason: str = ""
    certificate: dict | None = None
    uniform: bool = False
    numerical: dict = field(default_factory=dict)
    side_claims: list = field(default_factory=list)
    #: route name → wall seconds spent in it (search and check; measured, for benchmarks)
    route_seconds: dict = field(default_factory=dict)

    @property
    def claim(self) -> str:
        """The claim in words (rendered from the claim's data)."""
        return self.claim_data.text() if self.claim_data is not None else ""

    @property
    def quantifier(self) -> str | None:
        """The claim's quantifier (its value, e.g. "every Σ₀ ≻ 0"), or None without a claim."""
        return self.claim_data.quantifier.value if self.claim_data is not None else None

    @property
    def rank(self) -> int | None:
        """The rank in the claim (e.g. of a CLUSTERING limit), or None."""
        return self.claim_data.rank if self.claim_data is not None else None

    @property
    def T_lo(self) -> str | None:
        """The lower end of the claim's blow-up bracket [T_lo, T_hi] (a rational string), or None."""
        return self.claim_data.params.get("T_lo") if self.claim_data is not None else None

    @property
    def T_hi(self) -> str | None:
        """The upper end of the claim's blow-up bracket [T_lo, T_hi] (a rational string), or None."""
        return self.claim_data.params.get("T_hi") if self.claim_data is not None else None

    def __repr__(self) -> str:
        from ..display import verdict_label

        head = verdict_label(self.regime, self.status)
        body = self.claim or self.reason
        if len(body) > 200:
            body = body[:197] + "…"
        cert = f", certificate {self.certificate['kind']}" if self.certificate else ""
        return f"Classification({head}: {body}{cert})"

    def _repr_latex_(self) -> str:  # Jupyter
        from ..display import verdict_label
        from ..spec.verdict import latex_verdict

        text = self.claim or self.reason
        return latex_verdict(verdict_label(self.regime, self.status), f": {text}" if text else "")

    def to_dict(self) -> dict:
        """The JSON face of the classification.

        Returns
        -------
        dict
            regime, status, claim, claim_data, quantifier, route, uniform, rank and T_lo / T_hi
            (when present), reason, certificate, side_claims and numerical_evidence (when present).
        """
        out = {"regime": str(self.regime), "status": self.status, "claim": self.claim,
               "claim_data": self.claim_data.to_dict() if self.claim_data is not None else None,
               "quantifier": self.quantifier, "route": self.route, "uniform": self.uniform}
        if self.rank is not None:
            out["rank"] = self.rank
        if self.T_lo is not None or self.T_hi is not None:
            out["T_lo"], out["T_hi"] = self.T_lo, self.T_hi
        out["reason"] = self.reason
        out["certificate"] = self.certificate
        out["side_claims"] = [{"route": r, "claim": c.to_dict(), "certificate": cert} for r, c, cert in self.side_claims]
        if self.route_seconds:
            out["route_seconds"] = {k: round(v, 4) for k, v in self.route_seconds.items()}
        if self.numerical:
            out["numerical_evidence"] = {k: (float(v) if isinstance(v, (int, float)) or hasattr(v, "__float__") else v)
                                         for k, v in self.numerical.items()}
        return out


@functools.lru_cache(maxsize=None)
def _closed(name: str) -> bool:
    """Gaussian closure of a registered variant (a symbolic decision, the same every time)."""
    from ..symbolic.closure import decide_invariance

    return decide_invariance(name).status == PROVED


def _gaussian_closed(problem, variant) -> bool:
    if variant.composite:
        return all(_closed(h.variant) for h in problem.heads)
    return _closed(variant.name)


def classify(problem, *, uniform: bool = False, horizon: float | None = None,
             evidence: bool = True, budget: float | None = DEFAULT_BUDGET) -> Classification:
    """The regime of ``problem`` (its Σ₀), or over a class of Σ₀ when ``uniform``.

    Parameters
    ----------
    problem : Problem
    uniform : bool
        Look for statements about every Σ₀ of a class (the claim's quantifier names it).
    horizon : float, optional
        Float horizon for the searches' numerical guesses (never part of a proof).
    evidence : bool
        For an UNDECIDED point verdict, integrate numerically and report what was seen
        (labelled numerical evidence).
    budget : float or None
        Wall-clock seconds for the searches (None: no limit).  When it ends, the search in
        progress stops and the result is UNDECIDED with the proved side claims, the routes not
        tried and the numerical evidence; a budget never changes a PROVED claim's content.

    Returns
    -------
    Classification
        The regime of the first route whose checked claim covers Σ₀ (status PROVED), else
        UNDECIDED with the reasons of every route and, when ``evidence``, the numerical evidence.
    """
    from ..certify.search.routes import Context, prove
    from ..variants import bind

    variant = bind(problem)
    if getattr(problem, "relu", None) is not None:
        return Classification(Regime.UNDECIDED, UNDECIDED, reason="the ReLU feed-forward W2·ReLU(W1 x + b1) is not "
                              "affine: Gaussians are not preserved, there is no moment ODE to classify "
                              "(see `symtf relu`)", uniform=uniform)
    if not _gaussian_closed(problem, variant):
        return Classification(Regime.UNDECIDED, UNDECIDED, reason=f"{variant.name} does not preserve Gaussians: "
                              "there is no moment ODE to classify (see `symtf invariance`)", uniform=uniform)
    if getattr(problem, "initial_law", None) is not None and not uniform:
        return Classification(Regime.UNDECIDED, UNDECIDED, uniform=uniform,
                              reason=f"the initial law is {problem.initial_law.kind!r}, not Gaussian: the Gaussian "
                                     "moment ODE does not describe it (see docs/stability.md)")
    if problem.cov is None and not uniform:
        raise InvalidParameters("initial.cov", "needed to classify the problem's Σ₀ (or use --uniform)")
    from ..certify.search.budget import time_budget
    from ..certify.search.routes import prepare

    prepare()  # import the searching modules before the clock starts: the budget is for searching
    started = time.monotonic()
    with time_budget(budget):
        res = prove(problem, Context(uniform=uniform, horizon=horizon))
        if res.claim is None and not uniform and not res.budget_spent:
            # a claim proved for a class of Σ₀ that contains this one decides it too
            wide = prove(problem, Context(uniform=True, horizon=horizon, instance=True))
            res.reasons += [f"{why} (for a class of Σ₀)" for why in wide.reasons]
            res.side += wide.side
            for name, sec in wide.seconds.items():
                res.seconds[name + " (class)"] = sec
            wide.seconds = res.seconds
            if wide.claim is not None:
                wide.reasons, wide.side = res.reasons, res.side
                res = wide
            else:
                res.budget_spent = wide.budget_spent
    if res.budget_spent and res.claim is None:
        res.reasons.append(f"the time budget of {budget:g} s ended the search (raise it with budget=… or "
                           "`symtf classify --budget SECONDS`)")
    reasons, side = res.reasons, res.side
    if res.claim is not None:
        v = res.verdict
        return Classification(res.claim.regime, PROVED, res.claim, res.route, v.reason, res.certificate, uniform,
                              dict(v.numerical), side, dict(res.seconds))
    if not reasons:
        reasons.append(f"no certification route for variant {problem.variant!r}"
                       + (" with drift" if problem.has_drift else ""))
    out = Classification(Regime.UNDECIDED, UNDECIDED, reason="; ".join(reasons), uniform=uniform, side_claims=side,
                         route_seconds=dict(res.seconds))
    if evidence and not uniform:
        out.numerical = _bounded_evidence(problem, horizon, budget, started)
    return out


#: the numerical evidence of an UNDECIDED result gets what is left of the budget, and at least this (s)
EVIDENCE_SECONDS = 2.0


def _bounded_evidence(problem, horizon, budget, started) -> dict:
    """The float evidence within the budget: a long, slow integration (20 000 steps cost ≈ 8 s) never
    pushes classify past ``budget`` by more than :data:`EVIDENCE_SECONDS`."""
    from ..certify.search.budget import BudgetSpent, time_budget
    from ._evidence import numerical_evidence

    left = None if budget is None else max(budget - (time.monotonic() - started), EVIDENCE_SECONDS)
    try:
        with time_budget(left):
            return numerical_evidence(problem, horizon)
    except BudgetSpent:
        return {"label": "numerical evidence (float integration, not a proof)", "outcome": "unfinished",
                "summary": f"numerical evidence: the float integration was cut by the time budget after {left:.3g} s"}
