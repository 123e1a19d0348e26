"""Independent checker of whole-cell parameter tubes (kind ``cell-tube-param``) of regime maps over a
*parameter* slice (family ``parameter``: A, V, W, F, … affine in (x, y); Σ₀ fixed) of a (multi-head)
softmax flow with a general value matrix, with or without a drift (docs/certification.md, "Whole
parameter cells: tubes with the parameters as state").

Trace functionals (``cell-lmi``) prove only verdicts that hold for every Σ₀; this kind proves verdicts
of the map's own Σ₀ that depend on it — rank-one clustering, blow-up from this Σ₀ — for every point
of a cell at once.  The checker

1. reads the heads C_h(x, y), A_h(x, y) and the drift F(x, y) as exact matrix polynomials (the same
   exact interpolation as ``cell-lmi``: :class:`~symbolic_tf.certify.check.kinds.cell_lmi.LmiCellChecker`);
2. replays the stored validated tube of the augmented flow (Σ̇ = f(p, Σ), ṗ = 0, p = (x, y)) from the
   set {Σ₀} × (closed cell) (:mod:`symbolic_tf.certify.check.param_tube`): every solution exists on
   [0, t_N] and (Σ(t_N; p), p) lies in the end box S_N × B for every p of the cell;
3. checks the stored end condition for every Σ of S_N and every p of the closed cell B at once, each
   computation of the point kind's end condition done in balls with the heads evaluated on B (an
   interval extension contains the value at every p, so a passed ball test is the point test passed
   at every p):

   * ``tube-ray`` (blow-up): the contracting ellipsoid of an attracting ray of the projective field
     (:mod:`~symbolic_tf.certify.check.kinds.tube_ray`, checks 2–7; the residual of X_star is a ball
     over B) ⇒ BLOWUP with T* ∈ [t_N + u₁/c_hi, t_N + u₁/c_lo], uniform over the cell;
   * ``tube-cluster`` (d = 2, one head, no drift): the contracting ellipsoid around an isotropic
     rank-one line (:mod:`~symbolic_tf.certify.check.kinds.tube_cluster`, checks 2–7; the isotropic
     point of A(p) + A(p)ᵀ by one formula in balls over B) ⇒ CLUSTERING of rank 1;
   * ``tube-collapse`` (a drift): the collapse set {tr(PΣ) < λ/c}
     (:mod:`~symbolic_tf.certify.check.kinds.tube_collapse`, checks 1–3) with −(PF(p) + F(p)ᵀP) − λP ⪰ 0
     proved on B by exact Bernstein coefficients and n_h² ≥ max_B‖PC_h‖_F²·max_B‖A_h‖_F² ⇒ CLUSTERING of
     rank 0 of this Σ₀.

The residual of an ellipsoid's rational centre X* is the matrix polynomial r(p) = Q_p(X*) − (tr Q_p(X*) +
κ(tr X* − 1))X*, enclosed entrywise by its exact Bernstein range on B (:func:`residual_ball`).  The claim is
for the map's Σ₀ at every interior point of the cell.  Not lifted: the rank-(d − 1) equilibrium of
``tube-singular-equilibrium``.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from ....exact.rational import fmpq_of, frac_str
from .. import Hypothesis, refusal
from ..cells import CellChecker, bind_cell_claim, cell_hypotheses, standalone_cell_kind
from ..cell_enclosures import MatPoly
from ..param_tube import ParamField, ProjParamField, ProjRayParamField, ball_eval, interval, replay_param_tube, sigma_block
from ..schema import validate
from ..tube_replay import bracket_claim, int_in, svec_basis, svec_pairs, trace
from .cell_lmi import LmiCellChecker, bernstein_coefficients, route_reason as lmi_route_reason
from .tube_cluster import jacobian_and_gradient
from .tube_ray import ProjectiveField, centre_box, check_contraction, ellipsoid_data

KIND = "cell-tube-param"
MAX_D = 4
MAX_ORDER = 40
MAX_STEPS = 20000
MAX_PSPLIT = 4
#: how many levels of ``pieces`` (each a split of a box into its four quarters) a certificate may nest: pieces
#: down to 1/8 × 1/8 of the cell
MAX_PIECE_DEPTH = 3

__all__ = ["KIND", "END_KINDS", "HYPOTHESES", "ParamTubeChecker", "route_reason", "ball_heads", "ray_end",
           "cluster_end", "residual_ball", "sub_boxes", "centred_jacobian",
           "moving_centre", "residual_poly_ball", "common_verdict", "MAX_PIECE_DEPTH", "moving_ray_end", "centred_ray_jacobian", "projective_ray_offset", "end_offset_energy", "moving_cluster_end", "collapse_bounds", "frobenius_sq", "upper_bound"]

_fail = refusal(KIND)

_TUBE = {"prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int", "method": ("enum", "qr", "direct")}
_ELLIPSOID = {"X_star": "rat[][]", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]"}
SCHEMAS = {"tube-ray": {**_ELLIPSOID, **_TUBE, "T_lo": "rat", "T_hi": "rat", "psplit?": "int", "X_dx?": "rat[][]",
                        "X_dy?": "rat[][]", "kappa?": "rat", "space?": ("enum", "sigma", "projective")},
           "tube-cluster": {**_ELLIPSOID, **_TUBE, "kappa": "rat", "psplit?": "int", "X_dx?": "rat[][]",
                            "X_dy?": "rat[][]", "space?": ("enum", "sigma", "projective")},
           "tube-collapse": {"P": "rat[][]", "lam": "rat", "p_lo": "rat", "n": "rat[]", "c": "rat", "split": "int",
                             **{k: v for k, v in _TUBE.items() if k != "prec"}}}
#: the fields of the ``pieces`` end besides ``end``: four data, one per quarter box
PIECES_SCHEMA = {"pieces": "obj[]"}


def route_reason(spec) -> str | None:
    """None when a map spec has the shape this kind covers, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        None, or the reason: that of ``cell-lmi`` (a parameter slice of a softmax-type flow, d ≤ 4, no
        schedule or ReLU term), or a Σ₀ that varies over the slice.
    """
    why = lmi_route_reason(spec)
    if why is not None:
        return why.replace("cell LMIs", "parameter tubes")
    _C0, Cx, Cy = spec.cov_affine()
    if any(fmpq_of(e) != 0 for M in (Cx, Cy) for row in M for e in row):
        return "parameter tubes need a fixed Σ₀ (the coordinates enter the parameters only)"
    return None


def ball_heads(heads, F, box) -> tuple:
    """The heads and the drift evaluated in balls on the closed box: they contain (C_h(p), A_h(p)) and F(p)
    for every p of the box.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        The exact (C_h(x, y), A_h(x, y)).
    F : MatPoly
        The exact drift (no term: none).
    box : sequence of 4 flint.fmpq
        (x₀, x₁, y₀, y₁).

    Returns
    -------
    tuple of (list of (flint.arb_mat, flint.arb_mat), flint.arb_mat or None)
        The ball pairs and drift.
    """
    x, y = interval(box[0], box[1]), interval(box[2], box[3])
    pairs = [(ball_eval(C, x, y), ball_eval(A, x, y)) for C, A in heads]
    return pairs, (ball_eval(F, x, y) if F.terms else None)


def residual_ball(heads, Xs, kappa, box) -> flint.arb_mat:
    """A ball matrix containing r(p) = Q_p(X*) − (tr Q_p(X*) + κ(tr X* − 1))·X* for every p of the closed box,
    Q_p(X) = Σ_h (C_h(p) X A_h(p) X + transpose): for the exact X* the residual is a matrix polynomial in p, and
    each entry lies between the least and the largest of its exact Bernstein coefficients on the box
    (:func:`~symbolic_tf.certify.check.kinds.cell_lmi.bernstein_coefficients`) — no interval dependency.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        The exact (C_h(x, y), A_h(x, y)).
    Xs : flint.fmpq_mat
        The exact centre X*.
    kappa : flint.fmpq
        κ ≥ 0.
    box : sequence of 4 flint.fmpq
        The closed cell.

    Returns
    -------
    flint.arb_mat
        The d×d ball enclosure.
    """
    d = Xs.nrows()
    Xp = MatPoly.constant(Xs)
    Q = MatPoly(d, d)
    for C, A in heads:
        T = C @ (Xp @ A @ Xp)
        Q = Q + T + MatPoly(d, d, {mono: M.transpose() for mono, M in T.terms.items()})
    tr = MatPoly(1, 1, {mono: flint.fmpq_mat(1, 1, [sum((M[i, i] for i in range(d)), flint.fmpq(0))])
                        for mono, M in Q.terms.items()})
    r = Q - Xp.times(tr)
    shift = kappa * (sum((Xs[i, i] for i in range(d)), flint.fmpq(0)) - 1)
    if shift != 0:
        r = r - MatPoly.constant(Xs * shift)
    out = flint.arb_mat(d, d)
    if not r.terms:
        return out
    bs = bernstein_coefficients(r, box)
    for i in range(d):
        for j in range(d):
            vals = [b[i, j] for b in bs]
            out[i, j] = interval(min(vals), max(vals))
    return out


def _energy(z, Wb):
    return (z.transpose() * Wb * z)[0, 0]


def _residual_ok(rv, W, mu, rho) -> bool:
    return bool(_energy(rv, flint.arb_mat(W)) < flint.arb(mu) * flint.arb(mu) * flint.arb(rho))


def ray_end(pairs, F, S_end, t_end, data, fail, residual):
    """The ``tube-ray`` end condition (checks 2–7 of :mod:`~symbolic_tf.certify.check.kinds.tube_ray`) for
    every head in the ball pairs: returns (lower, upper) arb bounds of T*, valid at every p of the cell.

    Parameters
    ----------
    pairs : list of (flint.arb_mat, flint.arb_mat)
        The heads in balls over the cell (:func:`ball_heads`).
    F : flint.arb_mat or None
        The drift in balls.
    S_end : flint.arb_mat
        The tube's end box of Σ.
    t_end : flint.fmpq
        The exact end time t_N.
    data : dict
        X_star, W, rho, mu, R, prec.
    fail : callable
        ``fail(msg)`` raises.
    residual : callable
        ``residual(X_star, kappa)``: a ball d×d matrix containing Q_p(X*) − (tr Q_p(X*) + κ(tr X* − 1))·X* for
        every p of the cell (:func:`residual_ball`).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        (t_N + u₁/c_hi, t_N + u₁/c_lo), outward.
    """
    d = S_end.nrows()
    m = d * (d + 1) // 2
    prec = int_in(data["prec"], "prec", 64, 4096, fail)
    Xs, W, _Winv, rho, mu, R = ellipsoid_data(data, "X_star", d, m + 1, fail)
    up = svec_pairs(d)
    with working_precision(prec):
        bf = ProjectiveField(pairs, F, flint.arb_mat)
        rX = residual(Xs, flint.fmpq(0))
        rv = flint.arb_mat(m + 1, 1, [rX[i, j] for i, j in up] + [0])
        if not _residual_ok(rv, W, mu, rho):
            fail("the ray point's residual is too large over the cell (rᵀWr < mu²·rho fails)")
        trS = trace(S_end)
        if not (trS > 0):
            fail("tr Σ(t_N) is not positive on the tube's end box")
        u1 = 1 / trS
        X1 = S_end * u1
        H = centre_box(Xs, R, up)
        half = flint.arb(R[m] / 2)
        uH = half + flint.arb(0, half.upper())
        Wb = flint.arb_mat(W)
        c = bf.c(H, uH)
        if not (trace(H) > 0):
            fail("tr X is not positive over the box")
        if not (c > 0):
            fail("the growth rate c = tr Q(X) + u·tr L(X) is not positive over the box and the cell")
        check_contraction(flint.arb_mat(bf.jacobian(H, uH, svec_basis(d))), Wb, mu, fail)
        z1 = flint.arb_mat(m + 1, 1, [X1[i, j] - Xs[i, j] for i, j in up] + [u1])
        if not (_energy(z1, Wb) < flint.arb(rho)):
            fail("the tube's end is not inside the certified ellipsoid (z₁ᵀWz₁ < rho fails)")
        t = flint.arb(t_end)
        u_lo = max(u1.lower(), flint.arb(0))
        lo = flint.arb(t.lower()) + flint.arb(u_lo) / flint.arb(c.upper())
        hi = flint.arb(t.upper()) + flint.arb(u1.upper()) / flint.arb(c.lower())
        return lo, hi


_UP2 = [(0, 0), (0, 1), (1, 1)]


def _isotropic_balls(A):
    """The two trace-one rank-one points ww ᵀ/(wᵀw) on the isotropic lines of A + Aᵀ, each by one formula
    in balls (so the k-th ball contains the k-th point of every A in the ball), or [] when b² > ac or
    c ≠ 0 is not proved (c exactly 0 uses the formula with w = (0, 1))."""
    S = A + A.transpose()
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    if not (b * b - a * c > 0):
        return []
    if c.is_exact() and c == 0:
        if not (b != 0):
            return []
        ws = [(flint.arb(0), flint.arb(1)), (flint.arb(1), -a / (2 * b))]
    elif c > 0 or c < 0:
        sq = (b * b - a * c).sqrt()
        ws = [(flint.arb(1), (-b + sq) / c), (flint.arb(1), (-b - sq) / c)]
    else:
        return []
    out = []
    for w0, w1 in ws:
        n = w0 * w0 + w1 * w1
        out.append(flint.arb_mat([[w0 * w0 / n, w0 * w1 / n], [w0 * w1 / n, w1 * w1 / n]]))
    return out


def _phi_jacobian(pf, X, kappa, basis, up):
    """The ball Jacobian of Φ(X) = Q(X) − (tr Q(X) + κ(tr X − 1))·X at X (svec-upper rows and columns), any d."""
    QX = pf.Q(X)
    ct = trace(QX) + (trace(X) - 1) * kappa
    out = flint.arb_mat(len(up), len(basis))
    for c, E in enumerate(basis):
        dQE = pf.dQ(X, E)
        top = dQE - X * (trace(dQE) + trace(E) * kappa) - E * ct
        for r, (i, j) in enumerate(up):
            out[r, c] = top[i, j]
    return out


def centred_jacobian(pf, Xs, H, R, kappa) -> flint.arb_mat:
    """A ball enclosure of the Jacobian DΦ(X) of Φ(X) = Q(X) − (tr Q(X) + κ(tr X − 1))·X (svec-upper coordinates,
    any d) for every X of the box H = X* ± R and every head in the ball pairs, by the mean-value (centred) form

        DΦ(X)[E] ∈ DΦ(X*)[E] + Σ_k [−R_k, R_k]·D²Φ(H)[E, E_k],

    D²Φ(X)[E, G] = D²Q[E, G] − (tr D²Q[E, G])·X − Dc(X)[E]·G − Dc(X)[G]·E, Dc(X)[E] = tr DQ(X)[E] + κ tr E,
    D²Q[E, G] = Σ_h (C_hEA_hG + C_hGA_hE) + transpose (constant in X).  Sound: for X in the box (convex),
    DΦ(X)[E] − DΦ(X*)[E] = ∫₀¹ D²Φ(X* + s(X − X*))[E, X − X*] ds with X − X* = Σ_k z_k E_k, |z_k| ≤ R_k, and the
    ball D²Φ(H) contains D²Φ at every point of the segment.  The direct ball evaluation over H counts X once per
    occurrence and overestimates ~R·(number of occurrences); the centred form's excess is second order in R.

    Parameters
    ----------
    pf : ProjectiveField
        The field over ball matrices (the heads in balls over the cell or a sub-box).
    Xs : flint.fmpq_mat
        The exact centre X*.
    H : flint.arb_mat
        The box X* ± R (:func:`~symbolic_tf.certify.check.kinds.tube_ray.centre_box`).
    R : list of flint.fmpq
        The radii, one per svec-upper coordinate.
    kappa : flint.arb
        κ ≥ 0.

    Returns
    -------
    flint.arb_mat
        The m×m ball Jacobian, m = d(d + 1)/2 (rows and columns in svec-upper coordinates).
    """
    d = Xs.nrows()
    up, basis = svec_pairs(d), svec_basis(d)
    out = _phi_jacobian(pf, flint.arb_mat(Xs), kappa, basis, up)

    def dc(E):
        return trace(pf.dQ(H, E)) + trace(E) * kappa

    dcs = [dc(E) for E in basis]
    for c, E in enumerate(basis):
        for k, G in enumerate(basis):
            acc = None
            for C, A in pf.pairs:
                t = C * E * A * G + C * G * A * E
                acc = t if acc is None else acc + t
            D2Q = acc + acc.transpose()
            D2 = D2Q - H * trace(D2Q) - G * dcs[c] - E * dcs[k]
            z = flint.arb(0, flint.arb(R[k]).upper())
            for r, (i, j) in enumerate(up):
                out[r, c] += D2[i, j] * z
    return out


def centred_ray_jacobian(pf, Xs, H, R, uH) -> flint.arb_mat:
    """A ball enclosure of the Jacobian of the projective field Φ(X, u) = (Q(X) − c·X, −c·u), c = tr Q(X), of a flow
    without drift, over the box H = X* ± R (X) × uH (u ≥ 0), in the coordinates (svec-upper X, u):

        [[DΦ_X(X),        0   ],
         [−u·Dc(X)[E_k],  −c(X)]],

    the X-block by :func:`centred_jacobian` (κ = 0; the u-column is L(X) − tr L(X)·X = 0 without drift), the last
    row by direct ball evaluation over H × uH.

    Parameters
    ----------
    pf : ProjectiveField
        The field (no drift) over ball matrices.
    Xs : flint.fmpq_mat
        The exact centre.
    H : flint.arb_mat
        The box X* ± R.
    R : list of flint.fmpq
        The radii of the X coordinates (extra ones ignored).
    uH : flint.arb
        The ball of u.

    Returns
    -------
    flint.arb_mat
        The (m + 1)×(m + 1) ball Jacobian.
    """
    d = Xs.nrows()
    m = d * (d + 1) // 2
    top = centred_jacobian(pf, Xs, H, R, flint.arb(0))
    out = flint.arb_mat(m + 1, m + 1)
    for r in range(m):
        for c in range(m):
            out[r, c] = top[r, c]
    for c, E in enumerate(svec_basis(d)):
        out[m, c] = -uH * trace(pf.dQ(H, E))
    out[m, m] = -trace(pf.Q(H))
    return out


def cluster_end(pairs, F, S_end, t_end, data, fail, residual):
    """The ``tube-cluster`` end condition (checks 2–7 of :mod:`~symbolic_tf.certify.check.kinds.tube_cluster`)
    for every head in the ball pairs (d = 2, one head, no drift): returns the bound B of ∫|c̃|.

    Parameters
    ----------
    pairs : list of (flint.arb_mat, flint.arb_mat)
        The head in balls over the cell.
    F : flint.arb_mat or None
        The drift (must be None).
    S_end : flint.arb_mat
        The tube's end box of Σ.
    t_end : flint.fmpq
        The end time (unused: the claim has no time).
    data : dict
        X_star, W, rho, mu, R, kappa, prec.
    fail : callable
        ``fail(msg)`` raises.
    residual : callable
        As for :func:`ray_end`.

    Returns
    -------
    flint.arb
        B = √(gᵀW⁻¹g)·√(e₁ᵀWe₁)/mu, finite.
    """
    from ..krawczyk_box import rat

    if len(pairs) != 1 or F is not None or S_end.nrows() != 2:
        fail("the tube-cluster end covers one head in d = 2 without drift")
    prec = int_in(data["prec"], "prec", 64, 4096, fail)
    kappa = rat(data["kappa"])
    if not kappa >= 0:
        fail("kappa must be ≥ 0")
    Xs, W, Winv, rho, mu, R = ellipsoid_data(data, "X_star", 2, 3, fail)
    with working_precision(prec):
        pf = ProjectiveField(pairs, None, flint.arb_mat)
        rX = residual(Xs, kappa)
        rv = flint.arb_mat(3, 1, [rX[i, j] for i, j in _UP2])
        if not _residual_ok(rv, W, mu, rho):
            fail("the centre's residual is too large over the cell (rᵀWr < mu²·rho fails)")
        H = centre_box(Xs, R, _UP2)
        _J, grad = jacobian_and_gradient(pf, H, flint.arb(kappa), svec_basis(2))
        Wb = flint.arb_mat(W)
        check_contraction(centred_jacobian(pf, Xs, H, R, flint.arb(kappa)), Wb, mu, fail)
        tr = S_end[0, 0] + S_end[1, 1]
        if not (tr > 0):
            fail("tr Σ(t_N) is not positive on the tube's end box")
        X1 = S_end * (1 / tr)

        def energy(X):
            return _energy(flint.arb_mat(3, 1, [X[i, j] - Xs[i, j] for i, j in _UP2]), Wb)

        if not (energy(X1) < flint.arb(rho)):
            fail("the tube's end is not inside the certified ellipsoid")
        inside = [P for P in _isotropic_balls(pairs[0][1]) if energy(P) < flint.arb(rho)]
        if not inside:
            fail("no isotropic rank-one point of A + Aᵀ lies in the certified ellipsoid for every p of the cell")
        e1 = flint.arb_mat(3, 1, [X1[i, j] - inside[0][i, j] for i, j in _UP2])
        g = flint.arb_mat(3, 1, grad)
        gWg = (g.transpose() * flint.arb_mat(Winv) * g)[0, 0]
        B = flint.arb(gWg.upper()).sqrt() * flint.arb(_energy(e1, Wb).upper()).sqrt() / flint.arb(mu)
        if not B.is_finite():
            fail("the bound on ∫|c̃| is not finite")
        return B


def frobenius_sq(M: MatPoly) -> MatPoly:
    """‖M(x, y)‖_F² as a scalar polynomial.

    Parameters
    ----------
    M : MatPoly
        A matrix polynomial.

    Returns
    -------
    MatPoly
        The 1×1 polynomial Σ_rc M_rc².
    """
    out = MatPoly(1, 1)
    for r in range(M.nrows):
        for c in range(M.ncols):
            e = MatPoly(1, 1, {mono: flint.fmpq_mat(1, 1, [C[r, c]]) for mono, C in M.terms.items()})
            out = out + e @ e
    return out


def upper_bound(p: MatPoly, box) -> flint.fmpq:
    """The largest exact Bernstein coefficient of a scalar polynomial on the box (≥ its maximum there).

    Parameters
    ----------
    p : MatPoly
        A 1×1 polynomial.
    box : sequence of 4 flint.fmpq
        The closed box.

    Returns
    -------
    flint.fmpq
        The bound.
    """
    if not p.terms:
        return flint.fmpq(0)
    return max(b[0, 0] for b in bernstein_coefficients(p, box))


def collapse_bounds(heads, Fp, box, data, d, fail):
    """Checks 1–2 of :mod:`~symbolic_tf.certify.check.kinds.tube_collapse` for every p of the closed box:
    P = Pᵀ, P − p_lo·I ⪰ 0 (exact); −(PF(p) + F(p)ᵀP) − lam·P ⪰ 0 on the box (exact Bernstein coefficients on
    2^split × 2^split sub-boxes); n_h² ≥ max‖PC_h‖_F²·max‖A_h‖_F² (Bernstein upper bounds); c·p_lo² ≥ 2Σn_h.
    Returns (P, lam/c): {tr(PΣ) < lam/c} is forward invariant and collapses to 0 at every p.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        The exact heads.
    Fp : MatPoly
        The exact drift (no term fails: the origin is not attracting without a drift).
    box : sequence of 4 flint.fmpq
        The closed cell.
    data : dict
        P, lam, p_lo, n, c, split.
    d : int
        The dimension.
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq)
        (P, lam/c).
    """
    from ..krawczyk_box import rat, square
    from .cell_lmi import MAX_SPLIT, sign_on_box

    if not Fp.terms:
        fail("the collapse end needs a drift F")
    P = square(data["P"], d, "P", fail)
    if P != P.transpose():
        fail("P is not symmetric")
    lam, p_lo, c = rat(data["lam"]), rat(data["p_lo"]), rat(data["c"])
    n = [rat(x) for x in data["n"]]
    split = int_in(data["split"], "split", 0, MAX_SPLIT, fail)
    if len(n) != len(heads):
        fail(f"n needs one bound per head ({len(heads)})")
    if not (p_lo > 0 and lam > 0 and c > 0 and all(x >= 0 for x in n)):
        fail("p_lo, lam, c must be positive and every n_h ≥ 0")
    eye = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    if not definiteness(P - eye * p_lo).psd:
        fail("P − p_lo·I is not positive semidefinite")
    Pp = MatPoly.constant(P)
    form = MatPoly(d, d)
    for mono, Fm in Fp.terms.items():
        form._accumulate(mono, -(P * Fm + Fm.transpose() * P))
    form = form - MatPoly.constant(P * lam)
    if not sign_on_box(form, box, +1, split):
        fail("−(PF + FᵀP) − lam·P ⪰ 0 fails on the cell")
    for k, ((C, A), nk) in enumerate(zip(heads, n)):
        if nk * nk < upper_bound(frobenius_sq(Pp @ C), box) * upper_bound(frobenius_sq(A), box):
            fail(f"the head bound n[{k}]² < max‖PC‖_F²·max‖A‖_F² on the cell")
    if c * p_lo * p_lo < 2 * sum(n, flint.fmpq(0)):
        fail("c·p_lo² < 2·Σ n_h")
    return P, lam / c


def sub_boxes(box, k: int) -> list:
    """The 2^k × 2^k closed sub-boxes of a closed box (exact ends), row by row; k = 0 gives [box].

    Parameters
    ----------
    box : sequence of 4 flint.fmpq
        (x₀, x₁, y₀, y₁).
    k : int
        The number of halvings per axis.

    Returns
    -------
    list of tuple of 4 flint.fmpq
        The sub-boxes (x₀ + iΔx, x₀ + (i + 1)Δx, y₀ + jΔy, y₀ + (j + 1)Δy), Δ = width/2^k; their union is
        the box.
    """
    x0, x1, y0, y1 = (flint.fmpq(b) for b in box)
    n = 2 ** k
    dx, dy = (x1 - x0) / n, (y1 - y0) / n
    xs = [x0 + dx * i for i in range(n)] + [x1]
    ys = [y0 + dy * j for j in range(n)] + [y1]
    return [(xs[i], xs[i + 1], ys[j], ys[j + 1]) for j in range(n) for i in range(n)]


def _pieces(pairs, F, data, fail, cell):
    """The (pairs, drift, residual) on which an ellipsoid end is tested: the whole cell's, or with ``psplit`` = k
    those of each of the 2^k × 2^k closed sub-boxes of the cell (each p of the cell lies in one of them, and the
    tube's end box S_N holds Σ(t_N; p) for every p of the cell, so the point end condition at p follows from the
    test on its sub-box)."""
    k = int_in(data.get("psplit", 0), "psplit", 0, MAX_PSPLIT, fail)
    if k == 0:
        return None
    if cell is None:
        fail("psplit needs the cell's exact heads")
    heads, Fp, box = cell[:3]
    out = []
    for sub in sub_boxes(box, k):
        sp, sF = ball_heads(heads, Fp, sub)
        out.append((sp, sF, lambda Xs, kappa, sub=sub: residual_ball(heads, Xs, kappa, sub)))
    return out


def _ray(pairs, F, S_end, t_end, data, fail, residual, cell=None):
    if data.get("space", "sigma") == "projective" and "X_dx" not in data:
        fail("a projective tube-ray end needs the moving centre (X_dx, X_dy)")
    if "X_dx" in data or "X_dy" in data:
        if cell is None or len(cell) < 4 or cell[3] is None:
            fail("the moving centre needs the cell and the tube's end parallelepiped (method qr)")
        return "BLOWUP", moving_ray_end(*cell[:3], cell[3], t_end, data, fail)
    pieces = _pieces(pairs, F, data, fail, cell)
    if pieces is None:
        return "BLOWUP", ray_end(pairs, F, S_end, t_end, data, fail, residual)
    # T* at p lies in its sub-box's bracket, so in [min of the lower ends, max of the upper ends]
    brackets = [ray_end(sp, sF, S_end, t_end, data, fail, sr) for sp, sF, sr in pieces]
    lo, hi = brackets[0]
    for b_lo, b_hi in brackets[1:]:
        lo = b_lo if b_lo.lower() < lo.lower() else lo
        hi = b_hi if b_hi.upper() > hi.upper() else hi
    return "BLOWUP", (lo, hi)


def moving_centre(Xs, Gx, Gy, box) -> MatPoly:
    """The ellipsoid centre X*(p) = X* + (x − x_c)·G_x + (y − y_c)·G_y (exact; (x_c, y_c) the centre of the closed
    box) as a matrix polynomial.

    Parameters
    ----------
    Xs, Gx, Gy : flint.fmpq_mat
        The centre at the cell's centre and its slopes.
    box : sequence of 4 flint.fmpq
        The closed cell.

    Returns
    -------
    MatPoly
        The affine X*(x, y).
    """
    xc, yc = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
    return MatPoly.affine(Xs - Gx * xc - Gy * yc, Gx, Gy)


def residual_poly_ball(heads, Xp: MatPoly, kappa, box) -> flint.arb_mat:
    """A ball matrix containing r(p) = Q_p(X*(p)) − (tr Q_p(X*(p)) + κ(tr X*(p) − 1))·X*(p) for every p of the
    closed box, for a centre X*(p) that is itself a matrix polynomial (exact Bernstein ranges, as
    :func:`residual_ball`).

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        The exact heads.
    Xp : MatPoly
        The centre X*(x, y).
    kappa : flint.fmpq
        κ ≥ 0.
    box : sequence of 4 flint.fmpq
        The closed box.

    Returns
    -------
    flint.arb_mat
        The d×d ball enclosure.
    """
    d = Xp.nrows

    def tr(P):
        return MatPoly(1, 1, {mono: flint.fmpq_mat(1, 1, [sum((M[i, i] for i in range(d)), flint.fmpq(0))])
                              for mono, M in P.terms.items()})

    Q = MatPoly(d, d)
    for C, A in heads:
        T = C @ (Xp @ A @ Xp)
        Q = Q + T + MatPoly(d, d, {mono: M.transpose() for mono, M in T.terms.items()})
    shift = tr(Xp) - MatPoly(1, 1, {(0, 0): flint.fmpq_mat(1, 1, [1])})
    r = Q - Xp.times(tr(Q)) - Xp.times(shift.times(kappa))
    out = flint.arb_mat(d, d)
    if not r.terms:
        return out
    bs = bernstein_coefficients(r, box)
    for i in range(d):
        for j in range(d):
            vals = [b[i, j] for b in bs]
            out[i, j] = interval(min(vals), max(vals))
    return out


def end_offset_energy(state, Xp: MatPoly, Wb, d: int = 2, with_u: bool = False):
    """A ball containing zᵀWz, z = svec-upper(Σ/tr Σ − X*(p)), for every (Σ, p) of the tube's end parallelepiped
    c + B·r (r ∈ the coordinate box; coordinates (svec-upper Σ, x, y)), keeping the correlation of Σ with p:

        Σ − tr Σ·X*(p) = D₀ + Σ_k r_k·D_k − (Σ_k r_k tr Σ_k)·(Σ_l r_l (x_l G_x + y_l G_y)),
        D₀ = Σ_c − tr Σ_c·X*(p_c),  D_k = Σ_k − tr Σ_k·X*(p_c) − tr Σ_c·(x_k G_x + y_k G_y),

    (Σ_c, p_c) the centre's blocks, (Σ_k, x_k, y_k) those of the k-th column of B; exact for X* affine in p
    (:func:`moving_centre`), each r_k one ball for all its occurrences in a product of sums.

    Parameters
    ----------
    state : symbolic_tf.certify.check.tube_replay.TubeState
        The tube's end state ("qr": center, basis, coords).
    Xp : MatPoly
        The affine centre X*(x, y).
    Wb : flint.arb_mat
        W in balls (m×m, m = d(d + 1)/2; (m + 1)×(m + 1) with ``with_u``).
    d : int
        The dimension of Σ.
    with_u : bool
        Whether z has the last coordinate u = 1/tr Σ (the ray end's projective scale).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        (zᵀWz, tr Σ) as balls over the parallelepiped.
    """
    up = svec_pairs(d)
    m = len(up)
    c, B, r = state.center, state.basis, state.coords
    n = B.ncols()
    Gx, Gy = Xp.terms.get((1, 0)), Xp.terms.get((0, 1))
    C0 = Xp.terms.get((0, 0))
    zero = flint.fmpq_mat(d, d)
    Gx, Gy, C0 = (flint.arb_mat(G if G is not None else zero) for G in (Gx, Gy, C0))

    def sym(col):
        S = flint.arb_mat(d, d)
        for k, (i, j) in enumerate(up):
            S[i, j] = S[j, i] = col(k)
        return S

    Sc = sym(lambda k: c[k, 0])
    xc, yc = c[m, 0], c[m + 1, 0]
    Xc = C0 + Gx * xc + Gy * yc
    trc = trace(Sc)
    D = Sc - Xc * trc
    trS = trc
    lin_tr = flint.arb(0)
    lin_G = flint.arb_mat(d, d)
    for k in range(n):
        Sk = sym(lambda q, k=k: B[q, k])
        trk = trace(Sk)
        Gk = Gx * B[m, k] + Gy * B[m + 1, k]
        D += (Sk - Xc * trk - Gk * trc) * r[k, 0]
        trS += trk * r[k, 0]
        lin_tr += trk * r[k, 0]
        lin_G += Gk * r[k, 0]
    D -= lin_G * lin_tr
    z = flint.arb_mat(m + int(with_u), 1, [D[i, j] / trS for i, j in up] + ([1 / trS] if with_u else []))
    return _energy(z, Wb), trS


def moving_cluster_end(heads, Fp, box, state, data, fail):
    """The ``tube-cluster`` end with a centre that moves with p (fields ``X_dx``, ``X_dy``): for every p of the
    closed cell the ellipsoid 𝓔_p = {zᵀWz ≤ rho}, z = svec(X − X*(p)), X*(p) = :func:`moving_centre`, is checked as
    in :func:`cluster_end` — its residual r(p) = Φ_p(X*(p)) (second order in the cell's width when X*(p) follows
    the isotropic point) by exact Bernstein ranges, the contraction of Φ_p over the box X*(p) ± R (the centred
    Jacobian over the hull of these boxes), an isotropic rank-one point of A(p) + A(p)ᵀ in 𝓔_p — on each of the
    2^psplit × 2^psplit closed sub-boxes, and the tube's end in 𝓔_p by :func:`end_offset_energy` on the end
    parallelepiped (which keeps Σ(t_N; p) tied to p).  Then at every p the flow's X(t_N) lies in a forward
    invariant contracting ellipsoid whose unique equilibrium is an isotropic rank-one line: CLUSTERING of rank 1.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        The exact heads (one, d = 2).
    Fp : MatPoly
        The exact drift (must have no term).
    box : sequence of 4 flint.fmpq
        The closed cell.
    state : symbolic_tf.certify.check.tube_replay.TubeState or None
        The tube's end state ("qr"); None checks the ellipsoid alone (a search's region test — never a
        certificate: :func:`_cluster` refuses a missing state).
    data : dict
        X_star, X_dx, X_dy, W, rho, mu, R, kappa, prec, psplit.
    fail : callable
        ``fail(msg)`` raises.
    """
    from ..krawczyk_box import rat, square

    if len(heads) != 1 or Fp.terms or heads[0][0].nrows != 2:
        fail("the tube-cluster end covers one head in d = 2 without drift")
    if state is not None and (state.coords is None or state.basis is None):
        fail("the moving centre needs the tube's end parallelepiped (method qr)")
    prec = int_in(data["prec"], "prec", 64, 4096, fail)
    kappa = rat(data["kappa"])
    if not kappa >= 0:
        fail("kappa must be ≥ 0")
    Xs, W, Winv, rho, mu, R = ellipsoid_data(data, "X_star", 2, 3, fail)
    Gx, Gy = square(data["X_dx"], 2, "X_dx", fail), square(data["X_dy"], 2, "X_dy", fail)
    if Gx != Gx.transpose() or Gy != Gy.transpose():
        fail("X_dx and X_dy must be symmetric")
    k = int_in(data.get("psplit", 0), "psplit", 0, MAX_PSPLIT, fail)
    Xp = moving_centre(Xs, Gx, Gy, box)
    with working_precision(prec):
        Wb = flint.arb_mat(W)
        if state is not None:
            energy, trS = end_offset_energy(state, Xp, Wb)
            if not (trS > 0):
                fail("tr Σ(t_N) is not positive on the tube's end parallelepiped")
            if not (energy < flint.arb(rho)):
                fail("the tube's end is not inside the moving ellipsoid")
        for sub in sub_boxes(box, k):
            pairs, _F = ball_heads(heads, Fp, sub)
            rX = residual_poly_ball(heads, Xp, kappa, sub)
            rv = flint.arb_mat(3, 1, [rX[i, j] for i, j in _UP2])
            if not _residual_ok(rv, W, mu, rho):
                fail("the moving centre's residual is too large on a sub-box (rᵀWr < mu²·rho fails)")
            hx, hy = (sub[1] - sub[0]) / 2, (sub[3] - sub[2]) / 2
            Xc = Xp.at((sub[0] + sub[1]) / 2, (sub[2] + sub[3]) / 2)
            spread = [abs(Gx[i, j]) * hx + abs(Gy[i, j]) * hy for i, j in _UP2]
            Rw = [R[q] + spread[q] for q in range(3)]
            pf = ProjectiveField(pairs, None, flint.arb_mat)
            H = centre_box(Xc, Rw, _UP2)
            check_contraction(centred_jacobian(pf, Xc, H, Rw, flint.arb(kappa)), Wb, mu, fail)
            _J, grad = jacobian_and_gradient(pf, H, flint.arb(kappa), svec_basis(2))
            if not all(g.is_finite() for g in grad):
                fail("the gradient of the growth rate c̃ is not bounded over the box")
            Xball = centre_box(Xc, spread, _UP2)
            inside = [P for P in _isotropic_balls(pairs[0][1])
                      if _energy(flint.arb_mat(3, 1, [P[i, j] - Xball[i, j] for i, j in _UP2]), Wb) < flint.arb(rho)]
            if not inside:
                fail("no isotropic rank-one point of A + Aᵀ lies in the moving ellipsoid on a sub-box")


def projective_ray_offset(state, Xp: MatPoly, Wb, d: int):
    """A ball containing zᵀWz, z = (svec(X − X*(p)), u), for every state (X, x, y, u, s) of the end parallelepiped
    c + B·r of a projective ray tube (:class:`~symbolic_tf.certify.check.param_tube.ProjRayParamField`), and balls
    of u and s there: z is affine in r (X*(p) is affine in p), so z = z(c) + Σ_k r_k·z_k with each r_k once.

    Parameters
    ----------
    state : symbolic_tf.certify.check.tube_replay.TubeState
        The end state ("qr"; coordinates (svec X, x, y, u, s)).
    Xp : MatPoly
        The affine centre X*(x, y).
    Wb : flint.arb_mat
        W in balls ((m + 1)×(m + 1)).
    d : int
        The dimension.

    Returns
    -------
    tuple of flint.arb
        (zᵀWz, u, s).
    """
    up = svec_pairs(d)
    m = len(up)
    c, B, r = state.center, state.basis, state.coords
    zero = flint.fmpq_mat(d, d)
    Gx, Gy, C0 = (flint.arb_mat(Xp.terms[k] if k in Xp.terms else zero) for k in ((1, 0), (0, 1), (0, 0)))

    def z_of(col, affine):
        X = C0 * flint.arb(int(affine)) + Gx * col(m) + Gy * col(m + 1)
        return [col(q) - X[i, j] for q, (i, j) in enumerate(up)] + [col(m + 2)]

    z = z_of(lambda q: c[q, 0], True)
    u, s = c[m + 2, 0], c[m + 3, 0]
    for k in range(B.ncols()):
        zk = z_of(lambda q, k=k: B[q, k], False)
        z = [a + b * r[k, 0] for a, b in zip(z, zk)]
        u += B[m + 2, k] * r[k, 0]
        s += B[m + 3, k] * r[k, 0]
    return _energy(flint.arb_mat(m + 1, 1, z), Wb), u, s


def moving_ray_end(heads, Fp, box, state, t_end, data, fail):
    """The ``tube-ray`` end with a centre that moves with p (fields ``X_dx``, ``X_dy``): for every p of the closed
    cell the ellipsoid 𝓔_p = {zᵀWz ≤ rho}, z = (svec(X − X*(p)), u), X*(p) = :func:`moving_centre`, is checked as in
    :func:`ray_end` — on each of the 2^psplit × 2^psplit closed sub-boxes P: the residual r(p) = Q_p(X*(p)) −
    tr Q_p(X*(p))·X*(p) (zero at the ray of p, so second order in the sub-box's width when X*(p) follows the ray)
    by exact Bernstein ranges, rᵀWr < mu²·rho; the contraction of Φ_p and c > 0, tr X > 0 over the box
    X*(P) ± R × [0, R_u] (X*(P) ⊂ X*(p_P) ± spread, p_P the sub-box's centre) with the heads in balls over P;
    and the tube's end (X₁, u₁) = (Σ/tr Σ, 1/tr Σ) in 𝓔_p by :func:`end_offset_energy` on the end parallelepiped
    (which keeps Σ(t_N; p) tied to p).  At each p this is the point kind's argument with the centre X*(p), so
    T*(p) ∈ [t_N + u₁/c_hi, t_N + u₁/c_lo], with c_lo, c_hi the least and largest bounds of c over the sub-boxes.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        The exact heads.
    Fp : MatPoly
        The exact drift.
    box : sequence of 4 flint.fmpq
        The closed cell.
    state : symbolic_tf.certify.check.tube_replay.TubeState or None
        The tube's end state ("qr"); None checks the ellipsoid alone and returns None (a search's region test).
    t_end : flint.fmpq
        The exact end time t_N.
    data : dict
        X_star, X_dx, X_dy, W, rho, mu, R, prec, psplit.
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    tuple of (flint.arb, flint.arb) or None
        (t_N + u₁/c_hi, t_N + u₁/c_lo), outward.
    """
    from ..krawczyk_box import square

    d = heads[0][0].nrows
    m = d * (d + 1) // 2
    up = svec_pairs(d)
    if state is not None and (state.coords is None or state.basis is None):
        fail("the moving centre needs the tube's end parallelepiped (method qr)")
    prec = int_in(data["prec"], "prec", 64, 4096, fail)
    Xs, W, _Winv, rho, mu, R = ellipsoid_data(data, "X_star", d, m + 1, fail)
    Gx, Gy = square(data["X_dx"], d, "X_dx", fail), square(data["X_dy"], d, "X_dy", fail)
    if Gx != Gx.transpose() or Gy != Gy.transpose():
        fail("X_dx and X_dy must be symmetric")
    k = int_in(data.get("psplit", 0), "psplit", 0, MAX_PSPLIT, fail)
    Xp = moving_centre(Xs, Gx, Gy, box)
    zero = flint.fmpq(0)
    with working_precision(prec):
        Wb = flint.arb_mat(W)
        if state is not None:
            # the end first (cheap): a search calls this at every step of its tube
            if data.get("space", "sigma") == "projective":
                energy, u1, t = projective_ray_offset(state, Xp, Wb, d)
                if not (u1 > 0):
                    fail("u(τ_N) is not positive on the tube's end parallelepiped")
            else:
                energy, trS = end_offset_energy(state, Xp, Wb, d, with_u=True)
                if not (trS > 0):
                    fail("tr Σ(t_N) is not positive on the tube's end parallelepiped")
                u1, t = 1 / trS, flint.arb(t_end)
            if not (energy < flint.arb(rho)):
                fail("the tube's end is not inside the moving ellipsoid")
        c_lo = c_hi = None
        half = flint.arb(R[m] / 2)
        uH = half + flint.arb(0, half.upper())
        for sub in sub_boxes(box, k):
            pairs, F = ball_heads(heads, Fp, sub)
            rX = residual_poly_ball(heads, Xp, zero, sub)
            rv = flint.arb_mat(m + 1, 1, [rX[i, j] for i, j in up] + [0])
            if not _residual_ok(rv, W, mu, rho):
                fail("the moving ray point's residual is too large on a sub-box (rᵀWr < mu²·rho fails)")
            hx, hy = (sub[1] - sub[0]) / 2, (sub[3] - sub[2]) / 2
            Xc = Xp.at((sub[0] + sub[1]) / 2, (sub[2] + sub[3]) / 2)
            Rw = [R[q] + abs(Gx[i, j]) * hx + abs(Gy[i, j]) * hy for q, (i, j) in enumerate(up)]
            bf = ProjectiveField(pairs, F, flint.arb_mat)
            H = centre_box(Xc, Rw, up)
            if not (trace(H) > 0):
                fail("tr X is not positive over a sub-box's box")
            c = bf.c(H, uH)
            if not (c > 0):
                fail("the growth rate c = tr Q(X) + u·tr L(X) is not positive over a sub-box's box")
            J = (centred_ray_jacobian(bf, Xc, H, Rw, uH) if F is None
                 else flint.arb_mat(bf.jacobian(H, uH, svec_basis(d))))
            check_contraction(J, Wb, mu, fail)
            c_lo = c.lower() if c_lo is None else min(c_lo, c.lower())
            c_hi = c.upper() if c_hi is None else max(c_hi, c.upper())
        if state is None:
            return None
        u_lo = max(u1.lower(), flint.arb(0))
        lo = flint.arb(t.lower()) + flint.arb(u_lo) / flint.arb(c_hi)
        hi = flint.arb(t.upper()) + flint.arb(u1.upper()) / flint.arb(c_lo)
        return lo, hi


def _cluster(pairs, F, S_end, t_end, data, fail, residual, cell=None):
    if "X_dx" in data or "X_dy" in data:
        if cell is None or len(cell) < 4 or cell[3] is None:
            fail("the moving centre needs the cell and the tube's end parallelepiped (method qr)")
        moving_cluster_end(*cell[:3], cell[3], data, fail)
        return "CLUSTERING", {"rank": 1}
    pieces = _pieces(pairs, F, data, fail, cell)
    for sp, sF, sr in (pieces or [(pairs, F, residual)]):
        cluster_end(sp, sF, S_end, t_end, data, fail, sr)
    return "CLUSTERING", {"rank": 1}


def _collapse(pairs, F, S_end, t_end, data, fail, residual, cell=None):
    from .tube_collapse import end_inside

    heads, Fp, box = cell[:3]
    P, level = collapse_bounds(heads, Fp, box, data, S_end.nrows(), fail)
    if not end_inside(P, level, S_end, data["tube_prec"]):
        fail("the tube's end is not inside {tr(PΣ) < lam/c}")
    return "CLUSTERING", {"rank": 0}


#: end kind → its condition on (S_N, the cell's ball heads): (regime, params); BLOWUP: the arb bounds of T*
END_KINDS = {"tube-ray": _ray, "tube-cluster": _cluster, "tube-collapse": _collapse}


class ParamTubeChecker(CellChecker):
    """Checks the ``cell-tube-param`` cells of one map spec (the polynomial heads are built once).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec (:func:`route_reason` is None).
    """

    kind_name = KIND
    fail = staticmethod(_fail)

    def __init__(self, spec):
        why = route_reason(spec)
        if why is not None:
            _fail(why)
        poly = LmiCellChecker(spec)
        self.heads, self.Fp, self.d = poly.heads, poly.F, poly.d
        self.cov = spec.cov_affine()
        self.S = MatPoly.affine(*self.cov)
        self.S0 = self.S.constant_term()
        if not definiteness(self.S0).psd:
            _fail("Σ₀ is not positive semidefinite")
        self.field = ParamField(self.heads, self.Fp, self.d)

    def residual(self, box):
        """The residual enclosure of the cell (:func:`residual_ball` with the checker's heads).

        Parameters
        ----------
        box : tuple of 4 flint.fmpq
            The closed cell.

        Returns
        -------
        callable
            ``residual(X_star, kappa)`` → the ball d×d matrix.
        """
        return lambda Xs, kappa: residual_ball(self.heads, Xs, kappa, box)

    def end_box(self, box, data: dict, end: str = "tube-cluster"):
        """Replay the stored tube from {Σ₀} × (closed box): the end box of Σ and the exact times.

        Parameters
        ----------
        box : tuple of 4 flint.fmpq
            The closed cell.
        data : dict
            ``steps``, ``order``, ``tube_prec``, ``method`` (and ``space``, ``kappa``).
        end : str
            The end kind (a projective tube of the ray end carries u and the time).

        Returns
        -------
        tuple of (flint.arb_mat, list of flint.fmpq)
            S_N and the times.
        """
        from fractions import Fraction

        order = int_in(data["order"], "order", 1, MAX_ORDER, _fail)
        tprec = int_in(data["tube_prec"], "tube_prec", 53, 4096, _fail)
        steps = data["steps"]
        if not isinstance(steps, list) or not steps or len(steps) > MAX_STEPS + 1:
            _fail(f"steps must be a list of 1..{MAX_STEPS + 1} times")
        ts = [fmpq_of(Fraction(s)) for s in steps]
        if ts[0] != 0 or any(b <= a for a, b in zip(ts, ts[1:])):
            _fail("step times must start at 0 and increase strictly")
        field, start = self.field, self.S0
        if data.get("space", "sigma") == "projective":
            # the projective flow of X = Σ/tr Σ (ProjParamField; with the scale u = 1/tr Σ and the time s for the
            # ray end: ProjRayParamField): no drift, a moving centre
            from ..krawczyk_box import rat

            if self.Fp.terms or "kappa" not in data or end not in ("tube-cluster", "tube-ray"):
                _fail("a projective tube needs no drift, kappa and the tube-cluster or tube-ray end")
            if end == "tube-ray" and "X_dx" not in data:
                _fail("a projective tube-ray end needs the moving centre (X_dx, X_dy)")
            kappa = rat(data["kappa"])
            if not kappa >= 0:
                _fail("kappa must be ≥ 0")
            tr0 = sum((self.S0[i, i] for i in range(self.d)), flint.fmpq(0))
            if not tr0 > 0:
                _fail("tr Σ₀ must be positive")
            if end == "tube-ray":
                field, start = ProjRayParamField(self.heads, self.d, kappa), self.S0
            else:
                field, start = ProjParamField(self.heads, self.d, kappa), self.S0 / tr0
        last = []
        end = replay_param_tube(field, start, box, ts, order, data["method"], tprec, _fail,
                                on_state=lambda _t, st: last.__setitem__(slice(None), [st]))
        self.last_state = last[0] if last and data["method"] == "qr" else None
        return sigma_block(end, self.d), ts

    def check_proved(self, cell: dict, box, data: dict):
        """Re-verify a PROVED ``cell-tube-param`` cell (:meth:`CellChecker.check` opened it).

        Parameters
        ----------
        cell : dict
            The stored cell.
        box : tuple of 4 flint.fmpq
            Its closed box.
        data : dict
            Its certificate's data (``end`` and that end's fields).

        Returns
        -------
        symbolic_tf.certify.check.claims.Claim
            The claim derived from the data, bound to the stored cell.
        """
        regime, params = self.derive(box, data)
        return bind_cell_claim(cell, regime, params, _fail)

    def derive(self, box, data: dict, depth: int = 0) -> tuple:
        """The verdict one certificate's data proves at every point of the closed box: one tube and its end, or
        (end ``pieces``) the common verdict of the four quarter boxes, each with its own data (:func:`common_verdict`).

        Parameters
        ----------
        box : tuple of 4 flint.fmpq
            The closed box.
        data : dict
            ``end`` and that end's fields, or ``end = "pieces"`` and ``pieces`` (four data, in the order of
            :func:`sub_boxes` with k = 1).
        depth : int
            How many ``pieces`` levels enclose this box (at most :data:`MAX_PIECE_DEPTH`).

        Returns
        -------
        tuple of (str, dict)
            The regime and its params (``rank``, or the stored ``T_lo``/``T_hi`` after checking that they contain
            the derived bracket).
        """
        end = data.get("end") if isinstance(data, dict) else None
        if end == "pieces":
            validate({k: v for k, v in data.items() if k != "end"}, PIECES_SCHEMA, f"{KIND}.data")
            if depth >= MAX_PIECE_DEPTH:
                _fail(f"pieces nest deeper than {MAX_PIECE_DEPTH} levels")
            subs = sub_boxes(box, 1)
            if len(data["pieces"]) != len(subs):
                _fail(f"pieces must hold one certificate for each of the {len(subs)} quarter boxes")
            return common_verdict([self.derive(sub, piece, depth + 1) for sub, piece in zip(subs, data["pieces"])],
                                  _fail)
        if end not in END_KINDS:
            _fail(f"unknown end kind {str(end)[:40]!r}; known: {', '.join(END_KINDS)}, pieces")
        inner = {k: v for k, v in data.items() if k != "end"}
        validate(inner, SCHEMAS[end], f"{KIND}.data")
        S_end, ts = self.end_box(box, inner, end)
        pairs, F = ball_heads(self.heads, self.Fp, box)
        regime, params = END_KINDS[end](pairs, F, S_end, ts[-1], inner, _fail, self.residual(box),
                                        (self.heads, self.Fp, box, self.last_state))
        if regime == "BLOWUP":
            params = bracket_claim(inner, *params, _fail).params
        return regime, params


def common_verdict(verdicts, fail) -> tuple:
    """The verdict of a box from those of the pieces that cover it: every piece must prove the same regime (and,
    for CLUSTERING, the same rank); a BLOWUP bracket is the hull [min T_lo, max T_hi] of the pieces' brackets.
    Sound: each point p of the closed box lies in a closed piece, whose verdict holds at p, and T*(p) lies in
    that piece's bracket, hence in the hull.

    Parameters
    ----------
    verdicts : list of (str, dict)
        The pieces' (regime, params).
    fail : callable
        ``fail(msg)`` raises.

    Returns
    -------
    tuple of (str, dict)
        The common (regime, params).
    """
    regimes = {r for r, _p in verdicts}
    if len(regimes) != 1:
        fail(f"the pieces' verdicts differ ({', '.join(sorted(regimes))})")
    regime = regimes.pop()
    if regime == "BLOWUP":
        lo = min(fmpq_of(p["T_lo"]) for _r, p in verdicts)
        hi = max(fmpq_of(p["T_hi"]) for _r, p in verdicts)
        return regime, {"T_lo": frac_str(lo), "T_hi": frac_str(hi)}
    ranks = {p.get("rank") for _r, p in verdicts}
    if len(ranks) != 1:
        fail("the pieces' ranks differ")
    return regime, dict(verdicts[0][1])


_T = "tests/soundness/forgeries/test_cell_tube_param.py::"
#: the hypotheses of a whole-cell parameter tube, each checked by :class:`ParamTubeChecker`
HYPOTHESES = (
    Hypothesis("parameter-slice", "The slice varies parameters of a (multi-head) softmax-type flow, d ≤ 4, constant in "
               "depth, without a ReLU term; Σ₀ is the same at every point (the claim is for that Σ₀) and Σ₀ ⪰ 0.",
               _T + "test_a_sigma0_slice"),
    Hypothesis("exact-polynomials", "C_h(x, y), A_h(x, y), F(x, y) are the checker's own heads interpolated exactly "
               "(as for cell-lmi), and the augmented field evaluates them in balls on the state's parameter box.",
               _T + "test_a_changed_end_datum"),
    Hypothesis("whole-cell-set", "The tube of the augmented flow (Σ, x, y), ẋ = ẏ = 0, starts from {Σ₀} × the closed "
               "cell (an exact parallelepiped) and replays by the validated Taylor/Lohner step: every solution exists "
               "on [0, t_N] and ends in S_N for every p of the cell.", _T + "test_moved_to_a_neighbouring_cell"),
    Hypothesis("end-condition", "S_N satisfies the stored end condition (an attracting blow-up ray, or an isotropic "
               "rank-one line in d = 2 without drift) with every head and drift computation done in balls over the "
               "closed cell, so it holds at every p.", _T + "test_a_wider_box"),
    Hypothesis("end-regime", "The regime is derived from the end kind (ray ⇒ BLOWUP, isotropic line ⇒ CLUSTERING of "
               "rank 1), never read.", _T + "test_a_forged_regime"),
    Hypothesis("bracket", "BLOWUP: the stored [T_lo, T_hi] contains the bracket t_N + u₁·[1/c_hi, 1/c_lo] derived "
               "uniformly over the cell.", _T + "test_a_tightened_bracket"),
    *cell_hypotheses(KIND, "a parameter tube", _T, quantifier="quantifier every point of the cell"),
)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, ParamTubeChecker, _fail)
