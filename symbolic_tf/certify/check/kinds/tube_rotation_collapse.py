"""Checker of ``tube-rotation-collapse``: *this* Σ₀ collapses, Σ(t) → 0 with the solution global,
while the top eigenvector of Σ keeps turning (d = 2, no drift; issue 15 item 2, "convergence of
this Σ₀ … to 0").

The mirror image of ``tube-rotation`` (:mod:`symbolic_tf.certify.check.kinds.tube_rotation`, whose notation
this module uses): in projective coordinates Σ = X/u, dτ = dt/u, tr X = 1, with the plane
X = ½[[1 + p, q], [q, 1 − p]], (p, q) = r(cos ψ, sin ψ), the neighbourhood
N = {(1 − r²)e^{η(ψ)} ≤ D0, r ≤ 1} of the rank-one circle and the functional G = −log u + φ(ψ).
The data and checks are those of ``tube-rotation`` with the sign of the growth check reversed
and no bracket:

1. d = 2, no drift, Σ₀ ⪰ 0 (exact); 0 < D0 < 1;
2. *invariance*: D' < 0 on the boundary D = D0 (exactly check 2 of ``tube-rotation``);
3. *decay*: κ_hi := upper(hull of G') < 0 over the pieces of N (ψ-pieces bisected
   deterministically at most ``max_depth`` times, [r_b, 1] cut into ``n_r`` pieces);
4. *the tube* from Σ₀ along the stored exact times ends inside N (check 4 of ``tube-rotation``).

**Why.**  Σ(t) = Φ(t)Σ₀Φ(t)ᵀ ⪰ 0, so r ≤ 1; by 2 the projective solution never leaves N, a compact
set on which the polynomial field is bounded, so it exists for all τ ≥ 0.  By 3,
G(τ) ≤ G₁ + κ_hi·τ, so log u(τ) = φ(ψ(τ)) − G(τ) ≥ φ_lo − G₁ + |κ_hi|·τ → ∞: u grows at least
exponentially.  Then t(τ) = t_N + ∫₀^τ u → ∞ — the solution from Σ₀ is global — and
‖Σ(t)‖ ≤ tr Σ = 1/u(τ(t)) → 0.  Claim CLUSTERING with rank 0 (collapse to a point) for THIS Σ₀.
"""
from __future__ import annotations

from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..tube_replay import replay_stored
from .tube_rotation import MAX_ORDER, MAX_STEPS, end_point, parse_region, planar_problem, region_bounds

KIND = "tube-rotation-collapse"


_bad = refusal(KIND)


def _region(pairs, data, fail):
    """Checks 1 (D0), 2 and 3: (κ_hi, D0, η, φ, prec), κ_hi < 0."""
    D0, eta, phi, n_psi, n_r, prec, max_depth = parse_region(data, fail)
    _k_lo, k_hi, _ph_lo, _ph_hi = region_bounds(pairs, D0, eta, phi, n_psi, n_r, prec, fail, max_depth, sign=-1)
    if not (k_hi < 0):
        fail("decay: the bound κ_hi of G' over N is not negative")
    return k_hi, D0, eta, phi, prec


def check_collapse_region(pairs, S_end, data, fail):
    """Checks 1 (D0), 2, 3 and 4 (after the tube) on the end box ``S_end``; returns κ_hi (arb).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h), A_h scaled by the temperature.
    S_end : flint.arb_mat
        The tube's end box.
    data : dict
        The certificate's data (D0, eta, phi, n_psi, n_r, prec, max_depth).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    flint.arb
        κ_hi < 0, the upper bound of G' over the neighbourhood N.
    """
    k_hi, D0, eta, phi, prec = _region(pairs, data, fail)
    with working_precision(prec):
        end_point(S_end, D0, eta, phi, fail)
    return k_hi


_SCHEMA = {"phi_a": "rat[]", "phi_b": "rat[]", "eta_a": "rat[]", "eta_b": "rat[]", "D0": "rat", "max_depth": "int",
           "n_psi": "int", "n_r": "int", "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct")}


_T = "tests/soundness/forgeries/test_rotation_collapse.py::"

HYPOTHESES = (
    Hypothesis("quadratic-flow", "The embedded problem's covariance flow is the (multi-head) softmax-type field "
               "Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) with constant parameters (no depth schedule, no ReLU term).",
               _T + "test_collapse_needs_the_quadratic_flow"),
    Hypothesis("no-drift", "F = 0: the flow is homogeneous quadratic, so the projective field on the trace-one "
               "plane does not involve u (a drift would add u·F terms the region checks do not bound).",
               _T + "test_collapse_refuses_a_drift"),
    Hypothesis("d-two", "d = 2: the region N lives on the trace-one plane X = ½[[1 + p, q], [q, 1 − p]] around "
               "its rank-one circle.", _T + "test_collapse_needs_d_two"),
    Hypothesis("sigma0-psd", "Σ₀ is an exact symmetric positive semidefinite matrix: Σ(t) ⪰ 0, so r ≤ 1 and the "
               "projective state cannot leave N through the circle.", _T + "test_collapse_sigma0_not_psd"),
    Hypothesis("D0-range", "0 < D0 < 1: N = {(1 − r²)e^{η(ψ)} ≤ D0, r ≤ 1} is a proper neighbourhood of the circle.",
               _T + "test_collapse_D0_out_of_range"),
    Hypothesis("boundary-in-disc", "D0·e^{−η(ψ)} < 1 for every ψ: the boundary of N is the curve "
               "r = √(1 − D0e^{−η(ψ)}) > 0, N is compact and avoids r = 0.",
               _T + "test_collapse_boundary_leaves_the_disc"),
    Hypothesis("invariance", "D' = D·(2(tr K − c) + η'(ψ)ψ') < 0 on the boundary D = D0 for every ψ: N is "
               "forward invariant, so the projective solution exists for all τ ≥ 0.",
               _T + "test_collapse_invariance_fails"),
    Hypothesis("decay", "G' = c + φ'(ψ)ψ' ≤ κ_hi < 0 over N: G = −log u + φ(ψ) decreases at least linearly, so "
               "u = 1/tr Σ grows exponentially in τ, t = ∫u dτ → ∞ and tr Σ → 0.",
               _T + "test_collapse_decay_fails"),
    Hypothesis("tube", "The validated tube replays from the exact Σ₀ at t = 0 along the stored exact times: the "
               "solution exists on [0, t_N] and Σ(t_N) lies in the end box.", _T + "test_collapse_tube_does_not_replay"),
    Hypothesis("sigma0-nonzero", "tr Σ(t_N) > 0 on the end box, so u₁ and X₁ are defined (Σ₀ = 0 is excluded: "
               "it needs no argument and has no projective state).", _T + "test_collapse_sigma0_zero"),
    Hypothesis("end-in-N", "The tube ends inside N: r₁ > 0 and (1 − r₁²)·e^{η(ψ₁)} < D0 on the end box.",
               _T + "test_collapse_tube_ends_outside_N"),
    Hypothesis("claim", "The claim is CLUSTERING with rank 0 (Σ(t) → 0, global) for THIS Σ₀, status PROVED; "
               "no bracket, no other rank or quantifier.", _T + "test_collapse_claim_rebound"),
)


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_rotation_collapse(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and Σ(t) → 0 (regime
    CLUSTERING, rank 0, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax, d = 2, no drift, Σ₀ ⪰ 0.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a check 1–4 of the module docstring fails.
    """
    pairs, S0 = planar_problem(cert, problem, _bad)
    # the region first (it does not depend on the tube), so that a failure names it
    _k_hi, D0, eta, phi, prec = _region(pairs, cert.data, _bad)
    S_end, _ts = replay_stored(pairs, None, S0, cert.data, _bad, MAX_ORDER, MAX_STEPS)
    with working_precision(prec):
        end_point(S_end, D0, eta, phi, _bad)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
