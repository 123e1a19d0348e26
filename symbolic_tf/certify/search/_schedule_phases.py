r"""A depth schedule composed phase by phase, then the last phase decided from the end
state (certificate kind ``schedule-phases``, :mod:`symbolic_tf.certify.check.kinds.schedule_phases`;
docs/schedules.md).

Search: the segments of the schedule up to T_c — the start of the last segment when its
parameters are constant, else the horizon (the problem's T, else the classification's horizon,
else t_last + 2^j for j = 0, …, :data:`MAX_DOUBLINGS` until a blow-up is certified) — are crossed
one by one with the first flow map that applies: the exact Riccati closed form (one head,
V = v(t)·I, no drift, exact start), the linear flow (V ≡ 0, constant F), a validated Taylor tube
(constant phase, any V, any number of heads), or the tube with the depth as a state
(:mod:`~symbolic_tf.certify.search.validated.time_tube`, any phase depending on t).  The end
state is exact or a ball box.  The last phase (constant parameters) is then decided by the
whole registry of constant routes: in point mode from an exact end point, in uniform mode from
a box (a class claim covers Σ(T_c) through rank Σ(T_c) = rank Σ₀).  If nothing decides, the
proved statement is "Σ(T_c) lies in this box" and the regime stays UNDECIDED with the reason.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from ...exact.rational import decimal_fraction, fraction_of
from .routes import Context, declare, prove

_TUBE_SECONDS = 60.0
#: horizons searched when a t-dependent last phase has none: t_last + 2^j, j = 0, …, MAX_DOUBLINGS
MAX_DOUBLINGS = 10


def _rat_bounds(x, bits: int = 60) -> tuple[Fraction, Fraction]:
    """Rational lo ≤ hi with [lo, hi] ⊇ the ball x (outward on a 2^-bits grid)."""
    import math

    m, e = x.mid().man_exp()
    r, f = x.rad().mid().man_exp() if x.rad() != 0 else (0, 0)
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    rad = Fraction(int(r)) * Fraction(2) ** int(f)
    scale = 2 ** bits
    pad = rad + Fraction(1, scale)  # a little wider than the ball: the checker compares exactly
    return Fraction(math.floor((mid - pad) * scale), scale), Fraction(math.ceil((mid + pad) * scale), scale)


def _zero(param) -> bool:
    """A scheduled parameter that is absent or identically 0."""
    from ...spec.schedule import leaves

    return param is None or all(all(c == 0 for c in x) for x in leaves(param))


def _choose_flow(seg, exact: bool) -> str | None:
    """The flow map a segment is crossed with: ``linear`` (V ≡ 0, constant F), ``riccati``
    (V = v(t)·I, no drift, exact start), ``tube`` (constant parameters), else ``tube-t`` (the
    depth as a state)."""
    from ...spec.schedule import leaves

    V, F = seg.get("V"), seg.get("F")
    if V is None:  # several heads: no closed form is declared for their sum
        return "tube" if seg.constant else "tube-t"
    d = len(V)
    if _zero(V) and (F is None or all(len(c) == 1 for c in leaves(F))):
        return "linear"
    if exact and _zero(F) and all(V[i][j] == (V[0][0] if i == j else (0,)) for i in range(d) for j in range(d)):
        return "riccati"
    return "tube" if seg.constant else "tube-t"


def schedule_search(problem, ctx: Context):
    """A PROVED verdict with a ``schedule-phases`` certificate, or UNDECIDED with the reason.

    The depth T_c: the start of the last segment when it is constant; else the horizon (the
    problem's ``T``, else ``ctx.horizon`` read as its nearest decimal), else the doubling search
    of :func:`_search_horizons`."""
    from ...spec.schedule import segments

    last = segments(problem.schedule)[-1]
    if last.constant:
        return _compose(problem, ctx, last.t0)
    horizon = problem.T if problem.T is not None else (
        None if ctx.horizon is None else decimal_fraction(ctx.horizon))
    if horizon is not None and horizon > last.t0:
        return _compose(problem, ctx, horizon)
    return _search_horizons(problem, ctx, last.t0, horizon)


def _search_horizons(problem, ctx: Context, t_last: Fraction, given):
    """No horizon past the start of a t-dependent last phase: compose up to t_last + 2^j,
    j = 0, …, :data:`MAX_DOUBLINGS`, and stop at the first blow-up certified; otherwise the
    property proved at the largest horizon reached, with the reason."""
    from ...exact.rational import frac_str
    from ...spec.verdict import UNDECIDED, Verdict

    best, why = None, f"no blow-up up to t = {frac_str(t_last + 2 ** MAX_DOUBLINGS)}"
    for j in range(MAX_DOUBLINGS + 1):
        v = _compose(problem, ctx, t_last + 2 ** j)
        if _claim_subject(v) == "BLOWUP":
            v.reason = f"{v.reason} (found by doubling the horizon from t = {frac_str(t_last)}: t ≤ {frac_str(t_last + 2 ** j)})"
            return v
        if v.status == "UNDECIDED" and not v.evidence.get("certificate"):
            why = f"stopped at horizon {frac_str(t_last + 2 ** j)}: {v.reason}"
            break
        best = v
    head = ("" if given is None else f"the horizon {frac_str(given)} ends before the last phase starts; ") + \
        f"the last phase depends on t, horizons searched by doubling from t = {frac_str(t_last)} ({why})"
    if best is None:
        return Verdict(UNDECIDED, "", reason=head)
    best.reason = f"{head}; {best.reason}"
    best.evidence["certificate"].setdefault("notes", []).insert(0, head[:400])  # kept with the certificate
    return best


def _claim_subject(v) -> str | None:
    cert = v.evidence.get("certificate") if v.status == "PROVED" else None
    return None if cert is None else cert["claim"]["subject"]


def _compose(problem, ctx: Context, T_c: Fraction):
    """The schedule composed up to T_c (the module docstring): a verdict with its certificate."""
    import flint

    from ...exact.rational import frac_str, qmat_to_fractions
    from ...spec.errors import CertificationFailed
    from ...spec.schedule import problem_at, segments
    from ...spec.verdict import UNDECIDED, Verdict
    from ..check.kinds.schedule_phases import advance, cut_segments, time_heads
    from .validated.time_tube import integrate_time_tube
    from .validated.tube import flow_data, integrate_tube

    last = segments(problem.schedule)[-1]
    S = problem.exact.Sigma0
    records = []
    for seg, t1 in cut_segments(problem, T_c):
        exact = isinstance(S, flint.fmpq_mat)
        flow = _choose_flow(seg, exact)
        where = f"phase [{frac_str(seg.t0)}, {frac_str(t1)}]"
        rec = {"t0": frac_str(seg.t0), "t1": frac_str(t1), "flow": flow}
        if flow == "tube-t":
            heads_t, F_t = time_heads(seg, problem)
            tube = integrate_time_tube(heads_t, F_t, seg.t0, S, t1 - seg.t0, seconds=_TUBE_SECONDS)
            if not tube.complete:
                return Verdict(UNDECIDED, "", reason=f"{where} depends on t with no closed form; the validated tube "
                               f"with the depth as a state stopped ({tube.stop})")
            rec.update(steps=[frac_str(t) for t in tube.times], order=tube.order, tube_prec=tube.prec,
                       method=tube.method)
        if flow == "tube":
            heads, F = flow_data(replace(problem_at(problem, seg.t0), cov=problem.cov))
            tube = integrate_tube(heads, F, S, t1 - seg.t0, seconds=_TUBE_SECONDS)
            if not tube.complete:
                return Verdict(UNDECIDED, "", reason=f"{where}: the validated tube stopped ({tube.stop})")
            rec.update(steps=[frac_str(t) for t in tube.times], order=tube.order, tube_prec=tube.prec,
                       method=tube.method)
        if flow == "riccati":
            bracket = _riccati_first_root(seg, problem, S, t1 - seg.t0)
            if bracket is not None:
                rec.update(T_lo=frac_str(seg.t0 + bracket[0]), T_hi=frac_str(seg.t0 + bracket[1]))
                records.append(rec)
                return _finish(problem, {"T_c": frac_str(t1), "segments": records}, [], f"blow-up in {where}")
        try:
            S = advance(seg, problem, S, {**rec, "t1": t1})
        except CertificationFailed as exc:
            return Verdict(UNDECIDED, "", reason=f"{where}: {exc}")
        records.append(rec)
    data = {"T_c": frac_str(T_c), "segments": records}
    notes = []
    if last.constant and not isinstance(S, flint.fmpq_mat) and _zero(last.get("V")) and _zero(last.get("F")):
        # at rest after T_c (V ≡ 0, F ≡ 0): the box end is an enclosed equilibrium
        mid = [[_rat_bounds(S[i, j]) for j in range(problem.d)] for i in range(problem.d)]
        centre = [[(a + b) / 2 for a, b in row] for row in mid]
        r = max((b - a) / 2 for row in mid for a, b in row)
        v = _finish(problem, {**data, "rest": True, "mid": [[frac_str(x) for x in row] for row in centre],
                              "r": frac_str(r)}, [], f"{len(records)} phase(s) composed up to T_c = {frac_str(T_c)}, "
                    "then at rest (V = 0, F = 0)")
        if v.status != "UNDECIDED":
            return v
    if last.constant:
        exact = isinstance(S, flint.fmpq_mat)
        tail_problem = problem_at(replace(problem, cov=qmat_to_fractions(S) if exact else problem.cov), T_c)
        out = prove(tail_problem, Context(uniform=not exact, horizon=ctx.horizon))
        if out.claim is not None:
            data["tail"] = out.certificate
        else:
            notes.append("the last phase is not decided from the end state: " + "; ".join(out.reasons)[:400])
    if isinstance(S, flint.fmpq_mat):  # an exact end point: the box is that point
        lo = hi = [[frac_str(S[i, j]) for j in range(problem.d)] for i in range(problem.d)]
    else:
        lo, hi = [], []
        for i in range(problem.d):
            row = [_rat_bounds(S[i, j]) for j in range(problem.d)]
            lo.append([frac_str(a) for a, _ in row])
            hi.append([frac_str(b) for _, b in row])
    why = f"{len(records)} phase(s) composed up to T_c = {frac_str(T_c)}"
    if "tail" in data:
        v = _finish(problem, data, notes, why)
        if v.status != "UNDECIDED":
            return v
        notes.append(f"the tail does not cover Σ(T_c): {v.reason}"[:400])
        data.pop("tail")
    return _finish(problem, {**data, "lo": lo, "hi": hi}, notes, why)


def _finish(problem, data: dict, notes: list, why: str):
    """The certificate with the claim its checker derives (PROVED), or UNDECIDED with the reason."""
    from ...spec.errors import CertificationFailed
    from ...spec.verdict import PROVED, UNDECIDED, Verdict
    from ..check.certificate import Certificate
    from ..check import derive
    from ..check.claims import Claim, Quantifier
    from ..check.kinds.schedule_phases import KIND

    cert = Certificate.for_problem(problem, KIND, Claim("BOUNDED", Quantifier.THIS), PROVED, data, notes)
    try:
        status, claim, _ = derive(cert)
    except CertificationFailed as exc:
        return Verdict(UNDECIDED, "", reason=f"the composed certificate does not check: {exc}")
    cert.claim = claim
    if notes:
        why += f"; {notes[0]}"
    return Verdict(status, claim.text(), "schedule-composition", evidence={"certificate": cert.to_dict()}, reason=why)


def _riccati_first_root(seg, problem, S, h: Fraction, bits: int = 50):
    """(lo, hi) ⊂ [0, h], hi − lo ≤ 2^-bits·h, around the first root of det(I − W(τ)S), or None."""
    import sympy as sp

    from ._schedule_det import riccati_poly

    p, _, _ = riccati_poly(seg, problem, S)
    p = p.sqf_part()  # a repeated root (e.g. V = I, A = a(t)·I: p = (1 − w(τ))^d) isolates as a simple one
    if p.degree() <= 0:
        return None
    hq = sp.Rational(h.numerator, h.denominator)
    ivs = p.intervals(inf=0, sup=hq)
    if not ivs:
        return None
    (a, b), _ = min(ivs, key=lambda iv: iv[0][0])
    if a != b:
        a, b = p.refine_root(a, b, eps=hq / 2 ** bits)
    lo, hi = fraction_of(a), fraction_of(b)
    if lo == hi:  # an exact rational root: step just below it
        lo = max(Fraction(0), lo - h / 2 ** bits)
    return lo, hi


def _schedule_applies(problem, ctx):
    from .validated.tube import MAX_D

    if problem.schedule is None:
        return "covers depth schedules (constant problems go to the other routes)"
    from ...spec.errors import InvalidParameters
    from ...spec.schedule import problem_at
    from ...variants import quadratic_heads

    try:
        quadratic_heads(problem_at(problem, 0))
    except InvalidParameters:
        return "schedules are certified for quadratic (softmax-type) heads, one or several"
    if problem.cov is None and not ctx.uniform:
        return "needs Σ₀"
    return None if problem.d <= MAX_D else f"d ≤ {MAX_D}"


def _schedule_route_search(problem, ctx):
    if ctx.uniform:
        from ...spec.verdict import UNDECIDED, Verdict

        return Verdict(UNDECIDED, "", reason="a depth schedule is composed from this Σ₀ only; statements for "
                       "every Σ₀ of a class are not derived for schedules (classify without --uniform)")
    return schedule_search(problem, ctx)


# ---- route ----
declare("schedule-phases", 0, ("BLOWUP", "CLUSTERING", "EQUILIBRIUM", "BOUNDED", "GLOBAL_EXISTENCE"),
        _schedule_applies, _schedule_route_search, modes=("point", "uniform"), schedules=True,
        doc="The regime of this Σ₀ under a depth schedule, composed phase by phase; quadratic heads, Σ₀ given, "
            "d ≤ the tubes' limit.")
