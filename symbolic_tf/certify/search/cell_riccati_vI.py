"""Whole-cell certificates for regime maps: softmax with V = vI and feed-forward F = f·I.

For such a slice the coordinates (x, y) enter affinely A, f and Σ₀ (:mod:`symbolic_tf.spec.mapspec`).
With R = v·scale·(A + Aᵀ), g(f, t) = ∫₀ᵗ e^{2fs} ds = (e^{2ft} − 1)/(2f) (g = t for f = 0),
the covariance ODE Σ̇ = fΣ + Σf + ΣRΣ has P = Σ⁻¹ with P(t) = e^{−2ft}(Σ₀⁻¹ − g(f, t)R)
(docs/mathematics.md §6), so, congruence by Σ₀ ≻ 0,

    Σ(t) exists  ⟺  K(g(f, t)) ≻ 0,   K(γ) := S − γ·SRS,   S := Σ₀,

and K is affine in γ with K(0) = S ≻ 0.  Writing Q := SRS and M := −2f·S − Q, every regime is
a convex condition on matrix polynomials in (x, y), decided on a whole cell by
:mod:`symbolic_tf.certify.search._polymat` (vertex argument when affine, centred form otherwise):

* **BLOWUP** — a rational z with zᵀQz > 0 and zᵀMz < 0 on the cell (for f ≥ 0 the second
  follows from the first; for f < 0 it says γ_z = zᵀSz/zᵀQz < sup_t g = 1/(2|f|)).  Bracket:
  T* ≤ t_hi if g(f_lo, t_hi)·min zᵀQz ≥ max zᵀSz (g increases in f and t); T* ≥ t_lo if
  g(f_hi, t_lo) ≤ Γ and K(Γ) ⪰ 0 on the cell (then K(γ) ≻ 0 for γ < Γ).
* **CLUSTERING** (rank 0, Σ → 0) — f ≡ 0 and Q ≺ 0, or f < 0 and M ≻ 0 on the open cell
  (then K(γ) = (1 − 2|f|γ)S + γM ≻ 0 for γ < 1/(2|f|) and P(t) → ∞).
* **EQUILIBRIUM** — f > 0 and Q ≺ 0 on the open cell: Σ(t) → Σ* = −2f·R⁻¹, a stable
  equilibrium (R ≺ 0, F anti-Hurwitz; docs/mathematics.md §6).
* **BOUNDED** — f ≡ 0 and Q ⪯ 0: global, Σ(t) = (Σ₀⁻¹ − tR)⁻¹ converges (docs/mathematics.md §4).
* **GLOBAL_EXISTENCE** — Q ⪯ 0: K(γ) ≻ 0 for every γ ≥ 0, global with ‖Σ(t)‖ ≤ C e^{2 f_hi t}.

The verdicts are claimed on the *open* cell (its interior); edges are measure zero and belong to
the neighbours too.  Floats only guess z, Γ and the times; :mod:`symbolic_tf.certify.check.kinds.cell_riccati_vI`
re-decides everything exactly (and with arb balls for g).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ...exact.precision import working_precision
from ...exact.rational import float_of, frac_str, qmat_to_float, significant_fraction
from . import _polymat as pm
from ...variants import single_quadratic_factor
from ..check.claims import Claim, Quantifier
from ..check.cells import OUTSIDE_TEXT
from .cell_searches import cell_search

__all__ = ["KIND", "Pencil", "pencil_for", "certify_cell", "certify_cells", "g_ball", "no_route_reason"]

KIND = "cell-riccati-vI"


@dataclass
class Pencil:
    """The matrix polynomials of the slice: S = Σ₀, R, f and the derived Q = SRS, M = −2fS − Q."""

    S: dict
    R: dict
    f: dict
    Q: dict
    M: dict
    v: Fraction

    def floats_at(self, x, y):
        """(Σ₀, R, f) in floating point at (x, y) — for guessing only.

        Parameters
        ----------
        x, y : number
            The point of the slice.

        Returns
        -------
        (ndarray, ndarray, float)
            Σ₀(x, y), R(x, y) and f(x, y).
        """
        if not hasattr(self, "_float_polys"):
            self._float_polys = tuple({k: qmat_to_float(M) for k, M in P.items()} for P in (self.S, self.R, self.f))
        x, y = float(x), float(y)
        S, R, f = (sum(C * (x ** i * y ** j) for (i, j), C in P.items()) for P in self._float_polys)
        return S, R, float(f[0, 0])


_ZERO = flint.fmpq(0)




def _is_multiple_of_identity(M) -> Fraction | None:
    from .riccati import scalar_of_identity

    return scalar_of_identity(M)


def no_route_reason(spec) -> str | None:
    """None if :func:`pencil_for` applies to the spec, else why not (one line).

    Parameters
    ----------
    spec : MapSpec
        The map spec.

    Returns
    -------
    str or None
        None, or the one-line reason.
    """
    doc = spec.problem_doc
    if "phase" in doc or "relu" in doc:  # the pencil is the autonomous Gaussian flow of depth 0
        return "whole-cell certificates need constant parameters and no ReLU term (point verdicts only)"
    if "heads" in doc or single_quadratic_factor(doc.get("variant")) is None:
        return "whole-cell certificates need one quadratic (softmax-type) attention head"
    if "A" not in doc:
        return "whole-cell certificates need the attention matrix A (give A rather than Q, K)"
    if "V" not in doc or spec.depends_on_coordinates("V"):
        return "whole-cell certificates need a fixed value matrix V = vI"
    if spec.depends_on_coordinates("scale"):
        return "whole-cell certificates need a fixed temperature"
    c = spec.field_affine("V")
    if _is_multiple_of_identity(c[0]) is None:
        return "whole-cell certificates need V = vI (general V: point verdicts only)"
    if "F" in doc:
        for C in spec.field_affine("F"):
            if _is_multiple_of_identity(C) is None:
                return "whole-cell certificates need a scalar feed-forward F = f·I"
    return None


@cell_search(KIND, order=0, reason=no_route_reason)
def pencil_for(spec) -> Pencil | None:
    """The pencil of a map spec, or None when the slice is not of the V = vI, F = fI kind.

    Parameters
    ----------
    spec : MapSpec
        The map spec.

    Returns
    -------
    Pencil or None
        The matrix polynomials S = Σ₀, R, f, Q = SRS, M = −2f·S − Q in (x, y) and v; None when
        :func:`no_route_reason` gives a reason.
    """
    if no_route_reason(spec) is not None:
        return None
    from ...spec.rational import to_fraction

    d = spec.problem_doc["d"]
    v = _is_multiple_of_identity(spec.field_affine("V")[0])
    sc = to_fraction(spec.problem_doc.get("scale", 1), "scale") * single_quadratic_factor(spec.problem_doc.get("variant"))
    A = pm.affine(*spec.field_affine("A"))
    R = pm.scale(pm.add(A, pm.transpose(A)), v * sc)
    if "F" in spec.problem_doc:
        f = pm.affine(*(_is_multiple_of_identity(C) for C in spec.field_affine("F")))
    else:
        f = pm.const([[0]])
    S = pm.affine(*spec.cov_affine())
    Q = pm.mul(pm.mul(S, R), S)
    M = pm.add(pm.scale(pm.scale(S, f), -2), pm.scale(Q, -1))
    assert all(Mi.nrows() == d for Mi in S.values())
    return Pencil(S, R, f, Q, M, v)


# ---------------------------------------------------------------------------------------
# g(f, t) = ∫₀ᵗ e^{2fs} ds in arb
# ---------------------------------------------------------------------------------------
def g_ball(f, t, prec: int = 128) -> flint.arb:
    """An arb ball containing g(f, t) = (e^{2ft} − 1)/(2f) (t when f = 0), f and t rational.

    Parameters
    ----------
    f : number
        The rational f.
    t : number
        The rational time t.
    prec : int
        arb precision in bits.

    Returns
    -------
    flint.arb
        The enclosure.
    """
    f, t = pm.q(f), pm.q(t)
    with working_precision(prec):
        if f == 0:
            return flint.arb(t)
        return (flint.arb(2 * f * t)).expm1() / flint.arb(2 * f)


def _g_float(f: float, t: float) -> float:
    return t if f == 0 else math.expm1(2 * f * t) / (2 * f)


def _g_inv(f: float, gamma: float) -> float:
    """t with g(f, t) = γ; inf if g never reaches γ."""
    if f == 0:
        return gamma
    u = 2 * f * gamma
    if u <= -1:
        return math.inf
    return math.log1p(u) / (2 * f)


def _box_q(box):
    return tuple(pm.q(v) for v in box)


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def _rational_vector(u, bits: int) -> tuple:
    u = [float(e) for e in u]
    m = max(abs(e) for e in u)
    return tuple(_limit_denominator(e / m, 2 ** bits) for e in u)


def _limit_denominator(x: float, max_den: int) -> Fraction:
    """``Fraction(x).limit_denominator(max_den)`` in integers: the closest rational to the float x
    with denominator ≤ max_den (ties: the smaller denominator), via convergents and
    semiconvergents of x's continued fraction."""
    n0, d0 = x.as_integer_ratio()
    if d0 <= max_den:
        return Fraction(n0, d0)
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = n0, d0
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > max_den:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (max_den - q0) // q1
    pk, qk = p0 + k * p1, q0 + k * q1
    # |p1/q1 − x| ≤ |pk/qk − x|  ⟺  |p1·d0 − n0·q1|·qk ≤ |pk·d0 − n0·qk|·q1
    if abs(p1 * d0 - n0 * q1) * qk <= abs(pk * d0 - n0 * qk) * q1:
        return Fraction(p1, q1)
    return Fraction(pk, qk)


def _top_direction(S, R, direction: bool = True):
    """λ_max(S^{1/2} R S^{1/2}) and z = S^{-1/2}u (u its eigenvector): the direction of R
    relative to Σ₀⁻¹ that loses definiteness first — for stacks S, R of shape (..., d, d),
    one LAPACK call per matrix, the same arithmetic as for a single pair (z is None when
    ``direction`` is false)."""
    w, U = np.linalg.eigh(S)
    w = np.maximum(w, 1e-300)
    Ut = np.swapaxes(U, -1, -2)
    sw = np.sqrt(w)[..., None, :]
    Sh = (U * sw) @ Ut
    lam, E = np.linalg.eigh(Sh @ R @ Sh)
    z = ((U / sw) @ Ut @ E[..., :, -1:])[..., 0] if direction else None
    return lam[..., -1], z


def _floats_stacked(pen: Pencil, xs, ys):
    """(Σ₀, R, f) in floating point at the points (xs[k], ys[k]), stacked — the same sums, in the
    same order, as :meth:`Pencil.floats_at` (for guessing only)."""
    if not hasattr(pen, "_float_polys"):
        pen.floats_at(0, 0)  # builds the float coefficients
    X, Y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    mono: dict = {}
    out = []
    for P in pen._float_polys:
        acc = 0
        for (i, j), C in P.items():
            m = mono.get((i, j))
            if m is None:
                m = mono[i, j] = (X ** i * Y ** j)[:, None, None]
            acc = acc + C[None, :, :] * m
        out.append(acc)
    S, R, f = out
    return S, R, f[:, 0, 0]


def _float_guesses(pen: Pencil, boxes) -> list:
    """Per box (exact (x₀, x₁, y₀, y₁)): (λ, z) of :func:`_top_direction` at the centre, f there, and
    Γ* = min over the corners of 1/λ_max(S^{1/2}RS^{1/2}) (the largest γ with K(γ) ⪰ 0 there;
    inf if λ_max ≤ 0 at every corner) — all cells of a chunk in one stacked computation."""
    if not boxes:
        return []
    # the centres and corners, each distinct point once (neighbouring cells share corners; a
    # degenerate box is one point), in one stacked computation
    index: dict = {}
    centre = [index.setdefault((float((b[0] + b[1]) / 2), float((b[2] + b[3]) / 2)), len(index)) for b in boxes]
    where = [index.setdefault((float(x), float(y)), len(index)) for b in boxes for x, y in pm.corners(b)]
    S, R, f = _floats_stacked(pen, [p[0] for p in index], [p[1] for p in index])
    lam, z = _top_direction(S, R)
    lc = lam[np.array(where)].reshape(len(boxes), 4)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(lc > 0, 1.0 / np.where(lc > 0, lc, 1.0), math.inf)
    gs = inv.min(axis=1).tolist()
    lam, f = lam.tolist(), f.tolist()
    return [(lam[c], z[c], f[c], gs[k]) for k, c in enumerate(centre)]


def _blowup(pen: Pencil, box, z_float, gs: float):
    f_zero = _derived(pen)["f_zero"]
    for bits in (8, 20, 40):
        z = _rational_vector(z_float, bits)
        zq = [pm.q(e) for e in z]
        n_lo, _n_hi, arg_n = pm.scalar_bounds(pm.quad(pen.Q, zq), box)
        if n_lo <= 0:
            continue
        # f ≡ 0: M = −Q exactly, so max zᵀMz = −min zᵀQz (the same bound, vertex or centred form)
        m_hi = -n_lo if f_zero else pm.scalar_bounds(pm.quad(pen.M, zq), box)[1]
        if m_hi >= 0:
            continue
        break
    else:
        return None
    _q_lo, q_hi, _ = pm.scalar_bounds(pm.quad(pen.S, zq), box)
    f_lo, f_hi, _ = pm.scalar_bounds(pen.f, box) if not f_zero else (_ZERO, _ZERO, None)
    data = {"z": [frac_str(e) for e in z]}
    # upper end: g(f_lo, t_hi)·n_lo ≥ q_hi
    t = _g_inv(float_of(f_lo), float_of(q_hi) / float_of(n_lo))
    t_hi = None
    if math.isfinite(t):
        for bump in (1e-12, 1e-9, 1e-6):
            cand = significant_fraction(t * (1 + bump) + 1e-300)
            if cand > 0 and (g_ball(f_lo, cand) * flint.arb(n_lo)).lower() >= flint.arb(q_hi):
                t_hi = cand
                break
    # lower end: K(Γ) ⪰ 0 on the cell and g(f_hi, t_lo) ≤ Γ
    t_lo, Gamma = Fraction(0), None
    if math.isfinite(gs):
        for shrink in (1e-9, 1e-6, 1e-3, 2e-2, 1e-1):
            G = significant_fraction(gs * (1 - shrink), 10)
            if G <= 0:
                break
            K = pm.add(pen.S, pm.scale(pen.Q, -pm.q(G)))
            if pm.psd_on_box(K, box)[0]:
                Gamma = G
                break
    if Gamma is not None:
        t = _g_inv(float_of(f_hi), float(Gamma))
        if math.isfinite(t):
            for shrink in (1e-12, 1e-9, 1e-6):
                cand = significant_fraction(t * (1 - shrink))
                if cand > 0 and g_ball(f_hi, cand).upper() <= flint.arb(pm.q(Gamma)):
                    t_lo = cand
                    break
    if t_lo == 0:
        Gamma = None
    s_lo = frac_str(t_lo)
    s_hi = frac_str(t_hi) if t_hi is not None else None
    data.update({"t_lo": s_lo, "Gamma": frac_str(Gamma) if Gamma is not None else None, "t_hi": s_hi})
    arg = "vertex" if _derived(pen)["deg_QMS"] <= 1 else "centred-form"
    claim = "Σ(t) blows up in finite time for every point of the cell"
    if t_hi is not None:
        claim += f", T* ∈ [{s_lo}, {s_hi}]"
    else:
        claim += f", T* ≥ {s_lo}"
    return {"regime": "BLOWUP", "T_lo": s_lo, "T_hi": s_hi, "claim": claim, "argument": arg, "data": data}


def _derived(pen: Pencil) -> dict:
    """Box-independent data of the pencil, computed once: −Q, −f, whether f ≡ 0, deg S,
    max(deg Q, deg M, deg S), and for a constant R whether R ⪯ 0 (exact inertia)."""
    d = pen.__dict__.get("_derived")
    if d is None:
        const_R_nsd = None
        if pm.degree(pen.R) == 0:
            from ...exact.definiteness import inertia

            const_R_nsd = inertia(pen.R[(0, 0)])[0] == 0
        d = pen.__dict__["_derived"] = {
            "negQ": pm.scale(pen.Q, -1), "negf": pm.scale(pen.f, -1),
            "f_zero": pm.degree(pen.f) == 0 and pen.f[(0, 0)][0, 0] == 0, "deg_S": pm.degree(pen.S),
            "deg_QMS": max(pm.degree(pen.Q), pm.degree(pen.M), pm.degree(pen.S)), "const_R_nsd": const_R_nsd}
    return d


def _global(pen: Pencil, box):
    der = _derived(pen)
    f_zero, negQ, negf = der["f_zero"], der["negQ"], der["negf"]
    nsd, argq = _nsd_Q(pen, box)
    if nsd:
        if f_zero:
            strict, _ = pm.pd_on_open_box(negQ, box)
            if strict:
                return _res("CLUSTERING", "Σ(t) = (Σ₀⁻¹ − tR)⁻¹ → 0 (R ≺ 0, no drift): collapse to a point",
                            argq, {"via": "no-drift-contracting"}, rank=0)
            return _res("BOUNDED", "global, Σ(t) = (Σ₀⁻¹ − tR)⁻¹ converges (R ⪯ 0, no drift)", argq,
                        {"via": "no-drift-nsd"})
        fpos, _ = pm.pd_on_open_box(pen.f, box)
        if fpos and pm.pd_on_open_box(negQ, box)[0]:
            return _res("EQUILIBRIUM", "Σ(t) → Σ* = −2f·R⁻¹, a stable equilibrium (R ≺ 0, f > 0)", argq,
                        {"via": "drift-equilibrium"})
        fneg, _ = pm.pd_on_open_box(negf, box)
        if fneg:
            return _res("CLUSTERING", "Σ(t) → 0 (R ⪯ 0, f < 0): collapse to a point", argq,
                        {"via": "drift-contracting"}, rank=0)
        return _res("GLOBAL_EXISTENCE", "global, at most exponential growth (R ⪯ 0)", argq, {"via": "nsd"})
    fneg, _ = pm.pd_on_open_box(negf, box)
    if fneg:
        ok, argm = pm.pd_on_open_box(pen.M, box)
        if ok:
            return _res("CLUSTERING", "Σ(t) → 0: below the blow-up threshold (−2fΣ₀ − Σ₀RΣ₀ ≻ 0, f < 0)",
                        argm, {"via": "below-threshold"}, rank=0)
    return None


def _nsd_Q(pen: Pencil, box):
    """Q = SRS ⪯ 0 on the box: when R is constant, R ⪯ 0 (exact, S ≻ 0); else by polymat."""
    der = _derived(pen)
    if der["const_R_nsd"] is not None:
        return der["const_R_nsd"], "exact"
    return pm.psd_on_box(der["negQ"], box)


def _res(regime, claim, arg, data, rank=None):
    out = {"regime": regime, "claim": claim, "argument": arg, "data": data}
    if rank is not None:
        out["rank"] = rank
    return out


def certify_cell(pen: Pencil, box) -> dict:
    """A whole-cell verdict for the open box (x₀, x₁) × (y₀, y₁) (a point if degenerate).

    Returns a dict with ``status`` PROVED (``regime``, ``claim``, ``argument``, ``data``,
    and T_lo/T_hi for blow-up), OUTSIDE (Σ₀ is not positive definite anywhere on the cell:
    a rational z with zᵀΣ₀z ≤ 0 on the whole cell), or UNDECIDED with ``reason``.
    The same as ``certify_cells(pen, [box])[0]``.

    Parameters
    ----------
    pen : Pencil
        From :func:`pencil_for`.
    box : tuple
        (x₀, x₁, y₀, y₁), read exactly.

    Returns
    -------
    dict
        The verdict described above.
    """
    return certify_cells(pen, [box])[0]


def certify_cells(pen: Pencil, boxes) -> list[dict]:
    """Whole-cell verdicts for many open boxes: the float guesses (z, Γ) of all cells in one
    stacked computation, then the exact checks cell by cell.

    Each verdict is the one :func:`certify_cell` describes: PROVED (``regime``, ``claim``,
    ``argument``, ``data``, T_lo/T_hi for blow-up), OUTSIDE (a rational z with zᵀΣ₀z ≤ 0 on the
    whole cell) or UNDECIDED with ``reason``.  Floats only choose the candidates; every
    accepted verdict rests on the exact checks of :mod:`symbolic_tf.certify.search._polymat`.

    Parameters
    ----------
    pen : Pencil
        From :func:`pencil_for`.
    boxes : sequence of tuple
        Boxes (x₀, x₁, y₀, y₁), read exactly (a degenerate box is a point).

    Returns
    -------
    list of dict
        One verdict per box, in order.
    """
    boxes = [_box_q(b) for b in boxes]
    out: list = [None] * len(boxes)
    todo = []
    if _derived(pen)["deg_S"] > 0:
        for k, box in enumerate(boxes):
            if not pm.pd_on_open_box(pen.S, box)[0]:
                r = _outside(pen, box)
                out[k] = r if r is not None else {
                    "status": "UNDECIDED", "reason": "Σ₀ is not positive definite on the whole cell"}
            else:
                todo.append(k)
    else:
        todo = list(range(len(boxes)))
    for k, (lam, z, f, gs) in zip(todo, _float_guesses(pen, [boxes[k] for k in todo])):
        out[k] = _certify_one(pen, boxes[k], lam, z, f, gs)
    return out


def _certify_one(pen: Pencil, box, lam: float, z: np.ndarray, f: float, gs: float) -> dict:
    """The exact side for one cell, given the float guesses at its centre (λ, z, f) and Γ*."""
    phi = lam + 2 * min(f, 0.0)
    attempts = (_try_blowup, _global) if phi > 0 else (_global, _try_blowup)
    for attempt in attempts:
        r = attempt(pen, box) if attempt is _global else attempt(pen, box, z, gs)
        if r is not None:
            r["status"] = "PROVED"
            # the stored words are the claim the checker derives (it compares them exactly)
            params = {k: r[k] for k in ("rank", "T_lo", "T_hi") if r.get(k) is not None}
            r["claim"] = Claim(r["regime"], Quantifier.EVERY_IN_CELL, params).text()
            return r
    return {"status": "UNDECIDED", "reason": "no whole-cell certificate: the cell straddles a regime boundary "
            f"(at its centre λ_max(Σ₀^½RΣ₀^½) + 2·min(f, 0) = {phi:.3g})"}


def _try_blowup(pen, box, z, gs):
    z = [float(e) for e in z]
    if not all(math.isfinite(e) for e in z) or max(abs(e) for e in z) == 0:
        return None
    return _blowup(pen, box, z, gs)


def _outside(pen: Pencil, box):
    """Σ₀ not PD anywhere in the cell: a rational z with zᵀΣ₀z ≤ 0 on the whole cell."""
    x0, x1, y0, y1 = box
    S = qmat_to_float(pm.evaluate(pen.S, (x0 + x1) / 2, (y0 + y1) / 2))
    w, U = np.linalg.eigh(S)
    if w[0] > 0:
        return None
    for bits in (8, 20):
        z = _rational_vector(U[:, 0], bits)
        _lo, hi, arg = pm.scalar_bounds(pm.quad(pen.S, z), box)
        if hi <= 0:
            return {"status": "OUTSIDE", "regime": "OUTSIDE", "argument": arg,
                    "claim": OUTSIDE_TEXT,
                    "data": {"z": [frac_str(e) for e in z]}}
    return None
