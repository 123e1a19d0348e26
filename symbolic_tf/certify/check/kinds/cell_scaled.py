"""Independent checker of scaled-disk certificates (kind ``cell-scaled``): whole cells of a Σ₀ slice of any
trace (family ``cov``) of a single-head softmax flow in d = 2 with a general value matrix V and no drift,
certified by certificates of the trace-one disk (docs/mathematics.md §8, "Any Σ₀ slice by homogeneity").

**Homogeneity.**  Without drift Σ̇ = Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ is homogeneous of degree two, Q(cΣ) = c²Q(Σ),
so for c > 0 the curve S(t) = cΣ(ct; Σ₀) solves Ṡ = c²Q(Σ(ct)) = Q(S) from S(0) = cΣ₀:

    Σ(t; cΣ₀) = c·Σ(ct; Σ₀).                                                                (H)

With s = tr Σ₀ > 0 and X₀ = Σ₀/s (trace one, a point (u, w) = ((Σ₀₀ − Σ₁₁)/s, 2Σ₀₁/s) of the disk of
:mod:`.cell_basin`), Σ₀ has the regime of X₀ — the same rank of the limit, an equilibrium scaled by s —
and a blow-up time T*(Σ₀) = T*(X₀)/s.  Σ₀ ≻ 0 ⟺ X₀ ≻ 0 ⟺ u² + w² < 1.

**The map to the disk.**  Σ₀(x, y) = C₀ + x·C_x + y·C_y is affine, so s, Σ₀₀ − Σ₁₁ and 2Σ₀₁ are affine in
(x, y) and (u, w) = (n_u, n_w)/s is a projective map of the plane.  Where s > 0 on a box, the image of the
box is the convex hull of the images of its four corners (a projective map with a positive denominator
maps segments to segments), so its bounding box is the exact min/max of four rational corner values.

**The certificate** (per cell) stores ``scale`` = [s_min, s_max] and ``disk``, a list of disk entries, and
for a BLOWUP cell its bracket ``T_lo``, ``T_hi``.  An entry is either

* a *disk cell* of the trace-one disk of the same flow — ``kind`` ``cell-basin`` or ``cell-grid``, its
  ``box`` in (u, w), ``regime``, ``claim``, ``rank`` or ``T_lo``/``T_hi`` and ``data``, exactly a cell of the
  ``cov-disk`` map of the flow (a ``cell-grid`` cell's large ``basin`` object stored once at the data's top level
  as ``grid<i>`` and named by {"$grid": i}, so that a map shares it between cells) — re-verified by that kind's
  own checker
  (:class:`.cell_basin.BasinCellChecker`, :class:`.cell_grid.GridCellChecker`) on the disk spec built here
  from the slice's problem; those checkers verify their basin test on the *closed* box, so the regime holds
  at every direction of the closed box where X₀ ≻ 0, and for a blow-up with T*(X₀) in the entry's bracket;
* or ``disk-growth`` with rationals ``c_lo`` > 0, ``c_hi``: c(X) = tr Q(X) ∈ [c_lo, c_hi] on every box of
  a quadtree of [−1, 1]² (depth ≤ :data:`GROWTH_DEPTH`) that meets the closed disk.  Why: Σ(t) = Φ(t)Σ₀Φ(t)ᵀ
  stays positive semidefinite and non-zero, so X = Σ/tr Σ stays in the closed disk, and
  d(tr Σ)/dt = c(X)(tr Σ)²: 1/tr Σ decreases at a rate in [c_lo, c_hi], the entries of Σ ⪰ 0 are bounded
  by tr Σ, so every Σ₀ ⪰ 0 of trace s ≠ 0 blows up with T* ∈ [1/(c_hi·s), 1/(c_lo·s)] — trace one:
  [1/c_hi, 1/c_lo]; it covers every direction of the disk.

Verified, in exact rational arithmetic:

1. *Scale.*  s > 0 at the four corners of the closed cell (so on all of it) and ``scale`` is exactly
   [min, max] of s over the corners.
2. *Disk entries.*  1 ≤ #entries ≤ :data:`MAX_DISK_CELLS`; each disk cell is re-verified by its kind's checker
   (each distinct basin once per map), each growth entry by its quadtree; every entry proves the same
   regime (and the same rank).
3. *Cover.*  A deterministic quadtree of the cell (depth ≤ :data:`COVER_DEPTH`): a piece whose directions'
   bounding box misses the closed unit disk is dropped (Σ₀ is indefinite on all of it), a piece whose
   bounding box lies in the closed box of one disk cell is covered, every piece is covered when a growth entry
   is present, any other piece is split; a piece at the depth limit that is neither fails.  So the direction
   of every point of the cell where Σ₀ ⪰ 0 lies in a box whose disk verdict covers it.
4. *Claim.*  CLUSTERING with the entries' rank, or BLOWUP with [T_lo, T_hi] ⊇ [min T_lo,k / s_max,
   max T_hi,k / s_min] (by (H), T*(Σ₀) = T*(X₀)/s with T*(X₀) ∈ [T_lo,k, T_hi,k] and s ∈ [s_min, s_max]),
   T_lo > 0.  If Σ₀ ≻ 0 is not proved on the whole open cell (a cell on the cone's boundary), the claim
   covers only the cell's points where Σ₀ ≻ 0.

**Why a drift breaks it.**  With F ≠ 0 the field FΣ + ΣFᵀ + Q(Σ) mixes degrees one and two, (H) fails, and
the regime depends on the scale s as well as on the direction (a threshold in s): the disk is then one
slice among others (the ``cell-tube`` kind covers such slices).
"""
from __future__ import annotations

import json

import flint

from ....spec.errors import CertificationFailed
from .. import Hypothesis
from ..claims import Claim
from ..schema import validate
from ..cell_enclosures import pd_on_open_box
from ..cells import CellChecker, bind_cell_claim, cell_hypotheses, standalone_cell_kind
from .cell_basin import PlanarField, disk_quadtree, meets_disk, poly_range, quarters, rational

KIND = "cell-scaled"
DISK_KINDS = ("cell-basin", "cell-grid")
GROWTH = "disk-growth"
COVER_DEPTH = 8          # quadtree depth limit of the cover test (part of the kind's definition)
MAX_COVER_BOXES = 50_000
MAX_DISK_CELLS = 64
MAX_GRIDS = 8            # grid basins stored at the data's top level (``grid0`` …), named by {"$grid": i}
GROWTH_DEPTH = 10        # quadtree depth limit of a growth entry's range of c
GROWTH_BOXES = 100_000

__all__ = ["KIND", "HYPOTHESES", "ScaledCellChecker", "route_reason", "disk_spec", "direction_box", "scale_range",
           "check_growth", "direction_coefficients", "data_schema", "DISK_KINDS", "GROWTH", "MAX_GRIDS"]


def _fail(msg):
    raise CertificationFailed(f"cell-scaled certificate: {msg}")


def data_schema(blowup: bool) -> dict:
    """The schema of a ``cell-scaled`` cell's data.

    Parameters
    ----------
    blowup : bool
        Whether the cell is a BLOWUP cell (then ``T_lo`` and ``T_hi`` are stored).

    Returns
    -------
    dict
        The field → type schema (:func:`symbolic_tf.certify.check.schema.validate`).
    """
    grids = {f"grid{i}?": "obj" for i in range(MAX_GRIDS)}
    return {"scale": "rat[]", "disk": "obj[]", **grids, **({"T_lo": "rat", "T_hi": "rat"} if blowup else {})}


#: a disk cell entry (a cell of the trace-one disk map) and a growth entry
ENTRY_SCHEMA = {"kind": "str", "box": "rat[]", "regime": "str", "claim": "str", "rank?": "int", "T_lo?": "rat",
                "T_hi?": "rat", "data": "obj"}
GROWTH_SCHEMA = {"kind": "str", "c_lo": "rat", "c_hi": "rat"}


def disk_spec(spec):
    """The ``cov-disk`` map spec of a slice's flow: the same problem with Σ₀ = ½[[1 + u, w], [w, 1 − u]].

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        A Σ₀ slice (family ``cov``).

    Returns
    -------
    symbolic_tf.spec.mapspec.MapSpec
        The disk spec (raises :class:`~symbolic_tf.spec.errors.InvalidParameters` if d ≠ 2).
    """
    from ....spec.mapspec import parse_map_spec

    problem = json.loads(json.dumps(spec.problem_doc))
    problem["initial"] = {"mean": [0] * int(problem.get("d", 2))}
    return parse_map_spec({"family": "cov-disk", "resolution": [1, 1], "max_depth": 0, "problem": problem})


def route_reason(spec) -> str | None:
    """None when a map spec has the shape this kind covers, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        None for a slice of Σ₀ only (any trace), d = 2, one softmax-type head, no drift — the setting of
        :func:`.cell_basin.route_reason` on the flow's trace-one disk.
    """
    from ....spec.errors import InvalidParameters
    from .cell_basin import route_reason as disk_reason

    if any(not p.startswith("initial") for p in spec.leaves) or spec.cov_affine() is None:
        return "scaled disk certificates need a slice of Σ₀ only"
    if spec.problem_doc.get("d") != 2:
        return "scaled disk certificates cover d = 2 (the projective disk)"
    try:
        disk = disk_spec(spec)
    except InvalidParameters as exc:
        return f"scaled disk certificates: the flow's disk is invalid ({exc.reason})"
    why = disk_reason(disk)
    return None if why is None else why.replace("basin certificates", "scaled disk certificates")


def direction_coefficients(cov) -> tuple:
    """The affine numerators and denominator of the directions: (s, n_u, n_w) = (tr Σ₀, Σ₀₀ − Σ₁₁, 2Σ₀₁).

    Parameters
    ----------
    cov : tuple
        (C₀, C_x, C_y) of Σ₀(x, y) = C₀ + x·C_x + y·C_y, exact.

    Returns
    -------
    tuple
        Three coefficient triples (c₀, c_x, c_y) of flint.fmpq.
    """
    C = [[[rational(e) for e in row] for row in M] for M in cov]
    return (tuple(M[0][0] + M[1][1] for M in C), tuple(M[0][0] - M[1][1] for M in C),
            tuple(2 * M[0][1] for M in C))


def _at(coef, x, y):
    return coef[0] + coef[1] * x + coef[2] * y


def scale_range(cov, box, fail) -> tuple:
    """[s_min, s_max] of s = tr Σ₀(x, y) over the closed box (affine: its corners), s_min > 0 required.

    Parameters
    ----------
    cov : tuple
        (C₀, C_x, C_y) of Σ₀(x, y), exact.
    box : tuple of 4 flint.fmpq
        (x₀, x₁, y₀, y₁).
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    tuple of flint.fmpq
        (s_min, s_max).
    """
    s = direction_coefficients(cov)[0]
    vals = [_at(s, x, y) for x in box[:2] for y in box[2:]]
    if not min(vals) > 0:
        fail("tr Σ₀ must be positive on the cell (the scale of its directions)")
    return min(vals), max(vals)


def direction_box(coefs, box) -> tuple:
    """The exact bounding box of the directions (u, w) = (n_u, n_w)/s of a closed box where s > 0: the
    projective map sends the box onto the convex hull of its four corner images.

    Parameters
    ----------
    coefs : tuple
        (s, n_u, n_w) as coefficient triples (:func:`direction_coefficients`).
    box : tuple of 4 flint.fmpq
        (x₀, x₁, y₀, y₁), s > 0 at its corners.

    Returns
    -------
    tuple of flint.fmpq
        (u₀, u₁, w₀, w₁).
    """
    s, nu, nw = coefs
    pts = []
    for x in box[:2]:
        for y in box[2:]:
            d = _at(s, x, y)
            pts.append((_at(nu, x, y) / d, _at(nw, x, y) / d))
    us, ws = [p[0] for p in pts], [p[1] for p in pts]
    return min(us), max(us), min(ws), max(ws)


def check_growth(field, c_lo, c_hi, fail, misses=None) -> None:
    """A growth entry: c = tr Q(X) ∈ [c_lo, c_hi] on every box of a quadtree of [−1, 1]² that meets the
    closed disk (depth ≤ :data:`GROWTH_DEPTH`), c_lo > 0.

    Parameters
    ----------
    field : symbolic_tf.certify.check.kinds.cell_basin.PlanarField
        The exact projective field (its ``c``).
    c_lo, c_hi : flint.fmpq
        The stated range.
    fail : callable
        ``fail(msg)`` raises.
    misses : list or None
        Search side only: the (lower, upper) bounds of c on the boxes at the depth limit are appended
        instead of failing (a certificate is never built from this mode).
    """
    if not (c_lo > 0 and c_hi >= c_lo):
        fail("a growth entry needs 0 < c_lo ≤ c_hi")
    one = flint.fmpq(1)
    todo = [((-one, one, -one, one), 0)]
    for box, k in disk_quadtree(todo, "the growth entry's quadtree", fail, GROWTH_BOXES):
        lo, hi = poly_range(field.c, box)
        if lo >= c_lo and hi <= c_hi:
            continue
        if k >= GROWTH_DEPTH:
            if misses is not None:
                misses.append((lo, hi))
                continue
            fail("c = tr Q(X) leaves [c_lo, c_hi] on the disk (a growth entry needs c ≥ c_lo > 0 everywhere)")
        todo += [(q, k + 1) for q in quarters(box)]


def _inside(inner, outer) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer[2] <= inner[2] and inner[3] <= outer[3]


class ScaledCellChecker(CellChecker):
    """Checks the ``cell-scaled`` cells of one map spec (each distinct disk basin is verified once)."""

    kind_name = KIND
    fail = staticmethod(_fail)

    def __init__(self, spec):
        self.read_slice(spec, route_reason)
        self.disk = disk_spec(spec)
        self.coefs = direction_coefficients(self.cov)
        self.field = PlanarField(*self.pairs[0])
        self._disk_checkers = {}
        self._growth = set()

    def disk_checker(self, kind):
        """The checker of the flow's trace-one disk cells of a kind.

        Parameters
        ----------
        kind : str
            ``cell-basin`` or ``cell-grid``.

        Returns
        -------
        CellChecker
            :class:`.cell_basin.BasinCellChecker` or :class:`.cell_grid.GridCellChecker` of the disk spec.
        """
        if kind not in self._disk_checkers:
            from .cell_basin import BasinCellChecker
            from .cell_grid import GridCellChecker

            self._disk_checkers[kind] = {"cell-basin": BasinCellChecker, "cell-grid": GridCellChecker}[kind](self.disk)
        return self._disk_checkers[kind]

    def _entry(self, k, e, grids) -> tuple:
        """(regime, params at trace one, closed (u, w) box or None for the whole disk) of a verified entry."""
        if not isinstance(e, dict):
            _fail(f"disk entry {k} must be an object")
        kind = e.get("kind")
        if kind == GROWTH:
            validate(e, GROWTH_SCHEMA, f"cell-scaled.data.disk[{k}]")
            c_lo, c_hi = rational(e["c_lo"]), rational(e["c_hi"])
            if (c_lo, c_hi) not in self._growth:
                check_growth(self.field, c_lo, c_hi, _fail)
                self._growth.add((c_lo, c_hi))
            return "BLOWUP", {"T_lo": 1 / c_hi, "T_hi": 1 / c_lo}, None
        if kind not in DISK_KINDS:
            _fail(f"disk entry {k}: kind {str(kind)[:40]!r} is not one of {', '.join(DISK_KINDS + (GROWTH,))}")
        validate(e, ENTRY_SCHEMA, f"cell-scaled.data.disk[{k}]")
        if len(e["box"]) != 4:
            _fail(f"disk entry {k}: box must have 4 numbers")
        cell = {"box": e["box"], "status": "PROVED", "regime": e["regime"], "claim": e["claim"],
                "certificate": {"kind": kind, "data": self._resolved(k, e["data"], grids)}}
        for key in ("rank", "T_lo", "T_hi"):
            if key in e:
                cell[key] = e[key]
        try:
            claim = self.disk_checker(kind).check(cell)
        except CertificationFailed as exc:
            _fail(f"disk entry {k} ({kind}) does not verify: {exc}")
        box = tuple(rational(b) for b in e["box"])
        params = {key: rational(claim.params[key]) for key in ("T_lo", "T_hi") if key in claim.params}
        if "rank" in claim.params:
            params["rank"] = int(claim.params["rank"])
        return claim.subject, params, box

    @staticmethod
    def _resolved(k, data, grids) -> dict:
        """A disk cell's data with a {"$grid": i} basin replaced by the cell data's top-level ``grid<i>``."""
        ref = data.get("basin")
        if not (isinstance(ref, dict) and set(ref) == {"$grid"}):
            return data
        i = ref["$grid"]
        name = f"grid{i}" if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < MAX_GRIDS else None
        if name is None or name not in grids:
            _fail(f"disk entry {k}: basin names no stored grid")
        return {**data, "basin": grids[name]}

    def _covered(self, box, boxes, everywhere) -> None:
        """Step 3: the directions of every point of the cell where Σ₀ ⪰ 0 lie in one of the boxes."""
        if everywhere:
            return
        todo = [(box, 0)]
        seen = 0
        while todo:
            piece, k = todo.pop()
            seen += 1
            if seen > MAX_COVER_BOXES:
                _fail(f"the cover test needs more than {MAX_COVER_BOXES} boxes")
            bb = direction_box(self.coefs, piece)
            if not meets_disk(bb) or any(_inside(bb, b) for b in boxes):
                continue
            if k >= COVER_DEPTH:
                _fail(f"the disk cells do not cover the cell's directions near (u, w) ≈ "
                      f"({float((bb[0] + bb[1]) / 2):.4g}, {float((bb[2] + bb[3]) / 2):.4g})")
            todo += [(q, k + 1) for q in quarters(piece)]

    def check_proved(self, cell: dict, box, data: dict) -> Claim:
        """Re-verify a PROVED ``cell-scaled`` cell (:meth:`CellChecker.check` opened it).

        Parameters
        ----------
        cell : dict
            The stored cell.
        box : tuple of 4 flint.fmpq
            Its closed box.
        data : dict
            Its certificate's data.

        Returns
        -------
        symbolic_tf.certify.check.claims.Claim
            The claim derived from the data, bound to the stored cell.
        """
        validate(data, data_schema(cell.get("regime") == "BLOWUP"), "cell-scaled.data")
        s_min, s_max = scale_range(self.cov, box, _fail)
        scale = [rational(v) for v in data["scale"]]
        if scale != [s_min, s_max]:
            _fail("scale is not the range [s_min, s_max] of tr Σ₀ over the cell")
        entries = data["disk"]
        if not 1 <= len(entries) <= MAX_DISK_CELLS:
            _fail(f"disk must hold 1 to {MAX_DISK_CELLS} entries")
        got = [self._entry(k, e, data) for k, e in enumerate(entries)]
        regime = got[0][0]
        ranks = {p.get("rank") for _r, p, _b in got}
        if any(r != regime for r, _p, _b in got) or len(ranks) != 1:
            _fail("the disk entries do not prove one regime (and one rank)")
        self._covered(box, [b for _r, _p, b in got if b is not None], any(b is None for _r, _p, b in got))
        pd_only = not pd_on_open_box(self.S, box)
        if regime == "BLOWUP":
            lo = min(p["T_lo"] for _r, p, _b in got) / s_max
            hi = max(p["T_hi"] for _r, p, _b in got) / s_min
            T_lo, T_hi = rational(data["T_lo"]), rational(data["T_hi"])
            if not (0 < T_lo <= lo and hi <= T_hi):
                _fail("the stored bracket does not contain the rescaled one [min T_lo/s_max, max T_hi/s_min]")
            params = {"T_lo": data["T_lo"], "T_hi": data["T_hi"]}
        elif regime == "CLUSTERING":
            params = {"rank": ranks.pop()}
        else:
            _fail(f"regime {regime[:20]} is not one a disk entry proves")
        return bind_cell_claim(cell, regime, params, _fail, pd_only)


_T = "tests/soundness/forgeries/test_cell_scaled.py::"
#: the hypotheses of a scaled-disk cell, each checked by :class:`ScaledCellChecker` (and the spec parser)
HYPOTHESES = (
    Hypothesis("sigma0-slice", "Only the initial covariance varies over the slice: Σ₀(x, y) is affine in the "
               "coordinates and every parameter of the flow is the same at every point of the cell.",
               _T + "test_a_parameter_varying_over_the_cell"),
    Hypothesis("homogeneous", "d = 2, one softmax-type head, no drift, no depth schedule, no ReLU term: Q(cΣ) = c²Q(Σ), "
               "so Σ(t; cΣ₀) = cΣ(ct; Σ₀) and the regime of Σ₀ is that of its direction Σ₀/tr Σ₀ on the trace-one disk.",
               _T + "test_a_drift"),
    Hypothesis("scale", "tr Σ₀ > 0 at the four corners of the closed cell and the stored scale is exactly "
               "[min, max] of tr Σ₀ over them (tr Σ₀ is affine).", _T + "test_a_wrong_scale_range"),
    Hypothesis("disk-cells", "Each disk entry is a cell of the flow's trace-one disk re-verified by its own kind "
               "(cell-basin or cell-grid, on its closed box), or a growth entry: c = tr Q(X) ∈ [c_lo, c_hi], c_lo > 0, "
               "on the whole closed disk.", _T + "test_a_disk_certificate_moved_to_a_neighbouring_box"),
    Hypothesis("one-regime", "Every disk entry proves the same regime and rank.", _T + "test_entries_of_two_regimes"),
    Hypothesis("cover", "The directions (u, w) of every point of the cell where Σ₀ ⪰ 0 lie in the closed box of a "
               "disk entry: on a quadtree of the cell (depth ≤ 8), each piece's exact direction bounding box (the "
               "hull of its corner images) misses the closed disk or lies in one entry's box.",
               _T + "test_a_disk_cover_with_a_gap"),
    Hypothesis("rescaled-bracket", "BLOWUP: [T_lo, T_hi] contains [min T_lo,k/s_max, max T_hi,k/s_min], the entries' "
               "trace-one brackets rescaled by T*(Σ₀) = T*(Σ₀/s)/s, and T_lo > 0.", _T + "test_a_bracket_not_rescaled"),
    Hypothesis("rim-quantifier", "If Σ₀ ≻ 0 is not proved on the whole open cell, the claim covers only the cell's "
               "points where Σ₀ ≻ 0 (quantifier every point of the cell where Σ₀ ≻ 0), never every point.",
               _T + "test_a_rim_cell_claiming_every_point"),
    *cell_hypotheses(KIND, "trace-one disk certificates with a scale range", _T),
)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, ScaledCellChecker, _fail)
