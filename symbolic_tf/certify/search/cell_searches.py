"""The whole-cell searches of regime maps, each declared in the module that searches.

A cell search is declared with :func:`cell_search` on the function (or class) that prepares the
search over the cells of one map slice: its certificate kind, its place in the route order and
``reason(spec)``, None when the search applies to the slice and otherwise why not.  A map takes
the first search, in declared order, that applies (:func:`cell_route`); the checker of its cells
is declared with the kind (:func:`symbolic_tf.certify.check.cell_checker_of`).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

__all__ = ["CellSearch", "cell_search", "cell_searches", "cell_route"]


@dataclass(frozen=True)
class CellSearch:
    """A declared cell search: the kind of its certificates, its route order, why it does not
    apply to a slice (``reason(spec)``, None when it applies) and ``cells(spec)``, which prepares
    the search over the slice's cells."""

    kind: str
    order: int
    reason: Callable
    cells: Callable


_SEARCHES: dict[str, CellSearch] = {}
_loaded = False


def cell_search(kind: str, *, order: int, reason: Callable):
    """Decorator declaring a cell search of regime maps.

    Parameters
    ----------
    kind : str
        The certificate kind of the cells it certifies (the route's name).
    order : int
        Its place in the route order (lower first).
    reason : callable
        ``reason(spec)``: None when the search applies to the map slice, otherwise why not.

    Returns
    -------
    callable
        The decorator; it registers ``cells(spec)`` (the search over the slice's cells) and
        returns it unchanged.
    """
    def deco(cells):
        _SEARCHES[kind] = CellSearch(kind, order, reason, cells)
        return cells
    return deco


def _load():
    # the cell searches are the search modules named cell_*; importing them runs their declarations
    global _loaded
    if not _loaded:
        pkg = importlib.import_module(__name__.rsplit(".", 1)[0])
        for mod in pkgutil.iter_modules(pkg.__path__):
            if mod.name.lstrip("_").startswith("cell_") and mod.name != __name__.rsplit(".", 1)[1]:
                importlib.import_module(f"{pkg.__name__}.{mod.name}")
        _loaded = True


def cell_searches() -> list[CellSearch]:
    """Every declared cell search, in route order.

    Returns
    -------
    list of CellSearch
        Sorted by ``order``.
    """
    _load()
    return sorted(_SEARCHES.values(), key=lambda s: s.order)


def cell_route(spec) -> tuple:
    """The first declared cell search that applies to a map slice and, when none does, why not.

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map's slice.

    Returns
    -------
    tuple of (CellSearch or None, str or None)
        (the search, None) or (None, every search's reason, in route order, joined by "; ", each
        reason once).
    """
    whys = []
    for search in cell_searches():
        why = search.reason(spec)
        if why is None:
            return search, None
        whys.append(why)
    return None, "; ".join(dict.fromkeys(whys))  # two searches may give the same reason: said once
