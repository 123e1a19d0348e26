"""Shared by the whole-cell certificate tests: a map cell (as a map stores it) from a search's record."""


def cell_of(r, box):
    """The stored cell of a search record ``r`` for the box: box, status, regime, claim, certificate and
    the claim's rank or bracket (the shape the kinds' checkers read).

    Parameters
    ----------
    r : dict
        A PROVED or OUTSIDE record of a cell search (``kind``, ``data``, ``claim``, …).
    box : tuple
        The cell (x₀, x₁, y₀, y₁).

    Returns
    -------
    dict
    """
    cell = {"box": [str(b) for b in box], "status": r["status"], "regime": r["regime"], "claim": r["claim"],
            "certificate": {"kind": r["kind"], "data": r["data"]}}
    for k in ("rank", "T_lo", "T_hi"):
        if r.get(k) is not None:
            cell[k] = r[k]
    return cell
