"""The cell checker's own exact matrix polynomials in (x, y) and their enclosures over boxes.

This module belongs to the *checker* (:mod:`symbolic_tf.certify.check.kinds.cell_riccati_vI`).  It shares no
code with the search side's polynomial arithmetic; it rests only on python-flint's exact
rationals (``fmpq``, ``fmpq_mat``) and on :func:`symbolic_tf.exact.definiteness.is_psd` (exact
inertia of a rational symmetric matrix by Descartes' rule on the characteristic polynomial).

Objects
-------
A :class:`MatPoly` is an n×m matrix polynomial P(x, y) = Σ_{(i, j)} C_ij xⁱ yʲ, stored as a dict
from the exponent pair (i, j) to the exact coefficient matrix C_ij (zero coefficients are never
stored; the zero polynomial has no terms).  A scalar polynomial is a 1×1 MatPoly.  A box is
B = [x₀, x₁] × [y₀, y₁] with exact rational ends, x₀ ≤ x₁, y₀ ≤ y₁ (a side may be degenerate).

One enclosure: the centred form with a diagonal remainder bound
----------------------------------------------------------------
Let (x_c, y_c) be the centre of B and h_x = (x₁ − x₀)/2, h_y = (y₁ − y₀)/2 its half-widths.
Substituting x = x_c + s, y = y_c + t (|s| ≤ h_x, |t| ≤ h_y) and expanding every monomial
exactly with Pascal's rule, (x_c + s)ⁱ = Σ_a binom(i, a) x_cⁱ⁻ᵃ sᵃ, gives

    P(x_c + s, y_c + t) = A(s, t) + E(s, t),   A(s, t) = C + s·L_x + t·L_y   (affine part),
                                                E(s, t) = Σ_{a+b ≥ 2} D_ab sᵃ tᵇ   (remainder).

Each entry of the remainder is bounded on the box by the triangle inequality,

    |E(s, t)_rc| ≤ e_rc := Σ_{a+b ≥ 2} |(D_ab)_rc| · h_xᵃ h_yᵇ,

and e = 0 when P has degree ≤ 1 (then the enclosure is exact).

* **Scalar range.**  For a scalar p the affine part ranges exactly over c ± (|l_x| h_x + |l_y| h_y)
  on the box (an affine function attains its extremes at corners), so
  c − |l_x|h_x − |l_y|h_y − e ≤ p ≤ c + |l_x|h_x + |l_y|h_y + e on B.
* **PSD on the closed box.**  Let Δ = diag(δ_r) with the row sums δ_r = Σ_c e_rc.  For a
  symmetric P the remainder E(s, t) is symmetric, and Δ + E(s, t) has diagonal
  δ_r + E_rr ≥ δ_r − e_rr = Σ_{c≠r} e_rc ≥ Σ_{c≠r} |E_rc|: it is diagonally dominant with a
  non-negative diagonal, hence ⪰ 0 (Gershgorin).  Therefore P ⪰ A − Δ on B.  The matrix
  A(s, t) − Δ is affine in (s, t), so each of its values on B is a convex combination of its
  values at the four corners (s, t) = (±h_x, ±h_y); the PSD cone is convex, so A − Δ ⪰ 0 at
  the four corners implies A − Δ ⪰ 0, hence P ⪰ 0, on all of B.
* **PD on the open box.**  If moreover A(0, 0) − Δ = C − Δ ≻ 0 (the value at the centre),
  then every point p of the relative interior of B is p = (1 − λ)·centre + λ·r with r ∈ B and
  0 ≤ λ < 1, so (A − Δ)(p) = (1 − λ)(C − Δ) + λ(A − Δ)(r) ≻ 0 and P(p) ⪰ (A − Δ)(p) ≻ 0.
  (For a degenerate box the "interior" is its relative interior; for a point it is the point,
  where Δ = 0 and C = P(point).)

The diagonal Δ is never larger than the scalar shift ρI with ρ = max_r δ_r, and C − Δ is the
mean of the four corner values of A − Δ, so these tests accept everything that the plain
"corners of A − ρI are ⪰ 0 / ≻ 0" centred form accepts.  Non-symmetric input is never declared
PSD or PD.  Everything is exact rational arithmetic; no floating point is used.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ...exact.definiteness import is_pd, is_psd
from ...exact.rational import fmpq_of

__all__ = ["rat", "rat_box", "MatPoly", "Enclosure", "scalar_range", "psd_on_box", "pd_on_open_box"]


def rat(v) -> flint.fmpq:
    """An exact flint rational from an int, Fraction, decimal/“p/q” string or fmpq.

    Parameters
    ----------
    v : int, fractions.Fraction, str or flint.fmpq
        An exact number (a decimal or "p/q" string is read exactly); bool and float are refused.

    Returns
    -------
    flint.fmpq
        The same number.

    Raises
    ------
    TypeError
        When ``v`` is not an exact rational.
    """
    # the gateway's fmpq_of, narrowed: a bool or a SymPy number is not a certificate's number
    if isinstance(v, bool) or not isinstance(v, (int, str, Fraction, flint.fmpq)):
        raise TypeError(f"not an exact rational: {v!r}")
    return fmpq_of(v)


def rat_box(box) -> tuple:
    """(x₀, x₁, y₀, y₁) as exact rationals; ValueError unless x₀ ≤ x₁ and y₀ ≤ y₁.

    Parameters
    ----------
    box : sequence of 4 exact numbers
        The box ends (x₀, x₁, y₀, y₁), each accepted by :func:`rat`.

    Returns
    -------
    tuple of 4 flint.fmpq
        (x₀, x₁, y₀, y₁).
    """
    x0, x1, y0, y1 = (rat(v) for v in box)
    if not (x0 <= x1 and y0 <= y1):
        raise ValueError("malformed box")
    return x0, x1, y0, y1


def _as_matrix(M) -> flint.fmpq_mat:
    """An fmpq_mat from an fmpq_mat, a scalar, or nested sequences (rows) of exact rationals."""
    if isinstance(M, flint.fmpq_mat):
        return M
    if not isinstance(M, (list, tuple)):
        return flint.fmpq_mat(1, 1, [rat(M)])
    rows = [tuple(r) if isinstance(r, (list, tuple)) else (r,) for r in M]
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("ragged or empty matrix")
    return flint.fmpq_mat(len(rows), len(rows[0]), [rat(e) for r in rows for e in r])


def _nonzero(M: flint.fmpq_mat) -> bool:
    return any(e != 0 for e in M.entries())


class MatPoly:
    """An exact n×m matrix polynomial Σ C_ij xⁱ yʲ (only non-zero coefficients are stored)."""

    __slots__ = ("nrows", "ncols", "terms")

    def __init__(self, nrows: int, ncols: int, terms: dict | None = None):
        self.nrows, self.ncols = nrows, ncols
        self.terms: dict = {}
        for mono, C in (terms or {}).items():
            self._accumulate(mono, C)

    def _accumulate(self, mono, C: flint.fmpq_mat) -> None:
        if (C.nrows(), C.ncols()) != (self.nrows, self.ncols):
            raise ValueError("matrix polynomial terms of different shapes")
        total = self.terms[mono] + C if mono in self.terms else C
        if _nonzero(total):
            self.terms[mono] = total
        else:
            self.terms.pop(mono, None)

    # --- construction ------------------------------------------------------------------
    @classmethod
    def constant(cls, M) -> "MatPoly":
        """The constant polynomial P(x, y) = M.

        Parameters
        ----------
        M : flint.fmpq_mat or list of list
            The exact coefficient matrix.

        Returns
        -------
        MatPoly
            P with the single term (0, 0) ↦ M (no term when M = 0).
        """
        M = _as_matrix(M)
        return cls(M.nrows(), M.ncols(), {(0, 0): M})

    @classmethod
    def affine(cls, C0, Cx, Cy) -> "MatPoly":
        """C0 + x·Cx + y·Cy.

        Parameters
        ----------
        C0, Cx, Cy : flint.fmpq_mat or list of list
            The exact coefficient matrices of 1, x and y (one shape).

        Returns
        -------
        MatPoly
            The affine polynomial.
        """
        C0, Cx, Cy = _as_matrix(C0), _as_matrix(Cx), _as_matrix(Cy)
        return cls(C0.nrows(), C0.ncols(), {(0, 0): C0, (1, 0): Cx, (0, 1): Cy})

    # --- arithmetic ---------------------------------------------------------------------
    def __add__(self, other: "MatPoly") -> "MatPoly":
        out = MatPoly(self.nrows, self.ncols, self.terms)
        for mono, C in other.terms.items():
            out._accumulate(mono, C)
        return out

    def __neg__(self) -> "MatPoly":
        return self.times(-1)

    def __sub__(self, other: "MatPoly") -> "MatPoly":
        return self + (-other)

    def times(self, c) -> "MatPoly":
        """c·P for an exact rational c, or for a scalar (1×1) MatPoly c.

        Parameters
        ----------
        c : exact rational or MatPoly
            A rational (accepted by :func:`rat`) or a scalar (1×1) polynomial.

        Returns
        -------
        MatPoly
            The product c·P.

        Raises
        ------
        ValueError
            When ``c`` is a polynomial that is not 1×1.
        """
        if isinstance(c, MatPoly):
            if (c.nrows, c.ncols) != (1, 1):
                raise ValueError("only a scalar polynomial scales a matrix polynomial")
            out = MatPoly(self.nrows, self.ncols)
            for (a, b), s in c.terms.items():
                for (i, j), C in self.terms.items():
                    out._accumulate((a + i, b + j), C * s[0, 0])
            return out
        c = rat(c)
        return MatPoly(self.nrows, self.ncols, {mono: C * c for mono, C in self.terms.items()})

    def __matmul__(self, other: "MatPoly") -> "MatPoly":
        """The matrix product P·Q (monomial exponents add)."""
        if self.ncols != other.nrows:
            raise ValueError("matrix polynomial shapes do not match")
        out = MatPoly(self.nrows, other.ncols)
        for (i, j), A in self.terms.items():
            for (k, l), B in other.terms.items():
                out._accumulate((i + k, j + l), A * B)
        return out

    def quad(self, z) -> "MatPoly":
        """The scalar polynomial zᵀ P z for an exact vector z.

        Parameters
        ----------
        z : sequence of exact rationals
            A vector of length n (P must be n×n).

        Returns
        -------
        MatPoly
            The 1×1 polynomial zᵀP(x, y)z.

        Raises
        ------
        ValueError
            When P is not square or z has the wrong length.
        """
        zc = flint.fmpq_mat(self.nrows, 1, [rat(v) for v in z]) if len(z) == self.nrows else None
        if zc is None or self.nrows != self.ncols:
            raise ValueError("quad needs a square polynomial and a vector of its size")
        zr = zc.transpose()
        return MatPoly(1, 1, {mono: zr * C * zc for mono, C in self.terms.items()})

    # --- inspection ---------------------------------------------------------------------
    @property
    def degree(self) -> int:
        """Total degree (0 for the zero polynomial)."""
        return max((i + j for i, j in self.terms), default=0)

    def constant_term(self) -> flint.fmpq_mat:
        """The coefficient C_00 = P(0, 0).

        Returns
        -------
        flint.fmpq_mat
            C_00 (the zero matrix when there is no constant term).
        """
        return self.terms.get((0, 0), flint.fmpq_mat(self.nrows, self.ncols))

    def is_symmetric(self) -> bool:
        """Whether P(x, y) is symmetric for all (x, y): P square and every C_ij = C_ijᵀ.

        Returns
        -------
        bool
            True when every coefficient matrix is symmetric.
        """
        return self.nrows == self.ncols and all(C == C.transpose() for C in self.terms.values())

    def at(self, x, y) -> flint.fmpq_mat:
        """P(x, y), exactly.

        Parameters
        ----------
        x, y : exact rationals
            The point (accepted by :func:`rat`).

        Returns
        -------
        flint.fmpq_mat
            Σ C_ij xⁱ yʲ.
        """
        x, y = rat(x), rat(y)
        out = flint.fmpq_mat(self.nrows, self.ncols)
        for (i, j), C in self.terms.items():
            out += C * (x ** i * y ** j)
        return out

    def enclosure(self, box) -> "Enclosure":
        """The centred-form enclosure of P on a box (see the module docstring).

        Parameters
        ----------
        box : sequence of 4 exact rationals
            (x₀, x₁, y₀, y₁) with x₀ ≤ x₁, y₀ ≤ y₁ (sides may be degenerate).

        Returns
        -------
        Enclosure
            P = A(s, t) + E(s, t) on the box with the entrywise remainder bound e.
        """
        return Enclosure(self, box)


def _binomial_rows(c: flint.fmpq, top: int) -> list:
    """rows[i][a] = coefficient of sᵃ in (c + s)ⁱ, for i ≤ top (Pascal's rule)."""
    rows = [[flint.fmpq(1)]]
    for _ in range(top):
        prev = rows[-1]
        nxt = [c * prev[0]]
        for a in range(1, len(prev)):
            nxt.append(c * prev[a] + prev[a - 1])
        nxt.append(prev[-1])
        rows.append(nxt)
    return rows


class Enclosure:
    """The centred form of a MatPoly on a box: P = A(s, t) + E(s, t) with A = C + s·L_x + t·L_y
    and the entrywise remainder bound e (see the module docstring)."""

    def __init__(self, P: MatPoly, box):
        x0, x1, y0, y1 = rat_box(box)
        xc, yc = (x0 + x1) / 2, (y0 + y1) / 2
        self.hx, self.hy = (x1 - x0) / 2, (y1 - y0) / 2
        self.nrows, self.ncols = P.nrows, P.ncols
        self.symmetric = P.is_symmetric()
        top_x = max((i for i, _ in P.terms), default=0)
        top_y = max((j for _, j in P.terms), default=0)
        bx, by = _binomial_rows(xc, top_x), _binomial_rows(yc, top_y)
        shifted = MatPoly(P.nrows, P.ncols)  # the same polynomial in the centred (s, t)
        for (i, j), Cij in P.terms.items():
            for a, ca in enumerate(bx[i]):
                if ca == 0:
                    continue
                for b, cb in enumerate(by[j]):
                    if cb != 0:
                        shifted._accumulate((a, b), Cij * (ca * cb))
        zero = flint.fmpq_mat(P.nrows, P.ncols)
        self.C = shifted.terms.get((0, 0), zero)
        self.Lx = shifted.terms.get((1, 0), zero)
        self.Ly = shifted.terms.get((0, 1), zero)
        e = [[flint.fmpq(0)] * P.ncols for _ in range(P.nrows)]
        for (a, b), D in shifted.terms.items():
            if a + b < 2:
                continue
            w = self.hx ** a * self.hy ** b
            for r in range(P.nrows):
                for c in range(P.ncols):
                    if D[r, c] != 0:
                        e[r][c] += abs(D[r, c]) * w
        self.e = e

    def corners_of_affine_part(self) -> list:
        """A(s, t) at the four corners (±h_x, ±h_y).

        Returns
        -------
        list of flint.fmpq_mat
            The four values C ± h_x·L_x ± h_y·L_y.
        """
        return [self.C + self.Lx * s + self.Ly * t for s in (-self.hx, self.hx) for t in (-self.hy, self.hy)]

    def minus_row_sums(self, M: flint.fmpq_mat) -> flint.fmpq_mat:
        """M − Δ, Δ = diag(Σ_c e_rc).

        Parameters
        ----------
        M : flint.fmpq_mat
            An n×n matrix (a value of the affine part).

        Returns
        -------
        flint.fmpq_mat
            M − Δ with Δ = diag(δ_r), δ_r = Σ_c e_rc the remainder's row sums.
        """
        out = flint.fmpq_mat(M)
        for r in range(self.nrows):
            out[r, r] -= sum(self.e[r], flint.fmpq(0))
        return out


def scalar_range(p: MatPoly, box) -> tuple:
    """(lo, hi), exact rationals with lo ≤ p(x, y) ≤ hi on the closed box (p scalar).

    Parameters
    ----------
    p : MatPoly
        A scalar (1×1) polynomial.
    box : sequence of 4 exact rationals
        (x₀, x₁, y₀, y₁) with x₀ ≤ x₁, y₀ ≤ y₁ (sides may be degenerate).

    Returns
    -------
    tuple of (flint.fmpq, flint.fmpq)
        (c − |l_x|h_x − |l_y|h_y − e, c + |l_x|h_x + |l_y|h_y + e).

    Raises
    ------
    ValueError
        When p is not 1×1.
    """
    if (p.nrows, p.ncols) != (1, 1):
        raise ValueError("scalar_range needs a scalar polynomial")
    enc = Enclosure(p, box)
    spread = abs(enc.Lx[0, 0]) * enc.hx + abs(enc.Ly[0, 0]) * enc.hy + enc.e[0][0]
    return enc.C[0, 0] - spread, enc.C[0, 0] + spread


def psd_on_box(P: MatPoly, box) -> bool:
    """True only if the symmetric P is ⪰ 0 at every point of the closed box (proved).

    Parameters
    ----------
    P : MatPoly
        A square matrix polynomial (non-symmetric input gives False).
    box : sequence of 4 exact rationals
        (x₀, x₁, y₀, y₁) with x₀ ≤ x₁, y₀ ≤ y₁ (sides may be degenerate).

    Returns
    -------
    bool
        True when A − Δ ⪰ 0 (exact inertia) at the four corners, hence P ⪰ 0 on the closed box;
        False means "not proved".
    """
    enc = Enclosure(P, box)
    if not enc.symmetric:
        return False
    return all(is_psd(enc.minus_row_sums(V)) for V in enc.corners_of_affine_part())


def pd_on_open_box(P: MatPoly, box) -> bool:
    """True only if the symmetric P is ≻ 0 at every point of the (relative) interior of the box.

    Parameters
    ----------
    P : MatPoly
        A square matrix polynomial (non-symmetric input gives False).
    box : sequence of 4 exact rationals
        (x₀, x₁, y₀, y₁) with x₀ ≤ x₁, y₀ ≤ y₁ (sides may be degenerate).

    Returns
    -------
    bool
        True when C − Δ ≻ 0 and A − Δ ⪰ 0 at the four corners, hence P ≻ 0 on the relative interior;
        False means "not proved".
    """
    enc = Enclosure(P, box)
    if not enc.symmetric:
        return False
    if not is_pd(enc.minus_row_sums(enc.C)):
        return False
    return all(is_psd(enc.minus_row_sums(V)) for V in enc.corners_of_affine_part())
