"""Search-side helpers shared by the tube-end certificates (``tube-ray``, ``tube-cluster``,
``tube-singular-equilibrium``): a rational Lyapunov guess for a Hurwitz Jacobian, and the common
tail that wraps a verified candidate in a certificate and re-checks it independently.  Floats here
are guesses; the checkers decide."""
from __future__ import annotations

import contextlib
import contextvars

import math
from fractions import Fraction

import numpy as np
from ....exact.ball import arb_lower, arb_upper
from ....exact.rational import dyadic, dyadic_matrix_str, frac_str, round_out

__all__ = ["tube_summary", "tube_missed", "LyapunovGuess", "lyapunov_guess", "robust_lyapunov_guess", "ellipsoid_radii", "ellipsoid_fields", "entry_ellipsoid", "Throttle", "stored_bracket",
           "tube_fields", "certify_and_check", "caller_rechecks", "rechecked_by_caller"]


class LyapunovGuess:
    """W (float, max-entry 1), its exact rational symmetrisation ``Wq`` (with ``W_str`` and the exact
    inverse ``Winv``) and a contraction rate ``mu`` (a short dyadic)."""

    def __init__(self, W, W_str, Wq, Winv, mu):
        self.W, self.W_str, self.Wq, self.Winv, self.mu = W, W_str, Wq, Winv, mu


def lyapunov_guess(J, shift: float = 0.0) -> LyapunovGuess | None:
    """For a Hurwitz float Jacobian J: W with JₛᵀW + WJₛ = −I (scaled; Jₛ = J + shift·a·I, −a the
    spectral abscissa of J — a shift weights W towards the slowest modes), rounded to rationals, and μ =
    a quarter of λ_min(Lc⁻¹(−JᵀW − WJ)Lc⁻ᵀ) (W = LcLcᵀ) — half the margin of
    −(JᵀW + WJ) − 2μW ≻ 0 is left for the Jacobian's variation over the box.  None if W is not PD.

    Parameters
    ----------
    J : numpy.ndarray
        A Hurwitz float Jacobian (n×n).
    shift : float
        The share of the decay rate a added to J in the Lyapunov equation (0: the plain equation).

    Returns
    -------
    LyapunovGuess or None
        (W, W_str, Wq, Wq⁻¹, μ), or None when W or μ is not positive.
    """
    from scipy.linalg import solve_continuous_lyapunov

    from ....exact.rational import qmat

    n = J.shape[0]
    Js = J + shift * abs(float(np.linalg.eigvals(J).real.max())) * np.eye(n) if shift else J
    W = solve_continuous_lyapunov(Js.T, -np.eye(n))
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
    W_str = [[frac_str(Wq[i, j]) for j in range(n)] for i in range(n)]
    return LyapunovGuess(W, W_str, Wq, Wq.inv(), dyadic(mu_f, 30))


def _rational_guess(W, mu_f) -> LyapunovGuess | None:
    """W (float, symmetric PD) scaled to max-entry 1 and rounded to an exact symmetric rational, with μ."""
    from ....exact.rational import qmat

    W = 0.5 * (W + W.T)
    W = W / np.abs(W).max()
    if not np.all(np.isfinite(W)) or np.linalg.eigvalsh(W).min() <= 0 or not mu_f > 0:
        return None
    n = W.shape[0]
    Wq = qmat(dyadic_matrix_str(W))
    Wq = (Wq + Wq.transpose()) / 2
    W_str = [[frac_str(Wq[i, j]) for j in range(n)] for i in range(n)]
    return LyapunovGuess(W, W_str, Wq, Wq.inv(), dyadic(mu_f, 30))


def robust_lyapunov_guess(J, mu_fraction: float = 0.1) -> LyapunovGuess | None:
    """For a Hurwitz float Jacobian J with spectral abscissa −a < 0: the W of the SDP

        minimise κ  subject to  I ⪯ W ⪯ κI,  JᵀW + WJ + 2μW ⪯ −I,   μ = ``mu_fraction``·a,

    i.e. the quadratic Lyapunov function with contraction rate μ that tolerates the largest Jacobian
    perturbation: for ‖ΔJ‖₂ < 1/(2κ), −((J+ΔJ)ᵀW + W(J+ΔJ)) − 2μW ⪰ (1 − 2κ‖ΔJ‖₂)·I ≻ 0.  When J is
    far from normal (a ray or equilibrium of the projective field on the boundary of the cone
    Σ ⪰ 0 often is), the plain solution of JᵀW + WJ = −I (:func:`lyapunov_guess`) tolerates far less,
    so the ball checks over a box around the centre then need a much smaller box.  W is scaled to
    max-entry 1 and rounded to rationals; a float guess (the checkers verify everything).

    Parameters
    ----------
    J : numpy.ndarray
        A Hurwitz float Jacobian (n×n).
    mu_fraction : float
        μ as a fraction of the decay rate a = −max Re λ(J), in (0, 1).

    Returns
    -------
    LyapunovGuess or None
        (W, W_str, Wq, Wq⁻¹, μ), or None when J is not Hurwitz or the SDP solver fails.
    """
    a = -float(np.linalg.eigvals(J).real.max())
    if not a > 0 or not np.all(np.isfinite(J)):
        return None
    mu_f = mu_fraction * a
    import warnings

    import cvxpy as cp

    n = J.shape[0]
    W = cp.Variable((n, n), symmetric=True)
    kappa = cp.Variable()
    eye = np.eye(n)
    prob = cp.Problem(cp.Minimize(kappa), [W >> eye, W << kappa * eye, J.T @ W + W @ J + 2 * mu_f * W << -eye])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "may be inaccurate": the status says it
            prob.solve(solver="CLARABEL")
    except (cp.error.SolverError, ValueError, ArithmeticError):
        return None
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or W.value is None:
        return None
    return _rational_guess(np.array(W.value, dtype=float), mu_f)


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


def ellipsoid_fields(centre_key, centre_str, guess, rho) -> dict:
    """The ellipsoid part of a tube-end certificate's data: the centre, W, ρ, μ and the box radii
    R_k ≥ √(ρ·(W⁻¹)_kk) (:func:`ellipsoid_radii`), as exact strings.

    Parameters
    ----------
    centre_key : str
        The centre's key ("X_star", "Sigma_star").
    centre_str : list of list of str
        The centre as exact strings.
    guess : LyapunovGuess
        W (``W_str``, ``Winv``) and μ.
    rho : fractions.Fraction
        The level ρ.

    Returns
    -------
    dict
        {centre_key, "W", "rho", "mu", "R"} in that order.
    """
    R = ellipsoid_radii(rho, guess.Winv)
    return {centre_key: centre_str, "W": guess.W_str, "rho": frac_str(rho), "mu": frac_str(guess.mu),
            "R": [frac_str(r) for r in R]}


def entry_ellipsoid(z, guesses, fields, accepts):
    """The data of the first Lyapunov guess whose ellipsoid through 1.5× the tube end's float offset z
    (level ρ = 1.5·zᵀWz, at least 10⁻²⁴, a 30-bit dyadic) the checker's test accepts.

    Parameters
    ----------
    z : numpy.ndarray
        The float offset of the tube's end from the ellipsoid's centre, in the guesses' coordinates.
    guesses : sequence of LyapunovGuess
        The candidates, in order of preference.
    fields : callable
        ``fields(guess, rho)``: the certificate data of that ellipsoid.
    accepts : callable
        ``accepts(data)``: whether the checker verifies the tube's end inside it.

    Returns
    -------
    dict or None
        The first accepted data, or None when the checker accepts none.
    """
    for guess in guesses:
        rho = dyadic(max(1.5 * float(z @ guess.W @ z), 1e-24), 30)
        data = fields(guess, rho)
        if accepts(data):
            return data
    return None


class Throttle:
    """Spaces the (costly) tube-end checks: a check at t is due when t ≥ the next slot (which a due check
    moves to max(1.25·t, t + 10⁻³)) or when ``every`` calls have passed since the last due check — a
    tube whose steps become short late (a large Σ makes the field fast) still gets checked.

    Parameters
    ----------
    every : int
        The largest number of calls (tube steps) between two due checks.
    """

    def __init__(self, every: int = 100):
        self.next = 0.0
        self.every = every
        self.calls = 0

    def due(self, t) -> bool:
        """Whether a check at time t is due (and, if so, book the next slot).

        Parameters
        ----------
        t : flint.fmpq or float
            The tube's current time.

        Returns
        -------
        bool
            True when t ≥ the next slot or ``every`` calls have passed since the last due check.
        """
        tf = float(t)
        self.calls += 1
        if tf < self.next and self.calls < self.every:
            return False
        self.next = max(1.25 * tf, tf + 1e-3)
        self.calls = 0
        return True


def stored_bracket(lo, hi, slack_width: float = 1e-3, slack_bits: int = 80):
    """The rational bracket [T_lo, T_hi] to store for the derived ball bounds lo ≤ T* ≤ hi, with a little
    slack outward (the checker replays the tube with its own code, whose end box may differ from the
    search's in the last bits): slack = ``slack_width``·(hi − lo) + |hi|/2^``slack_bits``, rounded out to
    64-bit dyadics.

    Parameters
    ----------
    lo, hi : flint.arb
        The derived lower and upper bounds of T*.
    slack_width : float
        The slack as a fraction of the derived width hi − lo.
    slack_bits : int
        The relative slack floor 2^−``slack_bits``·|hi|.

    Returns
    -------
    tuple of (fractions.Fraction, fractions.Fraction, float)
        (T_lo, T_hi, the relative width (T_hi − T_lo)/T_lo).
    """
    qlo, qhi = arb_lower(lo), arb_upper(hi)
    sw = Fraction(slack_width)
    slack = (qhi - qlo) * sw.numerator / sw.denominator + abs(qhi) / 2 ** slack_bits
    T_lo, T_hi = round_out(qlo - slack, False), round_out(qhi + slack, True)
    return T_lo, T_hi, float(T_hi - T_lo) / max(float(T_lo), 1e-300)


def tube_fields(tube, t_end, order, prec):
    """The tube part of a certificate's data: the tube's step times up to ``t_end`` and its
    parameters (method "qr", ``tube_prec`` = ``prec``).

    Parameters
    ----------
    tube : symbolic_tf.certify.search.validated.tube.Tube
        The integrated tube.
    t_end : flint.fmpq
        The time at which the tube's end was verified.
    order : int
        The Taylor order.
    prec : int
        The tube's precision in bits.

    Returns
    -------
    tuple of (list, dict)
        (the exact times t_0 = 0 < … ≤ t_end, {"steps", "order", "tube_prec", "method"}).
    """
    from ...check.certificate import vec_str

    times = [x for x in tube.times if x <= t_end]
    return times, {"steps": vec_str(times), "order": order, "tube_prec": prec, "method": "qr"}


_CALLER_RECHECKS = contextvars.ContextVar("symbolic_tf_caller_rechecks", default=False)


@contextlib.contextmanager
def caller_rechecks():
    """Within this block the tube searches leave the independent check to their caller.

    :func:`symbolic_tf.certify.search.routes.prove` runs every route's certificate through the
    checker before it reports anything; a search that checked its own certificate first would
    replay the whole tube twice.  Only a caller that re-checks may use this.

    Yields
    ------
    None
    """
    token = _CALLER_RECHECKS.set(True)
    try:
        yield
    finally:
        _CALLER_RECHECKS.reset(token)


def rechecked_by_caller() -> bool:
    """Whether the current search runs inside :func:`caller_rechecks` (so it may skip its own check).

    Returns
    -------
    bool
        True inside the block.
    """
    return _CALLER_RECHECKS.get()


def tube_summary(tube) -> dict:
    """The float diagnostics every tube search reports about its tube.

    Parameters
    ----------
    tube : symbolic_tf.certify.search.validated.tube.Tube
        The integrated tube.

    Returns
    -------
    dict
        ``steps``, ``t_final``, ``tube_seconds`` and ``stop``.
    """
    return {"steps": tube.steps, "t_final": float(tube.t_final), "tube_seconds": tube.seconds, "stop": tube.stop}


def tube_missed(tube, claim0: str, numerical: dict, t0: float, target: str, note: str = ""):
    """The UNDECIDED verdict of a search whose tube from Σ₀ never reached its target: the reason says
    where and why the tube stopped.

    Parameters
    ----------
    tube : symbolic_tf.certify.search.validated.tube.Tube
        The integrated tube.
    claim0 : str
        The search's claim.
    numerical : dict
        Float diagnostics; ``seconds`` (since ``t0``) is added.
    t0 : float
        ``time.perf_counter()`` at the start of the search.
    target : str
        What the tube did not do ("enter the certified annulus", …).
    note : str
        Appended inside the parenthesis of the reason ("; float T* ≈ …").

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        UNDECIDED with the reason.
    """
    import time

    from ....spec.verdict import UNDECIDED, Verdict

    numerical["seconds"] = time.perf_counter() - t0
    return Verdict(UNDECIDED, claim0, numerical=numerical,
                   reason=(f"the validated tube from Σ₀ did not {target}: {tube.stop} "
                           f"(t ≈ {float(tube.t_final):.6g}, {tube.steps} steps{note})"))


def certify_and_check(problem, kind, claim, data, note, numerical, t0, argument, evidence, reason):
    """Wrap verified data in a certificate, re-check it with the independent checker and return the
    Verdict: PROVED with ``evidence`` (plus the certificate), or UNDECIDED if the check fails.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem the certificate is about.
    kind : str
        The certificate kind.
    claim : symbolic_tf.certify.check.claims.Claim
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
        Inside :func:`caller_rechecks` the check is left to the caller (which must run it).
    """
    import time

    from ....spec.errors import CertificationFailed
    from ....spec.verdict import PROVED, UNDECIDED, Verdict
    from ...check.certificate import Certificate
    from ...check import check
    from .retime import checked_retimed

    cert = Certificate.for_problem(problem, kind, claim, PROVED, data, notes=[note])
    t2 = time.perf_counter()
    if rechecked_by_caller():  # inside prove(): the caller runs the checker on this certificate
        numerical.update(check_seconds=0.0, check="left to the caller (routes.prove re-checks)",
                         seconds=time.perf_counter() - t0)
        return Verdict(PROVED, claim.text(), argument, evidence=dict(evidence, certificate=cert.to_dict()),
                       numerical=numerical, reason=reason)
    try:
        _, cert, _ = checked_retimed(cert.to_dict(), check)  # a step failed by a hair: shorter steps
    except CertificationFailed as exc:
        numerical["seconds"] = time.perf_counter() - t0
        return Verdict(UNDECIDED, claim.text(), numerical=numerical,
                       reason=f"the certificate failed the independent check: {exc}")
    numerical.update(check_seconds=time.perf_counter() - t2, seconds=time.perf_counter() - t0)
    return Verdict(PROVED, claim.text(), argument, evidence=dict(evidence, certificate=cert.to_dict()),
                   numerical=numerical, reason=reason)
