"""Certificates for the covariance flow when V = vI (softmax, optionally + drift F x + b).

With V = vI and R := v(A + Aᵀ) the covariance equation Σ̇ = FΣ + ΣFᵀ + ΣRΣ is linearised
(docs/mathematics.md §5–§6, Radon): P = Σ⁻¹ obeys Ṗ = −(FᵀP + PF) − R, so

    Σ(t) = e^{Ft} B (D⁻¹ − Bᵀ W(t) B)⁻¹ Bᵀ e^{Fᵀt},    W(t) = ∫₀ᵗ e^{Fᵀs} R e^{Fs} ds,

where Σ₀ = B D Bᵀ is an exact factorisation (B rational of full column rank r = rank Σ₀,
D rational diagonal ≻ 0; singular Σ₀ allowed).  The solution exists exactly as long as
X(t) := D⁻¹ − BᵀW(t)B stays positive definite, and blows up at the first t where X(t) is
singular.  Hence:

* blow-up bracket [lo, hi]: X ≻ 0 on [0, lo] and a rational w with wᵀX(hi)w ≤ 0.
  F = 0: W(t) = tR, X(t) is affine in t, so X(lo) ≻ 0 (exact LDLᵀ) suffices; F ≠ 0: X is
  enclosed over a partition of [0, lo] in ball arithmetic (arb matrix exponential of the
  Van Loan block [[−Fᵀ, R], [0, F]] at ball times) and each piece is ball-PD.
* F = 0 and N := BᵀRB ⪯ 0: global, Σ(t) → a limit of rank r − rank N (clustering).
* R ≺ 0 and F anti-Hurwitz: P* with FᵀP* + P*F = −R is PD and Σ(t) → Σ* = P*⁻¹ for every
  Σ₀ ≻ 0 (stable equilibrium).

The floats here only *guess* where T* is; every claim is re-decided exactly or with balls
and re-checked by :mod:`symbolic_tf.certify.check.riccati` and its kinds.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ...exact.ball import ball_pd
from ...exact.definiteness import definiteness, exact_factor, is_pd, pd_or_witness
from ...exact.precision import working_precision
from ...exact.rational import fmpq_of, frac_str, fraction_of, nearest_fraction, qmat_to_float
from ...spec.errors import InvalidParameters
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ...variants import single_quadratic_head
from ..check.certificate import Certificate, mat_str, vec_str
from ..check.claims import Claim, Quantifier
from ..check.riccati import X_centred_enclosure

__all__ = ["scalar_of_identity", "riccati_data", "blowup_bracket_vI", "classify_vI", "sublevel_metric"]


def scalar_of_identity(M) -> Fraction | None:
    """v if the exact matrix M equals v·I, else None.

    Parameters
    ----------
    M : sequence of rows
        A square exact matrix.

    Returns
    -------
    Fraction or None
        v with M = vI, or None.
    """
    n = len(M)
    v = Fraction(M[0][0])
    for i in range(n):
        for j in range(n):
            if Fraction(M[i][j]) != (v if i == j else 0):
                return None
    return v


def radon_pair(problem) -> tuple[Fraction, flint.fmpq_mat] | None:
    """(v, Ã) when the problem's covariance flow is one quadratic head with C = vI, else None.

    Then Σ̇ = v(ΣÃΣ + ΣÃᵀΣ) (+ drift) and Σ⁻¹ solves a linear ODE — the Radon linearisation
    (docs/mathematics.md §4).  Consults the variant's declaration
    (:func:`symbolic_tf.variants.single_quadratic_head`), never its name.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    tuple of (Fraction, flint.fmpq_mat) or None
        v and Ã = c·τ·A exactly, or None when the structure does not hold.
    """
    try:
        C, At = single_quadratic_head(problem)
    except InvalidParameters:
        return None
    v = scalar_of_identity([[fraction_of(C[i, j]) for j in range(C.ncols())]
                            for i in range(C.nrows())])
    return None if v is None else (v, At)


def riccati_data(problem):
    """(v, R, F or None, B, D) as exact flint matrices, or None when V is not a multiple of I.

    Parameters
    ----------
    problem : Problem
        The problem (softmax-like, V = vI, optional drift F x + b).

    Returns
    -------
    tuple or None
        v (Fraction), R = v(A + Aᵀ), F (None when absent or zero), and B, D with Σ₀ = BDBᵀ
        (flint ``fmpq_mat``); None when :func:`radon_pair` does not apply.
    """
    pair = radon_pair(problem)
    if pair is None:
        return None
    v, A = pair
    R = (A + A.transpose()) * fmpq_of(v)
    F = None
    if problem.F is not None and any(e != 0 for row in problem.F for e in row):
        F = problem.exact.F
    B, D = exact_factor(problem.exact.Sigma0)
    return v, R, F, B, D


def _dinv(D):
    r = D.nrows()
    return flint.fmpq_mat(r, r, [(1 / D[i, i]) if i == j else 0 for i in range(r) for j in range(r)])




# --------------------------------------------------------------------------------------------
# W(t) in ball arithmetic (Van Loan): exp(t [[−Fᵀ, R], [0, F]]) = [[E11, E12], [0, e^{Ft}]],
# W(t) = e^{Fᵀt} E12.
# --------------------------------------------------------------------------------------------
def _W_ball(F, R, t_ball, prec=192):
    n = R.nrows()
    with working_precision(prec):
        H = flint.arb_mat(2 * n, 2 * n)
        for i in range(n):
            for j in range(n):
                H[i, j] = -flint.arb(F[j, i])
                H[i, n + j] = flint.arb(R[i, j])
                H[n + i, n + j] = flint.arb(F[i, j])
        E = (H * t_ball).exp()
        E12 = flint.arb_mat(n, n, [E[i, n + j] for i in range(n) for j in range(n)])
        E22 = flint.arb_mat(n, n, [E[n + i, n + j] for i in range(n) for j in range(n)])
        return E22.transpose() * E12


def _X_ball(F, R, B, Dinv, t_ball):
    W = _W_ball(F, R, t_ball)
    Bb = flint.arb_mat(B.nrows(), B.ncols(), [flint.arb(B[i, j]) for i in range(B.nrows()) for j in range(B.ncols())])
    Db = flint.arb_mat(Dinv.nrows(), Dinv.ncols(), [flint.arb(Dinv[i, j]) for i in range(Dinv.nrows()) for j in range(Dinv.ncols())])
    return Db - Bb.transpose() * W * Bb


def _interval(a: Fraction, b: Fraction):
    mid = (a + b) / 2
    rad = (b - a) / 2
    return flint.arb(fmpq_of(mid), flint.arb(fmpq_of(rad)).upper())


def _cover_pd(F, R, B, Dinv, lo: Fraction, max_pieces: int = 4096, U=None):
    """A partition of [0, lo] on each piece of which X is ball-PD (directly, or in the centred form
    in the frame ``U`` — the checker accepts either), or None."""
    stack = [(Fraction(0), lo)]
    done = []
    while stack:
        a, b = stack.pop()
        if ball_pd(_X_ball(F, R, B, Dinv, _interval(a, b))) is True or (
                U is not None and ball_pd(X_centred_enclosure(F, R, B, Dinv, fmpq_of(a), fmpq_of(b), U)) is True):
            done.append((a, b))
        elif len(done) + len(stack) > max_pieces or b - a < lo * Fraction(1, 10**14):
            return None
        else:
            m = (a + b) / 2
            stack += [(m, b), (a, m)]
    done.sort()
    return [frac_str(a) for a, _ in done] + [frac_str(lo)]


def _float_W(F, R, t):
    from scipy.linalg import expm

    Ff, Rf = qmat_to_float(F), qmat_to_float(R)
    n = Rf.shape[0]
    H = np.block([[-Ff.T, Rf], [np.zeros((n, n)), Ff]])
    E = expm(H * t)
    return E[n:, n:].T @ E[:n, n:]


def _float_crossing(F, R, B, D, horizon: float):
    """First t ≤ horizon with λ_min(D⁻¹ − BᵀW(t)B) ≤ 0 (float guess), or None."""
    Bf, Dinvf = qmat_to_float(B), np.diag(1 / np.diag(qmat_to_float(D)))
    f = _scalar_f(F)
    if f is not None:
        # F = fI: W(t) = g(t)R, g(t) = (e^{2ft} − 1)/(2f); X(t) = D⁻¹ − g(t)N is singular first when
        # g(t) = 1/λ, λ = λ_max(D^½ N D^½) — closed form, no horizon needed
        N = Bf.T @ qmat_to_float(R) @ Bf
        dd = np.sqrt(np.diag(qmat_to_float(D)))
        lam = np.linalg.eigvalsh(dd[:, None] * N * dd[None, :]).max()
        if lam <= 0 or (f < 0 and lam <= -2 * f):
            return None
        return float(np.log1p(2 * f / lam) / (2 * f)) if f != 0 else float(1 / lam)
    if F is None:
        Rf = qmat_to_float(R)
        N = Bf.T @ Rf @ Bf
        d = np.sqrt(np.diag(qmat_to_float(D)))
        lam = np.linalg.eigvalsh(d[:, None] * N * d[None, :]).max()
        return 1 / lam if lam > 0 else None

    def lmin(t):
        X = Dinvf - Bf.T @ _float_W(F, R, t) @ Bf
        return np.linalg.eigvalsh(0.5 * (X + X.T)).min()

    def crossed(t):
        # W = e^{Fᵀt}E12 is a product of two exponentials whose entries can be far larger than W's
        # (cancellation): X = D⁻¹ − BᵀWB then carries an absolute error ~ 10⁻¹⁶·|e^{Fᵀt}|·|E12|, and a
        # negative λ_min at that scale is rounding (a flow whose λ_min levels off at 3.4 showed
        # λ_min ≈ −10³ at t ≈ 26), so a crossing counts only clearly below the rounding level
        Ff, Rf = qmat_to_float(F), qmat_to_float(R)
        n = Rf.shape[0]
        from scipy.linalg import expm

        E = expm(np.block([[-Ff.T, Rf], [np.zeros((n, n)), Ff]]) * t)
        W = E[n:, n:].T @ E[:n, n:]
        X = Dinvf - Bf.T @ W @ Bf
        lam = np.linalg.eigvalsh(0.5 * (X + X.T)).min()
        noise = 1e-12 * float(np.abs(E[n:, n:]).max() * np.abs(E[:n, n:]).max()) * float(np.abs(Bf).max()) ** 2
        return lam <= -noise

    grid = np.concatenate([[0.0], np.geomspace(1e-6, horizon, 400)])
    prev = 0.0
    for t in grid[1:]:
        if crossed(t):
            a, b = prev, t
            for _ in range(100):
                m = 0.5 * (a + b)
                a, b = (m, b) if lmin(m) > 0 else (a, m)
            return b
        prev = t
    return None


#: how many times the general-drift bracket is widened after [0, T_lo] failed its ball cover
_MAX_MISSES = 3


def blowup_bracket_vI(problem, horizon: float | None = None, rel_width: float = 1e-12) -> Verdict:
    """PROVED BLOWUP[lo, hi] with a ``blowup-riccati-vI`` certificate, or UNDECIDED.

    Parameters
    ----------
    problem : Problem
        The problem (softmax-like, V = vI, optional drift F x + b).
    horizon : float, optional
        How far to search for the blow-up time numerically (default ``problem.T``, else 100).
    rel_width : float
        Target relative width of the bracket [lo, hi] around the float estimate of T*.

    Returns
    -------
    Verdict
        PROVED with the bracket and its certificate in the evidence, or UNDECIDED with the
        reason.
    """
    claim = "the covariance Σ(t) blows up in finite time (T* to be bracketed by exact rationals)"
    data = riccati_data(problem)
    if data is None:
        return Verdict(UNDECIDED, claim, reason="needs softmax with V = v·I")
    v, R, F, B, D = data
    if B.ncols() == 0:
        return Verdict(UNDECIDED, claim, reason="Σ₀ = 0 is an equilibrium")
    Dinv = _dinv(D)
    if F is None:
        N = B.transpose() * R * B
        if definiteness(N).nsd:
            return Verdict(UNDECIDED, claim, reason="BᵀRB ⪯ 0: no blow-up (global solution)")
    elif definiteness(R).nsd:  # W(t) = ∫₀ᵗ e^{Fᵀs}Re^{Fs}ds ⪯ 0, so X(t) ⪰ D⁻¹ ≻ 0 for all t
        return Verdict(UNDECIDED, claim, reason="R ⪯ 0: no blow-up (global solution)")
    horizon = float(horizon if horizon is not None else (problem.T if problem.T is not None else 100.0))
    t_f = _float_crossing(F, R, B, D, horizon)
    if t_f is None:
        return Verdict(UNDECIDED, claim, reason=f"no blow-up found numerically up to t = {horizon:g}")
    if F is not None and _scalar_f(F) is None:
        # a general F's float crossing may be cancellation in W = e^{Fᵀt}E₁₂ (seed 2219040412 #53: a "crossing"
        # at t ≈ 20.9 of a bounded solution, then 22 s of failed ball covers): an exact sublevel M proves there is
        # no blow-up at all, so no bracket is tried (the bounded verdict is left to route drift-vI-sublevel)
        M, _, _ = sublevel_metric(F, R, problem.exact.Sigma0)
        if M is not None:
            return Verdict(UNDECIDED, claim, numerical={"T_float": t_f},
                           reason=f"the float crossing at t ≈ {t_f:.4g} is spurious: an exact M ≻ 0 with "
                                  "FᵀM + MF + R ⪯ 0 and Σ₀ ≺ M⁻¹ keeps Σ(t) ⪯ M⁻¹ (no blow-up)")
    delta = rel_width / 4
    misses = 0
    # a rational frame near the eigenvectors of X(T*): the pieces near T* are then checked in the centred
    # form, whose small diagonal entry pays only the slope of λ_min (a shallow crossing needed > 20 000
    # direct pieces, and 500 centred ones)
    frame = _eigen_frame(F, R, B, D, t_f) if F is not None and _scalar_f(F) is None else None
    while delta < 1e-2:
        lo = nearest_fraction(t_f * (1 - delta), 10**15)
        hi = nearest_fraction(t_f * (1 + delta), 10**15)
        if F is None:
            ok_lo = is_pd(Dinv - B.transpose() * R * B * fmpq_of(lo))
            Xhi = Dinv - B.transpose() * R * B * fmpq_of(hi)
            w = pd_or_witness(Xhi)[1] if ok_lo else None
            partition = None
        elif _scalar_f(F) is not None:
            # F = fI: X(t) = D⁻¹ − g(t)N with g increasing; PD on the segment [D⁻¹, D⁻¹ − G_lo N]
            # (convexity) for a rational G_lo ≥ g(T_lo), and wᵀ(D⁻¹ − G_hi N)w ≤ 0, wᵀNw > 0 for a
            # rational G_hi ≤ g(T_hi)
            partition = None
            G_lo, G_hi = _g_bounds(F[0, 0], lo, hi)
            N = B.transpose() * R * B
            ok_lo = is_pd(Dinv - N * G_lo)
            w = pd_or_witness(Dinv - N * G_hi)[1] if ok_lo else None
            if w is not None:
                wm = flint.fmpq_mat(len(w), 1, [fmpq_of(q) for q in w])
                if not (wm.transpose() * N * wm)[0, 0] > 0:
                    w = None
        else:
            # X(T_lo) itself first: a T_lo past T* (a float t_f off by more than the bracket) fails
            # there at once, instead of after a partition of [0, T_lo] into thousands of pieces
            at_lo = ball_pd(_X_ball(F, R, B, Dinv, flint.arb(fmpq_of(lo)))) is True
            partition = _cover_pd(F, R, B, Dinv, lo, U=frame) if at_lo else None
            ok_lo = partition is not None
            if not ok_lo:
                # X is not ball-PD on [0, T_lo]: T_lo is past T* (the float t_f is off by more than the
                # bracket) or too close to it — widen outward 1000-fold (×100 here, ×10 below), a
                # bounded number of times (each miss may cost a full partition attempt)
                misses += 1
                if misses > _MAX_MISSES:
                    break
                delta *= 100
            w = _ball_witness(F, R, B, Dinv, hi) if ok_lo else None
        if ok_lo and w is not None:
            cert_data = {"v": frac_str(v), "B": mat_str(B), "D": [frac_str(D[i, i]) for i in range(D.nrows())],
                         "T_lo": frac_str(lo), "T_hi": frac_str(hi), "witness": vec_str(w)}
            if partition is not None:
                cert_data["partition"] = partition
                cert_data["frame"] = mat_str(frame)
            elif F is not None:
                cert_data["G_lo"], cert_data["G_hi"] = frac_str(G_lo), frac_str(G_hi)
            claim_d = Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(lo), "T_hi": frac_str(hi)})
            cert = Certificate.for_problem(problem, "blowup-riccati-vI", claim_d, PROVED, cert_data)
            claim = claim_d.text()
            return Verdict(PROVED, claim, "riccati-linearisation",
                           evidence={"T_lo": frac_str(lo), "T_hi": frac_str(hi), "certificate": cert.to_dict()},
                           numerical={"T_float": t_f},
                           reason=f"X(t) = D⁻¹ − BᵀW(t)B is PD on [0, T_lo] and not PD at T_hi")
        delta *= 10
    return Verdict(UNDECIDED, claim, reason="could not verify a bracket around the numerical blow-up time",
                   numerical={"T_float": t_f})


# --------------------------------------------------------------------------------------------
# A sublevel set of the linear flow (kind bounded-riccati-vI): M ≻ 0 with FᵀM + MF + R ⪯ 0 keeps
# P = Σ⁻¹ ⪰ M for every Σ₀ ≺ M⁻¹ (P − M moves by congruences of itself and of −(FᵀM + MF) − R ⪰ 0).
# --------------------------------------------------------------------------------------------
_SUBLEVEL_DENOMINATORS = (10**2, 10**3, 10**4, 10**6, 10**8, 10**10)


def _sublevel_sdp(F, R, S0):
    """Float M maximising the margin s (None when the solver fails or s ≤ 0)."""
    import cvxpy as cp

    d = F.shape[0]
    w, U = np.linalg.eigh(S0)
    root = (U * np.sqrt(np.clip(w, 0, None))) @ U.T
    scale = max(1.0, float(np.abs(R).max()), float(np.abs(F).max()))
    M = cp.Variable((d, d), symmetric=True)
    s = cp.Variable()
    I = np.eye(d)
    cons = [M >> s * I, -(F.T @ M + M @ F) - R >> s * scale * I, root @ M @ root << (1 - s) * I, s <= 0.5]
    prob = cp.Problem(cp.Maximize(s), cons)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for solver in ("CLARABEL", "SCS"):
            try:
                prob.solve(solver=solver)
            except Exception:  # noqa: BLE001 - a solver failure is an UNDECIDED, never a crash
                continue
            if prob.status in ("optimal", "optimal_inaccurate") and s.value is not None and M.value is not None:
                return (float(s.value), 0.5 * (M.value + M.value.T))
    return None


def _rational_sym(Mf, q):
    import flint

    d = Mf.shape[0]
    vals = [[Fraction(float(Mf[i, j])).limit_denominator(q) for j in range(d)] for i in range(d)]
    return flint.fmpq_mat(d, d, [fmpq_of(vals[min(i, j)][max(i, j)]) for i in range(d) for j in range(d)])


def sublevel_metric(F, R, S0):
    """An exact M ≻ 0 with FᵀM + MF + R ⪯ 0 and M⁻¹ − Σ₀ ≻ 0, or None (with the reason).

    Then Σ(t) ⪯ M⁻¹ for all t ≥ 0 (docs/mathematics.md §6, "A sublevel set of the linear flow"): this Σ₀ has a
    global, bounded solution and in particular does not blow up.  An SDP maximises the margin s of M ⪰ sI,
    −(FᵀM + MF) − R ⪰ s·scale·I and Σ₀^{1/2}MΣ₀^{1/2} ⪯ (1 − s)I; M is rounded for increasing denominators
    and decided exactly.

    Parameters
    ----------
    F, R, S0 : flint.fmpq_mat
        The drift (zero matrix without one), R = v(Ã + Ãᵀ) and Σ₀.

    Returns
    -------
    tuple
        (M, margin, None) when found, else (None, margin or None, reason).
    """
    found = _sublevel_sdp(qmat_to_float(F), qmat_to_float(R), qmat_to_float(S0))
    if found is None:
        return None, None, "the SDP for M (FᵀM + MF + R ⪯ 0, Σ₀ ≺ M⁻¹) failed"
    s, Mf = found
    if s <= 1e-9:
        return None, s, f"no M ≻ 0 with FᵀM + MF + R ⪯ 0 and Σ₀ ≺ M⁻¹ (best margin {s:.3g})"
    for q in _SUBLEVEL_DENOMINATORS:
        M = _rational_sym(Mf, q)
        if (definiteness(M).pd and definiteness(-(F.transpose() * M + M * F) - R).psd
                and definiteness(M.inv() - S0).pd):
            return M, s, None
    return None, s, f"the rounded M failed exact verification (float margin {s:.3g})"


def _eigen_frame(F, R, B, D, t: float):
    """A rational invertible r×r frame near the eigenvectors of the float X(t) (the identity if rounding
    made it singular: the checker rejects a singular frame)."""
    Bf = qmat_to_float(B)
    X = np.diag(1 / np.diag(qmat_to_float(D))) - Bf.T @ _float_W(F, R, t) @ Bf
    U = np.linalg.eigh(0.5 * (X + X.T))[1]
    r = U.shape[0]
    Uq = flint.fmpq_mat(r, r, [fmpq_of(nearest_fraction(U[i, j], 10**6)) for i in range(r) for j in range(r)])
    return Uq if Uq.det() != 0 else flint.fmpq_mat(r, r, [int(i == j) for i in range(r) for j in range(r)])


def _g_bounds(f, lo: Fraction, hi: Fraction):
    """Rationals G_lo ≥ g(lo) and G_hi ≤ g(hi), g(t) = ∫₀ᵗe^{2fs}ds = expm1(2ft)/(2f) (arb)."""
    with working_precision(256):
        def g(t):
            tb = flint.arb(fmpq_of(t))
            return tb if f == 0 else (flint.arb(2 * f) * tb).expm1() / flint.arb(2 * f)
        up, dn = g(lo).upper().fmpq(), g(hi).lower().fmpq()
    # round outward to short rationals (the checker accepts any G_lo ≥ g(T_lo), G_hi ≤ g(T_hi))
    G_lo = fraction_of(up)
    G_hi = fraction_of(dn)
    s = 10**24
    G_lo = Fraction(-((-G_lo.numerator * s) // G_lo.denominator), s)
    G_hi = Fraction((G_hi.numerator * s) // G_hi.denominator, s)
    return fmpq_of(G_lo), fmpq_of(G_hi)


def _ball_witness(F, R, B, Dinv, hi: Fraction):
    """Rational w with wᵀX(hi)w < 0 certified by balls (float eigenvector, rounded)."""
    t = flint.arb(fmpq_of(hi))
    X = _X_ball(F, R, B, Dinv, t)
    Xf = np.array([[float(X[i, j].mid()) for j in range(X.ncols())] for i in range(X.nrows())])
    w_f, U = np.linalg.eigh(0.5 * (Xf + Xf.T))
    u = U[:, 0] / np.abs(U[:, 0]).max()
    w = [Fraction(x).limit_denominator(10**12) for x in u]
    wb = flint.arb_mat(len(w), 1, [flint.arb(fmpq_of(q)) for q in w])
    val = (wb.transpose() * X * wb)[0, 0]
    return tuple(w) if val < 0 else None


def classify_vI(problem, horizon: float | None = None) -> Verdict | None:
    """Regime of a V = vI softmax(+drift) problem at its Σ₀, with a certificate; None if n/a.

    Parameters
    ----------
    problem : Problem
        The problem (softmax-like, V = vI, optional drift F x + b).
    horizon : float, optional
        Passed to :func:`blowup_bracket_vI`.

    Returns
    -------
    Verdict or None
        BLOWUP, CLUSTERING/EQUILIBRIUM (F = 0, BᵀRB ⪯ 0), a stable equilibrium (R ≺ 0), a global
        solution (F Hurwitz), else the blow-up attempt's verdict; None when V is not vI.
    """
    data = riccati_data(problem)
    if data is None:
        return None
    v, R, F, B, D = data
    r = B.ncols()
    if F is None:
        N = B.transpose() * R * B
        dn = definiteness(N) if r else None
        if r and not dn.nsd:
            ver = blowup_bracket_vI(problem, horizon)
            ver.evidence.setdefault("regime", "BLOWUP")
            return ver
        limit_rank = r - (N.rank() if r else 0)
        regime = "EQUILIBRIUM" if (r == 0 or N.rank() == 0) else "CLUSTERING"
        claim = (f"the solution is global and Σ(t) converges to a limit of rank {limit_rank}"
                 if regime == "CLUSTERING" else "Σ(t) = Σ₀ for all t (an equilibrium)")
        claim_d = (Claim("CLUSTERING", Quantifier.THIS, {"rank": limit_rank}) if regime == "CLUSTERING"
                   else Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": limit_rank}))
        claim = claim_d.text()
        cert = Certificate.for_problem(problem, "global-riccati-vI", claim_d, PROVED,
                                       {"v": frac_str(v), "B": mat_str(B), "D": [frac_str(D[i, i]) for i in range(r)],
                                        "limit_rank": limit_rank, "regime": regime})
        return Verdict(PROVED, claim, "riccati-linearisation",
                       evidence={"regime": regime, "rank": limit_rank, "certificate": cert.to_dict()},
                       reason=f"BᵀRB ⪯ 0 with rank {N.rank() if r else 0}; rank Σ₀ = {r}")
    # drift
    dR = definiteness(R)
    if dR.nd:
        eq = radon_equilibrium(problem, F, R, v)
        if eq is not None:
            return eq
    if (dR.psd or _negative_scalar(F)) and r:
        glob = _global_hurwitz(problem, F, R, B, D, v)
        if glob is not None:
            return glob
    if _negative_scalar(F) and r:
        on = _on_threshold(problem, F, R, B, D, v)
        if on is not None:
            return on
    ver = blowup_bracket_vI(problem, horizon)
    if ver.status == PROVED:
        ver.evidence.setdefault("regime", "BLOWUP")
    return ver


def _scalar_f(F) -> float | None:
    """f when F = f·I exactly (F None counts as f = 0), else None."""
    if F is None:
        return 0.0
    n = F.nrows()
    f = F[0, 0]
    if all(F[i, j] == (f if i == j else 0) for i in range(n) for j in range(n)):
        return float(f.p) / float(f.q)
    return None


def _negative_scalar(F) -> bool:
    """F = f·I with f < 0 (exactly)."""
    n = F.nrows()
    f = F[0, 0]
    return f < 0 and all(F[i, j] == (f if i == j else 0) for i in range(n) for j in range(n))


def _global_hurwitz(problem, F, R, B, D, v) -> Verdict | None:
    """R ⪰ 0 (or F = fI with f < 0, any R), F Hurwitz, D⁻¹ − BᵀW∞B ≻ 0 with
    FᵀW∞ + W∞F = −R: global, Σ(t) → 0.

    For F = fI, f < 0: W(t) = g(t)R with g(t) = (1 − e^{2ft})/(2|f|) increasing in [0, 1/(2|f|)),
    so X(t) = D⁻¹ − g(t)BᵀRB is a convex combination of D⁻¹ ≻ 0 and X∞ ≻ 0 whatever the sign of R.

    W(t) = ∫₀ᵗ e^{Fᵀs}Re^{Fs}ds increases (R ⪰ 0) to W∞, so X(t) ⪰ D⁻¹ − BᵀW∞B ≻ 0 for all t
    (no blow-up), and Σ(t) = e^{Ft}B X(t)⁻¹ Bᵀe^{Fᵀt} → 0 since F is Hurwitz (docs/mathematics.md §6:
    the below-threshold side of λ_max(Σ₀^{1/2}P*Σ₀^{1/2}) = 1)."""
    n = F.nrows()
    I = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    Winf = _lyapunov(F, -R)
    X = _lyapunov(F, -I)  # FᵀX + XF = −I with X ≻ 0 certifies F Hurwitz
    if Winf is None or X is None or not definiteness(X).pd:
        return None
    if not definiteness(_dinv(D) - B.transpose() * Winf * B).pd:
        return None
    claim = "the solution is global and Σ(t) → 0 (collapse to a point)"
    claim_d = Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
    claim = claim_d.text()
    cert = Certificate.for_problem(problem, "global-drift-vI", claim_d, PROVED,
                                   {"v": frac_str(v), "B": mat_str(B), "D": [frac_str(D[i, i]) for i in range(D.nrows())],
                                    "W_inf": mat_str(Winf), "X": mat_str(X)})
    return Verdict(PROVED, claim, "riccati-linearisation",
                   evidence={"regime": "CLUSTERING", "rank": 0, "certificate": cert.to_dict()},
                   reason=("F = fI with f < 0" if _negative_scalar(F) else "R ⪰ 0") + ", F Hurwitz (FᵀX + XF = −I, X ≻ 0) and D⁻¹ − BᵀW∞B ≻ 0 with FᵀW∞ + W∞F = −R")


def _on_threshold(problem, F, R, B, D, v) -> Verdict | None:
    """F = fI (f < 0) and X∞ = D⁻¹ − BᵀRB/(2|f|) ⪰ 0 singular: global, Σ(t) → Σ∞ of rank dim ker X∞
    (kind ``threshold-drift-vI``; the boundary case between Σ → 0 and a blow-up), else None."""
    from ..check.kinds.threshold_drift_vI import kernel_matrix

    Dinv = _dinv(D)
    Xinf = Dinv - B.transpose() * R * B * fmpq_of(Fraction(-1) / (2 * fraction_of(F[0, 0])))
    if not definiteness(Xinf).psd:
        return None
    K = kernel_matrix(Xinf)
    k = K.ncols()
    if k == 0:
        return None
    limit = B * K * (K.transpose() * Dinv * K).inv() * K.transpose() * B.transpose()
    claim_d = Claim("CLUSTERING", Quantifier.THIS, {"rank": k})
    cert = Certificate.for_problem(problem, "threshold-drift-vI", claim_d, PROVED,
                                   {"v": frac_str(v), "B": mat_str(B), "D": [frac_str(D[i, i]) for i in range(D.nrows())],
                                    "limit": mat_str(limit)})
    return Verdict(PROVED, claim_d.text(), "riccati-linearisation",
                   evidence={"regime": "CLUSTERING", "rank": k, "certificate": cert.to_dict()},
                   reason=f"F = fI with f < 0 and Σ₀ exactly on the blow-up threshold: X∞ = D⁻¹ − BᵀRB/(2|f|) ⪰ 0 "
                          f"with a kernel of dimension {k}, so Σ(t) → B·K(KᵀD⁻¹K)⁻¹Kᵀ·Bᵀ of rank {k}")


def radon_equilibrium(problem, F, R, v) -> Verdict | None:
    """R ≺ 0 and F anti-Hurwitz ⇒ stable equilibrium Σ* = P*⁻¹ (exact Lyapunov solutions).

    Parameters
    ----------
    problem : Problem
        The problem (softmax-like, V = vI, optional drift F x + b).
    F : flint.fmpq_mat
        The drift matrix.
    R : flint.fmpq_mat
        R = v(A + Aᵀ).
    v : Fraction
        The scalar of V = vI.

    Returns
    -------
    Verdict or None
        PROVED (an ``equilibrium-drift-vI`` certificate with P*, X and, when M* is Hurwitz, the
        limit α* of the mean), or None when an exact Lyapunov solution is missing or not PD.
    """
    n = F.nrows()
    P = _lyapunov(F, -R)  # FᵀP + PF = −R
    # FᵀX + XF = I ≻ 0 with X ≻ 0 certifies that −F is Hurwitz (Lyapunov), i.e. F anti-Hurwitz
    X = _lyapunov(F, flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)]))
    if P is None or X is None or not definiteness(P).pd or not definiteness(X).pd:
        return None
    Sstar = P.inv()
    claim = "for every Σ₀ ≻ 0, Σ(t) exists for all t and converges to the equilibrium Σ* = P*⁻¹"
    data = {"v": frac_str(v), "P_star": mat_str(P), "X": mat_str(X)}
    evidence = {"regime": "EQUILIBRIUM", "Sigma_star": mat_str(Sstar)}
    # mean: in the limit α̇ = M*α + b with M* = F + vI + vΣ*B (docs/mathematics.md §6); Hurwitz ⇔ v < 0,
    # certified by an exact Lyapunov solution M*ᵀY + YM* = −I with Y ≻ 0.
    A = radon_pair(problem)[1]
    vq = fmpq_of(v)
    I = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    M = F + I * vq + Sstar * A * vq
    Y = _lyapunov(M, -I)
    if Y is not None and definiteness(Y).pd:
        b = problem.exact.b if problem.b is not None else flint.fmpq_mat(n, 1)
        alpha_star = -(M.inv() * b)
        data["mean"] = {"Y": mat_str(Y), "alpha_star": [frac_str(alpha_star[i, 0]) for i in range(n)]}
        claim += "; the mean converges to α* = −M*⁻¹b (M* = F + vI + vΣ*B Hurwitz)"
        evidence["alpha_star"] = data["mean"]["alpha_star"]
    params = {"Sigma_star": mat_str(Sstar)}
    if "mean" in data:
        params["alpha_star"] = data["mean"]["alpha_star"]
    claim_d = Claim("EQUILIBRIUM", Quantifier.EVERY_PD, params)
    claim = claim_d.text()
    cert = Certificate.for_problem(problem, "equilibrium-drift-vI", claim_d, PROVED, data)
    evidence["certificate"] = cert.to_dict()
    return Verdict(PROVED, claim, "lyapunov-exact", evidence=evidence,
                   reason="R ≺ 0, FᵀP* + P*F = −R with P* ≻ 0, and FᵀX + XF = I with X ≻ 0 (F anti-Hurwitz)"
                   + ("; M*ᵀY + YM* = −I with Y ≻ 0 (mean converges)" if "mean" in data else ""))


def _lyapunov_operator(F):
    """The n²×n² matrix of P ↦ FᵀP + PF on row-major vec(P), exactly."""
    n = F.nrows()
    m = n * n
    K = flint.fmpq_mat(m, m)
    for i in range(n):
        for j in range(n):
            row = i * n + j
            for k in range(n):
                K[row, k * n + j] += F[k, i]   # (FᵀP)_ij = Σ_k F_ki P_kj
                K[row, i * n + k] += F[k, j]   # (PF)_ij = Σ_k P_ik F_kj
    return K


def _lyapunov(F, C):
    """The exact solution P of FᵀP + PF = C (vectorised linear system over ℚ), or None."""
    n = F.nrows()
    m = n * n
    K = _lyapunov_operator(F)
    rhs = flint.fmpq_mat(m, 1, [C[i, j] for i in range(n) for j in range(n)])
    if K.rank() < m:
        return None
    sol = K.solve(rhs)
    P = flint.fmpq_mat(n, n, [sol[i * n + j, 0] for i in range(n) for j in range(n)])
    return P


def growth_nsd(problem) -> Verdict:
    """V = vI and R = v(A + Aᵀ) ⪯ 0: every Σ₀ ⪰ 0 has a global solution with
    ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂e^{γt}, γ = 2u_F ≥ 2‖F‖_F (kind ``growth-drift-vI-nsd``).

    W(t) = ∫₀ᵗe^{Fᵀs}Re^{Fs}ds ⪯ 0 keeps X(t) = D⁻¹ − BᵀW(t)B ⪰ D⁻¹ ≻ 0, so Σ(t) =
    e^{Ft}BX(t)⁻¹Bᵀe^{Fᵀt} ⪯ e^{Ft}Σ₀e^{Fᵀt} exists for all t (docs/certification.md, "Why the V = vI drift results hold").

    Parameters
    ----------
    problem : Problem
        The problem (softmax-like, V = vI, optional drift F x + b).

    Returns
    -------
    Verdict
        PROVED with a ``growth-drift-vI-nsd`` certificate, or UNDECIDED when R is not ⪯ 0.
    """
    from ._growth import frobenius_upper

    data = riccati_data(problem) if problem.cov is not None else None
    if problem.cov is None:
        v, A = radon_pair(problem)
        R = (A + A.transpose()) * fmpq_of(v)
    else:
        v, R = data[0], data[1]
    if not definiteness(R).nsd:
        return Verdict(UNDECIDED, "", reason="R = v(A + Aᵀ) is not negative semidefinite")
    uF = frobenius_upper(problem.F) if problem.F is not None else Fraction(0)
    claim_d = Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": frac_str(2 * uF)})
    cert = Certificate.for_problem(problem, "growth-drift-vI-nsd", claim_d, PROVED,
                                   {"v": frac_str(v), "u_F": frac_str(uF), "gamma": frac_str(2 * uF)})
    return Verdict(PROVED, claim_d.text(), "riccati-linearisation",
                   evidence={"regime": "GLOBAL_EXISTENCE", "certificate": cert.to_dict()},
                   reason="R = v(A + Aᵀ) ⪯ 0: X(t) = D⁻¹ − BᵀW(t)B ⪰ D⁻¹ never degenerates; ‖Σ(t)‖ ≤ ‖Σ₀‖e^{2‖F‖t}")


def _nonexpanding_metric(F):
    """An exact X ≻ 0 with FᵀX + XF ⪯ 0 (e^{Ft} non-expanding in the X-norm), or None.

    Candidates: X = I (F + Fᵀ ⪯ 0); the Lyapunov solution of FᵀX + XF = −I (F Hurwitz); exact
    symmetric elements of the kernel of X ↦ FᵀX + XF (F with spectrum on the imaginary axis)."""
    n = F.nrows()
    I = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    cands = [I]
    X = _lyapunov(F, -I)
    if X is not None:
        cands.append(X)
    # kernel of the Lyapunov operator on symmetric matrices (exact nullspace over ℚ)
    m = n * n
    K = _lyapunov_operator(F)
    if K.rank() < m:
        import math

        den = 1
        for i in range(m):
            for j in range(m):
                den = den * int(K[i, j].q) // math.gcd(den, int(K[i, j].q))
        Kz = flint.fmpz_mat(m, m, [int((K[i, j] * den).p) for i in range(m) for j in range(m)])
        Z, nul = Kz.nullspace()
        basis = []
        for c in range(nul):
            M = flint.fmpq_mat(n, n, [flint.fmpq(Z[i * n + j, c]) for i in range(n) for j in range(n)])
            S = (M + M.transpose()) * flint.fmpq(1, 2)
            if any(S[i, j] != 0 for i in range(n) for j in range(n)):
                basis.append(S)
        cands += basis
        cands += [-S for S in basis]
        if len(basis) > 1:
            tot = basis[0]
            for S in basis[1:]:
                tot = tot + S
            cands += [tot, -tot]
    for X in cands:
        if X == X.transpose() and definiteness(X).pd and definiteness(-(F.transpose() * X + X * F)).psd:
            return X
    return None


def bounded_nsd(problem) -> Verdict:
    """V = vI, R = v(A + Aᵀ) ⪯ 0 and X ≻ 0 with FᵀX + XF ⪯ 0: every Σ₀ ⪰ 0 stays bounded,
    tr(XΣ(t)) ≤ tr(XΣ₀) (kind ``bounded-drift-vI-nsd``).

    Σ(t) ⪯ e^{Ft}Σ₀e^{Fᵀt} (R ⪯ 0, see :func:`growth_nsd`) and e^{Fᵀt}Xe^{Ft} ⪯ X.

    Parameters
    ----------
    problem : Problem
        The problem (softmax-like, V = vI, optional drift F x + b).

    Returns
    -------
    Verdict
        PROVED with a ``bounded-drift-vI-nsd`` certificate (holding X), or UNDECIDED.
    """
    v = scalar_of_identity(problem.V)
    A = problem.exact.A * problem.exact.scale
    R = (A + A.transpose()) * fmpq_of(v)
    if not definiteness(R).nsd:
        return Verdict(UNDECIDED, "", reason="R = v(A + Aᵀ) is not negative semidefinite")
    F = problem.exact.F if problem.F is not None else flint.fmpq_mat(problem.d, problem.d)
    X = _nonexpanding_metric(F)
    if X is None:
        return Verdict(UNDECIDED, "", reason="no exact X ≻ 0 with FᵀX + XF ⪯ 0 (e^{Ft} may expand)")
    claim_d = Claim("BOUNDED", Quantifier.EVERY_PSD, {})
    cert = Certificate.for_problem(problem, "bounded-drift-vI-nsd", claim_d, PROVED,
                                   {"v": frac_str(v), "X": mat_str(X)})
    return Verdict(PROVED, claim_d.text(), "riccati-linearisation",
                   evidence={"regime": "BOUNDED", "certificate": cert.to_dict()},
                   reason="R ⪯ 0 and FᵀX + XF ⪯ 0 with X ≻ 0: tr(XΣ(t)) ≤ tr(XΣ₀)")


# ---- route ----
from .routes import declare, has_drift, needs, no_drift, searching, single_quadratic  # noqa: E402 - routes last


def riccati_ready(problem) -> str | None:
    """Why the Radon linearisation does not apply (one quadratic head with V = v·I), or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None when the covariance flow is one quadratic head whose value matrix is v·I.
    """
    why = single_quadratic(problem)
    if why is not None:
        return why
    return None if radon_pair(problem) is not None else "needs V = v·I"


def _classify(problem, ctx):
    return classify_vI(problem, ctx.horizon)


declare("riccati-vI", 10, ("BLOWUP", "CLUSTERING", "EQUILIBRIUM"), needs(riccati_ready, no_drift), _classify,
        doc="Blow-up bracket, stationary Σ₀ or clustering with the exact limit rank for this Σ₀, by the exact Radon "
            "linearisation; one quadratic head with V = v·I, no drift.")
declare("drift-vI", 20, ("EQUILIBRIUM", "CLUSTERING", "BLOWUP"), needs(riccati_ready, has_drift), _classify,
        doc="Stable equilibrium for every Σ₀ ≻ 0 (R ≺ 0, F anti-Hurwitz), collapse of this Σ₀ to 0, or a blow-up "
            "bracket; the drift model with one quadratic head and V = v·I.")
declare("drift-vI-bounded", 22, ("BOUNDED",), needs(riccati_ready), searching(bounded_nsd), modes=("point", "uniform"),
        doc="Every Σ₀ ⪰ 0 stays bounded (R ⪯ 0 and FᵀX + XF ⪯ 0 for an exact X ≻ 0); one quadratic head with "
            "V = v·I, drift or not.")
# decides what the sharper V = vI routes leave open, e.g. a singular Σ₀ that never reaches a PD equilibrium
declare("drift-vI-growth", 25, ("GLOBAL_EXISTENCE",), needs(riccati_ready), searching(growth_nsd),
        modes=("point", "uniform"),
        doc="Every Σ₀ ⪰ 0 has a global solution with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{2‖F‖t} (R ⪯ 0); one quadratic head with "
            "V = v·I, drift or not.")
