"""Search for ``bounded-riccati-vI`` certificates: V = vI, any drift F, this Σ₀ stays below M⁻¹.

With V = vI, P = Σ⁻¹ solves the linear Ṗ = −(FᵀP + PF) − R (R = v(Ã + Ãᵀ)).  A rational M ≻ 0 with
FᵀM + MF + R ⪯ 0 and M⁻¹ − Σ₀ ≻ 0 keeps P(t) ⪰ M, i.e. Σ(t) ⪯ M⁻¹, for all t (the checker,
:mod:`symbolic_tf.certify.check.kinds.bounded_riccati_vI`, gives the argument).  It decides a Σ₀ whose
P(t) grows without bound in the stable directions of F and settles in the unstable ones — Σ(t) then tends
to a singular limit while a float integration of Σ̇ leaves the cone near it and "blows up" (e.g. a
d = 3 drift with eigenvalues −4/3, −0.07, 1.57).

Floats search, rationals decide: an SDP maximises the margin s of M ⪰ sI, −(FᵀM + MF) − R ⪰ sI and
Σ₀^{1/2}MΣ₀^{1/2} ⪯ (1 − s)I (the last ⟺ Σ₀ ⪯ (1 − s)M⁻¹, linear in M, singular Σ₀ included); M is
rounded to rationals for increasing denominators and decided exactly.
"""
from __future__ import annotations

from ...exact.rational import frac_str
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ..check.certificate import Certificate, mat_str
from ..check.claims import Claim, Quantifier
from .riccati import riccati_data, sublevel_metric

__all__ = ["bounded_riccati_vI"]

KIND = "bounded-riccati-vI"


def bounded_riccati_vI(problem) -> Verdict:
    """PROVED BOUNDED for this Σ₀ with a ``bounded-riccati-vI`` certificate, or UNDECIDED.

    An exact M ≻ 0 with FᵀM + MF + R ⪯ 0 and M⁻¹ − Σ₀ ≻ 0 gives Σ(t) ⪯ M⁻¹ for all t ≥ 0.

    Parameters
    ----------
    problem : Problem
        The problem (one softmax head with V = vI, optional drift F x + b, a Gaussian Σ₀).

    Returns
    -------
    Verdict
        PROVED with the certificate (holding v and M) in the evidence, or UNDECIDED with the reason.
    """
    data = riccati_data(problem) if problem.cov is not None else None
    if data is None:
        return Verdict(UNDECIDED, "", reason="needs softmax with V = v·I and a Gaussian Σ₀")
    v, R, F, _, _ = data
    d = problem.d
    import flint

    Fq = F if F is not None else flint.fmpq_mat(d, d)
    M, s, why = sublevel_metric(Fq, R, problem.exact.Sigma0)
    if M is not None:
        claim = Claim("BOUNDED", Quantifier.THIS, {})
        cert = Certificate.for_problem(problem, KIND, claim, PROVED, {"v": frac_str(v), "M": mat_str(M)})
        return Verdict(PROVED, claim.text(), "riccati-linearisation",
                       evidence={"regime": "BOUNDED", "certificate": cert.to_dict()}, numerical={"margin": s},
                       reason="M ≻ 0 with FᵀM + MF + R ⪯ 0 and Σ₀ ≺ M⁻¹: P = Σ⁻¹ stays ⪰ M, Σ(t) ⪯ M⁻¹")
    return Verdict(UNDECIDED, "", reason=why, numerical={} if s is None else {"margin": s})


# ---- route ----
from .routes import declare, needs, searching  # noqa: E402 - the route is declared after the search it runs
from .riccati import riccati_ready  # noqa: E402


def _has_sigma0(problem):
    return None if problem.cov is not None else "needs Σ₀"


# after the sharper routes for this Σ₀ (collapse, singular-equilibrium and basin tubes: Σ(t) ⪯ M⁻¹ holds for them too,
# and this route would pre-empt their limit), before tube-return (87, same regime, a long tube)
declare("drift-vI-sublevel", 87, ("BOUNDED",), needs(riccati_ready, _has_sigma0), searching(bounded_riccati_vI),
        doc="This Σ₀ stays below M⁻¹ for an exact M ≻ 0 with FᵀM + MF + R ⪯ 0 (P = Σ⁻¹ solves a linear flow); one "
            "quadratic head with V = v·I, drift or not.")
