"""The affine feed-forward drift term F x + b, addable to any variant (Alcalde–Ji–Zuazua:
softmax + drift; docs/mathematics.md §6).  It is affine in x, so it never breaks Gaussian closure and
adds J += F, c += b to the closure."""
from __future__ import annotations

__all__ = ["AffineDrift"]


class AffineDrift:
    """Γ_drift(x) = F x + b (either may be absent, meaning 0)."""

    name = "drift"
    summary = "F x + b"
    reference = "Alcalde, Ji, Zuazua (arXiv 2606.07600); docs/mathematics.md §6"
    matrices = ("F", "b")

    def velocity(self, Xq, F=None, b=None):
        from .velocity import drift_velocity

        return drift_velocity(Xq, F, b)
