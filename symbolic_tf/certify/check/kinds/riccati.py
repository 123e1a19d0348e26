"""Checkers for the V = vI (Riccati-linearisable) certificate kinds.

Re-derives from the embedded exact problem: R = v(A + Aᵀ) (A scaled by the temperature),
F, the factorisation Σ₀ = B D Bᵀ, and then each inequality exactly (fmpq) or with arb balls.
Independent of :mod:`symbolic_tf.certify.search.riccati` (which searched for the data): the
matrix exponential enclosure is recomputed here from scratch.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ....exact.ball import ball_pd
from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from ....exact.rational import frac_str, qmat
from ....spec.errors import CertificationFailed
from ....variants import single_quadratic_head
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from .krawczyk_box import drift_model

_FACTOR = {"v": "rat", "B": "rat[][]", "D": "rat[]"}

_T = "tests/soundness/forgeries/test_riccati.py::"
# the problem class every kind of this module needs (the Radon linearisation of docs/mathematics.md §4, §6)
_HEAD = Hypothesis(
    "one-softmax-head", "The embedded problem is one softmax head (not ℓ2, Sinkhorn, multi-head…), so its covariance "
    "flow is Σ̇ = FΣ + ΣFᵀ + VΣÃΣ + ΣÃᵀΣVᵀ with Ã = τA (τ the temperature).", _T + "test_riccati_not_one_softmax_head")
_CONST = Hypothesis(
    "constant-parameters", "A, V, F do not depend on depth t (no schedule): the closed forms below integrate a "
    "time-invariant equation.", _T + "test_riccati_refuses_a_schedule")
_VI = Hypothesis(
    "V-scalar", "V = v·I exactly for the stored v, so with R = v(Ã + Ãᵀ) the flow is Σ̇ = FΣ + ΣFᵀ + ΣRΣ and "
    "P = Σ⁻¹ solves the linear Ṗ = −(FᵀP + PF) − R.", _T + "test_riccati_V_not_v_identity")
_GIVEN = Hypothesis(
    "sigma0-given", "The embedded problem states its Gaussian Σ₀ (a claim about this Σ₀ needs one).",
    _T + "test_riccati_this_sigma0_needs_sigma0")
_FACTOR_H = Hypothesis(
    "sigma0-factor", "Σ₀ = B·D·Bᵀ exactly with B a d×r matrix of full column rank and D = diag(D) ≻ 0; then "
    "r = rank Σ₀ and Σ(t) = e^{Ft}B X(t)⁻¹Bᵀe^{Fᵀt} with X(t) = D⁻¹ − BᵀW(t)B, W(t) = ∫₀ᵗe^{Fᵀs}Re^{Fs}ds, for as "
    "long as X(t) ≻ 0; since B has full column rank, Σ(t) blows up exactly when X(t) becomes singular.",
    _T + "test_riccati_factorisation_is_not_sigma0")
_R_NSD = Hypothesis(
    "R-nsd", "R = v(Ã + Ãᵀ) ⪯ 0, so W(t) ⪯ 0, X(t) ⪰ D⁻¹ ≻ 0 for every factor of every Σ₀ ⪰ 0 (no blow-up) and "
    "Σ(t) ⪯ e^{Ft}Σ₀e^{Fᵀt}.", _T + "test_riccati_nsd_kinds_need_R_nsd")

BLOWUP_HYPOTHESES = (
    _HEAD, _CONST, _VI, _GIVEN, _FACTOR_H,
    Hypothesis("sigma0-nonzero", "r ≥ 1, i.e. Σ₀ ≠ 0: Σ ≡ 0 is an equilibrium and does not blow up.",
               _T + "test_blowup_riccati_sigma0_zero"),
    Hypothesis("bracket-order", "0 < T_lo ≤ T_hi.", _T + "test_blowup_riccati_bracket_order"),
    Hypothesis("pd-up-to-T_lo-no-drift", "F = 0: W(t) = tR, so X(t) = D⁻¹ − t·BᵀRB is affine in t with X(0) = D⁻¹ ≻ 0; "
               "X(T_lo) ≻ 0 makes X ≻ 0 on [0, T_lo], hence T* > T_lo.", _T + "test_blowup_riccati_not_pd_at_T_lo"),
    Hypothesis("g-branch-needs-fI", "The G_lo/G_hi argument needs F = f·I (then W(t) = g(t)R with the scalar "
               "g(t) = ∫₀ᵗe^{2fs}ds); G_lo and G_hi are given together.", _T + "test_blowup_riccati_G_needs_scalar_F"),
    Hypothesis("g-bounds", "F = f·I: G_lo ≥ g(T_lo) and G_hi ≤ g(T_hi), decided with arb balls.",
               _T + "test_blowup_riccati_G_bounds"),
    Hypothesis("pd-up-to-T_lo-fI", "F = f·I: D⁻¹ − G_lo·BᵀRB ≻ 0; g increases from g(0) = 0, so X(t) lies on the "
               "segment from D⁻¹ to D⁻¹ − G_lo·BᵀRB for t ∈ [0, T_lo] and stays ≻ 0.", _T + "test_blowup_riccati_G_lo_not_pd"),
    Hypothesis("partition", "General F: the partition increases from 0 to T_lo and on each of its pieces the ball "
               "enclosure of X(t) (Van Loan block exponential) is positive definite, so X ≻ 0 on [0, T_lo].",
               _T + "test_blowup_riccati_partition"),
    Hypothesis("witness-at-T_hi", "A rational w ≠ 0 of length r with wᵀX(T_hi)w ≤ 0 (F = 0: exactly; F = f·I: "
               "wᵀBᵀRBw > 0 and wᵀ(D⁻¹ − G_hi·BᵀRB)w ≤ 0; general F: < 0 in balls), so X is not ≻ 0 at T_hi and "
               "the first singular time T* is ≤ T_hi.", _T + "test_blowup_riccati_witness_at_T_hi"),
)
GLOBAL_HYPOTHESES = (
    _HEAD, _CONST, _VI, _GIVEN,
    Hypothesis("no-drift", "F = 0: W(t) = tR, so X(t) = D⁻¹ − t·BᵀRB.", _T + "test_global_riccati_refuses_a_drift"),
    Hypothesis("sigma0-factor", _FACTOR_H.statement + " Σ₀ = 0 has the empty factor (r = 0).",
               _T + "test_riccati_factorisation_is_not_sigma0"),
    Hypothesis("N-nsd", "N = BᵀRB ⪯ 0: X(t) = D⁻¹ − tN ⪰ D⁻¹ ≻ 0 for every t ≥ 0 (global), and "
               "X(t)⁻¹ converges to a matrix of rank r − rank N (the kernel of N).", _T + "test_global_riccati_N_not_nsd"),
    Hypothesis("limit-rank", "limit_rank = r − rank N (0 when Σ₀ = 0): the rank of lim Σ(t) = B·lim X(t)⁻¹·Bᵀ.",
               _T + "test_global_riccati_limit_rank"),
    Hypothesis("regime-label", "regime = EQUILIBRIUM exactly when N = 0 (then Σ̇ = ΣRΣ = BD·N·DBᵀ = 0: Σ₀ is "
               "stationary; Σ₀ = 0 included), CLUSTERING otherwise.", _T + "test_global_riccati_regime_label"),
)
EQUILIBRIUM_HYPOTHESES = (
    _HEAD, _CONST, _VI,
    Hypothesis("R-negative-definite", "R = v(Ã + Ãᵀ) ≺ 0.", _T + "test_equilibrium_drift_R_not_negative_definite"),
    Hypothesis("P-lyapunov", "P* is a d×d matrix with FᵀP* + P*F = −R, so P(t) = P* + e^{−Fᵀt}(P₀ − P*)e^{−Ft}.",
               _T + "test_equilibrium_drift_P_not_lyapunov"),
    Hypothesis("F-anti-hurwitz", "X symmetric, X ≻ 0 and FᵀX + XF ≻ 0: −F is Hurwitz, so e^{−Ft} → 0, P(t) → P* "
               "and P* = ∫₀^∞e^{−Fᵀs}(−R)e^{−Fs}ds ≻ 0; P(t) = e^{−Fᵀt}P₀e^{−Ft} + ∫₀ᵗe^{−Fᵀs}(−R)e^{−Fs}ds ≻ 0 for "
               "every P₀ = Σ₀⁻¹ ≻ 0, so every Σ₀ ≻ 0 has a global solution with Σ(t) → Σ* = P*⁻¹ (a singular Σ₀ "
               "keeps its rank and is not covered).", _T + "test_equilibrium_drift_F_not_anti_hurwitz"),
    Hypothesis("mean-hurwitz", "With the mean part: Y symmetric, Y ≻ 0 and M*ᵀY + YM* ≺ 0 for M* = F + vI + vΣ*Ã, "
               "the limit of the mean's matrix F + vI + vΣ(t)Ã.", _T + "test_equilibrium_drift_mean_not_hurwitz"),
    Hypothesis("mean-equilibrium", "With the mean part: M*α* + b = 0, so the mean converges to α* = −M*⁻¹b.",
               _T + "test_equilibrium_drift_alpha_star_wrong"),
)
GLOBAL_DRIFT_HYPOTHESES = (
    _HEAD, _CONST, _VI, _GIVEN, _FACTOR_H,
    Hypothesis("R-psd-or-scalar-F", "R ⪰ 0 (then W(t) increases to W∞), or F = f·I with f < 0 (then W(t) = g(t)R, "
               "g increasing from 0 to 1/(2∣f∣), and X(t) lies on the segment from D⁻¹ to D⁻¹ − BᵀW∞B).",
               _T + "test_global_drift_R_indefinite_general_F"),
    Hypothesis("W-lyapunov", "W∞ is a d×d matrix with FᵀW∞ + W∞F = −R (the limit of W(t) when F is Hurwitz).",
               _T + "test_global_drift_W_not_lyapunov"),
    Hypothesis("F-hurwitz", "X symmetric, X ≻ 0 and FᵀX + XF = −I: F is Hurwitz, so W(t) → W∞ and e^{Ft} → 0.",
               _T + "test_global_drift_F_not_hurwitz"),
    Hypothesis("below-threshold", "D⁻¹ − BᵀW∞B ≻ 0: with the previous hypotheses X(t) ≻ 0 stays bounded away from "
               "singular for all t, so Σ(t) = e^{Ft}BX(t)⁻¹Bᵀe^{Fᵀt} is global and tends to 0 (limit of rank 0).",
               _T + "test_global_drift_above_threshold"),
)
GROWTH_HYPOTHESES = (
    _HEAD, _CONST, _VI, _R_NSD,
    Hypothesis("uF-bound", "u_F ≥ 0 and u_F² ≥ ‖F‖_F², so ‖e^{Ft}‖₂ ≤ e^{‖F‖₂t} ≤ e^{u_F·t}.",
               _T + "test_growth_drift_uF_not_a_bound"),
    Hypothesis("gamma", "γ = 2u_F: ‖Σ(t)‖₂ ≤ ‖e^{Ft}‖₂²‖Σ₀‖₂ ≤ ‖Σ₀‖₂e^{γt}.", _T + "test_growth_drift_gamma_not_2uF"),
)
BOUNDED_HYPOTHESES = (
    _HEAD, _CONST, _VI, _R_NSD,
    Hypothesis("X-pd", "X is a symmetric d×d matrix with X ≻ 0, so tr(XΣ) bounds ‖Σ‖ on Σ ⪰ 0.",
               _T + "test_bounded_drift_X_not_pd"),
    Hypothesis("X-nonexpanding", "FᵀX + XF ⪯ 0: e^{Fᵀt}Xe^{Ft} ⪯ X, so tr(XΣ(t)) ≤ tr(Xe^{Ft}Σ₀e^{Fᵀt}) ≤ tr(XΣ₀).",
               _T + "test_bounded_drift_F_expands"),
)


def _fail(msg):
    raise CertificationFailed(msg)


def _q(s) -> flint.fmpq:
    f = Fraction(s)
    return flint.fmpq(f.numerator, f.denominator)


def _setup(name, cert, problem):
    """(d, v, R, F, B, D) after the problem-class checks every kind of this module starts with."""
    def fail(msg):
        _fail(f"{name} certificate: {msg}")
    F, V, A = drift_model(problem, fail)
    d = problem.d
    v = _q(cert.data["v"])
    if V != flint.fmpq_mat(d, d, [v if i == j else 0 for i in range(d) for j in range(d)]):
        fail(f"V is not v·I for the stored v = {frac_str(v)}")
    R = (A + A.transpose()) * v
    B = qmat(cert.data["B"]) if cert.data.get("B") else None
    D = [_q(x) for x in cert.data.get("D", [])]
    return d, v, R, F, B, D


def _square(name, what, M, d):
    if M.nrows() != d or M.ncols() != d:
        _fail(f"{name} certificate: {what} is not a {d}×{d} matrix")
    return M


def _check_factor(name, problem, B, D, zero=None):
    """D⁻¹ after checking Σ₀ = B·D·Bᵀ; ``zero``: why Σ₀ = 0 (the empty factor) is refused, None to allow it."""
    d = problem.d
    if problem.cov is None:  # a non-Gaussian initial law: no Σ₀ for a claim about this Σ₀
        _fail(f"{name} certificate: the embedded problem states no Gaussian Σ₀")
    S0 = qmat(problem.cov)
    r = len(D)
    if r == 0:
        if all(S0[i, j] == 0 for i in range(d) for j in range(d)):
            if zero is None:
                return flint.fmpq_mat(0, 0)
            _fail(f"{name} certificate: Σ₀ = 0 (the empty factorisation): {zero}")
        _fail(f"{name} certificate: empty factorisation B·D·Bᵀ = 0 but Σ₀ ≠ 0")
    if B is None or B.nrows() != d or B.ncols() != r:
        _fail(f"{name} certificate: the factorisation's B is not a {d}×{r} matrix (r = len(D))")
    if any(x <= 0 for x in D):
        _fail(f"{name} certificate: the factorisation's D is not positive")
    Dm = flint.fmpq_mat(r, r, [D[i] if i == j else 0 for i in range(r) for j in range(r)])
    if B * Dm * B.transpose() != S0:
        _fail(f"{name} certificate: the factorisation B·D·Bᵀ ≠ Σ₀")
    if B.rank() != r:
        _fail(f"{name} certificate: the factorisation's B is not of full column rank")
    return flint.fmpq_mat(r, r, [1 / D[i] if i == j else 0 for i in range(r) for j in range(r)])


def _is_zero(M) -> bool:
    return all(M[i, j] == 0 for i in range(M.nrows()) for j in range(M.ncols()))


def _arb(x):
    return flint.arb(x)


def _W_enclosure(F, R, t):
    """Enclosure of W(t) = ∫₀ᵗ e^{Fᵀs} R e^{Fs} ds for a ball t (Van Loan block exponential)."""
    n = R.nrows()
    with working_precision(192):
        H = flint.arb_mat(2 * n, 2 * n)
        for i in range(n):
            for j in range(n):
                H[i, j] = -_arb(F[j, i])
                H[i, n + j] = _arb(R[i, j])
                H[n + i, n + j] = _arb(F[i, j])
        E = (H * t).exp()
        top = flint.arb_mat(n, n, [E[i, n + j] for i in range(n) for j in range(n)])
        eFt = flint.arb_mat(n, n, [E[n + i, n + j] for i in range(n) for j in range(n)])
        return eFt.transpose() * top


def _ball(M):
    return flint.arb_mat(M.nrows(), M.ncols(), [_arb(M[i, j]) for i in range(M.nrows()) for j in range(M.ncols())])


@kind("blowup-riccati-vI", {**_FACTOR, "T_lo": "rat", "T_hi": "rat", "witness": "rat[]", "partition?": "rat[]",
                             "G_lo?": "rat", "G_hi?": "rat"}, hypotheses=BLOWUP_HYPOTHESES)
def check_blowup(cert, problem):
    """PROVED: this Σ₀ blows up at T* ∈ [T_lo, T_hi].

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When 0 < T_lo ≤ T_hi, D⁻¹ − T_lo·BᵀRB ≻ 0 or the witness that D⁻¹ − T_hi·BᵀRB is not ≻ 0 fails.
    """
    _check_blowup(cert, problem)
    lo, hi = _q(cert.data["T_lo"]), _q(cert.data["T_hi"])
    return "PROVED", Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(lo), "T_hi": frac_str(hi)})


def _check_blowup(cert, problem):
    name = "blowup-riccati-vI"
    d, v, R, F, B, D = _setup(name, cert, problem)
    Dinv = _check_factor(name, problem, B, D, zero="Σ ≡ 0 is an equilibrium, it does not blow up")
    lo, hi = _q(cert.data["T_lo"]), _q(cert.data["T_hi"])
    if not (0 < lo <= hi):
        _fail(f"{name} certificate: the bracket needs 0 < T_lo ≤ T_hi")
    w = [_q(x) for x in cert.data["witness"]]
    if len(w) != len(D) or all(x == 0 for x in w):
        _fail(f"{name} certificate: the witness at T_hi must be a nonzero vector of length r = {len(D)}")
    wm = flint.fmpq_mat(len(w), 1, w)
    if _is_zero(F):
        N = B.transpose() * R * B
        X_lo = Dinv - N * lo
        if not definiteness(X_lo).pd:  # affine in t and X(0) = D⁻¹ ≻ 0: PD on [0, T_lo]
            _fail(f"{name} certificate: X(T_lo) = D⁻¹ − T_lo·BᵀRB is not positive definite (no drift)")
        val = (wm.transpose() * (Dinv - N * hi) * wm)[0, 0]
        if val > 0:
            _fail(f"{name} certificate: the witness at T_hi does not show that D⁻¹ − T_hi·BᵀRB is singular or indefinite")
        return
    f = F[0, 0]
    if "G_lo" in cert.data or "G_hi" in cert.data:
        # F = fI: X(t) = D⁻¹ − g(t)N, g(t) = ∫₀ᵗe^{2fs}ds increasing from 0; PD at D⁻¹ and at
        # D⁻¹ − G_lo·N with G_lo ≥ g(T_lo) ⇒ PD on [0, T_lo] (convex segment); wᵀNw > 0 and
        # wᵀ(D⁻¹ − G_hi·N)w ≤ 0 with G_hi ≤ g(T_hi) ⇒ X(T_hi) is not PD.
        if any(F[i, j] != (f if i == j else 0) for i in range(d) for j in range(d)):
            _fail(f"{name} certificate: the G_lo/G_hi bracket needs F = f·I")
        if "G_lo" not in cert.data or "G_hi" not in cert.data:
            _fail(f"{name} certificate: the G_lo/G_hi bracket needs both G_lo and G_hi")
        G_lo, G_hi = _q(cert.data["G_lo"]), _q(cert.data["G_hi"])
        with working_precision(256):
            def g(t):
                tb = flint.arb(t)
                return tb if f == 0 else (flint.arb(2 * f) * tb).expm1() / flint.arb(2 * f)
            if not (g(lo) <= flint.arb(G_lo)):
                _fail(f"{name} certificate: G_lo is not ≥ g(T_lo) = ∫₀^T_lo e^(2fs)ds")
            if not (g(hi) >= flint.arb(G_hi)):
                _fail(f"{name} certificate: G_hi is not ≤ g(T_hi) = ∫₀^T_hi e^(2fs)ds")
        N = B.transpose() * R * B
        if not definiteness(Dinv - N * G_lo).pd:
            _fail(f"{name} certificate: D⁻¹ − G_lo·BᵀRB is not positive definite (F = f·I)")
        if not (wm.transpose() * N * wm)[0, 0] > 0 or (wm.transpose() * (Dinv - N * G_hi) * wm)[0, 0] > 0:
            _fail(f"{name} certificate: the witness at T_hi does not show that X(T_hi) is not positive definite "
                  "(need wᵀBᵀRBw > 0 and wᵀ(D⁻¹ − G_hi·BᵀRB)w ≤ 0)")
        return
    part = [_q(x) for x in cert.data.get("partition", [])]
    if len(part) < 2 or part[0] != 0 or part[-1] != lo or any(b <= a for a, b in zip(part, part[1:])):
        _fail(f"{name} certificate: the partition must increase from 0 to T_lo (general F)")
    Bb, Db = _ball(B), _ball(Dinv)
    for a, b in zip(part, part[1:]):
        t = flint.arb((a + b) / 2, flint.arb((b - a) / 2).upper())
        X = Db - Bb.transpose() * _W_enclosure(F, R, t) * Bb
        if ball_pd(X) is not True:
            _fail(f"{name} certificate: X(t) is not certified positive definite on the partition piece [{a}, {b}]")
    X = Db - Bb.transpose() * _W_enclosure(F, R, flint.arb(hi)) * Bb
    wb = _ball(wm)
    if not (wb.transpose() * X * wb)[0, 0] < 0:
        _fail(f"{name} certificate: the witness at T_hi does not certify that X(T_hi) is indefinite")


@kind("global-riccati-vI", {**_FACTOR, "limit_rank": "int", "regime": ("enum", "CLUSTERING", "EQUILIBRIUM")},
      hypotheses=GLOBAL_HYPOTHESES)
def check_global(cert, problem):
    """PROVED: this Σ₀ is stationary (BᵀRB = 0), or its solution is global with a limit of
    rank r − rank BᵀRB (BᵀRB ⪯ 0).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, no drift, and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", THIS, {"stationary": True, "rank"}))`` (BᵀRB = 0) or
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": limit_rank}))`` (BᵀRB ⪯ 0).

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the factorisation, the sign of BᵀRB or the limit rank does not re-derive.
    """
    _check_global(cert, problem)
    if cert.data["regime"] == "EQUILIBRIUM":
        return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": int(cert.data["limit_rank"])})
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": int(cert.data["limit_rank"])})


def _check_global(cert, problem):
    name = "global-riccati-vI"
    d, v, R, F, B, D = _setup(name, cert, problem)
    if not _is_zero(F):
        _fail(f"{name} certificate: the problem has a drift F ≠ 0 (only F = 0 is covered)")
    _check_factor(name, problem, B, D)
    if not D:
        if int(cert.data["limit_rank"]) != 0:
            _fail(f"{name} certificate: the limit rank is 0 (Σ₀ = 0), not {cert.data['limit_rank']}")
        if cert.data.get("regime") != "EQUILIBRIUM":
            _fail(f"{name} certificate: the regime is EQUILIBRIUM (Σ₀ = 0 is stationary), not {cert.data.get('regime')}")
        return
    N = B.transpose() * R * B
    if not definiteness(N).nsd:
        _fail(f"{name} certificate: N = BᵀRB is not negative semidefinite")
    limit = len(D) - N.rank()
    if int(cert.data["limit_rank"]) != limit:
        _fail(f"{name} certificate: the limit rank is r − rank BᵀRB = {limit}, not {cert.data['limit_rank']}")
    regime = "EQUILIBRIUM" if N.rank() == 0 else "CLUSTERING"
    if cert.data.get("regime") != regime:
        _fail(f"{name} certificate: the regime is {regime} (BᵀRB {'=' if regime == 'EQUILIBRIUM' else '≠'} 0), "
              f"not {cert.data.get('regime')}")


@kind("equilibrium-drift-vI", {"v": "rat", "P_star": "rat[][]", "X": "rat[][]",
                                "mean?": {"Y": "rat[][]", "alpha_star": "rat[]"}}, hypotheses=EQUILIBRIUM_HYPOTHESES)
def check_equilibrium(cert, problem):
    """PROVED: for every Σ₀ ≻ 0 the solution is global and Σ(t) → Σ* = P*⁻¹ (P(t) = Σ(t)⁻¹
    solves the linear Ṗ = −(FᵀP + PF) − R, which converges to P* since −F is Hurwitz).
    Singular Σ₀ are not covered: rank is invariant.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I and a drift F with −F Hurwitz.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", EVERY_PD, {"Sigma_star": P*⁻¹, "alpha_star"?}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ≺ 0, FᵀP* + P*F = −R, P* ≻ 0, the anti-Hurwitz witness X (FᵀX + XF ≻ 0) or the mean part
        fails exactly.
    """
    _check_equilibrium(cert, problem)
    P = qmat(cert.data["P_star"])
    S = P.inv()
    params = {"Sigma_star": [[frac_str(S[i, j]) for j in range(S.ncols())] for i in range(S.nrows())]}
    if "mean" in cert.data:
        params["alpha_star"] = [frac_str(_q(x)) for x in cert.data["mean"]["alpha_star"]]
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.EVERY_PD, params)


def _check_equilibrium(cert, problem):
    name = "equilibrium-drift-vI"
    d, v, R, F, _, _ = _setup(name, cert, problem)
    P = _square(name, "P*", qmat(cert.data["P_star"]), d)
    X = _square(name, "X", qmat(cert.data["X"]), d)
    if not definiteness(R).nd:
        _fail(f"{name} certificate: R = v(A + Aᵀ) is not negative definite")
    if F.transpose() * P + P * F != -R:
        _fail(f"{name} certificate: P* does not solve FᵀP* + P*F = −R")
    L = F.transpose() * X + X * F
    if X != X.transpose() or not definiteness(X).pd or not definiteness(L).pd:
        _fail(f"{name} certificate: X does not certify that F is anti-Hurwitz (need X ≻ 0, FᵀX + XF ≻ 0)")
    # a consequence of the three checks above (P* = ∫₀^∞e^{−Fᵀs}(−R)e^{−Fs}ds); kept as a guard for P*⁻¹
    if P != P.transpose() or not definiteness(P).pd:
        _fail(f"{name} certificate: P* is not symmetric positive definite")
    if "mean" in cert.data:  # M* = F + vI + vΣ*A Hurwitz: Y ≻ 0 with M*ᵀY + YM* ≺ 0; α* = −M*⁻¹b
        n = d
        I = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
        A = single_quadratic_head(problem)[1]
        M = F + I * v + P.inv() * A * v
        Y = _square(name, "Y", qmat(cert.data["mean"]["Y"]), d)
        if Y != Y.transpose() or not definiteness(Y).pd or not definiteness(-(M.transpose() * Y + Y * M)).pd:
            _fail(f"{name} certificate: Y does not certify that the mean's matrix M* = F + vI + vΣ*A is Hurwitz")
        b = qmat([[x] for x in problem.b]) if problem.b is not None else flint.fmpq_mat(n, 1)
        if len(cert.data["mean"]["alpha_star"]) != n:
            _fail(f"{name} certificate: α* is not a vector of length {n}")
        a_star = qmat([[x] for x in cert.data["mean"]["alpha_star"]])
        if M * a_star + b != flint.fmpq_mat(n, 1):
            _fail(f"{name} certificate: α* is not the mean's equilibrium −M*⁻¹b (M*α* + b ≠ 0)")


@kind("global-drift-vI", {**_FACTOR, "W_inf": "rat[][]", "X": "rat[][]"}, hypotheses=GLOBAL_DRIFT_HYPOTHESES)
def check_global_drift(cert, problem):
    """PROVED: this Σ₀'s solution is global and Σ(t) → 0.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, a drift F, and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When FᵀW∞ + W∞F = −R, the Hurwitz witness X or D⁻¹ − BᵀW∞B ≻ 0 fails exactly.
    """
    _check_global_drift(cert, problem)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})


def _check_global_drift(cert, problem):
    name = "global-drift-vI"
    d, v, R, F, B, D = _setup(name, cert, problem)
    Dinv = _check_factor(name, problem, B, D, zero="this kind's data need Σ₀ ≠ 0")
    W = _square(name, "W∞", qmat(cert.data["W_inf"]), d)
    X = _square(name, "X", qmat(cert.data["X"]), d)
    I = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    f = F[0, 0]
    scalar_neg = f < 0 and all(F[i, j] == (f if i == j else 0) for i in range(d) for j in range(d))
    if not definiteness(R).psd and not scalar_neg:
        # R ⪰ 0 makes W(t) increase to W∞; for F = fI, f < 0, W(t) = g(t)R is on the segment [0, W∞]
        _fail(f"{name} certificate: R = v(A + Aᵀ) is not positive semidefinite and F is not f·I with f < 0")
    if F.transpose() * W + W * F != -R:
        _fail(f"{name} certificate: W∞ does not solve FᵀW∞ + W∞F = −R")
    if X != X.transpose() or not definiteness(X).pd or F.transpose() * X + X * F != -I:
        _fail(f"{name} certificate: X does not certify that F is Hurwitz (need X ≻ 0, FᵀX + XF = −I)")
    if W != W.transpose() or not definiteness(Dinv - B.transpose() * W * B).pd:
        _fail(f"{name} certificate: D⁻¹ − BᵀW∞B is not positive definite (Σ₀ above the blow-up threshold)")


@kind("growth-drift-vI-nsd", {"v": "rat", "u_F": "rat", "gamma": "rat"}, hypotheses=GROWTH_HYPOTHESES)
def check_growth_nsd(cert, problem):
    """PROVED: with V = vI and R = v(A + Aᵀ) ⪯ 0, every Σ₀ ⪰ 0 has a global solution with
    ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂ e^{γt}, γ = 2u_F ≥ 2‖F‖_F.

    W(t) = ∫₀ᵗ e^{Fᵀs}Re^{Fs}ds ⪯ 0, so X(t) = D⁻¹ − BᵀW(t)B ⪰ D⁻¹ ≻ 0 never degenerates and
    Σ(t) = e^{Ft}BX(t)⁻¹Bᵀe^{Fᵀt} ⪯ e^{Ft}Σ₀e^{Fᵀt}.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I (drift or not).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EXPONENTIAL_GROWTH", EVERY_PSD, {"gamma": γ}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ⪯ 0 fails, u_F < ‖F‖_F, or γ ≠ 2u_F.
    """
    name = "growth-drift-vI-nsd"
    d, v, R, F, _, _ = _setup(name, cert, problem)
    if not definiteness(R).nsd:
        _fail(f"{name} certificate: R = v(A + Aᵀ) is not negative semidefinite")
    uF = _q(cert.data["u_F"])
    if uF < 0 or uF * uF < sum((F[i, j] ** 2 for i in range(d) for j in range(d)), flint.fmpq(0)):
        _fail(f"{name} certificate: u_F is not an upper bound of ‖F‖_F")
    gamma = _q(cert.data["gamma"])
    if gamma != 2 * uF:
        _fail(f"{name} certificate: γ must be 2·u_F")
    return "PROVED", Claim("EXPONENTIAL_GROWTH", Quantifier.EVERY_PSD, {"gamma": frac_str(gamma)})


@kind("bounded-drift-vI-nsd", {"v": "rat", "X": "rat[][]"}, hypotheses=BOUNDED_HYPOTHESES)
def check_bounded_nsd(cert, problem):
    """PROVED: with V = vI, R = v(A + Aᵀ) ⪯ 0 and X ≻ 0, FᵀX + XF ⪯ 0, every Σ₀ ⪰ 0 has a
    global solution with tr(XΣ(t)) ≤ tr(XΣ₀): Σ(t) ⪯ e^{Ft}Σ₀e^{Fᵀt} and e^{Fᵀt}Xe^{Ft} ⪯ X.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I (drift or not).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED", EVERY_PSD, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ⪯ 0, X ≻ 0 or FᵀX + XF ⪯ 0 fails exactly.
    """
    name = "bounded-drift-vI-nsd"
    d, v, R, F, _, _ = _setup(name, cert, problem)
    if not definiteness(R).nsd:
        _fail(f"{name} certificate: R = v(A + Aᵀ) is not negative semidefinite")
    X = qmat(cert.data["X"])
    if X.nrows() != d or X.ncols() != d or X != X.transpose() or not definiteness(X).pd:
        _fail(f"{name} certificate: X is not a symmetric positive definite {d}×{d} matrix")
    if not definiteness(-(F.transpose() * X + X * F)).psd:
        _fail(f"{name} certificate: FᵀX + XF is not negative semidefinite (e^(Ft) may expand the X-norm)")
    return "PROVED", Claim("BOUNDED", Quantifier.EVERY_PSD, {})
