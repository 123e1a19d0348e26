"""Whole-cell basin certificates for trace-constant Σ₀ slices of single-head softmax flows in d = 2
without drift (kind ``cell-basin``, :mod:`symbolic_tf.certify.check.kinds.cell_basin`).

Without drift the flow is homogeneous, and a cell's solutions spread along a neutral line of
equilibria, so validated tubes from a cell's set fail (:mod:`symbolic_tf.certify.search.cell_tube`).  On the
projective disk of trace-one matrices the line is a point, and the flow is a planar polynomial field.
This search certifies *regions* of the disk at once: for each attractor (an isotropic rank-one point
of A + Aᵀ, or an attracting blow-up ray) it finds a contracting target ellipsoid, a polynomial L that
decreases along the flow on a sublevel set {L ≤ ℓ} outside the target, and the level ℓ; a map cell
whose directions lie in {L < ℓ} is then certified by one exact polynomial range.  docs/mathematics.md
§8 "Basins on the projective disk".  A cell outside every polynomial basin is tried against the grid
basins of :mod:`.cell_grid` (kind ``cell-grid``): blow-up rays fed by a saddle's unstable manifold,
through a growth region (§8 "Growth regions and grid basins").

Floats only guess (equilibria, Lyapunov matrices, the reach times that shape L, the linear program
that fits L); every basin is verified by the checker's own procedures before it is used, and every
cell result is re-verified by :class:`~symbolic_tf.certify.check.kinds.cell_basin.BasinCellChecker`
(the map's ``check_map``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...exact.rational import dyadic, frac_str, fraction_of
from ._cell_grid import LP_SECONDS, lower_rational, rk4_step, upper_rational
from ..check.kinds.cell_basin import (KIND, basin_schema, check_basin, check_inner, check_target, pd_part_holds,
                               poly_range, ray_bracket, route_reason)
from ..check.cell_enclosures import rat
from ..check.cells import cell_claim
from .cell_searches import cell_search
from .validated.tube_end import refuse

__all__ = ["KIND", "BasinCells", "search_reason"]

DEGREE = 10           # of L
DEPTH = 8             # quadtree depth of the basin check
_GRID = 64            # samples per side of the reach-time grid
_DT, _T_END = 0.02, 80.0
_PD_PART = {False: "", True: " where Σ₀ ≻ 0"}
#: verified basins per (flow, tr Σ₀): they live on the projective disk, so every slice of the same flow
#: and trace — a map's cells, its re-runs, the quick and the full spec — shares one deterministic search
_BUILT: dict = {}
_BUILT_MAX = 8


def search_reason(spec) -> str | None:
    """None when :class:`BasinCells` should be tried on a map spec, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        :func:`symbolic_tf.certify.check.kinds.cell_basin.route_reason`.
    """
    return route_reason(spec)


class _FloatField:
    """The planar field g(a, b) and c(a, b) in floats, vectorised over points."""

    def __init__(self, V, A):
        self.V, self.A = V, A

    def X(self, a, b):
        return np.stack([np.stack([(1 + a) / 2, b / 2], -1), np.stack([b / 2, (1 - a) / 2], -1)], -2)

    def __call__(self, P):
        X = self.X(P[..., 0], P[..., 1])
        H = self.V @ X @ self.A @ X
        Q = H + np.swapaxes(H, -1, -2)
        c = Q[..., 0, 0] + Q[..., 1, 1]
        Y = Q - c[..., None, None] * X
        return np.stack([Y[..., 0, 0] - Y[..., 1, 1], 2 * Y[..., 0, 1]], -1), c

    def jac(self, p, h=1e-7):
        cols = [(self(p + h * e)[0] - self(p - h * e)[0]) / (2 * h) for e in np.eye(2)]
        return np.array(cols).T


def _equilibria(ff):
    from scipy.optimize import fsolve

    found = []
    for a0 in np.linspace(-1, 1, 13):
        for b0 in np.linspace(-1, 1, 13):
            with np.errstate(all="ignore"):
                s, _info, ier, _msg = fsolve(lambda z: ff(z)[0], [a0, b0], full_output=True, xtol=1e-14)
            if ier != 1 or not np.all(np.isfinite(s)) or np.abs(ff(s)[0]).max() > 1e-11 or s @ s > 1 + 1e-9:
                continue
            if not any(np.abs(s - e).max() < 1e-7 for e in found):
                found.append(s)
    return found


class _Basin:
    """A verified basin: the cell data without the bracket, and its checker results."""

    def __init__(self, data, L, level, regime):
        self.data, self.L, self.level, self.regime = data, L, level, regime


@cell_search(KIND, order=2, reason=search_reason)
class BasinCells:
    """The cell search of one map spec (the basins are built once, on the first cell).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        A trace-constant Σ₀ slice, d = 2, one softmax head, no drift (:func:`search_reason` is None).
    """

    def __init__(self, spec):
        from ..check.kinds.cell_basin import BasinCellChecker

        self.spec = spec
        self.checker = BasinCellChecker(spec)   # the exact field, (a, b) of the slice, Σ₀(x, y)
        self.S = self.checker.S
        self._basins = None
        self._grids = None
        self._why = None
        self._cov = spec.cov_affine()   # (C₀, C_x, C_y): read once, not per cell
        self._composed = {}             # id(basin) → L(a(x, y), b(x, y)), composed once per basin

    def basins(self) -> list:
        """The verified basins (built on first use; a basin that fails its check is dropped).

        Returns
        -------
        list of _Basin
            One per certified attractor.
        """
        if self._basins is None:
            ck = self.checker
            key = (tuple(tuple(str(M[i, j]) for M in pair for i in range(2) for j in range(2)) for pair in ck.pairs),
                   str(ck.T0))
            got = _BUILT.get(key)
            if got is None:
                got = (self._build(), self._grids, self._why)
                if len(_BUILT) >= _BUILT_MAX:
                    _BUILT.pop(next(iter(_BUILT)))
                _BUILT[key] = got
            self._basins, self._grids, self._why = got
        return self._basins

    def float_targets(self) -> int:
        """How many attracting targets (isotropic rank-one points, blow-up rays) the float field shows: a cheap
        test (floats only, no basin is built) of whether the disk can hold a certified basin at all.

        Returns
        -------
        int
            The number of attracting equilibria of the float field with c = 0 on the circle or c > 0.
        """
        V, A = (np.array([[float(M[i, j]) for j in range(2)] for i in range(2)]) for M in self.checker.pairs[0])
        ff = _FloatField(V, A)
        count = 0
        for p in _equilibria(ff):
            if np.linalg.eigvals(ff.jac(p)).real.max() >= -1e-6:
                continue
            c = float(ff(p)[1])
            count += (abs(p @ p - 1) < 1e-8 and abs(c) < 1e-9) or c > 1e-9
        return count

    def empty_reason(self) -> str | None:
        """None when the disk has a certified basin (polynomial or grid), else why it has none (builds the
        basins on first use).

        Returns
        -------
        str or None
        """
        if self.basins() or self._grids.basins:
            return None
        return f"no certified basin ({self._why})"

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
        off = off_domain(self.S, self._cov, box, KIND)
        if off is not None and off["status"] == "OUTSIDE":
            return off
        # a cell on the cone's boundary: its claim covers the points where Σ₀ ≻ 0 (pd_part_holds)
        pd_only = off is not None
        rbox = tuple(rat(b) for b in box)
        basins = self.basins()
        if not basins and not self._grids.basins:
            return {"status": "UNDECIDED", "final": True,   # smaller cells would not help
                    "reason": f"no certified basin on the projective disk ({self._why})"}
        for bs in basins:
            Lc = self._composed.get(id(bs))
            if Lc is None:
                Lc = self._composed[id(bs)] = bs.L.compose(*self.checker.ab)
            if self._holds(rbox, lambda q: poly_range(Lc, q)[1] < bs.level, pd_only):
                params = {"rank": 1} if bs.regime == "CLUSTERING" else {"T_lo": bs.data["T_lo"], "T_hi": bs.data["T_hi"]}
                out = {"status": "PROVED", "kind": KIND, "regime": bs.regime,
                       "claim": cell_claim(bs.regime, params, pd_only).text(),
                       "argument": (f"the cell's directions{_PD_PART[pd_only]} lie in a certified basin {{L < ℓ}} "
                                    f"of the projective disk (L decreases along the flow into a contracting "
                                    f"{bs.data['target']} ellipsoid)"),
                       "data": dict(bs.data)}
                out.update(params)
                return out
        return self._grid_cell(rbox, pd_only)

    def certify_point(self, x, y) -> dict | None:
        """The verdict at one point (x, y) of the slice: the cell verdict of the degenerate box, kept only
        when PROVED with Σ₀ ≻ 0 at the point (its claim then holds at the point itself).

        Parameters
        ----------
        x, y : Fraction
            The point, exact.

        Returns
        -------
        dict or None
            The PROVED record of :meth:`certify` on the box (x, x, y, y), or None.
        """
        from ..check.cell_enclosures import pd_on_open_box

        box = (Fraction(x), Fraction(x), Fraction(y), Fraction(y))
        if not pd_on_open_box(self.S, tuple(rat(b) for b in box)):
            return None
        r = self.certify(box)
        return r if r["status"] == "PROVED" else None

    def _holds(self, rbox, test, pd_only) -> bool:
        """A basin's test on the whole cell, or on its positive definite part (cells on the boundary)."""
        return pd_part_holds(rbox, self.checker.ab, test) if pd_only else test(rbox)

    def _grid_cell(self, rbox, pd_only) -> dict:
        """The verdict of a grid basin (:mod:`.cell_grid`) holding the cell's directions (a blow-up bracket
        from the cell's own largest L), else UNDECIDED."""
        from ..check.kinds.cell_grid import KIND as GRID, cell_peak

        for doc, grid, regime, _bracket in self._grids.basins:
            peak = cell_peak(grid, self.checker.ab, rbox, pd_only)
            if peak is None:
                continue
            params = {"rank": 1}
            if regime == "BLOWUP":
                lo, hi = grid.bracket(self.checker.T0, *peak)
                T_lo, T_hi = lower_rational(lo), upper_rational(hi)
                if T_lo is None or T_hi is None:
                    continue
                params = {"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)}
            break
        else:
            return {"status": "UNDECIDED", "reason": "the cell's directions are not inside one certified basin "
                                                     "(near a basin boundary: refine)"}
        out = {"status": "PROVED", "kind": GRID, "regime": regime, "claim": cell_claim(regime, params, pd_only).text(),
               "argument": (f"the cell's directions{_PD_PART[pd_only]} lie in a certified grid basin {{L < ℓ}} of "
                            f"the projective disk (a piecewise-bilinear L decreases along the flow into a "
                            f"{doc['target']['target']} target)"),
               "data": {"basin": doc, **({} if regime != "BLOWUP" else params)}}
        out.update(params)
        return out

    # --- the search ---------------------------------------------------------------------
    def _build(self) -> list:
        from ._cell_grid import GridBasins

        self._grids = GridBasins(None, None, None, None)     # none yet (replaced by _build_grids)
        V = np.array([[float(self.checker.pairs[0][0][i, j]) for j in range(2)] for i in range(2)])
        A = np.array([[float(self.checker.pairs[0][1][i, j]) for j in range(2)] for i in range(2)])
        ff = _FloatField(V, A)
        targets = []
        for p in _equilibria(ff):
            J = ff.jac(p)
            ev = np.linalg.eigvals(J)
            if ev.real.max() >= -1e-6:
                continue
            c = float(ff(p)[1])
            on_circle = abs(p @ p - 1) < 1e-8
            if on_circle and abs(c) < 1e-9:
                targets.append(("cluster", p, J))
            elif c > 1e-9:
                targets.append(("ray", p, J))
        if not targets:
            self._why = "no attracting isotropic point or blow-up ray"
            return []
        regions = [self._target(kind, p, J) for kind, p, J in targets]
        regions = [r for r in regions if r is not None]
        if not regions:
            self._why = "no target ellipsoid passed its check"
            return []
        pts = self._samples()
        hit, tau = self._reach(ff, regions, pts)
        out = []
        fitted = {}
        for k, region in enumerate(regions):
            b = self._fit(ff, regions, k, pts, hit, tau)
            if b is not None:
                out.append(b)
                fitted[k] = b
        self._build_grids(ff, regions, fitted)
        if not out and not self._grids.basins:
            self._why = "no decreasing function passed its check"
        return out

    def _build_grids(self, ff, regions, fitted):
        """Grid basins (:mod:`.cell_grid`): for each blow-up ray fed by a saddle's unstable manifold,
        one into a growth region around it; for each attracting isotropic point, and each blow-up ray that
        no growth region serves, one into its ellipsoid target with its polynomial basin when it has one (the
        grid reaches further towards a separatrix than the polynomial can, and a target whose polynomial basin
        failed — a ray whose Jacobian is a Jordan block gets a thin ellipsoid — still gets a basin)."""
        from ._cell_grid import GridBasins, float_inside, growth_region

        ck = self.checker
        self._grids = GridBasins(ff, ck.field, ck.pairs, ck.T0)
        docs = [dict(region["data"], **({key: fitted[k].data[key] for key in ("L", "level", "eps", "depth")}
                                        if k in fitted else {}))
                for k, region in enumerate(regions)]
        tests = [float_inside(doc) for doc in docs]
        for k, region in enumerate(regions):
            others = tests[:k] + tests[k + 1:]
            if region["data"]["target"] == "cluster":
                self._grids.add(docs[k], tests[k], others)
                continue
            served = False
            for saddle in self._saddles(ff):
                if not self._feeds(ff, saddle, region["p"]):
                    continue
                grown = growth_region(ff, ck.field, ck.pairs, saddle, region["p"])
                if grown is not None:
                    served = self._grids.add(grown[0], float_inside(grown[0]), others)
                    break
            if not served:
                self._grids.add(docs[k], tests[k], others)

    @staticmethod
    def _saddles(ff):
        """The saddles of the float field inside the disk with c > 0 (candidates for growth regions)."""
        out = []
        for p in _equilibria(ff):
            ev = np.linalg.eigvals(ff.jac(p))
            if np.all(np.isreal(ev)) and ev.real.min() < 0 < ev.real.max() and float(ff(p)[1]) > 0:
                out.append(p)
        return out

    @staticmethod
    def _feeds(ff, saddle, ray, t_end=400.0, dt=0.02):
        """Whether the saddle's unstable manifold (the branch towards the ray) ends at the ray (floats)."""
        w, U = np.linalg.eig(ff.jac(saddle))
        eu = U[:, np.argmax(w.real)].real
        eu = eu if eu @ (ray - saddle) > 0 else -eu
        z = saddle + 1e-6 * eu / np.linalg.norm(eu)
        f = lambda X: ff(X)[0]                                       # noqa: E731
        t = 0.0
        while t < t_end:
            z = rk4_step(f, z, dt)
            t += dt
            if np.linalg.norm(z - ray) < 1e-3:
                return True
        return False

    @staticmethod
    def _lp(ff, region, pts, mine, tau, others, t_cap):
        """Coefficients (dyadic) of L of degree :data:`DEGREE` from a linear program on the samples:
        L' ≤ −1 and L ≥ 0 where the sample reaches the target by t_cap (so L is about the time left),
        L ≥ 1.25·t_cap where it does not reach it (there L ends above the level); minimise Σ L over the
        reaching samples."""
        from scipy.optimize import linprog

        z = pts - region["p"]
        energy = np.einsum("ni,ij,nj->n", z, region["W"], z)
        # inside the target L' < 0 is needed only near its boundary (boxes straddle it); at the
        # attractor itself g = 0
        good = mine & (tau <= t_cap) & (energy > 0.25 * region["rho_f"])
        bad = others | (mine & (tau > 1.5 * t_cap))
        mons = [(i, j) for i in range(DEGREE + 1) for j in range(DEGREE + 1 - i)]
        a, b = pts[:, 0], pts[:, 1]
        Vm = np.array([a ** i * b ** j for i, j in mons]).T
        G = ff(pts)[0]
        da = np.array([i * a ** max(i - 1, 0) * b ** j for i, j in mons]).T
        db = np.array([j * a ** i * b ** max(j - 1, 0) for i, j in mons]).T
        dV = da * G[:, [0]] + db * G[:, [1]]
        A_ub = np.vstack([dV[good], -Vm[good], -Vm[bad]])
        b_ub = np.concatenate([-np.ones(good.sum()), np.zeros(good.sum()), -1.25 * t_cap * np.ones(bad.sum())])
        res = linprog(Vm[good].sum(axis=0), A_ub=A_ub, b_ub=b_ub, bounds=[(-1e5, 1e5)] * len(mons), method="highs",
                      options={"time_limit": LP_SECONDS})
        if res.status != 0:
            return None
        return {m: dyadic(float(c), 32) for m, c in zip(mons, res.x) if abs(c) > 1e-12}

    def _target(self, kind, p, J):
        """A contracting ellipsoid around the attractor p, checked by the checker's own procedure."""
        from scipy.linalg import solve_continuous_lyapunov

        from ...spec.errors import CertificationFailed

        try:
            W = solve_continuous_lyapunov(J.T, -np.eye(2))
        except (np.linalg.LinAlgError, ValueError):
            return None
        W = (W + W.T) / 2
        if np.linalg.eigvalsh(W).min() <= 0:
            return None
        W = W / np.linalg.eigvalsh(W).max()
        Wq = [[dyadic(W[0, 0], 30), dyadic(W[0, 1], 30)], [dyadic(W[0, 1], 30), dyadic(W[1, 1], 30)]]
        Wf = np.array([[float(v) for v in r] for r in Wq])
        M = -(J.T @ Wf + Wf @ J)
        Wi = np.linalg.inv(Wf)
        L = np.linalg.cholesky(Wi)
        rate = np.linalg.eigvalsh(L.T @ M @ L).min() / 2
        if not rate > 0:
            return None
        q = p * (1 - 2.0 ** -30) if p @ p > 1 - 1e-12 else p     # strictly inside the disk
        centre = [dyadic(q[0], 44), dyadic(q[1], 44)]
        if centre[0] ** 2 + centre[1] ** 2 > 1:
            return None
        # the largest level rho (then the largest rate mu) that passes: a big target is worth more
        # than a fast one (the decreasing function must reach it from everywhere)
        inner = None
        for k in range(16):
            rho = Fraction(1, 4 ** k)
            R = _box_radii(rho, Wi)
            for mu_frac in (Fraction(1, 2), Fraction(1, 8), Fraction(1, 32)):
                mu = dyadic(rate * float(mu_frac), 20)
                inner = {"target": kind, "centre": [frac_str(v) for v in centre],
                         "W": [[frac_str(v) for v in r] for r in Wq], "rho": frac_str(rho), "mu": frac_str(mu),
                         "R": [frac_str(v) for v in R]}
                try:
                    check_inner(self.checker.field, self.checker.pairs, inner, refuse)
                except CertificationFailed:
                    inner = None
                    continue
                break
            if inner is not None:
                break
        if inner is None:
            return None
        # the outer ellipsoid: the largest rho_out where zᵀWz still decays at a rate kappa
        for j in range(12, -1, -1):
            rho_out = rho * 4 ** j
            for k_frac in (Fraction(1, 2), Fraction(1, 8)):
                data = dict(inner, rho_out=frac_str(rho_out), R_out=[frac_str(v) for v in _box_radii(rho_out, Wi)],
                            kappa=frac_str(dyadic(rate * float(k_frac), 20)))
                try:
                    tg = check_target(self.checker.field, self.checker.pairs, data, refuse)
                except CertificationFailed:
                    continue
                return {"data": data, "target": tg, "W": Wf, "p": np.array([float(v) for v in centre]),
                        "rho_f": float(rho_out), "regime": "CLUSTERING" if kind == "cluster" else "BLOWUP"}
        return None

    @staticmethod
    def _samples():
        """Grid samples of the disk and of its circle."""
        g = np.linspace(-1, 1, _GRID)
        P = np.array([(a, b) for a in g for b in g if a * a + b * b <= 1], dtype=float)
        th = np.linspace(0, 2 * np.pi, 4 * _GRID, endpoint=False)
        return np.vstack([P, np.c_[np.cos(th), np.sin(th)]])

    @staticmethod
    def _reach(ff, regions, pts):
        """The outer target each sample reaches (−1: none by _T_END) and when (RK4, floats)."""
        P = pts.copy()
        hit = np.full(len(P), -1)
        tau = np.full(len(P), np.inf)
        live = np.ones(len(P), bool)
        t = 0.0
        f = lambda Z: ff(Z)[0]                                       # noqa: E731
        with np.errstate(all="ignore"):
            while t < _T_END and live.any():
                for k, r in enumerate(regions):
                    z = P[live] - r["p"]
                    inside = np.einsum("ni,ij,nj->n", z, r["W"], z) < 0.5 * r["rho_f"]
                    idx = np.flatnonzero(live)[inside]
                    hit[idx], tau[idx] = k, t
                    live[idx] = False
                P[live] = rk4_step(f, P[live], _DT)
                t += _DT
        return hit, tau

    def _fit(self, ff, regions, k, pts, hit, tau):
        """L by a linear program on the samples, then ℓ: just below the least lower bound of L over
        the boxes of the quadtree where no basin test holds (the checker's procedure in its search
        mode); the basin is then checked as the checker checks it."""
        from ...spec.errors import CertificationFailed

        region = regions[k]
        mine = hit == k
        if mine.sum() < 10:
            return None
        eps = Fraction(1, 8)
        field = self.checker.field
        tg = region["target"]
        for q in (0.98, 0.95, 0.9):      # the most reach times the polynomial can fit
            t_cap = float(np.quantile(tau[mine], q))
            coeffs = self._lp(ff, region, pts, mine, tau, hit != k, t_cap)
            if coeffs is not None:
                break
        if coeffs is None:
            return None
        L = _mpoly(coeffs)
        misses = []
        try:
            check_basin(field, L, rat(10 ** 9), rat(eps), DEPTH, tg["energy"], tg["rho_out"], refuse, misses)
        except CertificationFailed:      # too many failing boxes: this L is no use
            return None
        level = min((fraction_of(lo) for _b, lo in misses), default=Fraction(10 ** 9))
        level = min(level, Fraction(10 ** 6))
        level = Fraction(int(np.floor(float(level) * 2 ** 20)) - 1, 2 ** 20)
        data = dict(region["data"], L=[[i, j, frac_str(v)] for (i, j), v in sorted(coeffs.items())],
                    level=frac_str(level), eps=frac_str(eps), depth=DEPTH)
        try:
            L_min, c_min, c_max = check_basin(field, L, rat(level), rat(eps), DEPTH, tg["energy"], tg["rho_out"], refuse)
        except CertificationFailed:
            return None
        if region["regime"] == "BLOWUP":
            lo, hi = ray_bracket(self.checker.T0, rat(level), L_min, rat(eps), [(c_min, c_max), tg["c_out"]],
                                 tg["c"], tg["tau_out"])
            T_lo = lower_rational(lo)
            T_hi = upper_rational(hi)
            if T_lo is None or T_hi is None:
                return None
            data.update(T_lo=frac_str(T_lo), T_hi=frac_str(T_hi))
        assert set(data) == set(basin_schema(data["target"]))
        return _Basin(data, L, rat(level), region["regime"])


def _mpoly(coeffs):
    """The exact polynomial Σ coeffs[(i, j)]·aⁱbʲ."""
    import flint

    return flint.fmpq_mpoly_ctx.get(("a", "b"), "lex").from_dict({m: rat(v) for m, v in coeffs.items()})


def _box_radii(rho, Wi):
    """Rational half-widths R_k ≥ √(rho·(W⁻¹)_kk) (with a small margin) of the ellipsoid's bounding box."""
    return [dyadic(float(np.sqrt(float(rho) * Wi[i, i])) * (1 + 2 ** -12), 24) + Fraction(1, 2 ** 40) for i in range(2)]
