"""Checker of ``tube-cluster``: *this* Σ₀ clusters — the solution is global and Σ(t) converges to
a rank-one limit — for single-head softmax in d = 2 without drift and a general V (issue 15
item 2, "convergence of this Σ₀ … to a low-rank limit, with the rank proved").

Rank-one equilibria.  For Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ and w ∈ ℝ², Q(wwᵀ) = (wᵀAw)(Vwwᵀ + wwᵀVᵀ), so
every isotropic direction of A (wᵀAw = 0) is a line of equilibria s·wwᵀ.  When A + Aᵀ =
[[a, b], [b, c]] is indefinite (b² > ac) its isotropic lines are explicit: w = (1, x) with
cx² + 2bx + a = 0 (or w = (0, 1) when c = 0), and X_iso = wwᵀ/(wᵀw) is a fixed point of the
projective field of :mod:`symbolic_tf.certify.check.kinds.tube_ray` with c(X_iso) = tr Q(X_iso) = 0.

Projective coordinates Σ = X/u, dτ = dt/u with, for a rational κ ≥ 0 (``kappa``),

    X' = Q(X) − c̃(X)·X,   u' = −c̃(X)·u,   c̃(X) = tr Q(X) + κ(tr X − 1)                (Φ)

(any scalar c̃ gives d(X/u)/dt = Q(X/u); tr X' = (1 − tr X)(tr Q(X) + κ·tr X), so the plane
tr X = 1 is invariant and c̃ = tr Q there; κ only makes the trace direction attracting).  The
certificate stores rationals X_star (2×2 symmetric), W (3×3), rho, mu, R (3 radii), kappa and a
tube (steps, order, tube_prec, method); coordinates z = svec-upper(X − X_star).  Verified:

1. the tube from the embedded exact Σ₀ (Σ₀ ⪰ 0) along the stored exact times: Σ(t_N) ∈ S_N;
   tr S_N > 0, X₁ = S_N/tr S_N (exactly on tr X = 1), z₁ = svec(X₁ − X_star);
1′. optional projective continuation (``proj_steps``, ``proj_order``, optional ``proj_apriori``; the
   first two together): the validated tube of X' = Q(X) − tr Q(X)·X, u' = −tr Q(X)·u, s' = u from
   (S_N/tr S_N, 1/tr S_N, 0) along the stored τ-steps (the ``tube-ray`` kind's check 1′) encloses
   X(τ_M); checks 1–7 then use the box of X(τ_M) in place of S_N.  Sound by homogeneity: u > 0
   and Σ(t_N + s(τ)) = X(τ)/u(τ) with s finite, so X(τ_M)/tr X(τ_M) = Σ(t′)/tr Σ(t′) at the finite
   time t′ = t_N + s(τ_M), and the argument below runs from t′.  Without drift the scale-free time
   dτ = tr Σ dt removes the stiffness of a transient whose rates grow with the size of Σ;
2. (exact) W ≻ 0, rho, mu > 0, kappa ≥ 0, R_k > 0, rho·(W⁻¹)_kk ≤ R_k²;
3. over the box H = X_star ± R the ball Jacobian 𝐌 of Φ has −(MᵀW + WM) − 2·mu·W ≻ 0;
4. (exact) r = Φ(X_star) has rᵀWr < mu²·rho;  5. z₁ᵀWz₁ < rho;
6. an isotropic point X_iso (ball) of A + Aᵀ lies in the ellipsoid: (X_iso − X_star)ᵀW(…) < rho;
7. the bound B := √(gᵀW⁻¹g)·√(e₁ᵀWe₁)/mu is finite, g the ball gradient of c̃ over H and
   e₁ = svec(X₁ − X_iso).

**Why.**  As in ``tube-ray``, 3–5 make 𝓔 = {zᵀWz ≤ rho} forward invariant, so X(τ) ∈ 𝓔 ⊆ H for
all τ ≥ 0.  X_iso ∈ 𝓔 (6) is a zero of Φ, so for e = X − X_iso, Φ(X) = M̄e with M̄ ∈ 𝐌 (the
segment lies in the convex 𝓔) and (eᵀWe)' ≤ −2·mu·eᵀWe: X(τ) → X_iso exponentially.  Since
c̃(X_iso) = 0, |c̃(X(τ))| ≤ √(gᵀW⁻¹g)·‖e(τ)‖_W and ∫₀^∞|c̃| ≤ B, so u(τ) = u₁e^{−∫c̃} → u∞ ∈
[u₁e^{−B}, u₁e^{B}], t(τ) = t_N + ∫u → ∞ (the solution is global) and Σ(t) = X/u → X_iso/u∞ ≠ 0,
of rank exactly one.  Claim CLUSTERING (rank 1) for THIS Σ₀.
"""
from __future__ import annotations

import flint

from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..krawczyk_box import rat
from .tube_ray import (ProjectiveField, centre_box, check_contraction, check_residual, ellipsoid_data,
                       replay_projective_part)
from ..tube_replay import replay_point_tube, tube_problem

KIND = "tube-cluster"
_UP = [(0, 0), (0, 1), (1, 1)]

_T = "tests/soundness/forgeries/test_cluster.py::"
HYPOTHESES = (
    Hypothesis("problem-class", "The embedded problem is single-head softmax in d = 2 without drift, with constant "
               "parameters: Σ̇ = Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ (A scaled by the temperature), the field whose isotropic "
               "rank-one points are equilibria.", _T + "test_cluster_with_a_drift"),
    Hypothesis("sigma0-psd", "Σ₀ ⪰ 0, decided exactly (a covariance).", _T + "test_cluster_sigma0_not_psd"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ along the stored exact times, so the "
               "solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.", _T + "test_cluster_tube_step_too_long"),
    Hypothesis("projective-continuation", "A projective continuation, when present, has both proj_steps and "
               "proj_order (times from 0, strictly increasing) and replays from the tube's end box: its X(τ_M) "
               "is Σ(t′)·u at a finite time t′ with u > 0 (Σ̇ homogeneous quadratic without drift), so "
               "X(τ_M)/tr X(τ_M) = Σ(t′)/tr Σ(t′).", _T + "test_cluster_projective_step_too_long"),
    Hypothesis("trace-positive", "tr Σ(t_N) > 0 on the end box, so u₁ = 1/tr Σ(t_N) is finite and positive and "
               "X₁ = Σ(t_N)/tr Σ(t_N) lies on the invariant plane tr X = 1 (Σ₀ = 0 stays 0: rank 0, not 1).",
               _T + "test_cluster_sigma0_zero"),
    Hypothesis("W-positive-definite", "W = Wᵀ ≻ 0 (exact), so 𝓔 = {zᵀWz ≤ rho}, z = svec(X − X_star), is a "
               "bounded convex ellipsoid.", _T + "test_cluster_W_not_positive_definite"),
    Hypothesis("ellipsoid-in-box", "rho, mu, R_k > 0 and rho·(W⁻¹)_kk ≤ R_k² for each coordinate, so 𝓔 lies in "
               "the box H = X_star ± R over which the Jacobian is enclosed.", _T + "test_cluster_ellipsoid_leaves_the_box"),
    Hypothesis("contraction", "Every M of the ball Jacobian of Φ(X) = Q(X) − c̃(X)·X over H "
               "(c̃ = tr Q(X) + κ(tr X − 1), κ ≥ 0) has −(MᵀW + WM) − 2·mu·W ≻ 0.",
               _T + "test_cluster_contraction_rate_too_large"),
    Hypothesis("residual", "The exact residual r = Φ(X_star) has rᵀWr < mu²·rho: with the contraction, Φ points "
               "into 𝓔 on its boundary, so 𝓔 is forward invariant for the projective flow.",
               _T + "test_cluster_centre_off_the_equilibrium"),
    Hypothesis("end-inside", "z₁ = svec(X₁ − X_star) has z₁ᵀWz₁ < rho on the whole end box: the projective "
               "solution enters 𝓔 at t_N and stays in it for all τ ≥ 0.", _T + "test_cluster_tube_ends_outside"),
    Hypothesis("isotropic-inside", "An isotropic rank-one point X_iso = wwᵀ/(wᵀw) of A + Aᵀ (wᵀAw = 0) lies in 𝓔: "
               "Q(X_iso) = 0, so X_iso is a zero of Φ with c̃ = 0, the one X(τ) converges to, and "
               "∫∣c̃∣ dτ < ∞ makes u converge to u∞ > 0 and Σ → X_iso/u∞ of rank one.  A contracting "
               "ellipsoid around another zero X* of Φ (a ray, c̃(X*) ≠ 0) means blow-up or collapse instead.",
               _T + "test_cluster_ellipsoid_around_a_blowup_ray"),
    Hypothesis("claim", "The claim is what this argument gives: CLUSTERING with rank 1 (a global solution with a "
               "rank-one limit) for this Σ₀ only.", _T + "test_cluster_claim_is_rank_one_for_this_sigma0"),
)


_bad = refusal(KIND)


def _basis(mat):
    out = []
    for i, j in _UP:
        E = mat(2, 2)
        E[i, j] = 1
        E[j, i] = 1
        out.append(E)
    return out


def field_value(pf, X, kappa):
    """Φ's X-component at X: Q(X) − c̃(X)·X with c̃(X) = tr Q(X) + κ(tr X − 1).

    Parameters
    ----------
    pf : ProjectiveField
        The projective field (its ``Q``) over fmpq or arb matrices.
    X : flint.fmpq_mat or flint.arb_mat
        A symmetric 2×2 point.
    kappa : flint.fmpq or flint.arb
        κ ≥ 0, the weight that makes the trace direction attracting.

    Returns
    -------
    flint.fmpq_mat or flint.arb_mat
        Q(X) − c̃(X)·X.
    """
    QX = pf.Q(X)
    ct = QX[0, 0] + QX[1, 1] + (X[0, 0] + X[1, 1] - 1) * kappa
    return QX - X * ct


def jacobian_and_gradient(pf, X, kappa, basis):
    """Ball Jacobian of Φ (3×3, svec-upper) and gradient of c̃ at X (over a ball matrix X).

    Parameters
    ----------
    pf : ProjectiveField
        The projective field over arb matrices.
    X : flint.arb_mat
        The symmetric 2×2 ball matrix (e.g. the box H = X_star ± R).
    kappa : flint.arb
        κ ≥ 0 of c̃.
    basis : list of flint.arb_mat
        The svec-upper basis E_00, E_01 + E_10, E_11.

    Returns
    -------
    tuple of (list of list of flint.arb, list of flint.arb)
        The 3×3 Jacobian DΦ(X) (rows, svec-upper coordinates) and the gradient ∇c̃(X) (3 entries).
    """
    QX = pf.Q(X)
    ct = QX[0, 0] + QX[1, 1] + (X[0, 0] + X[1, 1] - 1) * kappa
    cols, grad = [], []
    for E in basis:
        dQE = pf.dQ(X, E)
        dc = dQE[0, 0] + dQE[1, 1] + (E[0, 0] + E[1, 1]) * kappa
        top = dQE - X * dc - E * ct
        cols.append([top[i, j] for i, j in _UP])
        grad.append(dc)
    return [[cols[c][r] for c in range(3)] for r in range(3)], grad


def isotropic_points(A):
    """The rank-one trace-one matrices ww̃ᵀ/(wᵀw) on the isotropic lines of A + Aᵀ (arb balls),
    or [] if A + Aᵀ is not indefinite.

    Parameters
    ----------
    A : flint.fmpq_mat
        The 2×2 exact interaction matrix (scaled).

    Returns
    -------
    list of flint.arb_mat
        The two points X_iso = wwᵀ/(wᵀw) with wᵀ(A + Aᵀ)w = 0 (b² > ac), else [].
    """
    S = A + A.transpose()
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    disc = b * b - a * c
    if not disc > 0:
        return []
    ws = []
    if c == 0:
        ws = [(flint.arb(0), flint.arb(1)), (flint.arb(1), -flint.arb(a) / (2 * flint.arb(b)))]
    else:
        sq = flint.arb(disc).sqrt()
        ws = [(flint.arb(1), (-flint.arb(b) + sq) / flint.arb(c)), (flint.arb(1), (-flint.arb(b) - sq) / flint.arb(c))]
    out = []
    for w0, w1 in ws:
        n = w0 * w0 + w1 * w1
        out.append(flint.arb_mat([[w0 * w0 / n, w0 * w1 / n], [w0 * w1 / n, w1 * w1 / n]]))
    return out


def check_cluster_end(pairs, S_end, data, prec, fail):
    """Checks 1 (after the tube) to 7; returns the bound B (arb) of ∫|c̃|.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h), A_h scaled by the temperature.
    S_end : flint.arb_mat
        The tube's end box Σ(t_N) ∈ S_N.
    data : dict
        The certificate's data (X_star, W, rho, mu, R, kappa).
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    flint.arb
        B = √(gᵀW⁻¹g)·√(e₁ᵀWe₁)/mu, a finite bound of ∫₀^∞|c̃|.
    """
    if len(pairs) != 1:
        fail("covers single-head softmax only")
    kappa = rat(data["kappa"])
    if not kappa >= 0:
        fail("kappa must be ≥ 0")
    Xs, W, Winv, rho, mu, R = ellipsoid_data(data, "X_star", 2, 3, fail)
    ex = ProjectiveField(pairs, None, flint.fmpq_mat)
    rX = field_value(ex, Xs, kappa)
    rv = flint.fmpq_mat(3, 1, [rX[i, j] for i, j in _UP])
    check_residual(rv, W, mu, rho, "the centre", fail)
    with working_precision(prec):
        pf = ProjectiveField(pairs, None, flint.arb_mat)
        H = centre_box(Xs, R, _UP)
        J, grad = jacobian_and_gradient(pf, H, flint.arb(kappa), _basis(flint.arb_mat))
        Wb = flint.arb_mat(W)
        check_contraction(flint.arb_mat(J), Wb, mu, fail)
        tr = S_end[0, 0] + S_end[1, 1]
        if not (tr > 0):
            fail("tr Σ(t_N) is not positive on the tube's end box")
        X1 = S_end * (1 / tr)

        def energy(X):
            z = flint.arb_mat(3, 1, [X[i, j] - Xs[i, j] for i, j in _UP])
            return (z.transpose() * Wb * z)[0, 0]

        if not (energy(X1) < flint.arb(rho)):
            fail("the tube's end is not inside the certified ellipsoid")
        A = pairs[0][1]
        inside = [P for P in isotropic_points(A) if energy(P) < flint.arb(rho)]
        if not inside:
            fail("no isotropic rank-one point of A + Aᵀ lies in the certified ellipsoid")
        P = inside[0]
        e1 = flint.arb_mat(3, 1, [X1[i, j] - P[i, j] for i, j in _UP])
        g = flint.arb_mat(3, 1, grad)
        gWg = (g.transpose() * flint.arb_mat(Winv) * g)[0, 0]
        eWe = (e1.transpose() * Wb * e1)[0, 0]
        B = flint.arb(gWg.upper()).sqrt() * flint.arb(eWe.upper()).sqrt() / flint.arb(mu)
        if not B.is_finite():
            fail("the bound on ∫|c̃| is not finite")
        return B


_SCHEMA = {"X_star": "rat[][]", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]", "kappa": "rat",
           "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int", "method": ("enum", "qr", "direct"),
           "proj_steps?": "rat[]", "proj_order?": "int", "proj_apriori?": ("enum", "picard", "taylor")}


# alike in shape to tube-ray-collapse's checker (replay, then the end's own test): the end arguments differ
@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_cluster(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and converges to a rank-one
    limit (regime CLUSTERING, rank 1, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: single-head softmax, d = 2, no drift, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 1}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or a check 1–7 fails.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, psd=True)
    if problem.d != 2 or F is not None:
        _bad("covers d = 2 without drift only")
    data = cert.data
    prec, S_end, ts = replay_point_tube(pairs, None, S0, data, _bad)
    if "proj_steps" in data or "proj_order" in data:
        # check 1′: the scale-free continuation; X/tr X is Σ/tr Σ at a finite later time (homogeneity)
        S_end, _u, _t = replay_projective_part(pairs, None, S_end, ts[-1], data, _bad)
    check_cluster_end(pairs, S_end, data, prec, _bad)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 1})
