"""Constructive steering routes under restricted controls, for every covariance rank.

Equal rank r is necessary (Σ(t) = Φ(t)Σ₀Φ(t)ᵀ, Φ invertible); the routes below show it is also
sufficient under each restriction, up to the exact mean obstructions of attention-only controls
(:mod:`symbolic_tf.control._obstructions`).  Notation: Σ = BDBᵀ with B a rational basis of the
range (:func:`symbolic_tf.exact.definiteness.exact_factor`), Π_U the orthogonal projector onto U.

**Feed-forward only, 1 ≤ r < d** (V = A = 0; Σ(t) = e^{Ft}Σe^{Fᵀt}):
  bias α₀ → 0 (F = 0, b constant; Σ̇ = 0) → *rotation* F₁ = K/τ₁, K skew the direct rotation
  of range Σ₀ onto range Σ₁ by the principal angles θᵢ ∈ [0, π/2] (skipped when the ranges
  agree) → *stretch* F₂ = U log(P_r) Uᵀ/τ₂ with U an orthonormal basis of range Σ₁ and P_r ≻ 0
  the Bures map between UᵀΣ_midU and UᵀΣ₁U (so e^{F₂τ₂} = UP_rUᵀ + (I − UUᵀ) is SPD, a real
  logarithm exists) → bias 0 → α₁.  The congruence M = e^{F₂τ₂}e^{F₁τ₁} ∈ GL⁺ with
  MΣ₀Mᵀ = Σ₁ is the polar-type construction (rotate, then stretch).  Generators are 50-digit
  approximations rounded to dyadic rationals; the end point of the rounded schedule is
  enclosed by ``arb_mat.exp`` (every phase is linear); α ≡ 0 between the bias phases.

**Attention only, 1 ≤ r < d** (F = 0, b = 0; Σ̇ = VΣAΣ + ΣAᵀΣVᵀ).  With V = I the range of Σ
  is invariant (J = ΣA maps into range Σ), so the range is moved with a non-identity V:
  1. *normalise* (V = I, A = M₀/2): Σ(t) = B₀(D₀⁻¹ − tX₀)⁻¹B₀ᵀ ends exactly at cΠ₀ (c > 0
     rational, Π₀ = B₀(B₀ᵀB₀)⁻¹B₀ᵀ, rational);
  2. *rotate* (V = K skew, A = aI): Σ̇ = a(KΣ² − Σ²K) and Σ = cΠ(t) stays a multiple of a
     projector, so Σ(t) = e^{acKt}cΠ₀e^{−acKt} exactly; K from the direct rotation range Σ₀ →
     range Σ₁ (rounded), a balancing ‖A‖_F and ‖V‖_F;
  3. *stretch* (V = I, A = M₁/2) built exactly from cΠ₁ to Σ₁; started from the actual (rounded)
     rotation end it is enclosed by the closed form S(I − τMS)⁻¹ with certified existence;
  4. if α₀ ≠ 0 (then α₁ ≠ 0, d ≥ 2): a mean phase A = 0 (Σ̇ = 0 exactly), V = ln(s)I + θK₂
     mapping the (numerically integrated) α(τ) to α₁.
  Equal ranges: one exact rational stretch (plus the mean phase).  The covariance end point
  is certified; the mean is exact (α ≡ 0) when α₀ = 0 and numerical evidence otherwise.

**Zero covariance (r = 0)**: Σ ≡ 0 under every control, α̇ = (F + V)α + b.  Feed-forward / any:
  one exact bias phase.  Attention only: α̇ = Vα, α(T) = e^{VT}α₀ with V = ln(s)I + θK
  (rounded, certified by ``arb_mat.exp``); α₀ = α₁ = 0 needs nothing.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import mpmath

from ..exact.definiteness import exact_factor
from ..exact.rational import fmpq_of, qmat, qmat_to_fractions
from ..exact.sympy_bridge import mpf_fraction
from ..exact import working_precision
from ._certified import PREC, arb_matq, certify_linear_schedule, enclose_stretch, exp_q, frob_err_upper
from ..exact.multiprecision import mp_symmetric_function
from ._mpmatrix import DPS, mp_matrix, mp_vector, principal_rotation, rotation_generator
from ._schedule import BuiltSchedule, Phase, bias_phase, identity_matrix, simulate_schedule, zero_matrix

__all__ = ["build_feedforward_rank", "build_attention_rank", "build_zero_covariance"]


def _round(x) -> Fraction:
    return mpf_fraction(mpmath.mpf(mpmath.nstr(x, DPS)))


def _round_skew(K, scale) -> tuple:
    d = K.rows
    F = [[_round(K[i, j] * scale) for j in range(d)] for i in range(d)]
    return tuple(tuple((F[i][j] - F[j][i]) / 2 for j in range(d)) for i in range(d))


def _round_sym(L, scale) -> tuple:
    d = L.rows
    F = [[_round(L[i, j] * scale) for j in range(d)] for i in range(d)]
    return tuple(tuple((F[i][j] + F[j][i]) / 2 for j in range(d)) for i in range(d))


def _mpq(q: Fraction):
    return mpmath.mpf(q.numerator) / q.denominator


def _same_range(B0: flint.fmpq_mat, B1: flint.fmpq_mat) -> bool:
    d, r = B1.nrows(), B1.ncols()
    both = flint.fmpq_mat(d, 2 * r, [x for i in range(d) for x in
                                     [B1[i, j] for j in range(r)] + [B0[i, j] for j in range(r)]])
    return both.rank() == r


def _orthonormal(B: flint.fmpq_mat):
    """Orthonormal mp basis of the column space of the rational B (Gram–Schmidt, twice)."""
    d, r = B.nrows(), B.ncols()
    cols = []
    for j in range(r):
        v = mpmath.matrix([mpmath.mpf(int(B[i, j].p)) / int(B[i, j].q) for i in range(d)])
        for _ in range(2):
            for u in cols:
                v = v - (u.T * v)[0] * u
        cols.append(v / mpmath.norm(v))
    U = mpmath.zeros(d, r)
    for j, u in enumerate(cols):
        for i in range(d):
            U[i, j] = u[i]
    return U


def _bures(S0, S1):
    """The SPD M with M S0 M = S1 (S0, S1 SPD mp matrices)."""
    r0 = mp_symmetric_function(S0, mpmath.sqrt)
    r0i = mp_symmetric_function(S0, lambda x: 1 / mpmath.sqrt(x))
    mid = r0 * S1 * r0
    M = r0i * mp_symmetric_function((mid + mid.T) / 2, mpmath.sqrt) * r0i
    return (M + M.T) / 2


def _stretch(B: flint.fmpq_mat, Dfrom: flint.fmpq_mat, Dto: flint.fmpq_mat, tau: Fraction, role: str):
    """Attention stretch phase (V = I, F = b = 0) taking BDfromBᵀ exactly to BDtoBᵀ in time τ:
    A = M/2, M = BYBᵀ, Y = (BᵀB)⁻¹X(BᵀB)⁻¹, X = (Dfrom⁻¹ − Dto⁻¹)/τ; G⁻¹(t) = Dfrom⁻¹ − tX is a
    convex combination of positive definite matrices on [0, τ] (no blow-up)."""
    d = B.nrows()
    tq = fmpq_of(tau)
    BtBi = (B.transpose() * B).inv()
    X = (Dfrom.inv() - Dto.inv()) / tq
    Y = BtBi * X * BtBi
    M = B * Y * B.transpose()
    ph = Phase(tau, zero_matrix(d), tuple(Fraction(0) for _ in range(d)), qmat_to_fractions(M / 2), identity_matrix(d), role)
    return ph, Y, M


def _mean_phase(sched, m0, c0, m1, tau: Fraction, d: int) -> Phase:
    """A = 0 (Σ̇ = 0 exactly), V = ln(s)I + θK mapping the numerically integrated α(end of
    ``sched``) to α₁ (both ≠ 0, d ≥ 2 or equal signs in d = 1)."""
    with mpmath.workdps(DPS):
        a_mid, _ = simulate_schedule(sched, m0, c0, dps=40) if sched else (mp_vector(m0), None)
        Vm = rotation_generator(a_mid, mp_vector(m1)) / _mpq(tau)
        V = tuple(tuple(_round(Vm[i, j]) for j in range(d)) for i in range(d))
    return Phase(tau, zero_matrix(d), tuple(Fraction(0) for _ in range(d)), zero_matrix(d), V,
                 "mean: A = 0 (Σ̇ = 0), V = ln(s)I + θK maps α to α₁")


# --------------------------------------------------------------------------- feed-forward
def build_feedforward_rank(m0, c0, m1, c1, T: Fraction) -> BuiltSchedule:
    """Feed-forward-only (V = A = 0) steering of an equal-rank rank-deficient pair (1 ≤ r < d):
    bias phase α₀ → 0, a rotation phase (F skew, direct rotation of range Σ₀ onto range Σ₁) when
    the ranges differ, a stretch phase F = U log(P) Uᵀ/τ (Bures map P on the range of Σ₁), a bias
    phase 0 → α₁.  Every phase is linear, so the end point is enclosed with ``arb_mat.exp``.
    """
    d = len(c0)
    zero = tuple(Fraction(0) for _ in range(d))
    B1, _ = exact_factor(c1)
    B0, _ = exact_factor(c0)
    same = _same_range(B0, B1)
    need0, need1 = any(m0), any(m1)
    parts = 1 + int(need0) + int(need1) + int(not same)
    unit = T / parts
    tau2 = T - unit * (parts - 1)
    sched = []
    if need0:
        sched.append(bias_phase(m0, zero, unit, d, "bias: mean α₀ → 0 (F = 0)"))
    with mpmath.workdps(DPS + 10):
        Smid = mp_matrix(c0)
        if not same:
            K = principal_rotation(c0, c1)
            F1 = _round_skew(K, 1 / _mpq(unit))
            sched.append(Phase(unit, F1, zero, zero_matrix(d), zero_matrix(d),
                               "rotation: V = A = 0, F skew (direct rotation of range Σ₀ onto range Σ₁)"))
            E = mpmath.expm(mp_matrix(F1) * _mpq(unit))
            Smid = E * Smid * E.T
        U = _orthonormal(B1)
        Dm = U.T * Smid * U
        D1 = U.T * mp_matrix(c1) * U
        Pr = _bures((Dm + Dm.T) / 2, (D1 + D1.T) / 2)
        L = U * mp_symmetric_function(Pr, mpmath.log) * U.T
        F2 = _round_sym(L, 1 / _mpq(tau2))
    sched.append(Phase(tau2, F2, zero, zero_matrix(d), zero_matrix(d),
                       "stretch: V = A = 0, F = U log(P) Uᵀ/τ symmetric (Bures map on the range of Σ₁)"))
    if need1:
        sched.append(bias_phase(zero, m1, unit, d, "bias: mean 0 → α₁ (F = 0)"))
    cert = certify_linear_schedule(sched, m0, c0, m1, c1)
    return BuiltSchedule(sched, (tuple(m1), tuple(tuple(r) for r in c1)), "feedforward-rank", False, cert, "",
                  ["F of the rotation/stretch phases are 50-digit approximations (principal angles, "
                   "matrix logarithm) rounded to dyadic rationals; the bound certifies the rounded "
                   "schedule as given (all phases linear: arb_mat.exp)"])


# --------------------------------------------------------------------------- attention only
def build_attention_rank(m0, c0, m1, c1, T: Fraction) -> BuiltSchedule:
    """Attention-only (F = 0, b = 0) steering of a rank-deficient pair (1 ≤ r < d); the caller has
    checked the exact mean obstruction (α₀ = 0 ⟺ α₁ = 0).

    Same range: one exact stretch phase.  Otherwise normalise Σ₀ → cΠ₀, rotate the range with
    V = K skew, A = aI (Σ = e^{acKt}cΠ₀e^{−acKt}), stretch cΠ₁ → Σ₁; then a mean phase if α₀ ≠ 0.
    """
    d = len(c0)
    B1, D1 = exact_factor(c1)
    B0, D0 = exact_factor(c0)
    r = B1.ncols()
    same = _same_range(B0, B1)
    need_mean = any(m0)
    notes = []
    if same:
        parts = 1 + int(need_mean)
        unit = T / parts
        tau = T - unit * int(need_mean)
        P = (B1.transpose() * B1).inv() * B1.transpose()
        Dq = P * qmat(c0) * P.transpose()  # Σ₀ = B₁DqB₁ᵀ exactly (same range)
        ph, _, _ = _stretch(B1, Dq, D1, tau, "stretch: V = I, A = M/2, Σ(t) = B(D⁻¹ − tX)⁻¹Bᵀ (range invariant)")
        sched = [ph]
        # exact check of the closed form Σ(τ) = B(Dq⁻¹ − τX)⁻¹Bᵀ with X = BᵀMB read off the phase
        tq = fmpq_of(tau)
        Bt = B1.transpose()
        X = Bt * (qmat(ph.A) + qmat(ph.A).transpose()) * B1
        assert qmat_to_fractions(B1 * Dq * Bt) == tuple(tuple(Fraction(x) for x in r) for r in c0)
        assert qmat_to_fractions(B1 * (Dq.inv() - tq * X).inv() * Bt) == tuple(tuple(Fraction(x) for x in r) for r in c1)
        cert = {"cov": 0.0, "method": "exact closed form (rational stretch)"}
        exact_cov = True
    else:
        c = (sum(Fraction(c0[i][i]) for i in range(d)) + sum(Fraction(c1[i][i]) for i in range(d))) / (2 * r)
        cq = fmpq_of(c)
        parts = 3 + int(need_mean)
        unit = T / parts
        G0 = cq * (B0.transpose() * B0).inv()
        Pi0c = B0 * G0 * B0.transpose()  # cΠ₀, exact
        sched = []
        if qmat_to_fractions(Pi0c) != tuple(tuple(x) for x in c0):
            sched.append(_stretch(B0, D0, G0, unit, "normalise: V = I, A = M/2, Σ₀ → cΠ₀ (exact, range invariant)")[0])
        S_a = qmat_to_fractions(Pi0c)
        with mpmath.workdps(DPS + 10):
            K = principal_rotation(S_a, c1)
            kn = mpmath.norm(K)  # Frobenius
            # V = K/(a c τ), A = aI: balance ‖A‖_F = a√d against ‖V‖_F = ‖K‖_F/(acτ)
            a = Fraction(mpmath.nstr(mpmath.sqrt(kn / (_mpq(c) * _mpq(unit) * mpmath.sqrt(d))), 6)).limit_denominator(1000)
            if a <= 0:
                a = Fraction(1)
            Ks = _round_skew(K, 1 / (_mpq(a) * _mpq(c) * _mpq(unit)))
        sched.append(Phase(unit, zero_matrix(d), tuple(Fraction(0) for _ in range(d)),
                           tuple(tuple(a * int(i == j) for j in range(d)) for i in range(d)), Ks,
                           "rotation: V = K skew, A = aI; Σ = cΠ stays a projector multiple, "
                           "Σ(t) = e^{acKt}Σe^{−acKt} (direct rotation of the range)"))
        G1 = cq * (B1.transpose() * B1).inv()
        tau3 = T - sum((p.duration for p in sched), Fraction(0)) - unit * int(need_mean)
        ph3, Y, M = _stretch(B1, G1, D1, tau3, "stretch: V = I, A = M/2, cΠ₁ → Σ₁ (exact from cΠ₁)")
        sched.append(ph3)
        exact_cov = False
        with working_precision(PREC):
            E = exp_q(Ks, a * c * unit)
            S = E * arb_matq(S_a) * E.transpose()
            Send, why = enclose_stretch(S, B1, Y, M, tau3)
            if Send is None:
                cert = None
                notes.append(why + "; covariance to numerical accuracy only")
            else:
                cert = {"cov": frob_err_upper(Send, c1),
                        "method": "normalise exact (rational); rotation Σ = e^{acKτ}cΠ₀e^{−acKτ} "
                                  "(arb_mat.exp); stretch S(I − τMS)⁻¹ with existence from G⁻¹ ≻ 0 "
                                  "and G⁻¹ − τY ≻ 0 (G = BᵀSB)"}
        notes.append("the rotation generator K is a 50-digit approximation rounded to dyadic "
                     "rationals; the covariance bound certifies the rounded schedule as given")
    if need_mean:
        sched.append(_mean_phase(sched, m0, c0, m1, unit, d))
        notes.append("the mean after the covariance phases has no closed form; V of the mean phase "
                     "is a 50-digit approximation: the mean error is numerical evidence only")
        if cert is not None:
            cert = {**cert, "mean": None}
    elif cert is not None:
        cert = {**cert, "mean": 0.0, "method": cert["method"] + "; α ≡ 0 (linear homogeneous mean ODE)"}
    if cert is not None:
        cert["norm"] = "Frobenius (cov), Euclidean (mean)"
    exact = exact_cov and not need_mean
    if cert is None:
        why = "covariance not certified (numerical evidence only)"
    elif cert["mean"] is None:
        why = "Σ certified; the mean is numerical evidence only (no closed form after the attention phases)"
    else:
        why = ""
    return BuiltSchedule(sched, (tuple(m1), tuple(tuple(x) for x in c1)), "attention-rank", exact, cert, why, notes)


# --------------------------------------------------------------------------- rank 0
def build_zero_covariance(m0, m1, T: Fraction, controls: str) -> BuiltSchedule:
    """Σ₀ = Σ₁ = 0 (Dirac masses): Σ ≡ 0, α̇ = (F + V)α + b."""
    d = len(m0)
    zc = zero_matrix(d)
    if controls != "attention":
        ph = bias_phase(m0, m1, T, d, "bias: Σ ≡ 0, α linear from α₀ to α₁ (F = V = A = 0)")
        return BuiltSchedule([ph], (tuple(m1), zc), "zero-covariance", True,
                      {"cov": 0.0, "mean": 0.0, "method": "exact (Σ ≡ 0, α linear)"}, "")
    if not any(m0):
        ph = Phase(T, zc, tuple(Fraction(0) for _ in range(d)), zc, zc, "rest: α ≡ 0, Σ ≡ 0")
        return BuiltSchedule([ph], (tuple(m1), zc), "zero-covariance", True,
                      {"cov": 0.0, "mean": 0.0, "method": "exact (nothing moves)"}, "")
    ph = _mean_phase([], m0, [list(r) for r in zc], m1, T, d)
    ph.role = "mean: Σ ≡ 0, α̇ = Vα, V = ln(s)I + θK maps α₀ to α₁"
    cert = certify_linear_schedule([ph], m0, zc, m1, zc)
    return BuiltSchedule([ph], (tuple(m1), zc), "zero-covariance", False, cert, "",
                  ["V is a 50-digit approximation rounded to dyadic rationals; the bound certifies "
                   "α(T) = e^{VT}α₀ of the rounded schedule (arb_mat.exp)"])
