"""Independent checker of whole-cell basin certificates (kind ``cell-basin``) of regime maps whose
slice varies only a trace-constant Σ₀ of a single-head softmax flow in d = 2 with a general value
matrix V and no drift (docs/mathematics.md §8, "Basins on the projective disk").

**The projective disk.**  Without drift Σ̇ = Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ is homogeneous quadratic.  Write
Σ = X/u with tr X = 1 and change time by dτ = dt/u:

    X' = Q(X) − c(X)·X,   u' = −c(X)·u,   c(X) = tr Q(X)                                  (Φ)

(any scalar gives d(X/u)/dt = Q(X/u), and tr X' = 0 with this one).  Trace-one symmetric 2×2
matrices are X(a, b) = ½[[1 + a, b], [b, 1 − a]]; X ⪰ 0 is the closed unit disk a² + b² ≤ 1, its
boundary circle the rank-one matrices.  Σ(t) = Φ(t)Σ₀Φ(t)ᵀ for the softmax flow, so the disk is
forward invariant.  In (a, b) the X-equation is a planar polynomial field g = (X'₀₀ − X'₁₁, 2X'₀₁)
of degree 3 with exact rational coefficients, and c is a quadratic polynomial.

**The certificate** (per cell) stores a rational polynomial L(a, b) (``L``: [i, j, coefficient]
triples), a level ``level`` = ℓ, a margin ``eps`` = ε > 0, a quadtree depth ``depth``, and a target:
``target`` ∈ {``cluster``, ``ray``} with a rational ellipsoid (``centre`` p*, ``W`` ≻ 0, ``rho``,
``mu``, ``R``) in (a, b) and an annulus around it (``rho_out`` ≥ rho, ``R_out``, ``kappa`` > 0); a
``ray`` cell also stores its bracket ``T_lo``, ``T_hi``.  Verified, all in exact rational arithmetic
unless said otherwise (ranges of polynomials over boxes by the exact Taylor shift:
p(x_c + s·h_x, y_c + t·h_y) = Σ d_ij sⁱtʲ, so p ∈ d₀₀ ± Σ_{(i,j)≠0}|d_ij|; every subdivision below is
deterministic and stops with a failure past its depth or :data:`MAX_BOXES` boxes):

1. *Target.*  p* lies in the closed disk; W = Wᵀ ≻ 0, rho, mu, R_k > 0, rho·(W⁻¹)_kk ≤ R_k² (the
   ellipsoid 𝓔 = {zᵀWz ≤ rho}, z = p − p*, lies in the box H = p* ± R); the residual r = g(p*) has
   rᵀWr < mu²·rho; P = −(DgᵀW + W·Dg) − 2·mu·W ⪰ 0 (P₀₀ > 0 and det P ≥ 0) on every box of a
   subdivision of H of depth ≤ 6 that meets the disk.  ``cluster``: an isotropic point p_iso of
   A + Aᵀ (an arb ball; X_iso = wwᵀ/wᵀw with wᵀAw = 0, so Q(X_iso) = 0 and c(X_iso) = 0) has
   (p_iso − p*)ᵀW(…) < rho.  ``ray``: c_lo = min_H c > 0 (c_hi = max_H c).
1′. *Annulus.*  rho_out·(W⁻¹)_kk ≤ R_out_k²; on every box of a subdivision of p* ± R_out (depth ≤ 9)
   that meets the disk and the annulus rho ≤ zᵀWz ≤ rho_out: 2zᵀW·g + kappa·zᵀWz < 0.
2. *Basin.*  The square [−1, 1]² is split by the quadtree (a box is split into its four quarters
   when none of the tests below holds, down to ``depth``); every leaf satisfies one of:
   1 − a² − b² < 0 on it (outside the disk); L > ℓ on it; zᵀWz < rho_out on it (inside the outer
   ellipsoid); L' := ∇L·g < −ε on it.  L_min is the least lower bound of L over the leaves that meet
   the disk; c_min, c_max bound c over the leaves that meet the disk with lower(L) ≤ ℓ.
3. *Cell.*  tr Σ₀ ≡ T₀ is constant, and L(a(x, y), b(x, y)) < ℓ on the closed cell,
   (a, b) = ((Σ₀₀ − Σ₁₁)/T₀, 2Σ₀₁/T₀) (affine in (x, y)); the claim covers every point of the cell.
   A cell on the boundary of the cone (Σ₀ ≻ 0 fails somewhere on it) is checked on its positive
   semidefinite part instead (:func:`pd_part_holds`: the pieces of a deterministic quadtree of depth
   ≤ :data:`RIM_DEPTH` whose directions' bounding box meets the closed disk), and its claim covers the
   cell's points where Σ₀ ≻ 0.

**Why.**  Let R = {p in the disk : L(p) ≤ ℓ} and 𝓔_out = {zᵀWz < rho_out}.  A point of R outside
𝓔_out lies in a leaf that is not outside the disk, not above ℓ and not inside 𝓔_out, so L' < −ε
there: along the flow L decreases while p ∉ 𝓔_out, so p stays in R, and since L ≥ L_min on the
disk it enters 𝓔_out by τ_L = (ℓ − L_min)/ε.  By 1′, zᵀWz then decays at the rate kappa until it
is below rho, within log(rho_out/rho)/kappa.  By 1, 𝓔 ∩ disk (convex) is forward invariant and
contracting (as for ``tube-ray``: Ė ≤ 2√E·√(rᵀWr) − 2·mu·E < 0 on E = rho, and the mean Jacobian
along a segment of 𝓔 ∩ disk lies in the convex set where P ⪰ 0), so p(τ) converges exponentially
to the unique equilibrium of g in 𝓔.
* ``cluster``: that equilibrium is p_iso, where c = 0; c is Lipschitz on H, so ∫|c| < ∞,
  u → u∞ > 0, t = ∫u dτ → ∞: Σ(t) is global and converges to X_iso/u∞, of rank exactly one.
  Claim CLUSTERING (rank 1) at every interior point of the cell.
* ``ray``: c ∈ [c_lo, c_hi] on 𝓔, so the time left from entering 𝓔 with u₁ is
  u₁∫₀^∞e^{−∫c} ∈ u₁[1/c_hi, 1/c_lo], and Σ = X/u → ∞.  With u₀ = 1/T₀, [c_min, c_max] the hull of
  the bounds of c on the basin's leaves, on the annulus boxes and on H, and τ₁ ≤ τ_max = τ_L +
  log(rho_out/rho)/kappa: u₁ ∈ u₀[e^{−max(0, c_max)τ_max}, e^{−min(0, c_min)τ_max}],
  t₁ = ∫₀^{τ₁}u ≤ τ_max·u₀e^{−min(0, c_min)τ_max}; and d(tr Σ)/dt = (tr Σ)²c(X) ≤ c_max(tr Σ)² gives
  T* ≥ u₀/c_max.  So T* ≥ max(u₀/c_max, u₁_lo/c_hi) and T* ≤ t₁_hi + u₁_hi/c_lo (balls); the stored
  bracket must contain this one.  Claim BLOWUP with [T_lo, T_hi] at every interior point.

The basin (steps 1–2) depends on the map's flow and the stored data only, so it is verified once per
distinct data and reused for the other cells of the map.
"""
from __future__ import annotations

import json
import flint

from ....exact.precision import working_precision
from ....exact.rational import Q, parse_frac
from ....spec.errors import CertificationFailed
from .. import Hypothesis
from ..claims import Claim
from ..schema import validate
from ..cell_enclosures import pd_on_open_box
from ..cells import CellChecker, bind_cell_claim, cell_hypotheses, flow_reason, standalone_cell_kind
from .tube_cluster import isotropic_points
from ..tube_replay import bracket_claim

KIND = "cell-basin"
MAX_DEPTH = 11          # quadtree depth limit of the basin (part of the kind's definition)
MAX_BOXES = 120_000     # box budget of each quadtree (a hostile certificate cannot make the check hang)
TARGET_DEPTH = 6        # subdivision depth of the target's contraction test
ANNULUS_DEPTH = 9       # subdivision depth of the target's annulus test
MAX_DEGREE = 16
RIM_DEPTH = 4           # subdivision depth of a cell on the cone's boundary (its positive definite part)
MAX_MISSES = 6000       # search side: more failing boxes than this and the candidate L is given up
_PREC = 128

__all__ = ["KIND", "HYPOTHESES", "DATA_SCHEMA", "disk_setting_hypotheses", "rational", "quarters", "polynomial", "BasinCellChecker", "PlanarField", "route_reason", "poly_range", "basin_schema",
           "check_inner", "check_target", "check_basin", "ray_bracket", "blowup_bracket", "target_claim", "disk_quadtree"]

DATA_SCHEMA = {"target": ("enum", "cluster", "ray"), "centre": "rat[]", "W": "rat[][]", "rho": "rat",
                "mu": "rat", "R": "rat[]", "rho_out": "rat", "R_out": "rat[]", "kappa": "rat", "L": "rat[][]", "level": "rat", "eps": "rat", "depth": "int"}


def basin_schema(target: str) -> dict:
    """The schema of a ``cell-basin`` cell's data (a ``ray`` cell also stores ``T_lo``, ``T_hi``).

    Parameters
    ----------
    target : str
        ``"cluster"`` or ``"ray"``.

    Returns
    -------
    dict
        The field → type schema (:func:`symbolic_tf.certify.check.schema.validate`).
    """
    return dict(DATA_SCHEMA, **({"T_lo": "rat", "T_hi": "rat"} if target == "ray" else {}))


def _fail(msg):
    raise CertificationFailed(f"cell-basin certificate: {msg}")


def _ctx():
    return flint.fmpq_mpoly_ctx.get(("a", "b"), "lex")


_GENS = []


def _gens():
    _GENS.extend(_ctx().gens())
    return _GENS


def rational(v) -> flint.fmpq:
    """An exact rational (int, "p/q" string or Fraction) as an fmpq.

    Parameters
    ----------
    v : int, str or Fraction

    Returns
    -------
    flint.fmpq
    """
    return Q(v)


def poly_range(p, box) -> tuple:
    """Exact bounds of a polynomial over a box by the Taylor shift to the box's centre.

    p(x_c + s·h_x, y_c + t·h_y) = Σ d_ij sⁱtʲ with |s|, |t| ≤ 1, so p ∈ [d₀₀ − Σ', d₀₀ + Σ'] on the
    box, Σ' = Σ_{(i,j)≠(0,0)}|d_ij|.

    Parameters
    ----------
    p : flint.fmpq_mpoly
        A polynomial in (a, b).
    box : tuple of 4 flint.fmpq
        (x₀, x₁, y₀, y₁).

    Returns
    -------
    tuple of (flint.fmpq, flint.fmpq)
        (lower, upper).
    """
    x0, x1, y0, y1 = box
    a, b = _GENS or _gens()
    q = p.compose((x0 + x1) / 2 + (x1 - x0) / 2 * a, (y0 + y1) / 2 + (y1 - y0) / 2 * b)
    c0 = q[0, 0]
    spread = sum((abs(c) for c in q.coeffs()), flint.fmpq(0)) - abs(c0)
    return c0 - spread, c0 + spread


def quarters(box):
    """The four quarters of a box (x₀, x₁, y₀, y₁).

    Parameters
    ----------
    box : tuple

    Returns
    -------
    list of tuple
    """
    x0, x1, y0, y1 = box
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    return [(x0, xm, y0, ym), (x0, xm, ym, y1), (xm, x1, y0, ym), (xm, x1, ym, y1)]


def meets_disk(box) -> bool:
    """Whether the closed box (x₀, x₁, y₀, y₁) meets the closed unit disk (its point nearest the origin).

    Parameters
    ----------
    box : tuple of flint.fmpq

    Returns
    -------
    bool
    """
    x0, x1, y0, y1 = box
    zero = flint.fmpq(0)
    cx = x0 if x0 > 0 else (x1 if x1 < 0 else zero)
    cy = y0 if y0 > 0 else (y1 if y1 < 0 else zero)
    return cx * cx + cy * cy <= 1


def pd_part_holds(box, ab, test, depth: int = RIM_DEPTH) -> bool:
    """Whether ``test`` holds on the part of a cell where Σ₀ ⪰ 0: on a deterministic quadtree of the cell
    (depth ≤ ``depth``), a piece whose directions' bounding box misses the closed unit disk is dropped
    (Σ₀ is indefinite on all of it), a piece where ``test`` holds is kept, any other is split; a piece
    at the depth limit that is neither fails.

    Parameters
    ----------
    box : tuple of flint.fmpq
        The cell (x₀, x₁, y₀, y₁).
    ab : tuple of flint.fmpq_mpoly
        The directions (a(x, y), b(x, y)).
    test : callable
        ``test(piece)`` → bool, the basin's test on a piece of the cell.
    depth : int, optional
        The subdivision depth (default :data:`RIM_DEPTH`).

    Returns
    -------
    bool
    """
    todo = [(box, 0)]
    while todo:
        piece, k = todo.pop()
        (a0, a1), (b0, b1) = (poly_range(p, piece) for p in ab)
        if not meets_disk((a0, a1, b0, b1)) or test(piece):
            continue
        if k >= depth:
            return False
        todo += [(q, k + 1) for q in quarters(piece)]
    return True


class PlanarField:
    """The projective field (Φ) on trace-one 2×2 matrices X(a, b) = ½[[1 + a, b], [b, 1 − a]], exactly.

    Attributes ``g`` (the pair (g_a, g_b) of fmpq_mpoly), ``c`` (c = tr Q(X)), ``jac`` (Dg, 2×2).

    Parameters
    ----------
    V : flint.fmpq_mat
        The 2×2 value matrix (the head's C).
    A : flint.fmpq_mat
        The 2×2 interaction matrix (scaled by the temperature).
    """

    def __init__(self, V, A):
        a, b = _ctx().gens()
        half = flint.fmpq(1, 2)
        X = [[(1 + a) * half, b * half], [b * half, (1 - a) * half]]

        def mm(M, N):
            return [[M[i][0] * N[0][j] + M[i][1] * N[1][j] for j in range(2)] for i in range(2)]

        Vl = [[V[i, j] for j in range(2)] for i in range(2)]
        Al = [[A[i, j] for j in range(2)] for i in range(2)]
        H = mm(mm(mm(Vl, X), Al), X)
        Q = [[H[i][j] + H[j][i] for j in range(2)] for i in range(2)]
        self.c = Q[0][0] + Q[1][1]
        Y = [[Q[i][j] - self.c * X[i][j] for j in range(2)] for i in range(2)]
        self.g = (Y[0][0] - Y[1][1], 2 * Y[0][1])
        self.jac = [[gi.derivative(0), gi.derivative(1)] for gi in self.g]

    def lie(self, L):
        """L' = ∇L·g, the derivative of L along the field.

        Parameters
        ----------
        L : flint.fmpq_mpoly
            A polynomial in (a, b).

        Returns
        -------
        flint.fmpq_mpoly
            ∂L/∂a·g_a + ∂L/∂b·g_b.
        """
        return L.derivative(0) * self.g[0] + L.derivative(1) * self.g[1]


def route_reason(spec) -> str | None:
    """None when a map spec has the shape this kind covers, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        None for a slice of a trace-constant Σ₀ only, d = 2, one softmax head, no drift.
    """
    from ....spec.errors import InvalidParameters
    from ..flows import quadratic_heads

    doc = spec.problem_doc
    if any(not p.startswith("initial") for p in spec.leaves) or spec.cov_affine() is None:
        return "basin certificates need a slice of Σ₀ only"
    if doc.get("d") != 2:
        return "basin certificates cover d = 2 (the projective disk)"
    F = doc.get("F")
    if F is not None and any(parse_frac(e) != 0 for row in F for e in row):
        return "basin certificates cover the flow without drift"
    C0, Cx, Cy = spec.cov_affine()
    if parse_frac(Cx[0][0]) + parse_frac(Cx[1][1]) != 0 or parse_frac(Cy[0][0]) + parse_frac(Cy[1][1]) != 0 \
            or not parse_frac(C0[0][0]) + parse_frac(C0[1][1]) > 0:
        return "basin certificates need a Σ₀ slice of constant positive trace"
    centre = spec.problem_at((spec.x_range[0] + spec.x_range[1]) / 2, (spec.y_range[0] + spec.y_range[1]) / 2)
    why = flow_reason(centre, "basin certificates")
    if why is not None:
        return why
    try:
        heads = quadratic_heads(centre)
    except InvalidParameters as exc:
        return f"basin certificates need a softmax-type head: {exc.reason}"
    if len(heads) != 1:
        return "basin certificates cover a single head"
    return None


def _ellipsoid(data, fail):
    """(p*, W, W⁻¹, rho, mu, R) read exactly, with the checks of step 1 that need no field."""
    from ....exact.definiteness import definiteness

    p = [rational(v) for v in data["centre"]]
    W = data["W"]
    if len(p) != 2 or len(W) != 2 or any(len(r) != 2 for r in W) or len(data["R"]) != 2:
        fail("centre, W and R must be 2-dimensional")
    Wm = flint.fmpq_mat(2, 2, [rational(v) for r in W for v in r])
    if Wm != Wm.transpose() or not definiteness(Wm).pd:
        fail("W must be symmetric positive definite")
    rho, mu = rational(data["rho"]), rational(data["mu"])
    R = [rational(v) for v in data["R"]]
    if not (rho > 0 and mu > 0 and all(r > 0 for r in R)):
        fail("rho, mu and R must be positive")
    Winv = Wm.inv()
    if any(rho * Winv[k, k] > R[k] ** 2 for k in range(2)):
        fail("the ellipsoid does not lie in the box centre ± R")
    return p, Wm, rho, mu, R


def _energy(p, W):
    """zᵀWz with z = (a, b) − p, as a polynomial."""
    a, b = _ctx().gens()
    za, zb = a - p[0], b - p[1]
    return W[0, 0] * za * za + 2 * W[0, 1] * za * zb + W[1, 1] * zb * zb


def check_inner(field, pairs, data, fail):
    """Step 1: the inner target ellipsoid is contracting and holds its attractor.

    Parameters
    ----------
    field : PlanarField
        The exact projective field.
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The head's exact (V, A).
    data : dict
        The cell's data (target, centre, W, rho, mu, R).
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    tuple
        (p*, W, rho, the polynomial zᵀWz, (c_lo, c_hi) on the box for a ``ray`` target else None).
    """
    p, W, rho, mu, R = _ellipsoid(data, fail)
    r = [gi(p[0], p[1]) for gi in field.g]
    rWr = W[0, 0] * r[0] ** 2 + 2 * W[0, 1] * r[0] * r[1] + W[1, 1] * r[1] ** 2
    if not rWr < mu ** 2 * rho:
        fail("the residual at the centre is too large (rᵀWr < mu²·rho fails)")
    J = field.jac
    Wl = [[W[i, j] for j in range(2)] for i in range(2)]
    # P = −(JᵀW + WJ) − 2·mu·W, entrywise: (JᵀW)_ij = Σ_k J_ki W_kj
    P = [[-(sum((J[k][i] * Wl[k][j] for k in range(2)), 0 * J[0][0]) + sum((Wl[i][k] * J[k][j] for k in range(2)), 0 * J[0][0]))
          - 2 * mu * Wl[i][j] for j in range(2)] for i in range(2)]
    det = P[0][0] * P[1][1] - P[0][1] * P[1][0]
    if not p[0] ** 2 + p[1] ** 2 <= 1:
        fail("the target's centre must lie in the closed disk")
    a, b = _GENS or _gens()
    disk = 1 - a * a - b * b
    H = (p[0] - R[0], p[0] + R[0], p[1] - R[1], p[1] + R[1])
    todo = [(H, 0)]
    while todo:
        box, depth = todo.pop()
        if poly_range(disk, box)[1] < 0:     # no state of the flow: the disk is invariant
            continue
        if poly_range(P[0][0], box)[0] > 0 and poly_range(det, box)[0] >= 0:
            continue
        if depth >= TARGET_DEPTH:
            fail("the contraction −(DgᵀW + W·Dg) − 2·mu·W ⪰ 0 fails on the target's box")
        todo += [(q, depth + 1) for q in quarters(box)]
    energy = _energy(p, W)
    if data["target"] == "cluster":
        with working_precision(_PREC):
            pts = []
            for X in isotropic_points(pairs[0][1]):
                pa, pb = X[0, 0] - X[1, 1], 2 * X[0, 1]
                za, zb = pa - flint.arb(p[0]), pb - flint.arb(p[1])
                e = flint.arb(W[0, 0]) * za * za + 2 * flint.arb(W[0, 1]) * za * zb + flint.arb(W[1, 1]) * zb * zb
                if e < flint.arb(rho):
                    pts.append(X)
        if not pts:
            fail("no isotropic rank-one point of A + Aᵀ lies in the target ellipsoid")
        cs = None
    else:
        c_lo, c_hi = poly_range(field.c, H)
        if not c_lo > 0:
            fail("the growth rate c = tr Q(X) is not positive on the target's box")
        cs = (c_lo, c_hi)
    return p, W, rho, energy, cs


def check_target(field, pairs, data, fail):
    """Steps 1 and 1′: the inner ellipsoid (:func:`check_inner`) and the annulus around it on which zᵀWz
    decays at the rate ``kappa`` out to ``rho_out``.

    Parameters
    ----------
    field : PlanarField
        The exact projective field.
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The head's exact (V, A).
    data : dict
        The cell's data (target, centre, W, rho, mu, R, rho_out, R_out, kappa).
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    dict
        ``energy`` (zᵀWz), ``rho_out``, ``c`` ((c_lo, c_hi) on the inner box for a ``ray`` target, else
        None), ``c_out`` (bounds of c on the annulus boxes, or None), ``tau_out`` (an arb upper bound of
        the time from the outer ellipsoid into the inner one).
    """
    p, W, rho, energy, cs = check_inner(field, pairs, data, fail)
    out = _annulus(field, data, p, W, rho, energy, fail)
    out.update(energy=energy, c=cs)
    return out


def disk_quadtree(todo: list, what: str, fail, budget: int = MAX_BOXES, meets=None):
    """The boxes of a depth-first quadtree that meet the closed unit disk, at most ``budget``.

    Parameters
    ----------
    todo : list
        The stack of (box, depth) pairs; the caller splits a box by pushing its quarters onto it.
    what : str
        The test's name in the failure message.
    fail : callable
        ``fail(msg)`` raises.
    budget : int
        The most boxes popped (a hostile certificate cannot make the check hang).
    meets : callable or None
        ``meets(box)``: whether a box may meet the disk; None for the range of 1 − a² − b² over the box
        (:func:`poly_range`), the test of the basin's own quadtrees.

    Yields
    ------
    tuple
        (box, depth) of each popped box that meets the disk.
    """
    if meets is None:
        a, b = _GENS or _gens()
        disk = 1 - a * a - b * b

        def meets(box):
            return not poly_range(disk, box)[1] < 0
    boxes = 0
    while todo:
        box, depth = todo.pop()
        boxes += 1
        if boxes > budget:
            fail(f"{what} needs more than {budget} boxes")
        if not meets(box):
            continue
        yield box, depth


def _annulus(field, data, p, W, rho, energy, fail):
    """Step 1′: zᵀWz decreases at rate ≥ kappa·zᵀWz on the annulus rho ≤ zᵀWz ≤ rho_out of the disk."""
    rho_out, kappa = rational(data["rho_out"]), rational(data["kappa"])
    R_out = [rational(v) for v in data["R_out"]]
    if len(R_out) != 2 or not (rho_out >= rho and kappa > 0 and all(r > 0 for r in R_out)):
        fail("rho_out ≥ rho, kappa > 0 and R_out > 0 are required")
    Winv = W.inv()
    if any(rho_out * Winv[k, k] > R_out[k] ** 2 for k in range(2)):
        fail("the outer ellipsoid does not lie in the box centre ± R_out")
    a, b = _GENS or _gens()
    za, zb = a - p[0], b - p[1]
    ga, gb = field.g
    # d/dτ zᵀWz = 2zᵀW·g; the test is 2zᵀW·g + kappa·zᵀWz < 0
    decay = 2 * (za * (W[0, 0] * ga + W[0, 1] * gb) + zb * (W[0, 1] * ga + W[1, 1] * gb)) + kappa * energy
    todo = [((p[0] - R_out[0], p[0] + R_out[0], p[1] - R_out[1], p[1] + R_out[1]), 0)]
    c_min = c_max = None
    for box, depth in disk_quadtree(todo, "the annulus test", fail):
        e_lo, e_hi = poly_range(energy, box)
        if e_lo > rho_out or e_hi < rho:
            continue
        if poly_range(decay, box)[1] < 0:
            c_lo, c_hi = poly_range(field.c, box)
            c_min = c_lo if c_min is None or c_lo < c_min else c_min
            c_max = c_hi if c_max is None or c_hi > c_max else c_max
            continue
        if depth >= ANNULUS_DEPTH:
            fail("zᵀWz does not decrease at the stated rate on the annulus of the target")
        todo += [(q, depth + 1) for q in quarters(box)]
    with working_precision(_PREC):
        tau = (flint.arb(rho_out) / flint.arb(rho)).log() / flint.arb(kappa)
    return {"rho_out": rho_out, "c_out": None if c_min is None else (c_min, c_max), "tau_out": tau}


def polynomial(terms, fail):
    """The exact polynomial Σ cᵢⱼ aⁱbʲ of [i, j, c] triples (total degree ≤ :data:`MAX_DEGREE`).

    Parameters
    ----------
    terms : list
        [i, j, coefficient] triples.
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    flint.fmpq_mpoly
    """
    ctx = _ctx()
    coeffs = {}
    for t in terms:
        if len(t) != 3:
            fail("L must be a list of [i, j, coefficient] triples")
        i, j = parse_frac(t[0]), parse_frac(t[1])
        if i.denominator != 1 or j.denominator != 1 or i < 0 or j < 0 or i + j > MAX_DEGREE:
            fail(f"L's exponents must be integers ≥ 0 of total degree ≤ {MAX_DEGREE}")
        key = (int(i), int(j))
        if key in coeffs:
            fail("L repeats a monomial")
        coeffs[key] = rational(t[2])
    return ctx.from_dict(coeffs)


def check_basin(field, L, level, eps, depth, energy, rho, fail, misses=None):
    """Step 2: the deterministic quadtree over [−1, 1]²; returns (L_min, c_min, c_max): a lower bound
    of L on the disk and bounds of c = tr Q(X) over the leaves that meet R = {L ≤ ℓ} ∩ disk.

    Parameters
    ----------
    field : PlanarField
        The exact projective field.
    L : flint.fmpq_mpoly
        The decreasing function.
    level, eps : flint.fmpq
        ℓ and ε > 0.
    depth : int
        The quadtree's depth limit (≤ :data:`MAX_DEPTH`).
    energy : flint.fmpq_mpoly
        zᵀWz of the target.
    rho : flint.fmpq
        The target's level.
    fail : callable
        ``fail(msg)`` raises.
    misses : list or None
        Search side only: when a list, a box of depth ``depth`` that passes no test is appended to it
        (with its lower bound of L) instead of failing, up to :data:`MAX_MISSES` boxes — a certificate
        is never built from this mode.

    Returns
    -------
    tuple of flint.fmpq
        (L_min, c_min, c_max): min over the leaves that meet the disk of the lower bound of L, and the
        bounds of c over the leaves that meet the disk with lower(L) ≤ ℓ.
    """
    dL = field.lie(L)
    one = flint.fmpq(1)
    todo = [((-one, one, -one, one), 0)]
    L_min = c_min = c_max = None
    for box, k in disk_quadtree(todo, "the basin's quadtree", fail):
        lo = poly_range(L, box)[0]
        L_min = lo if L_min is None or lo < L_min else L_min
        if lo > level:
            continue
        if poly_range(energy, box)[1] < rho or poly_range(dL, box)[1] < -eps:
            c_lo, c_hi = poly_range(field.c, box)
            c_min = c_lo if c_min is None or c_lo < c_min else c_min
            c_max = c_hi if c_max is None or c_hi > c_max else c_max
            continue
        if k >= depth:
            if misses is not None and len(misses) < MAX_MISSES:
                misses.append((box, lo))
                continue
            fail(f"a box of depth {k} near ({float((box[0] + box[1]) / 2):.4g}, {float((box[2] + box[3]) / 2):.4g}) "
                 "passes none of the basin tests")
        todo += [(q, k + 1) for q in quarters(box)]
    return L_min, c_min, c_max


def _hull(ranges):
    """The smallest interval holding (lo, hi) ranges (None or (None, None) entries are ignored)."""
    rs = [r for r in ranges if r is not None and r[0] is not None]
    return min(r[0] for r in rs), max(r[1] for r in rs)


def ray_bracket(T0, level, L_min, eps, c_R, c_target, tau_out):
    """Arb bounds (lo, hi) of T* for every Σ₀ of trace T₀ whose direction lies in the basin of a ray
    target (the module docstring's "Why", ``ray``).

    Parameters
    ----------
    T0 : flint.fmpq
        tr Σ₀ > 0.
    level, L_min, eps : flint.fmpq
        ℓ, the lower bound of L on the disk and ε; τ_L = (ℓ − L_min)/ε bounds the time to the target.
    c_R : list of tuple
        Ranges (c_min, c_max) of c = tr Q(X) on the regions crossed before the inner target (the basin's
        leaves, the annulus); None or (None, None) entries are ignored.
    c_target : tuple of flint.fmpq
        (c_lo, c_hi) on the target's box, c_lo > 0.
    tau_out : flint.arb
        An upper bound of the time from the outer ellipsoid into the inner one.

    Returns
    -------
    tuple of flint.arb
        :func:`blowup_bracket` with τ = τ_L + τ_out.
    """
    tau_L = (level - L_min) / eps if L_min is not None and level > L_min else flint.fmpq(0)
    with working_precision(_PREC):
        tau = flint.arb(tau_L) + flint.arb(tau_out.upper())
    return blowup_bracket(T0, tau, c_R, c_target)


def blowup_bracket(T0, tau, c_R, c_target):
    """Arb bounds (lo, hi) of T* from a projective time bound τ ≥ τ₁ to the inner ray target.

    With u₀ = 1/T₀ and [c_min, c_max] the hull of the ranges of c = tr Q(X) crossed:
    u₁ ∈ u₀[e^{−max(0, c_max)τ}, e^{−min(0, c_min)τ}], t₁ ≤ τ·u₀e^{−min(0, c_min)τ}, and from the
    target on the time left is u₁∫e^{−∫c} ∈ u₁[1/c_hi, 1/c_lo]; d(tr Σ)/dt ≤ c_max(tr Σ)² gives
    T* ≥ u₀/c_max.

    Parameters
    ----------
    T0 : flint.fmpq
        tr Σ₀ > 0.
    tau : flint.arb
        An upper bound of the projective time to the inner target.
    c_R : list of tuple
        Ranges (c_min, c_max) of c on the regions crossed before the inner target; None entries are
        ignored.
    c_target : tuple of flint.fmpq
        (c_lo, c_hi) on the target's box, c_lo > 0.

    Returns
    -------
    tuple of flint.arb
        lo = max(u₀/max(c_max, c_hi), u₁_lo/c_hi), hi = t₁_hi + u₁_hi/c_lo.
    """
    c_lo, c_hi = c_target
    c_min, c_max = _hull(c_R + [c_target])
    c_max = max(c_max, c_hi)
    with working_precision(_PREC):
        tau = flint.arb(tau.upper())
        u0 = flint.arb(1 / T0)
        up = (flint.arb(-min(0, c_min)) * tau).exp()
        u1_lo = u0 * (flint.arb(-max(0, c_max)) * tau).exp()
        lo = u1_lo / flint.arb(c_hi)
        lo2 = u0 / flint.arb(c_max)
        if lo2.lower() > lo.lower():
            lo = lo2
        hi = tau * u0 * up + u0 * up / flint.arb(c_lo)
    return lo, hi


class BasinCellChecker(CellChecker):
    """Checks the ``cell-basin`` cells of one map spec (each distinct basin is verified once)."""

    kind_name = KIND
    fail = staticmethod(_fail)

    def __init__(self, spec):
        self.read_slice(spec, route_reason)
        self.field = PlanarField(*self.pairs[0])
        C0, Cx, Cy = ([[rational(e) for e in row] for row in M] for M in self.cov)
        self.T0 = C0[0][0] + C0[1][1]
        # (a, b) = ((Σ₀₀ − Σ₁₁)/T₀, 2Σ₀₁/T₀), affine in (x, y)
        x, y = _ctx().gens()
        self.ab = tuple((M0 + Mx * x + My * y) / self.T0 for M0, Mx, My in
                        ((C0[0][0] - C0[1][1], Cx[0][0] - Cx[1][1], Cy[0][0] - Cy[1][1]),
                         (2 * C0[0][1], 2 * Cx[0][1], 2 * Cy[0][1])))
        self._basins = {}

    def basin(self, data) -> dict:
        """Verify (once) the target and basin of a cell's data.

        Parameters
        ----------
        data : dict
            The cell's data (schema-checked).

        Returns
        -------
        dict
            ``L`` (fmpq_mpoly), ``level``, and for a ray target the arb bounds ``T`` = (lo, hi) of T*
            for every Σ₀ of trace T₀ in the basin.
        """
        key = json.dumps({k: data[k] for k in DATA_SCHEMA}, sort_keys=True)
        if key not in self._basins:
            depth = data["depth"]
            if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
                _fail(f"depth must be an integer in [0, {MAX_DEPTH}]")
            eps, level = rational(data["eps"]), rational(data["level"])
            if not eps > 0:
                _fail("eps must be positive")
            L = polynomial(data["L"], _fail)
            tg = check_target(self.field, self.pairs, data, _fail)
            L_min, c_min, c_max = check_basin(self.field, L, level, eps, depth, tg["energy"], tg["rho_out"], _fail)
            out = {"L": L, "level": level}
            if tg["c"] is not None:
                out["T"] = ray_bracket(self.T0, level, L_min, eps, [(c_min, c_max), tg["c_out"]], tg["c"],
                                       tg["tau_out"])
            self._basins[key] = out
        return self._basins[key]

    def check_proved(self, cell: dict, box, data: dict) -> Claim:
        """Re-verify a PROVED ``cell-basin`` cell (:meth:`CellChecker.check` opened it).

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
        target = data.get("target")
        if target not in ("cluster", "ray"):
            _fail("target must be 'cluster' or 'ray'")
        validate(data, basin_schema(target), "cell-basin.data")
        basin = self.basin(data)
        Lc = basin["L"].compose(*self.ab)
        pd_only = not pd_on_open_box(self.S, box)

        def inside(piece):
            return poly_range(Lc, piece)[1] < basin["level"]
        if not (pd_part_holds(box, self.ab, inside) if pd_only else inside(box)):
            _fail("L < level fails somewhere on the cell: the cell is not inside the certified basin")
        return target_claim(cell, data, target == "ray", lambda: basin["T"], _fail, pd_only)


def target_claim(cell: dict, data: dict, ray: bool, bracket, fail, pd_only: bool) -> Claim:
    """The claim of a cell inside a verified basin (``cell-basin``, ``cell-grid``), bound to the stored cell.

    Parameters
    ----------
    cell : dict
        The stored cell.
    data : dict
        Its certificate's data (the stored bracket ``T_lo``, ``T_hi`` of a ray target).
    ray : bool
        The target is a blow-up ray (else a cluster).
    bracket : callable
        ``bracket()`` → the derived (lo, hi) of T*, asked only for a ray target.
    fail : callable
        ``fail(msg)`` raises the kind's :class:`~symbolic_tf.spec.errors.CertificationFailed`.
    pd_only : bool
        The claim covers only the cell's points where Σ₀ ≻ 0.

    Returns
    -------
    symbolic_tf.certify.check.claims.Claim
        CLUSTERING of rank 1 for a cluster target, else BLOWUP with the stored bracket (which must
        contain the derived one).
    """
    if not ray:
        regime, params = "CLUSTERING", {"rank": 1}
    else:
        regime = "BLOWUP"
        params = bracket_claim(data, *bracket(), fail).params
    return bind_cell_claim(cell, regime, params, fail, pd_only)


def disk_setting_hypotheses(T: str) -> tuple:
    """The hypotheses of the projective-disk setting shared by ``cell-basin`` and ``cell-grid``
    (checked by :func:`route_reason` and the spec parser); ``T`` is the forgery file (``…::``), whose
    tests carry the same names.

    Parameters
    ----------
    T : str
        The forgery test file followed by ``::``.

    Returns
    -------
    tuple of Hypothesis
        sigma0-slice, projective-disk, constant-trace, constant-parameters, gaussian-closed.
    """
    return (
    Hypothesis("sigma0-slice", "Only the initial covariance varies over the slice: Σ₀(x, y) is affine in the "
               "coordinates and every parameter of the flow is the same at every point of the cell.",
               T + "test_a_parameter_varying_over_the_cell"),
    Hypothesis("projective-disk", "d = 2, one softmax-type head and no drift (F = 0): the flow is homogeneous "
               "quadratic, so Σ = X/u turns it into the planar field g on the closed unit disk of trace-one X.",
               T + "test_a_drift"),
    Hypothesis("constant-trace", "tr Σ₀ ≡ T₀ > 0 on the slice, so the cell's directions (a, b) are affine in (x, y) "
               "and every point starts at u₀ = 1/T₀.", T + "test_a_slice_of_varying_trace"),
    Hypothesis("constant-parameters", "No depth schedule: A and V do not depend on the depth t, so g is the "
               "projective flow at every time.", T + "test_a_depth_schedule"),
    Hypothesis("gaussian-closed", "No ReLU feed-forward term: the token law stays Gaussian and Σ obeys the covariance "
               "equation at all.", T + "test_a_relu_feed_forward"),
    )


_T = "tests/soundness/forgeries/test_cell_basin.py::"
#: the hypotheses of a whole-cell basin, each checked by :class:`BasinCellChecker` (and the spec parser)
HYPOTHESES = (
    *disk_setting_hypotheses(_T),
    Hypothesis("target-contracts", "The target ellipsoid 𝓔 = {zᵀWz ≤ rho} (W ≻ 0, rho, mu > 0) lies in the box p* ± R, "
               "the residual at its centre has rᵀWr < mu²·rho and −(DgᵀW + W·Dg) − 2·mu·W ⪰ 0 on that box where it "
               "meets the disk: 𝓔 ∩ disk is invariant and contracts to one equilibrium.",
               _T + "test_a_target_that_does_not_contract"),
    Hypothesis("cluster-target", "A cluster target holds an isotropic rank-one point of A + Aᵀ (there Q = 0 and c = 0): "
               "the equilibrium is that point, u has a positive limit and Σ(t) converges to a rank-one limit.",
               _T + "test_a_ray_target_relabelled_cluster"),
    Hypothesis("ray-target", "A ray target has c = tr Q(X) ≥ c_lo > 0 on its box: u decays at least exponentially in "
               "the projective time, so Σ = X/u blows up in finite time.", _T + "test_a_cluster_target_relabelled_ray"),
    Hypothesis("annulus", "rho ≤ rho_out, kappa > 0, the outer ellipsoid lies in p* ± R_out and "
               "2zᵀW·g + kappa·zᵀWz < 0 on the annulus rho ≤ zᵀWz ≤ rho_out in the disk: from the outer ellipsoid "
               "the state enters 𝓔 within log(rho_out/rho)/kappa.", _T + "test_an_annulus_that_does_not_decay"),
    Hypothesis("basin", "eps > 0 and every leaf of the quadtree of [−1, 1]² (depth ≤ 11) lies outside the disk, has "
               "L > ℓ, lies inside the outer ellipsoid or has ∇L·g < −eps: {L ≤ ℓ} ∩ disk is invariant outside the "
               "outer ellipsoid and is left for it within (ℓ − L_min)/eps.", _T + "test_a_basin_level_raised"),
    Hypothesis("cell-in-basin", "L(a(x, y), b(x, y)) < ℓ on the closed cell (for a cell on the cone's boundary, on "
               "the pieces of its quadtree whose directions may lie in the disk).", _T + "test_a_cell_outside_the_basin"),
    Hypothesis("rim-quantifier", "If Σ₀ ≻ 0 is not proved on the whole open cell, the claim covers only the cell's "
               "points where Σ₀ ≻ 0 (quantifier every point of the cell where Σ₀ ≻ 0), never every point.",
               _T + "test_a_rim_cell_claiming_every_point"),
    Hypothesis("target-regime", "The regime is the target's: cluster ⇒ CLUSTERING of rank 1, ray ⇒ BLOWUP; the cell's "
               "stored regime and rank are exactly these.", _T + "test_a_relabelled_rank"),
    Hypothesis("bracket", "BLOWUP: the cell's T_lo, T_hi equal the data's, T_lo ≤ T_hi, and [T_lo, T_hi] contains the "
               "bracket derived from u₀, the time bound (ℓ − L_min)/eps + log(rho_out/rho)/kappa and the ranges of c.",
               _T + "test_a_tightened_bracket"),
    *cell_hypotheses(KIND, "a basin", _T),
)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, BasinCellChecker, _fail)
