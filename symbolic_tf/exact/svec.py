"""The svec-upper coordinates of symmetric d × d matrices: (i, j), i ≤ j, row by row (the coordinate
of X on E_ij + E_ji is X_ij); m = d(d+1)/2 of them."""
from __future__ import annotations

__all__ = ["svec_pairs"]


def svec_pairs(d: int) -> list[tuple[int, int]]:
    """The svec-upper index pairs (i, j), i ≤ j, row-major.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    list of (int, int)
        The m = d(d+1)/2 index pairs.
    """
    return [(i, j) for i in range(d) for j in range(i, d)]
