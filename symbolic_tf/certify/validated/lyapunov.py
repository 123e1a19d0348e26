"""Search-side helpers shared by the tube-end certificates (``tube-ray``, ``tube-cluster``,
``tube-singular-equilibrium``): a rational Lyapunov guess for a Hurwitz Jacobian, and the common
tail that wraps a verified candidate in a certificate and re-checks it independently.  Floats here
are guesses; the checkers decide."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from ...exact.rational import dyadic, dyadic_matrix_str, frac_str

__all__ = ["LyapunovGuess", "lyapunov_guess", "ellipsoid_radii", "certify_and_check"]


class LyapunovGuess:
    """W (float, max-entry 1), its exact rational symmetrisation ``Wq`` (with ``W_str`` and the exact
    inverse ``Winv``) and a contraction rate ``mu`` (a short dyadic)."""

    def __init__(self, W, W_str, Wq, Winv, mu):
        self.W, self.W_str, self.Wq, self.Winv, self.mu = W, W_str, Wq, Winv, mu


def lyapunov_guess(J) -> LyapunovGuess | None:
    """For a Hurwitz float Jacobian J: W with JᵀW + WJ = −I (scaled), rounded to rationals, and μ =
    a quarter of λ_min(Lc⁻¹(−JᵀW − WJ)Lc⁻ᵀ) (W = LcLcᵀ) — half the margin of
    −(JᵀW + WJ) − 2μW ≻ 0 is left for the Jacobian's variation over the box.  None if W is not PD.

    Parameters
    ----------
    J : numpy.ndarray
        A Hurwitz float Jacobian (n×n).

    Returns
    -------
    LyapunovGuess or None
        (W, W_str, Wq, Wq⁻¹, μ), or None when W or μ is not positive.
    """
    from scipy.linalg import solve_continuous_lyapunov

    from ...exact.rational import qmat

    n = J.shape[0]
    W = solve_continuous_lyapunov(J.T, -np.eye(n))
    W = 0.5 * (W + W.T)
    W /= np.abs(W).max()
    if np.linalg.eigvalsh(W).min() <= 0:
        return None
    Lc = np.linalg.cholesky(W)
    mu_f = float(np.linalg.eigvalsh(np.linalg.solve(Lc, np.linalg.solve(Lc, -(J.T @ W + W @ J)).T)).min()) / 4
    if not mu_f > 0:
        return None
    Wq = qmat(dyadic_matrix_str(W))
    Wq = (Wq + Wq.transpose()) / 2
    W_str = [[frac_str(Fraction(int(Wq[i, j].p), int(Wq[i, j].q))) for j in range(n)] for i in range(n)]
    return LyapunovGuess(W, W_str, Wq, Wq.inv(), dyadic(mu_f, 30))


def ellipsoid_radii(rho: Fraction, Winv) -> list:
    """Box radii R_k ≥ √(ρ·(W⁻¹)_kk) (short dyadics, rounded up with a margin).

    Parameters
    ----------
    rho : fractions.Fraction
        The level ρ of the ellipsoid {zᵀWz ≤ ρ}.
    Winv : flint.fmpq_mat
        The exact W⁻¹.

    Returns
    -------
    list of fractions.Fraction
        One radius per coordinate, so that the ellipsoid lies in the box ± R.
    """

    return [dyadic(math.sqrt(float(rho) * int(Winv[k, k].p) / int(Winv[k, k].q)) * (1 + 1e-9) + 1e-300, 40)
            for k in range(Winv.nrows())]


def certify_and_check(problem, kind, claim, data, note, numerical, t0, argument, evidence, reason):
    """Wrap verified data in a certificate, re-check it with the independent checker and return the
    Verdict: PROVED with ``evidence`` (plus the certificate), or UNDECIDED if the check fails.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem the certificate is about.
    kind : str
        The certificate kind.
    claim : symbolic_tf.certify.claims.Claim
        The claim the data prove.
    data : dict
        The certificate's data.
    note : str
        The certificate's note.
    numerical : dict
        Float diagnostics of the search; ``seconds`` and ``check_seconds`` are added.
    t0 : float
        ``time.perf_counter()`` at the start of the search.
    argument : str
        The Verdict's argument.
    evidence : dict
        The Verdict's evidence (the certificate is added under ``"certificate"``).
    reason : str
        The Verdict's reason.

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED with the certificate in its evidence, or UNDECIDED when the independent check fails.
    """
    import time

    from ...spec.errors import CertificationFailed
    from ...spec.verdict import PROVED, UNDECIDED, Verdict
    from ..certificate import Certificate
    from ..check import check

    cert = Certificate.for_problem(problem, kind, claim, PROVED, data, notes=[note])
    t2 = time.perf_counter()
    try:
        check(cert)
    except CertificationFailed as exc:
        numerical["seconds"] = time.perf_counter() - t0
        return Verdict(UNDECIDED, claim.text(), numerical=numerical,
                       reason=f"the certificate failed the independent check: {exc}")
    numerical.update(check_seconds=time.perf_counter() - t2, seconds=time.perf_counter() - t0)
    return Verdict(PROVED, claim.text(), argument, evidence=dict(evidence, certificate=cert.to_dict()),
                   numerical=numerical, reason=reason)
