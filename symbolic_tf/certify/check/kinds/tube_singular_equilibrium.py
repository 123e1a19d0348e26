"""Checker of ``tube-singular-equilibrium``: *this* Σ₀ clusters onto a rank-deficient equilibrium of
the drift model — the solution is global and Σ(t) → Σ∞ with rank Σ∞ = d − 1 — for (multi-head)
softmax with drift and a general V (issue 15 item 2: convergence "to a low-rank limit (clustering,
with the rank proved)").

For Σ̇ = G(Σ) = L(Σ) + Q(Σ), L(Σ) = FΣ + ΣFᵀ, Q(Σ) = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ), in svec-upper
coordinates z = svec(Σ − Sigma_star), the certificate stores rationals Sigma_star (symmetric d×d),
W (m×m, m = d(d+1)/2), rho, mu, R (m radii) and a tube.  Verified:

1. the tube from the embedded exact Σ₀ (Σ₀ ⪰ 0): Σ(t_N) ∈ S_N;
2. (exact) W ≻ 0, rho, mu, R_k > 0, rho·(W⁻¹)_kk ≤ R_k²;
3. over the box H = Sigma_star ± R the ball Jacobian 𝐌 of G has −(MᵀW + WM) − 2·mu·W ≻ 0;
4. (exact) r = G(Sigma_star) has rᵀWr < mu²·rho;   5. z₁ᵀWz₁ < rho for z₁ = svec(S_N − Sigma_star);
6. over H: 2·tr(F + Σ_h C_hΣA_h) < 0 (upper bound) and e_{d−1}(Σ) = the sum of the principal
   (d−1)-minors of Σ > 0 (lower bound; e₁ = tr Σ for d = 2).

**Why.**  3–5 make 𝓔 = {zᵀWz ≤ rho} forward invariant (Ė ≤ 2√E‖r‖_W − 2·mu·E < 0 on its
boundary), so the solution is global, and for two solutions in 𝓔 the W-distance decays like
e^{−mu·t} (the segment between them lies in the convex 𝓔 ⊆ H): the time-s maps are contractions
of 𝓔 with a common fixed point, an equilibrium Σ∞ ∈ 𝓔, and Σ(t) → Σ∞.  Σ(t) = Φ(t)Σ₀Φ(t)ᵀ with
Φ̇ = (F + Σ_h C_hΣA_h)Φ, so Σ stays ⪰ 0 and (log det Σ)˙ = 2 tr(F + Σ_h C_hΣA_h) < 0 on 𝓔: det Σ(t) → 0
and det Σ∞ = 0.  Σ∞ ⪰ 0 with e_{d−1}(Σ∞) > 0 has at least d − 1 positive eigenvalues: rank Σ∞ =
d − 1 exactly.  Claim CLUSTERING (rank d − 1) for THIS Σ₀.
"""
from __future__ import annotations

from itertools import combinations

import flint

from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from .tube_ray import ProjectiveField, centre_box, check_contraction, check_residual, ellipsoid_data
from ..tube_replay import TUBE_ORDER, TUBE_STEPS, int_in, replay_stored, svec_basis, svec_pairs, tube_problem

KIND = "tube-singular-equilibrium"
_MAX_D = 6


_bad = refusal(KIND)


def _e_minus_one(S):
    """Sum of the principal (d−1)-minors of the ball matrix S."""
    d = S.nrows()
    if d == 1:
        return flint.arb(1)
    total = flint.arb(0)
    for keep in combinations(range(d), d - 1):
        total += flint.arb_mat([[S[i, j] for j in keep] for i in keep]).det()
    return total


def check_singular_end(pairs, F, S_end, data, d, prec, fail):
    """Checks 2–6 on the tube's end box ``S_end``.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h), A_h scaled by the temperature.
    F : flint.fmpq_mat
        The exact drift.
    S_end : flint.arb_mat
        The tube's end box.
    data : dict
        The certificate's data (Sigma_star, W, rho, mu, R, ...).
    d : int
        The dimension.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    m = d * (d + 1) // 2
    Ss, W, _Winv, rho, mu, R = ellipsoid_data(data, "Sigma_star", d, m, fail)
    up = svec_pairs(d)
    ex = ProjectiveField(pairs, F, flint.fmpq_mat)
    G = ex.L(Ss) + ex.Q(Ss)
    rv = flint.fmpq_mat(m, 1, [G[i, j] for i, j in up])
    check_residual(rv, W, mu, rho, "the centre", fail)
    with working_precision(prec):
        bf = ProjectiveField(pairs, F, flint.arb_mat)
        H = centre_box(Ss, R, up)
        cols = []
        for E in svec_basis(d, flint.arb_mat):
            DG = bf.L(E) + bf.dQ(H, E)
            cols.append([DG[i, j] for i, j in up])
        J = flint.arb_mat([[cols[c][r] for c in range(m)] for r in range(m)])
        # 6 before 3: cheap, and each names its own hypothesis when a box is too large for all three
        if not (_e_minus_one(H) > 0):
            fail("e_{d−1}(Σ) > 0 is not verified over the box: the rank of the limit is not pinned")
        K = bf.F if bf.F is not None else flint.arb_mat(d, d)
        for C, A in bf.pairs:
            K = K + C * H * A
        if not (2 * sum((K[i, i] for i in range(d)), flint.arb(0)) < 0):
            fail("(log det Σ)˙ = 2 tr(F + Σ_h C_hΣA_h) < 0 is not verified over the box")
        Wb = flint.arb_mat(W)
        check_contraction(J, Wb, mu, fail)
        z = flint.arb_mat(m, 1, [S_end[i, j] - Ss[i, j] for i, j in up])
        if not ((z.transpose() * Wb * z)[0, 0] < flint.arb(rho)):
            fail("the tube's end is not inside the certified ellipsoid")


_T = "tests/soundness/forgeries/test_singular_eq.py::"
HYPOTHESES = (
    Hypothesis("softmax-flow", "The embedded problem's covariance flow is Σ̇ = G(Σ) = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + "
               "ΣA_hᵀΣC_hᵀ) of (multi-head) softmax, a drift F allowed: G, its Jacobian and the tube are built from "
               "exactly these heads and this drift.", _T + "test_singular_other_variant"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t (no schedule): G is autonomous.",
               _T + "test_singular_schedule"),
    Hypothesis("sigma0-psd", "Σ₀ ⪰ 0 (decided exactly): Σ(t) = Φ(t)Σ₀Φ(t)ᵀ stays ⪰ 0, so the limit is ⪰ 0 and its "
               "rank is read off det = 0 and e_{d−1} > 0.", _T + "test_singular_sigma0_indefinite"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ along the stored times 0 = t₀ < … < t_N: "
               "the solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.",
               _T + "test_singular_tube_step_too_long"),
    Hypothesis("W-positive-definite", "W = Wᵀ ≻ 0 (exact), rho > 0, mu > 0 and every R_k > 0: 𝓔 = {zᵀWz ≤ rho}, "
               "z = svec(Σ − Sigma_star), is a compact convex ellipsoid.", _T + "test_singular_W_indefinite"),
    Hypothesis("ellipsoid-in-box", "rho·(W⁻¹)_kk ≤ R_k² for every k: 𝓔 lies in the box H = Sigma_star ± R over "
               "which the Jacobian, tr(F + Σ_h C_hΣA_h) and e_{d−1} are bounded.",
               _T + "test_singular_ellipsoid_leaves_the_box"),
    Hypothesis("limit-rank", "e_{d−1}(Σ), the sum of the principal (d−1)-minors, is > 0 over H: a Σ ⪰ 0 in H has "
               "at least d − 1 positive eigenvalues, so the limit has rank ≥ d − 1.",
               _T + "test_singular_minors_not_positive_over_the_box"),
    Hypothesis("det-decay", "2·tr(F + Σ_h C_hΣA_h) < 0 over H: (log det Σ)˙ is bounded below 0 in 𝓔, so det Σ(t) → 0 "
               "and the limit has rank ≤ d − 1.", _T + "test_singular_det_not_decaying_over_the_box"),
    Hypothesis("contraction", "−(MᵀW + WM) − 2·mu·W ≻ 0 for every M in the ball Jacobian of G over H: two solutions "
               "in 𝓔 approach at rate mu, so the time-s maps contract 𝓔 onto one equilibrium Σ∞.",
               _T + "test_singular_contraction_rate_too_large"),
    Hypothesis("residual", "rᵀWr < mu²·rho for r = svec G(Sigma_star) (exact): with the contraction, Ė < 0 on the "
               "boundary of 𝓔, so 𝓔 is forward invariant.", _T + "test_singular_residual_too_large"),
    Hypothesis("end-in-ellipsoid", "z₁ᵀWz₁ < rho for z₁ = svec(S_N − Sigma_star): the tube's end lies inside 𝓔.",
               _T + "test_singular_tube_ends_outside_the_ellipsoid"),
)
_SCHEMA = {"Sigma_star": "rat[][]", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]", "prec": "int",
           "steps": "rat[]", "order": "int", "tube_prec": "int", "method": ("enum", "qr", "direct")}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_singular(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and converges to an equilibrium
    of rank d − 1 (regime CLUSTERING, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax with drift, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": d − 1}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or a check 2–6 fails.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, max_d=_MAX_D, psd=True)
    d = problem.d
    data = cert.data
    prec = int_in(data["prec"], "prec", 64, 4096, _bad)
    S_end, ts = replay_stored(pairs, F, S0, data, _bad, TUBE_ORDER, TUBE_STEPS)
    check_singular_end(pairs, F, S_end, data, d, prec, _bad)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": d - 1})
