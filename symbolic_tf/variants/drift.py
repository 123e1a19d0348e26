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
        """Γ_drift(x) = F x + b at the rows of ``Xq``.

        Parameters
        ----------
        Xq : ndarray, shape (M, d)
            Query points.
        F : array_like, shape (d, d), optional
            None means F = 0.
        b : array_like, shape (d,), optional
            None means b = 0.

        Returns
        -------
        ndarray, shape (M, d)
            F x + b at each query.
        """
        from .velocity import drift_velocity

        return drift_velocity(Xq, F, b)
