"""Checker of ``tube-collapse``: *this* Σ₀ collapses — the solution is global and Σ(t) → 0 — for
(multi-head) softmax with a Hurwitz drift F and a general V (issue 15 item 2, "convergence of this
Σ₀ … to 0").

For Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) and a rational P ≻ 0, y = tr(PΣ) obeys

    ẏ = tr((PF + FᵀP)Σ) + 2 Σ_h tr(PC_hΣA_hΣ).

The certificate stores rationals P (d×d), lam, p_lo, n (one per head), c and a tube (steps,
order, tube_prec, method).  Verified:

1. (exact) P = Pᵀ, P − p_lo·I ⪰ 0, p_lo > 0, lam > 0; −(PF + FᵀP) − lam·P ⪰ 0, so for Σ ⪰ 0 the
   first term is ≤ −lam·y (tr(MΣ) ≤ 0 for M ⪯ 0 ⪯ Σ);
2. (exact) n_h ≥ 0 and n_h² ≥ ‖PC_h‖_F²·‖A_h‖_F², and c·p_lo² ≥ 2·Σ_h n_h.  For Σ ⪰ 0,
   |tr(PC_hΣA_hΣ)| ≤ ‖PC_h‖_F‖A_h‖_F‖Σ‖_F² and ‖Σ‖_F ≤ tr Σ ≤ y/p_lo, so the second term is
   ≤ c·y²;
3. the tube from the embedded exact Σ₀ (Σ₀ ⪰ 0) along the stored exact times: Σ(t_N) ∈ S_N, and
   the upper bound of tr(P·S_N) is < lam/c.

**Why.**  Σ(t) = Φ(t)Σ₀Φ(t)ᵀ stays ⪰ 0, so ẏ ≤ −lam·y + c·y² < 0 while 0 < y < lam/c: the set
{y < lam/c} is forward invariant, y(t) → 0 exponentially (the solution is global: Σ is bounded by
y/p_lo), and Σ(t) → 0.  Claim CLUSTERING with rank 0 (collapse to a point) for THIS Σ₀.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..krawczyk_box import rat, square
from ..tube_replay import TUBE_ORDER, TUBE_STEPS, replay_stored, tube_problem

KIND = "tube-collapse"

_T = "tests/soundness/forgeries/test_collapse.py::"
HYPOTHESES = (
    Hypothesis("problem-class", "The embedded problem is softmax or multi-head softmax with constant parameters, so "
               "Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) (A_h scaled by the temperature): the formula for "
               "the derivative of y = tr(PΣ) holds for that flow only.", _T + "test_collapse_other_variant"),
    Hypothesis("drift", "The problem has a drift F ≠ 0: without one the right-hand side is quadratic and 0 attracts "
               "nothing at first order (the Lyapunov inequality below cannot hold).", _T + "test_collapse_without_drift"),
    Hypothesis("sigma0-psd", "Σ₀ ⪰ 0, decided exactly: then Σ(t) = Φ(t)Σ₀Φ(t)ᵀ ⪰ 0 for all t, which both bounds "
               "of ẏ below need (tr(MΣ) ≤ 0 for M ⪯ 0, ‖Σ‖_F ≤ tr Σ).", _T + "test_collapse_sigma0_not_psd"),
    Hypothesis("P-positive-definite", "P = Pᵀ and P − p_lo·I ⪰ 0 with p_lo > 0, so on Σ ⪰ 0 "
               "y = tr(PΣ) ≥ p_lo·tr Σ ≥ p_lo·‖Σ‖_F.", _T + "test_collapse_p_lo_too_large"),
    Hypothesis("lyapunov", "lam > 0 and −(PF + FᵀP) − lam·P ⪰ 0 (exact), so the drift's part of ẏ, "
               "tr((PF + FᵀP)Σ), is at most −lam·y on Σ ⪰ 0.", _T + "test_collapse_lam_too_large"),
    Hypothesis("head-bounds", "One n_h per head with n_h ≥ 0 and n_h² ≥ ‖PC_h‖_F²·‖A_h‖_F², so "
               "∣tr(PC_hΣA_hΣ)∣ ≤ n_h·‖Σ‖_F².", _T + "test_collapse_head_bound_too_small"),
    Hypothesis("quadratic-rate", "c > 0 and c·p_lo² ≥ 2·Σ_h n_h, so the attention's part of ẏ, "
               "2·Σ_h tr(PC_hΣA_hΣ), is at most c·y² on Σ ⪰ 0: ẏ ≤ y·(c·y − lam).", _T + "test_collapse_c_too_small"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ along the stored exact times "
               "(every step's a priori enclosure verified), so the solution exists on [0, t_N] and Σ(t_N) lies in "
               "the end box S_N.", _T + "test_collapse_tube_step_too_long"),
    Hypothesis("end-below-level", "Every matrix of S_N has tr(PΣ) < lam/c: below that level ẏ < 0, so "
               "{tr(PΣ) < lam/c} is forward invariant, y(t) → 0 exponentially and Σ(t) → 0 (‖Σ‖_F ≤ y/p_lo).",
               _T + "test_collapse_tube_ends_above_the_level"),
    Hypothesis("claim", "The claim is what this argument gives: CLUSTERING with rank 0 (Σ(t) → 0) for this Σ₀ "
               "only — not another rank, not every Σ₀ (a large Σ₀ may blow up).",
               _T + "test_collapse_claim_for_every_sigma0"),
)


_bad = refusal(KIND)


def _fro2(M):
    return sum((x * x for x in M.entries()), flint.fmpq(0))


def check_collapse_bounds(pairs, F, data, d, fail):
    """Checks 1–2; returns (P, lam/c) exactly.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h), A_h scaled by the temperature.
    F : flint.fmpq_mat or None
        The exact drift (None fails: the origin is not attracting without it).
    data : dict
        The certificate's data (P, lam, p_lo, n, c).
    d : int
        The dimension.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq)
        (P, lam/c): the Lyapunov matrix and the level below which {tr(PΣ) < lam/c} is invariant.
    """
    if F is None:
        fail("needs a drift F (with F = 0 the origin is not attracting)")
    P = square(data["P"], d, "P", fail)
    if P != P.transpose():
        fail("P is not symmetric")
    lam, p_lo, c = rat(data["lam"]), rat(data["p_lo"]), rat(data["c"])
    n = [rat(x) for x in data["n"]]
    if len(n) != len(pairs):
        fail(f"n needs one bound per head ({len(pairs)})")
    if not p_lo > 0:
        fail("p_lo must be positive (P ≻ 0)")
    if not lam > 0:
        fail("lam must be positive (the drift's decay rate)")
    if not c > 0:
        fail("c must be positive (the quadratic rate)")
    if not all(x >= 0 for x in n):
        fail("every head bound n_h must be ≥ 0")
    eye = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    if not definiteness(P - eye * p_lo).psd:
        fail("P − p_lo·I is not positive semidefinite")
    if not definiteness(-(P * F + F.transpose() * P) - P * lam).psd:
        fail("−(PF + FᵀP) − lam·P is not positive semidefinite")
    for k, ((C, A), nk) in enumerate(zip(pairs, n)):
        if nk * nk < _fro2(P * C) * _fro2(A):
            fail(f"the head bound n[{k}]² < ‖PC‖_F²·‖A‖_F²")
    if c * p_lo * p_lo < 2 * sum(n, flint.fmpq(0)):
        fail("c·p_lo² < 2·Σ n_h")
    return P, lam / c


def end_inside(P, level, S_end, prec) -> bool:
    """tr(P·S_end) < level for every matrix of the ball S_end.

    Parameters
    ----------
    P : flint.fmpq_mat
        The exact P ≻ 0.
    level : flint.fmpq
        The level lam/c.
    S_end : flint.arb_mat
        The tube's end box.
    prec : int
        The arb precision in bits for the evaluation.

    Returns
    -------
    bool
        True when the ball tr(P·S_end) lies strictly below ``level``.
    """
    with working_precision(prec):
        d = P.nrows()
        y = sum((flint.arb(P[i, j]) * S_end[j, i] for i in range(d) for j in range(d)), flint.arb(0))
        return bool(y < flint.arb(level))


_SCHEMA = {"P": "rat[][]", "lam": "rat", "p_lo": "rat", "n": "rat[]", "c": "rat", "steps": "rat[]", "order": "int",
           "tube_prec": "int", "method": ("enum", "qr", "direct")}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_collapse(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and Σ(t) → 0 (regime
    CLUSTERING, rank 0, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax with a drift F, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When check 1, 2 or 3 of the module docstring fails.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, psd=True)
    d = problem.d
    data = cert.data
    P, level = check_collapse_bounds(pairs, F, data, d, _bad)
    S_end, ts = replay_stored(pairs, F, S0, data, _bad, TUBE_ORDER, TUBE_STEPS)
    if not end_inside(P, level, S_end, data["tube_prec"]):
        _bad("the tube's end is not below the level: tr(PΣ) < lam/c fails on the end box")
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
