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

import warnings
from fractions import Fraction

import numpy as np

from ...exact.definiteness import definiteness
from ...exact.rational import fmpq_of, frac_str, qmat_to_float
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ..check.certificate import Certificate, mat_str
from ..check.claims import Claim, Quantifier
from .riccati import riccati_data

__all__ = ["bounded_riccati_vI"]

KIND = "bounded-riccati-vI"
_DENOMINATORS = (10**2, 10**3, 10**4, 10**6, 10**8, 10**10)


def _sdp(F, R, S0):
    """Float M maximising the margin s (None when the solver fails or s ≤ 0)."""
    import cvxpy as cp

    d = F.shape[0]
    w, U = np.linalg.eigh(S0)
    root = (U * np.sqrt(np.clip(w, 0, None))) @ U.T
    scale = max(1.0, float(np.abs(R).max()), float(np.abs(F).max()))
    M = cp.Variable((d, d), symmetric=True)
    s = cp.Variable()
    I = np.eye(d)
    cons = [M >> s * I, -(F.T @ M + M @ F) - R >> s * scale * I, root @ M @ root << (1 - s) * I, s <= 0.5]
    prob = cp.Problem(cp.Maximize(s), cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for solver in ("CLARABEL", "SCS"):
            try:
                prob.solve(solver=solver)
            except Exception:  # noqa: BLE001 - a solver failure is an UNDECIDED, never a crash
                continue
            if prob.status in ("optimal", "optimal_inaccurate") and s.value is not None and M.value is not None:
                return (float(s.value), 0.5 * (M.value + M.value.T))
    return None


def _rational(Mf, q):
    import flint

    d = Mf.shape[0]
    vals = [[Fraction(float(Mf[i, j])).limit_denominator(q) for j in range(d)] for i in range(d)]
    return flint.fmpq_mat(d, d, [fmpq_of(vals[min(i, j)][max(i, j)]) for i in range(d) for j in range(d)])


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
    S0 = problem.exact.Sigma0
    found = _sdp(qmat_to_float(Fq), qmat_to_float(R), qmat_to_float(S0))
    if found is None:
        return Verdict(UNDECIDED, "", reason="the SDP for M (FᵀM + MF + R ⪯ 0, Σ₀ ≺ M⁻¹) failed")
    s, Mf = found
    if s <= 1e-9:
        return Verdict(UNDECIDED, "", reason=f"no M ≻ 0 with FᵀM + MF + R ⪯ 0 and Σ₀ ≺ M⁻¹ (best margin {s:.3g})",
                       numerical={"margin": s})
    for q in _DENOMINATORS:
        M = _rational(Mf, q)
        if not definiteness(M).pd or not definiteness(-(Fq.transpose() * M + M * Fq) - R).psd:
            continue
        if not definiteness(M.inv() - S0).pd:
            continue
        claim = Claim("BOUNDED", Quantifier.THIS, {})
        cert = Certificate.for_problem(problem, KIND, claim, PROVED, {"v": frac_str(v), "M": mat_str(M)})
        return Verdict(PROVED, claim.text(), "riccati-linearisation",
                       evidence={"regime": "BOUNDED", "certificate": cert.to_dict()}, numerical={"margin": s},
                       reason="M ≻ 0 with FᵀM + MF + R ⪯ 0 and Σ₀ ≺ M⁻¹: P = Σ⁻¹ stays ⪰ M, Σ(t) ⪯ M⁻¹")
    return Verdict(UNDECIDED, "", reason=f"the rounded M failed exact verification (float margin {s:.3g})",
                   numerical={"margin": s})


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
