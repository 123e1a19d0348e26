"""Whole-cell trace-functional LMI certificates (kind ``cell-lmi``) for parameter slices of (multi-head)
softmax flows with a general value matrix, with or without a drift.

The certificates are the cell versions of the point certificates that hold for every Σ₀ at once
(``bounded-lmi``, ``trace-growth-lmi``, ``blowup-lmi``): one rational P (with multipliers λ_ij ≥ 0, a
constant c and a rate κ) for the whole cell, the matrix inequalities proved over the cell by the exact
Bernstein coefficients of the checker (:mod:`symbolic_tf.certify.check.kinds.cell_lmi`, where the
mathematics is).

Search (floats search, the checker decides):

1. a semidefinite program *jointly at the cell's four corners and centre*: upper — maximise t with
   Q_P(v) + Σλ_ij·D_ij ⪯ −tI at every sample v (and, with a drift, PF(v) + F(v)ᵀP ⪯ −tI in a first try,
   which gives κ < 0), P ⪰ tI, tr P = d; lower — minimise γ with [[Q_P(v) − Σλ_ij·D_ij, p], [pᵀ, γ]] ⪰ 0 at
   every v (c = 1/γ), PF(v) + F(v)ᵀP ⪰ 0, P ⪰ δI, tr P = 1.  When the forms are affine in each coordinate
   (the usual case: V depends on one coordinate, A on the other) the corners are exactly the cell's
   condition.  The programs are tiny (matrix inequalities of size ≤ 11 in ≤ 17 unknowns for d ≤ 4) and are handed to
   Clarabel directly (:class:`_Conic`): through a modelling layer their compilation cost ~20× the solve;
2. rounding of P and λ to short rationals at several precisions, κ rounded up (upper) and c rounded down
   from their float optima;
3. for a blow-up cell, the least a (and λ^a) with Q_P + Σλ^a_ij·D_ij − a·ppᵀ ⪯ 0 at the samples for the
   certificate's P: the growth bound ẏ ≤ κ⁺y + a·y² gives T_lo = 1/(a·max tr(PΣ₀) + κ⁺), kept when it beats
   the norm bounds' T_lo;
4. the checker's own verification of the finished cell (split 0, then 1 and 2 for forms of higher degree):
   a cell is PROVED only if :class:`~symbolic_tf.certify.check.kinds.cell_lmi.LmiCellChecker` accepts it.

A cell where no sample point admits either program is marked ``final``: smaller cells would not help (its
regime depends on Σ₀, or the trace functionals cannot see it); the map gives it a point verdict at once
instead of refining it.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from ...exact.rational import fmpq_of, frac_str
from ...spec.errors import CertificationFailed
from ..check.cell_enclosures import MatPoly, rat
from ..check.cells import cell_claim
from ..check.kinds.cell_lmi import KIND, LmiCellChecker, bernstein_coefficients, route_reason, sign_on_box
from ._lmi import g_matrix, svec_index
from .cell_searches import cell_search
from .cell_tube import off_domain

__all__ = ["KIND", "LmiCells", "search_reason"]

_DIGITS = (2, 3, 4, 6, 9)
_DELTA = 1e-4


def search_reason(spec) -> str | None:
    """None when :class:`LmiCells` should be tried on a map spec, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        :func:`symbolic_tf.certify.check.kinds.cell_lmi.route_reason`.
    """
    return route_reason(spec)


def _float_poly(M) -> list:
    return [(i, j, np.array([[float(C[r, c]) for c in range(M.ncols)] for r in range(M.nrows)]))
            for (i, j), C in M.terms.items()]


def _at(fp, shape, x: float, y: float) -> np.ndarray:
    out = np.zeros(shape)
    for i, j, C in fp:
        out = out + C * (x ** i * y ** j)
    return out


def _round_up(q: Fraction, digits: int = 10) -> Fraction:
    if q <= 0:
        return -_round_down(-q, digits)
    e = math.floor(math.log10(float(q))) - digits
    unit = Fraction(10) ** e
    return math.ceil(q / unit) * unit


def _round_down(q: Fraction, digits: int = 10) -> Fraction:
    if q <= 0:
        return -_round_up(-q, digits) if q < 0 else Fraction(0)
    e = math.floor(math.log10(float(q))) - digits
    unit = Fraction(10) ** e
    return math.floor(q / unit) * unit


_SQRT2 = math.sqrt(2.0)


class _Conic:
    """min cᵀz subject to affine symmetric matrix functions of z ⪰ 0, linear equalities and z_k ≥ 0, handed to
    Clarabel directly (its PSD cone: the upper triangle column by column, off-diagonal entries times √2).  The
    programs are tiny, so building them through a modelling layer cost ~20× the solve; an affine function is
    read off by evaluating it at 0 and at the unit vectors."""

    def __init__(self, n: int):
        self.n = n
        self.rows: list = []
        self.b: list = []
        self.cones: list = []
        self._eq: list = []
        self._nn: list = []

    def eq(self, a, beta: float) -> None:
        self._eq.append((np.asarray(a, float), float(beta)))

    def nonneg(self, idx) -> None:
        self._nn += list(idx)

    def psd(self, fn) -> None:
        import clarabel

        M0 = np.asarray(fn(np.zeros(self.n)), float)
        cols = [np.asarray(fn(e), float) - M0 for e in np.eye(self.n)]
        size = M0.shape[0]
        for j in range(size):
            for i in range(j + 1):
                w = 1.0 if i == j else _SQRT2
                self.rows.append([-w * M[i, j] for M in cols])
                self.b.append(w * M0[i, j])
        self.cones.append(clarabel.PSDTriangleConeT(size))

    def solve(self, c):
        """The optimal z, or None when Clarabel reports anything but (almost) solved."""
        import clarabel
        from scipy import sparse

        rows, b, cones = [], [], []
        if self._eq:
            rows += [a for a, _ in self._eq]
            b += [beta for _, beta in self._eq]
            cones.append(clarabel.ZeroConeT(len(self._eq)))
        if self._nn:
            for k in self._nn:
                r = np.zeros(self.n)
                r[k] = -1.0
                rows.append(r)
                b.append(0.0)
            cones.append(clarabel.NonnegativeConeT(len(self._nn)))
        rows += self.rows
        b += self.b
        cones += self.cones
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        try:
            solver = clarabel.DefaultSolver(sparse.csc_matrix((self.n, self.n)), np.asarray(c, float),
                                            sparse.csc_matrix(np.array(rows, float)), np.array(b, float), cones,
                                            settings)
            sol = solver.solve()
        except (ValueError, ArithmeticError, RuntimeError):
            return None
        if sol.status not in (clarabel.SolverStatus.Solved, clarabel.SolverStatus.AlmostSolved):
            return None
        z = np.array(sol.x, float)
        return z if np.all(np.isfinite(z)) else None


@cell_search(KIND, order=4, reason=search_reason)
class LmiCells:
    """The cell search of one map spec.

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        A parameter slice (:func:`search_reason` is None).
    """

    def __init__(self, spec):
        self.spec = spec
        self.chk = LmiCellChecker(spec)
        self.d = d = self.chk.d
        self.m = d * (d + 1) // 2
        self.cov = self.chk.cov
        self.heads = [(_float_poly(C), _float_poly(A)) for C, A in self.chk.heads]
        self.F = _float_poly(self.chk.F)
        self.has_drift = bool(self.chk.F.terms)
        self.minors = [np.array([[float(D[k, l]) for l in range(self.m)] for k in range(self.m)]) for D in self.chk.minors]
        self.Dp = np.diag([1.0 if i == j else 2.0 for i, j in svec_index(d)])
        self.degrees = max((max(i for i, _ in M.terms) if M.terms else 0) + (max(i for i, _ in N.terms) if N.terms else 0)
                           for M, N in self.chk.heads), max(
            (max(j for _, j in M.terms) if M.terms else 0) + (max(j for _, j in N.terms) if N.terms else 0)
            for M, N in self.chk.heads)

    # --- floats at a point ----------------------------------------------------------------
    def _sample(self, x: float, y: float):
        d = self.d
        hs = [(_at(C, (d, d), x, y), _at(A, (d, d), x, y)) for C, A in self.heads]
        return g_matrix(hs, d), _at(self.F, (d, d), x, y)

    def _points(self, box):
        x0, x1, y0, y1 = (float(b) for b in box)
        return [(x0, y0), (x0, y1), (x1, y0), (x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2)]

    # --- the programs ------------------------------------------------------------------------
    def _upper_sdp(self, samples, with_drift: bool):
        """max t: P ⪰ tI, tr P = d, λ ≥ 0, Q_P(v) + Σλ_ij·D_ij ⪯ −tI (and PF(v) + F(v)ᵀP ⪯ −tI) at the samples."""
        d, m, k = self.d, self.m, len(self.minors)
        n = m + k + 1
        prog = _Conic(n)
        prog.eq(np.concatenate([[1.0 if i == j else 0.0 for i, j in svec_index(d)], np.zeros(k + 1)]), float(d))
        prog.nonneg(range(m, m + k))

        def parts(z):
            return self._sym(z[:m]), z[m:m + k], z[-1]

        prog.psd(lambda z: parts(z)[0] - parts(z)[2] * np.eye(d))
        for G, F in samples:
            prog.psd(lambda z, G=G: -self._cone(G, z[:m], parts(z)[1], +1) - z[-1] * np.eye(m))
            if with_drift:
                prog.psd(lambda z, F=F: -self._lyap(parts(z)[0], F) - z[-1] * np.eye(d))
        c = np.zeros(n)
        c[-1] = -1.0
        z = prog.solve(c)
        if z is None:
            return None
        return self._sym(z[:m]), np.maximum(z[m:m + k], 0.0), float(z[-1])

    def _lower_sdp(self, samples):
        """min γ: P ⪰ δI, tr P = 1, λ ≥ 0, [[Q_P(v) − Σλ_ij·D_ij, p], [pᵀ, γ]] ⪰ 0 (and PF(v) + F(v)ᵀP ⪰ 0) at the
        samples."""
        d, m, k = self.d, self.m, len(self.minors)
        n = m + k + 1
        prog = _Conic(n)
        prog.eq(np.concatenate([[1.0 if i == j else 0.0 for i, j in svec_index(d)], np.zeros(k + 1)]), 1.0)
        prog.nonneg(range(m, m + k))
        prog.psd(lambda z: self._sym(z[:m]) - _DELTA * np.eye(d))
        for G, F in samples:
            def block(z, G=G):
                p = self.Dp @ z[:m]
                return np.block([[self._cone(G, z[:m], z[m:m + k], -1), p[:, None]], [p[None, :], np.array([[z[-1]]])]])
            prog.psd(block)
            if self.has_drift:
                prog.psd(lambda z, F=F: self._lyap(self._sym(z[:m]), F))
        c = np.zeros(n)
        c[-1] = 1.0
        z = prog.solve(c)
        if z is None or not z[-1] > 0:
            return None
        return self._sym(z[:m]), np.maximum(z[m:m + k], 0.0), float(z[-1])

    def _sym(self, x) -> np.ndarray:
        P = np.zeros((self.d, self.d))
        for v, (i, j) in zip(x, svec_index(self.d)):
            P[i, j] = P[j, i] = v
        return P

    def _cone(self, G, x, lam, sign: int) -> np.ndarray:
        """sym(Q_P) + sign·Σλ_ij·D_ij (floats, affine in (x, λ))."""
        Q = (G @ x).reshape(self.m, self.m)
        Q = (Q + Q.T) / 2
        for v, D in zip(lam, self.minors):
            Q = Q + sign * v * D
        return Q

    @staticmethod
    def _lyap(P, F) -> np.ndarray:
        L = P @ F + F.T @ P
        return (L + L.T) / 2

    # --- rounding and the exact check --------------------------------------------------------
    def _record(self, box, data, regime, params) -> dict:
        out = {"status": "PROVED", "kind": KIND, "regime": regime, "claim": cell_claim(regime, params).text(),
               "argument": self._argument(data), "data": data}
        out.update(params)
        return out

    def _argument(self, data) -> str:
        form = "vertex" if self.degrees[0] <= 1 and self.degrees[1] <= 1 else "Bernstein"
        sub = f", {2 ** data['split']}×{2 ** data['split']} sub-boxes" if data["split"] else ""
        if data["direction"] == "upper":
            return (f"trace functional tr(PΣ) with d/dt tr(PΣ) ≤ κ·tr(PΣ) − c·tr(PΣ)² on the cone, κ = {data['kappa']}, "
                    f"c = {data['c']} ({form} argument over the cell{sub})")
        return f"trace functional tr(PΣ) with d/dt tr(PΣ) ≥ c·tr(PΣ)², c = {data['c']} ({form} argument over the cell{sub})"

    def _verify(self, box, data):
        """The finished record if the checker accepts it (split 0, then 1 and 2 for forms of higher degree)."""
        splits = (0,) if self.degrees[0] <= 1 and self.degrees[1] <= 1 else (0, 1, 2)
        for split in splits:
            data = {**data, "split": split}
            regime, params = self._derived(data)
            rec = self._record(box, data, regime, params)
            try:
                self.chk.check({"box": [frac_str(b) for b in box], "status": "PROVED", "regime": regime,
                                "claim": rec["claim"], **params, "certificate": {"kind": KIND, "data": data}})
            except CertificationFailed:
                continue
            return rec
        return None

    def _derived(self, data):
        c, kappa = Fraction(data["c"]), Fraction(data["kappa"])
        if data["direction"] == "upper":
            if kappa < 0 or (kappa == 0 and c > 0):
                return "CLUSTERING", {"rank": 0}
            if c > 0 or kappa == 0:
                return "BOUNDED", {}
            return "GLOBAL_EXISTENCE", {}
        params = {"T_lo": data.get("T_lo", "0")}
        if "T_hi" in data:
            params["T_hi"] = data["T_hi"]
        return "BLOWUP", params

    def _rationals(self, P, lam, digits):
        d = self.d
        Pq = [[None] * d for _ in range(d)]
        for i in range(d):
            for j in range(i, d):
                Pq[i][j] = Pq[j][i] = Fraction(float(P[i, j])).limit_denominator(10 ** digits)
        lq = [max(Fraction(0), Fraction(float(v)).limit_denominator(10 ** digits)) for v in lam]
        return Pq, lq

    def _kappa(self, Pq, box, sign: int):
        """The rate κ with sign·(PF + FᵀP − κP) ⪰ 0... as a float at the samples: the extreme generalised eigenvalue;
        None when the rounded P is not positive definite (or, for sign > 0, no κ ≥ 0 exists)."""
        if not self.has_drift:
            return Fraction(0)
        P = np.array([[float(e) for e in r] for r in Pq])
        try:
            L = np.linalg.cholesky(P)
        except np.linalg.LinAlgError:   # the rounded P is not positive definite: no candidate (a new example map hit it)
            return None
        Li = np.linalg.inv(L)
        vals = []
        for x, y in self._points(box):
            F = _at(self.F, (self.d, self.d), x, y)
            W = Li @ (P @ F + F.T @ P) @ Li.T
            ev = np.linalg.eigvalsh((W + W.T) / 2)
            vals.append(ev[-1] if sign < 0 else ev[0])
        k = max(vals) if sign < 0 else min(vals)
        if sign < 0:
            return _round_up(Fraction(k + 1e-9 * (1 + abs(k))), 6) if k != 0 else Fraction(0)
        if k < 0:
            return None
        return Fraction(0)

    def _c_upper(self, Pq, lq, samples) -> Fraction:
        """The largest c (float, halved, rounded down) with Q_P + ΣλD + c·ppᵀ ⪯ 0 at the samples; 0 if none."""
        d, m = self.d, self.m
        x = np.array([float(Pq[i][j]) for i, j in svec_index(d)])
        p = self.Dp @ x
        best = math.inf
        for G, _F in samples:
            Q = (G @ x).reshape(m, m)
            M = (Q + Q.T) / 2 + sum(float(v) * D for v, D in zip(lq, self.minors))
            w = np.linalg.eigvalsh(M)
            if w[-1] >= -1e-12:
                return Fraction(0)
            best = min(best, 1.0 / float(p @ np.linalg.solve(-M, p)))
        return _round_down(Fraction(best / 2), 4) if math.isfinite(best) and best > 0 else Fraction(0)

    def _upper(self, box, samples):
        tries = []
        if self.has_drift:
            r = self._upper_sdp(samples, True)
            if r is not None and r[2] > 0:
                tries.append(r)
        r = self._upper_sdp(samples, False)
        if r is not None and r[2] > -1e-7:
            tries.append(r)
        # the structured candidate P = I (exact: the theory's weight for symmetric contractions)
        tries.append((np.eye(self.d), np.zeros(len(self.minors)), 0.0))
        for P, lam, _t in tries:
            for digits in _DIGITS:
                Pq, lq = self._rationals(P, lam, digits)
                kappa = self._kappa(Pq, box, -1)
                if kappa is None:
                    continue
                for c in dict.fromkeys((self._c_upper(Pq, lq, samples), Fraction(0))):
                    data = {"direction": "upper", "P": [[frac_str(e) for e in r] for r in Pq],
                            "lam": [frac_str(v) for v in lq], "c": frac_str(c), "kappa": frac_str(kappa)}
                    rec = self._verify(box, data)
                    if rec is not None:
                        return rec
        return None

    def _lower(self, box, samples):
        r = self._lower_sdp(samples)
        if r is None:
            return None
        P, lam, g = r
        for digits in _DIGITS:
            Pq, lq = self._rationals(P, lam, digits)
            kappa = self._kappa(Pq, box, +1)
            if kappa is None:
                continue
            for shrink in (Fraction(9, 10), Fraction(1, 2)):
                c = _round_down(Fraction(1 / g) * shrink, 4)
                if c <= 0:
                    continue
                data = {"direction": "lower", "P": [[frac_str(e) for e in r] for r in Pq],
                        "lam": [frac_str(v) for v in lq], "c": frac_str(c), "kappa": frac_str(kappa)}
                data.update(self._bracket(box, Pq, c))
                rec = self._verify(box, data)
                if rec is not None:
                    return self._sharper(box, samples, Pq, rec) or rec
        return None

    def _sharper(self, box, samples, Pq, rec):
        """The record with T_lo from a growth bound of the same y = tr(PΣ) (ẏ ≤ κ⁺y + a·y², the checker's
        ``a``/``lam_a``/``kappa_a``) when that T_lo is larger than the norm bounds' one and the checker accepts it."""
        d, m, k = self.d, self.m, len(self.minors)
        P = np.array([[float(e) for e in r] for r in Pq])
        x = np.array([P[i, j] for i, j in svec_index(d)])
        p = self.Dp @ x
        prog = _Conic(k + 1)
        prog.nonneg(range(k))
        for G, _F in samples:
            prog.psd(lambda z, G=G: -self._cone(G, x, z[:k], +1) + z[k] * np.outer(p, p))
        c = np.zeros(k + 1)
        c[k] = 1.0
        z = prog.solve(c)
        if z is None or not z[k] > 0:
            return None
        kappa = Fraction(0)
        if self.has_drift:
            kappa = self._kappa(Pq, box, -1)
            if kappa is None:
                return None
            kappa = max(kappa, Fraction(0))
        Pm = flint.fmpq_mat(d, d, [fmpq_of(e) for r in Pq for e in r])
        y0 = MatPoly(1, 1)
        for mono, C in self.chk.S.terms.items():
            y0._accumulate(mono, flint.fmpq_mat(1, 1, [sum((Pm[a, b] * C[b, a] for a in range(d) for b in range(d)),
                                                           flint.fmpq(0))]))
        y_hi = max(Fraction(str(b[0, 0])) for b in bernstein_coefficients(y0, tuple(rat(b) for b in box)))
        old = Fraction(rec["data"].get("T_lo", "0"))
        base = {key: v for key, v in rec["data"].items() if key not in ("u_C", "u_A", "u_Sigma", "u_F", "T_lo", "split")}
        for grow, digits in ((Fraction(1001, 1000), 6), (Fraction(11, 10), 3)):
            a = _round_up(Fraction(float(z[k])) * grow, 4)
            lam_a = [max(Fraction(0), Fraction(float(v)).limit_denominator(10 ** digits)) for v in z[:k]]
            T_lo = _round_down(1 / (a * y_hi + kappa), 6)
            if T_lo <= old or ("T_hi" in base and T_lo > Fraction(base["T_hi"])):
                continue
            data = {**base, "T_lo": frac_str(T_lo), "a": frac_str(a), "lam_a": [frac_str(v) for v in lam_a],
                    "kappa_a": frac_str(kappa)}
            out = self._verify(box, data)
            if out is not None:
                return out
        return None

    def _bracket(self, box, Pq, c: Fraction) -> dict:
        """T_hi = 1/(c·min tr(PΣ₀)) rounded up, T_lo from the norm bounds, when they are positive."""
        d = self.d
        P = flint.fmpq_mat(d, d, [fmpq_of(e) for r in Pq for e in r])
        rbox = tuple(rat(b) for b in box)
        S = self.chk.S
        y0 = MatPoly(1, 1)
        for mono, C in S.terms.items():
            y0._accumulate(mono, flint.fmpq_mat(1, 1, [sum((P[a, b] * C[b, a] for a in range(d) for b in range(d)),
                                                           flint.fmpq(0))]))
        lo = min(Fraction(str(b[0, 0])) for b in bernstein_coefficients(y0, rbox))
        out = {}
        if lo > 0:
            out["T_hi"] = frac_str(_round_up(1 / (c * lo), 8))
        us = {"u_C": [], "u_A": []}
        for C, A in self.chk.heads:
            us["u_C"].append(self._norm_bound(C, rbox))
            us["u_A"].append(self._norm_bound(A, rbox))
        uS = self._norm_bound(S, rbox)
        uF = self._norm_bound(self.chk.F, rbox) if self.has_drift else Fraction(0)
        K = sum(2 * a * b for a, b in zip(us["u_C"], us["u_A"])) * uS + 2 * uF
        if K > 0:
            T_lo = _round_down(1 / K, 8)
            if "T_hi" in out and T_lo > Fraction(out["T_hi"]):
                return out
            out.update({"T_lo": frac_str(T_lo), "u_C": [frac_str(u) for u in us["u_C"]],
                        "u_A": [frac_str(u) for u in us["u_A"]], "u_Sigma": frac_str(uS)})
            if self.has_drift:
                out["u_F"] = frac_str(uF)
        return out

    @staticmethod
    def _norm_bound(M, rbox) -> Fraction:
        """A rational u with u² ≥ the largest Bernstein coefficient of ‖M‖_F² on the box."""
        sq = Fraction(0)
        for r in range(M.nrows):
            for c in range(M.ncols):
                e = MatPoly(1, 1, {mono: flint.fmpq_mat(1, 1, [C[r, c]]) for mono, C in M.terms.items()})
                if e.terms:
                    sq += max(Fraction(str(b[0, 0])) for b in bernstein_coefficients(e @ e, rbox))
        if sq == 0:
            return Fraction(0)
        u = _round_up(Fraction(math.sqrt(float(sq))) * (1 + Fraction(1, 10 ** 9)), 8)
        while u * u < sq:
            u = u * Fraction(1001, 1000)
        return u

    # --- one cell ------------------------------------------------------------------------------
    def certify(self, box) -> dict:
        """A whole-cell verdict for the open box (x₀, x₁) × (y₀, y₁).

        Parameters
        ----------
        box : tuple
            (x₀, x₁, y₀, y₁), read exactly.

        Returns
        -------
        dict
            ``status`` PROVED (``kind``, ``regime``, ``claim``, ``argument``, ``data``, ``rank`` or
            ``T_lo``/``T_hi``), OUTSIDE (a rational z with zᵀΣ₀z ≤ 0 on the cell) or UNDECIDED with
            ``reason`` (and ``final`` when no sample point of the cell admits a trace certificate).
        """
        box = tuple(Fraction(b) for b in box)
        rbox = tuple(rat(b) for b in box)
        if not sign_on_box(self.chk.S, rbox, +1):
            off = off_domain(self.chk.S, self.cov, box, KIND)
            return off if off is not None else {"status": "UNDECIDED", "reason": "Σ₀ is not positive semidefinite on the whole cell"}
        pts = self._points(box)
        samples = [self._sample(x, y) for x, y in pts]
        for attempt in (self._upper, self._lower):
            rec = attempt(box, samples)
            if rec is not None:
                return rec
        out = {"status": "UNDECIDED", "reason": "no trace-functional LMI holds on the whole cell"}
        if self._nowhere(samples):
            out["final"] = True
            out["reason"] = ("no trace-functional LMI holds at the cell's corners or centre (the regime depends on Σ₀ "
                             "or a trace functional does not see it)")
        return out

    def _nowhere(self, samples) -> bool:
        """Whether no sample point alone admits an upper certificate with a margin (t > 10⁻⁴, tr P = d) or a
        lower one (γ < 10⁴, tr P = 1, i.e. c > 10⁻⁴) — floats.  A point on the edge of the region the trace
        functionals decide (margin 0 there, γ → ∞) counts as none: the cells that touch that edge from the
        undecided side would otherwise be split down to the last level without gaining any area."""
        for s in samples:
            r = self._upper_sdp([s], False)
            if r is not None and r[2] > 1e-4:
                return False
            r = self._lower_sdp([s])
            if r is not None and r[2] < 1e4:
                return False
        return True
