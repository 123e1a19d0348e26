"""Grid basins for trace-constant Σ₀ slices of single-head softmax flows in d = 2 without drift (kind
``cell-grid``, :mod:`symbolic_tf.certify.check.kinds.cell_grid`); the search side.

The polynomial basins of :mod:`symbolic_tf.certify.search.cell_basin` stop short of a separatrix, and a
blow-up ray whose approach is slow (a weak eigenvalue, often a saddle's unstable manifold running into
it) gets no basin at all.  This search builds, per attractor,

* a *target*: for an attracting isotropic point, the :mod:`.cell_basin` ellipsoid with its polynomial
  basin (the grid reaches further towards the separatrix), or — for
  a blow-up ray fed by a saddle's unstable manifold — a *growth region*: a wedge around that manifold,
  bounded by lines along the saddle's eigenvectors (the cap parallel to the stable one, so the flow
  crosses it inwards at any width), forward invariant, with c = tr Q(X) > 0 on it;
* a piecewise-bilinear L on a uniform grid that decreases along the flow into the target: the vertex
  values solve a sparse linear program (∇L·g ≤ −1 at sample points of every grid box that is not
  inside the target, L ≥ half the float reach time outside it, slack weighted towards short reach
  times), rounded up to
  multiples of 2⁻¹², then *repaired*: the boxes where the checker's procedure fails below a goal
  level (a box holding an equilibrium can never decrease) get their vertices bounded below by the goal
  and lose their rows, and the LP is solved again (:data:`REPAIRS` rounds at most); the level ℓ is the
  largest candidate at which the checker's own procedure finds no failing box below ℓ.

Floats only guess (equilibria, the wedge's directions, reach times, the LP); every basin is verified by
:class:`~symbolic_tf.certify.check.kinds.cell_grid.GridBasin` before it is used and every cell is
re-verified by the map's checker.  docs/mathematics.md §8, "Grid basins".
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...exact.rational import dyadic, float_of, frac_str, fraction_of
from ..check.kinds.cell_grid import KIND, GridBasin, RegionTarget
from .validated.tube_end import refuse

__all__ = ["KIND", "GridBasins", "growth_region", "float_inside", "lower_rational", "upper_rational", "rk4_step"]

LEVEL = 8                 # the grid: 256 × 256 boxes
SCALE_BITS = 12           # values in units of 2⁻¹²
BIG = 10 ** 9             # the value of vertices that do not reach the target (never below ℓ)
EPS = Fraction(1, 8)
REPAIRS = 6               # rounds of LP repair (:meth:`GridBasins._repaired`)
PHI_MARGIN = 0.1          # the growth function's LP margin: ∇Φ·g ≤ c − PHI_MARGIN at the samples
GOAL_QUANTILE = 0.97      # the repair's goal level: this quantile of the positive values
#: wall seconds one float LP may take (HiGHS' time limit): on some flows the grid LP stalls for many minutes
#: (a random Σ₀ slice of the map soak: over 15 min in one LP, where the reference disk's take ~3 s of CPU); past
#: it the LP has failed and the grid basin is not built — a guess lost, never a certificate.  A wall limit: 30 s
#: cut the reference disk's own grid LPs on a machine loaded ×5 (its blow-up crescent then had no basin, 88 %
#: instead of 96.5 %), so the limit is far above any LP that converges
LP_SECONDS = 300.0
#: the most rows (sample points) one grid LP may have: a basin that covers nearly the whole disk at level 8 gives
#: ~200 000 rows, and HiGHS then stalls for many minutes (cov_slice_seed3012's cluster basin: 300 s, no answer; a
#: level-7 LP of 103 000 rows of cov_slice_seed3013: no answer in 30 s) where the reference disk's LPs (~43 000
#: rows) take ~10 s of CPU; past it the grid is built one level coarser (:data:`LEVELS`) — a choice of guess, the
#: checker accepts any level
MAX_LP_ROWS = 60_000
#: the most simplex iterations one grid LP may take (a machine-independent work limit; the reference disk's grid
#: LPs take 4 000–12 500, a level-8 LP of cov_slice_seed3013's growth-region basin 84 000 — 137 s of CPU — where its
#: level-7 grid gives the same cells in 8 s): past it the LP has failed and the next level is tried
LP_ITERATIONS = 20_000
#: the grid levels tried in turn, finest first, while the LP is too large or fails
LEVELS = (LEVEL, LEVEL - 1, LEVEL - 2)
_DT, _T_END = 0.02, 80.0
#: wedge shapes tried, as fractions of the saddle–ray distance D: (cap s₀/D, half-width w₀/D, slope β)
_WEDGES = ((0.25, 0.1, 0.3), (0.25, 0.05, 0.3), (0.4, 0.1, 0.3), (0.15, 0.03, 0.2), (0.4, 0.2, 0.5))


def rk4_step(f, Z, dt):
    """One classical Runge–Kutta step Z + dt/6·(k₁ + 2k₂ + 2k₃ + k₄) of Ż = f(Z) (floats, vectorised)."""
    k1 = f(Z)
    k2 = f(Z + dt / 2 * k1)
    k3 = f(Z + dt / 2 * k2)
    k4 = f(Z + dt * k3)
    return Z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _line(coef, const):
    """The polynomial coef·(a, b) + const as [i, j, coefficient] triples (dyadic, 30 bits)."""
    return [[1, 0, frac_str(dyadic(coef[0], 30))], [0, 1, frac_str(dyadic(coef[1], 30))],
            [0, 0, frac_str(dyadic(const, 30))]]


def _float_poly(terms):
    """A float evaluator (points (…, 2) → values) of a polynomial given as [i, j, coefficient] triples."""
    from numpy.polynomial.polynomial import polyval2d

    deg = max(max(int(i), int(j)) for i, j, _c in terms)
    C = np.zeros((deg + 1, deg + 1))
    for i, j, c in terms:
        C[int(i), int(j)] += float_of(c)
    return lambda P: polyval2d(P[..., 0], P[..., 1], C)


def growth_region(ff, field, pairs, saddle, ray):
    """A growth region (a wedge around the saddle's unstable manifold, which ends at the ray) checked by
    the checker's own procedure, or None.

    With e_u, e_s the saddle's unit eigenvectors (e_u towards the ray), x − x_s = u·e_u + v·e_s and
    D = |x_ray − x_s|, the wedge is {u ≥ s₀, |v| ≤ w₀ + β(u − s₀)}: three linear pieces G ≤ 0.
    """
    from ...spec.errors import CertificationFailed

    w, U = np.linalg.eig(ff.jac(saddle))
    if np.iscomplexobj(w) and np.abs(w.imag).max() > 0:
        return None
    w, U = w.real, U.real
    eu, es = U[:, np.argmax(w)], U[:, np.argmin(w)]
    eu, es = eu / np.linalg.norm(eu), es / np.linalg.norm(es)
    D = float(np.linalg.norm(ray - saddle))
    if eu @ (ray - saddle) < 0:
        eu = -eu
    lu, lv = np.linalg.inv(np.c_[eu, es])
    for fs, fw, beta in _WEDGES:
        s0, w0 = fs * D, fw * D
        G = [_line(lv - beta * lu, -(lv @ saddle) + beta * (lu @ saddle) - w0 + beta * s0),
             _line(-lv - beta * lu, (lv @ saddle) + beta * (lu @ saddle) - w0 + beta * s0),
             _line(-lu, lu @ saddle + s0)]
        for c_lo in ("1/32", "1/256"):
            doc = {"target": "region", "G": G, "c_lo": c_lo, "depth": 10}
            try:
                return doc, RegionTarget(field, pairs, doc, refuse)
            except CertificationFailed:
                continue
    return None


class GridBasins:
    """The grid basins of one map spec (built on first use by :class:`.cell_basin.BasinCells`)."""

    def __init__(self, ff, field, pairs, T0, level: int = LEVEL):
        self.ff, self.field, self.pairs, self.T0, self.level = ff, field, pairs, T0, level
        self.basins = []      # (basin document, GridBasin, regime, (T_lo, T_hi) or None)

    def add(self, target_doc, inside, others) -> bool:
        """Build and verify the grid basin of one target (a failure is skipped silently); when the LP at the grid's
        level fails or is too large (:data:`MAX_LP_ROWS`), the next coarser level of :data:`LEVELS` is tried.

        Returns
        -------
        bool
            Whether a basin was added.
        """
        from ...spec.errors import CertificationFailed

        fine = self.level
        try:
            for level in [k for k in LEVELS if k <= fine] or [fine]:
                self.level = level
                n = 1 << level
                tau = self._reach(inside, others, n)
                try:
                    target = self._target(target_doc, n)
                    vals = self._repaired(target_doc, target, tau, inside, n)
                except ValueError:      # the LP failed or is too large: one level coarser
                    continue
                except CertificationFailed:
                    return False
                try:
                    doc = self._level(target_doc, target, vals, n)
                except (CertificationFailed, ValueError):
                    return False
                if doc is None:
                    return False
                return self._finish(doc, target, n)
            return False
        finally:
            self.level = fine

    def _finish(self, doc, target, n) -> bool:
        """Verify the basin document (with a growth function for a blow-up target) and store it."""
        from ...spec.errors import CertificationFailed

        # the checker's procedure on the final document (the target, verified above from the same
        # document, is reused)
        grid = GridBasin(self.field, self.pairs, doc, refuse, target=target)
        if grid.target.ray:
            phi = self._growth(grid, n)
            if phi is not None:
                with_phi = dict(doc, phi=phi, phi_scale=frac_str(Fraction(1, 2 ** SCALE_BITS)))
                try:
                    grid = GridBasin(self.field, self.pairs, with_phi, refuse, target=target)
                    doc = with_phi
                except CertificationFailed:
                    pass
        regime = "BLOWUP" if grid.target.ray else "CLUSTERING"
        bracket = None
        if grid.target.ray:
            lo, hi = grid.bracket(self.T0)
            T_lo, T_hi = lower_rational(lo), upper_rational(hi)
            if T_lo is None or T_hi is None:
                return False
            bracket = (frac_str(T_lo), frac_str(T_hi))
        self.basins.append((doc, grid, regime, bracket))
        return True

    # --- the float guesses -------------------------------------------------------------
    def _reach(self, inside, others, n):
        """Float reach times of the grid's vertices (RK4; vertices within 2/n of the circle start at
        their radial projection to radius 1 − 2/n, as the field outside the disk is not the flow)."""
        g = np.linspace(-1, 1, n + 1)
        P = np.array([(a, b) for a in g for b in g])
        r = np.hypot(P[:, 0], P[:, 1])
        pull = 1 - 2 / n
        Z = np.where(r[:, None] > pull, P / np.maximum(r, 1e-300)[:, None] * pull, P)
        tau = np.full(len(Z), np.inf)
        live = np.ones(len(Z), bool)
        t = 0.0
        f = lambda X: self.ff(X)[0]                                   # noqa: E731
        with np.errstate(all="ignore"):
            while t < _T_END and live.any():
                idx = np.flatnonzero(live)
                hit = inside(Z[idx])
                tau[idx[hit]] = t
                live[idx[hit]] = False
                for other in others:
                    idx = np.flatnonzero(live)
                    live[idx[other(Z[idx])]] = False
                Z[live] = rk4_step(f, Z[live], _DT)
                t += _DT
        return tau.reshape(n + 1, n + 1)

    def _repaired(self, target_doc, target, tau, inside, n):
        """Vertex values after up to :data:`REPAIRS` rounds of repair: the boxes where the checker's
        procedure finds L decreasing too slowly below a goal level (near a source or a saddle no L can
        decrease) get every vertex raised to the goal, and the LP is solved again without their rows, so
        that the values around them adapt (raising values alone makes the neighbours fail in turn)."""
        vals = self._values(tau, inside, n)
        pos = vals[(vals > 0) & (vals < BIG)]
        if not len(pos):
            return vals
        scale = Fraction(1, 2 ** SCALE_BITS)
        goal = int(np.quantile(pos, GOAL_QUANTILE))
        raised = set()
        for _ in range(REPAIRS):
            bad = self._misses(target_doc, target, vals, n, Fraction(goal) * scale)
            fresh = {(int((b[0] + 1) * n / 2), int((b[2] + 1) * n / 2)) for _lo, b in bad} - raised
            if not fresh:
                break
            raised |= fresh
            vals = self._values(tau, inside, n, raised, goal / 2 ** SCALE_BITS)
        return vals

    def _values(self, tau, inside, n, raised=frozenset(), goal=None):
        """Integer vertex values from a sparse LP (module docstring); the boxes in ``raised`` get no
        decrease rows and their vertices a lower bound ``goal``."""
        import scipy.sparse as sp
        from scipy.optimize import linprog

        h = 2 / n
        g = np.linspace(-1, 1, n + 1)
        fin = np.isfinite(tau)
        I, J = (m.ravel() for m in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
        x0, y0 = g[I], g[J]
        cx, cy = np.clip(0.0, x0, x0 + h), np.clip(0.0, y0, y0 + h)
        meets = cx * cx + cy * cy <= 1
        live = fin[I, J] & fin[I + 1, J] & fin[I, J + 1] & fin[I + 1, J + 1] & meets
        up = np.zeros(n * n, bool)
        if raised:
            up[[i * n + j for i, j in raised]] = True
        up &= meets
        # 9 samples per box (s, t ∈ {−1, 0, 1}), those within h of the disk
        S = np.array([-1.0, 0.0, 1.0])
        sx, sy = (m.ravel() for m in np.meshgrid(S, S, indexing="ij"))
        P = np.stack([x0[:, None] + (sx + 1) * h / 2, y0[:, None] + (sy + 1) * h / 2], -1)     # (n², 9, 2)
        keep = np.hypot(P[..., 0], P[..., 1]) <= 1 + h
        cand = live & ~up
        ins = np.ones(keep.shape, bool)
        sel = keep & cand[:, None]
        ins[sel] = inside(P[sel])
        # a box that leaves the target is checked whole (up to the pieces inside it), so every sample of
        # it is constrained, those inside the target too
        lp = cand & ~ins.all(1)
        if not lp.any():
            raise ValueError("no grid box reaches the target")
        if int(keep[lp].sum()) > MAX_LP_ROWS:
            raise ValueError("the grid LP is too large")
        used = np.zeros((n + 1, n + 1), bool)
        for di in (0, 1):
            for dj in (0, 1):
                used[I[lp | up] + di, J[lp | up] + dj] = True
        used &= fin                     # a vertex that never reaches the target stays at BIG
        var = -np.ones((n + 1, n + 1), int)
        var[used] = np.arange(used.sum())
        nv = int(used.sum())
        boxes = np.flatnonzero(lp)
        bi, bq = np.nonzero(keep[boxes])                    # (box number, sample) of every row
        box = boxes[bi]
        G = self.ff(P[box, bq])[0]
        s, t = sx[bq], sy[bq]
        # ∂L/∂a = [(v10 − v00)(1 − t) + (v11 − v01)(1 + t)]/(2h), ∂L/∂b likewise with s
        cs = (-(1 - t) * G[:, 0] - (1 - s) * G[:, 1], (1 - t) * G[:, 0] - (1 + s) * G[:, 1],
              -(1 + t) * G[:, 0] + (1 - s) * G[:, 1], (1 + t) * G[:, 0] + (1 + s) * G[:, 1])
        corners = ((0, 0), (1, 0), (0, 1), (1, 1))
        m, nb = len(box), len(boxes)
        rows = np.tile(np.arange(m), 4)
        cols = np.concatenate([var[I[box] + di, J[box] + dj] for di, dj in corners])
        coef = np.concatenate(cs) / (2 * h)
        A_ub = sp.hstack([sp.csr_matrix((coef, (rows, cols)), shape=(m, nv)),
                          sp.csr_matrix((-np.ones(m), (np.arange(m), bi)), shape=(m, nb))]).tocsr()
        lo = np.zeros(nv)
        lo[var[used]] = 0.5 * tau[used]                     # at least half the reach time (0 in the target)
        for di, dj in corners:
            k = var[I[up] + di, J[up] + dj]
            k = k[k >= 0]
            lo[k] = np.maximum(lo[k], goal if goal is not None else 0.0)
        tb = np.max([tau[I[boxes] + di, J[boxes] + dj] for di, dj in corners], axis=0)
        cost = np.r_[np.full(nv, 1e-3), 1 + 100 * np.exp(-tb / 4)]
        res = linprog(cost, A_ub=A_ub, b_ub=-np.ones(m), bounds=np.c_[np.r_[lo, np.zeros(nb)],
                                                                      np.r_[np.full(nv, 1e4), np.full(nb, np.inf)]],
                      method="highs", options={"time_limit": LP_SECONDS, "maxiter": LP_ITERATIONS})
        if res.status != 0:
            raise ValueError("the grid LP failed")
        vals = np.where(fin & (tau == 0), 0, BIG).astype(np.int64)
        vals[used] = np.ceil(res.x[var[used]] * 2 ** SCALE_BITS).astype(np.int64)
        return vals

    def _growth(self, grid, n):
        """Integer values (on the basin's window) of a growth function Φ ≥ 0 with ∇Φ·g ≤ c − margin at nine
        sample points of each of the basin's decreasing boxes and the least Σ Φ (a sparse LP), or None.
        Φ ≈ −∫c along the flow up to the target, so log u + Φ does not increase and the blow-up bracket
        follows the growth of tr Σ on the way (:meth:`GridBasin.bracket`)."""
        import scipy.sparse as sp
        from scipy.optimize import linprog

        boxes = [(i, j) for *_r, i, j in grid._ray_boxes]
        if not boxes:
            return None
        h = 2 / n
        S = np.array([-1.0, 0.0, 1.0])
        sx, sy = (m.ravel() for m in np.meshgrid(S, S, indexing="ij"))
        I = np.array([b[0] for b in boxes])
        J = np.array([b[1] for b in boxes])
        x0, y0 = -1 + h * I, -1 + h * J
        P = np.stack([x0[:, None] + (sx + 1) * h / 2, y0[:, None] + (sy + 1) * h / 2], -1)
        keep = np.hypot(P[..., 0], P[..., 1]) <= 1 + h
        corners = ((0, 0), (1, 0), (0, 1), (1, 1))
        used = np.zeros((n + 1, n + 1), bool)
        for di, dj in corners:
            used[I + di, J + dj] = True
        var = -np.ones((n + 1, n + 1), int)
        nv = int(used.sum())
        var[used] = np.arange(nv)
        bi, bq = np.nonzero(keep)
        G, c = self.ff(P[bi, bq])
        s, t = sx[bq], sy[bq]
        cs = (-(1 - t) * G[:, 0] - (1 - s) * G[:, 1], (1 - t) * G[:, 0] - (1 + s) * G[:, 1],
              -(1 + t) * G[:, 0] + (1 - s) * G[:, 1], (1 + t) * G[:, 0] + (1 + s) * G[:, 1])
        m = len(bi)
        rows = np.tile(np.arange(m), 4)
        cols = np.concatenate([var[I[bi] + di, J[bi] + dj] for di, dj in corners])
        A_ub = sp.csr_matrix((np.concatenate(cs) / (2 * h), (rows, cols)), shape=(m, nv))
        # Φ ≥ 0 and the least Σ Φ: the least growth function, about max(0, sup_t −∫₀ᵗ(c − margin))
        res = linprog(np.ones(nv), A_ub=A_ub, b_ub=c - PHI_MARGIN, bounds=(0, 1e4), method="highs",
                      options={"time_limit": LP_SECONDS})
        if res.status != 0:
            return None
        phi = np.zeros((n + 1, n + 1), np.int64)
        phi[used] = np.round(res.x[var[used]] * 2 ** SCALE_BITS).astype(np.int64)
        return phi[grid.i0:grid.i1 + 1, grid.j0:grid.j1 + 1].tolist()

    def _doc(self, target_doc, vals, n, level, window=None):
        """The basin document of the values on a window (the whole grid by default) at level ℓ."""
        i0, i1, j0, j1 = window or (0, n, 0, n)
        return {"target": target_doc, "k": self.level, "window": [i0, i1, j0, j1],
                "values": vals[i0:i1 + 1, j0:j1 + 1].tolist(), "scale": frac_str(Fraction(1, 2 ** SCALE_BITS)),
                "eps": frac_str(EPS), "level": frac_str(level)}

    def _target(self, target_doc, n):
        """The target, verified once for every level tried."""
        return GridBasin(self.field, self.pairs, self._doc(target_doc, np.full((n + 1, n + 1), BIG), n, 0),
                         refuse).target

    def _misses(self, target_doc, target, vals, n, level, window=None):
        """The boxes below ℓ where the checker's procedure finds no test that holds, as (value, box)."""
        misses = []
        GridBasin(self.field, self.pairs, self._doc(target_doc, vals, n, level, window), refuse, misses,
                  target=target)
        return [m for m in misses if fraction_of(m[0]) <= level]

    def _level(self, target_doc, target, vals, n):
        """The largest candidate ℓ at which the checker's procedure finds no failing box below ℓ, and
        the window of the boxes below it; None when none passes."""
        scale = Fraction(1, 2 ** SCALE_BITS)
        first = self._misses(target_doc, target, vals, n, Fraction(BIG // 2) * scale)
        cands = sorted({fraction_of(m[0]) for m in first})
        cands = [c - scale for c in cands if c > scale] or [Fraction(BIG // 4) * scale]
        lo_i, hi_i, best = 0, len(cands) - 1, None
        while lo_i <= hi_i:                 # the largest passing candidate (passing is monotone in ℓ in practice)
            mid = (lo_i + hi_i) // 2
            if not self._misses(target_doc, target, vals, n, cands[mid]):
                best, lo_i = cands[mid], mid + 1
            else:
                hi_i = mid - 1
        if best is None:
            return None
        below = np.argwhere(vals <= best / scale)
        if not len(below):
            return None
        i0, j0 = (below.min(axis=0) - 2).clip(0, n)
        i1, j1 = (below.max(axis=0) + 2).clip(0, n)
        window = (int(i0), int(i1), int(j0), int(j1))
        if self._misses(target_doc, target, vals, n, best, window):
            return None
        return self._doc(target_doc, vals, n, best, window)


def float_inside(target_doc):
    """A float test of a target's region on points (n, 2) (guesses only: the basin is checked exactly)."""
    if target_doc["target"] == "region":
        Gs = [_float_poly(G) for G in target_doc["G"]]
        return lambda P: np.all([G(P) < 0 for G in Gs], axis=0)
    p = np.array([float_of(v) for v in target_doc["centre"]])
    W = np.array([[float_of(v) for v in r] for r in target_doc["W"]])
    rho_out = float_of(target_doc["rho_out"])
    L = _float_poly(target_doc["L"]) if "L" in target_doc else None
    level = float_of(target_doc.get("level", 0))

    def inside(P):
        z = P - p
        out = np.einsum("ni,ij,nj->n", z, W, z) < rho_out
        if L is not None:
            out |= L(P) < level
        return out
    return inside


def lower_rational(x):
    """A short rational ≤ the lower end of an arb ball (None if not finite or not positive)."""
    import math

    v = float(x.lower())
    if not math.isfinite(v) or v <= 0:
        return None
    return Fraction(math.floor(Fraction(v) * (1 - Fraction(1, 2 ** 30)) * 2 ** 40), 2 ** 40)


def upper_rational(x):
    """A short rational ≥ the upper end of an arb ball (None if not finite)."""
    import math

    v = float(x.upper())
    if not math.isfinite(v):
        return None
    q = Fraction(v) * (1 + Fraction(1, 2 ** 30))
    return Fraction(math.ceil(q * 2 ** 20), 2 ** 20)
