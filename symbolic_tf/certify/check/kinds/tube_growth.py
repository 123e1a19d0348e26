"""Checker of ``tube-growth``: *this* Σ₀ has a global solution that grows at most exponentially —
single-head softmax in d = 2 with a drift F and a general V, when Σ(t)/tr Σ(t) settles on an
isotropic rank-one direction of A (issue 15).

The flow is Σ̇ = Q(Σ) + L(Σ), Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ, L(Σ) = FΣ + ΣFᵀ.  For w ∈ ℝ² with
wᵀAw = 0 (an isotropic direction of A + Aᵀ, :func:`symbolic_tf.certify.check.kinds.tube_cluster.isotropic_points`)
the rank-one trace-one matrix P = wwᵀ/(wᵀw) has PAP = 0, hence **Q(P) = 0 exactly** and
tr P = 1.  Split Σ = sP + Y with s = tr Σ and Y = Σ − (tr Σ)·P (trace zero; coordinates
(Y₀₀, Y₀₁)).  Since Q is quadratic, Q(sP + Y) = s·DQ(P)[Y] + Q(Y), and

    s' = s·φ(Y, v),        φ(Y, v) = tr DQ(P)[Y] + tr L(P) + v·(tr Q(Y) + tr L(Y)),
    Y' = s·G(Y, v),        G(Y, v) = 𝓜Y + b + v·R(Y),                 v := 1/s,

with 𝓜Y = DQ(P)[Y] − tr(DQ(P)[Y])·P, b = L(P) − tr L(P)·P and
R(Y) = Q(Y) − tr Q(Y)·P + L(Y) − tr L(Y)·P (all trace zero).  In the projective coordinates of
:mod:`symbolic_tf.certify.check.kinds.tube_ray` (u = 1/tr Σ = v, X = Σ/tr Σ), Y = (X − P)/u and
c̃ = u·φ: the region below is a *cone* {‖X − P − uY*‖_W ≤ √rho·u} around the centre manifold
of the non-hyperbolic point (P, 0), on which |c̃| ≤ K·u — the bound that a ball
{E(X) ≤ rho} around P cannot give (c̃ is linear in X − P there).

The certificate stores rationals Y_star (2×2 symmetric, trace zero), optionally Y_one (2×2
symmetric, trace zero; absent = 0), W (2×2), rho, mu, R (2 radii), v_max, branch (0/1: which
isotropic point), prec and the tube (steps, order, tube_prec, method).  The ellipsoid's centre
moves with v: c(v) = Y_star + v·Y_one (Y_one ≈ −𝓜⁻¹R(Y*), the first-order term of the centre
manifold, makes the centre's residual O(v²) and admits a much larger v_max).  With
Ĝ(Y, v) = G(Y, v) + v²·φ(Y, v)·Y_one, verified (balls at ``prec`` bits unless "exact"; H = the box
Y_star + [0, v_max]·Y_one ± R, 𝐯 = [0, v_max]):

1. the tube from the embedded exact Σ₀ ⪰ 0 along the stored exact times: Σ(t_N) ∈ S_N;
2. (exact) W ≻ 0, rho, mu, v_max > 0, R_k > 0, rho·(W⁻¹)_kk ≤ R_k², tr Y_star = tr Y_one = 0;
3. over H × 𝐯 the ball Jacobian 𝐉 = D_Y Ĝ (= D_Y G + v²·Y_one·∇_Yφᵀ) satisfies
   −(JᵀW + WJ) − 2·mu·W ≻ 0;
4. r(v) = Ĝ(c(v), v), a polynomial of degree ≤ 5 in v whose coefficients are computed first and
   then evaluated on 𝐯 (a ball over all v ∈ 𝐯), has upper(rᵀWr) < mu²·rho;
5. φ over H × 𝐯 has lower bound λ_lo > 0 and a finite upper bound K;
6. s₁ = tr S_N > 0, s₁·v_max > 1, and Y₁ = S_N − s₁P has e₁ᵀWe₁ < rho, e₁ = y₁ − c(1/s₁).

**Why.**  Let N = {(s, Y): s ≥ 1/v_max, e = y − c(v) has eᵀWe ≤ rho} (𝓔_v the ellipsoid around
c(v), 𝓔_v ⊆ H by 2).  Along the flow v̇ = −v·φ, so ė = Ẏ − v̇·Y_one = s·G + vφ·Y_one = s·Ĝ(Y, v).
For y on the boundary of 𝓔_v, Ĝ(Y, v) = r(v) + J̄e with J̄ the mean of D_Y Ĝ on the segment from
c(v) to y (in 𝐉, convex), so eᵀWĜ ≤ √rho·√(rᵀWr) − mu·rho < 0 (3, 4): with s > 0, e cannot leave
the ellipsoid; and on s = 1/v_max, s' = sφ > 0 (5).  So N is forward invariant and the solution from
(s₁, Y₁) ∈ N (6) stays in N on its whole maximal interval [t_N, T*); there λ_lo ≤ (log s)' ≤ K,
so s(t) ≤ s₁e^{K(t − t_N)} and ‖Σ(t)‖_F ≤ s(t) + ‖Y(t)‖_F (‖P‖_F = 1) is bounded on bounded
intervals: T* = ∞ (the blow-up alternative).  With the tube on [0, t_N], Σ(t) exists for all
t ≥ 0 and ‖Σ(t)‖ ≤ C·e^{Kt}.  Claim GLOBAL_EXISTENCE for THIS Σ₀ (no rate γ is stated; tr Σ
in fact grows at least like e^{λ_lo·t}, and X = Σ/tr Σ → P along the cone).
"""
from __future__ import annotations

import flint

from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from .tube_cluster import isotropic_points
from ..krawczyk_box import rat, square
from .tube_ray import ProjectiveField, check_contraction, ellipsoid_data
from ..tube_replay import TUBE_ORDER, TUBE_STEPS, int_in, replay_stored, tube_problem

KIND = "tube-growth"
_UP = [(0, 0), (0, 1)]

_T = "tests/soundness/forgeries/test_growth_tube.py::"
HYPOTHESES = (
    Hypothesis("problem-class", "The embedded problem is single-head softmax in d = 2 with a drift F ≠ 0 and constant "
               "parameters: Σ̇ = Q(Σ) + L(Σ), Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ (A scaled by the temperature), "
               "L(Σ) = FΣ + ΣFᵀ.", _T + "test_growth_without_drift"),
    Hypothesis("sigma0-psd", "Σ₀ ⪰ 0, decided exactly (a covariance).", _T + "test_growth_sigma0_not_psd"),
    Hypothesis("isotropic-point", "A + Aᵀ is indefinite and P is the isotropic rank-one point of the stored branch, "
               "P = wwᵀ/(wᵀw) with wᵀAw = 0: then Q(P) = 0 and tr P = 1, so Q(sP + Y) = s·DQ(P)[Y] + Q(Y) and "
               "the split Σ = sP + Y (s = tr Σ) gives s' = s·φ(Y, v), Y' = s·G(Y, v) with v = 1/s.",
               _T + "test_growth_A_not_indefinite"),
    Hypothesis("centre-trace-zero", "Y_star and Y_one (absent: 0) are symmetric with trace zero, so the centre "
               "c(v) = Y_star + v·Y_one lies in the plane of Y = Σ − (tr Σ)·P, coordinates (Y₀₀, Y₀₁).",
               _T + "test_growth_centre_not_trace_zero"),
    Hypothesis("W-positive-definite", "W = Wᵀ ≻ 0 (exact), so each 𝓔_v = {e : eᵀWe ≤ rho}, e = y − c(v), is a "
               "bounded convex ellipsoid.", _T + "test_growth_W_not_positive_definite"),
    Hypothesis("ellipsoid-in-box", "rho, mu, R_k > 0 and rho·(W⁻¹)_kk ≤ R_k², so every 𝓔_v, v ∈ [0, v_max], lies in "
               "the box H = Y_star + [0, v_max]·Y_one ± R over which the fields are enclosed.",
               _T + "test_growth_ellipsoid_leaves_the_box"),
    Hypothesis("contraction", "Over H × [0, v_max], every J of the ball Jacobian of Ĝ = G + v²·φ·Y_one "
               "(D_YG + v²·Y_one·∇φᵀ) has −(JᵀW + WJ) − 2·mu·W ≻ 0.", _T + "test_growth_contraction_rate_too_large"),
    Hypothesis("residual", "The centre's residual r(v) = Ĝ(c(v), v), bounded over all v ∈ [0, v_max] from its "
               "expansion in powers of v, has rᵀWr < mu²·rho: with the contraction, e cannot leave 𝓔_v while "
               "s > 0 (ė = s·Ĝ since v̇ = −v·φ).", _T + "test_growth_constant_centre_residual_too_large"),
    Hypothesis("growth-rate", "φ = (log tr Σ)˙ has a lower bound λ_lo > 0 and a finite upper bound K over "
               "H × [0, v_max]: s increases on s = 1/v_max, so N = {s ≥ 1/v_max, e ∈ 𝓔_v} is forward invariant, "
               "and s(t) ≤ s₁·e^{K(t − t_N)} rules out blow-up.", _T + "test_growth_rate_not_positive"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ along the stored exact times, so the "
               "solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.", _T + "test_growth_tube_step_too_long"),
    Hypothesis("v-range", "v_max > 0 and s₁ = tr Σ(t_N) > 1/v_max on the end box: the tube's end has v = 1/s₁ in "
               "the range [0, v_max] the region was verified for.", _T + "test_growth_tube_ends_below_one_over_v_max"),
    Hypothesis("end-inside", "e₁ = y₁ − c(1/s₁), y₁ the coordinates of Σ(t_N) − s₁·P, has e₁ᵀWe₁ < rho on the whole "
               "end box: the solution is in N at t_N and stays there for all later t.",
               _T + "test_growth_tube_ends_outside"),
    Hypothesis("claim", "The claim is what this argument gives: GLOBAL_EXISTENCE (a global solution with "
               "‖Σ(t)‖ ≤ C·e^{Kt}) for this Σ₀ only.", _T + "test_growth_claim_for_this_sigma0"),
)


_bad = refusal(KIND)


def _tr(X):
    return X[0, 0] + X[1, 1]


def _proj(M, P):
    """M − tr(M)·P (the trace-zero part along P)."""
    return M - P * _tr(M)


def _coords(M):
    return [M[i, j] for i, j in _UP]


def trace_zero(y0, y1):
    """The trace-zero symmetric 2×2 matrix [[y0, y1], [y1, −y0]] (arb balls).

    Parameters
    ----------
    y0, y1 : flint.arb
        The coordinates (Y₀₀, Y₀₁).

    Returns
    -------
    flint.arb_mat
        [[y0, y1], [y1, −y0]].
    """
    return flint.arb_mat([[y0, y1], [y1, -y0]])


def growth_fields(pf, P, Y, v):
    """G(Y, v) = 𝓜Y + b + v·R(Y) and φ(Y, v) of the module docstring (balls).

    Parameters
    ----------
    pf : ProjectiveField
        The field (Q, dQ, L) over arb matrices.
    P : flint.arb_mat
        The isotropic rank-one point (a ball containing the exact P, Q(P) = 0, tr P = 1).
    Y : flint.arb_mat
        A trace-zero symmetric ball matrix.
    v : flint.arb
        v = 1/tr Σ (a ball, e.g. [0, v_max]).

    Returns
    -------
    tuple of (list of flint.arb, flint.arb)
        (the coordinates (G₀₀, G₀₁), φ).
    """
    dq = pf.dQ(P, Y)
    QY, LY, LP = pf.Q(Y), pf.L(Y), pf.L(P)
    G = _proj(dq, P) + _proj(LP, P) + (_proj(QY, P) + _proj(LY, P)) * v
    phi = _tr(dq) + _tr(LP) + v * (_tr(QY) + _tr(LY))
    return _coords(G), phi


def growth_jacobian(pf, P, Y, v):
    """The 2×2 ball Jacobian D_Y G(Y, v) in the coordinates (Y₀₀, Y₀₁).

    D_Y G[E] = 𝓜E + v·(DQ(Y)[E] − tr DQ(Y)[E]·P + L(E) − tr L(E)·P) for E = [[1, 0], [0, −1]],
    [[0, 1], [1, 0]].

    Parameters
    ----------
    pf : ProjectiveField
        The field over arb matrices.
    P : flint.arb_mat
        The isotropic point (ball).
    Y : flint.arb_mat
        The trace-zero box.
    v : flint.arb
        The ball of v.

    Returns
    -------
    flint.arb_mat
        D_Y G over the box.
    """
    cols = []
    for E in (trace_zero(flint.arb(1), flint.arb(0)), trace_zero(flint.arb(0), flint.arb(1))):
        col = _proj(pf.dQ(P, E), P) + (_proj(pf.dQ(Y, E), P) + _proj(pf.L(E), P)) * v
        cols.append(_coords(col))
    return flint.arb_mat([[cols[c][r] for c in range(2)] for r in range(2)])


def _centre_residual(pf, P, Ys, Y1, vb):
    """A ball of r(v) = G(c(v), v) + v²·φ(c(v), v)·Y₁ for v ∈ ``vb``, c(v) = Y* + v·Y₁, computed from
    r's exact expansion in powers of v (its coefficients first, then Σ_k r_k·vᵏ: evaluating G at the
    ball c(vb) instead would lose the cancellation in the coefficient of v)."""
    c = [flint.arb_mat(Ys), flint.arb_mat(Y1)]
    dq = [pf.dQ(P, x) for x in c]
    Lc = [pf.L(x) for x in c]
    LP = pf.L(P)
    Qc = [pf.Q(c[0]), pf.dQ(c[0], c[1]), pf.Q(c[1])]    # Q(c(v)) = Q(Y*) + v·DQ(Y*)[Y₁] + v²·Q(Y₁)
    g = [_proj(dq[0], P) + _proj(LP, P), _proj(dq[1], P) + _proj(Qc[0], P) + _proj(Lc[0], P),
         _proj(Qc[1], P) + _proj(Lc[1], P), _proj(Qc[2], P)]
    f = [_tr(dq[0]) + _tr(LP), _tr(dq[1]) + _tr(Qc[0]) + _tr(Lc[0]), _tr(Qc[1]) + _tr(Lc[1]), _tr(Qc[2])]
    coeffs = [_coords(x) for x in g] + [[flint.arb(0), flint.arb(0)] for _ in range(2)]
    for k, fk in enumerate(f):
        for i, (a, b) in enumerate(_UP):
            coeffs[k + 2][i] = coeffs[k + 2][i] + fk * c[1][a, b]
    out = [flint.arb(0), flint.arb(0)]
    power = flint.arb(1)
    for ck in coeffs:
        out = [out[i] + ck[i] * power for i in range(2)]
        power = power * vb
    return out


def check_growth_region(pairs, F, data, prec, fail):
    """Checks 2–5: the forward-invariant region N.  Returns (P, y*, Y₁, W, rho, v_max, λ_lo, K) (balls/exact).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The single head's exact (C, A), A scaled by the temperature.
    F : flint.fmpq_mat
        The exact drift.
    data : dict
        The certificate's data (Y_star, optional Y_one, W, rho, mu, R, v_max, branch).
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple
        (P ball, Y_star exact, Y_one exact, W exact, rho exact, v_max exact, λ_lo ball, K ball).
    """
    if len(pairs) != 1:
        fail("covers single-head softmax only")
    Ys, W, _Winv, rho, mu, R = ellipsoid_data(data, "Y_star", 2, 2, fail)
    if Ys[0, 0] + Ys[1, 1] != 0:
        fail("Y_star must have trace zero")
    Y1 = flint.fmpq_mat(2, 2)
    if "Y_one" in data:
        Y1 = square(data["Y_one"], 2, "Y_one", fail)
        if Y1 != Y1.transpose() or Y1[0, 0] + Y1[1, 1] != 0:
            fail("Y_one must be symmetric with trace zero")
    v_max = rat(data["v_max"])
    if not v_max > 0:
        fail("v_max must be positive")
    branch = int_in(data["branch"], "branch", 0, 1, fail)
    with working_precision(prec):
        pts = isotropic_points(pairs[0][1])
        if not pts:
            fail("A + Aᵀ is not indefinite: no isotropic rank-one point")
        P = pts[branch]
        pf = ProjectiveField(pairs, F, flint.arb_mat)
        half = flint.arb(v_max / 2)
        vb = half + flint.arb(0, half.upper())   # ⊇ [0, v_max]
        # H ⊇ every ellipsoid around c(v) = Y* + v·Y₁, v ∈ [0, v_max]
        H = trace_zero(flint.arb(Ys[0, 0]) + vb * flint.arb(Y1[0, 0]) + flint.arb(0, flint.arb(R[0]).upper()),
                       flint.arb(Ys[0, 1]) + vb * flint.arb(Y1[0, 1]) + flint.arb(0, flint.arb(R[1]).upper()))
        Wb = flint.arb_mat(W)
        J = growth_jacobian(pf, P, H, vb)
        if "Y_one" in data:   # D_Y of v²·φ(Y, v)·Y₁: the rank-one term v²·Y₁·∇φᵀ
            y1 = [flint.arb(Y1[i, j]) for i, j in _UP]
            for col, E in enumerate((trace_zero(flint.arb(1), flint.arb(0)), trace_zero(flint.arb(0), flint.arb(1)))):
                dphi = _tr(pf.dQ(P, E)) + vb * (_tr(pf.dQ(H, E)) + _tr(pf.L(E)))
                for row in range(2):
                    J[row, col] = J[row, col] + vb * vb * y1[row] * dphi
        check_contraction(J, Wb, mu, fail)
        rv = flint.arb_mat(2, 1, _centre_residual(pf, P, Ys, Y1, vb))
        if not ((rv.transpose() * Wb * rv)[0, 0] < flint.arb(mu * mu * rho)):
            fail("the centre's residual is too large for the contraction rate (rᵀWr ≥ mu²·rho for some v)")
        _, phi = growth_fields(pf, P, H, vb)
        if not (phi > 0):
            fail("the growth rate φ = (log tr Σ)˙ is not positive over the region")
        if not phi.is_finite():
            fail("the growth rate is not bounded over the region")
        return P, Ys, Y1, W, rho, v_max, flint.arb(phi.lower()), flint.arb(phi.upper())


def check_growth_end(P, Ys, Y1, W, rho, v_max, S_end, prec, fail):
    """Check 6: the tube's end (s₁, Y₁) lies in N.

    Parameters
    ----------
    P : flint.arb_mat
        The isotropic point (ball).
    Ys, Y1, W : flint.fmpq_mat
        The ellipsoid's centre c(v) = Ys + v·Y1 and matrix.
    rho, v_max : flint.fmpq
        The level and the bound of v = 1/tr Σ.
    S_end : flint.arb_mat
        The tube's end box Σ(t_N) ∈ S_N.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    with working_precision(prec):
        s1 = _tr(S_end)
        if not (s1 > 0 and s1 * flint.arb(v_max) > 1):
            fail("tr Σ(t_N) is not above 1/v_max on the tube's end box")
        v1 = 1 / s1
        Yend = S_end - P * s1
        z = flint.arb_mat(2, 1, [Yend[i, j] - Ys[i, j] - v1 * Y1[i, j] for i, j in _UP])
        if not ((z.transpose() * flint.arb_mat(W) * z)[0, 0] < flint.arb(rho)):
            fail("the tube's end is not inside the certified ellipsoid")


_SCHEMA = {"Y_star": "rat[][]", "Y_one?": "rat[][]", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]", "v_max": "rat",
           "branch": "int", "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct")}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_growth(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ exists for all t ≥ 0 and grows at most
    exponentially (regime GLOBAL_EXISTENCE, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: single-head softmax, d = 2, a drift F ≠ 0, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("GLOBAL_EXISTENCE", THIS, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or a check 1–6 fails.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, psd=True)
    if problem.d != 2 or F is None or all(e == 0 for e in F.entries()):
        _bad("covers d = 2 with a drift F ≠ 0 only")
    data = cert.data
    prec = int_in(data["prec"], "prec", 64, 4096, _bad)
    P, Ys, Y1, W, rho, v_max, _lo, _K = check_growth_region(pairs, F, data, prec, _bad)
    S_end, _ts = replay_stored(pairs, F, S0, data, _bad, TUBE_ORDER, TUBE_STEPS)
    check_growth_end(P, Ys, Y1, W, rho, v_max, S_end, prec, _bad)
    return "PROVED", Claim("GLOBAL_EXISTENCE", Quantifier.THIS, {})
