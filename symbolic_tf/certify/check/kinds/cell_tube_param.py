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
from ....exact.rational import fmpq_of
from .. import Hypothesis, refusal
from ..cells import CellChecker, bind_cell_claim, cell_hypotheses, standalone_cell_kind
from ..cell_enclosures import MatPoly
from ..param_tube import ParamField, ball_eval, interval, replay_param_tube, sigma_block
from ..schema import validate
from ..tube_replay import bracket_claim, int_in, svec_basis, svec_pairs, trace
from .cell_lmi import LmiCellChecker, bernstein_coefficients, route_reason as lmi_route_reason
from .tube_cluster import jacobian_and_gradient
from .tube_ray import ProjectiveField, centre_box, check_contraction, ellipsoid_data

KIND = "cell-tube-param"
MAX_D = 4
MAX_ORDER = 40
MAX_STEPS = 20000

__all__ = ["KIND", "END_KINDS", "HYPOTHESES", "ParamTubeChecker", "route_reason", "ball_heads", "ray_end",
           "cluster_end", "residual_ball", "collapse_bounds", "frobenius_sq", "upper_bound"]

_fail = refusal(KIND)

_TUBE = {"prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int", "method": ("enum", "qr", "direct")}
_ELLIPSOID = {"X_star": "rat[][]", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]"}
SCHEMAS = {"tube-ray": {**_ELLIPSOID, **_TUBE, "T_lo": "rat", "T_hi": "rat"},
           "tube-cluster": {**_ELLIPSOID, **_TUBE, "kappa": "rat"},
           "tube-collapse": {"P": "rat[][]", "lam": "rat", "p_lo": "rat", "n": "rat[]", "c": "rat", "split": "int",
                             **{k: v for k, v in _TUBE.items() if k != "prec"}}}


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
        J, grad = jacobian_and_gradient(pf, H, flint.arb(kappa), svec_basis(2))
        Wb = flint.arb_mat(W)
        check_contraction(flint.arb_mat(J), Wb, mu, fail)
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


def _ray(pairs, F, S_end, t_end, data, fail, residual, cell=None):
    return "BLOWUP", ray_end(pairs, F, S_end, t_end, data, fail, residual)


def _cluster(pairs, F, S_end, t_end, data, fail, residual, cell=None):
    cluster_end(pairs, F, S_end, t_end, data, fail, residual)
    return "CLUSTERING", {"rank": 1}


def _collapse(pairs, F, S_end, t_end, data, fail, residual, cell=None):
    from .tube_collapse import end_inside

    heads, Fp, box = cell
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

    def end_box(self, box, data: dict):
        """Replay the stored tube from {Σ₀} × (closed box): the end box of Σ and the exact times.

        Parameters
        ----------
        box : tuple of 4 flint.fmpq
            The closed cell.
        data : dict
            ``steps``, ``order``, ``tube_prec``, ``method``.

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
        end = replay_param_tube(self.field, self.S0, box, ts, order, data["method"], tprec, _fail)
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
        end = data.get("end")
        if end not in END_KINDS:
            _fail(f"unknown end kind {str(end)[:40]!r}; known: {', '.join(END_KINDS)}")
        inner = {k: v for k, v in data.items() if k != "end"}
        validate(inner, SCHEMAS[end], f"{KIND}.data")
        S_end, ts = self.end_box(box, inner)
        pairs, F = ball_heads(self.heads, self.Fp, box)
        regime, params = END_KINDS[end](pairs, F, S_end, ts[-1], inner, _fail, self.residual(box),
                                        (self.heads, self.Fp, box))
        if regime == "BLOWUP":
            params = bracket_claim(inner, *params, _fail).params
        return bind_cell_claim(cell, regime, params, _fail)


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
