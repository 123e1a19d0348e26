"""Certified regime maps over a 2-D slice: whole cells, quadtree refinement, resumable chunks.

A map covers the coordinate box of a :class:`~symbolic_tf.spec.mapspec.MapSpec` with cells.
Level 0 is the spec's ``resolution`` grid; at level L the grid is (n_x·2ᴸ) × (n_y·2ᴸ).  Each
cell is certified *whole* (:mod:`symbolic_tf.certify.search.cell_riccati_vI`: its verdict holds at every interior
point, by vertex or centred-form arguments); an undecided cell splits into four until
``max_depth``, so the boundary between regimes ends up thin (so does a blow-up cell whose T*
bracket is wider than a factor ``bracket_ratio``).  Undecided cells at the minimum
size get an exact **point verdict** at their dyadic centre: the map's own cell kind on the degenerate
box at the centre when it decides it (:data:`POINT_KINDS`: a polynomial range, no integration), else the
point classifier, at one such cell in :data:`POINT_STRIDE`² (the others' points say so; areas and
whole cells do not depend on it).  Slices without a whole-cell
argument (e.g. general V) get point verdicts (:func:`symbolic_tf.regimes.classify.classify`)
at the centres of the level-0 cells, and no refinement.

Execution: the level-0 cells are cut into chunks, and the cells a finished chunk refines form
chunks of their own, submitted at once (no barrier between levels, so no worker idles while a
level's last chunks finish; a chunk's id and contents depend only on its parent's results, never
on the arrival order).  A task refines its chunk further inside the worker while it has certified
at most ``task_cells`` cells (:func:`certify_subtree`), so it carries tens of milliseconds of work
and the fixed cost of a task stays small.  Each chunk's results are written atomically to ``OUT/chunks/`` as soon
as it finishes, so an interrupted run resumes where it
stopped (finished chunks are read back, not recomputed) and a dead worker loses only its chunk.
A run may be given a wall-clock ``budget``: when it ends no further chunk is started, a task
certifying one cell at a time stops after the cell in hand, and the map is returned with what is
certified so far, every cell not done marked UNDECIDED with the reason :data:`BUDGET_REASON` (it
claims nothing; :func:`check_map` rejects such a cell carrying anything else); running the same
spec on the same folder again continues from the chunk files (``OUT/resume.json`` keeps the
chunking, so the chunks found are those written; a chunk cut short goes on with its cells not
done) and ends with the map an uninterrupted run gives.
The chunks run on an :mod:`~symbolic_tf.regimes.executors` executor (serial, local processes
or Dask).  The result (``map.json``, schema ``symbolic_tf.regime_map/1``) lists every leaf
cell with its box, regime, status and certificate, plus the decided area per regime; it is
deterministic: the same spec gives the same JSON (apart from ``run``) however it was executed.
"""
from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from pathlib import Path

from ..atomic import write_json_atomic
from ..exact.rational import frac_str, qmat_to_float
from ..spec.errors import CertificationFailed, InvalidParameters
from ..spec.mapspec import MapSpec, parse_map_spec

__all__ = ["SCHEMA", "BUDGET_REASON", "RESUME_FILE", "said_once", "run_map", "certify_chunk", "certify_subtree", "sharpening_helps", "point_budget", "POINT_BUDGET", "TASK_CELLS", "cell_box", "check_map", "MapInterrupted", "theory_fields", "validate_spec",
           "REGIME_ORDER", "resolve_shared"]

SCHEMA = "symbolic_tf.regime_map/1"
#: default most cells one task certifies (its chunk and the refinements it runs itself, see
#: :func:`certify_subtree`): ~20 ms of pencil cells, ~50 ms of centred-form disk cells, so that a
#: task's fixed cost (scheduling, pickling, a Dask round trip: 1–5 ms) stays a few per cent
TASK_CELLS = 256
#: the reason of a cell a run with a time budget did not reach (UNDECIDED, no certificate, no point)
BUDGET_REASON = "budget"
#: the default thinning of point classifications in a map with a whole-cell route: an UNDECIDED cell
#: at ``max_depth`` whose centre the map's own cell kind does not decide is classified only when its
#: column and row (at its level) are both multiples of this (one such cell in four).  The whole cells
#: and their areas do not depend on it; a point verdict costs the classifier ~1 s (a validated tube and
#: its check), and a cell-sized band along a regime boundary holds hundreds of such cells
POINT_STRIDE = 2
#: the default wall seconds of one point classification (the spec's ``point_budget`` changes it): a point the
#: classifier does not decide in that time stays UNDECIDED with its reason, and a map's time budget cuts it
#: further (:func:`point_budget`).  The reference disk's points take 0.8–2.9 s of CPU (validated tubes to a
#: rank-one line or a blow-up ray); classify's own default, 30 s, let one hard point cost a whole band's time
POINT_BUDGET = 4.0
#: whole-cell kinds whose verdict on the degenerate box {(x, y)} is a point verdict at (x, y): their
#: checkers test the closed box (an exact polynomial range, the grid basin's peak over the bounding
#: box of the directions) and Σ₀ ≻ 0 on its relative interior, which for a point is the point itself
POINT_KINDS = ("cell-basin", "cell-grid", "cell-scaled")
#: the reason of a point the thinning left unclassified
POINT_SKIPPED = ("not classified (the map classifies the centres of its undecided smallest cells whose column "
                 "and row are multiples of its point stride)")
#: the file of OUT that keeps a run's chunking (so that a resumed run finds the chunks it wrote)
RESUME_FILE = "resume.json"
REGIME_ORDER = ("BLOWUP", "EQUILIBRIUM", "CLUSTERING", "BOUNDED", "GLOBAL_EXISTENCE", "UNDECIDED", "OUTSIDE")


class MapInterrupted(RuntimeError):
    """Raised when a run stops on purpose after a number of chunks (tests of resumption)."""


def cell_box(spec: MapSpec, level: int, i: int, j: int) -> tuple[Fraction, ...]:
    """The exact box (x₀, x₁, y₀, y₁) of cell (level, i, j).

    Parameters
    ----------
    spec : MapSpec
        The map's slice (coordinate box and level-0 resolution n_x × n_y).
    level : int
        The quadtree level L (grid (n_x·2ᴸ) × (n_y·2ᴸ)).
    i, j : int
        The cell's column and row at that level.

    Returns
    -------
    tuple of Fraction
        (x₀, x₁, y₀, y₁), exact.
    """
    nx, ny = spec.resolution[0] << level, spec.resolution[1] << level
    (xa, xb), (ya, yb) = spec.x_range, spec.y_range
    return _grid(xa, xb, nx, i), _grid(xa, xb, nx, i + 1), _grid(ya, yb, ny, j), _grid(ya, yb, ny, j + 1)


def _grid(a, b, n: int, k: int) -> Fraction:
    """a + k·(b − a)/n exactly, in one integer step: (aₙ·b_d·n + k·(bₙ·a_d − aₙ·b_d)) / (a_d·b_d·n)."""
    an, ad, bn, bd = a.numerator, a.denominator, b.numerator, b.denominator  # a, b: Fraction or int
    return Fraction(an * bd * n + k * (bn * ad - an * bd), ad * bd * n)


def said_once(reason: str) -> str:
    """A joined reason with each clause said once: the clauses (the parts between ``"; "`` outside
    parentheses and brackets) in their first order, a repeated clause dropped.

    Reasons are joined from several routes or cell searches, and two of them may give the same
    clause ("basin certificates need a slice of Σ₀ only"); a map states it once.

    Parameters
    ----------
    reason : str
        A reason, possibly several clauses joined by ``"; "``.

    Returns
    -------
    str
        The same clauses joined by ``"; "``, each one once (the text is unchanged when no clause
        repeats).
    """
    if not isinstance(reason, str) or "; " not in reason:
        return reason
    clauses, depth, start = [], 0, 0
    for k, ch in enumerate(reason):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == ";" and depth == 0 and reason.startswith("; ", k):
            clauses.append(reason[start:k])
            start = k + 2
    clauses.append(reason[start:])
    return "; ".join(dict.fromkeys(clauses))


# ---------------------------------------------------------------------------------------
# the worker side
# ---------------------------------------------------------------------------------------
_CACHE: dict = {}


def _prepared(spec_doc: dict):
    key = json.dumps(spec_doc, sort_keys=True)
    if key not in _CACHE:
        from ..certify.search.cell_riccati_vI import pencil_for
        from ..certify.search.cell_searches import cell_route as first_cell_search

        doc = dict(spec_doc)
        doc.pop("schema", None)
        spec = parse_map_spec(doc)
        _CACHE.clear()
        pen = pencil_for(spec)
        tubes = kind = None
        search, reason = (None, None) if pen is not None else first_cell_search(spec)
        reason = said_once(reason)
        if search is not None:
            tubes, kind = search.cells(spec), search.kind
        _CACHE[key] = (spec, pen, tubes, reason, kind)
    return _CACHE[key]


def cell_route(spec: MapSpec) -> tuple:
    """The whole-cell certificate kind of a slice and, when there is none, why not.

    The first cell search, in the order declared with
    :func:`~symbolic_tf.certify.search.cell_searches.cell_search`, that applies to the slice: ``cell-riccati-vI``
    (:mod:`symbolic_tf.certify.search.cell_riccati_vI`) for V = vI and F = fI; else ``cell-tube``
    (:mod:`symbolic_tf.certify.search.cell_tube`) for slices of Σ₀ only with a drift; else ``cell-basin``
    (:mod:`symbolic_tf.certify.search.cell_basin`) for trace-constant Σ₀ slices in d = 2 without drift (its
    cells may be ``cell-grid`` cells); else ``cell-scaled`` (:mod:`symbolic_tf.certify.search.cell_scaled`) for
    other Σ₀ slices in d = 2 without drift, by homogeneity; else ``cell-lmi``
    (:mod:`symbolic_tf.certify.search.cell_lmi`) for parameter slices with a general V; else point verdicts.

    Parameters
    ----------
    spec : MapSpec
        The map's slice.

    Returns
    -------
    tuple of (str or None, str or None)
        (the kind, None) or (None, the reasons neither kind applies).
    """
    from ..certify.search.cell_searches import cell_route as first_cell_search

    search, why = first_cell_search(spec)
    return (search.kind, None) if search is not None else (None, said_once(why))


def _cell_record(level, i, j, box, r, kind: str | None = None) -> dict:
    out = {"id": [level, i, j], "box": [frac_str(b) for b in box], "status": r["status"],
           "regime": r.get("regime", "UNDECIDED")}
    for key in ("rank", "T_lo", "T_hi"):
        if r.get(key) is not None:
            out[key] = r[key]
    if r["status"] in ("PROVED", "OUTSIDE"):
        out["claim"] = r["claim"]
        data, shared = _shared_out(r["data"])
        out["certificate"] = {"kind": r.get("kind", kind), "argument": r["argument"], "data": data}
        if shared:
            out["shared"] = shared
    else:
        out["reason"] = said_once(r.get("reason", ""))
        if r.get("final"):   # the whole-cell search says smaller cells would not help: a point verdict now
            out["final"] = True
    return out


# ---------------------------------------------------------------------------------------
# shared certificate data: a large object many cells use (a grid basin) is stored once, in the
# map's "shared" table under its SHA-256, and a cell's data names it as {"$shared": sha}
# ---------------------------------------------------------------------------------------
SHARE_BYTES = 16_384
_SHA_MEMO: dict = {}


def _canonical_sha(obj) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _shared_out(data: dict) -> tuple:
    """(data with every large object value replaced by {"$shared": sha}, {sha: object})."""
    if not isinstance(data, dict):
        return data, {}
    out, shared = dict(data), {}
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        memo = _SHA_MEMO.get(id(value))
        if memo is None or memo[0] is not value:
            if len(json.dumps(value, separators=(",", ":"))) <= SHARE_BYTES:
                continue
            # a large object: kept in the memo (so its id stays its own) with its hash
            memo = _SHA_MEMO[id(value)] = (value, _canonical_sha(value))
        out[key] = {"$shared": memo[1]}
        shared[memo[1]] = value
    return out, shared


def _dedupe_shared(records: list) -> list:
    """Keep each shared object on the first record of a task's list that uses it."""
    seen = set()
    for rec in records:
        table = rec.get("shared")
        if table:
            for sha in [k for k in table if k in seen]:
                del table[sha]
            seen.update(table)
            if not table:
                del rec["shared"]
    return records


def resolve_shared(data, shared: dict, where: str = "cell"):
    """A cell's certificate data with every {"$shared": sha} value replaced by the map's shared object.

    Parameters
    ----------
    data : dict
        The stored certificate data.
    shared : dict
        The map's ``shared`` table (sha → object, hashes already verified).
    where : str
        The cell, for the message.

    Returns
    -------
    dict
        The data the certificate kind reads.

    Raises
    ------
    CertificationFailed
        When a reference names no shared object.
    """
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key, value in data.items():
        if isinstance(value, dict) and set(value) == {"$shared"}:
            obj = shared.get(value["$shared"]) if isinstance(value["$shared"], str) else None
            if obj is None:
                _reject(f"{where}: data.{key} names no shared object")
            out[key] = obj
    return out


def point_budget(spec, deadline: float | None = None) -> float:
    """The seconds one point classification of a map may take: the spec's ``point_budget`` (default
    :data:`POINT_BUDGET`), cut to the time left before the map's ``deadline``.

    Parameters
    ----------
    spec : MapSpec
        The map's slice.
    deadline : float, optional
        The map's wall-clock deadline (``time.time()``), None without a budget.

    Returns
    -------
    float
        Seconds (≥ 0) for :func:`~symbolic_tf.regimes.classify.classify`'s ``budget``.
    """
    b = float(spec.point_budget) if getattr(spec, "point_budget", None) is not None else POINT_BUDGET
    return b if deadline is None else max(0.0, min(b, deadline - time.time()))


def _point_verdict(spec, pen, box, r: dict | None = None, *, search=None, classify_point: bool = True,
                   deadline: float | None = None) -> dict:
    """An exact verdict at the cell's dyadic centre (``r``: the whole-cell route's verdict for the
    degenerate box at the centre when already computed).

    ``search``: the map's whole-cell search; when it offers ``certify_point(x, y)`` (a PROVED
    verdict of its own kind at the point, or None) that verdict is taken first — it costs a
    polynomial range where the classifier integrates a tube — and the point's ``route`` is the kind
    (:func:`check_map` re-verifies it with the kind's checker on the degenerate box).
    ``classify_point`` False: no classification (see :data:`POINT_STRIDE`), the point is UNDECIDED
    with the reason :data:`POINT_SKIPPED`.  A classification has :func:`point_budget` seconds (the spec's
    ``point_budget``, cut by the map's ``deadline``): past it the point is UNDECIDED with classify's reason."""
    xc, yc = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
    where = {"x": frac_str(xc), "y": frac_str(yc)}
    at_point = getattr(search, "certify_point", None) if pen is None else None
    if at_point is not None:
        rp = at_point(xc, yc)
        if rp is not None and rp["status"] == "PROVED":
            out = {**where, "status": "PROVED", "regime": rp["regime"], "route": rp["kind"], "claim": rp["claim"]}
            for key in ("rank", "T_lo", "T_hi"):
                if rp.get(key) is not None:
                    out[key] = rp[key]
            out["certificate"] = {"kind": rp["kind"], "argument": rp["argument"], "data": rp["data"]}
            return out
    if pen is None and not classify_point:
        return {**where, "status": "UNDECIDED", "regime": "UNDECIDED", "route": "classify", "reason": POINT_SKIPPED}
    if pen is not None:
        from ..certify.search.cell_riccati_vI import KIND, certify_cell

        if r is None:
            r = certify_cell(pen, (xc, xc, yc, yc))
        out = {**where, "status": r["status"], "regime": r.get("regime", "UNDECIDED"), "route": KIND}
        for key in ("rank", "T_lo", "T_hi"):
            if r.get(key) is not None:
                out[key] = r[key]
        if r["status"] in ("PROVED", "OUTSIDE"):
            out["certificate"] = {"kind": KIND, "argument": r["argument"], "data": r["data"]}
        else:
            out["reason"] = said_once(r.get("reason", ""))
        return out
    from .classify import classify

    try:
        # no numerical evidence: the point record keeps the verdict and its certificate only
        c = classify(spec.problem_at(xc, yc), evidence=False, budget=point_budget(spec, deadline))
    except InvalidParameters as exc:
        if not exc.field.startswith("initial.cov"):
            raise
        # Σ₀ is not PSD at this point (a cov-disk corner cell): outside the map's domain
        return {**where, "status": "OUTSIDE", "regime": "OUTSIDE", "route": "classify", "reason": str(exc)}
    d = c.to_dict()
    out = {**where, "status": d["status"], "regime": d["regime"], "route": "classify",
           "reason": said_once(d.get("reason", ""))}
    for key in ("rank", "T_lo", "T_hi"):
        if d.get(key) is not None:
            out[key] = d[key]
    if d.get("certificate"):
        out["certificate"] = d["certificate"]
    return out


def _share_point(rec: dict, point: dict) -> dict:
    """The point with its large certificate data stored in the record's shared table (as a cell's)."""
    cert = point.get("certificate")
    if not isinstance(cert, dict) or not isinstance(cert.get("data"), dict):
        return point
    data, shared = _shared_out(cert["data"])
    if shared:
        point = {**point, "certificate": {**cert, "data": data}}
        rec["shared"] = {**rec.get("shared", {}), **shared}
    return point


def certify_chunk(spec_doc: dict, cells: list, deadline: float | None = None, point_stride: int = 1,
                  bracket_ratio: Fraction | None = None) -> list[dict]:
    """Certify a list of cells (level, i, j) of the map ``spec_doc`` (a top-level function so
    that process pools and Dask can ship it).

    Parameters
    ----------
    spec_doc : dict
        The map spec document.
    cells : list of tuple
        The cells ``(level, i, j)``.
    deadline : float, optional
        A wall-clock time (``time.time()``): a cell of a slice certified one cell at a time (whole-
        cell tubes, basins, point verdicts) that is reached after it, the first cell excepted (so
        that every task makes progress), gets the record of a cell not done (UNDECIDED, reason
        :data:`BUDGET_REASON`, nothing else).  None: no limit.
    point_stride : int, optional
        A cell of a whole-cell slice left UNDECIDED at ``max_depth`` whose centre its own kind does
        not decide is classified (:func:`~symbolic_tf.regimes.classify.classify`) only when both its
        column and row are multiples of ``point_stride`` (1: every such cell; see :data:`POINT_STRIDE`).
        A larger cell the search marks ``final`` is always classified: it is not part of a band of smallest
        cells, and its point is the only verdict its area gets.
    bracket_ratio : Fraction, optional
        As in :func:`run_map`.  A PROVED blow-up cell above ``max_depth`` whose bracket is wider than it
        (the refinement would split it) is marked ``final`` when the whole-cell search's own verdict at the
        cell's centre (``certify_point``) is a blow-up bracket wider than ``bracket_ratio`` too: a sub-cell's
        closed box holds points near the centre, so smaller cells would not sharpen the bracket to the
        ratio and splitting would cost cells for nothing (see :func:`sharpening_helps`).  None: no test.

    Returns
    -------
    list of dict
        One record per cell: id, box, status, regime (rank, T_lo, T_hi when given), claim and
        certificate (PROVED / OUTSIDE) or reason, and a ``point`` verdict at the centre for a
        slice without a whole-cell argument or an UNDECIDED cell at ``max_depth``.
    """
    spec, pen, tubes, reason, route = _prepared(spec_doc)
    boxes = [cell_box(spec, level, i, j) for level, i, j in cells]
    if pen is None:
        out = []
        for (level, i, j), box in zip(cells, boxes):
            if deadline is not None and out and time.time() >= deadline:   # one cell at least: progress
                out.append(_cell_record(level, i, j, box, {"status": "UNDECIDED", "reason": BUDGET_REASON}))
                continue
            if tubes is not None:
                r = tubes.certify(box)
                rec = _cell_record(level, i, j, box, r, route)
                if (level < spec.max_depth and _wants_refinement(rec, bracket_ratio)
                        and r["status"] == "PROVED" and not sharpening_helps(tubes, box, bracket_ratio)):
                    rec["final"] = True
                if r["status"] == "UNDECIDED" and (level >= spec.max_depth or r.get("final")):
                    pt = _point_verdict(spec, None, box, search=tubes, deadline=deadline,
                                        classify_point=level < spec.max_depth or (i % point_stride == 0 and j % point_stride == 0))
                    rec["point"] = _share_point(rec, pt)
                out.append(rec)
                continue
            rec = _cell_record(level, i, j, box, {"status": "UNDECIDED", "reason": reason})
            rec["point"] = _point_verdict(spec, None, box, deadline=deadline)
            out.append(rec)
        return out
    from ..certify.search.cell_riccati_vI import KIND, certify_cells

    # all cells of the chunk at once (one stacked float search), then the centres of the
    # cells left UNDECIDED at max_depth, also at once
    res = certify_cells(pen, boxes)
    out = [_cell_record(level, i, j, box, r, KIND) for (level, i, j), box, r in zip(cells, boxes, res)]
    last = [k for k, ((level, _i, _j), r) in enumerate(zip(cells, res))
            if r["status"] == "UNDECIDED" and level >= spec.max_depth]
    centres = [((boxes[k][0] + boxes[k][1]) / 2, (boxes[k][2] + boxes[k][3]) / 2) for k in last]
    pts = certify_cells(pen, [(x, x, y, y) for x, y in centres])
    for k, r in zip(last, pts):
        out[k]["point"] = _point_verdict(spec, pen, boxes[k], r)
    return out


def sharpening_helps(search, box, bracket_ratio: Fraction | None) -> bool:
    """Whether splitting a PROVED blow-up cell may sharpen its bracket T_hi/T_lo to ``bracket_ratio``.

    The whole-cell search's verdict at the cell's centre (``search.certify_point``) is the sharpest bracket
    its kind gives near the centre: every sub-cell's closed box reaches points near it, and a cell kind's
    bracket on a box holds for its closed box, so it is no narrower than at those points.  When that
    bracket is already wider than ``bracket_ratio``, smaller cells would not meet the ratio either.  A
    heuristic of the refinement only: it decides which cells are split, never what a cell proves.

    Parameters
    ----------
    search : object
        The map's whole-cell search (with or without ``certify_point(x, y)``).
    box : tuple of Fraction
        The cell (x₀, x₁, y₀, y₁).
    bracket_ratio : Fraction or None
        The refinement's ratio (None: no bracket refinement).

    Returns
    -------
    bool
        False when the centre's own bracket has T_hi > bracket_ratio·T_lo; True otherwise (also when the
        search has no point verdict or does not decide the centre).
    """
    at_point = getattr(search, "certify_point", None)
    if bracket_ratio is None or at_point is None:
        return True
    rp = at_point((box[0] + box[1]) / 2, (box[2] + box[3]) / 2)
    if rp is None or rp.get("status") != "PROVED" or rp.get("regime") != "BLOWUP" or rp.get("T_hi") is None:
        return True
    lo = _parse_fraction(rp["T_lo"])
    return lo > 0 and _parse_fraction(rp["T_hi"]) <= bracket_ratio * lo


def _children(res: list[dict], max_depth: int, bracket_ratio: Fraction | None) -> list[tuple]:
    """The four children of every record of ``res`` the refinement splits, in record order."""
    out = []
    for r in res:
        lv, i, j = r["id"]
        if lv < max_depth and _wants_refinement(r, bracket_ratio):
            out += [(lv + 1, 2 * i + a, 2 * j + b) for a in (0, 1) for b in (0, 1)]
    return out


def certify_subtree(spec_doc: dict, cells: list, budget: int = 0,
                    bracket_ratio: Fraction | None = Fraction(2), deadline: float | None = None,
                    point_stride: int = 1) -> list[dict]:
    """Certify a chunk of cells and go on refining it inside the task while the work stays small.

    Level by level: certify the cells (:func:`certify_chunk`), and while the cells the refinement
    splits have children and (cells certified so far) + (children) ≤ ``budget``, certify the
    children too.  The rule depends on the verdicts only, never on timing, so a chunk's records are
    the same on every executor (and a resumed run finds the same chunks); every cell gets the
    record it would get alone, so the map does not depend on ``budget`` either.

    Parameters
    ----------
    spec_doc : dict
        The map spec document.
    cells : list of tuple
        The cells ``(level, i, j)`` of the chunk.
    budget : int, optional
        The most cells the task certifies in all: it goes one level further only while the total
        stays ≤ ``budget`` (0: the chunk's own cells only, however many).
    bracket_ratio : Fraction or None
        As in :func:`run_map`: which PROVED blow-up cells are split.
    deadline : float, optional
        A wall-clock time (``time.time()``) after which the task certifies no further cell (see
        :func:`certify_chunk`) and refines no further level.
    point_stride : int, optional
        As in :func:`certify_chunk`.

    Returns
    -------
    list of dict
        The record of every cell certified, level by level: the chunk's cells, then the children
        certified inside the task.  A record the refinement splits whose children are not in the
        list is left for the driver to refine.  A task cut by the deadline holds records with
        reason :data:`BUDGET_REASON` for the cells it did not reach.
    """
    spec, _pen, _tubes, reason, _route = _prepared(spec_doc)
    out: list[dict] = []
    frontier = list(cells)
    while True:
        res = certify_chunk(spec_doc, frontier, deadline, point_stride, bracket_ratio)
        out += res
        if reason is not None:  # point verdicts only: no refinement
            return _dedupe_shared(out)
        if deadline is not None and time.time() >= deadline:
            return _dedupe_shared(out)   # the driver refines (or leaves undone) what is left
        frontier = _children(res, spec.max_depth, bracket_ratio)
        if not frontier or len(out) + len(frontier) > budget:
            return _dedupe_shared(out)


# ---------------------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------------------
class _Progress:
    """One tqdm bar of chunks on stderr (shown when stderr is a terminal, see
    :mod:`symbolic_tf.display`; ``enabled="always"`` forces it); its total grows as refinement
    chunks are scheduled, and its postfix shows the fraction of the domain certified so far."""

    def __init__(self, enabled: bool | str):
        from ..display import enabled as bars_enabled

        self.enabled = bool(enabled) and bars_enabled() or enabled == "always"
        self.bar = None

    def update(self, done, total, certified: float, cells, resumed):
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="regime map", unit="chunk", file=sys.stderr, dynamic_ncols=True)
        self.bar.total = total
        self.bar.n = done
        self.bar.set_postfix_str(f"certified {100 * certified:.1f}% of the area, {cells} cells"
                                 + (f" ({resumed} resumed)" if resumed else ""), refresh=True)

    def newline(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _chunk_path(out: Path, level: int, cid: str) -> Path:
    return out / "chunks" / f"L{level:02d}_{cid}.json"


def _load_chunk(path: Path, spec_hash: str, ids: list, point_stride: int = 1) -> tuple:
    """(the records of a chunk file of this spec, these cells and this point stride, whether a deadline
    cut its task short) or (None, False)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None, False
    res = doc.get("results")
    if (doc.get("spec_hash") != spec_hash or doc.get("cells") != [list(c) for c in ids] or not isinstance(res, list)
            or doc.get("point_stride", 1) != point_stride):
        return None, False
    return res, any(isinstance(r, dict) and r.get("reason") == BUDGET_REASON for r in res)


def _budget_record(spec: MapSpec, cell) -> dict:
    """The record of a cell a time budget did not reach: UNDECIDED, reason :data:`BUDGET_REASON`."""
    return _cell_record(*cell, cell_box(spec, *cell), {"status": "UNDECIDED", "reason": BUDGET_REASON})


def _resume_plan(outp: Path | None, spec_hash: str, resume: bool) -> dict | None:
    """The chunking an earlier run of this spec wrote to ``OUT/resume.json`` (None without one);
    ``resume=True`` requires it."""
    doc = None
    if outp is not None:
        try:
            doc = json.loads((outp / RESUME_FILE).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            doc = None
    if not isinstance(doc, dict) or doc.get("spec_hash") != spec_hash:
        if resume:
            where = "no folder given" if outp is None else (
                f"{str(outp)!r} holds a run of another spec" if isinstance(doc, dict)
                else f"{str(outp)!r} holds no earlier run of this spec ({RESUME_FILE} is missing)")
            raise InvalidParameters("--resume", f"nothing to resume: {where}")
        return None
    return doc


def run_map(spec: MapSpec | dict, out: str | Path | None = None, *, executor=None, chunk_size: int | None = None,
            progress: bool = False, max_new_chunks: int | None = None,
            bracket_ratio: Fraction | None = Fraction(2), task_cells: int | None = None,
            budget: float | None = None, resume: bool = False, point_stride: int = POINT_STRIDE) -> dict:
    """Compute a certified regime map.

    Parameters
    ----------
    spec : MapSpec or dict
        The map spec (a dict is parsed with :func:`parse_map_spec`).
    out : path, optional
        Folder for the resumable chunks (``OUT/chunks/``) and the chunking of the run
        (``OUT/resume.json``); None keeps everything in memory.
    executor : Executor, optional
        From :func:`symbolic_tf.regimes.executors.make_executor`; default serial.
    chunk_size : int, optional
        Cells per chunk (a task's first cells; a chunk file holds them and the refinements the task
        ran); default: the chunking of an earlier run of the spec in ``out``, else the level-0 cells
        over 4 chunks per worker, between 8 and 256 cells each.
    progress : bool
        A progress bar of chunks on stderr with the fraction of the area certified so far (only
        when stderr is a terminal, see :mod:`symbolic_tf.display`).
    max_new_chunks : int, optional
        Stop with :class:`MapInterrupted` after this many newly computed chunks.
    bracket_ratio : Fraction or None
        Blow-up cells with T_hi/T_lo above it (or no finite bracket) are split too, down to
        ``max_depth``; None splits undecided cells only.
    task_cells : int, optional
        A task refines its own chunk inside the worker while it has certified at most this many
        cells (:func:`certify_subtree`; default: as an earlier run in ``out``, else
        :data:`TASK_CELLS`; 0: one level per task), so a task carries tens of milliseconds of work
        and the fixed cost of a task stays small.  The map does not depend on it (nor on
        ``chunk_size`` or the executor); the chunk files do.
    budget : float, optional
        Wall-clock seconds: once they have passed no further chunk is started, a running task
        certifies no further cell of a slice certified one cell at a time (tubes, basins, point
        verdicts; a stacked ``cell-riccati-vI`` chunk finishes, it takes milliseconds), and the map
        is returned with every cell not done UNDECIDED with reason :data:`BUDGET_REASON`
        (``run.complete`` false).  A task cut short is written to ``OUT/chunks/`` with those
        records; running again on the same ``out`` continues from the chunks written, certifying
        only the cells not done.  None: no limit.
    resume : bool
        Require ``out`` to hold an earlier run of this spec (``OUT/resume.json``; InvalidParameters
        otherwise).  Finished chunks in ``out`` are read back whether or not it is set.
    point_stride : int
        The thinning of point classifications at undecided smallest cells (:data:`POINT_STRIDE`; 1:
        every one).  Those cells' centres are first tried with the map's own cell kind (exact and cheap);
        the whole cells and the certified area do not depend on it.

    Returns
    -------
    dict
        The map document (schema ``symbolic_tf.regime_map/1``).
    """
    from .executors import SerialExecutor

    if isinstance(spec, dict):
        spec = parse_map_spec(spec)
    if chunk_size is not None and chunk_size < 1:
        raise InvalidParameters("chunk_size", "must be ≥ 1")
    if task_cells is not None and task_cells < 0:
        raise InvalidParameters("task_cells", "must be ≥ 0")
    if isinstance(point_stride, bool) or not isinstance(point_stride, int) or point_stride < 1:
        raise InvalidParameters("point_stride", f"must be an integer ≥ 1, got {point_stride!r}")
    if budget is not None and not budget >= 0:
        raise InvalidParameters("budget", f"must be a number of seconds ≥ 0, got {budget!r}")
    spec_doc, spec_hash = spec.to_dict(), spec.content_hash()
    validate_spec(spec)
    route_kind, route_reason = cell_route(spec)
    from ..certify.search.cell_riccati_vI import KIND as PENCIL_KIND

    stacked = route_kind == PENCIL_KIND   # a chunk's cells are certified at once (one stacked float search)
    ex = executor or SerialExecutor()
    outp = Path(out) if out is not None else None
    # an earlier run of this spec in out: its chunking, so that the chunks it wrote are found again
    plan = _resume_plan(outp, spec_hash, resume)
    ratio = None if bracket_ratio is None else frac_str(bracket_ratio)
    if plan is not None and plan.get("bracket_ratio", "-") == ratio and plan.get("point_stride", 1) == point_stride:
        if chunk_size is None and isinstance(plan.get("chunk_size"), int) and plan["chunk_size"] >= 1:
            chunk_size = plan["chunk_size"]
        if task_cells is None and isinstance(plan.get("task_cells"), int) and plan["task_cells"] >= 0:
            task_cells = plan["task_cells"]
    cells_per_task = TASK_CELLS if task_cells is None else task_cells
    prog = _Progress(progress)
    t0 = time.perf_counter()
    deadline = None if budget is None else _clock() + budget
    wall_deadline = None if budget is None else time.time() + budget   # the tasks' (they may run elsewhere)
    leaves: list[dict] = []
    nx, ny = spec.resolution
    top = [(0, i, j) for i in range(nx) for j in range(ny)]
    # chunk size: level 0 over 4 chunks per worker (8..256 cells); refinements use the same size,
    # except children at max_depth (see finish)
    size = chunk_size or min(256, max(8, -(-len(top) // (4 * ex.workers))))
    if outp is not None:
        write_json_atomic(outp / RESUME_FILE, {"schema": "symbolic_tf.map_resume/1", "spec_hash": spec_hash,
                                               "chunk_size": size, "task_cells": cells_per_task,
                                               "bracket_ratio": ratio, "point_stride": point_stride})
    counts = {"new": 0, "deferred": 0, "written": 0, "computed": 0, "resumed": 0, "done": 0, "total": 0, "cells": 0}
    area = {"certified": 0.0, "outside": 0.0}   # in level-0 cells, for the progress bar only
    dyn = ex.dynamic(certify_subtree)
    ready: list = []      # (cid, level, ids, results) read back from finished chunk files
    running: dict = {}    # (cid, level) → (ids, records already done, cells submitted) of a task not yet returned
    undone: list = []     # ids of the chunks the budget left undone
    shared: dict = {}     # sha → object named by cells' certificate data (see _shared_out)

    def expired() -> bool:
        return deadline is not None and _clock() >= deadline

    def schedule(cid, level, ids):
        counts["total"] += 1
        got, cut = _load_chunk(_chunk_path(outp, level, cid), spec_hash, ids, point_stride) if outp is not None else (None, False)
        done = [r for r in got if r.get("reason") != BUDGET_REASON] if got is not None else []
        counts["resumed"] += len(done)
        if got is not None and (not cut or expired()):
            ready.append((cid, level, ids, got))   # finished, or cut and no time to go on
            return
        if max_new_chunks is not None and counts["new"] >= max_new_chunks:
            counts["deferred"] += 1    # over the budget of new chunks: the run stops (MapInterrupted)
            return
        if expired():
            undone.append(ids)         # over the time budget: its cells are left UNDECIDED "budget"
            return
        # a task cut by an earlier run's budget goes on with the cells it did not reach
        todo = [tuple(r["id"]) for r in got if r.get("reason") == BUDGET_REASON] if cut else ids
        counts["new"] += 1
        running[(cid, level)] = (ids, done, todo)
        dyn.add((cid, level, ids), (spec_doc, todo, cells_per_task, bracket_ratio, wall_deadline, point_stride))

    def finish(cid, level, ids, res):
        """Record a chunk's leaves and schedule its refinement (children of one chunk form
        chunks of their own, so chunk ids and contents do not depend on the arrival order).
        ``res`` holds every cell the task certified: a split cell whose children are there was
        refined inside the task (:func:`certify_subtree`)."""
        counts["done"] += 1
        counts["cells"] += len(res)
        for r in res:
            shared.update(r.pop("shared", None) or {})
        here = {tuple(r["id"]) for r in res} if len(res) > len(ids) else ()
        nxt = []
        for r in res:
            lv, i, j = r["id"]
            if here and (lv + 1, 2 * i, 2 * j) in here:
                continue  # refined inside the task: its children are in res
            if route_reason is None and lv < spec.max_depth and _wants_refinement(r, bracket_ratio):
                nxt += [(lv + 1, 2 * i + a, 2 * j + b) for a in (0, 1) for b in (0, 1)]
            else:
                leaves.append(r)
                if r["status"] in ("PROVED", "OUTSIDE"):
                    area["certified" if r["status"] == "PROVED" else "outside"] += 0.25 ** lv
        domain = nx * ny - area["outside"]
        prog.update(counts["done"], counts["total"], area["certified"] / domain if domain > 0 else 0.0,
                    counts["cells"], counts["resumed"])
        # children at max_depth are not refined further: their task is their chunk alone, so the
        # stacked pencil's (milliseconds a chunk) are larger; other kinds' smallest cells may carry point
        # classifications (~1 s each), so theirs keep the level's size and the workers' loads even out
        # (a deterministic rule: the ids depend on the records only)
        piece = size if not nxt or nxt[0][0] < spec.max_depth or not stacked else max(size, cells_per_task // 2)
        for part, k in enumerate(range(0, len(nxt), piece)):
            schedule(f"{cid}-{part:03d}", nxt[k][0], nxt[k:k + piece])

    def drain():
        while ready:
            finish(*ready.pop(0))

    for part, k in enumerate(range(0, len(top), size)):
        schedule(f"{part:05d}", 0, top[k:k + size])
    drain()
    results = iter(dyn)
    try:
        while running and not expired():
            (cid, level, ids), res = next(results)
            _ids, done, _todo = running.pop((cid, level))
            cut = sum(r.get("reason") == BUDGET_REASON for r in res)
            counts["computed"] += len(res) - cut
            res = done + res
            # a task the deadline cut is written with its "budget" records: a resumed run goes on
            # with those cells only
            if outp is not None:
                write_json_atomic(_chunk_path(outp, level, cid), {"spec_hash": spec_hash, "level": level,
                                                                  "point_stride": point_stride,
                                                                  "cells": [list(c) for c in ids], "results": res})
            counts["written"] += 1
            if max_new_chunks is not None and counts["written"] >= max_new_chunks:
                prog.newline()
                raise MapInterrupted(f"stopped after {counts['written']} new chunk(s)")
            finish(cid, level, ids, res)
            drain()
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()   # the queue's pending tasks are cancelled
    prog.newline()
    if counts["deferred"]:
        raise MapInterrupted(f"stopped after {counts['written']} new chunk(s)")
    # the tasks still running: what they had done before (a cut chunk read back) and "budget" records
    for (cid, level), (ids, done, todo) in list(running.items()):
        finish(cid, level, ids, done + [_budget_record(spec, c) for c in todo])
        drain()
    leaves += [_budget_record(spec, c) for ids in undone for c in ids]
    n_budget = sum(r.get("reason") == BUDGET_REASON for r in leaves)
    computed_cells, resumed_cells = counts["computed"], counts["resumed"]
    level = max((r["id"][0] for r in leaves), default=0) + 1
    leaves.sort(key=lambda r: tuple(r["id"]))
    wall = time.perf_counter() - t0
    doc = {"schema": SCHEMA, "spec": spec_doc, "spec_hash": spec_hash,
           "route": route_kind, "route_reason": route_reason,
           "semantics": "a cell's verdict holds at every interior point of its box (edges are shared with the "
                        "neighbours and not claimed), or, when its claim says so (a cell on the boundary of the "
                        "cone), at its interior points where Σ₀ ≻ 0; point verdicts hold at the stated dyadic "
                        "point; areas are exact (the domain is the area of the cells that are not OUTSIDE)",
           "cells": leaves, "totals": totals(spec, leaves),
           **({"shared": {sha: shared[sha] for sha in sorted(_used_shared(leaves))}} if shared else {}),
           "run": {"executor": ex.name, "workers": ex.workers, "wall_seconds": round(wall, 3),
                   "cells_computed": computed_cells, "cells_resumed": resumed_cells,
                   "cells_per_second": round(computed_cells / wall, 1) if wall > 0 else None,
                   "levels": level, "complete": not n_budget, "cells_budget": n_budget,
                   **({"budget_seconds": budget} if budget is not None else {})}}
    return doc


def _clock() -> float:
    """The clock of the time budget (seconds, monotonic)."""
    return time.monotonic()


def _used_shared(cells: list) -> set:
    """The shared objects the cells' certificate data name."""
    used = set()
    for c in cells:
        for cert in (c.get("certificate"), (c.get("point") or {}).get("certificate")):
            for value in ((cert or {}).get("data") or {}).values():
                if isinstance(value, dict) and set(value) == {"$shared"}:
                    used.add(value["$shared"])
    return used


def _wants_refinement(rec: dict, bracket_ratio: Fraction | None) -> bool:
    """Split undecided cells, and blow-up cells whose T* bracket is missing or wider than
    T_hi/T_lo > ``bracket_ratio`` (so the T* colouring is sharp too) unless marked ``final`` (their kind's
    bracket at the centre is as wide: :func:`sharpening_helps`)."""
    if rec["status"] == "UNDECIDED":   # a cell not done is a leaf of the partial map, and so is a final cell
        return rec.get("reason") != BUDGET_REASON and not rec.get("final")
    if bracket_ratio is None or rec["status"] != "PROVED" or rec["regime"] != "BLOWUP" or rec.get("final"):
        return False
    lo = _parse_fraction(rec["T_lo"])
    return rec.get("T_hi") is None or lo == 0 or _parse_fraction(rec["T_hi"]) > bracket_ratio * lo


def _parse_fraction(s: str) -> Fraction:
    """A ``"p/q"`` or ``"p"`` string written by this module, without Fraction's general parser."""
    p, _, q = s.partition("/")
    return Fraction(int(p), int(q)) if q else Fraction(int(p))


def validate_spec(spec: MapSpec) -> None:
    """Refuse a slice whose problem the variant registry rejects (unknown variant, missing
    matrices), at the centre of the box — before any work is done.

    Parameters
    ----------
    spec : MapSpec
        The map's slice; raises InvalidParameters (field ``problem.<field>``) when rejected.
    """
    from ..variants import bind

    xc = (spec.x_range[0] + spec.x_range[1]) / 2
    yc = (spec.y_range[0] + spec.y_range[1]) / 2
    try:
        bind(spec.problem_at(xc, yc))
    except InvalidParameters as exc:
        raise InvalidParameters(f"problem.{exc.field}", exc.reason) from None


def _area(box) -> Fraction:
    x0, x1, y0, y1 = (Fraction(b) for b in box)
    return (x1 - x0) * (y1 - y0)


def totals(spec: MapSpec, cells: list[dict]) -> dict:
    """Exact areas per regime (decided = PROVED), the domain (all minus OUTSIDE) and fractions.

    Parameters
    ----------
    spec : MapSpec
        The map's slice.
    cells : list of dict
        The leaf cells.

    Returns
    -------
    dict
        area_total, area_covered, area_domain, area_decided (exact ``"p/q"``), decided_fraction,
        area_by_regime, fraction_by_regime, cells_by_regime and point_verdicts.
    """
    total = (spec.x_range[1] - spec.x_range[0]) * (spec.y_range[1] - spec.y_range[0])
    # a leaf's box is its id's quadtree cell (check_map verifies that), so its area is the level-0
    # cell area over 4^level: count leaves per (regime, level) in integers, then one exact sum
    nx, ny = spec.resolution
    cell0 = total / (nx * ny)
    per_level: dict[str, dict[int, int]] = {}
    area: dict[str, Fraction] = {}
    count: dict[str, int] = {}
    points: dict[str, int] = {}
    for c in cells:
        key = c["regime"] if c["status"] in ("PROVED", "OUTSIDE") else "UNDECIDED"
        lv = c["id"][0]
        per_level.setdefault(key, {})[lv] = per_level.get(key, {}).get(lv, 0) + 1
        count[key] = count.get(key, 0) + 1
        if "point" in c:
            pk = c["point"]["regime"] if c["point"]["status"] in ("PROVED", "OUTSIDE") else "UNDECIDED"
            points[pk] = points.get(pk, 0) + 1
    for key, levels in per_level.items():
        area[key] = cell0 * Fraction(sum(n << (2 * (max(levels) - lv)) for lv, n in levels.items()),
                                     1 << (2 * max(levels)))
    covered = sum(area.values(), Fraction(0))
    domain = total - area.get("OUTSIDE", Fraction(0))
    decided = sum((a for k, a in area.items() if k not in ("UNDECIDED", "OUTSIDE")), Fraction(0))
    return {"area_total": frac_str(total), "area_covered": frac_str(covered),
            "area_domain": frac_str(domain), "area_decided": frac_str(decided),
            "decided_fraction": float(decided / domain) if domain else 0.0,
            "area_by_regime": {k: frac_str(area[k]) for k in REGIME_ORDER if k in area},
            "fraction_by_regime": {k: float(area[k] / domain) if domain else 0.0 for k in REGIME_ORDER
                                   if k in area and k != "OUTSIDE"},
            "cells_by_regime": {k: count[k] for k in REGIME_ORDER if k in count},
            "point_verdicts": {k: points[k] for k in REGIME_ORDER if k in points}}


# ---------------------------------------------------------------------------------------
# re-verification
# ---------------------------------------------------------------------------------------
_STATUSES = ("PROVED", "OUTSIDE", "UNDECIDED", "REFUTED")
#: what a cell may claim besides its status and regime (a budget cell carries none of it)
_VERDICT_KEYS = ("certificate", "claim", "point", "rank", "T_lo", "T_hi")


def _reject(msg: str):
    raise CertificationFailed(f"map rejected: {msg}")


def _validated_structure(doc: dict):
    """The embedded spec and the cells of a map document, with every field the checker reads
    present and of the right JSON type (missing or mistyped structure: CertificationFailed,
    one line).  Each cell gets its exact box under ``"_box"`` (numbers with too many digits
    are bad input: InvalidParameters)."""
    from ..spec.rational import parse_rational_str

    sd = doc.get("spec")
    if not isinstance(sd, dict):
        _reject("`spec` is missing or not an object")
    sd = dict(sd)
    sd.pop("schema", None)
    try:
        spec = parse_map_spec(sd)
    except InvalidParameters as exc:
        raise CertificationFailed(f"map: the embedded spec is invalid: {exc}") from None
    cells = doc.get("cells")
    if not isinstance(cells, list) or not cells:
        _reject("`cells` is missing or not a non-empty list")
    if not isinstance(doc.get("totals"), dict):
        _reject("`totals` is missing or not an object")
    out = []
    for k, c in enumerate(cells):
        where = f"cells[{k}]"
        if not isinstance(c, dict):
            _reject(f"{where} is not an object")
        cid = c.get("id")
        if (not isinstance(cid, list) or len(cid) != 3
                or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in cid) or cid[0] > 64):
            _reject(f"{where}.id must be [level, i, j] (nonnegative integers, level ≤ 64)")
        box = c.get("box")
        if not isinstance(box, list) or len(box) != 4 or not all(isinstance(b, str) for b in box):
            _reject(f"{where}.box must be a list of 4 \"p/q\" strings")
        for key in ("status", "regime"):
            if not isinstance(c.get(key), str):
                _reject(f"{where}.{key} is missing or not a string")
        if c["status"] not in _STATUSES:
            _reject(f"{where}.status {c['status'][:40]!r} is not one of {', '.join(_STATUSES)}")
        if c["status"] in ("PROVED", "OUTSIDE") and not isinstance(c.get("certificate"), dict):
            _reject(f"{where}: a {c['status']} cell needs a certificate object")
        if c["status"] == "PROVED" and c["regime"] == "BLOWUP" and not isinstance(c.get("T_lo"), str):
            _reject(f"{where}: a BLOWUP cell needs T_lo as a \"p/q\" string")
        p = c.get("point")
        if p is not None:
            if not isinstance(p, dict) or not all(isinstance(p.get(key), str) for key in ("x", "y", "status", "regime")):
                _reject(f"{where}.point must be an object with string x, y, status and regime")
            parse_rational_str(p["x"], f"{where}.point.x")
            parse_rational_str(p["y"], f"{where}.point.y")
            if p.get("certificate") is not None and not isinstance(p["certificate"], dict):
                _reject(f"{where}.point.certificate is not an object")
        out.append({**c, "_box": tuple(parse_rational_str(b, f"{where}.box[{n}]") for n, b in enumerate(box))})
    return spec, out


def _checked(where: str, fn, arg) -> None:
    """Run one certificate check of a map; malformed certificate data (a missing key, a wrong
    JSON type) is a rejection, one line, not a traceback."""
    try:
        fn(arg)
    except (CertificationFailed, InvalidParameters) as exc:
        raise CertificationFailed(f"map: {where}: {exc}") from None
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError, OverflowError) as exc:
        raise CertificationFailed(f"map rejected: {where}: malformed certificate data "
                                  f"({type(exc).__name__}: {str(exc)[:120]})") from None


def _check_tiling(spec: MapSpec, cells: list) -> None:
    """The leaves tile the coordinate box exactly: ids unique and inside the quadtree of the spec
    (level ≤ max_depth, 0 ≤ i < n_x·2ᴸ, 0 ≤ j < n_y·2ᴸ), each box the one its id names, no leaf
    inside another, and the areas summing to the box's area — disjoint quadtree cells whose
    areas add up to the whole cover it."""
    ids = set()
    nx, ny = spec.resolution
    for c in cells:
        lv, i, j = c["id"]
        if lv > spec.max_depth or i >= nx << lv or j >= ny << lv:
            _reject(f"cell {c['id']} is not a cell of the map's grid (level ≤ {spec.max_depth}, "
                    f"{nx}·2ᴸ × {ny}·2ᴸ cells at level L)")
        if (lv, i, j) in ids:
            _reject(f"cell {c['id']} appears twice")
        ids.add((lv, i, j))
        if c["_box"] != cell_box(spec, lv, i, j):
            _reject(f"cell {c['id']} has a box that does not match its id")
    for lv, i, j in ids:
        a, b, L = i, j, lv
        while L > 0:
            a, b, L = a // 2, b // 2, L - 1
            if (L, a, b) in ids:
                _reject(f"cell {[lv, i, j]} overlaps its ancestor {[L, a, b]}")
    total = (spec.x_range[1] - spec.x_range[0]) * (spec.y_range[1] - spec.y_range[0])
    if sum((_area(c["_box"]) for c in cells), Fraction(0)) != total:
        _reject("the cells do not cover the coordinate box")


def _check_point(spec: MapSpec, c: dict, cell_checker, kind_checker=lambda kind: None, shared=None) -> bool:
    """Re-verify a cell's point verdict, bound to the map's problem at its point; returns whether
    it carried a certificate.

    The point must be the cell's centre.  A ``cell-riccati-vI`` point is re-decided on the
    degenerate box at the point by the pencil checker (the map's own polynomials); a point of another
    whole-cell kind (``kind_checker(kind)``: the map's checker of that kind, None for no such kind) is
    re-verified by that checker on the degenerate box, and its claim must hold at every point of it (its
    relative interior is the point), not only where Σ₀ ≻ 0.  A ``classify``
    point embeds a certificate: it must check, its claim must cover the map's problem at (x, y)
    exactly (same parameters, Σ₀ in the claim's quantifier) and state the point's regime, status,
    rank and bracket.  An OUTSIDE classify point is the map's Σ₀ failing to be PSD there.  No
    PROVED or REFUTED point without a certificate."""
    from ..certify.check import check
    from ..certify.check.kinds.cell_riccati_vI import KIND
    from ..spec.rational import parse_rational_str

    p, where = c["point"], f"point of cell {c['id']}"
    x, y = parse_rational_str(p["x"], "point.x"), parse_rational_str(p["y"], "point.y")
    x0, x1, y0, y1 = c["_box"]
    if (x, y) != ((x0 + x1) / 2, (y0 + y1) / 2):
        _reject(f"{where}: ({p['x']}, {p['y']}) is not the cell's centre")
    # maps written before points named their route gave none to an OUTSIDE classify point
    status, route = p["status"], p.get("route", "classify" if p["status"] == "OUTSIDE" else None)
    if status == "UNDECIDED":
        if p["regime"] != "UNDECIDED":
            _reject(f"{where}: an UNDECIDED point states regime {p['regime'][:20]}")
        return False
    if route == KIND:
        if not isinstance(p.get("certificate"), dict):
            _reject(f"{where}: a {status} point needs a certificate")
        _checked(where, lambda pt: cell_checker().check(pt, point=True),
                 {"box": [p["x"], p["x"], p["y"], p["y"]], **{k: p[k] for k in p if k not in ("x", "y")}})
        return True
    if route in POINT_KINDS and kind_checker(route) is not None:
        # decided by a whole-cell kind on the degenerate box {(x, y)}: its relative interior is the point,
        # so a claim for every point of it (never the positive definite part only) is the point's verdict
        from ..certify.check.claims import Quantifier

        cert = p.get("certificate")
        if status != "PROVED" or not isinstance(cert, dict) or cert.get("kind") != route:
            _reject(f"{where}: a point decided by {route} is PROVED with a {route} certificate")
        if shared:
            cert = {**cert, "data": resolve_shared(cert.get("data"), shared, where)}
        claim = None

        def run_kind(pt):
            nonlocal claim
            claim = kind_checker(route).check(pt)

        _checked(where, run_kind, {"box": [p["x"], p["x"], p["y"], p["y"]], "certificate": cert,
                                   **{k: p[k] for k in p if k not in ("x", "y", "certificate", "route")}})
        if claim is None or claim.quantifier != Quantifier.EVERY_IN_CELL:
            _reject(f"{where}: the {route} certificate does not decide the point itself (Σ₀ ≻ 0 there is not shown)")
        return True
    if route != "classify":
        _reject(f"{where}: unknown route {str(route)[:40]!r}")
    if status == "OUTSIDE":
        if p["regime"] != "OUTSIDE" or p.get("certificate") is not None:
            _reject(f"{where}: an OUTSIDE point says regime OUTSIDE and carries no certificate")
        try:
            spec.problem_at(x, y)
        except InvalidParameters as exc:
            if exc.field.startswith("initial.cov"):
                return False
        _reject(f"{where}: OUTSIDE, but the map's Σ₀ is positive semidefinite at the point")
    if status not in ("PROVED", "REFUTED") or not isinstance(p.get("certificate"), dict):
        _reject(f"{where}: a {str(status)[:20]} point needs a certificate")
    problem = spec.problem_at(x, y)
    res = None

    def run(cert):
        nonlocal res
        res = check(cert)

    _checked(where, run, p["certificate"])
    if res.status != status:
        _reject(f"{where}: the point says {status}, its certificate {res.status}")
    from ..certify.check.certificate import Certificate

    covers, why = res.claim.covers(problem, Certificate.from_dict(p["certificate"]).parsed_problem())
    if not covers:
        _reject(f"{where}: the certificate does not decide the map's problem at ({p['x']}, {p['y']}): {why}")
    if p["regime"] != res.claim.subject:
        _reject(f"{where}: the point says {p['regime'][:20]}, its certificate proves {res.claim.subject}")
    for key in ("rank", "T_lo", "T_hi"):
        stored, proved = p.get(key), res.claim.params.get(key)
        if stored is not None and (proved is None or parse_rational_str(str(stored), key) != parse_rational_str(str(proved), key)):
            _reject(f"{where}: {key} = {str(stored)[:40]} is not the certificate's")
    return True


def check_map(doc: dict) -> dict:
    """Re-verify a map document: the leaves tile the coordinate box exactly, every cell's and
    point's verdict is re-derived from its certificate for the map's problem at that cell or
    point (stated regime, rank, bracket and words equal to the derived ones; no PROVED without a
    certificate; a cell a time budget did not reach, reason :data:`BUDGET_REASON`, is UNDECIDED and
    carries nothing else), and the totals are recomputed from the checked cells.

    Raises :class:`CertificationFailed` on the first failure; returns counts on success.  Objects of
    the ``shared`` table must hash (SHA-256 of their canonical JSON) to their names before a cell's
    ``{"$shared": sha}`` is resolved (:func:`resolve_shared`).

    Parameters
    ----------
    doc : dict
        A map document (schema ``symbolic_tf.regime_map/1``).

    Returns
    -------
    dict
        ``{"cells_checked", "points_checked", "cells"}``.
    """
    from ..certify.check import cell_checker_of

    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        schema = doc.get("schema") if isinstance(doc, dict) else None
        raise CertificationFailed(f"map: unknown schema {str(schema)[:60]!r} (expected {SCHEMA})")
    spec, cells = _validated_structure(doc)
    if doc.get("spec_hash") is not None and doc["spec_hash"] != spec.content_hash():
        _reject("spec_hash is not the SHA-256 of the embedded spec")
    _check_tiling(spec, cells)
    shared = doc.get("shared", {})
    if not isinstance(shared, dict) or not all(isinstance(v, dict) for v in shared.values()):
        _reject("`shared` must be an object of objects")
    for sha, obj in shared.items():
        if _canonical_sha(obj) != sha:
            _reject(f"shared object {str(sha)[:16]}… does not hash to its name")
    checkers: dict = {}

    def checker(kind):
        if kind not in checkers:
            make = cell_checker_of(kind)
            _checked(f"the map's {kind} checker", lambda s: checkers.setdefault(kind, make(s)), spec)
        return checkers[kind]

    from ..certify.check.kinds.cell_riccati_vI import KIND as PENCIL_KIND

    n_cells = n_points = 0
    for c in cells:
        status = c["status"]
        if status == "REFUTED":
            _reject(f"cell {c['id']}: a cell is PROVED, OUTSIDE or UNDECIDED")
        if status == "UNDECIDED" and c["regime"] != "UNDECIDED":
            _reject(f"cell {c['id']}: an UNDECIDED cell states regime {c['regime'][:20]}")
        if c.get("reason") == BUDGET_REASON and (status != "UNDECIDED" or any(k in c for k in _VERDICT_KEYS)):
            _reject(f"cell {c['id']}: a cell the time budget did not reach (reason {BUDGET_REASON!r}) is UNDECIDED "
                    f"and carries no {', '.join(_VERDICT_KEYS)}")
        if status in ("PROVED", "OUTSIDE"):
            cert = c["certificate"]
            if shared:
                cert = {**cert, "data": resolve_shared(cert.get("data"), shared, f"cell {c['id']}")}
            kind = cert.get("kind", PENCIL_KIND)
            if cell_checker_of(kind) is None:
                _reject(f"cell {c['id']}: unknown cell certificate kind {str(kind)[:40]!r}")
            cc = {k: v for k, v in c.items() if k not in ("_box", "point")}
            _checked(f"cell {c['id']}", checker(kind).check, {**cc, "certificate": cert})
            n_cells += 1
        if c.get("point") is not None:
            n_points += _check_point(spec, c, lambda: checker(PENCIL_KIND),
                                     lambda kind: checker(kind) if cell_checker_of(kind) is not None else None,
                                     shared)
    cells = [{k: v for k, v in c.items() if k != "_box"} for c in cells]
    if totals(spec, cells) != doc.get("totals"):
        _reject("the totals do not match the cells")
    return {"cells_checked": n_cells, "points_checked": n_points, "cells": len(cells)}


# ---------------------------------------------------------------------------------------
# theory overlay (numerical, for the picture only)
# ---------------------------------------------------------------------------------------
def theory_fields(spec: MapSpec, n: int = 301):
    """Grids (X, Y, φ, f) with φ = λ_max(Σ₀^½RΣ₀^½) + 2·min(f, 0): for V = vI, F = fI the
    solution blows up iff φ > 0 (docs/mathematics.md §4, §6); among global solutions f = 0 separates the
    stable equilibrium (f > 0) from collapse (f < 0).  NaN where Σ₀ is not PD.  None when the
    slice has no such closed form.

    Parameters
    ----------
    spec : MapSpec
        The map's slice.
    n : int
        The grid points per axis.

    Returns
    -------
    tuple of numpy.ndarray or None
        (X, Y, φ, f), each n×n, or None without a closed form.
    """
    import numpy as np

    from ..certify.search.cell_riccati_vI import pencil_for

    pen = pencil_for(spec)
    if pen is None:
        return None
    xs = np.linspace(float(spec.x_range[0]), float(spec.x_range[1]), n)
    ys = np.linspace(float(spec.y_range[0]), float(spec.y_range[1]), n)
    X, Y = np.meshgrid(xs, ys, indexing="xy")
    # the polynomials are affine/quadratic in (x, y): evaluate them by their coefficients
    def fl(P):
        return {k: qmat_to_float(v) for k, v in P.items()}

    def ev(P):
        out = 0
        for (a, b), C in P.items():
            out = out + C[None, None] * (X ** a * Y ** b)[..., None, None]
        return out

    S, R, f = ev(fl(pen.S)), ev(fl(pen.R)), ev(fl(pen.f))[..., 0, 0]
    S = np.broadcast_to(S, X.shape + S.shape[-2:])
    R = np.broadcast_to(R, X.shape + R.shape[-2:])
    f = np.broadcast_to(f, X.shape)
    w, U = np.linalg.eigh(S)
    ok = w[..., 0] > 0
    Sh = np.einsum("...ik,...k,...jk->...ij", U, np.sqrt(np.clip(w, 0, None)), U)
    lam = np.linalg.eigvalsh(Sh @ R @ Sh)[..., -1]
    phi = np.where(ok, lam + 2 * np.minimum(f, 0), np.nan)
    return X, Y, phi, np.where(ok, f, np.nan)
