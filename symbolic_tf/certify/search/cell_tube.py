"""Whole-cell certificates for Σ₀ slices of general-V softmax flows with a drift (kind ``cell-tube``).

A map cell of a slice that varies only Σ₀ (families ``cov`` and ``cov-disk``) is certified for every
Σ₀ of the cell at once: a validated tube is integrated from the cell's *set* of initial covariances —
an exact parallelepiped in svec coordinates
(:func:`symbolic_tf.certify.check.kinds.cell_tube.cell_parallelepiped`), carried by Lohner's method — until
its end box lies in a certified *target*: the collapse set of a Hurwitz drift, the contraction ellipsoid
of a rank-(d − 1) equilibrium, or the basin of an attracting blow-up ray.  The targets are properties of
the flow, not of Σ₀: they are found by the point searches of :mod:`symbolic_tf.certify.search.validated` at a
cell's centre and reused for the later cells of the map.  docs/mathematics.md §8 "Whole cells".

Why only with a drift: without one the flow is homogeneous, Σ₀ ↦ λΣ₀ maps solutions to solutions, and a
clustering solution converges to a point of a *line* of equilibria c·X*; which point depends on Σ₀.  A
cell's set of solutions therefore spreads along that neutral line, and the enclosure's width grows with it
until the tube stops, before the set reaches a target (measured on map (c) of ``reproduce regimes``:
boxes of side 2⁻¹¹ still fail).  Blow-up cells have no such line, but their tube in Σ's coordinates
widens as the cell's solutions approach blow-up at different times, before the end box fits the ray's
basin (measured on a d = 3 slice with a general V: cells of side 1/64 of Σ₀ ≈ I still stop at relative
width 0.25 just before T*; a projective tube from the cell's set would be needed).  Such slices keep
point verdicts; in d = 2 the homogeneity kinds (``cell-scaled``, ``cell-basin``) certify them whole.

Search side: floats only guess; every cell result is built from the checker's own end conditions and
is re-verified by :class:`symbolic_tf.certify.check.kinds.cell_tube.TubeCellChecker` (the map's ``check_map``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...exact.rational import frac_str
from ..check.cell_enclosures import MatPoly, pd_on_open_box, rat, scalar_range
from ..check.kinds.cell_tube import END_KINDS, KIND, cell_parallelepiped, route_reason, sigma0_enclosure
from ..check.cells import OUTSIDE_TEXT, cell_claim
from .cell_searches import cell_search
from .validated.tube_end import refuse

__all__ = ["KIND", "TubeCells", "off_domain", "outside_cell", "search_reason"]

_TUBE_KEYS = ("steps", "order", "tube_prec", "method", "T_lo", "T_hi")
ORDER, PREC = 20, 128
_MAX_TARGETS = 8


def search_reason(spec) -> str | None:
    """None when :class:`TubeCells` should be tried on a map spec, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        :func:`symbolic_tf.certify.check.kinds.cell_tube.route_reason`, or the reason a slice without drift
        is not tried (its cells spread along a neutral line of equilibria).
    """
    why = route_reason(spec)
    if why is not None:
        return why
    F = spec.problem_doc.get("F")
    if F is None or all(Fraction(e) == 0 for row in F for e in row):
        return ("whole-cell tubes need a drift F: without one a clustering cell's solutions spread along a neutral "
                "line of equilibria and a blow-up cell's tube widens before the ray's basin (point verdicts only)")
    return None


class _Target:
    """A certified target region: the end kind and its data (no tube fields)."""

    def __init__(self, end, region):
        self.end, self.region = end, region
        self._collapse = None

    def test(self, pairs, F, S, t, d):
        """The end condition on the box S at time t: (regime, params) — for BLOWUP the arb bounds
        (lo, hi) of T* — or None when it does not hold."""
        from ...spec.errors import CertificationFailed

        try:
            if self.end == "tube-collapse":   # its bounds do not depend on the end box: check them once
                from ..check.kinds.tube_collapse import check_collapse_bounds, end_inside

                if self._collapse is None:
                    self._collapse = check_collapse_bounds(pairs, F, self.region, d, refuse)
                P, level = self._collapse
                return ("CLUSTERING", {"rank": 0}) if end_inside(P, level, S, PREC) else None
            return END_KINDS[self.end](pairs, F, S, t, self.region, d)
        except CertificationFailed:
            return None


@cell_search(KIND, order=1, reason=search_reason)
class TubeCells:
    """The cell search of one map spec (targets are shared across its cells).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        A Σ₀ slice with a drift (:func:`search_reason` is None).
    seconds : float
        The wall-clock budget of one cell's tube (and of each point search for a new target).
    """

    def __init__(self, spec, seconds: float = 3.0):
        from ..check.tube_replay import flow_pairs

        self.spec = spec
        cx = (spec.x_range[0] + spec.x_range[1]) / 2
        cy = (spec.y_range[0] + spec.y_range[1]) / 2
        self.pairs, self.F = flow_pairs(spec.problem_at(cx, cy), refuse)
        self.d = spec.problem_doc["d"]
        self.cov = spec.cov_affine()
        self.S = MatPoly.affine(*self.cov)
        self.targets: list[_Target] = []
        self.seconds = seconds

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
            ``T_lo``/``T_hi``), OUTSIDE (a rational z with zᵀΣ₀z ≤ 0 on the cell) or UNDECIDED with
            ``reason``.
        """
        box = tuple(Fraction(b) for b in box)
        off = off_domain(self.S, self.cov, box, KIND)
        if off is not None:
            return off
        start = (sigma0_enclosure(self.cov, box), cell_parallelepiped(self.cov, box))
        stop = "no target yet"
        if self.targets:
            got, stop = self._tube(start, self.targets)
            if got is not None:
                return got
        target = self._new_target(box)
        if target is None:
            return {"status": "UNDECIDED", "reason": f"no certified target found from the cell's centre ({stop})"}
        got, stop = self._tube(start, [target])
        if got is not None:
            return got
        return {"status": "UNDECIDED", "reason": f"the validated tube from the cell did not enter a certified target: {stop}"}

    def _tube(self, start, targets):
        """A tube from the cell's set until its end box lies in a target: (cell result, stop) or (None, stop)."""
        from .validated.lyapunov import stored_bracket, tube_fields
        from .validated.tube import integrate_tube

        d = self.d
        found = {}
        seen = {"k": 0, "tr": 0.0}

        def until(state, t):
            # the end tests are costly: test when the trace has doubled or halved, and every 8 steps
            seen["k"] += 1
            tr = float(sum(state.S[i, i].mid() for i in range(d)))
            if not (tr >= 2 * seen["tr"] or tr <= seen["tr"] / 2 or seen["k"] % 8 == 0):
                return False
            seen["tr"] = tr
            for tg in targets:
                r = tg.test(self.pairs, self.F, state.S, t, d)
                if r is not None:
                    found.update(target=tg, result=r, t=t)
                    return True
            return False

        S0, par = start
        tube = integrate_tube(self.pairs, self.F, S0, None, order=ORDER, prec=PREC, method="qr", max_steps=20000,
                              rel_tol=0.25, seconds=self.seconds, until=until, start=par)
        if not found:
            return None, tube.stop
        tg = found["target"]
        regime, params = found["result"]
        extra = {}
        if regime == "BLOWUP":
            T_lo, T_hi, _w = stored_bracket(*params)
            params = extra = {"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)}
        if tg in self.targets:
            self.targets.remove(tg)
        self.targets.insert(0, tg)         # most recently useful first
        del self.targets[_MAX_TARGETS:]
        times, tube_data = tube_fields(tube, found["t"], ORDER, PREC)
        out = {"status": "PROVED", "kind": KIND, "regime": regime, "claim": cell_claim(regime, params).text(),
               "argument": f"validated tube from the cell's Σ₀ set ({len(times) - 1} steps) into a {tg.end} target",
               "data": {"end": tg.end, **tg.region, **extra, **tube_data}}
        out.update(params)
        return out, tube.stop

    def _new_target(self, box):
        """Run the point searches at the cell's centre; keep the certified region their tube ends in."""
        from .validated.tube_collapse import find_collapse
        from .validated.lyapunov import caller_rechecks
        from .validated.tube_ray import find_ray_blowup
        from .validated.tube_singular_equilibrium import find_singular_equilibrium

        problem = self.spec.problem_at((box[0] + box[1]) / 2, (box[2] + box[3]) / 2)
        searches = (("tube-collapse", find_collapse), ("tube-singular-equilibrium", find_singular_equilibrium),
                    ("tube-ray", find_ray_blowup))
        with caller_rechecks():   # the certificate is not used: only its region, re-checked on every cell
            for end, fn in searches:
                v = fn(problem, seconds=self.seconds)
                cert = (v.evidence or {}).get("certificate")
                if v.status != "PROVED" or cert is None or cert.get("kind") != end:
                    continue
                target = _Target(end, {k: val for k, val in cert["data"].items() if k not in _TUBE_KEYS})
                self.targets.insert(0, target)
                del self.targets[_MAX_TARGETS:]
                return target
        return None


def off_domain(S, cov, box, kind: str) -> dict | None:
    """None when Σ₀ ≻ 0 on the whole open cell; else the cell's record: OUTSIDE (:func:`outside_cell`)
    or UNDECIDED.

    Parameters
    ----------
    S : symbolic_tf.certify.check.cell_enclosures.MatPoly
        Σ₀(x, y), affine.
    cov : tuple of (list, list, list)
        (C₀, C_x, C_y), exact.
    box : tuple of 4 fractions.Fraction
        The cell.
    kind : str
        The certificate kind of an OUTSIDE record.

    Returns
    -------
    dict or None
        The record of a cell where Σ₀ is not positive definite throughout, or None.
    """
    rbox = tuple(rat(b) for b in box)
    if pd_on_open_box(S, rbox):
        return None
    out = outside_cell(S, cov, box, rbox, kind)
    return out or {"status": "UNDECIDED", "reason": "Σ₀ is not positive definite on the whole cell"}


def outside_cell(S, cov, box, rbox, kind: str) -> dict | None:
    """An OUTSIDE record when Σ₀ is not positive semidefinite anywhere on the cell: a rational z with
    zᵀΣ₀z ≤ 0 on the whole closed cell (checked exactly), else None.

    Parameters
    ----------
    S : symbolic_tf.certify.check.cell_enclosures.MatPoly
        Σ₀(x, y), affine.
    cov : tuple of (list, list, list)
        (C₀, C_x, C_y), exact.
    box : tuple of 4 fractions.Fraction
        The cell.
    rbox : tuple of 4 flint.fmpq
        The same box.
    kind : str
        The certificate kind of the record.

    Returns
    -------
    dict or None
        ``{"status": "OUTSIDE", …, "data": {"z": […]}}`` or None.
    """
    C0, Cx, Cy = cov
    d = len(C0)
    xc, yc = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
    M = np.array([[float(Fraction(C0[i][j]) + Fraction(Cx[i][j]) * xc + Fraction(Cy[i][j]) * yc)
                   for j in range(d)] for i in range(d)])
    w, U = np.linalg.eigh(M)
    if w[0] > 0:
        return None
    u = U[:, 0] / np.max(np.abs(U[:, 0]))
    for bits in (8, 20):
        z = [Fraction(float(e)).limit_denominator(2 ** bits) for e in u]
        _lo, hi = scalar_range(S.quad(z), rbox)
        if hi <= 0:
            return {"status": "OUTSIDE", "regime": "OUTSIDE", "kind": kind, "argument": "vertex",
                    "claim": OUTSIDE_TEXT,
                    "data": {"z": [frac_str(e) for e in z]}}
    return None
