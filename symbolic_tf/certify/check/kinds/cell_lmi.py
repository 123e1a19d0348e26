"""Independent checker of whole-cell trace-functional LMI certificates (kind ``cell-lmi``) of regime maps
over a *parameter* slice of a (multi-head) softmax flow with a general value matrix, with or without a
drift F (docs/certification.md, "Whole parameter cells: trace functionals").

The flow Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) is of congruence form, so Σ(t) ⪰ 0 while it exists.
For a symmetric P ≻ 0 let y = tr(PΣ) = pᵀs (plain svec coordinates s, s_k = Σ_ij, k = (i, j), i ≤ j) and
q_P(Σ) = sᵀQ_P s = 2 Σ_h tr(P C_hΣÃ_hΣ) (:func:`~symbolic_tf.certify.check.lmi.trace_qform`); then
ẏ = tr((PF + FᵀP)Σ) + q_P(Σ).  D_ij is the form of the principal minor Σ_iiΣ_jj − Σ_ij² (≥ 0 on the cone).

**The parameters as polynomials.**  The map's leaves are affine in (x, y); the checker's own map from the
parameters to the heads (:func:`~symbolic_tf.certify.check.flows.quadratic_heads`: C_h = V_h or W_hV_h,
Ã_h = c·scale·A_h with A_h = A or KᵀQ) multiplies at most three leaves, so every entry of C_h, Ã_h and F is a
polynomial of degree ≤ 3 in each coordinate.  The checker evaluates that map exactly at the 5 × 5 nodes
x₀ + k(x₁ − x₀)/4, y₀ + l(y₁ − y₀)/4 of the map's box and interpolates (Lagrange over ℚ, degree ≤ 4 per
coordinate: exact).  Q_P(x, y) is bilinear in (C_h, Ã_h), hence a matrix polynomial as well.

**Matrix inequalities over a cell: Bernstein coefficients.**  On a box B = [x₀, x₁] × [y₀, y₁] a matrix
polynomial of degree (n, m) in (x, y) is M = Σ_{k ≤ n, l ≤ m} b_kl·B^n_k(s)·B^m_l(t), s = (x − x₀)/(x₁ − x₀),
t = (y − y₀)/(y₁ − y₀), with the Bernstein polynomials B^n_k(s) = C(n, k)sᵏ(1 − s)ⁿ⁻ᵏ ≥ 0, Σ_k B^n_k = 1 on
[0, 1].  So every value of M on B is a convex combination of the coefficient matrices b_kl, and because the
cones {M ⪯ 0} and {M ⪰ 0} are convex, b_kl ⪯ 0 for all (k, l) proves M ⪯ 0 on the whole closed cell.  When
M is affine in each coordinate separately (degree ≤ 1 in x and ≤ 1 in y: a V depending on x against an A
depending on y gives such an xy term) the coefficients are the values at the four corners: the vertex
argument.  ``split`` = k checks the 2ᵏ × 2ᵏ sub-boxes of the cell instead (the coefficients of a sub-box
converge to the values, so a strict inequality passes after enough splits).  All exact rationals.

**Data and claims** (``direction`` "upper"): P = Pᵀ ≻ 0, λ_ij ≥ 0, c ≥ 0, κ, with, on the cell,
Q_P + Σλ_ij·D_ij + c·ppᵀ ⪯ 0 and PF + FᵀP − κP ⪯ 0.  On the cone q_P(Σ) ≤ −c·y², so ẏ ≤ κy − c·y²: y, hence
Σ (‖Σ‖ ≤ tr Σ ≤ y/λ_min(P)), stays finite, for every Σ₀ ⪰ 0.  Regime: CLUSTERING of rank 0 (Σ → 0) when
κ < 0, or κ = 0 and c > 0; BOUNDED when κ = c = 0, or κ > 0 and c > 0 (y ≤ max(y₀, κ/c)); GLOBAL_EXISTENCE
(y ≤ e^{κt}y₀) when κ > 0, c = 0.  Needs Σ₀ ⪰ 0 on the cell.
(``direction`` "lower"): P ≻ 0, λ_ij ≥ 0, c > 0, κ ≥ 0 with Q_P − Σλ_ij·D_ij − c·ppᵀ ⪰ 0 and
PF + FᵀP − κP ⪰ 0 on the cell: ẏ ≥ κy + c·y² ≥ c·y² on the cone, so every Σ₀ ⪰ 0, Σ₀ ≠ 0 blows up, before
1/(c·y₀).  BLOWUP with T_hi ≥ 1/(c·min y₀) (y₀ = tr(PΣ₀) > 0 on the cell, so Σ₀ ≠ 0 there) and
T_lo ≤ 1/(u_Σ·Σ_h 2u_C,h·u_A,h + 2u_F), where the u's bound ‖C_h‖_F, ‖Ã_h‖_F, ‖Σ₀‖_F, ‖F‖_F on the cell
(‖Σ̇‖_F ≤ 2‖F‖_F‖Σ‖_F + K‖Σ‖_F² is finite before ln(1 + a/(Kx₀))/a ≥ 1/(Kx₀ + a)); or, sharper, from a growth
bound of the same y: a > 0, λ^a_ij ≥ 0, κ_a with Q_P + Σλ^a_ij·D_ij − a·ppᵀ ⪯ 0 and PF + FᵀP − κ_a·P ⪯ 0 on the cell,
so ẏ ≤ κ⁺y + a·y² (κ⁺ = max(κ_a, 0)) and y is finite before (1/κ⁺)·ln(1 + κ⁺/(a·y₀)) ≥ 1/(a·y₀ + κ⁺):
T_lo ≤ 1/(a·max y₀ + κ⁺).

Both claims hold for every Σ₀ ⪰ 0 (resp. ⪰ 0 and ≠ 0), so they cover the map's Σ₀ at every point of the
cell where it is positive semidefinite: the checker proves that on the closed cell.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

import flint

from ....exact.definiteness import is_pd, is_psd
from ....exact.rational import fmpq_of
from ....spec.errors import InvalidParameters
from .. import Hypothesis, refusal
from ..cell_enclosures import MatPoly, rat
from ..cells import CellChecker, bind_cell_claim, cell_hypotheses, flow_reason, standalone_cell_kind
from ..flows import quadratic_heads
from ..lmi import svec_weights, trace_qform
from ..schema import parse_rat, validate
from .trace_growth_lmi import minor_forms

KIND = "cell-lmi"
MAX_D = 4
MAX_SPLIT = 4
NODES = 5            # interpolation nodes per coordinate (degree ≤ 4; the heads have degree ≤ 3)

__all__ = ["KIND", "HYPOTHESES", "LmiCellChecker", "route_reason", "parameters_problem", "bernstein_coefficients",
           "sign_on_box", "interpolate"]

_fail = refusal(KIND)

SCHEMA = {"direction": ("enum", "upper", "lower"), "P": "rat[][]", "lam": "rat[]", "c": "rat", "kappa": "rat",
          "split": "int", "T_lo?": "rat", "T_hi?": "rat", "u_C?": "rat[]", "u_A?": "rat[]", "u_Sigma?": "rat",
          "u_F?": "rat", "a?": "rat", "lam_a?": "rat[]", "kappa_a?": "rat"}


def parameters_problem(spec, x, y):
    """The slice's problem at (x, y) with Σ₀ replaced by I: its flow parameters only (a Σ₀ that is not a
    covariance at a node of the interpolation does not matter to the heads).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.
    x, y : fractions.Fraction
        The point.

    Returns
    -------
    symbolic_tf.spec.problem.Problem
        The problem with every affine leaf evaluated at (x, y) and ``initial.cov`` = I.
    """
    import copy

    from ....spec.problem import parse_problem

    doc = copy.deepcopy(spec.problem_doc_at(x, y))
    d = int(doc.get("d", 1))
    doc.setdefault("initial", {})["cov"] = [[int(i == j) for j in range(d)] for i in range(d)]
    return parse_problem(doc)


def route_reason(spec) -> str | None:
    """None when a map spec has the shape this kind covers, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        None, or the reason: a slice of Σ₀ only, no Σ₀, d > 4, a schedule or ReLU term, or a flow that is
        not (multi-head) softmax-type.
    """
    if all(p.startswith("initial") for p in spec.leaves):
        return "cell LMIs need a parameter slice (a coordinate outside the initial Gaussian)"
    if spec.cov_affine() is None:
        return "cell LMIs need the initial covariance"
    if spec.problem_doc.get("d", 0) > MAX_D:
        return f"cell LMIs cover d ≤ {MAX_D}"
    xc, yc = (spec.x_range[0] + spec.x_range[1]) / 2, (spec.y_range[0] + spec.y_range[1]) / 2
    centre = parameters_problem(spec, xc, yc)
    why = flow_reason(centre, "cell LMIs")
    if why is not None:
        return why
    try:
        quadratic_heads(centre)
    except InvalidParameters as exc:
        return f"cell LMIs need quadratic (softmax-type) heads: {exc.reason}"
    return None


def _lagrange(nodes) -> list:
    """Coefficient lists (ascending powers) of the Lagrange basis polynomials of the nodes."""
    out = []
    for j, xj in enumerate(nodes):
        basis = flint.fmpq_poly(1)
        for m, xm in enumerate(nodes):
            if m != j:
                basis = basis * flint.fmpq_poly([-xm, 1]) / (xj - xm)
        out.append([basis[a] for a in range(basis.degree() + 1)])
    return out


def interpolate(values, xs, ys) -> MatPoly:
    """The matrix polynomial of degree < len(xs) in x and < len(ys) in y through values[k][l] at (xs[k], ys[l]).

    Parameters
    ----------
    values : list of list of flint.fmpq_mat
        The exact values at the grid nodes (one shape).
    xs, ys : list of flint.fmpq
        Distinct nodes.

    Returns
    -------
    MatPoly
        Σ_{k,l} values[k][l]·L_k(x)·L_l(y) (Lagrange basis), exact.
    """
    Lx, Ly = _lagrange(xs), _lagrange(ys)
    V0 = values[0][0]
    out = MatPoly(V0.nrows(), V0.ncols())
    for k, row in enumerate(values):
        for l, V in enumerate(row):
            if all(e == 0 for e in V.entries()):
                continue
            for a, ca in enumerate(Lx[k]):
                if ca == 0:
                    continue
                for b, cb in enumerate(Ly[l]):
                    if cb != 0:
                        out._accumulate((a, b), V * (ca * cb))
    return out


def _degrees(M: MatPoly) -> tuple:
    return max((i for i, _ in M.terms), default=0), max((j for _, j in M.terms), default=0)


def bernstein_coefficients(M: MatPoly, box) -> list:
    """The Bernstein coefficient matrices b_kl of M on the closed box (module docstring): every value of M
    on the box is a convex combination of them.

    Parameters
    ----------
    M : MatPoly
        A matrix polynomial in (x, y).
    box : sequence of 4 flint.fmpq
        (x₀, x₁, y₀, y₁), x₀ ≤ x₁, y₀ ≤ y₁.

    Returns
    -------
    list of flint.fmpq_mat
        The (n + 1)(m + 1) coefficients, (n, m) the degrees of M in x and y (a degenerate side gives degree 0).
    """
    x0, x1, y0, y1 = (rat(v) for v in box)
    w, h = x1 - x0, y1 - y0
    n, m = _degrees(M)
    n, m = (n if w != 0 else 0), (m if h != 0 else 0)
    zero = flint.fmpq_mat(M.nrows, M.ncols)
    # a_ab: the coefficients of M(x₀ + w·s, y₀ + h·t) in sᵃtᵇ (binomial expansion)
    a = [[zero] * (m + 1) for _ in range(n + 1)]
    for (i, j), C in M.terms.items():
        for p in range(i + 1):
            cx = comb(i, p) * x0 ** (i - p) * w ** p
            if cx == 0 or p > n:
                continue
            for q in range(j + 1):
                cy = comb(j, q) * y0 ** (j - q) * h ** q
                if cy == 0 or q > m:
                    continue
                a[p][q] = a[p][q] + C * (cx * cy)
    out = []
    for k in range(n + 1):
        for l in range(m + 1):
            acc = zero
            for p in range(k + 1):
                wp = flint.fmpq(comb(k, p), comb(n, p))
                for q in range(l + 1):
                    if any(e != 0 for e in a[p][q].entries()):
                        acc = acc + a[p][q] * (wp * flint.fmpq(comb(l, q), comb(m, q)))
            out.append(acc)
    return out


def _sub_boxes(box, split: int) -> list:
    x0, x1, y0, y1 = (rat(v) for v in box)
    k = 2 ** split
    return [(x0 + (x1 - x0) * i / k, x0 + (x1 - x0) * (i + 1) / k, y0 + (y1 - y0) * j / k, y0 + (y1 - y0) * (j + 1) / k)
            for i in range(k) for j in range(k)]


def sign_on_box(M: MatPoly, box, sign: int, split: int = 0) -> bool:
    """Whether sign·M(x, y) ⪰ 0 on the whole closed box, proved by the Bernstein coefficients of M on each of
    the 2^split × 2^split sub-boxes (all ⪰ 0 after the sign; exact inertia).

    Parameters
    ----------
    M : MatPoly
        A symmetric matrix polynomial.
    box : sequence of 4 exact rationals
        The box.
    sign : int
        +1 (M ⪰ 0) or −1 (M ⪯ 0).
    split : int
        The subdivision depth.

    Returns
    -------
    bool
        True only when proved.
    """
    if not M.terms:
        return True
    if not M.is_symmetric():
        return False
    for sub in _sub_boxes(box, split):
        for b in bernstein_coefficients(M, sub):
            if not is_psd(b * sign):
                return False
    return True


def _scalar_bounds(p: MatPoly, box) -> tuple:
    """(lo, hi) of a scalar polynomial on the closed box: the least and largest Bernstein coefficient."""
    if not p.terms:
        return flint.fmpq(0), flint.fmpq(0)
    bs = [b[0, 0] for b in bernstein_coefficients(p, box)]
    return min(bs), max(bs)


def _entry(M: MatPoly, r: int, c: int) -> MatPoly:
    return MatPoly(1, 1, {mono: flint.fmpq_mat(1, 1, [C[r, c]]) for mono, C in M.terms.items()})


def _frobenius_sq(M: MatPoly) -> MatPoly:
    out = MatPoly(1, 1)
    for r in range(M.nrows):
        for c in range(M.ncols):
            e = _entry(M, r, c)
            out = out + e @ e
    return out


def _constant(M) -> MatPoly:
    return MatPoly.constant(M) if any(e != 0 for e in M.entries()) else MatPoly(M.nrows(), M.ncols())


class LmiCellChecker(CellChecker):
    """Checks the ``cell-lmi`` cells of one map spec (the heads and drift as polynomials are built once).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec (a parameter slice: :func:`route_reason` is None).
    """

    kind_name = KIND
    fail = staticmethod(_fail)

    def __init__(self, spec):
        reason = route_reason(spec)
        if reason is not None:
            _fail(reason)
        self.cov = spec.cov_affine()
        self.S = MatPoly.affine(*self.cov)
        self.d = d = int(spec.problem_doc["d"])
        X0, X1 = (fmpq_of(v) for v in spec.x_range)
        Y0, Y1 = (fmpq_of(v) for v in spec.y_range)
        xs = [X0 + (X1 - X0) * k / (NODES - 1) for k in range(NODES)]
        ys = [Y0 + (Y1 - Y0) * k / (NODES - 1) for k in range(NODES)]
        if X0 == X1 or Y0 == Y1:
            _fail("the map's box is degenerate")
        grid = []
        for x in xs:
            row = []
            for y in ys:
                p = parameters_problem(spec, Fraction(str(x)), Fraction(str(y)))
                F = p.exact.F if p.F is not None else flint.fmpq_mat(d, d)
                row.append((quadratic_heads(p), F))
            grid.append(row)
        n_heads = len(grid[0][0][0])
        if any(len(g[0]) != n_heads for row in grid for g in row):
            _fail("the number of heads changes over the slice")
        self.heads = [tuple(interpolate([[g[0][h][w] for g in row] for row in grid], xs, ys) for w in (0, 1))
                      for h in range(n_heads)]
        self.F = interpolate([[g[1] for g in row] for row in grid], xs, ys)
        self.minors = minor_forms(d)
        # a guard beside the degree bound: the interpolants agree with the heads at a point off the grid
        xo, yo = X0 + (X1 - X0) / 3, Y0 + (Y1 - Y0) / 7
        p = parameters_problem(spec, Fraction(str(xo)), Fraction(str(yo)))
        F = p.exact.F if p.F is not None else flint.fmpq_mat(d, d)
        if (any(Cp.at(xo, yo) != C or Ap.at(xo, yo) != A for (Cp, Ap), (C, A) in zip(self.heads, quadratic_heads(p)))
                or self.F.at(xo, yo) != F):
            _fail("the heads are not polynomials of degree ≤ 4 in the coordinates")

    # --- the polynomials of one certificate ----------------------------------------------
    def q_form(self, P) -> MatPoly:
        """Q_P(x, y): the form of q_P(Σ) = 2 Σ_h tr(P C_hΣÃ_hΣ) on plain svec coordinates, exactly.

        Parameters
        ----------
        P : flint.fmpq_mat
            The weight.

        Returns
        -------
        MatPoly
            The m×m symmetric polynomial (bilinear in the heads' polynomials, term by term).
        """
        m = self.d * (self.d + 1) // 2
        out = MatPoly(m, m)
        for Cp, Ap in self.heads:
            for (i, j), C in Cp.terms.items():
                for (k, l), A in Ap.terms.items():
                    out._accumulate((i + k, j + l), trace_qform(P, [(C, A)], self.d))
        return out

    def drift_form(self, P, kappa) -> MatPoly:
        """PF + FᵀP − κP as a polynomial in (x, y).

        Parameters
        ----------
        P : flint.fmpq_mat
            The weight.
        kappa : flint.fmpq
            The rate.

        Returns
        -------
        MatPoly
            The d×d symmetric polynomial.
        """
        out = MatPoly(self.d, self.d)
        for mono, Fm in self.F.terms.items():
            out._accumulate(mono, P * Fm + Fm.transpose() * P)
        return out - MatPoly.constant(P * kappa) if kappa != 0 else out

    def read(self, data: dict) -> tuple:
        """(P, λ, c, κ, split) from the data after the checks every direction starts with: P = Pᵀ ≻ 0 (d×d),
        one λ_ij ≥ 0 per pair i < j, c ≥ 0, 0 ≤ split ≤ MAX_SPLIT.

        Parameters
        ----------
        data : dict
            The certificate's data.

        Returns
        -------
        tuple
            (P, lam, c, kappa, split) exactly.
        """
        validate(data, SCHEMA, f"{KIND}.data")
        d = self.d
        raw = data["P"]
        if len(raw) != d or any(len(r) != d for r in raw):
            _fail(f"P must be a {d}×{d} matrix")
        P = flint.fmpq_mat(d, d, [fmpq_of(parse_rat(e, "P")) for r in raw for e in r])
        if P != P.transpose() or not is_pd(P):
            _fail("P is not symmetric positive definite")
        lam = [fmpq_of(parse_rat(v, "lam")) for v in data["lam"]]
        if len(lam) != d * (d - 1) // 2 or any(v < 0 for v in lam):
            _fail(f"lam needs {d * (d - 1) // 2} non-negative multipliers (one per pair i < j)")
        c, kappa = fmpq_of(parse_rat(data["c"], "c")), fmpq_of(parse_rat(data["kappa"], "kappa"))
        if c < 0:
            _fail("c must be ≥ 0")
        split = data["split"]
        if not 0 <= split <= MAX_SPLIT:
            _fail(f"split must be in [0, {MAX_SPLIT}]")
        return P, lam, c, kappa, split

    def cone_form(self, P, lam, c, sign: int) -> MatPoly:
        """Q_P + sign·(Σλ_ij·D_ij + c·ppᵀ) as a polynomial (sign +1: the upper form, −1: the lower form).

        Parameters
        ----------
        P : flint.fmpq_mat
            The weight.
        lam : list of flint.fmpq
            The multipliers.
        c : flint.fmpq
            The quadratic constant.
        sign : int
            +1 or −1.

        Returns
        -------
        MatPoly
            The m×m polynomial.
        """
        m = self.d * (self.d + 1) // 2
        p = svec_weights(P, self.d)
        extra = flint.fmpq_mat(m, m, [c * p[k] * p[l] for k in range(m) for l in range(m)])
        for v, D in zip(lam, self.minors):
            extra = extra + D * v
        return self.q_form(P) + _constant(extra * sign)

    # --- one cell --------------------------------------------------------------------------
    def check_proved(self, cell: dict, box, data: dict):
        """Re-verify a PROVED ``cell-lmi`` cell (:meth:`CellChecker.check` opened it).

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
        P, lam, c, kappa, split = self.read(data)
        if not sign_on_box(self.S, box, +1):
            _fail("Σ₀ ⪰ 0 fails somewhere on the cell")
        if data["direction"] == "upper":
            for key in ("T_lo", "T_hi", "u_C", "u_A", "u_Sigma", "u_F", "a", "lam_a", "kappa_a"):
                if key in data:
                    _fail(f"an upper certificate carries no {key}")
            if not sign_on_box(self.cone_form(P, lam, c, +1), box, -1, split):
                _fail("Q_P + Σλ_ij·D_ij + c·ppᵀ ⪯ 0 fails on the cell")
            if not sign_on_box(self.drift_form(P, kappa), box, -1, split):
                _fail("PF + FᵀP − κP ⪯ 0 fails on the cell")
            if kappa < 0 or (kappa == 0 and c > 0):
                regime, params = "CLUSTERING", {"rank": 0}
            elif c > 0 or kappa == 0:
                regime, params = "BOUNDED", {}
            else:
                regime, params = "GLOBAL_EXISTENCE", {}
            return bind_cell_claim(cell, regime, params, _fail)
        return bind_cell_claim(cell, "BLOWUP", self._blowup(P, lam, c, kappa, split, box, data), _fail)

    def _blowup(self, P, lam, c, kappa, split, box, data) -> dict:
        """The lower direction: blow-up of every Σ₀ ⪰ 0, Σ₀ ≠ 0 on the cell, and the bracket {T_lo, T_hi}."""
        from ....exact.rational import frac_str

        if not c > 0 or kappa < 0:
            _fail("a blow-up certificate needs c > 0 and κ ≥ 0")
        if not sign_on_box(self.cone_form(P, lam, c, -1), box, +1, split):
            _fail("Q_P − Σλ_ij·D_ij − c·ppᵀ ⪰ 0 fails on the cell")
        if not sign_on_box(self.drift_form(P, kappa), box, +1, split):
            _fail("PF + FᵀP − κP ⪰ 0 fails on the cell")
        d = self.d
        y0 = MatPoly(1, 1)
        for (i, j), C in self.S.terms.items():
            y0._accumulate((i, j), flint.fmpq_mat(1, 1, [sum((P[a, b] * C[b, a] for a in range(d) for b in range(d)),
                                                             flint.fmpq(0))]))
        y_lo, y_hi = _scalar_bounds(y0, box)
        if not y_lo > 0:
            _fail("tr(PΣ₀) > 0 fails on the cell (Σ₀ = 0 does not blow up)")
        params = {}
        if "T_hi" in data:
            T_hi = fmpq_of(parse_rat(data["T_hi"], "T_hi"))
            if T_hi * c * y_lo < 1:
                _fail("T_hi is below 1/(c·min tr(PΣ₀)) on the cell")
            params["T_hi"] = frac_str(T_hi)
        T_lo = fmpq_of(parse_rat(data.get("T_lo", "0"), "T_lo"))
        if T_lo < 0:
            _fail("negative T_lo")
        if ("lam_a" in data or "kappa_a" in data) and "a" not in data:
            _fail("lam_a and kappa_a belong to a growth bound a")
        if T_lo > 0 and "a" in data:
            self._t_lo_by_growth(P, y_hi, split, box, data, T_lo)
        elif T_lo > 0:
            for key in ("u_C", "u_A", "u_Sigma"):
                if key not in data:
                    _fail(f"T_lo > 0 needs {key}")
            uC = [fmpq_of(parse_rat(v, "u_C")) for v in data["u_C"]]
            uA = [fmpq_of(parse_rat(v, "u_A")) for v in data["u_A"]]
            uS = fmpq_of(parse_rat(data["u_Sigma"], "u_Sigma"))
            uF = fmpq_of(parse_rat(data.get("u_F", "0"), "u_F"))
            if len(uC) != len(self.heads) or len(uA) != len(self.heads):
                _fail(f"u_C and u_A need one bound per head ({len(self.heads)})")
            bounds = ([(u, Cp) for u, (Cp, _) in zip(uC, self.heads)] + [(u, Ap) for u, (_, Ap) in zip(uA, self.heads)]
                      + [(uS, self.S), (uF, self.F)])
            for u, M in bounds:
                if u < 0 or _scalar_bounds(_frobenius_sq(M), box)[1] > u * u:
                    _fail("a norm bound u is below the Frobenius norm somewhere on the cell")
            K = sum((2 * a * b for a, b in zip(uC, uA)), flint.fmpq(0))
            if T_lo * (K * uS + 2 * uF) > 1:
                _fail("T_lo exceeds 1/(u_Σ·Σ_h 2u_C,h·u_A,h + 2u_F)")
        if "T_hi" in data and T_lo > fmpq_of(parse_rat(data["T_hi"], "T_hi")):
            _fail("T_lo > T_hi")
        params["T_lo"] = frac_str(T_lo)
        return params

    def _t_lo_by_growth(self, P, y_hi, split, box, data, T_lo) -> None:
        """T_lo from a growth bound of the same y = tr(PΣ): Q_P + Σλ^a_ij·D_ij − a·ppᵀ ⪯ 0 and PF + FᵀP − κ_a·P ⪯ 0
        on the cell give ẏ ≤ κ⁺y + a·y² (κ⁺ = max(κ_a, 0)), so y, hence Σ, is finite before
        (1/κ⁺)·ln(1 + κ⁺/(a·y₀)) ≥ 1/(a·y₀ + κ⁺) ≥ 1/(a·max y₀ + κ⁺)."""
        if "lam_a" not in data or "kappa_a" not in data or any(k in data for k in ("u_C", "u_A", "u_Sigma", "u_F")):
            _fail("a growth-bound T_lo needs lam_a and kappa_a and no norm bounds")
        a = fmpq_of(parse_rat(data["a"], "a"))
        lam_a = [fmpq_of(parse_rat(v, "lam_a")) for v in data["lam_a"]]
        kappa_a = fmpq_of(parse_rat(data["kappa_a"], "kappa_a"))
        if not a > 0 or len(lam_a) != len(self.minors) or any(v < 0 for v in lam_a):
            _fail("a growth bound needs a > 0 and one multiplier λ^a_ij ≥ 0 per pair i < j")
        if not sign_on_box(self.cone_form(P, lam_a, -a, +1), box, -1, split):
            _fail("Q_P + Σλ^a_ij·D_ij − a·ppᵀ ⪯ 0 fails on the cell")
        if not sign_on_box(self.drift_form(P, kappa_a), box, -1, split):
            _fail("PF + FᵀP − κ_a·P ⪯ 0 fails on the cell")
        if T_lo * (a * y_hi + max(kappa_a, flint.fmpq(0))) > 1:
            _fail("T_lo exceeds 1/(a·max tr(PΣ₀) + max(κ_a, 0))")


_T = "tests/soundness/forgeries/test_cell_lmi.py::"
#: the hypotheses of a whole-cell trace-functional LMI, each checked by :class:`LmiCellChecker`
HYPOTHESES = (
    Hypothesis("parameter-slice", "The slice varies parameters of a (multi-head) softmax-type flow, d ≤ 4, with constant "
               "parameters in depth and no ReLU term: Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ), of congruence "
               "form, so Σ(t) ⪰ 0 while it exists.", _T + "test_a_sigma0_slice"),
    Hypothesis("exact-polynomials", "C_h(x, y), Ã_h(x, y) and F(x, y) are the checker's own heads at 5 × 5 nodes, "
               "interpolated exactly: each entry multiplies at most three affine leaves (degree ≤ 3 ≤ 4 per coordinate); a "
               "guard compares them with the heads at a point off the grid.", _T + "test_the_heads_are_the_exact_polynomials"),
    Hypothesis("P-pd", "P = Pᵀ ≻ 0 exactly, so y = tr(PΣ) bounds Σ on the cone and vanishes only at Σ = 0.",
               _T + "test_P_not_positive_definite"),
    Hypothesis("multipliers", "λ_ij ≥ 0 (the principal minors are ≥ 0 on the cone) and c ≥ 0 (c > 0 and κ ≥ 0 for "
               "blow-up).", _T + "test_a_negative_multiplier"),
    Hypothesis("bernstein", "The matrix inequalities hold on the closed cell: every Bernstein coefficient on each of the "
               "2^split × 2^split sub-boxes has the sign (exact inertia); the values are convex combinations of them "
               "(the vertex argument when the form is affine in each coordinate).", _T + "test_moved_to_a_neighbouring_cell"),
    Hypothesis("upper-form", "Upper: Q_P + Σλ_ij·D_ij + c·ppᵀ ⪯ 0 and PF + FᵀP − κP ⪯ 0 on the cell, so ẏ ≤ κy − c·y² "
               "for every Σ ⪰ 0.", _T + "test_a_changed_P"),
    Hypothesis("lower-form", "Lower: Q_P − Σλ_ij·D_ij − c·ppᵀ ⪰ 0 and PF + FᵀP − κP ⪰ 0 on the cell, so ẏ ≥ c·y² for "
               "every Σ ⪰ 0.", _T + "test_a_changed_c"),
    Hypothesis("sigma0", "Σ₀ ⪰ 0 on the closed cell (the claims hold for every Σ₀ ⪰ 0, so they cover the map's); for "
               "blow-up tr(PΣ₀) > 0 on the cell, i.e. Σ₀ ≠ 0.", _T + "test_sigma0_zero_somewhere"),
    Hypothesis("bracket", "BLOWUP: T_hi ≥ 1/(c·min tr(PΣ₀)); 0 ≤ T_lo ≤ 1/(u_Σ·Σ_h 2u_C,h·u_A,h + 2u_F) with the u's "
               "≥ the Frobenius norms on the cell (Bernstein bounds of their squares), or T_lo ≤ 1/(a·max tr(PΣ₀) + "
               "max(κ_a, 0)) with Q_P + Σλ^a_ij·D_ij − a·ppᵀ ⪯ 0, λ^a ≥ 0, a > 0 and PF + FᵀP − κ_a·P ⪯ 0 on the cell "
               "(ẏ ≤ κ⁺y + a·y²); T_lo ≤ T_hi.",
               _T + "test_a_tightened_bracket"),
    Hypothesis("regime", "The regime is derived from (κ, c): CLUSTERING of rank 0 when κ < 0 or κ = 0 < c, BOUNDED when "
               "κ = c = 0 or κ, c > 0, GLOBAL_EXISTENCE when κ > 0 = c; BLOWUP for the lower direction — never read.",
               _T + "test_a_forged_regime"),
    *cell_hypotheses(KIND, "a trace-functional LMI", _T, quantifier="quantifier every point of the cell"),
)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, LmiCellChecker, _fail)
