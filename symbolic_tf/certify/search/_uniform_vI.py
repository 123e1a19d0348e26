"""Uniform (every Σ₀) statements for softmax with V = vI, from the sign of R = v(A + Aᵀ).

* R ≻ 0: every Σ₀ ≠ 0 blows up (BᵀRB ≻ 0 for every factor B of full column rank), at
  T*(Σ₀) = 1/λ_max(Σ₀^{1/2}RΣ₀^{1/2}) (no drift);
* R ⪯ 0 (no drift): every Σ₀ gives a global solution converging to a limit (clustering);
* with drift: R ≺ 0 and F anti-Hurwitz gives the stable equilibrium (riccati module).
"""
from __future__ import annotations

from ...exact.definiteness import definiteness
from ...exact.rational import fmpq_of, frac_str
from ...spec.verdict import PROVED, Verdict
from ..check.certificate import Certificate
from ..check.claims import Claim, Quantifier

__all__ = ["uniform_vI"]


def uniform_vI(problem) -> Verdict | None:
    """Regimes for every Σ₀ when V = vI and R = v(A + Aᵀ) is definite: R ≻ 0 (no drift) ⇒ every
    Σ₀ ≠ 0 blows up; R ⪯ 0 (no drift) ⇒ every solution is global (CLUSTERING when R ≠ 0,
    EQUILIBRIUM when R = 0); with drift and R ≺ 0,
    :func:`~symbolic_tf.certify.search.riccati.radon_equilibrium`.
    """
    from .riccati import radon_equilibrium, radon_pair

    v, A = radon_pair(problem)
    R = (A + A.transpose()) * fmpq_of(v)
    dR = definiteness(R)
    drift = problem.F is not None and any(e != 0 for row in problem.F for e in row)
    if drift:
        if dR.nd:
            return radon_equilibrium(problem, problem.exact.F, R, v)
        return None
    if dR.pd:
        claim = "every Σ₀ ≠ 0 blows up in finite time, at T* = 1/λ_max(Σ₀^{1/2} v(A+Aᵀ) Σ₀^{1/2})"
        regime = "BLOWUP"
    elif dR.nsd:
        claim = ("for every Σ₀ the solution is global and converges; the limit has rank "
                 "dim(ker v(A+Aᵀ) ∩ …) = rank Σ₀ − rank BᵀRB (Σ₀ = BDBᵀ)")
        regime = "CLUSTERING" if dR.neg else "EQUILIBRIUM"
    else:
        return None
    if regime == "BLOWUP":
        claim_d = Claim("BLOWUP", Quantifier.EVERY_NONZERO, {})
    elif regime == "EQUILIBRIUM":
        claim_d = Claim("EQUILIBRIUM", Quantifier.EVERY_PSD, {"stationary": True})
    else:
        claim_d = Claim("CLUSTERING", Quantifier.EVERY_PD, {"rank": problem.d - R.rank()})
    claim = claim_d.text()
    cert = Certificate.for_problem(problem, "uniform-vI", claim_d, PROVED,
                                   {"v": frac_str(v), "R_class": "PD" if dR.pd else "NSD", "regime": regime})
    return Verdict(PROVED, claim, "riccati-linearisation",
                   evidence={"regime": regime, "certificate": cert.to_dict()},
                   reason=f"R = v(A + Aᵀ) is {'positive definite' if dR.pd else 'negative semidefinite'}")


# ---- route ----
from .riccati import riccati_ready  # noqa: E402 - the route is declared after the search it runs
from .routes import declare, needs  # noqa: E402


def _uniform_search(problem, ctx):
    from ...spec.verdict import UNDECIDED

    v = uniform_vI(problem)
    return v if v is not None else Verdict(UNDECIDED, "", reason="V = vI: the regime depends on Σ₀")


declare("uniform-vI", 5, ("BLOWUP", "CLUSTERING", "EQUILIBRIUM"), needs(riccati_ready), _uniform_search,
        modes=("uniform",),
        doc="Every Σ₀ from the sign of R = v(A + Aᵀ) (uniform mode), for one quadratic head with V = v·I.")
