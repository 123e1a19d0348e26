"""Blow-up of *this* Σ₀ along a degenerate rank-one ray in d = 2, with a bracket (issue 48; kind
``tube-ray-cusp``, :mod:`symbolic_tf.certify.check.kinds.tube_ray_cusp`).

``tube-ray`` needs a hyperbolically attracting ray: a contracting ellipsoid around (X*, 0).  When V has a
Jordan block (V = [[1, x], [0, 1]]) or the ray's transversal rate vanishes, the direction X = Σ/tr Σ reaches
the rank-one ray point X* = vvᵀ/|v|² only like 1/τ, from one side, and no neighbourhood of X* is forward
invariant.  The kind's cusp R = {X ⪰ 0, tr X = 1, 0 ≤ q ≤ q0, p ≤ K·q²} (p = wᵀXw, q = vᵀXw, w ⊥ v) needs no
contraction, only that the flow crosses its two faces inward and that the growth rate c stays positive on it.

The search: the float solution up to tr Σ = 10⁸ gives the direction; the candidate rays are the rank-one
equilibria of X' = Q(X) − tr Q(X)·X on the circle of directions (sign changes of the off-diagonal rate,
refined by bisection, rationalised with growing denominators and kept only when the equilibrium is exact;
the eigenvectors of the value maps are tried first), with tr Q(X*) > 0; the side is the sign of q along
the float solution; (K, q0) are tried on dyadic grids with the checker's own region test; a validated tube
from Σ₀ runs until its end box lies in a passing cusp, and on while the bracket narrows.  Every float is a
guess; the certificate is re-checked independently.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint
import numpy as np

from ....exact.precision import working_precision
from ....exact.rational import fmpq_of, frac_str, nearest_fraction, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded

__all__ = ["KIND", "find_cusp_blowup"]

KIND = "tube-ray-cusp"
ARGUMENT = "validated-tube+projective-cusp-invariance"
_CLAIM0 = ("for this Σ₀: Σ(t) blows up in finite time along a degenerate rank-one ray (validated tube + "
           "forward-invariant cusp)")
_K_FACTORS = (Fraction(3, 2), Fraction(2), Fraction(3), Fraction(4), Fraction(8), Fraction(16))
_Q0_EXPONENTS = range(1, 41)
_PIECES = 256
_FIRST_MISSES = 12


def find_cusp_blowup(problem, *, order: int = 20, prec: int = 128, seconds: float = 10.0, rel_width: float = 1e-6,
                     horizon: float = 50.0, max_steps: int = 20000) -> Verdict:
    """PROVED (BLOWUP for this Σ₀, T* ∈ [T_lo, T_hi]) with a ``tube-ray-cusp`` certificate, or UNDECIDED with the
    reason.  Never raises on float trouble.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem: (multi-head) softmax, d = 2, F = 0 or f·I, Σ₀ ⪰ 0.
    order : int
        The Taylor order of the tube.
    prec : int
        The arb working precision in bits.
    seconds : float
        The wall-clock budget of the tube.
    rel_width : float
        The target relative width (T_hi − T_lo)/T_lo at which the tube stops.
    horizon : float
        The end time of the float guess.
    max_steps : int
        The largest number of tube steps.

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED (BLOWUP, THIS, T* ∈ [T_lo, T_hi]) with ``evidence["certificate"]`` of kind ``tube-ray-cusp``, else
        UNDECIDED with the reason.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, rel_width, horizon, max_steps, t0), _CLAIM0,
                   "tube-ray-cusp search")


def _undecided(reason, numerical=None):
    return Verdict(UNDECIDED, _CLAIM0, reason=reason, numerical=numerical or {})


def _rays(heads, v_float):
    """Exact rational directions v whose X* = vvᵀ/|v|² is an equilibrium with tr Q(X*) > 0, nearest to
    ``v_float`` first: eigenvectors of the value maps, then the roots of the off-diagonal rate on the circle."""
    from ...check.kinds.tube_ray_cusp import CuspField

    cands = []
    for C, _A in heads:
        _ev, vecs = np.linalg.eig(qmat_to_float(C))
        for k in range(2):
            if np.all(np.abs(vecs[:, k].imag) < 1e-12):
                cands.append(vecs[:, k].real)

    def rate(theta):
        v = np.array([math.cos(theta), math.sin(theta)])
        w = np.array([-v[1], v[0]])
        X = np.outer(v, v)
        Q = sum(qmat_to_float(C) @ X @ qmat_to_float(A) @ X for C, A in heads)
        Q = Q + Q.T
        return float(v @ Q @ w)

    grid = np.linspace(0.0, math.pi, 721)
    vals = [rate(t) for t in grid]
    for a, b, fa, fb in zip(grid, grid[1:], vals, vals[1:]):
        if fa == 0 or fa * fb < 0:
            lo, hi, flo = a, b, fa
            for _ in range(60):
                m = 0.5 * (lo + hi)
                fm = rate(m)
                if (fm < 0) == (flo < 0):
                    lo, flo = m, fm
                else:
                    hi = m
            cands.append(np.array([math.cos(lo), math.sin(lo)]))
    cands.sort(key=lambda c: -abs(float(c @ v_float)) / max(np.linalg.norm(c), 1e-300))
    found, seen = [], set()
    for c in cands:
        k = int(np.argmax(np.abs(c)))
        ratio = c[1 - k] / c[k]
        for den in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 100, 1000, 10 ** 4, 10 ** 6):
            r = nearest_fraction(float(ratio), den)
            v = [Fraction(1), r] if k == 0 else [r, Fraction(1)]
            key = (v[0], v[1])
            if key in seen:
                continue
            seen.add(key)
            cf = CuspField(heads, [fmpq_of(x) for x in v], 1)
            P, Qd, c0 = cf.rates(flint.fmpq(0), flint.fmpq(0), flint.fmpq_mat)
            if P == 0 and Qd == 0 and c0 > 0:
                found.append(v)
                break
    return found


def _pq(v, side, X):
    """Float (p, q) of a trace-one X in the cusp coordinates of (v, side)."""
    v = np.array([float(x) for x in v])
    w = side * np.array([-v[1], v[0]])
    return float(w @ X @ w), float(v @ X @ w)


def _regions(heads, f, v, side, u_hi, deadline):
    """Passing (q0, K) pairs of the checker's region test, q0 = 2^−k descending, the smallest passing K for each."""
    from ....spec.errors import CertificationFailed
    from ...check.kinds.tube_ray_cusp import check_cusp_region
    from .tube_end import refuse

    n = v[0] ** 2 + v[1] ** 2
    vq = [fmpq_of(x) for x in v]
    out = []
    misses = 0
    for e in _Q0_EXPONENTS:
        if time.perf_counter() > deadline:
            break
        q0 = Fraction(1, 2 ** e)
        hit = None
        for fac in _K_FACTORS:
            K = fac / n
            try:
                with working_precision(128):
                    check_cusp_region(heads, f, vq, side, fmpq_of(K),
                                      fmpq_of(q0), _PIECES, u_hi, refuse)
                hit = K
                break
            except CertificationFailed:
                continue
        if hit is not None:
            out.append((q0, hit))
            misses = 0
        elif out:
            misses += 1
            if misses > 3:
                break
        elif e >= _FIRST_MISSES:   # nothing passes down to q0 = 2^-12: the side is repelling (or c ≤ 0 there)
            break
    return out


def _find(problem, order, prec, seconds, rel_width, horizon, max_steps, t0) -> Verdict:
    from ....spec.errors import CertificationFailed, InvalidParameters
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_ray_cusp import check_cusp_end, scalar_drift
    from ....numeric.quadratic_field import FloatField
    from ._float_field import float_blowup
    from .lyapunov import certify_and_check, stored_bracket, tube_fields, tube_missed, tube_summary
    from .tube import flow_data, integrate_tube
    from .tube_end import refuse

    try:
        heads, F = flow_data(problem)
    except InvalidParameters as exc:
        return _undecided(str(exc))
    if problem.d != 2:
        return _undecided("the cusp certificate covers d = 2")
    try:
        f = scalar_drift(F, refuse)
    except CertificationFailed as exc:
        return _undecided(str(exc))
    S0q = problem.exact.Sigma0
    S0 = qmat_to_float(S0q)
    if not (S0q == S0q.transpose() and np.linalg.eigvalsh(0.5 * (S0 + S0.T)).min() >= -1e-12):
        return _undecided("Σ₀ is not symmetric positive semidefinite")
    ff = FloatField(heads, F, 2)
    late = float_blowup(ff, S0, horizon)
    numerical = {}
    if late is None:
        return _undecided(f"no float blow-up up to t = {horizon:g}: no ray to certify",
                          {"seconds": time.perf_counter() - t0})
    t_late, S_late = late
    numerical["float_T"] = t_late
    X_late = S_late / np.trace(S_late)
    evals, evecs = np.linalg.eigh(0.5 * (X_late + X_late.T))
    v_float = evecs[:, -1]
    rays = _rays(heads, v_float)
    if not rays:
        return _undecided("no exact rational rank-one ray X* = vvᵀ/|v|² with tr Q(X*) > 0 near the float blow-up "
                          "direction (an irrational or non-rank-one ray is not covered by the cusp)", numerical)
    u_guess = 1.0 / max(float(np.trace(S_late)), 1e-300)
    deadline = t0 + seconds
    plans, repelling = [], []
    for v in rays[:2]:
        p_l, q_l = _pq(v, 1, X_late)
        side = 1 if q_l > 0 else -1
        p_l, q_l = _pq(v, side, X_late)
        if not q_l > 0 or float(np.dot(v_float, [float(x) for x in v])) ** 2 < 0.5 * sum(float(x) ** 2 for x in v):
            continue
        regions = _regions(heads, f, v, side, flint.arb(max(u_guess, 1.0)), t0 + 0.3 * seconds)
        if regions:
            plans.append((v, side, regions))
        elif _regions(heads, f, v, -side, flint.arb(max(u_guess, 1.0)), t0 + 0.3 * seconds):
            repelling.append(v)
    numerical["rays"] = [[float(x) for x in v] for v in rays[:2]]
    if not plans and repelling:
        v = repelling[0]
        return _undecided(f"the float solution approaches the rank-one ray v = ({frac_str(v[0])}, {frac_str(v[1])}) "
                          "from its repelling side (a cusp passes only on the other side): it leaves the ray, so the "
                          "float blow-up (tr Σ ≥ 10⁸) may be an artefact — e.g. Σ/tr Σ converging to an isotropic "
                          "rank-one point where c = tr Q(X) → 0 and u = 1/tr Σ stays bounded below", numerical)
    if not plans:
        return _undecided("no cusp around the float ray passes the region test (the faces p = K·q², q = q0 are not "
                          "crossed inward, or c ≤ 0 on the cusp): the ray is not approached from one side",
                          numerical)
    best = {}
    last_tr = [0.0]

    def end_test(S, t):
        trS = float(S[0, 0].mid() + S[1, 1].mid())
        if not trS > 0 or trS < 1.5 * last_tr[0]:
            return False
        last_tr[0] = trS
        Xf = np.array([[float(S[i, j].mid()) for j in range(2)] for i in range(2)]) / trS
        for v, side, regions in plans:
            p1, q1 = _pq(v, side, Xf)
            if not q1 > 0:
                continue
            for q0, K in reversed(regions):   # the smallest passing cusp that holds the end: the tightest c range
                if not (q1 < 0.9 * float(q0) and p1 < 0.9 * float(K) * q1 * q1):
                    continue
                data = {"v": [frac_str(x) for x in v], "side": side, "K": frac_str(K), "q0": frac_str(q0),
                        "pieces": _PIECES}
                try:
                    lo, hi = check_cusp_end(heads, F, S, t, data, prec, refuse)
                except CertificationFailed:
                    continue
                T_lo, T_hi, width = stored_bracket(lo, hi, 1.0, 60)
                if not best or width < best["width"]:
                    best.update(data=dict(data, T_lo=frac_str(T_lo), T_hi=frac_str(T_hi)), t=t, width=width)
                return width <= rel_width
        return False

    def until(state, t):
        if time.perf_counter() > deadline:
            return bool(best)
        return end_test(state.S, t)

    left = max(0.5, deadline - time.perf_counter())
    tube = integrate_tube(heads, F, S0q, None, order=order, prec=prec, method="qr", max_steps=max_steps,
                          rel_tol=1e-2, seconds=left, until=until, framed=True)
    numerical.update(tube_summary(tube))
    if not best:
        return tube_missed(tube, _CLAIM0, numerical, t0, "enter a certified cusp", f"; float T* ≈ {t_late:.6g}")
    times, tube_data = tube_fields(tube, best["t"], order, prec)
    data = dict(best["data"], prec=prec, **tube_data)
    claim = Claim("BLOWUP", Quantifier.THIS, {"T_lo": data["T_lo"], "T_hi": data["T_hi"]})
    note = (f"validated order-{order} Taylor tube (qr, {prec} bits) over {len(times) - 1} steps to "
            f"t = {float(best['t']):.12g}, ending in a forward-invariant cusp at the rank-one ray "
            f"v = ({data['v'][0]}, {data['v'][1]}) of the projective field")
    numerical["rel_width"] = best["width"]
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "BLOWUP", "T_lo": data["T_lo"], "T_hi": data["T_hi"]},
                             f"validated tube from Σ₀ ({len(times) - 1} steps) into a forward-invariant cusp at a "
                             f"degenerate rank-one ray; relative bracket width {best['width']:.2g}")


# ---- route ----
from ..routes import declare, tube_applies  # noqa: E402 - the route is declared after its search

_tube_applies = tube_applies(d=2, what="the cusp certificate")


def _applies(problem, ctx):
    why = _tube_applies(problem, ctx)
    if why is not None:
        return why
    F = problem.exact.F
    if F is not None and any(F[i, j] != (F[0, 0] if i == j else 0) for i in range(2) for j in range(2)):
        return "the cusp certificate covers F = 0 or F = f·I"
    return None


def _cusp_search(problem, ctx):
    return ctx.skip(problem, "settles") or find_cusp_blowup(problem)


# right after tube-ray (same order, later name): the degenerate rays it refuses
declare("tube-ray-cusp", 60, ("BLOWUP",), _applies, _cusp_search,
        doc="BLOWUP of this Σ₀ with a bracket in d = 2 (F = 0 or f·I): a validated tube enters a forward-invariant "
            "cusp at a rank-one ray that attracts without hyperbolic contraction (a Jordan-block V).")
