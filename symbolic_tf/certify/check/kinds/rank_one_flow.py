"""Checker of ``rank-one-flow`` certificates: a rank-one Σ₀ of a single-head quadratic flow with no drift
or a scalar drift F = fI, decided on the time-changed linear flow of its factor.

**The reduction.**  For Σ̇ = 2fΣ + CΣÃΣ + ΣÃᵀΣCᵀ and Σ₀ = c·wwᵀ (c > 0, w ≠ 0), Σ(t) = x(t)x(t)ᵀ with

    ẋ = f·x + (xᵀÃx)·Cx,        x(0) = √c·w

(substitute: ẋxᵀ + xẋᵀ is the right-hand side; the Σ-flow is locally Lipschitz, so this is *the* solution,
and ‖Σ‖ = |x|²).  With z = e^{−ft}x, ż = e^{2ft}(zᵀÃz)Cz: a time change of the linear flow of C.  For a sign
s = ±1 put C' = sC, Ã' = s·(Ã + Ãᵀ)/2, y(σ) = e^{C'σ}w and h(σ) = c·y(σ)ᵀÃ'y(σ), so h(0) > 0 picks s.  While
h > 0 on [0, σ], z(t) = √c·y(σ(t)) with dσ/dt = e^{2ft}h(σ), i.e.

    J(σ) := ∫₀^σ du/h(u) = (e^{2ft} − 1)/(2f)        (= t when f = 0).

**Ends** (data ``end``; every inequality re-derived here in ball arithmetic or exactly):

* ``zero`` — h > 0 on [σ₀, σ_{N−1}] and h(σ_N) < 0 on the stored knots σ₀ = 0 < … < σ_N.  The first zero
  σ₁ of h lies in (σ_{N−1}, σ_N), and h(u) ≤ L(σ₁ − u) near σ₁ (h is smooth), so J(σ) → ∞ as σ → σ₁: the
  solution is global.  f = 0: x(t) → √c·y(σ₁) ≠ 0 (e^{C'σ₁} is invertible), so Σ(t) converges to a limit of
  rank 1 — CLUSTERING of rank 1.  f < 0: t reaches ∞ when J = −1/(2f), before σ₁; there z stays bounded and
  x = e^{ft}z → 0 — CLUSTERING of rank 0.  (f > 0 is refused: Σ grows like e^{2ft} without a stated rate.)
* ``zero-linear`` — Ã' = λ·aaᵀ exactly (λ > 0, a rational), so h = c·λ·(aᵀy)² ≥ 0 touches 0 where aᵀy
  changes sign; aᵀy(σ_N) has the sign opposite to aᵀw.  At the first zero σ₁ of aᵀy, h(u) ≤ L(σ₁ − u)² and
  J → ∞ again: the same conclusions as ``zero``.
* ``blowup`` — h > 0 on every [σ_k, σ_{k+1}] up to σ_c = σ_N, and a cone argument beyond: exact rationals
  G = Gᵀ, α, κ > 0, β ≥ 0 with

      GC' + C'ᵀG − αG ⪰ 0,        Ã'C' + C'ᵀÃ' − κÃ' − βG ⪰ 0        (exact inertia over ℚ),

  and y(σ_c)ᵀGy(σ_c) > 0, h(σ_c) > 0.  Then q = yᵀGy has q' ≥ αq, so q ≥ 0 for σ ≥ σ_c (Grönwall); on
  {q ≥ 0}, h' = yᵀ(Ã'C' + C'ᵀÃ')y ≥ κh + βq ≥ κh, so h(σ) ≥ h(σ_c)e^{κ(σ − σ_c)}: h > 0 on [0, ∞),
  I = J(∞) ≤ Σ_k (σ_{k+1} − σ_k)/min h + 1/(κ·h(σ_c)) is finite, and h → ∞ forces |y| → ∞.  f = 0: the
  solution blows up at T* = I (if it extended past I, y would be bounded on [0, ∞) and I infinite).  f ≠ 0 and
  1 + 2f·I > 0 for the whole bracket: T* = ln(1 + 2f·I)/(2f), increasing in I, so the bracket maps end to
  end.  f < 0 and 1 + 2f·I_lo < 0: t reaches ∞ at a finite σ, x → 0 — CLUSTERING of rank 0.

* ``decay`` — the knots and the cone as for ``blowup`` with any rational κ (h ≥ h(σ_c)e^{κ(σ − σ_c)} > 0
  for ever), and P ≻ 0 with PC' + C'ᵀP ≺ 0 exactly, so y → 0; then J(σ) ≥ ∫dσ/(c‖Ã'‖·|y|²) → ∞ and
  x = e^{ft}√c·y(σ(t)) → 0 as t → ∞ for f ≤ 0 — CLUSTERING of rank 0.

On [a, b] the ball vector y = e^{C'δ}·(e^{C'a}w) with δ the ball [0, b − a] encloses y(σ) for every σ ∈ [a, b]
(arb's matrix exponential encloses its value at every matrix of the input ball).
"""
from __future__ import annotations

import flint

from ....exact.ball import arb_lower, arb_upper, interval_ball
from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from ....exact.rational import frac_str, qmat
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..tube_replay import flow_pairs

KIND = "rank-one-flow"
MAX_D = 8
MAX_KNOTS = 20000
PREC = 160          # bits of the ball evaluation (part of the kind's definition)

_fail = refusal(KIND)
_T = "tests/soundness/forgeries/test_rank_one_flow.py::"
HYPOTHESES = (
    Hypothesis("sigma0-rank-one", "Σ₀ = c·wwᵀ exactly with c > 0 and w ≠ 0 (the problem's Σ₀ has rank one).",
               _T + "test_factor_not_sigma0"),
    Hypothesis("single-head-scalar-drift", "The flow is one quadratic head with no drift or a scalar drift F = fI: "
               "Σ̇ = 2fΣ + CΣÃΣ + ΣÃᵀΣCᵀ (a second head or a non-scalar F breaks the time change).",
               _T + "test_two_heads"),
    Hypothesis("sign", "s = ±1 and h(0) = s·c·wᵀÃw > 0 exactly: σ increases with t.", _T + "test_wrong_sign"),
    Hypothesis("knots", "The knots increase strictly from 0 (at most MAX_KNOTS of them).", _T + "test_knots_not_increasing"),
    Hypothesis("h-positive", "h > 0 on every knot interval that the end needs (ball enclosure of e^{C'σ}w over the "
               "interval).", _T + "test_h_not_positive"),
    Hypothesis("zero-end", "end = zero: h(σ_N) < 0, so h has a first zero in (σ_{N−1}, σ_N); f ≤ 0.",
               _T + "test_no_sign_change"),
    Hypothesis("zero-linear-end", "end = zero-linear: Ã' = λ·aaᵀ exactly with λ > 0 and aᵀy changes sign between "
               "0 and σ_N (a touching zero of h); f ≤ 0.", _T + "test_linear_no_sign_change"),
    Hypothesis("cone", "end = blowup: GC' + C'ᵀG − αG ⪰ 0 and Ã'C' + C'ᵀÃ' − κÃ' − βG ⪰ 0 exactly, κ > 0, β ≥ 0, "
               "y(σ_c)ᵀGy(σ_c) > 0 and h(σ_c) > 0.", _T + "test_cone_forged"),
    Hypothesis("decay", "end = decay: the cone with any κ, and P ≻ 0 with PC' + C'ᵀP ≺ 0 exactly (y → 0); f ≤ 0.",
               _T + "test_decay_not_hurwitz"),
    Hypothesis("claim-derived", "The regime, rank and T* bracket are derived here (the stored bracket must contain "
               "the derived one).", _T + "test_bracket_too_narrow"),
)


def _ball_mat(M):
    return flint.arb_mat(M.nrows(), M.ncols(), [flint.arb(M[i, j]) for i in range(M.nrows()) for j in range(M.ncols())])


def _quad(y, M):
    """yᵀMy for a ball vector y (d×1) and ball matrix M."""
    return (y.transpose() * M * y)[0, 0]


def _flow(problem):
    """(C, Ã_sym, f) of a single-head flow with no drift or F = fI."""
    pairs, F = flow_pairs(problem, _fail)
    if len(pairs) != 1:
        _fail("the flow must have exactly one quadratic head")
    C, At = pairs[0]
    d = C.nrows()
    f = flint.fmpq(0)
    if F is not None:
        f = F[0, 0]
        if F != f * flint.fmpq_mat(d, d, [1 if i == j else 0 for i in range(d) for j in range(d)]):
            _fail("the drift must be absent or scalar (F = fI)")
    return C, (At + At.transpose()) / 2, f


def _factor(problem, data):
    if problem.cov is None:
        _fail("the problem has no Σ₀")
    d = problem.d
    if not 2 <= d <= MAX_D:
        _fail(f"d must be in [2, {MAX_D}]")
    w = qmat([[x] for x in data["w"]]) if data["w"] else None
    c = flint.fmpq(qmat([[data["c"]]])[0, 0])
    if w is None or w.nrows() != d or all(w[i, 0] == 0 for i in range(d)) or not c > 0:
        _fail("need c > 0 and a nonzero w of length d")
    if c * w * w.transpose() != problem.exact.Sigma0:
        _fail("c·wwᵀ ≠ Σ₀")
    return w, c


def _psd(M, what):
    D = definiteness(M)
    if D.neg:
        _fail(f"{what} is not positive semidefinite")


def derive(data, problem):
    """What a rank-one-flow certificate's data prove (the module docstring's argument).

    Parameters
    ----------
    data : dict
        The certificate's data (``w``, ``c``, ``sign``, ``knots``, ``end`` and, for a blow-up, ``G``,
        ``alpha``, ``kappa``, ``beta``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem (rank-one Σ₀, one quadratic head, F absent or scalar).

    Returns
    -------
    tuple
        ``("CLUSTERING", rank)`` or ``("BLOWUP", lo, hi)`` with exact rationals lo ≤ T* ≤ hi.
    """
    w, c = _factor(problem, data)
    C, As, f = _flow(problem)
    s = data["sign"]
    if isinstance(s, bool) or s not in (1, -1):
        _fail("sign must be 1 or -1")
    Cp, Ap = C * s, As * s
    if not (c * (w.transpose() * Ap * w)[0, 0]) > 0:
        _fail("h(0) = s·c·wᵀÃw must be > 0")
    knots = [flint.fmpq(qmat([[k]])[0, 0]) for k in data["knots"]]
    if not 2 <= len(knots) <= MAX_KNOTS or knots[0] != 0 or any(b <= a for a, b in zip(knots, knots[1:])):
        _fail(f"the knots must increase strictly from 0 (2 to {MAX_KNOTS} of them)")
    end = data["end"]
    if end not in ("zero", "zero-linear", "blowup", "decay"):
        _fail("end must be 'zero', 'zero-linear', 'blowup' or 'decay'")
    if end in ("blowup", "decay") and any(data.get(k) is None for k in ("G", "alpha", "kappa", "beta")):
        _fail("a blow-up end needs G, alpha, kappa and beta")
    with working_precision(PREC):
        Cb, Ab, wb = _ball_mat(Cp), _ball_mat(Ap), _ball_mat(w)
        cb = flint.arb(c)

        def y_at(a):
            return (Cb * flint.arb(a)).exp() * wb

        n_pos = len(knots) - 1 if end in ("blowup", "decay") else len(knots) - 2
        inv_lo, inv_hi = flint.arb(0), flint.arb(0)   # balls around Σ(b − a)/max h and Σ(b − a)/min h
        for k in range(n_pos):
            a, b = knots[k], knots[k + 1]
            y = (Cb * interval_ball(flint.fmpq(0), b - a)).exp() * y_at(a)
            h = cb * _quad(y, Ab)
            lo, hi = arb_lower(h), arb_upper(h)
            if not lo > 0:
                _fail(f"h is not proved > 0 on [{frac_str(a)}, {frac_str(b)}]")
            inv_lo += flint.arb(b - a) / flint.arb(hi)
            inv_hi += flint.arb(b - a) / flint.arb(lo)
        if end == "zero-linear":
            # Ã' = λ·aaᵀ (λ > 0): h = c·λ·(aᵀy)², whose zeros are the sign changes of aᵀy (a touching zero of h)
            a = qmat([[x] for x in data.get("a") or []])
            if a.nrows() != C.nrows() or a.ncols() != 1 or a == 0 * a:
                _fail("end zero-linear needs a nonzero vector a of length d")
            aa = a * a.transpose()
            i, j = next((i, j) for i in range(a.nrows()) for j in range(a.nrows()) if aa[i, j] != 0)
            lam = Ap[i, j] / aa[i, j]
            if not lam > 0 or Ap != lam * aa:
                _fail("Ã' is not λ·aaᵀ with λ > 0")
            g0 = (a.transpose() * w)[0, 0]
            g_end = (_ball_mat(a).transpose() * y_at(knots[-1]))[0, 0]
            if not ((g0 > 0 and arb_upper(g_end) < 0) or (g0 < 0 and arb_lower(g_end) > 0)):
                _fail("aᵀy does not change sign between 0 and σ_N")
        if end == "zero":
            h_end = cb * _quad(y_at(knots[-1]), Ab)
            if not arb_upper(h_end) < 0:
                _fail("h(σ_N) < 0 is not proved: no sign change")
        if end in ("zero", "zero-linear"):
            if f > 0:
                _fail("a growing scalar drift (f > 0) is not decided by this kind")
            return ("CLUSTERING", 1 if f == 0 else 0)
        G = qmat(data["G"])
        alpha, kappa, beta = (flint.fmpq(qmat([[data[k]]])[0, 0]) for k in ("alpha", "kappa", "beta"))
        d = C.nrows()
        if G.nrows() != d or G.ncols() != d or G != G.transpose():
            _fail("G must be symmetric d×d")
        if beta < 0 or (end == "blowup" and not kappa > 0):
            _fail("need β ≥ 0 (and κ > 0 for a blow-up)")
        _psd(G * Cp + Cp.transpose() * G - alpha * G, "GC' + C'ᵀG − αG")
        _psd(Ap * Cp + Cp.transpose() * Ap - kappa * Ap - beta * G, "Ã'C' + C'ᵀÃ' − κÃ' − βG")
        yc = y_at(knots[-1])
        if not arb_lower(_quad(yc, _ball_mat(G))) > 0:
            _fail("y(σ_c)ᵀGy(σ_c) > 0 is not proved: y(σ_c) is not inside the cone")
        hc = arb_lower(cb * _quad(yc, Ab))
        if not hc > 0:
            _fail("h(σ_c) > 0 is not proved")
        if end == "decay":
            # y → 0: P ≻ 0 with PC' + C'ᵀP ≺ 0; h > 0 for ever (the cone), so J(σ) ≥ ∫dσ/(c‖Ã'‖|y|²) → ∞
            P = qmat(data.get("P") or [[0]])
            if P.nrows() != d or P.ncols() != d or P != P.transpose() or not definiteness(P).pd:
                _fail("P must be symmetric positive definite d×d")
            L = P * Cp + Cp.transpose() * P
            if not definiteness(-L).pd:
                _fail("PC' + C'ᵀP is not negative definite: y does not decay")
            if f > 0:
                _fail("a growing scalar drift (f > 0) is not decided by this kind")
            return ("CLUSTERING", 0)
        I_lo, I_hi = arb_lower(inv_lo), arb_upper(inv_hi + 1 / (flint.arb(kappa) * flint.arb(hc)))
        if f == 0:
            return ("BLOWUP", I_lo, I_hi)
        if 1 + 2 * f * I_hi > 0 and 1 + 2 * f * I_lo > 0:
            lo_b = (1 + 2 * f * flint.arb(I_lo)).log() / flint.arb(2 * f)
            hi_b = (1 + 2 * f * flint.arb(I_hi)).log() / flint.arb(2 * f)
            return ("BLOWUP", arb_lower(lo_b), arb_upper(hi_b))
        if f < 0 and 1 + 2 * f * I_lo < 0:
            return ("CLUSTERING", 0)
        _fail("1 + 2f·I changes sign over the bracket of I: neither blow-up nor collapse is decided")


def check_rank_one(data, problem):
    """The claim of a rank-one-flow certificate: derived by :func:`derive`, the stored bracket checked.

    Parameters
    ----------
    data : dict
        The certificate's data (a blow-up also stores ``T_lo`` and ``T_hi``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem.

    Returns
    -------
    symbolic_tf.certify.check.claims.Claim
        CLUSTERING of rank 1 or 0, or BLOWUP with the stored bracket, for this Σ₀.
    """
    got = derive(data, problem)
    if got[0] == "CLUSTERING":
        return Claim("CLUSTERING", Quantifier.THIS, {"rank": got[1]})
    if data.get("T_lo") is None or data.get("T_hi") is None:
        _fail("a blow-up end needs T_lo and T_hi")
    T_lo, T_hi = (flint.fmpq(qmat([[data[k]]])[0, 0]) for k in ("T_lo", "T_hi"))
    if not (T_lo <= T_hi and T_lo <= got[1] and T_hi >= got[2]):
        _fail("the stored bracket [T_lo, T_hi] does not contain the derived one")
    return Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)})


@kind(KIND, {"w": "rat[]", "c": "rat", "sign": "int", "knots": "rat[]", "end": "str",
             "a?": "rat[]", "P?": "rat[][]", "G?": "rat[][]", "alpha?": "rat", "kappa?": "rat", "beta?": "rat", "T_lo?": "rat", "T_hi?": "rat"},
      hypotheses=HYPOTHESES)
def check_rank_one_flow(cert, problem):
    """PROVED: this rank-one Σ₀ clusters (rank 1 or 0) or blows up, from the time-changed linear flow.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", claim)`` for this Σ₀.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a hypothesis fails.
    """
    if problem is None:
        _fail("needs an embedded problem")
    return "PROVED", check_rank_one(cert.data, problem)
