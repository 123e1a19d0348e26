"""Global existence with at most exponential growth of *this* Σ₀ where Σ(t) becomes a growing
rank-one part beside a settling middle eigenvalue (single-head softmax, d = 3, no drift, general
V; kind ``tube-growth-neutral``, :mod:`symbolic_tf.certify.check.kinds.tube_growth_neutral`).

The search is the chart search of :mod:`~symbolic_tf.certify.search.validated._tube_cluster_neutral` with the
growth mode: the slow rest point is the zero of b = ℓᵀβ on the isotropic cone (φ ≠ 0 there), and
the float solution may pass tr Σ = 10⁸ before it is followed by the validated tube.
"""
from __future__ import annotations

from ....spec.verdict import Verdict
from ._tube_cluster_neutral import ChartSearch, find_chart_certificate

__all__ = ["KIND", "find_neutral_growth"]

KIND = "tube-growth-neutral"


def find_neutral_growth(problem, *, order: int = 14, prec: int = 128, seconds: float = 20.0,
                        horizon: float = 400.0, max_steps: int = 40000) -> Verdict:
    """PROVED (GLOBAL_EXISTENCE, for this Σ₀) with a ``tube-growth-neutral`` certificate, or
    UNDECIDED with the reason.  Never raises on float trouble.
    """
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_growth_neutral import GROWTH

    spec = ChartSearch(KIND, GROWTH, Claim("GLOBAL_EXISTENCE", Quantifier.THIS, {}),
                       "for this Σ₀: the solution exists for all t and grows at most exponentially (validated "
                       "tube + slow–fast funnel)", "validated-tube+slow-fast-funnel-of-a-growing-rank-one-part",
                       "a slow–fast funnel around a growing rank-one part (the limit direction settles at the zero "
                       "of b = ℓᵀβ on the isotropic cone, the middle eigenvalue stays bounded)", True,
                       # a wider θ-margin and a tighter funnel: the entry is early (the tube is stiff as σ grows);
                       # the last two, many pieces over a long Θ, are for a slow angle that starts far from θ*
                       # (seed 0 #34, seed 1 #16)
                       ((2.0, 32, 1.0), (3.0, 32, 0.15), (1.3, 32, 0.6), (3.0, 64, 1.0), (3.0, 256, 0.05, 0.2),
                        (1.2, 256, 0.05, 0.5)))
    return find_chart_certificate(problem, spec, order=order, prec=prec, seconds=seconds, horizon=horizon,
                                  max_steps=max_steps)


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# the chart of tube-cluster-neutral with the growth mode; stiff (the rates grow with σ): after every other tube
declare("tube-growth-neutral", 64, ("GLOBAL_EXISTENCE",),
        tube_applies(False, single=True, d=3, what="the chart of a rank-one limit"),
        searching(find_neutral_growth, unless=("settles",), seconds=90.0),
        doc="GLOBAL_EXISTENCE of this Σ₀: a validated tube enters a slow–fast funnel of a growing rank-one part; "
            "one quadratic head, no drift, d = 3.")
