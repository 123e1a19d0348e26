"""Classify a parameter point: one regime with its status and certificate.

Regimes: CLUSTERING (with the rank of the limit), EQUILIBRIUM, BOUNDED, EXPONENTIAL_GROWTH
(global existence with at most exponential growth), BLOWUP (with a rational bracket
[T_lo, T_hi]) or UNDECIDED (with the reason).  For the problem's own Σ₀, or with
``uniform=True`` for every Σ₀.

Routes, in order (each returns a certified verdict or passes):
1. softmax with V = v·I (± drift F x + b): exact Riccati linearisation
   (:mod:`symbolic_tf.certify.riccati`); with drift and general V, a Krawczyk-certified,
   locally stable equilibrium (:mod:`symbolic_tf.certify.equilibrium`);
2. Sinkhorn, ℓ2 with KᵀK ≻ 0: growth bounds (:mod:`symbolic_tf.certify.growth`);
3. softmax / multi-head with general V, no drift: LMI certificates
   (:mod:`symbolic_tf.certify.lmi`): bounded for every Σ₀, or blow-up with a bracket,
   tightened by validated interval Taylor integration (:mod:`symbolic_tf.certify.taylor`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..spec.errors import InvalidParameters
from ..spec.verdict import PROVED, UNDECIDED, Verdict

__all__ = ["Classification", "classify", "REGIMES"]

REGIMES = ("CLUSTERING", "EQUILIBRIUM", "BOUNDED", "EXPONENTIAL_GROWTH", "BLOWUP", "UNDECIDED")


@dataclass
class Classification:
    """The JSON face of a classification (keys of issue 4: regime, status, rank, T_lo, T_hi,
    reason, certificate)."""

    regime: str
    status: str
    claim: str = ""
    rank: int | None = None
    T_lo: str | None = None
    T_hi: str | None = None
    reason: str = ""
    certificate: dict | None = None
    uniform: bool = False
    numerical: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {"regime": self.regime, "status": self.status, "claim": self.claim, "uniform": self.uniform}
        if self.rank is not None:
            out["rank"] = self.rank
        if self.T_lo is not None:
            out["T_lo"], out["T_hi"] = self.T_lo, self.T_hi
        out["reason"] = self.reason
        out["certificate"] = self.certificate
        if self.numerical:
            out["numerical_evidence"] = {k: (float(v) if hasattr(v, "__float__") else v) for k, v in self.numerical.items()}
        return out


def _from_verdict(v: Verdict, default_regime: str, uniform: bool) -> Classification:
    if v.status != PROVED:
        return Classification("UNDECIDED", UNDECIDED, v.claim, reason=v.reason, uniform=uniform, numerical=v.numerical)
    ev = v.evidence
    return Classification(ev.get("regime", default_regime), PROVED, v.claim, rank=ev.get("rank"),
                          T_lo=ev.get("T_lo"), T_hi=ev.get("T_hi"), reason=v.reason,
                          certificate=ev.get("certificate"), uniform=uniform, numerical=v.numerical)


def classify(problem, *, uniform: bool = False, horizon: float | None = None) -> Classification:
    """The regime of ``problem`` (its Σ₀), or over every Σ₀ when ``uniform``."""
    from ..symbolic.closure import decide_invariance
    from ..variants import bind

    variant = bind(problem)
    heads_closed = (all(decide_invariance(h.variant).status == PROVED for h in problem.heads)
                    if variant.composite else decide_invariance(variant).status == PROVED)
    if not heads_closed:
        return Classification("UNDECIDED", UNDECIDED, reason=f"{variant.name} does not preserve Gaussians: "
                              "there is no moment ODE to classify (see `symtf invariance`)", uniform=uniform)
    if problem.cov is None and not uniform:
        raise InvalidParameters("initial.cov", "needed to classify the problem's Σ₀ (or use --uniform)")
    reasons = []

    # 1. V = vI softmax (+ drift): exact
    from ..certify import riccati

    if riccati.scalar_of_identity(problem.V or ((1,),)) is not None and problem.variant == "softmax":
        if uniform:
            from ..certify.uniform import uniform_vI

            res = uniform_vI(problem)
            if res is not None:
                return _from_verdict(res, "BLOWUP", True)
            reasons.append("V = vI: no uniform statement (the regime depends on Σ₀)")
        else:
            v = riccati.classify_vI(problem, horizon)
            if v is not None and v.status == PROVED:
                return _from_verdict(v, "BLOWUP", False)
            if v is not None:
                reasons.append(v.reason)

    # 1b. drift model with general V: a certified, locally stable equilibrium (Krawczyk)
    if problem.variant == "softmax" and problem.has_drift and not uniform:
        from ..certify.equilibrium import find_equilibrium

        e = find_equilibrium(problem)
        if e.status == PROVED:
            c = _from_verdict(e, "EQUILIBRIUM", False)
            c.reason = (e.reason or "") + " (local exponential stability: the problem's Σ₀ is only shown to "\
                "converge numerically, see numerical_evidence)"
            return c
        reasons.append(e.reason)

    # 2. no finite-time blow-up for Sinkhorn / ℓ2
    if problem.variant in ("sinkhorn", "l2"):
        from ..certify.growth import no_blowup

        v = no_blowup(problem)
        if v.status == PROVED:
            return _from_verdict(v, "EXPONENTIAL_GROWTH", True)
        reasons.append(v.reason)

    # 3. LMIs for softmax / multi-head with general V
    if problem.variant in ("softmax", "multihead") and not problem.has_drift:
        try:
            from ..certify import lmi
        except ImportError:  # pragma: no cover - the module ships with the package
            lmi = None
        if lmi is not None:
            b = lmi.find_bounded_certificate(problem)
            if b.status == PROVED:
                c = _from_verdict(b, "BOUNDED", True)
                c.regime = "BOUNDED"
                return c
            reasons.append(b.reason)
            if uniform or problem.cov is not None:
                u = lmi.find_blowup_certificate(problem)
                if u.status == PROVED and not uniform:
                    # tighten the LMI bracket by a validated Taylor integration (never wider)
                    from ..certify.taylor import tighten_blowup_bracket

                    tight = tighten_blowup_bracket(problem, lmi_verdict=u)
                    if tight.status == PROVED:
                        u = tight
                if u.status == PROVED:
                    c = _from_verdict(u, "BLOWUP", uniform)
                    c.regime = "BLOWUP"
                    if uniform:
                        c.T_lo = c.T_hi = None
                    return c
                reasons.append(u.reason)
    if not reasons:
        reasons.append(f"no certification route for variant {problem.variant!r}"
                       + (" with drift" if problem.has_drift else ""))
    return Classification("UNDECIDED", UNDECIDED, reason="; ".join(r for r in reasons if r), uniform=uniform)
