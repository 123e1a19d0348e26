"""Whole-cell certificates for Σ₀ slices of any trace of single-head softmax flows in d = 2 without drift
(kind ``cell-scaled``, :mod:`symbolic_tf.certify.check.kinds.cell_scaled`).

Without drift the flow is homogeneous, Σ(t; cΣ₀) = cΣ(ct; Σ₀), so a cell of Σ₀ is a set of directions
Σ₀/tr Σ₀ on the trace-one disk times a range of scales tr Σ₀ ∈ [s_min, s_max] (docs/mathematics.md §8,
"Any Σ₀ slice by homogeneity").  The search maps a cell to the disk — the exact bounding box of the
directions of each piece of a quadtree of the cell — and asks the disk's own cell search
(:class:`symbolic_tf.certify.search.cell_basin.BasinCells` on the flow's ``cov-disk`` spec, its basins built
once per flow and shared by every slice of it) for a certificate of each box; a flow whose growth rate
c = tr Q(X) is positive on the whole closed disk gets one ``disk-growth`` entry instead.  The disk
brackets are rescaled by the cell's range of traces.

Floats only guess inside the disk search; every entry is verified by the disk kinds' checkers as it is
built, and every cell is re-verified by
:class:`~symbolic_tf.certify.check.kinds.cell_scaled.ScaledCellChecker` (the map's ``check_map``).
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ...exact.rational import frac_str, fraction_of, round_out
from ..check.cell_enclosures import pd_on_open_box, rat
from ..check.cells import cell_claim
from ..check.kinds.cell_scaled import (GROWTH, KIND, MAX_GRIDS, ScaledCellChecker, check_growth, direction_box, disk_spec,
                                       route_reason, scale_range)
from .cell_searches import cell_search
from .validated.tube_end import refuse

__all__ = ["KIND", "ScaledCells", "search_reason"]

SEARCH_DEPTH = 3         # quadtree depth of a cell's cover (≤ 4³ boxes asked of the disk search)
MAX_ENTRIES = 24
_TIGHT_DEPTH = 6         # the growth range: boxes split to this depth while c's bounds are loose
_BITS = 24               # disk boxes and growth ranges are rounded outward to ~24 significant bits
#: the growth range of c on the disk per flow (None: c is not positive on the whole disk)
_GROWTH: dict = {}


def search_reason(spec) -> str | None:
    """None when :class:`ScaledCells` should be tried on a map spec, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        :func:`symbolic_tf.certify.check.kinds.cell_scaled.route_reason`, or why the flow's trace-one disk
        offers nothing to rescale (a growth rate that is not positive on the whole disk, and no attracting
        target in floats): then every cell would stay undecided, and the map keeps point verdicts without
        refining.  The basins are not built here (the map's driver would build them once more than its
        workers: a minute of the reference flow); when none passes its check, every cell says so and is
        ``final`` (:meth:`ScaledCells.certify`), so the map does not refine either.
    """
    why = route_reason(spec)
    if why is not None:
        return why
    cells = ScaledCells(spec)
    if cells.growth() is not None:
        return None
    if not cells.disk().float_targets():
        return ("scaled disk certificates: the flow's trace-one disk has no attracting isotropic point or blow-up ray "
                "and its growth rate c = tr Q(X) is not positive on the whole disk")
    return None


def _outward(bb) -> tuple:
    """The box rounded outward to short dyadics (as Fractions)."""
    return (round_out(bb[0], False, _BITS), round_out(bb[1], True, _BITS),
            round_out(bb[2], False, _BITS), round_out(bb[3], True, _BITS))


def _hoist_grids(data) -> bool:
    """Store each grid basin of the ``cell-grid`` entries once, at the data's top level (``grid<i>``), the entries
    naming it by {"$grid": i} (a map then shares the large object between its cells); False past the limit."""
    grids: list = []
    for e in data["disk"]:
        if e["kind"] != "cell-grid":
            continue
        basin = e["data"]["basin"]
        i = next((n for n, g in enumerate(grids) if g is basin or g == basin), None)
        if i is None:
            grids.append(basin)
            i = len(grids) - 1
        e["data"] = {**e["data"], "basin": {"$grid": i}}
    if len(grids) > MAX_GRIDS:
        return False
    data.update({f"grid{i}": g for i, g in enumerate(grids)})
    return True


@cell_search(KIND, order=3, reason=search_reason)
class ScaledCells:
    """The cell search of one map spec (the disk search is built once, on the first cell).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        A Σ₀ slice, d = 2, one softmax head, no drift (:func:`search_reason` is None).
    """

    def __init__(self, spec):
        self.spec = spec
        self.checker = ScaledCellChecker(spec)
        self._disk = None

    def disk(self):
        """The disk's cell search (:class:`symbolic_tf.certify.search.cell_basin.BasinCells` of the flow's
        ``cov-disk`` spec; its verified basins are cached per flow).

        Returns
        -------
        symbolic_tf.certify.search.cell_basin.BasinCells
        """
        if self._disk is None:
            from .cell_basin import BasinCells

            self._disk = BasinCells(disk_spec(self.spec))
        return self._disk

    def growth(self) -> dict | None:
        """A verified ``disk-growth`` entry (c = tr Q(X) ∈ [c_lo, c_hi] with c_lo > 0 on the closed disk), or
        None when c is not shown positive on the whole disk.

        Returns
        -------
        dict or None
        """
        from ...spec.errors import CertificationFailed

        ck = self.checker
        key = tuple(str(M[i, j]) for M in ck.pairs[0] for i in range(2) for j in range(2))
        if key not in _GROWTH:
            entry = None
            rng = self._c_range()
            if rng is not None:
                c_lo, c_hi = round_out(rng[0], False, _BITS), round_out(rng[1], True, _BITS)
                try:      # the stated range, checked as the checker checks it
                    check_growth(ck.field, rat(c_lo), rat(c_hi), refuse)
                    entry = {"kind": GROWTH, "c_lo": frac_str(c_lo), "c_hi": frac_str(c_hi)}
                except CertificationFailed:
                    entry = None
            _GROWTH[key] = entry
        return _GROWTH[key]

    def _c_range(self) -> tuple | None:
        """The least lower and the largest upper bound of c over the leaves of the growth quadtree (a box is
        split while its lower bound is ≤ 0), or None when c < 0 somewhere or the depth runs out."""
        from ..check.kinds.cell_basin import disk_quadtree, poly_range, quarters
        from ..check.kinds.cell_scaled import GROWTH_BOXES, GROWTH_DEPTH

        one = flint.fmpq(1)
        todo = [((-one, one, -one, one), 0)]
        lo = hi = None
        for box, k in disk_quadtree(todo, "the growth range", refuse, GROWTH_BOXES):
            a, b = poly_range(self.checker.field.c, box)
            if b < 0 or (a <= 0 and k >= GROWTH_DEPTH):
                return None
            if a <= 0 or (k < _TIGHT_DEPTH and b - a > a / 4):     # tighter bounds give a narrower bracket
                todo += [(q, k + 1) for q in quarters(box)]
                continue
            lo = a if lo is None or a < lo else lo
            hi = b if hi is None or b > hi else hi
        return None if lo is None else (lo, hi)

    def certify(self, box) -> dict:
        """A whole-cell verdict for the open box (x₀, x₁) × (y₀, y₁).

        Parameters
        ----------
        box : tuple
            (x₀, x₁, y₀, y₁), read exactly.

        Returns
        -------
        dict
            ``status`` PROVED (``kind``, ``regime``, ``claim``, ``argument``, ``data``, ``rank`` or
            ``T_lo``/``T_hi``), OUTSIDE, or UNDECIDED with ``reason``.
        """
        from .cell_tube import off_domain

        box = tuple(Fraction(b) for b in box)
        off = off_domain(self.checker.S, self.spec.cov_affine(), box, KIND)
        if off is not None and off["status"] == "OUTSIDE":
            return off
        pd_only = off is not None
        rbox = tuple(rat(b) for b in box)
        from ...spec.errors import CertificationFailed

        try:
            s_min, s_max = scale_range(self.checker.cov, rbox, refuse)
        except CertificationFailed:      # a non-positive trace: no scaled argument
            return {"status": "UNDECIDED", "reason": "tr Σ₀ is not positive on the whole cell"}
        entries = self._cover(rbox)
        how = "disk cells"
        if entries is None:
            g = self.growth()
            if g is None:
                empty = self.disk().empty_reason()
                if empty is not None:      # no basin passed its check: smaller cells would not help either
                    return {"status": "UNDECIDED", "final": True,
                            "reason": f"scaled disk certificates: the flow's trace-one disk has {empty} and its "
                                      "growth rate c = tr Q(X) is not positive on the whole disk"}
                return {"status": "UNDECIDED", "reason": "the cell's directions are not covered by certified disk "
                                                         "cells of one regime (near a basin boundary: refine)"}
            entries, how = [g], "the growth rate c = tr Q(X) ≥ c_lo > 0 on the whole disk"
        regime = entries[0]["regime"] if entries[0]["kind"] != GROWTH else "BLOWUP"
        if regime == "BLOWUP":
            los, his = [], []
            for e in entries:
                if e["kind"] == GROWTH:
                    los.append(1 / Fraction(e["c_hi"]))
                    his.append(1 / Fraction(e["c_lo"]))
                else:
                    los.append(Fraction(e["T_lo"]))
                    his.append(Fraction(e["T_hi"]))
            params = {"T_lo": frac_str(min(los) / fraction_of(s_max)),
                      "T_hi": frac_str(max(his) / fraction_of(s_min))}
        else:
            params = {"rank": entries[0]["rank"]}
        data = {"scale": [frac_str(fraction_of(s_min)), frac_str(fraction_of(s_max))], "disk": entries,
                **({k: params[k] for k in ("T_lo", "T_hi")} if regime == "BLOWUP" else {})}
        if not _hoist_grids(data):
            return {"status": "UNDECIDED", "reason": f"the cell's directions need more than {MAX_GRIDS} grid basins"}
        out = {"status": "PROVED", "kind": KIND, "regime": regime, "claim": cell_claim(regime, params, pd_only).text(),
               "argument": (f"homogeneity Σ(t; cΣ₀) = cΣ(ct; Σ₀): the cell's directions Σ₀/tr Σ₀ lie in {how} of "
                            f"the trace-one disk ({len(entries)} entr{'y' if len(entries) == 1 else 'ies'}), "
                            f"brackets rescaled by tr Σ₀ ∈ [{float(s_min):.4g}, {float(s_max):.4g}]"),
               "data": data}
        out.update(params)
        return out

    def certify_point(self, x, y) -> dict | None:
        """The verdict at one point (x, y) of the slice: the cell verdict of the degenerate box (its one direction
        Σ₀/tr Σ₀ and its exact trace), kept only when PROVED with Σ₀ ≻ 0 at the point (its claim then holds at the
        point itself).

        Parameters
        ----------
        x, y : Fraction
            The point, exact.

        Returns
        -------
        dict or None
            The PROVED record of :meth:`certify` on the box (x, x, y, y), or None.
        """
        box = (Fraction(x), Fraction(x), Fraction(y), Fraction(y))
        if not pd_on_open_box(self.checker.S, tuple(rat(b) for b in box)):
            return None
        r = self.certify(box)
        return r if r["status"] == "PROVED" else None

    def _cover(self, rbox) -> list | None:
        """Disk cells of one regime whose boxes hold the directions of every piece of a quadtree of the cell
        (the checker's cover test, depth ≤ :data:`SEARCH_DEPTH`), or None."""
        from ..check.kinds.cell_basin import meets_disk, quarters

        coefs = self.checker.coefs
        entries: list = []
        boxes: list = []
        todo = [(rbox, 0)]
        while todo:
            piece, k = todo.pop()
            bb = direction_box(coefs, piece)
            if not meets_disk(bb) or any(b[0] <= bb[0] and bb[1] <= b[1] and b[2] <= bb[2] and bb[3] <= b[3]
                                         for b in boxes):
                continue
            disk_box = _outward(bb)
            r = self.disk().certify(disk_box)
            ok = r["status"] == "PROVED" and (not entries or (r["regime"] == entries[0]["regime"]
                                                              and r.get("rank") == entries[0].get("rank")))
            if ok:
                e = {"kind": r["kind"], "box": [frac_str(v) for v in disk_box], "regime": r["regime"],
                     "claim": r["claim"], "data": r["data"]}
                for key in ("rank", "T_lo", "T_hi"):
                    if r.get(key) is not None:
                        e[key] = r[key]
                entries.append(e)
                boxes.append(tuple(rat(v) for v in disk_box))
                if len(entries) > MAX_ENTRIES:
                    return None
                continue
            if k >= SEARCH_DEPTH or (r["status"] == "PROVED" and k >= SEARCH_DEPTH - 1):
                return None
            todo += [(q, k + 1) for q in quarters(piece)]
        return entries or None
