r"""Checker of ``schedule-phases`` certificates: a depth schedule composed phase by phase.

The embedded problem has a depth schedule (docs/schedules.md).  Its segments (maximal depth
intervals of one parameter function, :func:`symbolic_tf.spec.schedule.segments`) are recomputed
from the problem; the certificate lists the segments it crosses, [t_0 = 0, t_1], …,
[t_{m−1}, T_c], which must be exactly the recomputed ones cut at T_c, each with the flow map
that carries the state across it.  Starting from the exact S = Σ₀, each is re-verified here:

``riccati``  softmax with V(t) = v(t)·I and no drift (F ≡ 0), entries polynomial in t, S an
    exact point.  With R(t) = v(t)·scale·(A(t) + A(t)ᵀ) and W(τ) = ∫_{t_k}^{t_k+τ} R(s) ds
    (exact polynomials), the solution is Σ(t_k + τ) = S(I − W(τ)S)⁻¹ as long as
    p(τ) = det(I − W(τ)S) ≠ 0; p(0) = 1, and p has no real root in [0, h] (counted exactly by
    Sturm sequences) ⇒ the solution exists on the segment and its end point is the exact
    rational S(I − W(h)S)⁻¹.  If instead the record states a blow-up bracket [T_lo, T_hi]
    (global depths in the segment), p must have no root in [0, T_lo − t_k] and one in
    [T_lo − t_k, T_hi − t_k]: with S = BDBᵀ, p(τ) = det D·det(D⁻¹ − BᵀW(τ)B), so the first root is
    where X(τ) = D⁻¹ − BᵀW(τ)B stops being positive definite and Σ = BX⁻¹Bᵀ is unbounded — the
    claim is BLOWUP with T* ∈ [T_lo, T_hi] and this must be the last record.
``linear``   V ≡ 0 and a constant drift F: Σ(t_k + h) = e^{hF} S e^{hFᵀ}, an arb enclosure
    (exactly S when F = 0).
``tube``     constant parameters: the stored validated Taylor tube (exact step times from 0 to
    h, order, precision, wrapping method) is replayed from S (a point or a box) with
    :mod:`symbolic_tf.certify.check.tube_replay`.
``tube-t``   any segment (parameters polynomial in t, any V, drift allowed): the stored tube is
    replayed from S with the depth as an extra state (ṫ = 1),
    :mod:`symbolic_tf.certify.check.tube_time`.

The end state S_c ∋ Σ(T_c) is then used in one of two ways:

* with a ``tail`` — a complete certificate of a **constant** kind for the problem whose
  parameters are the schedule's at T_c (those of the last, infinite segment; they must be
  constant) — the tail is checked by :func:`symbolic_tf.certify.check.derive`.  Its claim must
  be a regime that covers Σ(T_c): a point claim ("this Σ₀") needs S_c exact and equal to the
  tail's Σ₀; a class claim (every Σ₀ ≻ 0, ⪰ 0, ≠ 0, of rank r) is decided by rank Σ(T_c) =
  rank Σ₀ (the congruence Σ(t) = Φ(t)Σ₀Φ(t)ᵀ, Φ invertible while the solution exists).  The
  derived claim is about Σ₀ of the scheduled problem: a blow-up bracket is shifted by T_c; a
  stationary end point becomes convergence to Σ* = S_c; a growth rate is dropped (the phases
  before T_c may grow faster).  With T_c = 0 (a schedule that never changes) the tail's claim
  is the claim, verbatim.
* with ``rest`` (the last phase has V ≡ 0 and F ≡ 0, so Σ̇ = 0 after T_c — how ``symtf steer``
  holds its end point), the claim is EQUILIBRIUM: Σ(t) = Σ(T_c) for t ≥ T_c, enclosed by the
  stated centre and radius, which must contain S_c (an exact end point goes through a
  ``stationary`` tail instead and gives Σ* exactly);
* otherwise, the claim is the property "schedule-endpoint": the solution exists on [0, T_c] and
  Σ(T_c) lies in the stated rational box, which must contain S_c.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from ....exact.rational import Q, frac_str, fraction_of, parse_frac, qmat
from ....spec.errors import CertificationFailed
from ..flows import get as get_variant
from ....spec.schedule import leaves, problem_at, segments
from .. import Hypothesis, derive, kind
from ..claims import Claim, Quantifier, claim_words, mat_text
from ..schema import parse_rat, validate
from ..tube_replay import flow_pairs, replay_stored
from ..tube_time import poly_matrix, replay_time_tube

KIND = "schedule-phases"
FLOWS = ("riccati", "linear", "tube", "tube-t")
SEGMENT_SCHEMA = {"t0": "rat", "t1": "rat", "flow": ("enum",) + FLOWS, "steps?": "rat[]", "order?": "int",
                  "tube_prec?": "int", "method?": ("enum", "qr", "direct"), "T_lo?": "rat", "T_hi?": "rat"}
_LINEAR_PREC = 256
MAX_SEGMENTS = 64        # segments a certificate may cross (each is an exact or ball computation)
MAX_TOTAL_STEPS = 50_000  # validated tube steps over all segments (the single-tube kinds' limit)
MAX_D = 6                # as the validated tubes: bounds the exact polynomial determinants too


def _h(id_, statement, test):
    return Hypothesis(id_, statement, f"{_FORGERIES}::{test}")


_FORGERIES = "tests/soundness/forgeries/test_schedule.py"
#: the hypotheses of the composed argument, each checked below from the data
HYPOTHESES = (
    _h("one-softmax-head", "The embedded problem is one softmax-type head (Σ̇ = VΣÃΣ + ΣÃᵀΣVᵀ + FΣ + ΣFᵀ, "
       "Ã = c·τ·A) or a sum of such heads (C_h = W_hV_h; the checker's flow table), with a depth schedule, a "
       "Gaussian Σ₀ and d ≤ 6; the riccati closed form needs a single head.",
       "test_another_variant_is_rejected"),
    _h("segments-are-the-schedule", "The stored segments are exactly the schedule's maximal intervals of one "
       "parameter function, cut at T_c: [0, t₁], …, [t_{m−1}, T_c], none dropped, moved or merged.",
       "test_a_moved_segment_end_is_rejected"),
    _h("riccati-vI-no-drift", "A riccati segment has V(t) = v(t)·I and no drift (F ≡ 0) on the whole segment, so "
       "d/dt Σ⁻¹ = −v(t)τ(A(t) + A(t)ᵀ) and Σ(t_k + s) = S(I − W(s)S)⁻¹.",
       "test_riccati_segment_with_a_drift_is_rejected"),
    _h("riccati-exists", "On a riccati segment of length h, p(s) = det(I − W(s)S) has no root in [0, h] (Sturm "
       "count): the solution exists on the whole segment and its end point is the exact S(I − W(h)S)⁻¹.",
       "test_riccati_segment_through_a_blowup_is_rejected"),
    _h("riccati-exact-start", "A riccati segment starts from an exact point S (not a tube's box): the closed form "
       "and the Sturm count are about that one point.", "test_riccati_after_a_tube_is_rejected"),
    _h("linear-V-zero", "A linear segment has V ≡ 0 and a constant drift F: Σ̇ = FΣ + ΣFᵀ, so Σ(t_k + h) = "
       "e^{hF}S e^{hFᵀ} (S itself when F = 0).", "test_linear_segment_with_attention_is_rejected"),
    _h("tube-constant-phase", "A tube segment lies in a phase of constant parameters, and the replayed validated "
       "tube starts from the segment's start state and ends exactly at the segment's end.",
       "test_tube_on_a_polynomial_phase_is_rejected"),
    Hypothesis("tube-t-depth-as-state", "A tube-t segment replays a validated tube of the segment's own flow "
               "Σ̇ = f(t, Σ) with its polynomial-in-t parameters (V(t), τ·A(t), F(t)) and the depth as a state (ṫ = 1): "
               "Taylor coefficients at each exact step start, Picard test and Lagrange remainder over the whole step "
               "[t_i, t_i + h]; it starts from the segment's start state and ends exactly at the segment's end.",
               "tests/soundness/forgeries/test_schedule_time_tube.py::test_a_tube_of_another_flow_is_rejected"),
    _h("blowup-last-riccati", "A blow-up bracket is stated only by the last segment, a riccati one, with no tail and "
       "no end box (nothing is claimed after T*).", "test_blowup_followed_by_a_tail_is_rejected"),
    _h("blowup-bracket-closed", "A blow-up record gives both ends T_lo and T_hi of the bracket.",
       "test_blowup_with_only_T_lo_is_rejected"),
    _h("blowup-first-root", "With t_k the segment's start, 0 ≤ T_lo − t_k ≤ T_hi − t_k ≤ h, p has no root in "
       "[0, T_lo − t_k] and one in [T_lo − t_k, T_hi − t_k]: the first root of p, where D⁻¹ − BᵀW(s)B stops being "
       "positive definite (S = BDBᵀ, S ≠ 0), is the blow-up time T* ∈ [T_lo, T_hi].",
       "test_blowup_bracket_after_the_blowup_is_rejected"),
    _h("tail-at-last-phase", "A tail starts at T_c, the start of the schedule's last segment, whose parameters are "
       "constant for all t ≥ T_c (the tail's kind assumes constant parameters).",
       "test_tail_before_the_last_phase_is_rejected"),
    _h("tail-proves-a-regime", "The tail is a checked certificate of a constant kind, status PROVED, that proves its "
       "stated claim, and that claim is a regime of Σ₀ (not a property).", "test_property_tail_is_rejected"),
    _h("tail-same-parameters", "The tail embeds a problem whose parameters (variant, A, V, F, b, τ, d) are the "
       "schedule's at T_c; only Σ₀ and the horizon may differ.", "test_tail_of_other_parameters_is_rejected"),
    _h("tail-covers-end", "The tail's claim covers Σ(T_c): a point claim needs the exact end point equal to the "
       "tail's Σ₀; a class claim (every Σ₀ ≻ 0, ⪰ 0 nonzero, ⪰ 0, of rank r) must contain rank Σ(T_c) = rank Σ₀ "
       "(Σ(t) = Φ(t)Σ₀Φ(t)ᵀ, Φ invertible while the solution exists).",
       "test_class_tail_not_covering_a_singular_start_is_rejected"),
    _h("rest-zero-field", "With rest, the last segment starts at T_c, is constant and has V ≡ 0 and F ≡ 0, so Σ̇ = 0 "
       "and Σ(t) = Σ(T_c) for every t ≥ T_c.", "test_rest_with_a_moving_last_phase_is_rejected"),
    _h("rest-box", "With rest, the stated equilibrium box (entries within r ≥ 0 of the centre) contains the "
       "certified enclosure of Σ(T_c).", "test_rest_box_too_small_is_rejected"),
    _h("endpoint-box", "Without a tail or rest, the stated end box lo ≤ Σ(T_c) ≤ hi (entrywise) contains the "
       "certified enclosure of Σ(T_c) at the stated T = T_c.", "test_end_box_not_containing_the_end_is_rejected"),
)


def _fail(msg):
    raise CertificationFailed(f"{KIND} certificate: {msg}")


def temperature(problem) -> Fraction:
    """c·τ, the effective temperature of a single quadratic head (Ã = c·τ·A), or fail.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        A problem with a depth schedule.

    Returns
    -------
    Fraction
        :attr:`Variant.quadratic_factor` times the problem's temperature.
    """
    v = get_variant(problem.variant)
    if v.composite or v.quadratic_factor is None:
        _fail(f"covers one quadratic (softmax-type) head, not {str(problem.variant)[:40]!r}")
    return parse_frac(v.quadratic_factor) * fraction_of(problem.scale)


def _is_zero_param(param) -> bool:
    return param is None or all(all(c == 0 for c in p) for p in leaves(param))


def _poly(c) -> flint.fmpq_poly:
    """The polynomial with coefficients ``c`` (constant first) of a schedule leaf."""
    return flint.fmpq_poly([Q(x) for x in c])


def _det(M: list) -> flint.fmpq_poly:
    """det M for a square matrix of polynomials, by Laplace expansion along the first row
    (exact; the schedules' d is small, and the determinant does not depend on the method)."""
    n = len(M)
    if n == 1:
        return M[0][0]
    out = flint.fmpq_poly(0)
    for j in range(n):
        if M[0][j] != 0:
            minor = [row[:j] + row[j + 1:] for row in M[1:]]
            out += (-1) ** j * M[0][j] * _det(minor)
    return out


def riccati_poly(seg, problem, S: flint.fmpq_mat):
    """(p, W) of a ``riccati`` segment from the exact S: W(τ) = ∫_{t_k}^{t_k+τ} R(s) ds and
    p(τ) = det(I − W(τ)S) ∈ ℚ[τ], or fail when V is not v(t)·I or there is a drift.

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment (start ``t0``, parameters ``seg.get(name)``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem (d, temperature).
    S : flint.fmpq_mat
        The exact start point.

    Returns
    -------
    tuple of (flint.fmpq_poly, list of list of flint.fmpq_poly)
        (p, W): p(τ) = det(I − W(τ)S) and the matrix W(τ), polynomials in τ.
    """
    d = problem.d
    A, V = seg.get("A"), seg.get("V")
    if A is None or V is None or not _is_zero_param(seg.get("F")):
        _fail(f"riccati segment at t = {frac_str(seg.t0)}: needs A, V and no drift")
    v = V[0][0]
    if any(V[i][j] != (v if i == j else (Fraction(0),)) for i in range(d) for j in range(d)):
        _fail(f"riccati segment at t = {frac_str(seg.t0)}: V(t) is not v(t)·I")
    sc = Q(temperature(problem))
    shift = flint.fmpq_poly([Q(seg.t0), 1])  # s = t_k + u
    vs = _poly(v)
    # W_ij(τ) = ∫_0^τ r_ij(t_k + u) du: the antiderivative vanishing at 0
    W = [[(vs * sc * (_poly(A[i][j]) + _poly(A[j][i])))(shift).integral() for j in range(d)] for i in range(d)]
    IWS = [[flint.fmpq_poly(int(i == j)) - sum((W[i][k] * S[k, j] for k in range(d)), flint.fmpq_poly(0))
            for j in range(d)] for i in range(d)]
    return _det(IWS), W


def _sign_changes(chain: list, x: flint.fmpq) -> int:
    signs = [s for s in ((f(x) > 0) - (f(x) < 0) for f in chain) if s != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def _roots_in(p: flint.fmpq_poly, a: Fraction, b: Fraction) -> int:
    """The number of distinct real roots of p in [a, b] (Sturm's theorem on the square-free part:
    V(a) − V(b) roots in (a, b], plus a itself)."""
    if p.degree() <= 0:
        return 0
    g = p // p.gcd(p.derivative())
    chain = [g, g.derivative()]
    while chain[-1].degree() > 0:
        chain.append(-(chain[-2] % chain[-1]))
    if chain[-1] == 0:
        chain.pop()
    qa, qb = Q(a), Q(b)
    return _sign_changes(chain, qa) - _sign_changes(chain, qb) + int(g(qa) == 0)


def riccati_end(seg, problem, S: flint.fmpq_mat, h: Fraction) -> flint.fmpq_mat:
    """The exact end point of a ``riccati`` segment of length h from the exact S (or fail).

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment (start ``t0``, parameters ``seg.get(name)``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem (d, temperature).
    S : flint.fmpq_mat
        The exact start point.
    h : fractions.Fraction
        The segment's length.

    Returns
    -------
    flint.fmpq_mat
        S(I − W(h)S)⁻¹, once p has no root in [0, h] (Sturm count).
    """
    p, W = riccati_poly(seg, problem, S)
    if _roots_in(p, Fraction(0), h) != 0:
        _fail(f"riccati segment at t = {frac_str(seg.t0)}: det(I − W(τ)Σ) vanishes in [0, {frac_str(h)}]: "
              "the solution does not exist on the whole segment")
    hq = Q(h)
    d = problem.d
    Wh = flint.fmpq_mat(d, d, [W[i][j](hq) for i in range(d) for j in range(d)])
    return S * (flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)]) - Wh * S).inv()


def riccati_blowup(seg, problem, S: flint.fmpq_mat, h: Fraction, lo: Fraction, hi: Fraction) -> None:
    """Fail unless the solution from S blows up at t_k + τ*, τ* ∈ (lo, hi] ⊆ (0, h]: p has no root
    in [0, lo] (so X(τ) ≻ 0 there) and one in [lo, hi] (X(τ) singular: Σ unbounded as τ → τ*).

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment (start ``t0``, parameters ``seg.get(name)``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem (d, temperature).
    S : flint.fmpq_mat
        The exact start point.
    h : fractions.Fraction
        The segment's length.
    lo, hi : fractions.Fraction
        The stated bracket of τ* relative to the segment's start, 0 ≤ lo ≤ hi ≤ h.
    """
    if not (0 <= lo <= hi <= h):
        _fail(f"riccati blow-up at t = {frac_str(seg.t0)}: need 0 ≤ τ_lo ≤ τ_hi ≤ h")
    p, _ = riccati_poly(seg, problem, S)
    if _roots_in(p, Fraction(0), lo) != 0 or _roots_in(p, lo, hi) < 1:
        _fail(f"riccati blow-up at t = {frac_str(seg.t0)}: det(I − W(τ)Σ) has no first root in [τ_lo, τ_hi]")


def linear_end(seg, problem, S, h: Fraction):
    """The end of a ``linear`` segment (V ≡ 0, constant F): S itself when F = 0, else an arb
    enclosure of e^{hF}Se^{hFᵀ}.

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment (start ``t0``, parameters ``seg.get(name)``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem (d, temperature).
    S : flint.fmpq_mat or flint.arb_mat
        The start point or box.
    h : fractions.Fraction
        The segment's length.

    Returns
    -------
    flint.fmpq_mat or flint.arb_mat
        S (F = 0) or the ball enclosure of e^{hF}Se^{hFᵀ}.
    """
    if seg.get("V") is None or not _is_zero_param(seg.get("V")):
        _fail(f"linear segment at t = {frac_str(seg.t0)}: V is not zero")
    Fp = seg.get("F")
    if _is_zero_param(Fp):
        return S
    if any(len(c) > 1 for c in leaves(Fp)):
        _fail(f"linear segment at t = {frac_str(seg.t0)}: F depends on t")
    F = qmat([[c[0] for c in row] for row in Fp])
    with working_precision(_LINEAR_PREC):
        E = (flint.arb_mat(F) * flint.arb(Q(h))).exp()
        return E * flint.arb_mat(S) * E.transpose()


def tube_end(seg, problem, S, h: Fraction, data: dict):
    """The end box of a ``tube`` segment: the stored tube replayed from S on [0, h].

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment (start ``t0``, parameters ``seg.get(name)``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem (d, temperature).
    S : flint.fmpq_mat or flint.arb_mat
        The start point or box.
    h : fractions.Fraction
        The segment's length (the tube must end exactly at h).
    data : dict
        The segment record (``steps``, ``order``, ``tube_prec``, ``method``).

    Returns
    -------
    flint.arb_mat
        The box ∋ Σ(t_k + h).
    """
    if not seg.constant:
        _fail(f"tube segment at t = {frac_str(seg.t0)}: validated tubes cover constant phases only")
    pairs, F = flow_pairs(problem_at(problem, seg.t0), _fail)
    for key in ("steps", "order", "tube_prec", "method"):
        if key not in data:
            _fail(f"tube segment at t = {frac_str(seg.t0)}: missing {key}")
    box, ts = replay_stored(pairs, F, S, data, _fail)
    if ts[-1] != Q(h):
        _fail(f"tube segment at t = {frac_str(seg.t0)}: the tube ends at {ts[-1]}, the segment has length {frac_str(h)}")
    return box


def time_heads(seg, problem):
    """([(C_h(t), Ã_h(t))], F(t) or None) of a segment, as matrices of flint polynomials in the global t.

    The heads are the checker's own map from parameters to the quadratic field
    (:func:`~symbolic_tf.certify.check.flows.quadratic_heads`: C = V, Ã = c·τ·A for one head;
    C_h = W_hV_h, Ã_h = c_h·τ·A_h for several), applied to the segment's parameters at the exact
    depths t_0 + j, j = 0, …, n, and interpolated exactly (Lagrange over ℚ): that map multiplies at
    most two parameters (W_h and V_h), so each entry is a polynomial of degree ≤ n = 2·(the
    segment's largest degree) and n + 1 values determine it.

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment.
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem.

    Returns
    -------
    tuple
        (heads, F) for :func:`symbolic_tf.certify.check.tube_time.replay_time_tube`.
    """
    n = 2 * max(len(c) - 1 for _, param in seg.params for c in leaves(param))
    nodes = [seg.t0 + j for j in range(n + 1)]
    samples = [flow_pairs(problem_at(problem, t, phase_of=seg.t0), _fail)[0] for t in nodes]
    d = problem.d
    xs = [Q(t) for t in nodes]

    def interpolate(values):
        out = flint.fmpq_poly(0)
        for j, (xj, yj) in enumerate(zip(xs, values)):
            if yj == 0:
                continue
            basis = flint.fmpq_poly(1)
            for m, xm in enumerate(xs):
                if m != j:
                    basis = basis * flint.fmpq_poly([-xm, 1]) / (xj - xm)
            out += yj * basis
        return out

    heads = []
    for h in range(len(samples[0])):
        heads.append(tuple([[interpolate([samples[j][h][w][a, b] for j in range(n + 1)]) for b in range(d)]
                            for a in range(d)] for w in (0, 1)))
    return heads, None if _is_zero_param(seg.get("F")) else poly_matrix(seg.get("F"))


def time_tube_end(seg, problem, S, h: Fraction, data: dict):
    """The end box of a ``tube-t`` segment: the stored tube replayed from S on [t_k, t_k + h] with
    the depth as a state (:func:`symbolic_tf.certify.check.tube_time.replay_time_tube`).

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment.
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem.
    S : flint.fmpq_mat or flint.arb_mat
        The start point or box.
    h : fractions.Fraction
        The segment's length (the tube must end exactly at h).
    data : dict
        The segment record (``steps``, ``order``, ``tube_prec``, ``method``).

    Returns
    -------
    flint.arb_mat
        The box ∋ Σ(t_k + h).
    """
    for key in ("steps", "order", "tube_prec", "method"):
        if key not in data:
            _fail(f"tube-t segment at t = {frac_str(seg.t0)}: missing {key}")
    heads, F = time_heads(seg, problem)
    box, ts = replay_time_tube(heads, F, seg.t0, S, data, _fail)
    if ts[-1] != Q(h):
        _fail(f"tube-t segment at t = {frac_str(seg.t0)}: the tube ends at {ts[-1]}, the segment has length "
              f"{frac_str(h)}")
    return box


def advance(seg, problem, S, data: dict):
    """The state at the end of segment ``seg`` (exact fmpq_mat or arb_mat box) from S.

    Parameters
    ----------
    seg : symbolic_tf.spec.schedule.Segment
        The schedule segment (start ``t0``, parameters ``seg.get(name)``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded scheduled problem (d, temperature).
    S : flint.fmpq_mat or flint.arb_mat
        The state at the segment's start (``riccati`` needs it exact).
    data : dict
        The segment record: ``t1`` (Fraction or string), ``flow`` (``riccati``, ``linear`` or ``tube``)
        and the tube fields.

    Returns
    -------
    flint.fmpq_mat or flint.arb_mat
        The state at ``t1`` (:func:`riccati_end`, :func:`linear_end` or :func:`tube_end`).
    """
    h = data["t1"] - seg.t0 if isinstance(data["t1"], Fraction) else parse_rat(data["t1"]) - seg.t0
    flow = data["flow"]
    if flow == "riccati":
        if not isinstance(S, flint.fmpq_mat):
            _fail(f"riccati segment at t = {frac_str(seg.t0)}: needs an exact start point")
        return riccati_end(seg, problem, S, h)
    if flow == "linear":
        return linear_end(seg, problem, S, h)
    if flow == "tube-t":
        return time_tube_end(seg, problem, S, h, data)
    return tube_end(seg, problem, S, h, data)


def cut_segments(problem, T_c: Fraction) -> list:
    """The schedule's segments intersecting [0, T_c), the last one cut at T_c.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The scheduled problem.
    T_c : fractions.Fraction
        The cut depth.

    Returns
    -------
    list of (symbolic_tf.spec.schedule.Segment, fractions.Fraction)
        (segment, its end min(t1, T_c)) for the segments starting before T_c.
    """
    out = []
    for seg in segments(problem.schedule):
        if seg.t0 >= T_c:
            break
        out.append((seg, T_c if seg.t1 is None or seg.t1 > T_c else seg.t1))
    return out


def _covers_rank(claim: Claim, rank: int, d: int) -> bool:
    q = claim.quantifier
    return (q is Quantifier.EVERY_PSD or (q is Quantifier.EVERY_PD and rank == d)
            or (q is Quantifier.EVERY_NONZERO and rank > 0)
            or (q is Quantifier.EVERY_RANK and int(claim.params.get("sigma0_rank", -1)) == rank))


def _shift(x, T_c: Fraction) -> str:
    return frac_str(Q(parse_rat(x, "claim bracket") + T_c))


def composed_claim(tail: Claim, T_c: Fraction, end) -> Claim:
    """The claim about Σ₀ of the scheduled problem implied by the tail's claim about Σ(T_c).

    Parameters
    ----------
    tail : symbolic_tf.certify.check.claims.Claim
        The tail's checked regime claim about Σ(T_c).
    T_c : fractions.Fraction
        The depth where the tail starts.
    end : flint.fmpq_mat or flint.arb_mat
        The certified end state S_c ∋ Σ(T_c).

    Returns
    -------
    symbolic_tf.certify.check.claims.Claim
        The THIS-claim: a BLOWUP bracket shifted by T_c, the CLUSTERING rank, an EQUILIBRIUM Σ*
        (Σ* = S_c for a stationary tail), or BOUNDED / GLOBAL_EXISTENCE without parameters.
    """
    p, reg = tail.params, tail.subject
    if reg == "BLOWUP":
        out = {k: _shift(p[k], T_c) for k in ("T_lo", "T_hi") if k in p}
    elif reg == "CLUSTERING":
        out = {"rank": p["rank"]} if "rank" in p else {}
    elif reg == "EQUILIBRIUM":
        if p.get("stationary"):
            if not isinstance(end, flint.fmpq_mat):
                _fail("a stationary tail needs an exact end point")
            out = {"Sigma_star": [[frac_str(end[i, j]) for j in range(end.ncols())] for i in range(end.nrows())]}
        else:
            out = {k: p[k] for k in ("Sigma_star", "Sigma_mid", "r") if k in p}
    else:  # BOUNDED; GLOBAL_EXISTENCE without its rate
        out = {}
    return Claim(reg, Quantifier.THIS, out)


def _end_box_ok(end, lo, hi) -> bool:
    with working_precision(512):  # the bounds become (tight) balls; a comparison is accepted only when certain
        return _inside(end, lo, hi)


def _inside(end, lo, hi) -> bool:
    n = end.nrows()
    for i in range(n):
        for j in range(n):
            a, b = Q(lo[i][j]), Q(hi[i][j])
            if isinstance(end, flint.fmpq_mat):
                if not (a <= end[i, j] <= b):
                    return False
            elif not ((end[i, j] - flint.arb(a)) >= 0 and (flint.arb(b) - end[i, j]) >= 0):
                return False
    return True


@claim_words("schedule-endpoint")
def _schedule_endpoint(p):
    """A depth schedule's end point enclosed in a box (docs/schedules.md)."""
    return (f"the solution exists on [0, T], T = {p.get('T')}, and Σ(T) lies entrywise in the box "
            f"[{mat_text(p.get('lo', []))}, {mat_text(p.get('hi', []))}]")


@kind(KIND, {"T_c": "rat", "segments": "obj[]", "tail?": "obj", "lo?": "rat[][]", "hi?": "rat[][]",
            "rest?": "bool", "mid?": "rat[][]", "r?": "rat"}, schedules=True, hypotheses=HYPOTHESES)
def check_schedule(cert, problem):
    """PROVED: the tail's regime carried back to Σ₀, or Σ(T_c) in the stated box.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem with a depth schedule and Σ₀ (d ≤ the tubes' limit).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", claim)``: a BLOWUP bracket inside a riccati segment, the tail's regime carried
        back to Σ₀ (:func:`composed_claim`), EQUILIBRIUM at rest, or ``schedule-endpoint`` (Σ(T_c) in
        the stated box).

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the stored segments are not the schedule's, a segment does not re-verify, or the tail, the
        rest box or the end box does not cover Σ(T_c).
    """
    if problem is None or problem.schedule is None:
        _fail("needs an embedded problem with a depth schedule")
    if problem.cov is None:
        _fail("the problem has no Σ₀")
    flow_pairs(problem_at(problem, 0), lambda why: _fail(f"covers one quadratic (softmax-type) head or a sum of "
                                                         f"them, not {str(problem.variant)[:40]!r}: {why}"))
    if problem.d > MAX_D:
        _fail(f"covers d ≤ {MAX_D}")
    data = cert.data
    T_c = parse_rat(data["T_c"], "T_c")
    if T_c < 0:
        _fail("T_c must be ≥ 0")
    segs = cut_segments(problem, T_c)
    stored = data["segments"]
    if len(stored) > MAX_SEGMENTS:
        _fail(f"at most {MAX_SEGMENTS} segments")
    if len(stored) != len(segs):
        _fail(f"{len(stored)} segments stored, the schedule has {len(segs)} on [0, {frac_str(Q(T_c))}]")
    if sum(len(r.get("steps", [])) if isinstance(r, dict) and isinstance(r.get("steps"), list) else 0
           for r in stored) > MAX_TOTAL_STEPS + len(stored):
        _fail(f"at most {MAX_TOTAL_STEPS} tube steps over all segments")
    S = problem.exact.Sigma0
    for k, ((seg, t1), rec) in enumerate(zip(segs, stored)):
        validate(rec, SEGMENT_SCHEMA)
        if parse_rat(rec["t0"]) != seg.t0 or parse_rat(rec["t1"]) != t1:
            _fail(f"segment {k} is [{rec['t0']}, {rec['t1']}], the schedule's is "
                  f"[{frac_str(Q(seg.t0))}, {frac_str(Q(t1))}]")
        if "T_lo" in rec or "T_hi" in rec:  # the solution blows up inside this (last) segment
            if k != len(stored) - 1 or rec["flow"] != "riccati" or any(x in data for x in ("tail", "lo", "hi")):
                _fail("a blow-up is stated by the last segment only, a riccati one, with no tail or end box")
            if not isinstance(S, flint.fmpq_mat):
                _fail("a riccati blow-up needs an exact start point")
            if "T_lo" not in rec or "T_hi" not in rec:
                _fail("a blow-up bracket needs both ends T_lo and T_hi")
            T_lo, T_hi = parse_rat(rec["T_lo"]), parse_rat(rec["T_hi"])
            riccati_blowup(seg, problem, S, t1 - seg.t0, T_lo - seg.t0, T_hi - seg.t0)
            return "PROVED", Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(Q(T_lo)), "T_hi": frac_str(Q(T_hi))})
        S = advance(seg, problem, S, {**rec, "t1": t1})
    if "tail" in data:
        return _with_tail(problem, data["tail"], T_c, S)
    if data.get("rest"):
        return _at_rest(problem, data, T_c, S)
    if "lo" not in data or "hi" not in data:
        _fail("without a tail the end box lo, hi is needed")
    d = problem.d
    lo = [[parse_rat(x) for x in r] for r in data["lo"]]
    hi = [[parse_rat(x) for x in r] for r in data["hi"]]
    if len(lo) != d or len(hi) != d or any(len(r) != d for r in lo + hi):
        _fail("the end box has the wrong shape")
    if not _end_box_ok(S, lo, hi):
        _fail("the stated end box does not contain the enclosure of Σ(T_c)")
    box = {"T": frac_str(Q(T_c)), "lo": [[frac_str(Q(x)) for x in r] for r in lo],
           "hi": [[frac_str(Q(x)) for x in r] for r in hi]}
    return "PROVED", Claim("schedule-endpoint", Quantifier.THIS, box)


def _with_tail(problem, tail_dict, T_c: Fraction, end):
    from ....spec.problem import problem_to_dict
    from ..certificate import Certificate

    segs = segments(problem.schedule)
    last = segs[-1]
    if last.t0 != T_c or not last.constant:
        _fail("a tail starts where the last segment starts, and that segment must have constant parameters")
    tail = Certificate.from_dict(tail_dict)
    if tail.kind == KIND:
        _fail("a tail must be a certificate for constant parameters")
    try:
        status, claim, tail_problem = derive(tail)
    except CertificationFailed as exc:  # say that it is the tail which fails
        _fail(f"the tail certificate does not check: {str(exc)[:300]}")
    if status != "PROVED" or status != tail.status or not claim.same_as(tail.claim):
        _fail("the tail certificate does not prove its stated claim")
    if claim.regime is None:
        _fail("the tail's claim is not a regime")
    if tail_problem is None:
        _fail("the tail embeds no problem, so its parameters cannot be the schedule's last phase")
    want = problem_to_dict(problem_at(problem, T_c))
    got = problem_to_dict(tail_problem)
    for dct in (want, got):
        dct.pop("initial", None), dct.pop("T", None)
    if want != got:
        _fail("the tail is about other parameters than the schedule's last phase")
    if claim.quantifier is Quantifier.THIS:
        if not isinstance(end, flint.fmpq_mat) or qmat(tail_problem.cov) != end:
            _fail("a point tail must start exactly at the certified end point Σ(T_c)")
    elif not _covers_rank(claim, definiteness(problem.exact.Sigma0).pos, problem.d):
        _fail(f"the tail's claim ({claim.quantifier.value}) does not cover Σ(T_c), of rank rank Σ₀")
    if T_c == 0:
        return "PROVED", claim
    return "PROVED", composed_claim(claim, T_c, end)


def _at_rest(problem, data, T_c: Fraction, end):
    """The last phase has V ≡ 0 and F ≡ 0 (Γ = 0: Σ̇ = 0), so Σ(t) = Σ(T_c) for t ≥ T_c: an
    equilibrium enclosed by |Σ*_ij − mid_ij| ≤ r (the box end of a steering schedule)."""
    last = segments(problem.schedule)[-1]
    if any(x in data for x in ("lo", "hi")) or last.t0 != T_c or not last.constant:
        _fail("'rest' needs the last segment to start at T_c, constant, and no end box")
    if last.get("V") is None or not _is_zero_param(last.get("V")) or not _is_zero_param(last.get("F")):
        _fail("'rest' needs V ≡ 0 and F ≡ 0 in the last phase")
    d = problem.d
    mid = [[parse_rat(x) for x in r] for r in data.get("mid", [])]
    r = parse_rat(data.get("r", "-1"))
    if len(mid) != d or any(len(row) != d for row in mid) or r < 0:
        _fail("'rest' needs a d×d centre mid and a radius r ≥ 0")
    if not _end_box_ok(end, [[m - r for m in row] for row in mid], [[m + r for m in row] for row in mid]):
        _fail("the stated equilibrium box does not contain the enclosure of Σ(T_c)")
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS,
                           {"Sigma_mid": [[frac_str(Q(x)) for x in row] for row in mid], "r": frac_str(Q(r))})
