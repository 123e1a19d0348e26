"""Exact matrix polynomials in two coordinates (x, y), and their enclosures over boxes.

A matrix polynomial is a dict ``{(i, j): fmpq_mat}`` meaning Σ C_ij xⁱ yʲ (a scalar
polynomial is the same with 1×1 matrices).  Over a box [x₀, x₁] × [y₀, y₁] two rigorous
arguments bound it (both exact, no floating point):

* **vertex** (degree ≤ 1): an affine matrix function takes every value on the box as a convex
  combination of its four corner values, so a convex condition (⪰ 0, ≻ 0, a linear
  inequality) at the corners holds on the whole box;
* **centred form** (any degree): expand exactly about the box centre, P(x_c + s, y_c + t) =
  C + s·L_x + t·L_y + Σ_{i+j≥2} C'_ij sⁱ tʲ with |s| ≤ h_x, |t| ≤ h_y; every entry of the
  higher-order remainder lies in [−e, e] with e = Σ |C'_ij| h_xⁱ h_yʲ, and for a symmetric
  remainder ‖·‖₂ ≤ ρ := max row sum of e (Gershgorin).  Hence P ⪰ (C + s·L_x + t·L_y) − ρI,
  an affine function of (s, t) whose convex conditions are checked at the four corners.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

import flint

from ...exact import definiteness
from ...exact.rational import fmpq_of

__all__ = ["const", "affine", "add", "scale", "mul", "transpose", "degree", "evaluate", "quad",
           "centred", "scalar_bounds", "psd_on_box", "pd_on_open_box", "corners", "q"]


def q(x) -> flint.fmpq:
    """A number as an exact ``flint.fmpq`` (via ``Fraction``: a float is its dyadic value)."""
    if isinstance(x, flint.fmpq):
        return x
    if type(x) is int:
        return flint.fmpq(x)
    if type(x) is not Fraction:
        x = Fraction(x)
    return fmpq_of(x)


def _mat(M) -> flint.fmpq_mat:
    if isinstance(M, flint.fmpq_mat):
        return M
    rows = [list(r) if isinstance(r, (list, tuple)) else [r] for r in M] if isinstance(M, (list, tuple)) else [[M]]
    return flint.fmpq_mat(len(rows), len(rows[0]), [q(e) for r in rows for e in r])


def const(M) -> dict:
    """The constant matrix polynomial M (degree 0)."""
    return {(0, 0): _mat(M)}


def affine(C0, Cx, Cy) -> dict:
    """C0 + x·Cx + y·Cy (zero terms dropped)."""
    out = {(0, 0): _mat(C0)}
    for key, C in (((1, 0), Cx), ((0, 1), Cy)):
        C = _mat(C)
        if not _is_zero(C):
            out[key] = C
    return out


def _is_zero(M) -> bool:
    return not M  # an fmpq_mat is falsy exactly when every entry is 0


def _shape(P):
    M = next(iter(P.values()))
    return M.nrows(), M.ncols()


def _clean(P: dict) -> dict:
    out = {k: v for k, v in P.items() if not _is_zero(v)}
    if not out:
        n, m = _shape(P)
        out = {(0, 0): flint.fmpq_mat(n, m)}
    return out


def add(P: dict, Q: dict) -> dict:
    """The sum P + Q (zero coefficients dropped)."""
    out = dict(P)
    for k, v in Q.items():
        out[k] = out[k] + v if k in out else v
    return _clean(out)


def scale(P: dict, c) -> dict:
    """c·P with c a rational or a scalar polynomial (1×1 matrix polynomial)."""
    if isinstance(c, dict):
        out: dict = {}
        for (i, j), s in c.items():
            sv = s[0, 0]
            for (k, l), M in P.items():
                key = (i + k, j + l)
                out[key] = out[key] + M * sv if key in out else M * sv
        return _clean(out)
    c = q(c)
    return _clean({k: v * c for k, v in P.items()})


def mul(P: dict, Q: dict) -> dict:
    """The matrix product P·Q."""
    out: dict = {}
    for (i, j), A in P.items():
        for (k, l), B in Q.items():
            key = (i + k, j + l)
            out[key] = out[key] + A * B if key in out else A * B
    return _clean(out)


def transpose(P: dict) -> dict:
    """The transpose Pᵀ, coefficient by coefficient."""
    return {k: v.transpose() for k, v in P.items()}


def degree(P: dict) -> int:
    """The total degree max{i + j : C_ij ≠ 0} (0 for the zero polynomial)."""
    return max((i + j for (i, j), M in P.items() if M), default=0)


def evaluate(P: dict, x, y) -> flint.fmpq_mat:
    """P(x, y) = Σ C_ij xⁱ yʲ, exactly."""
    x, y = q(x), q(y)
    out = None
    for (i, j), M in P.items():
        if i or j:
            M = M * (x ** i * y ** j if i and j else x ** i if i else y ** j)
        out = M if out is None else out + M
    return flint.fmpq_mat(out)


def quad(P: dict, z) -> dict:
    """The scalar polynomial zᵀ P z (z an exact vector)."""
    n = _shape(P)[0]
    Z = flint.fmpq_mat(n, 1, [q(e) for e in z])
    Zt = Z.transpose()
    return _clean({k: Zt * M * Z for k, M in P.items()})


def corners(box):
    """The four corners of a box."""
    x0, x1, y0, y1 = box
    return [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]


def centred(P: dict, box):
    """(C, Lx, Ly, E) with P(x_c + s, y_c + t) = C + s·Lx + t·Ly + (terms of degree ≥ 2 in s, t),
    all exact, and E the entrywise bound matrix of those higher terms on the box.
    """
    x0, x1, y0, y1 = (q(v) for v in box)
    xc, yc = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy = (x1 - x0) / 2, (y1 - y0) / 2
    n, m = _shape(P)
    shifted: dict = {}
    for (i, j), M in P.items():  # (xc + s)^i (yc + t)^j = Σ C(i,a) C(j,b) xc^{i−a} yc^{j−b} s^a t^b
        for a in range(i + 1):
            for b in range(j + 1):
                c = comb(i, a) * comb(j, b) * xc ** (i - a) * yc ** (j - b)
                if c != 0:
                    shifted[(a, b)] = shifted[(a, b)] + M * c if (a, b) in shifted else M * c
    zero = flint.fmpq_mat(n, m)
    C = shifted.pop((0, 0), zero)
    Lx = shifted.pop((1, 0), zero)
    Ly = shifted.pop((0, 1), zero)
    E = flint.fmpq_mat(n, m)
    for (a, b), M in shifted.items():
        w = hx ** a * hy ** b
        for r in range(n):
            for s in range(m):
                E[r, s] += abs(M[r, s]) * w
    return C, Lx, Ly, E


def _centred_corners(P: dict, box):
    """The affine part C + s·Lx + t·Ly at the four corners (s, t) = (±h_x, ±h_y), and E."""
    x0, x1, y0, y1 = (q(v) for v in box)
    hx, hy = (x1 - x0) / 2, (y1 - y0) / 2
    C, Lx, Ly, E = centred(P, box)
    return [C + Lx * sx + Ly * sy for sx in (-hx, hx) for sy in (-hy, hy)], E


def scalar_bounds(p: dict, box) -> tuple[flint.fmpq, flint.fmpq, str]:
    """(lo, hi, argument) with lo ≤ p ≤ hi on the box, exact."""
    if degree(p) <= 1:
        # c + a·x + b·y: its extreme corner values are c + (a·x₀ or a·x₁) + (b·y₀ or b·y₁)
        x0, x1, y0, y1 = (q(v) for v in box)
        lo = hi = flint.fmpq(0)
        for (i, j), M in p.items():
            c = M[0, 0]
            if i:
                u, v = c * x0, c * x1
            elif j:
                u, v = c * y0, c * y1
            else:
                u = v = c
            if u <= v:
                lo, hi = lo + u, hi + v
            else:
                lo, hi = lo + v, hi + u
        return lo, hi, "vertex"
    vals, E = _centred_corners(p, box)
    vals = [v[0, 0] for v in vals]
    return min(vals) - E[0, 0], max(vals) + E[0, 0], "centred-form"


def _row_sum_bound(E) -> flint.fmpq:
    return max(sum((E[i, j] for j in range(E.ncols())), flint.fmpq(0)) for i in range(E.nrows()))


def _shift_identity(C, rho):
    n = C.nrows()
    out = flint.fmpq_mat(C)
    for i in range(n):
        out[i, i] -= rho
    return out


def _affine_corner_values(P: dict, box):
    """P at the four corners, in :func:`corners` order, for P of degree ≤ 1 (the terms of degree
    ≥ 2 are zero): P(x₀, y₀) = C + x₀Cx + y₀Cy, the others by adding (x₁ − x₀)Cx and (y₁ − y₀)Cy
    — exactly :func:`evaluate`'s values.  A generator: a caller stopping at the first failing
    corner skips the rest."""
    x0, x1, y0, y1 = (q(v) for v in box)
    C, Cx, Cy = P.get((0, 0)), P.get((1, 0)), P.get((0, 1))
    V = flint.fmpq_mat(C) if C is not None else flint.fmpq_mat(*_shape(P))
    if Cx is not None:
        V += Cx * x0
    if Cy is not None:
        V += Cy * y0
    yield V
    W = V + Cx * (x1 - x0) if Cx is not None else V
    yield W
    dy = Cy * (y1 - y0) if Cy is not None else None
    yield V + dy if dy is not None else V
    yield W + dy if dy is not None else W


def psd_on_box(P: dict, box) -> tuple[bool, str]:
    """Is the symmetric matrix polynomial P ⪰ 0 on the closed box?  (True only if proved.)"""
    if degree(P) <= 1:
        return all(definiteness.is_psd(V) for V in _affine_corner_values(P, box)), "vertex"
    vals, E = _centred_corners(P, box)
    rho = _row_sum_bound(E)
    return all(definiteness.is_psd(_shift_identity(V, rho)) for V in vals), "centred-form"


def pd_on_open_box(P: dict, box) -> tuple[bool, str]:
    """Is P ≻ 0 at every interior point of the box (the point itself for a degenerate box)?

    Affine P: ⪰ 0 at the corners and ≻ 0 at the centre (then P(p) = (1−s)P(c) + sP(r) ≻ 0 for
    every interior p, with r on the boundary and s < 1).  Otherwise the centred form gives
    P ≻ 0 on the closed box.
    """
    x0, x1, y0, y1 = box
    if degree(P) <= 1:
        centre = evaluate(P, (q(x0) + q(x1)) / 2, (q(y0) + q(y1)) / 2)
        if not definiteness.is_pd(centre):
            return False, "vertex"
        return all(definiteness.is_psd(V) for V in _affine_corner_values(P, box)), "vertex"
    vals, E = _centred_corners(P, box)
    rho = _row_sum_bound(E)
    return all(definiteness.is_pd(_shift_identity(V, rho)) for V in vals), "centred-form"
