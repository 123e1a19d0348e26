"""Cross-checks of a regime map at random interior points of decided cells.

Two independent routes per point: the point classifier
(:func:`symbolic_tf.regimes.classify.classify`, its own certificates) and high-precision
Taylor integration of the moment ODE (:mod:`symbolic_tf.numeric.reference`, numerical
evidence).  A whole-cell verdict must agree with both:

* BLOWUP [T_lo, T_hi] — the point classifier says BLOWUP with a bracket meeting the cell's;
  the integration reaches 0.99·T_lo without blowing up and blows up before 1.01·T_hi;
* global regimes — the point classifier says the same regime (BOUNDED/GLOBAL_EXISTENCE
  cells accept any global regime); the integration reaches the horizon, and for
  CLUSTERING to 0 tr Σ decreases, for CLUSTERING to a limit of rank r ≥ 1 the d − r smallest
  eigenvalues shrink relative to the largest, for EQUILIBRIUM Σ moves towards Σ*.
"""
from __future__ import annotations

import random
from fractions import Fraction

__all__ = ["crosscheck"]

_GLOBAL = ("CLUSTERING", "EQUILIBRIUM", "BOUNDED", "GLOBAL_EXISTENCE")


def _compatible(cell_regime: str, point_regime: str) -> bool:
    if cell_regime in ("BOUNDED", "GLOBAL_EXISTENCE"):
        return point_regime in _GLOBAL
    return cell_regime == point_regime


def _clustering_evidence(p, S_end, rank, rec) -> bool:
    """The integration behaves as the cell's CLUSTERING claim says: a limit of rank 0 (or no rank
    stated) — tr Σ decreases; a limit of rank r ≥ 1 — the d − r smallest eigenvalues shrink relative
    to the largest (the ratio λ_{d−r}/λ_max at T is below its value at t = 0)."""
    import numpy as np

    S0 = np.array([[float(e) for e in row] for row in p.cov])
    S1 = np.array([[float(S_end[i, j]) for j in range(S0.shape[0])] for i in range(S0.shape[0])])
    if rank is None or int(rank) == 0:
        return float(np.trace(S1)) < float(np.trace(S0))
    k = S0.shape[0] - int(rank)      # the eigenvalues that must vanish: the k smallest
    w0, w1 = np.linalg.eigvalsh(S0), np.linalg.eigvalsh(S1)
    rec["eigen_ratio_0"], rec["eigen_ratio_T"] = float(w0[k - 1] / w0[-1]), float(w1[k - 1] / w1[-1])
    return w1[-1] > 0 and w1[k - 1] / w1[-1] < w0[k - 1] / w0[-1]


def _trace(S) -> float:
    return float(sum(S[i, i] for i in range(S.rows)))


def _interior_point(spec, cell, rng, tries: int = 64):
    """A random rational point (x, y, problem) strictly inside the cell's box where Σ₀ ≻ 0, or None
    after ``tries`` misses.  A cell on the rim of a Σ₀ disk is certified only where Σ₀ ≻ 0 (its claim's
    quantifier), and part of its box lies outside the cone, where there is no problem to classify."""
    from ..exact.definiteness import is_pd
    from ..spec.errors import InvalidParameters

    x0, x1, y0, y1 = (Fraction(b) for b in cell["box"])
    for _ in range(tries):
        x = x0 + (x1 - x0) * Fraction(rng.randint(1, 63), 64)
        y = y0 + (y1 - y0) * Fraction(rng.randint(1, 63), 64)
        try:
            p = spec.problem_at(x, y)
        except InvalidParameters:
            continue
        if is_pd(p.cov):
            return x, y, p
    return None


def crosscheck(doc: dict, n: int = 10, seed: int = 0, *, horizon: float = 20.0, dps: int = 20,
               integrate: bool = True) -> list[dict]:
    """Check ``n`` random points inside decided cells of the map ``doc``; one record per point
    with ``agree`` (bool) and the evidence of each route.

    Parameters
    ----------
    doc : dict
        A regime map document (its ``spec`` and ``cells``).
    n : int
        The number of decided cells sampled (one random rational point in each, where Σ₀ ≻ 0; a cell
        with no such point in 64 tries is skipped).
    seed : int
        The random seed.
    horizon : float
        The horizon of the numerical integration.
    dps : int
        The mpmath working precision (decimal digits) of the reference integration.
    integrate : bool
        Whether agreement also requires the reference integration (mpmath) to behave as the
        cell's regime says (blow-up inside the bracket, trace decreasing, approach to Σ*).

    Returns
    -------
    list of dict
        One record per point: cell, x, y, cell_regime, point_regime, point_status, the point's
        bracket and the integration (when computed), and ``agree``.
    """
    import mpmath

    from ..numeric.reference import reference_solve_problem
    from ..spec.mapspec import parse_map_spec
    from ..variants import single_quadratic_head
    from .classify import classify

    sd = dict(doc["spec"])
    sd.pop("schema", None)
    spec = parse_map_spec(sd)
    rng = random.Random(seed)
    decided = [c for c in doc["cells"] if c["status"] == "PROVED"]
    out = []
    for c in rng.sample(decided, min(n, len(decided))):
        found = _interior_point(spec, c, rng)
        if found is None:
            continue
        x, y, p = found
        rec = {"cell": c["id"], "x": str(x), "y": str(y), "cell_regime": c["regime"]}
        cl = classify(p)
        rec["point_regime"], rec["point_status"] = cl.regime, cl.status
        ok = cl.status == "PROVED" and _compatible(c["regime"], cl.regime)
        if ok and c["regime"] == "BLOWUP":
            lo, hi = Fraction(c["T_lo"]), Fraction(c["T_hi"]) if c.get("T_hi") else None
            plo, phi = Fraction(cl.T_lo), Fraction(cl.T_hi)
            rec["point_bracket"] = [str(plo), str(phi)]
            ok = plo <= (hi if hi is not None else phi) and lo <= phi
        if integrate and ok:
            if c["regime"] == "BLOWUP":
                lo = Fraction(c["T_lo"])
                hi = Fraction(c["T_hi"]) if c.get("T_hi") else Fraction(cl.T_hi)
                if lo > 0:
                    r1 = reference_solve_problem(p, T=lo * Fraction(99, 100), dps=dps, blowup_norm=1e12)
                    ok = ok and not r1.blowup
                r2 = reference_solve_problem(p, T=hi * Fraction(101, 100), dps=dps, blowup_norm=1e12)
                ok = ok and r2.blowup
                rec["integration"] = {"blowup_before": float(hi * Fraction(101, 100)), "t_end": float(r2.t_end)}
            else:
                r = reference_solve_problem(p, T=Fraction(horizon), dps=dps, blowup_norm=1e12)
                ok = ok and not r.blowup
                tr0, tr1 = _trace(mpmath.matrix([[float(e) for e in row] for row in p.cov])), _trace(r.Sigma_end)
                rec["integration"] = {"trace_0": tr0, "trace_T": tr1, "T": horizon}
                if c["regime"] == "CLUSTERING":
                    ok = ok and _clustering_evidence(p, r.Sigma_end, c.get("rank"), rec["integration"])
                elif c["regime"] == "EQUILIBRIUM":
                    # Σ* = −2f·R⁻¹ with R = v(Ã + Ãᵀ), Ã = c·τ·A, F = fI (docs/mathematics.md §6)
                    V, At = single_quadratic_head(p)
                    At = mpmath.matrix([[mpmath.mpf(int(e.p)) / int(e.q) for e in row] for row in At.tolist()])
                    R = (At + At.T) * (mpmath.mpf(int(V[0, 0].p)) / int(V[0, 0].q))
                    prm = p.numeric_params()
                    Ss = -2 * float(prm["F"][0][0]) * mpmath.inverse(R)
                    S0 = mpmath.matrix(prm["cov"].tolist())
                    ok = ok and mpmath.mnorm(r.Sigma_end - Ss, 1) < mpmath.mnorm(S0 - Ss, 1)
        rec["agree"] = bool(ok)
        out.append(rec)
    return out
