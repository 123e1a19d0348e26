"""The growth theorems instantiated for a problem (the search side of the
``exponential-growth-theorem`` kind): exact norm bounds as in :mod:`symbolic_tf.certify.search._growth`
plus the name and SHA-256 of the stored matrix-form theorem (docs/mathematics.md §10)."""
from __future__ import annotations

from ....spec.verdict import PROVED, UNDECIDED, Verdict
from ....variants import growth_bound_of
from ...check.certificate import Certificate
from ...check.claims import Claim, Quantifier
from ...check.matrix_proofs.order import stored_theorem

__all__ = ["growth_certificate"]

KIND = "exponential-growth-theorem"
# the stored theorem behind each declared growth bound (Variant.growth_bound)
THEOREM = {"inverse-kernel": "l2-growth", "coupling": "sinkhorn-growth"}


def growth_certificate(problem) -> Verdict:
    """PROVED (every Σ₀ ⪰ 0: global, ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}) for Sinkhorn and ℓ2 with KᵀK ≻ 0."""
    from .._growth import no_blowup

    claim_words = "every Σ₀ ⪰ 0: global solution with at most exponential growth (matrix-form theorem)"
    bound = growth_bound_of(problem)
    if bound not in THEOREM:
        return Verdict(UNDECIDED, claim_words, reason="growth theorems exist for Sinkhorn and ℓ2")
    base = no_blowup(problem)  # the exact norm bounds (u_V, u_A, g, u_F, γ)
    if base.status != PROVED:
        return base
    data = dict(base.evidence["certificate"]["data"])
    name = THEOREM[bound]
    sha, _ = stored_theorem(name)
    data = {"theorem": name, "theorem_sha256": sha, **data}
    claim = Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": data["gamma"]})
    cert = Certificate.for_problem(problem, KIND, claim, PROVED, data)
    return Verdict(PROVED, claim.text(), "growth-theorem",
                   evidence={"regime": "GLOBAL_EXISTENCE", "gamma": data["gamma"], "certificate": cert.to_dict()},
                   reason=f"matrix-form theorem {name} (every d) with ‖Σ̇‖ ≤ γ‖Σ‖, γ = {data['gamma']}: "
                          "global existence from every Σ₀ ⪰ 0")


# ---- route ----
from ..routes import declare, searching  # noqa: E402 - the route is declared after the search it runs


def _theorem_applies(problem, ctx):
    from ....variants import growth_bound_of

    if problem.heads:
        return "single head only"
    return None if growth_bound_of(problem) else "the variant declares no growth bound (Sinkhorn, ℓ2 do)"


declare("growth-theorem", 29, ("GLOBAL_EXISTENCE",), _theorem_applies, searching(growth_certificate),
        modes=("point", "uniform"),
        doc="Every Σ₀ ⪰ 0 has a global, at most exponentially growing solution, by the matrix-form growth theorems; "
            "one head whose variant declares a growth bound.")
