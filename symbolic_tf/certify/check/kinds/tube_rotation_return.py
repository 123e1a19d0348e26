"""Checker of ``tube-rotation-return``: blow-up of *this* Σ₀ with a bracket when the blow-up rotates in
any dimension d ≤ 4 — Σ becomes numerically rank one and its top eigenvector keeps running round a
closed loop while the size grows by a factor per turn (issue 15 item 2 (ii), the Poincaré-section
form).  Mathematics: docs/mathematics.md §8 ("Rotating blow-ups through a section").

(Multi-head) softmax without drift: Σ̇ = Q(Σ) is homogeneous quadratic.  In the projective
coordinates of :mod:`symbolic_tf.certify.check.projective` (Σ = X/u, dτ = dt/u),

    X' = Q(X) − c·X,   u' = −c·u,   s' = u,   c = tr Q(X),                                   (Φ)

with z = (svec X, u, s) the field's ``vec`` coordinates; any solution with u > 0 gives the covariance
solution Σ(t₀ + s(τ)) = X(τ)/u(τ), whatever tr X is.  X' does not involve u or s, and u', s' are
linear in u: the solution from (X, u₀, s₀) is (X(τ), u₀ũ(τ), s₀ + u₀s̃(τ)), where (X, ũ, s̃) is the
solution from (X, 1, 0).

**Data.**  The section {X_j = c} (``section`` = j < m = d(d+1)/2, ``level`` = c, ``sense``), a box B
of X's svec coordinates on it (``box_lo``, ``box_hi``, lo_j = hi_j = c), the projective tube from Σ₀
(``proj_steps``, ``proj_order``, ``proj_apriori``; its start is Z₀ = diag(Σ₀/tr Σ₀, 1/tr Σ₀, 0)), the
projective tube from B (``return_steps``: start diag(X, 1, 0), X ∈ B), ``tube_prec``, and the bracket
``T_lo``, ``T_hi``.

**Checks.**

1. no drift; (multi-head) softmax; d ≤ 4; Σ₀ ⪰ 0, tr Σ₀ > 0 (exact); 0 ≤ j < m, lo ≤ hi, lo_j = hi_j = c;
   Σ_k lo_kk > 0 (the diagonal entries of X; tr X > 0 on B);
2. the tube from Σ₀ replays and ends in a crossing window
   (:func:`~symbolic_tf.certify.check.section.crossing_enclosure`); the crossing enclosure's X part
   lies in B; its u part u₁ > 0; its s part s₁;
3. the tube from B replays and ends in a crossing window whose X part lies in B, u part μ with
   0 < μ < 1 and s part σ > 0 (certain, in balls);
4. T_lo ≤ lower(s₁) + lower(u₁)·lower(σ)/(1 − lower(μ)) and T_hi ≥ upper(s₁) + upper(u₁)·upper(σ)/(1 − upper(μ))
   (exact comparisons with the balls' end points).

**Why.**  By 2 the solution from Σ₀ exists on [0, t₁] and at t₁ = s₁ (the tube starts at t = 0) its
projective state is (X₁, u₁) with X₁ ∈ B.  By 3 and the scaling, from a state (X_k, u_k) at time t_k
with X_k ∈ B, the solution exists until it crosses again, at X_{k+1} ∈ B, u_{k+1} = u_kμ_k and
t_{k+1} = t_k + u_kσ_k, μ_k, σ_k in the balls of 3.  So u_k ≤ u₁·upper(μ)^{k−1} → 0, tr Σ(t_k) =
tr X_k/u_k → ∞ (tr X_k ≥ Σ lo_kk > 0), and t_k increases to T* = t₁ + Σ_k u_kσ_k ∈ [t₁ + u₁σ_lo/(1 − μ_lo),
t₁ + u₁σ_hi/(1 − μ_hi)]: the solution from Σ₀ exists on [0, T*) and is unbounded as t → T*.  Claim
BLOWUP for THIS Σ₀ with T* ∈ [T_lo, T_hi].
"""
from __future__ import annotations

import flint

from ....exact.ball import arb_lower, arb_upper
from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..krawczyk_box import rat
from ..projective import ProjectiveSeries, projective_start, replay_projective
from ..tube_replay import TUBE_ORDER, TUBE_STEPS, bracket_claim, int_in, svec_pairs, tube_problem
from ..section import SECTION_MAX_D, SECTION_SCHEMA, box_matrix, column_inside, crossing_of_states, section_data

KIND = "tube-rotation-return"
_bad = refusal(KIND)

_SCHEMA = {**SECTION_SCHEMA, "proj_steps": "rat[]", "proj_order": "int",
           "proj_apriori": ("enum", "picard", "taylor"), "return_steps": "rat[]", "tube_prec": "int",
           "T_lo": "rat", "T_hi": "rat"}


def _times(steps, fail):
    if len(steps) < 2 or len(steps) > TUBE_STEPS + 1:
        fail(f"its steps must be a list of 2..{TUBE_STEPS + 1} times")
    ts = [rat(x) for x in steps]
    if ts[0] != 0 or any(b <= a for a, b in zip(ts, ts[1:])):
        fail("its steps must start at 0 and increase strictly")
    return ts


def return_bracket(s1, u1, mu, sigma):
    """Balls bounding T* = t₁ + Σ_k u_kσ_k from below and above (check 4): lower(s₁) +
    lower(u₁)·lower(σ)/(1 − lower(μ)) and upper(s₁) + upper(u₁)·upper(σ)/(1 − upper(μ)); the expression
    increases in each of u₁, σ, μ on u₁, σ > 0, 0 < μ < 1.

    Parameters
    ----------
    s1, u1 : flint.arb
        The first crossing's time and size u = 1/tr Σ.
    mu, sigma : flint.arb
        The return's size ratio (0 < μ < 1) and elapsed time per unit size (σ > 0).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        The derived lower and upper bounds of T*.
    """
    def at(end):
        return flint.arb(end(s1)) + flint.arb(end(u1)) * flint.arb(end(sigma)) / (1 - flint.arb(end(mu)))

    return at(arb_lower), at(arb_upper)


def _leg(field, Z0, steps, name, data, section, sense, lo, hi, m):
    """Replay one projective tube; its crossing enclosure (X part inside B) as (E, u, s) balls.  Every
    failure names the leg ("the tube from Σ₀", "the tube from the box")."""
    def fail(msg):
        _bad(f"the tube from {name}: {msg}")

    ts = _times(steps, fail)
    states = []
    replay_projective(field, Z0, ts, int(data["proj_order"]), fail, apriori=data["proj_apriori"],
                      on_state=lambda _t, st: states.append(st))
    E, _a, _n = crossing_of_states(field, states, ts, section, lo[section], sense, int(data["proj_order"]), fail)
    X = flint.arb_mat(m, 1, [E[k, 0] for k in range(m)])
    if not column_inside(X, lo, hi, skip=section):
        fail("its crossing enclosure is not inside the section box")
    return E[m, 0], E[m + 1, 0]


_T = "tests/soundness/forgeries/test_rotation_return.py::"

HYPOTHESES = (
    Hypothesis("quadratic-flow", "The embedded problem's covariance flow is the (multi-head) softmax-type field "
               "Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) with constant parameters (no depth schedule, no ReLU term), "
               "in dimension d ≤ 4.", _T + "test_return_needs_the_quadratic_flow"),
    Hypothesis("no-drift", "F = 0: the projective field X' = Q(X) − cX, u' = −cu, s' = u has X' free of u and "
               "u', s' linear in u, so the solution from (X, u₀, s₀) is (X, u₀ũ, s₀ + u₀s̃) — one return "
               "tube from diag(B, 1, 0) serves every return.", _T + "test_return_refuses_a_drift"),
    Hypothesis("sigma0", "Σ₀ is exact, symmetric, positive semidefinite and tr Σ₀ > 0 (Σ₀ ≠ 0): the "
               "projective start diag(Σ₀/tr Σ₀, 1/tr Σ₀, 0) is defined.", _T + "test_return_sigma0_zero"),
    Hypothesis("section-box", "The section {X_j = c} is a coordinate of X (0 ≤ j < m = d(d+1)/2) and the box B "
               "lies on it: m corners each, lo ≤ hi, lo_j = hi_j = c.", _T + "test_return_section_box_malformed"),
    Hypothesis("box-trace", "tr X > 0 on B (Σ_k lo_kk > 0): at the returns tr Σ(t_k) = tr X_k/u_k ≥ "
               "(Σ_k lo_kk)/u_k, so u_k → 0 forces tr Σ → ∞.", _T + "test_return_box_trace_not_positive"),
    Hypothesis("first-crossing", "The projective tube from Σ₀ replays and ends in a crossing window of the "
               "section whose crossing enclosure has its X part in B: the solution reaches (X₁, u₁, s₁), "
               "X₁ ∈ B, at t₁ = s₁.", _T + "test_return_first_crossing_fails"),
    Hypothesis("return", "The projective tube from diag(B, 1, 0) replays and ends in a crossing window whose "
               "crossing enclosure has its X part in B again: every X ∈ B returns into B, with size ratio μ "
               "and elapsed time σ in the crossing's balls.", _T + "test_return_return_fails"),
    Hypothesis("first-size", "u₁ > 0 at the first crossing (the covariance is finite there).",
               _T + "test_return_first_size_and_return_time"),
    Hypothesis("shrink", "0 < μ < 1: each return multiplies u = 1/tr-scale by at most upper(μ) < 1, so "
               "u_k ≤ u₁·upper(μ)^{k−1} → 0 geometrically and T* = t₁ + Σ u_kσ_k is finite.",
               _T + "test_return_size_does_not_shrink"),
    Hypothesis("return-time", "σ > 0: each return takes a positive time u_kσ_k, so the t_k increase.",
               _T + "test_return_first_size_and_return_time"),
    Hypothesis("bracket", "T_lo ≤ T_hi, T_lo ≤ lower(s₁) + lower(u₁)·lower(σ)/(1 − lower(μ)) and "
               "T_hi ≥ upper(s₁) + upper(u₁)·upper(σ)/(1 − upper(μ)) (exact comparisons).",
               _T + "test_return_bracket_stretched"),
    Hypothesis("claim", "The claim is BLOWUP for THIS Σ₀ with the stored T_lo, T_hi, status PROVED.",
               _T + "test_return_claim_rebound"),
)


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_rotation_return(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ blows up at T* ∈ [T_lo, T_hi] (regime BLOWUP,
    quantifier THIS), by returns of its projective state to a box on a section.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax without drift, d ≤ 4, with Σ₀.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a tube does not replay, an end is not a crossing window, a crossing leaves the box, the
        size does not shrink per return, or the stored bracket does not contain the derived one.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, max_d=SECTION_MAX_D, psd=True)
    if F is not None and any(e != 0 for e in F.entries()):
        _bad("the rotation return needs a flow without drift (homogeneous)")
    data = cert.data
    d = problem.d
    up = svec_pairs(d)
    m = len(up)
    int_in(data["proj_order"], "proj_order", 1, TUBE_ORDER, _bad)
    tprec = int_in(data["tube_prec"], "tube_prec", 53, 4096, _bad)
    section, _c, sense, lo, hi = section_data(data, m, _bad)
    if not sum(lo[k] for k, (a, b) in enumerate(up) if a == b) > 0:
        _bad("tr X must be positive on the box: the sum of the lower corners of its diagonal entries is not positive")
    if not sum(S0[a, a] for a in range(d)) > 0:
        _bad("tr Σ₀ must be positive (Σ₀ = 0 is an equilibrium and has no projective start)")
    with working_precision(tprec):
        field = ProjectiveSeries(pairs, None)
        u1, s1 = _leg(field, projective_start(field, flint.arb_mat(S0), _bad), data["proj_steps"], "Σ₀", data,
                      section, sense, lo, hi, m)
        B = field.join(box_matrix(lo, hi, d), flint.arb(1), flint.arb(0))
        mu, sigma = _leg(field, B, data["return_steps"], "the box", data, section, sense, lo, hi, m)
        if not u1 > 0:
            _bad("the size at the first crossing: u₁ > 0 is not verified")
        if not (mu > 0 and mu < 1):
            _bad("the returns do not shrink the size: 0 < μ < 1 is not verified for the return's size ratio μ")
        if not sigma > 0:
            _bad("the return time: σ > 0 is not verified")
        return "PROVED", bracket_claim(data, *return_bracket(s1, u1, mu, sigma), _bad)
