"""Checker of ``tube-ray-collapse``: *this* Σ₀ collapses to a point — the solution is global and
Σ(t) → 0 — along an attracting *collapsing ray* Σ ≈ C/(t + t₀), Q(C) = −C, for (multi-head)
softmax without drift and a general V (issue 15 item 2, "convergence of this Σ₀ … to 0").
Mathematics: docs/mathematics.md §8 ("collapsing rays").

The decay is only like 1/t, so no quadratic Lyapunov function of Σ itself is strict near 0; in
projective coordinates the ray is a hyperbolic equilibrium.  Write Σ = v·X (v > 0) and change time
by dτ = v dt.  For any scalar function c̃(X), solutions of

    X' = Q(X) − c̃(X)·X,   v' = c̃(X)·v                                             (Ψ)

give solutions Σ = vX of Σ̇ = Q(Σ): dΣ/dτ = v'X + vX' = vQ(X), so dΣ/dt = v²Q(X) = Q(Σ) (Q is
homogeneous quadratic).  We take c̃(X) = tr Q(X) + κ(tr X − 1) with κ > 0 (certificate data): the
plain choice κ = 0 keeps tr X = 1 invariant but *repelling* when tr Q < 0, and κ > |tr Q| makes
it attracting.  A collapsing ray C/(t + t₀) is the equilibrium (X*, 0), X* = C/tr C, of Ψ.

**Data.**  ``X_star`` (symmetric d×d), ``kappa``, W ((m+1)×(m+1), m = d(d+1)/2), ``rho``, ``mu``,
``R`` (m+1 radii), optional ``pieces``, ``prec``, and the tube (steps, order, tube_prec, method), in
the coordinates z = (svec-upper(X − X*), v).

**Checks** (balls at ``prec`` bits unless "exact"):

1. the tube from the exact Σ₀ replays: Σ(t_N) ∈ S_N, tr S_N > 0; v₁ = tr S_N, X₁ = S_N/v₁;
2. (exact) W = Wᵀ ≻ 0, rho, mu, κ > 0, R_k > 0 and rho·(W⁻¹)_kk ≤ R_k²;
3. over H = {|svec(X − X*)_k| ≤ R_k, 0 ≤ v ≤ R_v} the ball Jacobian 𝐌 of Ψ satisfies
   −(MᵀW + WM) − 2·mu·W ≻ 0 (ball LDLᵀ; with ``pieces`` > 1 by the adaptive bisection of
   :func:`~symbolic_tf.certify.check.kinds.tube_ray.check_contraction_pieces`);
4. (exact) r = Ψ(X*, 0) = (Q(X*) − c̃(X*)X*, 0) has rᵀWr < mu²·rho;
5. z₁ᵀWz₁ < rho;
6. c_hi := upper(c̃(H)) < 0.

**Why.**  As for ``tube-ray`` (:mod:`~symbolic_tf.certify.check.kinds.tube_ray`): by 3 and 4 the energy
E = (z − z*)ᵀW(z − z*) decreases on the boundary of 𝓔 = {E ≤ rho}, v = 0 is invariant (v' = c̃v),
so 𝓔 ∩ {v > 0} is forward invariant and compact and the solution of Ψ from z₁ (5) exists for all
τ ≥ 0 in H.  There v(τ) = v₁exp∫c̃ ≤ v₁e^{c_hi·τ} → 0 (6), and t(τ) = t_N + ∫₀^τ dτ′/v ≥
t_N + τ/v₁ → ∞: the solution Σ(t) = vX exists for every t ≥ t_N, and since X stays in the bounded
box H, Σ(t) → 0.  Claim CLUSTERING (rank 0, "collapse to a point") for THIS Σ₀.
"""
from __future__ import annotations

import flint

from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..krawczyk_box import rat
from .tube_ray import (MAX_PIECES, ProjectiveField, centre_box, check_contraction, check_contraction_pieces,
                  check_residual, ellipsoid_data)
from ..tube_replay import int_in, replay_point_tube, svec_basis, svec_pairs, tube_problem

KIND = "tube-ray-collapse"


_bad = refusal(KIND)


def _trace(X):
    return sum((X[i, i] for i in range(1, X.nrows())), X[0, 0])


class CollapseField(ProjectiveField):
    """The field Ψ of the module docstring over arb (or fmpq) matrices, without drift.

    Parameters
    ----------
    pairs : list of (matrix, matrix)
        The heads' (C_h, A_h).
    mat : type
        The matrix type (``flint.arb_mat`` or ``flint.fmpq_mat``).
    kappa : flint.fmpq
        κ > 0 in c̃(X) = tr Q(X) + κ(tr X − 1).
    """

    def __init__(self, pairs, mat, kappa):
        super().__init__(pairs, None, mat)
        self.kappa = kappa

    def c(self, X, v):
        """c̃(X) = tr Q(X) + κ(tr X − 1) (independent of v).

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            The point.
        v : flint.arb or flint.fmpq
            The projective scale (unused).

        Returns
        -------
        flint.arb or flint.fmpq
            c̃(X).
        """
        return _trace(self.Q(X)) + self.kappa * (_trace(X) - 1)

    def jacobian(self, X, v, basis):
        """Ball (or exact) Jacobian of Ψ at (X, v) in the coordinates (svec-upper X, v).

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            The point (a ball box or an exact matrix).
        v : flint.arb or flint.fmpq
            The projective scale v.
        basis : list of matrices
            The svec-upper basis of Sym(d).

        Returns
        -------
        list of list
            The (m+1)×(m+1) Jacobian (rows), the last coordinate v.
        """
        up = svec_pairs(X.nrows())
        c = self.c(X, v)
        cols = []
        for E in basis:
            dQE = self.dQ(X, E)
            dc = _trace(dQE) + self.kappa * _trace(E)
            top = dQE - X * dc - E * c
            cols.append([top[i, j] for i, j in up] + [v * dc])
        cols.append([c * 0 for _ in up] + [c])
        n = len(cols)
        return [[cols[cc][rr] for cc in range(n)] for rr in range(n)]


def check_collapse_region(pairs, d, data, prec, fail):
    """Checks 2, 3, 4 and 6 of the module docstring (everything but the tube and its end).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    d : int
        The dimension.
    data : dict
        The certificate's data (X_star, kappa, W, rho, mu, R, optional pieces).
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple
        (X*, W, rho) exact, for the end check.
    """
    m = d * (d + 1) // 2
    Xs, W, _Winv, rho, mu, R = ellipsoid_data(data, "X_star", d, m + 1, fail)
    kappa = rat(data["kappa"])
    if not kappa > 0:
        fail("kappa must be positive")
    up = svec_pairs(d)
    ex = CollapseField(pairs, flint.fmpq_mat, kappa)
    rX = ex.Q(Xs) - Xs * ex.c(Xs, 0)
    check_residual(flint.fmpq_mat(m + 1, 1, [rX[i, j] for i, j in up] + [0]), W, mu, rho, "the ray point", fail)
    with working_precision(prec):
        bf = CollapseField(pairs, flint.arb_mat, flint.arb(kappa))
        H = centre_box(Xs, R, up)
        half = flint.arb(R[m] / 2)
        vH = half + flint.arb(0, half.upper())   # ⊇ [0, R_v]
        # 6 before 3: cheap, and it names its own hypothesis when a box is too large for both
        if not bf.c(H, vH) < 0:
            fail("the rate c̃ = tr Q(X) + κ(tr X − 1) is not negative over the box: no collapse is proved")
        pieces = int_in(data.get("pieces", 1), "pieces", 1, MAX_PIECES, fail)
        if pieces == 1:
            check_contraction(flint.arb_mat(bf.jacobian(H, vH, svec_basis(d))), flint.arb_mat(W), mu, fail)
        else:
            check_contraction_pieces(bf, Xs, R, W, rho, mu, pieces, fail)
    return Xs, W, rho


def check_collapse_end(pairs, S_end, data, prec, fail):
    """Checks 1 (after the tube) to 6 of the module docstring on the tube's end box.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    S_end : flint.arb_mat
        The tube's end box Σ(t_N) ∈ S_N.
    data : dict
        The certificate's data.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    d = S_end.nrows()
    Xs, W, rho = check_collapse_region(pairs, d, data, prec, fail)
    up = svec_pairs(d)
    with working_precision(prec):
        v1 = _trace(S_end)
        if not v1 > 0:
            fail("tr Σ(t_N) is not positive on the tube's end box")
        X1 = S_end * (1 / v1)
        z1 = flint.arb_mat(len(up) + 1, 1, [X1[i, j] - Xs[i, j] for i, j in up] + [v1])
        if not (z1.transpose() * flint.arb_mat(W) * z1)[0, 0] < flint.arb(rho):
            fail("the tube's end is not inside the certified ellipsoid (z₁ᵀWz₁ < rho fails)")


_T = "tests/soundness/forgeries/test_ray_collapse.py::"
HYPOTHESES = (
    Hypothesis("softmax-flow", "The embedded problem's covariance flow is the quadratic field Σ̇ = Q(Σ) = "
               "Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) of (multi-head) softmax: Ψ and the tube are built from exactly these "
               "heads.", _T + "test_collapse_other_variant"),
    Hypothesis("no-drift", "F = 0: Ψ turns solutions into solutions only because Q is homogeneous quadratic "
               "(dΣ/dt = v²Q(X) = Q(Σ)); a linear term FΣ + ΣFᵀ would not scale that way.",
               _T + "test_collapse_drift"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t (no schedule): Ψ is autonomous.",
               _T + "test_collapse_schedule"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ ⪰ 0 along the stored times "
               "0 = t₀ < … < t_N: the solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.",
               _T + "test_collapse_tube_step_too_long"),
    Hypothesis("sigma-nonzero", "tr S_N > 0, so v₁ = tr Σ(t_N) is a positive scale and X₁ = Σ(t_N)/v₁ is defined "
               "(Σ₀ = 0 is the equilibrium 0: no projective argument covers it).", _T + "test_collapse_sigma0_zero"),
    Hypothesis("W-positive-definite", "W = Wᵀ ≻ 0 (exact), rho > 0, mu > 0 and every R_k > 0: 𝓔 = {zᵀWz ≤ rho} is a "
               "compact ellipsoid around the collapsing-ray point (X_star, 0).", _T + "test_collapse_W_indefinite"),
    Hypothesis("ellipsoid-in-box", "rho·(W⁻¹)_kk ≤ R_k² for every k: 𝓔 lies in the box H = {X_star ± R, 0 ≤ v ≤ R_v} "
               "over which the Jacobian and c̃ are bounded.", _T + "test_collapse_ellipsoid_leaves_the_box"),
    Hypothesis("rate-negative", "c̃(X) = tr Q(X) + κ(tr X − 1) ≤ c_hi < 0 over H: v = v₁·exp∫c̃ → 0 while X stays "
               "in H, so Σ = vX → 0, and t = t_N + ∫dτ/v → ∞, so the solution is global.",
               _T + "test_collapse_rate_not_negative_over_the_box"),
    Hypothesis("contraction", "−(MᵀW + WM) − 2·mu·W ≻ 0 for every M in the ball Jacobian of Ψ over H (with "
               "pieces > 1: over every piece of the deterministic bisection that meets 𝓔, within the budget).",
               _T + "test_collapse_contraction_rate_too_large"),
    Hypothesis("residual", "rᵀWr < mu²·rho for r = Ψ(X_star, 0) = (Q(X_star) − c̃(X_star)·X_star, 0) (exact): with the "
               "contraction, 𝓔 ∩ {v > 0} is forward invariant.", _T + "test_collapse_residual_too_large"),
    Hypothesis("end-in-ellipsoid", "z₁ᵀWz₁ < rho: the tube's end (X₁ − X_star, v₁) lies inside 𝓔.",
               _T + "test_collapse_tube_ends_outside_the_ellipsoid"),
)
_SCHEMA = {"X_star": "rat[][]", "kappa": "rat", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]",
           "pieces?": "int", "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct")}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_ray_collapse(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and Σ(t) → 0 (regime CLUSTERING,
    rank 0, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax without drift, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or a check fails.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, max_d=6, psd=True)
    if F is not None:
        _bad("covers the flow without drift only")
    data = cert.data
    prec, S_end, _ts = replay_point_tube(pairs, None, S0, data, _bad)
    check_collapse_end(pairs, S_end, data, prec, _bad)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
