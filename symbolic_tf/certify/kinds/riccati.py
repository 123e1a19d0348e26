"""Checkers for the V = vI (Riccati-linearisable) certificate kinds.

Re-derives from the embedded exact problem: R = v(A + Aᵀ) (A scaled by the temperature),
F, the factorisation Σ₀ = B D Bᵀ, and then each inequality exactly (fmpq) or with arb balls.
Independent of :mod:`symbolic_tf.certify.riccati` (which searched for the data): the
matrix exponential enclosure is recomputed here from scratch.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ...exact.ball import ball_pd
from ...exact.definiteness import definiteness
from ...exact.precision import working_precision
from ...exact.rational import frac_str, qmat
from ...spec.errors import CertificationFailed
from ...variants import single_quadratic_head
from ..check import kind
from ..claims import Claim, Quantifier
from .krawczyk_box import drift_model

_FACTOR = {"v": "rat", "B": "rat[][]", "D": "rat[]"}


def _fail(msg):
    raise CertificationFailed(msg)


def _q(s) -> flint.fmpq:
    f = Fraction(s)
    return flint.fmpq(f.numerator, f.denominator)


def _setup_fail(msg):
    _fail(f"riccati certificate: {msg}")


def _setup(cert, problem):
    F, V, A = drift_model(problem, _setup_fail)
    d = problem.d
    v = _q(cert.data["v"])
    if V != flint.fmpq_mat(d, d, [v if i == j else 0 for i in range(d) for j in range(d)]):
        _fail("riccati certificate: V is not v·I for the stated v")
    R = (A + A.transpose()) * v
    B = qmat(cert.data["B"]) if cert.data.get("B") else None
    D = [_q(x) for x in cert.data.get("D", [])]
    return d, v, R, F, B, D


def _check_factor(problem, B, D, allow_zero=False):
    d = problem.d
    S0 = qmat(problem.cov)
    r = len(D)
    if r == 0:
        if allow_zero and all(S0[i, j] == 0 for i in range(d) for j in range(d)):
            return flint.fmpq_mat(0, 0)
        _fail("riccati certificate: empty factorisation but Σ₀ ≠ 0 (or Σ₀ = 0, which does not blow up)")
    if B is None or B.nrows() != d or B.ncols() != r:
        _fail("riccati certificate: B has the wrong shape")
    if any(x <= 0 for x in D):
        _fail("riccati certificate: D must be positive")
    Dm = flint.fmpq_mat(r, r, [D[i] if i == j else 0 for i in range(r) for j in range(r)])
    if B * Dm * B.transpose() != S0:
        _fail("riccati certificate: B D Bᵀ ≠ Σ₀")
    if B.rank() != r:
        _fail("riccati certificate: B is not of full column rank")
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
                             "G_lo?": "rat", "G_hi?": "rat"})
def check_blowup(cert, problem):
    """PROVED: this Σ₀ blows up at T* ∈ [T_lo, T_hi].

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
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
    d, v, R, F, B, D = _setup(cert, problem)
    Dinv = _check_factor(problem, B, D)
    lo, hi = _q(cert.data["T_lo"]), _q(cert.data["T_hi"])
    if not (0 < lo <= hi):
        _fail("blow-up bracket: need 0 < T_lo ≤ T_hi")
    w = [_q(x) for x in cert.data["witness"]]
    if len(w) != len(D) or all(x == 0 for x in w):
        _fail("blow-up bracket: witness has the wrong length or is zero")
    wm = flint.fmpq_mat(len(w), 1, w)
    if _is_zero(F):
        N = B.transpose() * R * B
        X_lo = Dinv - N * lo
        if not definiteness(X_lo).pd:  # affine in t and X(0) = D⁻¹ ≻ 0: PD on [0, T_lo]
            _fail("blow-up bracket: D⁻¹ − T_lo·BᵀRB is not positive definite")
        val = (wm.transpose() * (Dinv - N * hi) * wm)[0, 0]
        if val > 0:
            _fail("blow-up bracket: witness does not show D⁻¹ − T_hi·BᵀRB is singular or indefinite")
        return
    f = F[0, 0]
    if "G_lo" in cert.data:
        # F = fI: X(t) = D⁻¹ − g(t)N, g(t) = ∫₀ᵗe^{2fs}ds increasing from 0; PD at D⁻¹ and at
        # D⁻¹ − G_lo·N with G_lo ≥ g(T_lo) ⇒ PD on [0, T_lo] (convex segment); wᵀNw > 0 and
        # wᵀ(D⁻¹ − G_hi·N)w ≤ 0 with G_hi ≤ g(T_hi) ⇒ X(T_hi) is not PD.
        if any(F[i, j] != (f if i == j else 0) for i in range(d) for j in range(d)):
            _fail("blow-up bracket: G_lo/G_hi need F = f·I")
        G_lo, G_hi = _q(cert.data["G_lo"]), _q(cert.data["G_hi"])
        with working_precision(256):
            def g(t):
                tb = flint.arb(t)
                return tb if f == 0 else (flint.arb(2 * f) * tb).expm1() / flint.arb(2 * f)
            if not (g(lo) <= flint.arb(G_lo)) or not (g(hi) >= flint.arb(G_hi)):
                _fail("blow-up bracket: G_lo < g(T_lo) or G_hi > g(T_hi)")
        N = B.transpose() * R * B
        if not definiteness(Dinv - N * G_lo).pd:
            _fail("blow-up bracket: D⁻¹ − G_lo·BᵀRB is not positive definite")
        if not (wm.transpose() * N * wm)[0, 0] > 0 or (wm.transpose() * (Dinv - N * G_hi) * wm)[0, 0] > 0:
            _fail("blow-up bracket: the witness does not show X(T_hi) is not PD")
        return
    part = [_q(x) for x in cert.data.get("partition", [])]
    if len(part) < 2 or part[0] != 0 or part[-1] != lo or any(b <= a for a, b in zip(part, part[1:])):
        _fail("blow-up bracket: the partition must increase from 0 to T_lo")
    Bb, Db = _ball(B), _ball(Dinv)
    for a, b in zip(part, part[1:]):
        t = flint.arb((a + b) / 2, flint.arb((b - a) / 2).upper())
        X = Db - Bb.transpose() * _W_enclosure(F, R, t) * Bb
        if ball_pd(X) is not True:
            _fail(f"blow-up bracket: X(t) not certified PD on [{a}, {b}]")
    X = Db - Bb.transpose() * _W_enclosure(F, R, flint.arb(hi)) * Bb
    wb = _ball(wm)
    if not (wb.transpose() * X * wb)[0, 0] < 0:
        _fail("blow-up bracket: witness does not certify X(T_hi) is indefinite")


@kind("global-riccati-vI", {**_FACTOR, "limit_rank": "int", "regime": ("enum", "CLUSTERING", "EQUILIBRIUM")})
def check_global(cert, problem):
    """PROVED: this Σ₀ is stationary (BᵀRB = 0), or its solution is global with a limit of
    rank r − rank BᵀRB (BᵀRB ⪯ 0).

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, no drift, and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
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
    d, v, R, F, B, D = _setup(cert, problem)
    if not _is_zero(F):
        _fail("global-riccati-vI: only without drift")
    _check_factor(problem, B, D, allow_zero=True)
    if not D:
        if int(cert.data["limit_rank"]) != 0 or cert.data.get("regime") != "EQUILIBRIUM":
            _fail("global-riccati-vI: Σ₀ = 0 is an equilibrium of rank 0")
        return
    N = B.transpose() * R * B
    if not definiteness(N).nsd:
        _fail("global-riccati-vI: BᵀRB is not negative semidefinite")
    limit = len(D) - N.rank()
    if int(cert.data["limit_rank"]) != limit:
        _fail(f"global-riccati-vI: limit rank is {limit}, not {cert.data['limit_rank']}")
    regime = "EQUILIBRIUM" if N.rank() == 0 else "CLUSTERING"
    if cert.data.get("regime") != regime:
        _fail(f"global-riccati-vI: regime is {regime}")


@kind("equilibrium-drift-vI", {"v": "rat", "P_star": "rat[][]", "X": "rat[][]",
                                "mean?": {"Y": "rat[][]", "alpha_star": "rat[]"}})
def check_equilibrium(cert, problem):
    """PROVED: for every Σ₀ ≻ 0 the solution is global and Σ(t) → Σ* = P*⁻¹ (P(t) = Σ(t)⁻¹
    solves the linear Ṗ = −(FᵀP + PF) − R, which converges to P* since −F is Hurwitz).
    Singular Σ₀ are not covered: rank is invariant.

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I and a drift F with −F Hurwitz.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
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
    d, v, R, F, _, _ = _setup(cert, problem)
    P = qmat(cert.data["P_star"])
    X = qmat(cert.data["X"])
    if not definiteness(R).nd:
        _fail("equilibrium: R = v(A + Aᵀ) is not negative definite")
    if F.transpose() * P + P * F != -R:
        _fail("equilibrium: FᵀP* + P*F ≠ −R")
    if P != P.transpose() or not definiteness(P).pd:
        _fail("equilibrium: P* is not symmetric positive definite")
    L = F.transpose() * X + X * F
    if X != X.transpose() or not definiteness(X).pd or not definiteness(L).pd:
        _fail("equilibrium: X does not certify that F is anti-Hurwitz (need X ≻ 0, FᵀX + XF ≻ 0)")
    if "mean" in cert.data:  # M* = F + vI + vΣ*A Hurwitz: Y ≻ 0 with M*ᵀY + YM* ≺ 0; α* = −M*⁻¹b
        n = d
        I = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
        A = single_quadratic_head(problem)[1]
        M = F + I * v + P.inv() * A * v
        Y = qmat(cert.data["mean"]["Y"])
        if Y != Y.transpose() or not definiteness(Y).pd or not definiteness(-(M.transpose() * Y + Y * M)).pd:
            _fail("equilibrium: Y does not certify that the mean's matrix M* is Hurwitz")
        b = qmat([[x] for x in problem.b]) if problem.b is not None else flint.fmpq_mat(n, 1)
        a_star = qmat([[x] for x in cert.data["mean"]["alpha_star"]])
        if M * a_star + b != flint.fmpq_mat(n, 1):
            _fail("equilibrium: α* is not the mean's equilibrium −M*⁻¹b")


@kind("global-drift-vI", {**_FACTOR, "W_inf": "rat[][]", "X": "rat[][]"})
def check_global_drift(cert, problem):
    """PROVED: this Σ₀'s solution is global and Σ(t) → 0.

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I, a drift F, and Σ₀ = BDBᵀ.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 0}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When FᵀW∞ + W∞F = −R, the Hurwitz witness X or D⁻¹ − BᵀW∞B ≻ 0 fails exactly.
    """
    _check_global_drift(cert, problem)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})


def _check_global_drift(cert, problem):
    d, v, R, F, B, D = _setup(cert, problem)
    Dinv = _check_factor(problem, B, D)
    W = qmat(cert.data["W_inf"])
    X = qmat(cert.data["X"])
    I = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    f = F[0, 0]
    scalar_neg = f < 0 and all(F[i, j] == (f if i == j else 0) for i in range(d) for j in range(d))
    if not definiteness(R).psd and not scalar_neg:
        # R ⪰ 0 makes W(t) increase to W∞; for F = fI, f < 0, W(t) = g(t)R is on the segment [0, W∞]
        _fail("global-drift-vI: R = v(A + Aᵀ) is not positive semidefinite and F is not fI with f < 0")
    if F.transpose() * W + W * F != -R:
        _fail("global-drift-vI: FᵀW∞ + W∞F ≠ −R")
    if X != X.transpose() or not definiteness(X).pd or F.transpose() * X + X * F != -I:
        _fail("global-drift-vI: X does not certify that F is Hurwitz")
    if not definiteness(Dinv - B.transpose() * W * B).pd:
        _fail("global-drift-vI: D⁻¹ − BᵀW∞B is not positive definite")


@kind("growth-drift-vI-nsd", {"v": "rat", "u_F": "rat", "gamma": "rat"})
def check_growth_nsd(cert, problem):
    """PROVED: with V = vI and R = v(A + Aᵀ) ⪯ 0, every Σ₀ ⪰ 0 has a global solution with
    ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂ e^{γt}, γ = 2u_F ≥ 2‖F‖_F.

    W(t) = ∫₀ᵗ e^{Fᵀs}Re^{Fs}ds ⪯ 0, so X(t) = D⁻¹ − BᵀW(t)B ⪰ D⁻¹ ≻ 0 never degenerates and
    Σ(t) = e^{Ft}BX(t)⁻¹Bᵀe^{Fᵀt} ⪯ e^{Ft}Σ₀e^{Fᵀt}.

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I (drift or not).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
        ``("PROVED", Claim("EXPONENTIAL_GROWTH", EVERY_PSD, {"gamma": γ}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ⪯ 0 fails, u_F < ‖F‖_F, or γ ≠ 2u_F.
    """
    d, v, R, F, _, _ = _setup(cert, problem)
    if not definiteness(R).nsd:
        _fail("growth-drift-vI-nsd: R = v(A + Aᵀ) is not negative semidefinite")
    uF = _q(cert.data["u_F"])
    if uF < 0 or uF * uF < sum((F[i, j] ** 2 for i in range(d) for j in range(d)), flint.fmpq(0)):
        _fail("growth-drift-vI-nsd: u_F is not an upper bound of ‖F‖_F")
    gamma = _q(cert.data["gamma"])
    if gamma != 2 * uF:
        _fail("growth-drift-vI-nsd: γ must be 2·u_F")
    return "PROVED", Claim("EXPONENTIAL_GROWTH", Quantifier.EVERY_PSD, {"gamma": frac_str(gamma)})


@kind("bounded-drift-vI-nsd", {"v": "rat", "X": "rat[][]"})
def check_bounded_nsd(cert, problem):
    """PROVED: with V = vI, R = v(A + Aᵀ) ⪯ 0 and X ≻ 0, FᵀX + XF ⪯ 0, every Σ₀ ⪰ 0 has a
    global solution with tr(XΣ(t)) ≤ tr(XΣ₀): Σ(t) ⪯ e^{Ft}Σ₀e^{Fᵀt} and e^{Fᵀt}Xe^{Ft} ⪯ X.

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: one quadratic (softmax) head with V = v·I (drift or not).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
        ``("PROVED", Claim("BOUNDED", EVERY_PSD, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When R ⪯ 0, X ≻ 0 or FᵀX + XF ⪯ 0 fails exactly.
    """
    d, v, R, F, _, _ = _setup(cert, problem)
    if not definiteness(R).nsd:
        _fail("bounded-drift-vI-nsd: R = v(A + Aᵀ) is not negative semidefinite")
    X = qmat(cert.data["X"])
    if X.nrows() != d or X.ncols() != d or X != X.transpose() or not definiteness(X).pd:
        _fail("bounded-drift-vI-nsd: X is not a symmetric positive definite d×d matrix")
    if not definiteness(-(F.transpose() * X + X * F)).psd:
        _fail("bounded-drift-vI-nsd: FᵀX + XF is not negative semidefinite")
    return "PROVED", Claim("BOUNDED", Quantifier.EVERY_PSD, {})
