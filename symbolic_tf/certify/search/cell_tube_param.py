"""Whole-cell search over parameter slices: trace functionals first, then tubes with the parameters as
state (kinds ``cell-lmi`` and ``cell-tube-param``).

A cell of a parameter slice is first tried with the trace functionals of ``cell-lmi``
(:class:`symbolic_tf.certify.search.cell_lmi.LmiCells`), which prove verdicts uniform in Σ₀.  When they
do not hold, a float integration at the cell's centre guesses a Σ₀-dependent verdict of the map's Σ₀:

* blow-up — the float trace passes 10⁶: target the attracting ray of the projective field
  (end ``tube-ray``), its point X* by Newton's method at the centre;
* rank-one clustering (d = 2, one head, no drift) — X = Σ/tr Σ approaches an isotropic rank-one point of
  A + Aᵀ at the centre: target the contracting ellipsoid around it (end ``tube-cluster``);
* collapse (a drift) — the float trace falls below 10⁻⁹·tr Σ₀: target the collapse set {tr(PΣ) < λ/c} with
  P from the Lyapunov equation of F at the centre and λ, n_h, c fitted over the whole cell (end
  ``tube-collapse``).

The ellipsoid's W and μ come from the float Jacobian at the centre (:func:`~.validated.lyapunov.lyapunov_guess`);
its level ρ is the largest of a geometric sequence for which the checker's own region test over the whole
cell passes (the residual of X* grows with the cell, the contraction region is bounded).  Then a validated
tube of the augmented flow (:mod:`symbolic_tf.certify.check.param_tube`) is stepped from {Σ₀} × cell with the
checker's own step until its end lies in the ellipsoid (the checker's end test).  Floats only guess; every
PROVED cell is built from the checker's functions and re-verified by the map's ``check_map``.

A cell whose centre shows neither (or whose cell-lmi search says ``final`` and the float guess finds
nothing) is returned ``final``: smaller cells would not help, and the map takes a point verdict.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint
import numpy as np

from ...exact.rational import fmpq_of, frac_str, fraction_of
from ..check.kinds.cell_tube_param import (KIND, END_KINDS, ParamTubeChecker, ball_heads, route_reason)
from .cell_searches import cell_search

__all__ = ["KIND", "ParamCells", "search_reason"]

ORDER, PREC = 16, 128
_BLOWUP_TRACE = 1e6
_HORIZON = 200.0


def search_reason(spec) -> str | None:
    """None when :class:`ParamCells` should be tried on a map spec, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        :func:`symbolic_tf.certify.check.kinds.cell_tube_param.route_reason`.
    """
    return route_reason(spec)


def _fl(M) -> np.ndarray:
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def _refuse(msg):
    from ...spec.errors import CertificationFailed

    raise CertificationFailed(msg)


def _zero_residual(d):
    def resid(_Xs, _kappa):
        return flint.arb_mat(d, d)
    return resid


def _why(fn, *args) -> str | None:
    """None when ``fn(*args, fail)`` passes, else the refusal's message."""
    from ...spec.errors import CertificationFailed

    try:
        fn(*args, _refuse)
        return None
    except (CertificationFailed, ZeroDivisionError, ValueError) as e:
        return str(e) or type(e).__name__


def _passes(fn, *args) -> bool:
    from ...spec.errors import CertificationFailed

    try:
        fn(*args, _refuse)
        return True
    except (CertificationFailed, ZeroDivisionError, ValueError):
        return False


class _FloatFlow:
    """The flow at one parameter point in floats: Q, the drift term and the projective fields."""

    def __init__(self, pairs, F):
        self.pairs, self.F = pairs, F

    def rhs(self, S):
        acc = np.zeros_like(S) if self.F is None else self.F @ S
        for C, A in self.pairs:
            acc = acc + C @ S @ A @ S
        return acc + acc.T

    def Q(self, X):
        acc = np.zeros_like(X)
        for C, A in self.pairs:
            acc = acc + C @ X @ A @ X
        return acc + acc.T

    def L(self, X):
        if self.F is None:
            return np.zeros_like(X)
        t = self.F @ X
        return t + t.T


def _svec(X, up):
    return np.array([X[i, j] for i, j in up])


def _unsvec(v, d, up):
    X = np.zeros((d, d))
    for k, (i, j) in enumerate(up):
        X[i, j] = X[j, i] = v[k]
    return X


def _num_jac(fn, z, eps=1e-7):
    f0 = fn(z)
    J = np.zeros((len(f0), len(z)))
    for k in range(len(z)):
        e = np.zeros(len(z))
        e[k] = eps
        J[:, k] = (fn(z + e) - fn(z - e)) / (2 * eps)
    return J


@cell_search(KIND, order=3.5, reason=search_reason)
class ParamCells:
    """The cell search of one parameter map spec: ``cell-lmi`` first, then a parameter tube.

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        A parameter slice (:func:`search_reason` is None).
    seconds : float
        The wall-clock budget of one cell's tube.
    cell_seconds : float, optional
        The wall-clock budget of the sub-tubes (end ``pieces``) of one cell the map will not split further
        (default 1.5·seconds).
    """

    def __init__(self, spec, seconds: float = 4.0, cell_seconds: float | None = None):
        from .cell_lmi import LmiCells

        self.spec = spec
        self.lmi = LmiCells(spec)
        self.chk = ParamTubeChecker(spec)
        self.d = self.chk.d
        self.up = [(i, j) for i in range(self.d) for j in range(i, self.d)]
        self.S0 = _fl(self.chk.S0)
        self.seconds = seconds
        self.cell_seconds = 1.5 * seconds if cell_seconds is None else cell_seconds

    # --- floats at a point -------------------------------------------------------------------
    def _flow(self, x, y) -> _FloatFlow:
        pairs = [(_fl(C.at(x, y)), _fl(A.at(x, y))) for C, A in self.chk.heads]
        F = _fl(self.chk.Fp.at(x, y)) if self.chk.Fp.terms else None
        return _FloatFlow(pairs, F)

    def _guess(self, ff: _FloatFlow):
        """("BLOWUP", X_end) / ("CLUSTER", X_end) / (None, why) from a float integration at a point."""
        from scipy.integrate import solve_ivp

        d = self.d

        def rhs(_t, s):
            return ff.rhs(s.reshape(d, d)).ravel()

        def big(_t, s):
            return np.trace(s.reshape(d, d)) - _BLOWUP_TRACE

        tr0 = float(np.trace(self.S0))

        def small(_t, s):
            return np.trace(s.reshape(d, d)) - 1e-9 * tr0

        big.terminal = small.terminal = True
        sol = solve_ivp(rhs, (0.0, _HORIZON), self.S0.ravel(), method="LSODA", rtol=1e-9, atol=1e-14,
                        events=[big, small])
        S = sol.y[:, -1].reshape(d, d)
        tr = float(np.trace(S))
        # the terminal event stops at a root of tr − 10⁶ located to the solver's tolerance, often just below it:
        # which event ended the run is read off the solver, not off the final trace
        hit = [sol.status == 1 and len(ev) > 0 for ev in (sol.t_events or [[], []])]
        if ff.F is not None and np.all(np.isfinite(S)) and (abs(tr) < 1e-8 * tr0 or hit[1]):
            return "COLLAPSE", None
        if not np.all(np.isfinite(S)) or not tr > 0:
            return None, "the float solution at the centre fails"
        if hit[0] or tr >= _BLOWUP_TRACE:
            return "BLOWUP", S / tr
        if d == 2 and len(ff.pairs) == 1 and ff.F is None:
            X = S / tr
            for P in self._iso(ff.pairs[0][1]):
                if np.abs(X - P).max() < 1e-2:
                    return "CLUSTER", P
        return None, "the float solution at the centre neither blows up nor approaches a rank-one line"

    @staticmethod
    def _iso(A):
        S = A + A.T
        a, b, c = S[0, 0], S[0, 1], S[1, 1]
        if not b * b - a * c > 0 or c == 0:
            return []
        out = []
        for sgn in (1, -1):
            w = np.array([1.0, (-b + sgn * math.sqrt(b * b - a * c)) / c])
            out.append(np.outer(w, w) / (w @ w))
        return out

    def _ray_point(self, ff, X):
        """Newton on Q(X) − tr Q(X)·X = 0 on tr X = 1 (float), from X."""
        d, up = self.d, self.up

        def G(v):
            Xv = _unsvec(v, d, up)
            Q = ff.Q(Xv)
            r = Q - np.trace(Q) * Xv
            return np.concatenate([_svec(r, up), [np.trace(Xv) - 1]])

        v = _svec(X, up)
        for _ in range(30):
            g = G(v)
            J = _num_jac(G, v)
            step = np.linalg.lstsq(J, -g, rcond=None)[0]
            v = v + step
            if np.abs(step).max() < 1e-15:
                break
        return _unsvec(v, d, up)

    def _collapse_data(self, ff, rbox):
        """Collapse data (P, lam, p_lo, n, c, split) that the checker's bounds accept on the whole cell, or None."""
        from scipy.linalg import solve_continuous_lyapunov

        from ...exact.rational import dyadic, qmat, dyadic_matrix_str
        from ..check.kinds.cell_tube_param import collapse_bounds, frobenius_sq, upper_bound

        d = self.d
        F = ff.F
        if F is None or np.linalg.eigvals(F).real.max() >= 0:
            return None
        P = solve_continuous_lyapunov(F.T, -np.eye(d))
        P = 0.5 * (P + P.T)
        P /= np.abs(P).max()
        Pq = qmat(dyadic_matrix_str(P))
        Pq = (Pq + Pq.transpose()) / 2
        P_str = [[frac_str(Pq[i, j]) for j in range(d)] for i in range(d)]
        Pf = np.array([[float(Pq[i, j]) for j in range(d)] for i in range(d)])
        p_lo = dyadic(float(np.linalg.eigvalsh(Pf).min()) * (1 - 1e-6), 30)
        L = np.linalg.cholesky(Pf)
        M = -(Pf @ F + F.T @ Pf)
        rate = float(np.linalg.eigvalsh(np.linalg.solve(L, np.linalg.solve(L, M).T)).min())
        if not rate > 0 or not p_lo > 0:
            return None
        for frac in (0.5, 0.25, 0.1):
            lam = dyadic(rate * frac, 30)
            base = {"P": P_str, "lam": frac_str(lam), "p_lo": frac_str(p_lo)}
            for split in (0, 1, 2):
                ns = []
                for C, A in self.chk.heads:
                    u = float(upper_bound(frobenius_sq(C.__class__.constant(Pq) @ C), rbox)) * float(
                        upper_bound(frobenius_sq(A), rbox))
                    ns.append(dyadic(math.sqrt(u) * (1 + 1e-9) + 1e-30, 30))
                c = dyadic(2 * float(sum(ns)) / float(p_lo) ** 2 * (1 + 1e-9) + 1e-30, 30)
                data = dict(base, n=[frac_str(v) for v in ns], c=frac_str(c), split=split)
                if _passes(lambda f: collapse_bounds(self.chk.heads, self.chk.Fp, rbox, data, d, f)):
                    return data
        return None

    def _target(self, kind, ff, X):
        """(end kind, the ellipsoid's fixed fields, W guesses, the centre) at the cell's centre point, or None."""
        from .validated.lyapunov import lyapunov_guess, robust_lyapunov_guess

        d, up = self.d, self.up
        if kind == "BLOWUP":
            Xs = self._ray_point(ff, X)

            def Phi(z):
                Xz, u = _unsvec(z[:-1], d, up), z[-1]
                c = np.trace(ff.Q(Xz)) + u * np.trace(ff.L(Xz))
                top = ff.Q(Xz) + u * ff.L(Xz) - c * Xz
                return np.concatenate([_svec(top, up), [-c * u]])

            J = _num_jac(Phi, np.concatenate([_svec(Xs, up), [0.0]]))
            end, extra = "tube-ray", {}
        else:
            Xs = X

            def Phi(z):
                Xz = _unsvec(z, d, up)
                Q = ff.Q(Xz)
                ct = np.trace(Q) + (np.trace(Xz) - 1)
                return _svec(Q - ct * Xz, up)

            J = _num_jac(Phi, _svec(Xs, up))
            end, extra = "tube-cluster", {"kappa": "1"}
        if not np.all(np.isfinite(J)) or np.linalg.eigvals(J).real.max() >= -1e-9:
            return None
        guesses = [g for g in (robust_lyapunov_guess(J), lyapunov_guess(J)) if g is not None]
        from ...exact.rational import dyadic_matrix_str

        return end, extra, guesses, dyadic_matrix_str(Xs)

    def _moving_region(self, box, rbox, X, target):
        """Ellipsoid data for the ``tube-cluster`` end with a moving centre (fields ``X_dx``, ``X_dy``): X*(p) the
        affine interpolation of the isotropic point of A(p) + A(p)ᵀ nearest the centre's X (its secant slopes over
        the cell), W and μ from the centre's guesses; the largest level ρ and the fewest sub-boxes (psplit ≤ 1:
        more sub-boxes or a second contraction rate more than doubled the fresh general-V map's run for no cell)
        for which the checker's region test (:func:`~symbolic_tf.certify.check.kinds.cell_tube_param.moving_cluster_end`
        without an end state) passes, or None."""
        from ...exact.rational import dyadic_matrix_str
        from ..check.kinds.cell_tube_param import moving_cluster_end
        from .validated.lyapunov import ellipsoid_fields

        def iso(x, y):
            pts = self._iso(self._flow(x, y).pairs[0][1])
            return min(pts, key=lambda P: np.abs(P - X).max()) if pts else None

        xc, yc = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
        ends = [iso(box[0], yc), iso(box[1], yc), iso(xc, box[2]), iso(xc, box[3]), iso(xc, yc)]
        if any(P is None for P in ends):
            return None
        Gx = (ends[1] - ends[0]) / float(box[1] - box[0])
        Gy = (ends[3] - ends[2]) / float(box[3] - box[2])
        strs = [dyadic_matrix_str(0.5 * (M + M.T)) for M in (ends[4], Gx, Gy)]
        _end, extra, guesses, _xs = target
        heads, Fp = self.chk.heads, self.chk.Fp
        for guess in guesses:
            for psplit in range(2):
                best = None
                for k in range(50, 78, 2):
                    rho = Fraction(1, 2 ** (80 - k))
                    data = dict(ellipsoid_fields("X_star", strs[0], guess, rho), X_dx=strs[1], X_dy=strs[2],
                                **extra, prec=PREC, psplit=psplit)
                    why = _why(lambda f: moving_cluster_end(heads, Fp, rbox, None, data, f))
                    if why is None:
                        best = data
                    elif best is not None or "MᵀW" in why:
                        break
                if best is not None:
                    return best
        return None

    def _moving_ray_region(self, box, rbox, target):
        """Ellipsoid data for the ``tube-ray`` end with a moving centre (fields ``X_dx``, ``X_dy``): X*(p) the affine
        interpolation of the float ray points (Newton at the midpoints of the cell's edges, from the centre's
        point: secant slopes), W and μ from the centre's guesses; the largest level ρ of 2⁻⁵⁰, 2⁻⁴⁶, … and the
        fewest sub-boxes (psplit ≤ 1) for which the checker's region test
        (:func:`~symbolic_tf.certify.check.kinds.cell_tube_param.moving_ray_end` without an end state) passes, or
        None."""
        from ...exact.rational import dyadic_matrix_str
        from ..check.kinds.cell_tube_param import moving_ray_end
        from .validated.lyapunov import ellipsoid_fields

        _end, extra, guesses, xs_str = target
        Xc = np.array([[float(Fraction(v)) for v in row] for row in xs_str])

        def ray(x, y):
            P = self._ray_point(self._flow(x, y), Xc)
            return P if np.all(np.isfinite(P)) and np.abs(P - Xc).max() < 0.25 else None

        xc, yc = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
        ends = [ray(box[0], yc), ray(box[1], yc), ray(xc, box[2]), ray(xc, box[3])]
        if any(P is None for P in ends):
            return None
        Gx = (ends[1] - ends[0]) / float(box[1] - box[0])
        Gy = (ends[3] - ends[2]) / float(box[3] - box[2])
        strs = [dyadic_matrix_str(0.5 * (M + M.T)) for M in (Gx, Gy)]
        heads, Fp = self.chk.heads, self.chk.Fp
        if not Fp.terms:
            # without drift the X rows of Φ's Jacobian do not depend on u: a W that is block diagonal with a small
            # u-weight still contracts (Schur complement) and lets the end in at a far larger u = 1/tr Σ, so the
            # projective tube need not run to tr Σ ≈ 1/√ρ (measured: its wrapping explodes first at τ ≈ 2)
            guesses = [g for base in guesses for g in (_flat_u(base, 2.0 ** -16), _flat_u(base, 2.0 ** -8))
                       if g is not None] + list(guesses)
        for guess in guesses:
            for psplit in range(3):
                best = None
                for k in range(30, 80, 4):
                    rho = Fraction(1, 2 ** (80 - k))
                    data = dict(ellipsoid_fields("X_star", xs_str, guess, rho), X_dx=strs[0], X_dy=strs[1],
                                **extra, prec=PREC, psplit=psplit, T_lo="0", T_hi="0")
                    why = _why(lambda f: moving_ray_end(heads, Fp, rbox, None, flint.fmpq(0), data, f))
                    if why is None:
                        best = data
                    elif best is not None or "MᵀW" in why:
                        break
                if best is not None:
                    return best
        return None

    def _passes_without_residual(self, end, S, data, psplit, cellp) -> bool:
        """Whether the end test (on each of the 2^psplit × 2^psplit sub-boxes) passes with the residual taken as
        zero — a diagnosis for the search only (never a certificate)."""
        from ..check.kinds.cell_tube_param import cluster_end, ray_end, sub_boxes

        fn = ray_end if end == "tube-ray" else cluster_end
        heads, Fp, box = cellp
        zero = _zero_residual(self.d)
        for sub in sub_boxes(box, psplit):
            sp, sF = ball_heads(heads, Fp, sub)
            if _why(lambda f: fn(sp, sF, S, flint.fmpq(0), data, f, zero)) is not None:
                return False
        return True

    def _region(self, end, extra, guesses, Xs_str, pairs, F, resid, cellp):
        """The ellipsoid data with the largest level ρ (of a geometric sequence, ratio 4) whose region test passes
        over the cell, or (None, residual_limited).  The region test is the checker's end test with a degenerate
        end box at the centre.

        Each W is tried with several contraction rates μ (the guess's and larger ones): the residual test
        rᵀWr < μ²ρ wants a large μ·√ρ, the contraction test over the box around the ellipsoid a small μ and ρ.
        Where the contraction test fails, the cell is cut into 2^k × 2^k sub-boxes for the end test (``psplit`` =
        k ≤ 2: the heads' balls, hence the Jacobian's, shrink with the sub-box).  Levels 2⁻⁵⁰, 2⁻⁴⁸, …, 2⁻²
        (measured: each level is one checker test, and the finer sequence cost six times as many for no cell).  ``residual_limited`` says that
        the residual test failed at every level where the contraction passed: a smaller cell (whose residual
        shrinks with its width) may pass."""
        from .validated.lyapunov import LyapunovGuess, ellipsoid_fields
        from ...exact.rational import dyadic

        centre = flint.arb_mat([[flint.arb(flint.fmpq(*_pq(v))) for v in row] for row in Xs_str])
        S = centre * flint.arb(2 ** 40) if end == "tube-ray" else centre
        residual_limited = False

        def test(data):
            return _why(lambda f: END_KINDS[end](pairs, F, S, flint.fmpq(0), data, f, resid, cellp))

        for base in guesses:
            for factor in (1, 2):
                guess = base if factor == 1 else LyapunovGuess(base.W, base.W_str, base.Wq, base.Winv,
                                                               dyadic(float(base.mu) * factor, 30))
                best, last, psplit = None, None, 0
                for k in range(30, 80, 2):
                    rho = Fraction(1, 2 ** (80 - k))
                    data = dict(ellipsoid_fields("X_star", Xs_str, guess, rho), **extra, prec=PREC)
                    if end == "tube-ray":
                        data.update(T_lo="0", T_hi="0")
                    why = "residual"
                    while True:
                        if psplit:
                            data["psplit"] = psplit
                        why = test(data)
                        if why is None or "residual" in why or psplit >= 2 or best is not None:
                            break
                        psplit += 1
                    if why is None:
                        best = data
                    elif best is not None:
                        break
                    elif "residual" not in why:
                        # a larger level only widens the box of the contraction test; the residual limited when
                        # the previous level passes once the residual is taken as zero
                        if last is not None and self._passes_without_residual(end, S, last, psplit, cellp):
                            residual_limited = True
                        break
                    last = data
                if best is not None:
                    return best, False
        return None, residual_limited

    def certify(self, box) -> dict:
        """A whole-cell verdict for the open box (x₀, x₁) × (y₀, y₁).

        Parameters
        ----------
        box : tuple
            (x₀, x₁, y₀, y₁), read exactly.

        Returns
        -------
        dict
            ``status`` PROVED (``kind`` cell-lmi or cell-tube-param, ``regime``, ``claim``, ``argument``,
            ``data``, ``rank`` or ``T_lo``/``T_hi``), OUTSIDE, or UNDECIDED with ``reason`` (``final`` when the
            centre shows no Σ₀-dependent verdict either).
        """
        from .cell_lmi import KIND as LMI_KIND

        box = tuple(Fraction(b) for b in box)
        r = self.lmi.certify(box)
        if r["status"] != "UNDECIDED":
            r.setdefault("kind", LMI_KIND)
            return r
        xc, yc = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
        ff = self._flow(xc, yc)
        guess, X = self._guess(ff)
        if guess is None:
            out = {"status": "UNDECIDED", "reason": f"{r['reason']}; {X}"}
            if r.get("final"):
                out["final"] = True
            return out
        got, why = self._tube(box, ff, guess, X)
        if got is not None:
            return got
        # pieces for the collapse and rank-one ends: a blow-up cell's pieces pass the moving ray's region test but
        # their tubes widen before X reaches the ray (measured on the rotation map: no piece proved, 4 s each)
        if guess != "BLOWUP" and self._last_chance(box, r.get("final")) and _splittable(why):
            got, pwhy = self._pieces(box, guess, time.perf_counter() + self.cell_seconds, 1)
            if got is not None:
                return got
            why = f"{why}; in pieces: {pwhy}"
        out = {"status": "UNDECIDED", "reason": f"{r['reason']}; parameter tube: {why}"}
        if guess != "COLLAPSE" and r.get("final") and "smaller cells may pass" not in why:
            # measured: the ellipsoids of rays and rank-one lines that hold over a whole cell are far smaller
            # than the tube's spread over the map's cells (docs/certification.md): a point verdict now
            out["final"] = True
        return out

    def _last_chance(self, box, final) -> bool:
        """Whether the map will not split this cell further (it is at the map's ``max_depth`` or the cell-lmi
        search calls it final): only then are sub-tubes (end ``pieces``) tried — above it the map's own
        refinement does the same, cell by cell."""
        if final:
            return True
        sp = self.spec
        wx = (sp.x_range[1] - sp.x_range[0]) / (sp.resolution[0] * 2 ** sp.max_depth)
        wy = (sp.y_range[1] - sp.y_range[0]) / (sp.resolution[1] * 2 ** sp.max_depth)
        return box[1] - box[0] <= wx and box[3] - box[2] <= wy

    def _pieces(self, box, guess, deadline, depth):
        """A ``pieces`` certificate of the box: its four quarter boxes, each proved by its own tube or (where that
        fails, down to :data:`MAX_PIECE_DEPTH` levels) by pieces again, all with the same float guess (the
        checker requires a common verdict), before ``deadline``; (result, None) or (None, why).  A quarter that
        fails ends the search at once: every piece must pass."""
        from ..check.kinds.cell_tube_param import MAX_PIECE_DEPTH, common_verdict, sub_boxes
        from ..check.cells import cell_claim

        results = []
        for sub in sub_boxes(tuple(fmpq_of(b) for b in box), 1):
            sub = tuple(fraction_of(b) for b in sub)
            left = deadline - time.perf_counter()
            if left <= 0:
                return None, f"the cell's time for pieces ({self.cell_seconds:g} s) ran out"
            ff = self._flow((sub[0] + sub[1]) / 2, (sub[2] + sub[3]) / 2)
            g, X = self._guess(ff)
            if g != guess:
                return None, "the float guesses of the pieces differ (a regime boundary inside the cell?)"
            got, why = self._tube(sub, ff, g, X, seconds=min(self.seconds, left))
            if got is None and depth < MAX_PIECE_DEPTH and _splittable(why):
                got, why = self._pieces(sub, guess, deadline, depth + 1)
            if got is None:
                return None, why
            results.append(got)
        regime, params = common_verdict([(g["regime"], {k: g[k] for k in ("rank", "T_lo", "T_hi") if k in g})
                                         for g in results], _refuse)
        n = sum(_leaves(g["data"]) for g in results)
        out = {"status": "PROVED", "kind": KIND, "regime": regime, "claim": cell_claim(regime, params).text(),
               "argument": f"validated tubes of the flow with the parameters as state on {n} pieces of the cell, "
                           "each into a target uniform over its piece",
               "data": {"end": "pieces", "pieces": [g["data"] for g in results]}}
        out.update(params)
        return out, None

    def _tube(self, box, ff, guess, X, seconds=None):
        from ...spec.errors import CertificationFailed
        from ..check.param_tube import param_start, sigma_block
        from ..check.tube_replay import replay_step
        from ..check.cells import cell_claim
        from ...exact.precision import working_precision
        from .validated.lyapunov import stored_bracket

        t0 = time.perf_counter()
        seconds = self.seconds if seconds is None else seconds
        rbox = tuple(fmpq_of(b) for b in box)
        pairs, F = ball_heads(self.chk.heads, self.chk.Fp, rbox)
        resid = self.chk.residual(rbox)
        if guess == "COLLAPSE":
            data, end = self._collapse_data(ff, rbox), "tube-collapse"
            if data is None:
                return None, "no collapse set {tr(PΣ) < λ/c} holds over the whole cell"
        else:
            target = self._target(guess, ff, X)
            if target is None:
                return None, "the float target at the centre is not attracting"
            data, limited = None, False
            if guess == "CLUSTER":
                with working_precision(PREC):
                    data = self._moving_region(box, rbox, X, target)
            elif guess == "BLOWUP":
                with working_precision(PREC):
                    data = self._moving_ray_region(box, rbox, target)
            if data is None:
                with working_precision(PREC):
                    data, limited = self._region(*target, pairs, F, resid, (self.chk.heads, self.chk.Fp, rbox))
            if data is None:
                if limited:
                    return None, ("no ellipsoid around the centre's target passes over the whole cell (the target's "
                                  "residual over the cell limits it: smaller cells may pass)")
                return None, "no ellipsoid around the centre's target passes over the whole cell"
            end = target[0]
        cellp = (self.chk.heads, self.chk.Fp, rbox)
        moving = None
        if "X_dx" in data:
            from ..check.kinds.cell_tube_param import end_offset_energy, moving_centre
            from ..check.krawczyk_box import square

            nW = self.d * (self.d + 1) // 2 + (end == "tube-ray")
            moving = (moving_centre(*(square(data[k], self.d, k, _refuse) for k in ("X_star", "X_dx", "X_dy")), rbox),
                      flint.arb_mat(square(data["W"], nW, "W", _refuse)), flint.arb(flint.fmpq(*_pq(data["rho"]))))
        if end == "tube-collapse":
            from ..check.kinds.cell_tube_param import collapse_bounds
            from ..check.kinds.tube_collapse import end_inside

            P, level = collapse_bounds(*cellp[:2], rbox, data, self.d, _refuse)
        field, d, start = self.chk.field, self.d, self.chk.S0
        wide = math.inf
        if moving is not None and end == "tube-ray" and not self.chk.Fp.terms:
            # the projective flow of (X, u, t): X = Σ/tr Σ settles on the ray while the tube of Σ, blowing up, widens
            # by the spread of T* over the cell divided by the time left (measured: a 1/16 × 1/32 cell of the
            # rotation map, Σ-tube too wide at t ≈ 0.4 whatever the piece size)
            from ..check.param_tube import ProjRayParamField

            data.update(space="projective", kappa="1")
            wide = 8 * max(float(Fraction(r)) for r in data["R"])
            field = ProjRayParamField(self.chk.heads, d, flint.fmpq(1))
        elif moving is not None and end == "tube-cluster":
            # the projective flow contracts towards the rank-one line: its tube stays narrow where the tube of Σ
            # (neutral along the scale) wraps (measured: a 1/8 × 1/16 cell of issue 49's map, Σ-tube too wide at
            # τ ≈ 1.3)
            from ..check.param_tube import ProjParamField

            data["space"] = "projective"
            # the projective tube must end inside an ellipsoid of radius ≈ max R: a Lohner enclosure many times
            # wider does not narrow again (measured), so the search stops there
            wide = 8 * max(float(Fraction(r)) for r in data["R"])
            field = ProjParamField(self.chk.heads, d, flint.fmpq(*_pq(data["kappa"])))
            start = start / sum((start[i, i] for i in range(d)), flint.fmpq(0))
        ts = [flint.fmpq(0)]
        h = flint.fmpq(1, 64)
        found = None
        with working_precision(PREC):
            state = param_start(field, start, rbox)
            k = 0
            while time.perf_counter() - t0 < seconds and len(ts) < 20000:
                step = replay_step(field, state, flint.arb(h), ORDER, "qr")
                if isinstance(step, str):
                    h = h / 2
                    if h < flint.fmpq(1, 2 ** 40):
                        return None, "no validated step (blow-up ahead of the tube?)"
                    continue
                S = sigma_block(step.box, d)
                if not all(S[i, j].is_finite() for i in range(d) for j in range(d)):
                    return None, "the enclosure is not finite"
                state = step
                ts.append(ts[-1] + h)
                k += 1
                mag = max(abs(float(S[i, j].mid())) for i in range(d) for j in range(d))
                rad = max(float(S[i, j].rad()) for i in range(d) for j in range(d))
                if rad > 4 * max(mag, 1e-300) and rad > 1e-12 or rad > wide:
                    return None, f"the enclosure is too wide at t ≈ {float(ts[-1]):.4g}"
                if end == "tube-collapse":
                    if end_inside(P, level, S, PREC):
                        found = ("CLUSTERING", {"rank": 0})
                        break
                else:
                    energy = True
                    if moving is not None and end == "tube-cluster":
                        energy, _tr = end_offset_energy(state, moving[0], moving[1])
                        if not (energy < moving[2]):
                            energy = None
                    if moving is None or energy is not None:
                        try:
                            found = END_KINDS[end](pairs, F, S, ts[-1], data, _refuse, resid, cellp + (state,))
                            break
                        except (CertificationFailed, ZeroDivisionError, ValueError):
                            pass
                rem = state.remainder
                rr = max(float(rem[i, j].rad()) + abs(float(rem[i, j].mid())) for i in range(d) for j in range(d))
                if rr < 1e-22 * max(mag, 1.0):
                    h = h * 2
                elif rr > 1e-16 * max(mag, 1.0):
                    h = h / 2
        if found is None:
            return None, f"the tube did not enter the target within {seconds:g} s (t ≈ {float(ts[-1]):.4g})"
        regime, params = found
        out_data = {"end": end, **data}
        if regime == "BLOWUP":
            T_lo, T_hi, _w = stored_bracket(*params)
            params = {"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)}
            out_data.update(params)
        out_data.update(steps=[str(t) for t in ts], order=ORDER, tube_prec=PREC, method="qr")
        if end == "tube-collapse":
            out_data.pop("prec", None)
        out = {"status": "PROVED", "kind": KIND, "regime": regime, "claim": cell_claim(regime, params).text(),
               "argument": f"validated tube of the flow with the parameters as state ({len(ts) - 1} steps) "
                           f"into a {end} target uniform over the cell",
               "data": out_data}
        out.update(params)
        return out, "entered"


def _flat_u(guess, eps: float):
    """The Lyapunov guess with W made block diagonal between X and the last coordinate u, whose weight is scaled by
    ``eps`` (exact rational, with its inverse); None if it is not positive definite."""
    from ...exact.rational import dyadic_matrix_str, qmat
    from .validated.lyapunov import LyapunovGuess

    W = np.array(guess.W, dtype=float)
    m = W.shape[0] - 1
    W[m, :m] = W[:m, m] = 0.0
    W[m, m] *= eps
    if not np.all(np.isfinite(W)) or np.linalg.eigvalsh(W).min() <= 0:
        return None
    Wq = qmat(dyadic_matrix_str(W))
    Wq = (Wq + Wq.transpose()) / 2
    W_str = [[frac_str(Wq[i, j]) for j in range(m + 1)] for i in range(m + 1)]
    return LyapunovGuess(W, W_str, Wq, Wq.inv(), guess.mu)


def _leaves(data: dict) -> int:
    """The number of tubes of a certificate's data (one, or those of its pieces)."""
    return sum(_leaves(p) for p in data["pieces"]) if data.get("end") == "pieces" else 1


def _splittable(why: str) -> bool:
    """Whether a tube failure may pass on smaller boxes: not when the centre's float target is not attracting or
    the guesses differ (a property of the flow, not of the box's width)."""
    return not any(w in why for w in ("not attracting", "guesses of the pieces differ", "time for pieces"))


def _pq(s: str):
    if "/" in s:
        p, q = s.split("/")
        return int(p), int(q)
    return int(s), 1
