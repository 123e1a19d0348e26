"""Certificates that a covariance flow cannot blow up (at most exponential growth).

* Sinkhorn (ε = 1): Σ̇ = VC + CᵀVᵀ (+ FΣ + ΣFᵀ) with C the cross-covariance of the entropic
  self-coupling; in whitened coordinates C = Σ^{1/2} K̃ Σ^{1/2} with ‖K̃‖₂ ≤ 1 (a
  cross-correlation), so ‖Σ̇‖₂ ≤ 2(‖V‖₂ + ‖F‖₂)‖Σ‖₂: ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂ e^{γt}.
* ℓ2 with G = KᵀK ≻ 0: JΣ = 2VΣ(I + 2GΣ)⁻¹AΣ and Σ(I + 2GΣ)⁻¹ = (Σ⁻¹ + 2G)⁻¹ ⪯ (2G)⁻¹, so
  ‖Σ̇‖₂ ≤ (2‖V‖‖A‖/λ_min(G) + 2‖F‖)‖Σ‖₂ (docs/mathematics.md §4: no finite-time blow-up).
Norms are bounded by rational u ≥ ‖·‖_F (checked as u² ≥ Σ entries²) and g ≤ λ_min(G)
(checked as G − gI ⪰ 0), all exact.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...exact.definiteness import definiteness
from ...exact.rational import fmpq_of, frac_str
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ...variants import growth_bound_of
from ..check.certificate import Certificate
from ..check.claims import Claim, Quantifier

__all__ = ["frobenius_upper", "no_blowup"]


def _exact_sqrt(q: Fraction) -> Fraction | None:
    a, b = math.isqrt(q.numerator), math.isqrt(q.denominator)
    return Fraction(a, b) if a * a == q.numerator and b * b == q.denominator else None


def frobenius_upper(M) -> Fraction:
    """A rational u ≥ ‖M‖_F (exactly: u² ≥ Σ m_ij²), within a factor 1 + 1e-9."""
    s = sum((Fraction(e) ** 2 for row in M for e in row), Fraction(0))
    if s == 0:
        return Fraction(0)
    r = _exact_sqrt(s)
    if r is not None:
        return r
    # a short decimal upper bound (readable in claims): ⌈√s·10⁶⌉/10⁶, raised until u² ≥ s exactly
    u = Fraction(math.ceil(math.sqrt(float(s)) * 10**6) + 1, 10**6)
    while u * u < s:
        u *= Fraction(1000001, 1000000)
    return u


def no_blowup(problem) -> Verdict:
    """For the variants whose declared growth bound gives ‖Σ̇‖ ≤ γ‖Σ‖
    (Sinkhorn: γ = 2(u_V + u_F); ℓ2: γ = 2u_V u_A τ/g + 2u_F with g ≤ λ_min(τKᵀK)),
    PROVED GLOBAL_EXISTENCE for every Σ₀ ⪰ 0 with a ``no-blowup`` certificate: the
    solution is global and ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}.
    """
    claim = "for every Σ₀ the covariance exists for all t and grows at most exponentially: ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}"
    F = problem.F
    uF = frobenius_upper(F) if F is not None else Fraction(0)
    bound = growth_bound_of(problem)
    if bound == "coupling":
        uV = frobenius_upper(problem.V)
        gamma = 2 * (uV + uF)
        data = {"u_V": frac_str(uV), "u_F": frac_str(uF), "gamma": frac_str(gamma)}
    elif bound == "inverse-kernel":
        import flint

        G = problem.exact.K.transpose() * problem.exact.K * fmpq_of(problem.scale)
        if G.rank() < problem.d:
            return Verdict(UNDECIDED, claim, reason="KᵀK is singular: the ℓ2 growth bound needs K of full column rank")
        import numpy as np

        Gf = np.array([[float(G[i, j].p) / float(G[i, j].q) for j in range(problem.d)] for i in range(problem.d)])
        g = Fraction(_float_lambda_min(Gf) * (1 - 1e-6)).limit_denominator(10**12)
        n = problem.d
        while g > 0 and not definiteness(G - flint.fmpq_mat(n, n, [fmpq_of(g) if i == j else 0
                                                                  for i in range(n) for j in range(n)])).psd:
            g /= 2
        if g <= 0:
            return Verdict(UNDECIDED, claim, reason="could not bound λ_min(KᵀK) from below")
        uV, uA = frobenius_upper(problem.V), frobenius_upper(problem.A)
        scale = Fraction(problem.scale)
        gamma = 2 * uV * uA * scale / g + 2 * uF
        data = {"u_V": frac_str(uV), "u_A": frac_str(uA), "g": frac_str(g), "u_F": frac_str(uF),
                "gamma": frac_str(gamma)}
    else:
        return Verdict(UNDECIDED, claim, reason="growth bound implemented for Sinkhorn and ℓ2")
    claim_d = Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": data["gamma"]})
    claim = claim_d.text()
    cert = Certificate.for_problem(problem, "no-blowup", claim_d, PROVED, data)
    return Verdict(PROVED, claim, "growth-bound",
                   evidence={"regime": "GLOBAL_EXISTENCE", "gamma": data["gamma"], "certificate": cert.to_dict()},
                   reason=f"‖Σ̇‖ ≤ γ‖Σ‖ with γ = {data['gamma']}: global existence, no finite-time blow-up")


def _float_lambda_min(Gf) -> float:
    """The float proposal of λ_min(KᵀK) (rationalised below it and verified exactly; a seam for the
    rounding tests, tests/certify/test_route_rounding.py)."""
    import numpy as np

    return float(np.linalg.eigvalsh(Gf).min())


# ---- route ----
from .routes import declare, searching  # noqa: E402 - the route is declared after the search it runs


def _growth_applies(problem, ctx):
    return None if growth_bound_of(problem) else "the variant declares no growth bound (Sinkhorn, ℓ2 do)"


declare("growth-bound", 30, ("GLOBAL_EXISTENCE",), _growth_applies, searching(no_blowup),
        modes=("point", "uniform"),
        doc="Every Σ₀ has a global, at most exponentially growing solution (‖Σ̇‖ ≤ γ‖Σ‖); variants that declare a "
            "growth bound (Sinkhorn, ℓ2 with KᵀK ≻ 0).")
