"""Checker of ``tube-return``: *this* Σ₀ has a global, bounded solution because its flow keeps
returning to a box on a Poincaré section (issue 15 item 2, "global existence of this Σ₀"; the
oscillating solutions that no trace or quadratic functional bounds, e.g. a rank-one limit cycle of
the drift model).  Mathematics: docs/mathematics.md §8 ("Returns to a section").

For Σ̇ = f(Σ) = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) (F = 0 allowed), in the svec-upper
coordinates z = svec(Σ) (:func:`~symbolic_tf.certify.check.tube_replay.svec_pairs`).

**Data.**  The section {z_j = c} (``section`` = j, ``level`` = c, ``sense`` "increasing" or
"decreasing"), a box B = {lo ≤ z ≤ hi} on it (``box_lo``, ``box_hi``, with lo_j = hi_j = c), and
two tubes with the same ``order``, ``tube_prec`` and ``method``: ``steps`` from the problem's Σ₀,
``return_steps`` from the box B.

**Checks.**

1. an embedded (multi-head) softmax problem, with or without drift, d ≤ 4, Σ₀ ⪰ 0 (exact);
   0 ≤ j < m, lo_k ≤ hi_k, lo_j = hi_j = c;
2. the tube from Σ₀ replays (:func:`~symbolic_tf.certify.check.tube_replay.replay_stored`) and its end
   is a crossing window (:func:`~symbolic_tf.certify.check.section.crossing_enclosure`) whose
   crossing enclosure lies in B;
3. the tube from the ball box ⊇ B replays, and its end is a crossing window whose crossing
   enclosure lies in B; its window starts at t_a > 0 (a box *before* the section, so not t_0).

**Why.**  By 3, every solution from a point x ∈ B exists on [0, t_N'] and crosses the section
once in (t_a', t_N'), at τ(x) > t_a' > 0, at a point P(x) ∈ B.  By 2, the solution from Σ₀ exists
on [0, t_N] and crosses at some τ₀ at x₀ ∈ B.  By induction x_{k+1} = P(x_k) ∈ B is reached at
τ₀ + τ(x₀) + … + τ(x_k) ≥ τ₀ + (k + 1)·t_a' → ∞, and between returns Σ(t) lies in the tube from B.
So the solution from Σ₀ exists for all t ≥ 0 and stays in the union of the two tubes' enclosures, a
bounded set.  Claim BOUNDED for THIS Σ₀, with the return times' bracket [t_a', t_N'].  No fixed
point, contraction or periodic orbit is claimed: only that B maps into itself.
"""
from __future__ import annotations


from ....exact.precision import working_precision
from ....exact.rational import frac_str
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..krawczyk_box import rat
from ..tube_replay import TUBE_ORDER, TUBE_STEPS, Field, int_in, replay_stored, svec_pairs, tube_problem
from ..section import SECTION_MAX_D, SECTION_SCHEMA, box_matrix, column_inside, crossing_of_states, section_data

KIND = "tube-return"
_bad = refusal(KIND)

_SCHEMA = {**SECTION_SCHEMA, "steps": "rat[]", "return_steps": "rat[]", "order": "int",
           "tube_prec": "int", "method": ("enum", "qr", "direct")}


def _leg(pairs, F, start, data, steps, section, sense, lo, hi, what):
    """Replay one tube and check that its end is a crossing window with its crossings in B; returns
    (t_a, t_N).  Every failure names the leg ("the tube from Σ₀", "the tube from the box")."""
    def fail(msg):
        _bad(f"the tube from {what}: {msg}")

    states = []
    order = int(data["order"])
    replay_stored(pairs, F, start, {**data, "steps": steps}, fail, TUBE_ORDER, TUBE_STEPS,
                  on_state=lambda _t, st: states.append(st))
    ts = [rat(x) for x in steps]
    with working_precision(int(data["tube_prec"])):
        E, t_a, t_N = crossing_of_states(Field(pairs, F), states, ts, section, lo[section], sense, order, fail,
                                         qr=data["method"] == "qr")
        if not column_inside(E, lo, hi, skip=section):
            fail("its crossing enclosure is not inside the section box")
    return t_a, t_N


_T = "tests/soundness/forgeries/test_tube_return.py::"

HYPOTHESES = (
    Hypothesis("quadratic-flow", "The embedded problem's covariance flow is Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + "
               "ΣA_hᵀΣC_hᵀ) (softmax-type heads, a drift F allowed) with constant parameters (no depth schedule, "
               "no ReLU term), in dimension d ≤ 4: the tubes are tubes of this autonomous flow, so a return from "
               "B at any time is the same return.", _T + "test_tube_return_needs_the_quadratic_flow"),
    Hypothesis("sigma0-psd", "Σ₀ is an exact symmetric positive semidefinite matrix (a covariance).",
               _T + "test_tube_return_sigma0_not_psd"),
    Hypothesis("section-box", "The section {z_j = c} is a coordinate of z = svec Σ (0 ≤ j < m) and the box B lies "
               "on it: m corners each, lo ≤ hi, lo_j = hi_j = c.", _T + "test_tube_return_section_box_malformed"),
    Hypothesis("first-crossing", "The tube from Σ₀ replays and ends in a crossing window (boxes strictly before "
               "and after the section, the flow transversal over the window) whose crossing enclosure lies in B: "
               "the solution exists until it reaches x₀ ∈ B.", _T + "test_tube_return_first_crossing_fails"),
    Hypothesis("return", "The tube from (a ball box ⊇) B replays and ends in a crossing window whose crossing "
               "enclosure lies in B: every solution from a point of B exists until it returns into B, and stays "
               "in the tube's enclosures meanwhile.", _T + "test_tube_return_return_fails"),
    Hypothesis("return-after-start", "The return window starts at t_a' > 0: every return takes at least t_a', so "
               "infinitely many returns cover all t ≥ 0 (global existence).",
               _T + "test_tube_return_window_at_the_start"),
    Hypothesis("claim", "The claim is BOUNDED for THIS Σ₀ with the return times' bracket [t_a', t_N'] of the "
               "return tube, status PROVED.", _T + "test_tube_return_claim_rebound"),
)


# alike in shape to the other point-tube kinds' checkers (tube_problem, budgets, replay); the arguments differ
@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_return(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and bounded (regime BOUNDED,
    quantifier THIS): it reaches a box B on a section whose points all return to B.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax, with or without drift, d ≤ 4, with Σ₀.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED", THIS, {"return_time_lo", "return_time_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a tube does not replay, an end is not a crossing window, or a crossing leaves the box.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, max_d=SECTION_MAX_D, psd=True)
    data = cert.data
    d = problem.d
    m = len(svec_pairs(d))
    int_in(data["order"], "order", 1, TUBE_ORDER, _bad)
    int_in(data["tube_prec"], "tube_prec", 53, 4096, _bad)
    section, _c, sense, lo, hi = section_data(data, m, _bad)
    _leg(pairs, F, S0, data, data["steps"], section, sense, lo, hi, "Σ₀")
    with working_precision(int(data["tube_prec"])):
        B = box_matrix(lo, hi, d)
    t_a, t_N = _leg(pairs, F, B, data, data["return_steps"], section, sense, lo, hi, "the box")
    if not t_a > 0:
        _bad("the tube from the box: its return window must start after t = 0 (a box strictly before the section)")
    params = {"return_time_lo": frac_str(t_a),
              "return_time_hi": frac_str(t_N)}
    return "PROVED", Claim("BOUNDED", Quantifier.THIS, params)
