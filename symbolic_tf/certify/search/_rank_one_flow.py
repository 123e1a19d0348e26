"""A rank-one Σ₀ = c·wwᵀ of a single-head quadratic flow (no drift, or F = fI): the time-changed linear flow.

Σ(t) = x(t)x(t)ᵀ with ẋ = f·x + (xᵀÃx)Cx, and e^{−ft}x runs along y(σ) = e^{sCσ}w at the speed
dσ/dt = e^{2ft}h(σ), h(σ) = s·c·yᵀÃy (kind ``rank-one-flow``, docs/certification.md).  So the regime is read off
a scalar function of one variable: a sign change of h (the direction reaches an isotropic line of Ã and
freezes there: a rank-one limit), or h > 0 for ever with ∫dσ/h finite (blow-up at T* = that integral, f = 0).
The search scans h in floats, then states exact rational knots, and for a blow-up a cone
{yᵀGy ≥ 0} around the dominant direction of sC found by a small SDP; the kernel re-derives everything.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from ...exact.definiteness import definiteness, exact_factor
from ...exact.rational import float_of, frac_str, fraction_of, nearest_fraction
from ...spec.errors import CertificationFailed
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ..check.certificate import Certificate
from ..check.kinds.rank_one_flow import MAX_D, MAX_KNOTS, check_rank_one, derive
from ..check.tube_replay import flow_pairs
from . import budget

__all__ = ["rank_one_flow"]

_SCAN_STEPS = 4000
#: knot step: the enclosure's wrapping over [σ_k, σ_k + Δ] is ≈ 2‖C'‖Δ·c‖Ã'‖|y|², kept below 2·_STEP·h
_STEP = 0.05


def _undecided(reason):
    return Verdict(UNDECIDED, "", reason=reason)


def _np(M):
    return np.array([[float_of(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())], dtype=float)


def _rational(x: float, den: int = 10 ** 12) -> str:
    return frac_str(nearest_fraction(x, den))


def _expm(M):
    """e^M in floats (SciPy's Padé approximant; a proposal only — the kernel encloses e^{C'σ} in balls)."""
    from scipy.linalg import expm

    return expm(M)


def _fail(msg):
    raise CertificationFailed(msg)


def _flow(problem):
    pairs, F = flow_pairs(problem, _fail)
    C, At = pairs[0]
    f = flint.fmpq(0) if F is None else F[0, 0]
    return C, (At + At.transpose()) / 2, f


def _scan(Cp, Ap, w, c):
    """Float h on a uniform grid σ_k = kΔ (Δ dyadic): (Δ, k_N or None, h values, y values), with k_N where h is
    most negative in the first stretch where h < 0 (a clear sign for the ball check)."""
    norm = max(np.linalg.norm(Cp, 2), 1e-3)
    dq = Fraction(max(1, math.floor(0.02 / norm * 2 ** 20)), 2 ** 20)
    E = _expm(Cp * float(dq))
    y = w.copy()
    hs, ys = [c * y @ Ap @ y], [y]
    first = None
    for k in range(1, _SCAN_STEPS + 1):
        if k % 256 == 0:
            budget.check_budget()
        y = E @ y
        h = c * y @ Ap @ y
        hs.append(h)
        ys.append(y)
        if not np.isfinite(h) or abs(h) > 1e200:
            break
        if h < 0 and first is None:
            first = k
        if first is not None and (h > 0 or k >= first + 64):
            break
    if first is None:
        return dq, None, hs, ys
    return dq, min(range(first, len(hs)), key=lambda i: hs[i]), hs, ys


def _cone(Cp, Ap, yc, kappas, positive=True):
    """(G, α, κ, β) floats with GC' + C'ᵀG − αG ⪰ 0, Ã'C' + C'ᵀÃ' − κÃ' − βG ⪰ 0 and y_cᵀGy_c = 1, or None."""
    import cvxpy as cp

    d = Cp.shape[0]
    ev = np.sort(np.linalg.eigvals(Cp).real)[::-1]
    l1 = ev[0]
    l2 = ev[1] if d > 1 else l1 - 1.0
    yc = yc / np.linalg.norm(yc)
    # the global case first: G = Ã', α = κ (h' ≥ κh for every y); with Ã' ≻ 0 the best κ is the least
    # generalised eigenvalue of (Ã'C' + C'ᵀÃ', Ã')
    L = Ap @ Cp + Cp.T @ Ap
    cands = list(kappas)
    if np.linalg.eigvalsh(Ap).min() > 0:
        from scipy.linalg import eigh

        k0 = eigh(L, Ap, eigvals_only=True).min()
        cands = [k0 - 1e-3 * (abs(k0) + 1e-3), k0 - 0.1 * (abs(k0) + 1e-3)] + cands
    for kap in cands:
        if (kap > 0 or not positive) and np.linalg.eigvalsh(L - kap * Ap).min() > 1e-9 * max(1.0, np.abs(L).max()):
            return Ap / (yc @ Ap @ yc), kap, kap, 0.0
    if l1 - l2 <= 1e-9:
        return None
    for alpha in (l1 + l2, 1.5 * l1 + 0.5 * l2, 2 * l2 + 0.1 * (l1 - l2)):
        for kap in [k for k in kappas if k > 0 or not positive]:
            # β = 1: G absorbs the multiplier (both cone conditions are homogeneous in (G, β))
            G, t = cp.Variable((d, d), symmetric=True), cp.Variable()
            cons = [G @ Cp + Cp.T @ G - alpha * G >> t * np.eye(d),
                    L - kap * Ap - G >> t * np.eye(d),
                    yc @ G @ yc >= t, cp.norm(G, "fro") <= 1e4]
            try:
                cp.Problem(cp.Maximize(t), cons).solve(solver=cp.CLARABEL)
            except Exception:
                continue
            if t.value is not None and t.value > 1e-7:
                return G.value, alpha, kap, 1.0
    return None


def _knots(Cp, Ap, w, c, sc):
    """Rational knots 0 < … < σ_c with the ball enclosure's wrapping (≈ 2‖C'‖Δ·c·‖Ã'‖·|y|²) ≪ h, or None."""
    norm_c = max(np.linalg.norm(Cp, 2), 1e-3)
    norm_a = max(np.linalg.norm(Ap, 2), 1e-12)
    knots, sig, y = [Fraction(0)], Fraction(0), w.copy()
    while sig < sc and len(knots) < MAX_KNOTS:
        h = c * y @ Ap @ y
        if not h > 0:
            return None
        # dyadic knots (multiples of 2⁻⁴⁰): sums of steps keep small denominators
        step = Fraction(math.floor(min(_STEP / norm_c, _STEP * h / (c * norm_c * norm_a * (y @ y))) * 2 ** 40), 2 ** 40)
        if step <= 0:
            return None
        sig = min(sig + step, sc)
        if len(knots) % 256 == 0:
            budget.check_budget()
        y = _expm(Cp * float(sig)) @ w
        knots.append(sig)
    return knots if knots[-1] == sc else None


def _decay_data(Cp, Ap, w, c, hs, ys, dq):
    """Knots, a cone with any κ and a Lyapunov P of C' (Hurwitz): the decay end, or (None, reason)."""
    from scipy.linalg import solve_continuous_lyapunov

    d = Cp.shape[0]
    P = solve_continuous_lyapunov(Cp.T, -np.eye(d))
    Pq = [[_rational(x, 10 ** 6) for x in row] for row in (P + P.T) / 2]
    ev = np.sort(np.linalg.eigvals(Cp).real)[::-1]
    for frac in (0.25, 0.5, 0.75):
        kc = int(len(hs) * frac)
        if kc < 1:
            continue
        budget.check_budget()
        l1 = ev[0]
        cone = _cone(Cp, Ap, ys[kc], (1.9 * l1, 2.5 * l1, 4 * l1, 2 * ev[-1]), positive=False)
        if cone is None:
            continue
        G, alpha, kap, beta = cone
        knots = _knots(Cp, Ap, w, c, kc * dq)
        if knots is None:
            return None, "h comes too close to 0 on the way"
        return {"knots": [frac_str(k) for k in knots], "end": "decay", "G": mat_str_float(G), "alpha": _rational(alpha),
                "kappa": _rational(kap), "beta": _rational(beta), "P": Pq}, None
    return None, "no cone keeps h > 0 for ever (SDP)"


def _blowup_data(Cp, Ap, w, c, hs, ys, dq):
    """Knots to a σ_c where the cone certificate holds and the tail is small; data or a reason."""
    h0 = hs[0]
    # σ_c candidates: where h has grown by e², e⁴, e⁸, … (the direction is then near the dominant one)
    for grow in (2.0, 4.0, 8.0, 16.0, 32.0):
        kc = next((k for k, h in enumerate(hs) if h > h0 * math.exp(grow)), None)
        if kc is None:
            return None, "h does not grow along the scanned range"
        budget.check_budget()
        l1 = max(np.linalg.eigvals(Cp).real)
        if l1 <= 0:
            return None, "sC has no eigenvalue with a positive real part"
        cone = _cone(Cp, Ap, ys[kc], (1.9 * l1, 1.5 * l1, l1, 0.5 * l1))
        if cone is None:
            continue
        G, alpha, kap, beta = cone
        # the cone is forward invariant: move σ_c on until the tail bound 1/(κ·h(σ_c)) is ≤ 1 % of ∫₀^σc dσ/h
        integral = float(dq) * sum(1 / h for h in hs[:kc])
        while kc + 1 < len(hs) and 1 / (kap * hs[kc]) > 0.01 * integral:
            integral += float(dq) / hs[kc]
            kc += 1
        knots = _knots(Cp, Ap, w, c, kc * dq)
        if knots is None:
            return None, f"h comes too close to 0 before the blow-up direction, or more than {MAX_KNOTS} knots"
        data = {"knots": [frac_str(k) for k in knots], "end": "blowup", "G": mat_str_float(G),
                "alpha": _rational(alpha), "kappa": _rational(kap), "beta": _rational(beta)}
        return data, None
    return None, "no cone around the dominant direction of sC found (SDP)"


def mat_str_float(G):
    G = (G + G.T) / 2
    d = G.shape[0]
    return [[_rational(G[i, j], 10 ** 9) for j in range(d)] for i in range(d)]


def _rank_one_psd(As):
    """a (rational column) with sym(Ã) = ±λ·aaᵀ, λ > 0, or None."""
    n = As.nrows()
    k = next((i for i in range(n) if As[i, i] != 0), None)
    if k is None:
        return None
    a = flint.fmpq_mat(n, 1, [As[i, k] for i in range(n)])
    return a if As * As[k, k] == a * a.transpose() else None


def rank_one_flow(problem, ctx) -> Verdict:
    """Decide a rank-one Σ₀ on the time-changed linear flow of its factor (kind ``rank-one-flow``)."""
    B, D = exact_factor(problem.cov)
    if B.ncols() != 1:
        return _undecided("Σ₀ does not have rank one")
    C, As, f = _flow(problem)
    h0 = (D[0, 0] * B.transpose() * As * B)[0, 0]
    if h0 == 0:
        return _undecided("wᵀÃw = 0: the direction of Σ₀ is isotropic (Σ₀ is an equilibrium)")
    s = 1 if h0 > 0 else -1
    Cp, Ap = _np(C) * s, _np(As) * s
    w = _np(B)[:, 0]
    c = float_of(D[0, 0])
    base = {"w": [frac_str(B[i, 0]) for i in range(B.nrows())], "c": frac_str(D[0, 0]), "sign": s}
    dq, k_neg, hs, ys = _scan(Cp, Ap, w, c)
    attempts = []
    if k_neg is not None and f <= 0:
        attempts.append({**base, "knots": ["0", frac_str(k_neg * dq)], "end": "zero"})
    elif k_neg is None and f <= 0 and _rank_one_psd(As) is not None:
        a = _rank_one_psd(As)
        av = _np(a)[:, 0]
        g = np.array([av @ y for y in ys])
        flips = np.where(np.sign(g) == -np.sign(g[0]))[0]
        if not len(flips):
            return _undecided("Ã is semidefinite of rank one and aᵀy keeps its sign on the scanned range")
        attempts.append({**base, "knots": ["0", frac_str(int(flips[0]) * dq)], "end": "zero-linear",
                         "a": [frac_str(a[i, 0]) for i in range(a.nrows())]})
    elif k_neg is None and f <= 0 and max(np.linalg.eigvals(Cp).real) < 0:
        data, why = _decay_data(Cp, Ap, w, c, hs, ys, dq)
        if data is None:
            return _undecided(f"y → 0 along the linear flow; {why}")
        attempts.append({**base, **data})
    elif k_neg is None:
        data, why = _blowup_data(Cp, Ap, w, c, hs, ys, dq)
        if data is None:
            return _undecided(f"h = s·c·yᵀÃy stays > 0 on the scanned range; {why}")
        attempts.append({**base, **data})
    else:
        return _undecided("the direction freezes on an isotropic line but the scalar drift f > 0 grows Σ")
    data = attempts[0]
    try:
        got = derive(data, problem)
    except CertificationFailed as exc:
        return _undecided(f"its certificate fails the check: {str(exc)[:200]}")
    if got[0] == "BLOWUP":
        # outward to dyadic rationals of 2⁻⁴⁸ (short strings; the bracket still contains the derived one)
        lo, hi = fraction_of(got[1]), fraction_of(got[2])
        data = {**data, "T_lo": frac_str(Fraction(math.floor(lo * 2 ** 48), 2 ** 48)),
                "T_hi": frac_str(Fraction(math.ceil(hi * 2 ** 48), 2 ** 48))}
    claim = check_rank_one(data, problem)
    cert = Certificate.for_problem(problem, "rank-one-flow", claim, PROVED, data)
    how = ("h changes sign: the direction of Σ reaches an isotropic line of Ã and freezes"
           if data["end"] != "blowup" else "h > 0 for ever and ∫dσ/h is finite (a cone around the dominant direction)")
    return Verdict(PROVED, claim.text(), "rank-one-flow", evidence={"certificate": cert.to_dict()},
                   reason=f"Σ₀ has rank one: Σ = xxᵀ with ẋ = f·x + (xᵀÃx)Cx, a time change of y' = sCy; {how}")


# ---- route ----
from .routes import declare, single_quadratic  # noqa: E402 - the route is declared after the search it runs


def _applies(problem, ctx):
    if problem.cov is None:
        return "needs Σ₀"
    why = single_quadratic(problem)
    if why is not None:
        return why
    d = problem.d
    if not 2 <= d <= MAX_D:
        return f"d must be in [2, {MAX_D}]"
    if problem.F is not None:
        F = problem.exact.F
        if any(F[i, j] != (F[0, 0] if i == j else 0) for i in range(d) for j in range(d)):
            return "the drift is not scalar (F ≠ fI)"
    return None if definiteness(problem.exact.Sigma0).pos == 1 else "Σ₀ does not have rank one"


declare("rank-one-flow", 16, ("BLOWUP", "CLUSTERING"), _applies, rank_one_flow,
        doc="A rank-one Σ₀ of one quadratic head without drift or with F = fI: the time-changed linear flow of its "
            "factor (a sign change of h: rank-one limit; h > 0 for ever: blow-up with T* = ∫dσ/h).")
