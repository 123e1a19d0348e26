"""Search for ``periodic-riccati-vI`` certificates: V = vI with a rotating drift F = aI + S (S skew).

One period τ = 2π/ω of X(t) = D⁻¹ − BᵀW(t)B decides all later ones (the kind's docstring,
:mod:`symbolic_tf.certify.check.kinds.periodic_riccati_vI`): a float look at one period says which
condition to certify, then an adaptive partition of [0, τ] (fractions of τ) is refined until every
piece passes the checker's own ball tests.
"""
from __future__ import annotations

import time
from fractions import Fraction

import flint
import numpy as np

from ...exact.ball import ball_pd
from ...exact.precision import working_precision
from ...exact.rational import frac_str, qmat_to_float
from ...spec.verdict import UNDECIDED, Verdict
from ..check.kinds.periodic_riccati_vI import rotation_scaling
from ..check.riccati import W_enclosure, ball_matrix
from .budget import check_budget
from .riccati import riccati_data

KIND = "periodic-riccati-vI"
_CLAIM0 = "for this Σ₀: the solution is global and Σ(t) → 0, or stays bounded (V = vI, rotating drift)"
_MAX_PIECES = 4096


def rotating_drift(problem) -> str | None:
    """Why the one-period argument does not apply, or None (V = vI checked by the search).

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None when F = aI + S with S skew and nonzero, d ∈ {2, 3}; else the reason.
    """
    if problem.F is None or problem.d not in (2, 3):
        return "needs a drift F = aI + S (S skew, ≠ 0) in d = 2 or 3"
    if rotation_scaling(problem.exact.F) is None:
        return "needs a drift F = aI + S with S skew and nonzero (a rotation and a scaling)"
    return None


def find_periodic(problem, *, seconds: float = 10.0) -> Verdict:
    """PROVED (CLUSTERING of rank 0 for a ≤ 0, BOUNDED for a > 0) with a ``periodic-riccati-vI``
    certificate, or UNDECIDED with the reason.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        Softmax with V = vI and F = aI + S (S skew), d ∈ {2, 3}, with Σ₀.
    seconds : float
        Time limit of the partition search.

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED with the certificate in its evidence, or UNDECIDED.
    """
    t0 = time.perf_counter()
    data = riccati_data(problem)
    if data is None:
        return Verdict(UNDECIDED, _CLAIM0, reason="needs softmax with V = v·I")
    why = rotating_drift(problem)
    if why:
        return Verdict(UNDECIDED, _CLAIM0, reason=why)
    v, R, F, B, D = data
    r = B.ncols()
    if r == 0:
        return Verdict(UNDECIDED, _CLAIM0, reason="Σ₀ = 0 is an equilibrium")
    d = problem.d
    Ff, Rf, Bf = qmat_to_float(F), qmat_to_float(R), qmat_to_float(B)
    Dinvf = np.diag(1 / np.diag(qmat_to_float(D)))
    a = float(np.trace(Ff)) / d
    Sf = Ff - a * np.eye(d)
    tau = 2 * np.pi / np.sqrt(sum(Sf[i, j] ** 2 for i in range(d) for j in range(i + 1, d)))
    q = float(np.exp(2 * a * tau))
    if not np.isfinite(q) or q > 1e12 or q < 1e-12:
        return Verdict(UNDECIDED, _CLAIM0, reason=f"e^(2aτ) ≈ {q:.3g}: one period is too long for the argument")

    def W(t):
        from scipy.linalg import expm

        H = np.block([[-Ff.T, Rf], [np.zeros((d, d)), Ff]])
        E = expm(H * t)
        return E[d:, d:].T @ E[:d, d:]

    N = -(Bf.T @ W(tau) @ Bf)
    grid = np.linspace(0, tau, 65)
    X = [Dinvf - Bf.T @ W(s) @ Bf for s in grid]
    lam_X = min(np.linalg.eigvalsh((M + M.T) / 2).min() for M in X)
    if lam_X <= 0:
        return Verdict(UNDECIDED, _CLAIM0, reason=f"X(t) = D⁻¹ − BᵀW(t)B is not positive definite on the first period "
                                                  f"(float λ_min ≈ {lam_X:.3g}): a blow-up, or no one-period argument")
    if a == 0:
        test = np.linalg.eigvalsh((N + N.T) / 2).min()
        what = "N = −BᵀW(τ)B ≻ 0"
    elif a < 0:
        Xi = Dinvf + N / (1 - q)
        test = np.linalg.eigvalsh((Xi + Xi.T) / 2).min()
        what = "D⁻¹ + N/(1 − e^{2aτ}) ≻ 0"
    else:
        test = min(np.linalg.eigvalsh((K + K.T) / 2).min()
                   for K in (N / (q - 1) - (Bf.T @ W(s) @ Bf) for s in grid))
        what = "K(s) = N/(e^{2aτ} − 1) − BᵀW(s)B ≻ 0"
    if test <= 0:
        return Verdict(UNDECIDED, _CLAIM0, reason=f"the one-period condition {what} fails in floats (λ_min ≈ {test:.3g})")

    # the partition: the checker's own ball tests, pieces halved until each passes
    from ...exact.rational import fmpq_of

    Bb = ball_matrix(B)
    Dinv = flint.fmpq_mat(r, r, [(1 / D[i, i]) if i == j else 0 for i in range(r) for j in range(r)])
    Db = ball_matrix(Dinv)
    aq, omega2 = rotation_scaling(F)
    deadline = t0 + seconds
    with working_precision(192):
        tau_b = 2 * flint.arb.pi() / flint.arb(omega2).sqrt()
        Nb = -(Bb.transpose() * W_enclosure(F, R, tau_b) * Bb)
        qb = (2 * flint.arb(aq) * tau_b).exp()
        Nq = Nb * (1 / (qb - 1)) if aq > 0 else None

        def passes(lo, hi):
            t = (flint.arb(fmpq_of(lo)) * tau_b).union(flint.arb(fmpq_of(hi)) * tau_b)
            BWB = Bb.transpose() * W_enclosure(F, R, t) * Bb
            if ball_pd(Db - BWB) is not True:
                return False
            return Nq is None or ball_pd(Nq - BWB) is True

        stack, done = [(Fraction(0), Fraction(1))], []
        while stack:
            check_budget()
            if time.perf_counter() > deadline or len(done) + len(stack) > _MAX_PIECES:
                return Verdict(UNDECIDED, _CLAIM0, reason=f"no partition of the period passed the ball tests "
                                                          f"({len(done)} pieces by the time limit)")
            lo, hi = stack.pop()
            if passes(lo, hi):
                done.append((lo, hi))
            else:
                mid = (lo + hi) / 2
                stack += [(mid, hi), (lo, mid)]
    done.sort()
    partition = [frac_str(lo) for lo, _ in done] + ["1"]
    from ...exact.rational import qmat_str
    from ..check.claims import Claim, Quantifier
    from .validated.lyapunov import certify_and_check

    cert_data = {"v": frac_str(v), "B": qmat_str(B), "D": [frac_str(D[i, i]) for i in range(r)], "partition": partition}
    claim = Claim("BOUNDED", Quantifier.THIS, {}) if a > 0 else Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
    result = "stays bounded (it approaches a periodic orbit)" if a > 0 else "tends to 0"
    return certify_and_check(problem, KIND, claim, cert_data, f"one period τ = 2π/ω ≈ {tau:.6g} in {len(done)} pieces",
                             {"tau": tau, "pieces": len(done)}, t0, "riccati-linearisation-periodic",
                             {"regime": claim.subject},
                             f"V = vI with F = aI + S (S skew): X(t) = D⁻¹ − BᵀW(t)B is positive definite on one period "
                             f"τ ≈ {tau:.4g} ({len(done)} pieces) and {what}, so every later period repeats it: Σ(t) {result}")


# ---- route ----
from .routes import declare, needs, searching  # noqa: E402 - routes last


def _needs_vI(problem):
    return None if riccati_data(problem) is not None else "needs V = v·I"


declare(KIND, 21, ("CLUSTERING", "BOUNDED"), needs(_needs_vI, rotating_drift),
        searching(find_periodic, seconds=10.0),
        doc="CLUSTERING (rank 0) or BOUNDED for this Σ₀: V = vI with F = aI + S (S skew), d ≤ 3 — one period of the "
            "Riccati linearisation, certified in balls, decides every later one.")
