"""Collapse of *this* Σ₀ to 0 under a Hurwitz drift (kind ``tube-collapse``,
:mod:`symbolic_tf.certify.check.kinds.tube_collapse`): a linear Lyapunov functional y = tr(PΣ) with
FᵀP + PF ≺ 0 decreases on {y < lam/c} (the quadratic attention term is dominated there), and a
validated tube from Σ₀ is run until its end lies in that set.  Floats only propose P, lam, p_lo,
n and c; the checker's exact tests decide, and the certificate is re-checked independently."""
from __future__ import annotations

import math
import time

import numpy as np

from ....exact.rational import dyadic, dyadic_matrix_str, float_of, frac_str, qmat_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded

__all__ = ["KIND", "find_collapse"]

KIND = "tube-collapse"
ARGUMENT = "validated-tube+linear-lyapunov-at-the-origin"
_CLAIM0 = "for this Σ₀: the solution is global and Σ(t) → 0 (validated tube + Lyapunov level set)"


def find_collapse(problem, *, order: int = 20, prec: int = 128, seconds: float = 6.0, max_steps: int = 20000) -> Verdict:
    """PROVED (CLUSTERING, rank 0, for this Σ₀) with a ``tube-collapse`` certificate, or UNDECIDED.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem, with Σ₀.
    order : int
        The Taylor order k of the tube.
    prec : int
        The arb working precision in bits (tube and ball checks).
    seconds : float
        The wall-clock budget of the search.
    max_steps : int
        The largest number of tube steps.

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED (CLUSTERING, rank 0, THIS) with ``evidence["certificate"]`` of kind ``tube-collapse``, else
        UNDECIDED with the reason.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, max_steps, t0), _CLAIM0, "tube-collapse search")


def _find(problem, order, prec, seconds, max_steps, t0) -> Verdict:
    from scipy.linalg import solve_continuous_lyapunov

    from ....exact.rational import qmat
    from ....spec.errors import CertificationFailed
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_collapse import check_collapse_bounds, end_inside
    from .lyapunov import certify_and_check, tube_missed
    from .tube import flow_inputs_or_stop
    from .tube_end import refuse, tube_entry

    heads, F, S0q = flow_inputs_or_stop(problem, True, "needs a drift F")
    d = problem.d
    Ff = qmat_to_float(F)
    if np.linalg.eigvals(Ff).real.max() >= 0:
        return Verdict(UNDECIDED, _CLAIM0, reason="F is not Hurwitz: the origin does not attract")
    P = solve_continuous_lyapunov(Ff.T, -np.eye(d))
    P = 0.5 * (P + P.T)
    P /= np.abs(P).max()
    Lc = np.linalg.cholesky(P)
    M = -(P @ Ff + Ff.T @ P)
    lam_f = 0.9 * float(np.linalg.eigvalsh(np.linalg.solve(Lc, np.linalg.solve(Lc, M).T)).min())
    p_lo_f = 0.99 * float(np.linalg.eigvalsh(P).min())
    Pq = qmat(dyadic_matrix_str(P))
    Pq = (Pq + Pq.transpose()) / 2
    P_str = qmat_str(Pq)
    Pf = qmat_to_float(Pq)
    n = [dyadic(math.sqrt(float(np.sum((Pf @ qmat_to_float(C)) ** 2) * np.sum(qmat_to_float(A) ** 2))) * (1 + 1e-6) + 1e-30, 40)
         for C, A in heads]
    p_lo, lam = dyadic(p_lo_f, 30), dyadic(lam_f, 30)
    c = dyadic(2 * float(sum(n)) / float(p_lo) ** 2 * (1 + 1e-6), 40)
    data = {"P": P_str, "lam": frac_str(lam), "p_lo": frac_str(p_lo), "n": [frac_str(x) for x in n], "c": frac_str(c)}
    try:
        Pq, level = check_collapse_bounds(heads, F, data, d, refuse)
    except CertificationFailed as exc:
        return Verdict(UNDECIDED, _CLAIM0, reason=f"the Lyapunov inequalities did not verify: {exc}")
    numerical = {}
    entry = tube_entry(heads, F, S0q, lambda S, t: end_inside(Pq, level, S, prec) or None, numerical, order=order,
                       prec=prec, max_steps=max_steps, seconds=max(0.5, 0.5 * (seconds - (time.perf_counter() - t0))))
    numerical["level"] = float_of(level)
    if entry.t is None:
        return tube_missed(entry.tube, _CLAIM0, numerical, t0, "reach {tr(PΣ) < lam/c}")
    data.update(entry.fields)
    claim = Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
    return certify_and_check(problem, KIND, claim, data, (f"validated order-{order} Taylor tube over {entry.steps} steps to "
                                          f"t = {float(entry.t):.10g}, ending where tr(PΣ) < lam/c"), numerical, t0, ARGUMENT,
                             {"regime": "CLUSTERING", "rank": 0},
                             (f"validated tube from Σ₀ ({entry.steps} steps) into {{tr(PΣ) < lam/c}}, where "
                           "FᵀP + PF ≺ 0 dominates the attention term: Σ(t) → 0"))


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

declare("tube-collapse", 57, ("CLUSTERING",), tube_applies(True),
        searching(find_collapse, unless=("blowup",), seconds=6.0),
        doc="CLUSTERING (rank 0) of this Σ₀: a validated tube enters {tr(PΣ) < lam/c}, where the Lyapunov functional "
            "of a Hurwitz F dominates; quadratic flows with drift.")
