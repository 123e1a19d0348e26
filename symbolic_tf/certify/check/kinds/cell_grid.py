"""Independent checker of grid-basin certificates (kind ``cell-grid``) of regime maps on the projective
disk of a d = 2 softmax flow without drift (docs/mathematics.md §8, "Grid basins").

The setting is that of :mod:`.cell_basin`: Σ = X/u with tr X = 1, X(a, b) = ½[[1 + a, b], [b, 1 − a]],
the projective field g(a, b) (an exact rational polynomial of degree 3) on the closed unit disk, which
is forward invariant.  A ``cell-basin`` certificate needs one polynomial L that decreases along the
flow on a whole sublevel set; near a separatrix (the stable manifold of a saddle between two basins)
the time to reach a target grows like a logarithm of the distance, and no polynomial of moderate
degree follows it.  A *piecewise-bilinear* L on a uniform grid does: it is continuous, bilinear on
each grid box, and can be as steep as the grid allows.

**The certificate** stores a target — a rational ellipsoid target of :mod:`.cell_basin` (``target``
∈ {cluster, ray}, centre, W, rho, mu, R, annulus rho_out, R_out, kappa), optionally with a verified
polynomial basin of it (``L``, ``level``, ``eps``, ``depth``) — and the grid function: the level ``k``
(vertices (−1 + 2i/2^k, −1 + 2j/2^k)), a window of vertex indices ``window`` = [i₀, i₁, j₀, j₁], the
integer ``values`` v_ij (row by row: i outer, j inner), a rational ``scale`` (L = scale·v at the
vertices, bilinear in between), the level ``level`` = ℓ and the margin ``eps`` = ε > 0; a cell reaching
a ``ray`` target stores its bracket ``T_lo``, ``T_hi``.  Verified in exact rational arithmetic:

1. *Target* (and its polynomial basin, when given): steps 1, 1′ and 2 of :mod:`.cell_basin`.  Its
   *region* Z is its outer ellipsoid {zᵀWz < rho_out} together with its polynomial basin {L_p < ℓ_p}.
2. *Fence.*  Each edge of the window's boundary that meets the closed disk and does not lie on the
   boundary of the square [−1, 1]² has L > ℓ at both ends (L is linear on an edge).
3. *Boxes.*  Every grid box of the window that meets the closed disk satisfies one of: L > ℓ at its
   four corners (its minimum); it lies in Z (an exact range of zᵀWz, or of L_p); or
   ∇L·g < −ε on it (∇L·g is a polynomial of degree 4 in the box's local coordinates; exact range by
   the Taylor shift).  L_min is the least corner value over the boxes that meet the disk.
4. *Cell.*  tr Σ₀ ≡ T₀ constant, and L < ℓ on the bounding box of the cell's directions (a, b) where
   it meets the disk: every grid box that meets both lies in the window, and L (bilinear there) is
   < ℓ at the four corners of its intersection with the bounding box.  If Σ₀ ≻ 0 on the open cell
   the claim covers every point of the cell; if not (a cell on the boundary of the cone), the test
   runs on the pieces of a deterministic quadtree of the cell (depth ≤ 4) whose directions may lie in
   the closed disk, and the claim covers the cell's points where Σ₀ ≻ 0.

**Why.**  L is continuous and C¹ on each closed box, so along a trajectory L(x(τ)) is Lipschitz and
its derivative, where it exists, is ∇L_B·g for a box B that holds x(τ) and the points just after.  Let
R = {x in the disk and the window : L(x) ≤ ℓ}.  A point of R outside Z lies only in boxes that are
not above ℓ and not inside Z, so L decreases at a rate > ε there.  By the fence a trajectory cannot
leave the window from R without L rising above ℓ first (the disk itself is invariant), so it stays in
R and enters Z within τ_R = (ℓ − L_min)/ε; from Z the target's argument applies: CLUSTERING (rank 1)
for a ``cluster`` target; BLOWUP for a ``ray`` or ``region`` target, with the bracket of
:meth:`GridBasin.bracket` for the cell's own largest L (and Φ).

5. *Growth function* (optional, blow-up targets): integer values ``phi`` on the window times
   ``phi_scale`` define a bilinear Φ; on the part of every decreasing box of step 3 that matters,
   ∇Φ·g − c ≤ 0 (the same pieces as for L' < −ε).  Then log u + Φ does not increase before the
   target, so u ≤ u₀e^{φ − Φ_min} on the way (the bracket's tighter bound).

Each distinct grid basin is verified once per map check and reused for the other cells.
"""
from __future__ import annotations

import json
from bisect import bisect_right

import flint

from ....exact.precision import working_precision
from ....spec.errors import CertificationFailed
from .. import Hypothesis
from ..claims import Claim
from ..schema import validate
from .cell_basin import (DATA_SCHEMA as _BASIN_SCHEMA, blowup_bracket, check_basin, check_target, disk_quadtree,
                         disk_setting_hypotheses, meets_disk, pd_part_holds, poly_range, polynomial, quarters,
                         rational, target_claim)
from ..cell_enclosures import pd_on_open_box
from ..cells import CellChecker, cell_hypotheses, standalone_cell_kind
from ..tube_replay import int_in

KIND = "cell-grid"
MAX_LEVEL = 9            # the finest grid: 512 × 512 boxes
SUB_DEPTH = 3            # subdivision depth of a grid box's decrease test
MAX_VALUES = 300_000     # vertex budget of one grid (a hostile certificate cannot make the check hang)
_PREC = 128
_L_FIELDS = ("L", "level", "eps", "depth")
REGION_DEPTH = 12        # quadtree depth limit of a growth region's check
MAX_REGION_BOXES = 200_000
MAX_PIECES = 8
#: a grid basin: target, level k, window [i₀, i₁, j₀, j₁], values (rows i₀…i₁ of columns j₀…j₁), scale, ℓ, ε
BASIN_SCHEMA = {"target": "obj", "k": "int", "window": "int[]", "values": "int[][]", "scale": "rat", "level": "rat",
                "eps": "rat", "phi?": "int[][]", "phi_scale?": "rat"}
REGION_SCHEMA = {"target": ("enum", "region"), "G": "any", "c_lo": "rat", "depth": "int"}

__all__ = ["KIND", "HYPOTHESES", "GridBasin", "GridCellChecker", "RegionTarget", "cell_peak", "grid_schema", "target_schema",
           "meets_disk"]


def _fail(msg):
    raise CertificationFailed(f"cell-grid certificate: {msg}")


def target_schema() -> dict:
    """The schema of a ``cell-grid`` target: a :mod:`.cell_basin` target with an optional polynomial
    basin (all of ``L``, ``level``, ``eps``, ``depth``, or none).

    Returns
    -------
    dict
        The field → type schema (:func:`symbolic_tf.certify.check.schema.validate`).
    """
    return {(k + "?" if k in _L_FIELDS else k): t for k, t in _BASIN_SCHEMA.items()}


def grid_schema(ray: bool) -> dict:
    """The schema of a ``cell-grid`` cell's data: the grid basin under ``basin`` (an object checked
    against :data:`BASIN_SCHEMA` once per distinct basin), and for a cell whose target proves blow-up its
    bracket ``T_lo``, ``T_hi``.

    Parameters
    ----------
    ray : bool
        Whether the target proves blow-up.

    Returns
    -------
    dict
        The field → type schema (:func:`symbolic_tf.certify.check.schema.validate`).
    """
    return {"basin": "obj", **({"T_lo": "rat", "T_hi": "rat"} if ray else {})}


def _range_of(coeffs: dict) -> tuple:
    """(lower, upper) of Σ d_ij sⁱtʲ over |s|, |t| ≤ 1."""
    c0 = coeffs.get((0, 0), flint.fmpq(0))
    spread = sum((abs(c) for e, c in coeffs.items() if e != (0, 0)), flint.fmpq(0))
    return c0 - spread, c0 + spread


class _TargetBase:
    """What every target of a grid basin shares: the memo of its region test (``_inside``, one per class)."""

    def holds(self, box, key=None) -> bool:
        """Whether the box lies in the target's region Z.

        Parameters
        ----------
        box : tuple of flint.fmpq
            (x₀, x₁, y₀, y₁).
        key : tuple or None
            The box's name (level, i, j) for the memo; None computes afresh.

        Returns
        -------
        bool
        """
        got = self._held.get(key) if key is not None else None
        if got is None:
            got = self._inside(box)
            if key is not None:
                self._held[key] = got
        return got


class _Target(_TargetBase):
    """A verified target: its region test, the time τ_Z from its region into the inner ellipsoid, and
    the ranges of c over its regions (ray targets)."""

    @staticmethod
    def ray_kind(doc) -> bool:
        """Whether a target document of this class proves blow-up.

        Parameters
        ----------
        doc : dict
            The target document.

        Returns
        -------
        bool
            True for a ``ray`` target.
        """
        return doc.get("target") == "ray"

    def __init__(self, field, pairs, data, fail):
        validate(data, target_schema(), "cell-grid.target")
        present = [k for k in _L_FIELDS if k in data]
        if present and len(present) != len(_L_FIELDS):
            fail("a target's polynomial basin needs all of L, level, eps and depth")
        tg = check_target(field, pairs, data, fail)
        self._held, self.passes = {}, {}
        self.ray = data["target"] == "ray"
        self.c_target, self.c_R = tg["c"], [tg["c_out"]]
        self._energy, self._rho_out = tg["energy"], tg["rho_out"]
        self.L = None
        tau_L = flint.fmpq(0)
        if present:
            from .cell_basin import MAX_DEPTH as L_DEPTH

            depth = int_in(data["depth"], "depth", 0, L_DEPTH, fail)
            eps, level = rational(data["eps"]), rational(data["level"])
            if not eps > 0:
                fail("eps must be positive")
            self.L, self.level = polynomial(data["L"], fail), level
            L_min, c_min, c_max = check_basin(field, self.L, level, eps, depth, self._energy, self._rho_out, fail)
            self.c_R.append((c_min, c_max))
            if L_min is not None and level > L_min:
                tau_L = (level - L_min) / eps
        with working_precision(_PREC):
            self.tau = flint.arb(tau_L) + flint.arb(tg["tau_out"].upper())

    def _inside(self, box) -> bool:
        """The box lies in the outer ellipsoid or in the polynomial basin."""
        return poly_range(self._energy, box)[1] < self._rho_out or (
            self.L is not None and poly_range(self.L, box)[1] < self.level)


class RegionTarget(_TargetBase):
    """A verified growth region R = {G_i ≤ 0 for every i} ∩ disk: forward invariant (∇G_i·g < 0 where G_i
    = 0 on R) with c = tr Q(X) ≥ c_lo > 0 on R, checked on a deterministic quadtree of depth ≤ ``depth``
    (a box that meets the disk and may meet R — every lower bound of G_j ≤ 0 — needs c ≥ c_lo on it,
    and ∇G_i·g < 0 on it for each i whose range contains 0; else it is split)."""

    ray = True

    @staticmethod
    def ray_kind(doc) -> bool:
        """A growth region proves blow-up.

        Parameters
        ----------
        doc : dict
            The target document.

        Returns
        -------
        bool
            True.
        """
        return True

    def __init__(self, field, pairs, data, fail):
        validate(data, REGION_SCHEMA, "cell-grid.target")
        self._held, self.passes = {}, {}
        depth = int_in(data["depth"], "depth", 0, REGION_DEPTH, fail)
        if not isinstance(data["G"], list) or not 1 <= len(data["G"]) <= MAX_PIECES:
            fail(f"a growth region needs a list of 1 to {MAX_PIECES} polynomials")
        for n, terms in enumerate(data["G"]):
            validate({"G": terms}, {"G": "rat[][]"}, f"cell-grid.target.G[{n}]")
        self.G = [polynomial(terms, fail) for terms in data["G"]]
        dG = [field.lie(G) for G in self.G]
        c_lo = rational(data["c_lo"])
        if not c_lo > 0:
            fail("c_lo must be positive")
        one = flint.fmpq(1)
        todo = [((-one, one, -one, one), 0)]
        c_hi = None
        for box, k in disk_quadtree(todo, "the growth region's quadtree", fail, MAX_REGION_BOXES, meets_disk):
            ranges = [poly_range(G, box) for G in self.G]
            if any(lo > 0 for lo, _hi in ranges):
                continue
            c_rng = poly_range(field.c, box)
            ok = c_rng[0] >= c_lo and all(poly_range(d, box)[1] < 0 for d, (lo, hi) in zip(dG, ranges) if hi >= 0)
            if ok:
                c_hi = c_rng[1] if c_hi is None or c_rng[1] > c_hi else c_hi
                continue
            if k >= depth:
                fail(f"the growth region's test fails near ({float((box[0] + box[1]) / 2):.4g}, "
                     f"{float((box[2] + box[3]) / 2):.4g})")
            todo += [(q, k + 1) for q in quarters(box)]
        if c_hi is None:
            fail("the growth region is empty")
        self.c_target, self.c_R = (c_lo, c_hi), []
        self.tau = flint.arb(0)

    def _inside(self, box) -> bool:
        """The box lies in R (every G_i < 0 on it)."""
        return all(poly_range(G, box)[1] < 0 for G in self.G)


#: target kinds → their verifiers (a new kind of target is one more class with ``holds``, ``ray``,
#: ``c_target``, ``c_R`` and ``tau``)
_TARGETS = {"cluster": _Target, "ray": _Target, "region": RegionTarget}


class GridBasin:
    """A grid basin, verified on construction (steps 1–3 of the module docstring).

    Parameters
    ----------
    field : symbolic_tf.certify.check.kinds.cell_basin.PlanarField
        The exact projective field.
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The head's exact (V, A).
    data : dict
        The basin (:data:`BASIN_SCHEMA`): ``target``, ``k``, ``window``, ``values``, ``scale``, ``level``,
        ``eps``.
    fail : callable
        ``fail(msg)`` raises.
    misses : list or None
        Search side only: when a list, a box that passes no test of step 3 is appended to it as
        (its least corner value, box) instead of failing — a certificate is never built from this mode.
    target : object or None
        Search side only: the already verified target of ``data`` (reused across levels); the checker
        never passes it.

    Attributes
    ----------
    target : _Target
    L_min : flint.fmpq or None
        The least corner value over the boxes that meet the disk.
    c_R : list of tuple
        Ranges of c = tr Q(X) over the boxes of R (ray targets only) and the target's regions.
    """

    def __init__(self, field, pairs, data, fail, misses=None, target=None):
        self.field, self.fail = field, fail
        self._gens = field.g[0].context().gens()
        tdoc = data["target"]
        cls = _TARGETS.get(tdoc.get("target")) if isinstance(tdoc, dict) else None
        if cls is None:
            fail(f"target must be one of {', '.join(_TARGETS)}")
        self.target = target if target is not None else cls(field, pairs, tdoc, fail)
        self.k = int_in(data["k"], "k", 1, MAX_LEVEL, fail)
        n = 1 << self.k
        w = data["window"]
        if not isinstance(w, list) or len(w) != 4:
            fail("window must be [i0, i1, j0, j1]")
        self.i0, self.i1, self.j0, self.j1 = (int_in(v, "window", 0, n, fail) for v in w)
        if not (self.i0 < self.i1 and self.j0 < self.j1):
            fail("the window must hold at least one box")
        rows = data["values"]
        size = (self.i1 - self.i0 + 1) * (self.j1 - self.j0 + 1)
        if size > MAX_VALUES or len(rows) != self.i1 - self.i0 + 1 or any(len(r) != self.j1 - self.j0 + 1 for r in rows):
            fail(f"values must be the window's {self.i1 - self.i0 + 1} rows of {self.j1 - self.j0 + 1} vertices "
                 f"(at most {MAX_VALUES} in all)")
        self.scale, self.level, eps = rational(data["scale"]), rational(data["level"]), rational(data["eps"])
        if not (self.scale > 0 and eps > 0):
            fail("scale and eps must be positive")
        self.values = data["values"]
        # ℓ in value units: L > ℓ ⟺ v > ℓ/scale
        self._top = self.level / self.scale
        self._fence()
        self.L_min, self.c_R = self._boxes(eps, misses)
        self.phi = None
        if ("phi" in data) != ("phi_scale" in data):
            fail("a growth function needs both phi and phi_scale")
        if "phi" in data:
            if not self.target.ray:
                fail("a growth function phi belongs to a blow-up target")
            phi = data["phi"]
            if len(phi) != len(rows) or any(len(r) != len(q) for r, q in zip(phi, rows)):
                fail("phi must have the shape of values")
            self.phi, self.phi_scale = phi, rational(data["phi_scale"])
            if not self.phi_scale > 0:
                fail("phi_scale must be positive")
            self._check_phi()

    def vertex(self, i) -> flint.fmpq:
        """The coordinate −1 + 2i/2^k of vertex index i (either axis).

        Parameters
        ----------
        i : int
            A vertex index.

        Returns
        -------
        flint.fmpq
        """
        return flint.fmpq(2 * i - (1 << self.k), 1 << self.k)

    def v(self, i, j) -> int:
        """The stored value at vertex (i, j) of the window.

        Parameters
        ----------
        i, j : int
            Vertex indices inside the window.

        Returns
        -------
        int
        """
        return self.values[i - self.i0][j - self.j0]

    def box(self, i, j) -> tuple:
        """The grid box with lower-left vertex (i, j) as (x₀, x₁, y₀, y₁).

        Parameters
        ----------
        i, j : int

        Returns
        -------
        tuple of flint.fmpq
        """
        return self.vertex(i), self.vertex(i + 1), self.vertex(j), self.vertex(j + 1)

    def _fence(self):
        n = 1 << self.k
        edges = []
        for i in range(self.i0, self.i1):
            for j in (self.j0, self.j1):
                if j not in (0, n):
                    edges.append(((i, j), (i + 1, j)))
        for j in range(self.j0, self.j1):
            for i in (self.i0, self.i1):
                if i not in (0, n):
                    edges.append(((i, j), (i, j + 1)))
        for (p, q) in edges:
            xs = sorted((self.vertex(p[0]), self.vertex(q[0])))
            ys = sorted((self.vertex(p[1]), self.vertex(q[1])))
            if meets_disk((xs[0], xs[1], ys[0], ys[1])) and not (self.v(*p) > self._top and self.v(*q) > self._top):
                self.fail("the window's boundary is not above the level where it meets the disk")

    def _boxes(self, eps, misses):
        # boxes above ℓ cannot lower L_min below ℓ (and τ_R needs L_min only when it is below ℓ)
        L_min = None
        c_R = list(self.target.c_R)
        self._ray_boxes = []          # (least corner value, c_lo, c_hi, δ, i, j) of the decreasing boxes (ray targets)
        top, rows = self._top, self.values
        for i in range(self.i0, self.i1):
            r0, r1 = rows[i - self.i0], rows[i + 1 - self.i0]
            for j in range(self.j0, self.j1):
                jj = j - self.j0
                v00, v10, v01, v11 = r0[jj], r1[jj], r0[jj + 1], r1[jj + 1]
                lo = min(v00, v10, v01, v11)
                if lo > top:
                    continue
                box = self.box(i, j)
                if not meets_disk(box):
                    continue
                lo_q = lo * self.scale
                L_min = lo_q if L_min is None or lo_q < L_min else L_min
                if self.target.holds(box, (self.k, i, j)):
                    continue
                delta = self._decreases(box, (self.k, i, j), (v00, v10, v01, v11), eps)
                if delta is not None:
                    if self.target.ray:
                        c_rng = poly_range(self.field.c, box)
                        c_R.append(c_rng)
                        self._ray_boxes.append((lo_q, c_rng[0], c_rng[1], delta, i, j))
                    continue
                if misses is None:
                    self.fail(f"L decreases too slowly near ({float((box[0] + box[1]) / 2):.4g}, "
                              f"{float((box[2] + box[3]) / 2):.4g})")
                misses.append((lo_q, box))
        self._ray_boxes.sort(key=lambda r: r[0])
        return L_min, c_R

    def _decreases(self, box, key, corners, eps):
        """∇L·g < −ε on the part of the grid box in the disk, outside Z and with L ≤ ℓ: the exact range over
        the box, else over the quarters of a subdivision of depth ≤ :data:`SUB_DEPTH` (pieces that miss the
        disk, lie in Z or have L > ℓ are dropped).  Returns δ > ε with ∇L·g ≤ −δ on that part (the least
        of the pieces' bounds), or None.  ``key`` = (k, i, j) names the box; a pass that dropped no piece
        for being above ℓ holds at every level and is remembered with the target."""
        memo = self.target.passes
        name = (key, corners, self.scale, eps)
        if name in memo:
            return memo[name]
        L, dL = self._local(box, corners, self.scale)
        above = False
        delta = None
        todo = [(box, key)]
        while todo:
            piece, sub = todo.pop()
            top = poly_range(dL, piece)[1]
            if top < -eps:
                delta = -top if delta is None or -top < delta else delta
                continue
            if sub[0] >= key[0] + SUB_DEPTH:
                return None
            kept, dropped_above = self._split(piece, sub, L)
            above |= dropped_above
            todo += kept
        if delta is None:           # every piece was dropped: nothing of the box is visited below ℓ
            delta = eps + 1
        if not above:
            memo[name] = delta
        return delta

    def _local(self, box, corners, scale):
        """The bilinear function with these corner values (times ``scale``) on the grid box, and its
        derivative along the field, as polynomials in (a, b)."""
        a, b = self._gens
        x0, x1, y0, y1 = box
        h = (x1 - x0) / 2
        v00, v10, v01, v11 = corners
        s, t = (a - (x0 + x1) / 2) / h, (b - (y0 + y1) / 2) / h
        # F = ¼·scale·[v00(1−s)(1−t) + v10(1+s)(1−t) + v01(1−s)(1+t) + v11(1+s)(1+t)]
        Fx = (scale / (4 * h)) * ((v10 - v00) * (1 - t) + (v11 - v01) * (1 + t))
        Fy = (scale / (4 * h)) * ((v01 - v00) * (1 - s) + (v11 - v10) * (1 + s))
        F = (scale / 4) * (v00 * (1 - s) * (1 - t) + v10 * (1 + s) * (1 - t)
                           + v01 * (1 - s) * (1 + t) + v11 * (1 + s) * (1 + t))
        return F, Fx * self.field.g[0] + Fy * self.field.g[1]

    def _split(self, piece, name, L):
        """The quarters of a piece that still matter — they meet the disk, are not inside Z and have
        L ≤ ℓ somewhere — with their names; and whether one was dropped for lying above ℓ."""
        k, i, j = name
        kept, above = [], False
        for q, sub in zip(quarters(piece), ((k + 1, 2 * i, 2 * j), (k + 1, 2 * i, 2 * j + 1),
                                             (k + 1, 2 * i + 1, 2 * j), (k + 1, 2 * i + 1, 2 * j + 1))):
            if not meets_disk(q) or self.target.holds(q, sub):
                continue
            if poly_range(L, q)[0] > self.level:
                above = True
                continue
            kept.append((q, sub))
        return kept, above

    def _check_phi(self):
        """The growth function Φ (bilinear, ``phi``·``phi_scale`` at the vertices): Φ' = ∇Φ·g ≤ c on the
        part of every decreasing box of R that matters (as for L' < −ε), so that log u + Φ does not
        increase before the target (u' = −c·u); and the least corner value of Φ per box."""
        self._phi_lo = []
        for lo_q, _c_lo, _c_hi, _d, i, j in self._ray_boxes:
            box = self.box(i, j)
            corners = (self.v(i, j), self.v(i + 1, j), self.v(i, j + 1), self.v(i + 1, j + 1))
            ph = (self._p(i, j), self._p(i + 1, j), self._p(i, j + 1), self._p(i + 1, j + 1))
            L, _dL = self._local(box, corners, self.scale)
            _P, dP = self._local(box, ph, self.phi_scale)
            excess = dP - self.field.c
            todo = [(box, (self.k, i, j))]
            while todo:
                piece, sub = todo.pop()
                if poly_range(excess, piece)[1] <= 0:
                    continue
                if sub[0] >= self.k + SUB_DEPTH:
                    self.fail(f"the growth function's Φ' ≤ c fails near ({float((box[0] + box[1]) / 2):.4g}, "
                              f"{float((box[2] + box[3]) / 2):.4g})")
                todo += self._split(piece, sub, L)[0]
            self._phi_lo.append((lo_q, min(ph) * self.phi_scale))

    def _p(self, i, j) -> int:
        """Φ's stored value at vertex (i, j) of the window (as :meth:`v` for L)."""
        return self.phi[i - self.i0][j - self.j0]

    def peak(self, bbox):
        """The maxima of L (and of the growth function Φ) over the closed box (a₀, a₁, b₀, b₁) where it
        meets the disk, if L < ℓ there (step 4): every grid box that meets both lies in the window, and
        L, bilinear on the grid box, takes its maximum over their intersection at one of its four corners
        (Φ likewise).

        Parameters
        ----------
        bbox : tuple of flint.fmpq

        Returns
        -------
        tuple or None
            (max L, max Φ or None without Φ); None when L < ℓ fails somewhere, or a grid box lies outside
            the window.
        """
        n = 1 << self.k
        # box i (x_i ≤ a ≤ x_{i+1}) meets [a₀, a₁] ⟺ u(a₀) − 1 ≤ i ≤ u(a₁), u(a) = (a + 1)·2^{k−1}
        u = [(v + 1) * n / 2 for v in bbox]
        ia, ib = max(-int((-u[0]).floor()) - 1, 0), min(int(u[1].floor()), n - 1)
        ja, jb = max(-int((-u[2]).floor()) - 1, 0), min(int(u[3].floor()), n - 1)
        if ia > ib or ja > jb:
            return None
        a0, a1, b0, b1 = bbox
        best = phi = None
        for i in range(ia, ib + 1):
            for j in range(ja, jb + 1):
                box = self.box(i, j)
                x0, x1, y0, y1 = max(a0, box[0]), min(a1, box[1]), max(b0, box[2]), min(b1, box[3])
                if x0 > x1 or y0 > y1 or not meets_disk(box):
                    continue
                if not (self.i0 <= i < self.i1 and self.j0 <= j < self.j1):
                    return None
                h = box[1] - box[0]
                v00, v10, v01, v11 = self.v(i, j), self.v(i + 1, j), self.v(i, j + 1), self.v(i + 1, j + 1)
                if self.phi is not None:
                    p00, p10, p01, p11 = self._p(i, j), self._p(i + 1, j), self._p(i, j + 1), self._p(i + 1, j + 1)
                for x in (x0, x1):
                    s = (x - box[0]) / h
                    for y in (y0, y1):
                        t = (y - box[2]) / h
                        val = (v00 * (1 - s) + v10 * s) * (1 - t) + (v01 * (1 - s) + v11 * s) * t
                        if not val < self._top:
                            return None
                        best = val if best is None or val > best else best
                        if self.phi is not None:
                            pv = (p00 * (1 - s) + p10 * s) * (1 - t) + (p01 * (1 - s) + p11 * s) * t
                            phi = pv if phi is None or pv > phi else phi
        if best is None:
            return None
        return best * self.scale, (None if phi is None else phi * self.phi_scale)

    def covers(self, bbox) -> bool:
        """Whether L < ℓ at every point of the closed box where it meets the disk (:meth:`peak`).

        Parameters
        ----------
        bbox : tuple of flint.fmpq

        Returns
        -------
        bool
        """
        return self.peak(bbox) is not None

    def _prefix(self):
        """The decreasing boxes sorted by least corner value, with running extrema of κ⁻, κ⁺, δ (least),
        c_lo (least), c_hi (largest) and the least corner value of Φ (computed once)."""
        if getattr(self, "_prefix_cols", None) is None:
            zero = flint.fmpq(0)
            cols = [[], [], [], [], [], [], []]
            acc = [None] * 6
            phi_lo = [lo_phi for _lo, lo_phi in self._phi_lo] if self.phi is not None else None
            for n, (lo_q, c_lo, c_hi, d, _i, _j) in enumerate(self._ray_boxes):
                new = (max(zero, -c_lo) / d, max(zero, c_hi) / d, d, c_lo, c_hi,
                       None if phi_lo is None else phi_lo[n])
                pick = (max, max, min, min, max, min)
                acc = [v if a is None else (a if v is None else f(a, v)) for a, v, f in zip(acc, new, pick)]
                cols[0].append(lo_q)
                for col, a in zip(cols[1:], acc):
                    col.append(a)
            self._prefix_cols = cols
        return self._prefix_cols

    def bracket(self, T0, m=None, phi=None) -> tuple:
        """Arb bounds of T* for every Σ₀ of trace T₀ whose direction lies in R with L ≤ m (and Φ ≤ φ)
        (ray targets).

        Along a trajectory from L ≤ m the visited boxes are those whose least corner value is ≤ m; on each,
        −c ≤ κ⁻_B·(−L') and c ≤ κ⁺_B·(−L') with κ⁻_B = max(0, −c_lo)/δ_B, κ⁺_B = max(0, c_hi)/δ_B
        (∇L·g ≤ −δ_B there).  With ΔL = m − L_min, u = 1/tr Σ and u' = −c·u, up to the target:
        u₁ ∈ u₀[e^{−κ⁺ΔL}, e^{κ⁻ΔL}] and t₁ = ∫u dτ ≤ u₀(e^{κ⁻ΔL} − 1)/(κ⁻δ) (δ the least δ_B);
        with the growth function Φ (log u + Φ does not increase), u ≤ u₀e^{φ − Φ_min} on the way and
        t₁ ≤ τ₁u₀e^{φ − Φ_min}; with τ₁ ≤ ΔL/δ, also the bounds of :func:`.cell_basin.blowup_bracket`
        from the range of c — the best of each is used.  From the target on,
        :func:`.cell_basin.blowup_bracket` for u₁ (its bounds are linear in u₁).

        Parameters
        ----------
        T0 : flint.fmpq
            tr Σ₀ > 0.
        m : flint.fmpq or None
            An upper bound of L on the directions (None: ℓ).
        phi : flint.fmpq or None
            An upper bound of Φ on the directions (None: not used).

        Returns
        -------
        tuple of flint.arb
        """
        m = self.level if m is None or m > self.level else m
        dL = m - self.L_min if self.L_min is not None and m > self.L_min else flint.fmpq(0)
        zero = flint.fmpq(0)
        k = bisect_right(self._prefix()[0], m)          # the boxes whose least corner value is ≤ m
        if k:
            k_minus, k_plus, delta, c_min, c_max, phi_least = (col[k - 1] for col in self._prefix()[1:])
        else:
            k_minus = k_plus = c_min = c_max = zero
            delta = phi_least = None
        phi_min = phi_least if phi is not None and self.phi is not None else None
        tgt_lo, tgt_hi = blowup_bracket(flint.fmpq(1), self.target.tau, self.target.c_R, self.target.c_target)
        c_top = max([c_max, self.target.c_target[1]]
                    + [r[1] for r in self.target.c_R if r is not None and r[1] is not None])

        def least(*xs):
            return min(xs, key=lambda x: x.upper())

        with working_precision(_PREC):
            u0 = flint.arb(1 / T0)
            if delta is None or dL == 0:
                grow = shrink = flint.arb(1)
                t1 = flint.arb(0)
            else:
                tau = flint.arb(dL / delta)
                grow_c = (flint.arb(-min(zero, c_min)) * tau).exp()
                grow_k = (flint.arb(k_minus) * flint.arb(dL)).exp()
                grows = [grow_c, grow_k]
                if phi_min is not None:
                    grows.append(flint.arb(max(zero, phi - phi_min)).exp())
                grow = least(*grows)
                shrink_c = (flint.arb(-max(zero, c_max)) * tau).exp()
                shrink_k = (flint.arb(-k_plus) * flint.arb(dL)).exp()
                shrink = shrink_k if shrink_k.lower() > shrink_c.lower() else shrink_c
                t1s = [tau * g for g in grows]
                if k_minus > 0:
                    t1s.append((grow_k - 1) / (flint.arb(k_minus) * flint.arb(delta)))
                t1 = least(*t1s)
            lo = u0 * shrink * tgt_lo
            lo2 = u0 / flint.arb(c_top)
            if lo2.lower() > lo.lower():
                lo = lo2
            hi = u0 * (t1 + grow * tgt_hi)
        return lo, hi


def cell_peak(grid, ab, box, pd_only):
    """The maxima of L (and Φ) over a cell's directions in the disk, if the cell lies in the grid basin:
    over the bounding box of its directions, or — for a cell on the cone's boundary — the largest over
    the pieces of :func:`.cell_basin.pd_part_holds` (step 4).

    Parameters
    ----------
    grid : GridBasin
    ab : tuple of flint.fmpq_mpoly
        The directions (a(x, y), b(x, y)).
    box : tuple of flint.fmpq
        The cell.
    pd_only : bool
        Whether Σ₀ ≻ 0 fails somewhere on the open cell.

    Returns
    -------
    tuple or None
        Upper bounds (m, φ) of L and Φ on the cell's directions in the disk (φ None without Φ); None
        when the cell is not in the basin.  A rim cell with no piece in the disk gets (ℓ, None).
    """
    def directions(piece):
        (a0, a1), (b0, b1) = (poly_range(p, piece) for p in ab)
        return a0, a1, b0, b1

    if not pd_only:
        return grid.peak(directions(box))
    peaks = []

    def inside(piece):
        got = grid.peak(directions(piece))
        if got is not None:
            peaks.append(got)
        return got is not None
    if not pd_part_holds(box, ab, inside):
        return None
    if not peaks:
        return grid.level, None
    phis = [q for _m, q in peaks]
    return max(m for m, _q in peaks), (None if None in phis else max(phis))


class GridCellChecker(CellChecker):
    """Checks the ``cell-grid`` cells of one map spec (each distinct grid basin is verified once)."""

    kind_name = KIND
    fail = staticmethod(_fail)

    def __init__(self, spec):
        from .cell_basin import BasinCellChecker, route_reason

        reason = route_reason(spec)       # the projective-disk setting (named here as this kind's failure)
        if reason is not None:
            _fail(reason)
        base = BasinCellChecker(spec)     # the slice's exact field, Σ₀(x, y) and (a, b)(x, y)
        self.pairs, self.field, self.S, self.T0, self.ab = base.pairs, base.field, base.S, base.T0, base.ab
        self._grids, self._seen = {}, {}

    def grid(self, basin) -> GridBasin:
        """The verified grid basin of a cell's data (once per distinct basin).

        Parameters
        ----------
        basin : dict
            The cell's ``basin`` (schema-checked).

        Returns
        -------
        GridBasin
        """
        seen = self._seen.get(id(basin))
        if seen is not None and seen[0] is basin:
            key = seen[1]
        else:
            key = json.dumps(basin, sort_keys=True)
            self._seen[id(basin)] = (basin, key)      # the object is kept, so its id stays its own
        if key not in self._grids:
            validate(basin, BASIN_SCHEMA, "cell-grid.data.basin")
            self._grids[key] = GridBasin(self.field, self.pairs, basin, _fail)
        return self._grids[key]

    def check_proved(self, cell: dict, box, data: dict) -> Claim:
        """Re-verify a PROVED ``cell-grid`` cell (:meth:`CellChecker.check` opened it).

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
        basin = data.get("basin") if isinstance(data, dict) else None
        if not isinstance(basin, dict) or not isinstance(basin.get("target"), dict):
            _fail("basin.target must be an object")
        ray = _TARGETS.get(basin["target"].get("target"), _Target).ray_kind(basin["target"])
        validate(data, grid_schema(ray), "cell-grid.data")
        grid = self.grid(basin)
        pd_only = not pd_on_open_box(self.S, box)
        peak = cell_peak(grid, self.ab, box, pd_only)
        if peak is None:
            _fail("L < level fails somewhere on the cell: the cell is not inside the certified grid basin")
        return target_claim(cell, data, ray, lambda: grid.bracket(self.T0, *peak), _fail, pd_only)


_T = "tests/soundness/forgeries/test_cell_grid.py::"
#: the hypotheses of a grid-basin cell, each checked by :class:`GridCellChecker` (and the spec parser)
HYPOTHESES = (
    *disk_setting_hypotheses(_T),
    Hypothesis("target", "The target is verified: an ellipsoid target of cell-basin (contracting, with its annulus "
               "and optionally its polynomial basin), or a growth region R = {G_i ≤ 0 for every i} ∩ disk, forward "
               "invariant (∇G_i·g < 0 on every box where G_i may vanish) with c = tr Q(X) ≥ c_lo > 0 on it.",
               _T + "test_a_growth_region_that_does_not_hold"),
    Hypothesis("fence", "Every edge of the window's boundary that meets the closed disk (off the square's boundary) "
               "has L > ℓ at both ends: a trajectory cannot leave the window from {L ≤ ℓ}.",
               _T + "test_a_window_without_a_fence"),
    Hypothesis("decrease", "scale > 0, eps > 0, and every grid box of the window that meets the disk has L > ℓ at "
               "its four corners, lies in the target's region, or has ∇L·g < −eps on its part in the disk outside the "
               "region with L ≤ ℓ (subdivided to depth 3): {L ≤ ℓ} is left for the target within (ℓ − L_min)/eps.",
               _T + "test_a_box_where_L_does_not_decrease"),
    Hypothesis("growth-function", "A growth function Φ (blow-up targets only, phi and phi_scale > 0 together) has "
               "∇Φ·g ≤ c on the part of every decreasing box that matters, so log u + Φ does not increase before "
               "the target.", _T + "test_a_growth_function_that_grows_too_fast"),
    Hypothesis("cell-in-basin", "L < ℓ on the directions of the closed cell: every grid box meeting their bounding box "
               "and the disk lies in the window, and L < ℓ at the corners of the intersection (for a cell on the "
               "cone's boundary, on the pieces of its quadtree whose directions may lie in the disk).",
               _T + "test_a_cell_outside_the_grid_basin"),
    Hypothesis("rim-quantifier", "If Σ₀ ≻ 0 is not proved on the whole open cell, the claim covers only the cell's "
               "points where Σ₀ ≻ 0 (quantifier every point of the cell where Σ₀ ≻ 0), never every point.",
               _T + "test_a_rim_cell_claiming_every_point"),
    Hypothesis("target-regime", "The regime is the target's: cluster ⇒ CLUSTERING of rank 1, ray or growth region ⇒ "
               "BLOWUP; the cell's stored regime and rank are exactly these.", _T + "test_a_relabelled_regime"),
    Hypothesis("bracket", "BLOWUP: the cell's T_lo, T_hi equal the data's, T_lo ≤ T_hi, and [T_lo, T_hi] contains the "
               "bracket derived for the cell's own largest L (and Φ) from u₀ = 1/T₀, the decrease rates and the ranges "
               "of c.", _T + "test_a_tightened_bracket"),
    *cell_hypotheses(KIND, "a grid basin", _T),
)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, GridCellChecker, _fail)
