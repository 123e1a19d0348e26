"""Checker of ``tube-basin``: a validated tube from the problem's own Σ₀ enters a certified basin of
attraction of a Krawczyk-certified equilibrium Σ* of the drift model (issue 15 item 2).

For Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (single-head softmax with drift; A = scale·A_problem).
Independent of the search (:mod:`symbolic_tf.certify.validated`) and of the basin search: the
whole argument is re-derived from the embedded exact problem and the stored data

    steps, order, tube_prec, method   the tube: exact times 0 = t_0 < … < t_N, Taylor order k,
                                      ball precision, wrapping method ("qr" | "direct")
    basis, prec, Sigma_mid, r, Y,     the basin (same fields and meaning as ``equilibrium-basin``,
    W, kappa, c_Q, rho, lam_lo,       see :mod:`symbolic_tf.certify.kinds.basin`)
    lam_hi, normV2, normA2

Verified:

A. *The tube* (in arb balls at ``tube_prec`` bits, replayed exactly as stored, like
   :mod:`symbolic_tf.certify.kinds.taylor` but with the drift): from S_0 = Σ₀ (symmetric), for
   every step [t_{i−1}, t_i] the deterministic inflate-and-iterate Picard test
   S + [0, h]·f(X) ⊆ X (f the full field with FΣ + ΣFᵀ; a failure rejects), the Lagrange
   remainder Z = h^{k+1}·σ_{k+1}(Y) over Y = S + [0, h]·f(X), and the order-k Taylor map by the
   recurrence σ_{n+1} = (M_n + M_nᵀ)/(n+1), M_n = Fσ_n + Σ_j Vσ_jAσ_{n−j}; "qr": the mean-value
   form over the hull of the box and the parallelepiped centre with the Jacobian from the
   variational recurrence (δM_n = Fδσ_n + Σ_j (Vδσ_jAσ_{n−j} + Vσ_jAδσ_{n−j})), Lohner's QR basis
   (float Householder QR of mid(J·B), columns by length·width — any invertible basis is
   sound; it is recomputed by the same procedure) and the intersection with the direct box.
   Hence the solution exists on [0, t_N] and Σ(t_N) ∈ S_N.
B. *The basin* — the seven checks of ``equilibrium-basin`` with the point Σ₀ replaced by the box
   S_N: (1) Krawczyk: Sigma_mid ± r holds exactly one zero Σ* of G and is PD; (2) λ_lo > 0,
   W − λ_lo·D ⪰ 0, λ_hi·D − W ⪰ 0; (3) normV2·I − VᵀV ⪰ 0, normA2·I − AᵀA ⪰ 0; (4) c_Q ≥ 0,
   c_Q²λ_lo² ≥ 4λ_hi·normV2·normA2; (5) κ > 0 and −(LᵀW + WL) − κW ≻ 0 over DG(X); (6) ρ > 0,
   4c_Q²ρ < κ²; (7) svec(Σ − Σ')ᵀW svec(Σ − Σ') < ρ for every Σ ∈ S_N and Σ' ∈ X (balls at
   ``prec`` bits).

Then E(t) = E(Σ(t) − Σ*) < ρ at t_N, {E ≤ ρ} is forward invariant with Ė ≤ −(κ − 2c_Q√ρ)E, so
the solution is global and Σ(t) → Σ*: claim EQUILIBRIUM for THIS Σ₀ with |Σ*_ij − Sigma_mid_ij| ≤ r.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier
from ..exact import ball_pd, definiteness, frac_str, qmat

KIND = "tube-basin"
_MAX_ORDER = 60
_MAX_STEPS = 20_000
_PICARD_ROUNDS = 12  # part of the kind's definition (same procedure as the search)


def _bad(msg):
    raise CertificationFailed(f"{KIND} certificate: {msg}")


def _q(s) -> flint.fmpq:
    f = Fraction(s)
    return flint.fmpq(f.numerator, f.denominator)


def _int_in(x, name, lo, hi):
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        _bad(f"{name} must be an integer in [{lo}, {hi}], got {str(x)[:40]!r}")
    return x


# --------------------------------------------------------------------------- the tube replay
class _Field:
    """G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ, its Taylor and variational recurrences, in balls."""

    def __init__(self, F, V, A):
        self.F = flint.arb_mat(F)
        self.V = flint.arb_mat(V)
        self.A = flint.arb_mat(A)

    def __call__(self, X):
        M = self.F * X + self.V * X * self.A * X
        return M + M.transpose()

    def series(self, X, upto):
        out, left = [X], []
        for n in range(upto):
            left.append(self.V * out[n] * self.A)
            M = self.F * out[n]
            for j in range(n + 1):
                M = M + left[j] * out[n - j]
            out.append((M + M.transpose()) / (n + 1))
        return out, left

    def derivative(self, sig, left, h, dirs):
        k = len(sig) - 1
        cols = []
        for E in dirs:
            ds, dleft = [E], []
            for n in range(k):
                dleft.append(self.V * ds[n] * self.A)
                M = self.F * ds[n]
                for j in range(n + 1):
                    M = M + dleft[j] * sig[n - j] + left[j] * ds[n - j]
                ds.append((M + M.transpose()) / (n + 1))
            cols.append(_svec(_eval(ds, h)))
        m = len(cols)
        return flint.arb_mat(m, m, [cols[c][r, 0] for r in range(m) for c in range(m)])


def _eval(coeffs, h):
    v = coeffs[-1]
    for n in reversed(range(len(coeffs) - 1)):
        v = v * h + coeffs[n]
    return v


def _pairs(d):
    return [(i, j) for i in range(d) for j in range(i, d)]


def _svec(X):
    p = _pairs(X.nrows())
    return flint.arb_mat(len(p), 1, [X[i, j] for i, j in p])


def _unsvec(v, d):
    X = flint.arb_mat(d, d)
    for k, (i, j) in enumerate(_pairs(d)):
        X[i, j] = v[k, 0]
        X[j, i] = v[k, 0]
    return X


def _dirs(d):
    out = []
    for i, j in _pairs(d):
        E = flint.arb_mat(d, d)
        E[i, j] = 1
        E[j, i] = 1
        out.append(E)
    return out


def _eye_b(m):
    return flint.arb_mat([[int(i == j) for j in range(m)] for i in range(m)])


def _qr_q(M):
    """Q of the Householder QR of a square float matrix (deterministic, as in the search)."""
    m = len(M)
    R = [list(r) for r in M]
    Q = [[float(i == j) for j in range(m)] for i in range(m)]
    for k in range(m - 1):
        col = [R[i][k] for i in range(k, m)]
        nrm = math.sqrt(sum(x * x for x in col))
        if nrm == 0.0:
            continue
        u = col[:]
        u[0] -= -nrm if col[0] >= 0 else nrm
        uu = sum(x * x for x in u)
        if uu == 0.0:
            continue
        sz = m - k
        for j in range(m):
            f = 2.0 * sum(u[i] * R[k + i][j] for i in range(sz)) / uu
            for i in range(sz):
                R[k + i][j] -= f * u[i]
        for i in range(m):
            f = 2.0 * sum(Q[i][k + l] * u[l] for l in range(sz)) / uu
            for l in range(sz):
                Q[i][k + l] -= f * u[l]
    return Q


def _basis(J, coords):
    m = J.nrows()
    Jf = [[float(J[i, j].mid()) for j in range(m)] for i in range(m)]
    wd = [float(coords[j, 0].rad()) + abs(float(coords[j, 0].mid())) for j in range(m)]
    wt = [math.sqrt(sum(Jf[i][j] ** 2 for i in range(m))) * wd[j] for j in range(m)]
    perm = sorted(range(m), key=lambda j: (-wt[j], j))
    Q = _qr_q([[Jf[i][j] for j in perm] for i in range(m)])
    if any(not math.isfinite(x) for row in Q for x in row):
        Q = [[float(i == j) for j in range(m)] for i in range(m)]
    B = flint.arb_mat(Q)
    try:
        return B, B.inv()
    except ZeroDivisionError:
        return _eye_b(m), _eye_b(m)


def _picard(G, S, h):
    J = h.upper() * flint.arb(flint.fmpq(1, 2), flint.fmpq(1, 2))
    n = S.nrows()
    idx = [(i, j) for i in range(n) for j in range(n)]
    top = max(abs(S[i, j]).upper() for i, j in idx)
    floor = top * flint.arb(2) ** -60
    Y = S + G(S) * J
    for _ in range(_PICARD_ROUNDS):
        X = flint.arb_mat(n, n)
        for i, j in idx:
            e = Y[i, j]
            w = e.rad() * flint.fmpq(1, 8) + abs(e.mid()) * flint.arb(2) ** -40 + floor
            X[i, j] = e + flint.arb(0, w.upper())
        Y = S + G(X) * J
        if any(not Y[i, j].is_finite() for i, j in idx):
            return None
        if all(X[i, j].contains(Y[i, j]) for i, j in idx):
            return Y
    return None


def replay_tube(F, V, A, S0, ts, order, prec, method):
    """The enclosure (arb_mat) of Σ(t_N) from the exact Σ₀ along the stored step times, replayed
    as the kind defines it; raises CertificationFailed if a step does not validate."""
    d = S0.nrows()
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        G = _Field(F, V, A)
        box = flint.arb_mat(S0)
        dirs = _dirs(d)
        centre = _svec(box).mid()
        B = _eye_b(len(dirs))
        coords = _svec(box) - centre
        for i in range(1, len(ts)):
            h = flint.arb(ts[i] - ts[i - 1])
            Y = _picard(G, box, h)
            if Y is None:
                _bad(f"the a priori (Picard) enclosure fails on step {i}")
            Z = G.series(Y, order + 1)[0][order + 1] * h ** (order + 1)
            if method == "direct":
                box = _eval(G.series(box, order)[0], h) + Z
            else:
                Cm = _unsvec(centre, d)
                hull = flint.arb_mat(d, d)
                for a in range(d):
                    for b in range(d):
                        hull[a, b] = box[a, b].union(Cm[a, b])
                sig, left = G.series(hull, order)
                direct = _eval(sig, h) + Z
                Jm = G.derivative(sig, left, h, dirs)
                image = _svec(_eval(G.series(Cm, order)[0], h) + Z)
                centre = image.mid()
                JB = Jm * B
                B, Binv = _basis(JB, coords)
                coords = (Binv * JB) * coords + Binv * (image - centre)
                par = _unsvec(centre + B * coords, d)
                box = flint.arb_mat(d, d)
                for a in range(d):
                    for b in range(d):
                        try:
                            box[a, b] = par[a, b].intersection(direct[a, b])
                        except ValueError:
                            _bad(f"step {i}: the parallelepiped and the direct enclosure are disjoint")
            if any(not box[a, b].is_finite() for a in range(d) for b in range(d)):
                _bad(f"the enclosure is not finite after step {i}")
        return box
    finally:
        flint.ctx.prec = saved


# --------------------------------------------------------------------------- the basin part
def _ball(M):
    return flint.arb_mat(M.nrows(), M.ncols(), [flint.arb(M[i, j]) for i in range(M.nrows()) for j in range(M.ncols())])


def _eye(n):
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def _gram(d):
    p = _pairs(d)
    m = len(p)
    return flint.fmpq_mat(m, m, [(1 if p[k][0] == p[k][1] else 2) if k == l else 0 for k in range(m) for l in range(m)])


def _sq(M, n, what):
    if not isinstance(M, list) or len(M) != n or any(not isinstance(r, list) or len(r) != n for r in M):
        _bad(f"{what} must be a {n}×{n} matrix")
    return qmat(M)


def _DG(Sb, F, V, A, d):
    p = _pairs(d)
    m = len(p)
    Fb, Vb, Ab = _ball(F), _ball(V), _ball(A)
    L = flint.arb_mat(m, m)
    for col, (i, j) in enumerate(p):
        E = flint.arb_mat(d, d)
        E[i, j] = 1
        E[j, i] = 1
        H = Fb * E + Vb * E * Ab * Sb + Vb * Sb * Ab * E
        T = H + H.transpose()
        for row, (a, b) in enumerate(p):
            L[row, col] = T[a, b]
    return L


def _check_basin(data, F, V, A, d, S_end):
    m = d * (d + 1) // 2
    prec = _int_in(data["prec"], "prec", 64, 4096)
    S = _sq(data["Sigma_mid"], d, "Sigma_mid")
    if S != S.transpose():
        _bad("Sigma_mid is not symmetric")
    r = _q(data["r"])
    if not r > 0:
        _bad("the box radius r must be positive")
    Y = _sq(data["Y"], m, "Y")
    W = _sq(data["W"], m, "W")
    if W != W.transpose():
        _bad("W is not symmetric")
    kappa, cQ, rho = (Fraction(data[k]) for k in ("kappa", "c_Q", "rho"))
    lo, hi, nV, nA = (Fraction(data[k]) for k in ("lam_lo", "lam_hi", "normV2", "normA2"))
    if not lo > 0:
        _bad("lam_lo must be positive")
    if nV < 0 or nA < 0 or cQ < 0:
        _bad("normV2, normA2 and c_Q must be ≥ 0")
    if cQ * cQ * lo * lo < 4 * hi * nV * nA:
        _bad("c_Q does not bound the quadratic remainder")
    if not kappa > 0:
        _bad("kappa must be positive")
    if not (rho > 0 and 4 * cQ * cQ * rho < kappa * kappa):
        _bad("need 0 < rho and 4·c_Q²·rho < kappa²")
    Dg = _gram(d)
    if not definiteness(W - _q(lo) * Dg).psd:
        _bad("W − lam_lo·D is not PSD")
    if not definiteness(_q(hi) * Dg - W).psd:
        _bad("lam_hi·D − W is not PSD")
    if not definiteness(_q(nV) * _eye(d) - V.transpose() * V).psd:
        _bad("normV2 is not an upper bound of ‖V‖₂²")
    if not definiteness(_q(nA) * _eye(d) - A.transpose() * A).psd:
        _bad("normA2 is not an upper bound of ‖A‖₂²")
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        Gx = F * S + S * F.transpose() + V * S * A * S + S * A.transpose() * S * V.transpose()
        g = flint.fmpq_mat(m, 1, [Gx[i, j] for i, j in _pairs(d)])
        YG = Y * g
        e = flint.arb(0, flint.arb(r).upper())
        Sb = flint.arb_mat(d, d, [flint.arb(S[i, j]) + e for i in range(d) for j in range(d)])
        L = _DG(Sb, F, V, A, d)
        C = _ball(_eye(m)) - _ball(Y) * L
        rb = flint.arb(r)
        w = flint.arb(0, rb.upper())
        for i in range(m):
            k = -flint.arb(YG[i, 0])
            for j in range(m):
                k += C[i, j] * w
            if not (k < rb and k > -rb):
                _bad(f"Krawczyk test fails in coordinate {i}")
        if ball_pd(Sb) is not True:
            _bad("the box Sigma_mid ± r is not certified positive definite")
        Wb = _ball(W)
        M = (L.transpose() * Wb + Wb * L) * (-1) - Wb * flint.arb(_q(kappa))
        if ball_pd(M) is not True:
            _bad("−(LᵀW + WL) − kappa·W is not certified PD over DG(X)")
        p = _pairs(d)
        delta = flint.arb_mat(m, 1, [S_end[i, j] - (flint.arb(S[i, j]) + e) for i, j in p])
        E = (delta.transpose() * Wb * delta)[0, 0]
        if not E < flint.arb(_q(rho)):
            _bad("the tube's end box is not certified inside the level set {δᵀWδ < rho} around every Σ in the "
                 "Krawczyk box")
    finally:
        flint.ctx.prec = old


_SCHEMA = {"basis": ("enum", "svec-upper"), "prec": "int", "Sigma_mid": "rat[][]", "r": "rat", "Y": "rat[][]",
           "W": "rat[][]", "kappa": "rat", "c_Q": "rat", "rho": "rat", "lam_lo": "rat", "lam_hi": "rat",
           "normV2": "rat", "normA2": "rat", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct")}


@kind(KIND, _SCHEMA)
def check_tube_basin(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and converges to the unique
    equilibrium Σ* in Sigma_mid ± r (regime EQUILIBRIUM, quantifier THIS)."""
    if problem is None or problem.variant != "softmax" or problem.heads or problem.A is None or problem.V is None:
        _bad("needs an embedded single-head softmax problem with A and V")
    if cert.status != "PROVED":
        _bad("status must be PROVED")
    d = problem.d
    if problem.cov is None:
        _bad("the embedded problem has no Σ₀")
    S0 = qmat(problem.cov)
    if S0.nrows() != d or S0.ncols() != d or S0 != S0.transpose():
        _bad("Σ₀ must be a symmetric d×d matrix")
    A = qmat(problem.A) * _q(str(problem.scale))
    V = qmat(problem.V)
    F = qmat(problem.F) if problem.F is not None else flint.fmpq_mat(d, d)
    data = cert.data
    order = _int_in(data["order"], "order", 1, _MAX_ORDER)
    tprec = _int_in(data["tube_prec"], "tube_prec", 53, 4096)
    method = data["method"]
    steps = data["steps"]
    if not isinstance(steps, list) or not steps or len(steps) > _MAX_STEPS + 1:
        _bad(f"steps must be a list of 1..{_MAX_STEPS + 1} times")
    ts = [_q(x) for x in steps]
    if ts[0] != 0:
        _bad("the first step time must be 0")
    if any(b <= a for a, b in zip(ts, ts[1:])):
        _bad("step times must be strictly increasing")
    S_end = replay_tube(F, V, A, S0, ts, order, tprec, method)
    _check_basin(data, F, V, A, d, S_end)
    params = {"Sigma_mid": [[frac_str(Fraction(x)) for x in row] for row in data["Sigma_mid"]],
              "r": frac_str(Fraction(data["r"]))}
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, params)
