"""Ball-arithmetic machinery of the validated tubes: the covariance vector field with affine drift,
its Taylor coefficients and variational recurrence, the Picard a-priori enclosure and one
Lohner-QR Taylor step (search side, shared by the blow-up bracket of
:mod:`symbolic_tf.certify.search._blowup_taylor_lmi` and the tubes of :mod:`symbolic_tf.certify.search.validated.tube`; the
checkers replay every procedure with their own code, :mod:`symbolic_tf.certify.check.tube_replay`).

The flow is

    Σ̇ = f(Σ) = FΣ + ΣFᵀ + Σ_h (C_h Σ A_h Σ + Σ A_hᵀ Σ C_hᵀ)

(single-head softmax: one head, C = V; multi-head: C_h = W_hV_h; A_h scaled by the temperature;
F = 0 without drift: then the arithmetic is exactly the drift-free one).  With drift the Taylor
recurrence gains (Fσ_n + σ_nFᵀ)/(n+1) and the variational one FE + EFᵀ:

    σ_{n+1} = (M_n + M_nᵀ)/(n+1),   M_n = Fσ_n + Σ_h Σ_{j=0}^n C_h σ_j A_h σ_{n−j},
    δσ_{n+1} = (δM_n + δM_nᵀ)/(n+1), δM_n = Fδσ_n + Σ_h Σ_j (C_h δσ_j A_h σ_{n−j} + C_h σ_j A_h δσ_{n−j}).

The Picard test, the inflation constants and the Lohner QR basis choice are deterministic
procedures (part of the certificate kinds' definitions: the checkers replay them).
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from ...check.frame import eigen_frame
from ...check.tube_replay import cauchy_sum
from ....exact.rational import fmpq_of

__all__ = ["Flow", "PICARD_ITERATIONS", "State", "initial_state", "picard_enclosure", "taylor_step",
           "taylor_coefficients", "taylor_jacobian", "singularity_distance", "prepare_step", "dyadic_down", "arb_of", "svec", "unsvec", "svec_basis", "max_mid", "max_rad",
           "horner"]

PICARD_ITERATIONS = 12            # part of the kinds' definitions: must match kinds/replay.py
_INFLATE_REL = flint.fmpq(1, 8)   # X ← Y + [±(rad(Y)/8 + |Y|·2^(−40) + |S|_max·2^(−60))]


class Flow:
    """The vector field in arb balls; ``heads`` are exact (C_h, A_h) fmpq matrices, ``F`` an exact
    fmpq matrix or None (an all-zero F is dropped: the drift-free arithmetic is then exactly that of
    :mod:`symbolic_tf.certify.search._blowup_taylor_lmi`)."""

    def __init__(self, heads, F=None):
        self.exact_heads = [(flint.fmpq_mat(C), flint.fmpq_mat(A)) for C, A in heads]
        self.heads = [(flint.arb_mat(C), flint.arb_mat(A)) for C, A in heads]
        zero = F is None or all(e == 0 for e in F.entries())
        self.exact_F = None if zero else flint.fmpq_mat(F)
        self.F = None if zero else flint.arb_mat(F)
        self._variational = {}

    def variational(self, d):
        """(Big, OpF) of the variational recurrence in svec coordinates (arb at the working precision).

        With G(Y)X = Σ_h (C_h X A_h Y + C_h Y A_h X) and Sym(Z) = Z + Zᵀ, the linear map
        X ↦ Sym(G(Y)X) has the m×m matrix Op(Y) (m = d(d+1)/2, svec-upper coordinates), linear in
        Y: vec_rows(Op(Y)) = Big·svec(Y), Big (m²×m) exact; OpF is the matrix of X ↦ FX + XFᵀ
        (None without drift).

        Parameters
        ----------
        d : int
            The dimension (cached per (d, working precision)).

        Returns
        -------
        tuple of (flint.arb_mat, flint.arb_mat or None)
            (Big, OpF).
        """
        key = (d, flint.ctx.prec)
        if key not in self._variational:
            basis = svec_basis(d, flint.fmpq_mat)
            m = len(basis)
            cols = []
            for Ef in basis:
                rows = []
                for Ee in basis:
                    Z = None
                    for C, A in self.exact_heads:
                        Z = _acc(Z, C * Ee * A * Ef + C * Ef * A * Ee)
                    rows.append(_svec_list(Z + Z.transpose()))
                # rows[e] = svec(Op_f E_e) = column e of Op_f; entry (r, c) of Op_f = rows[c][r]
                cols.append([rows[c][r] for r in range(m) for c in range(m)])
            big = flint.arb_mat(m * m, m, [cols[f][k] for k in range(m * m) for f in range(m)])
            opF = None
            if self.exact_F is not None:
                colsF = [_svec_list(self.exact_F * E + E * self.exact_F.transpose()) for E in basis]
                opF = flint.arb_mat(m, m, [colsF[c][r] for r in range(m) for c in range(m)])
            self._variational[key] = (big, opF)
        return self._variational[key]

    def drift(self, X):
        """FX (the first summand of every recurrence), or None without drift.

        Parameters
        ----------
        X : flint.arb_mat
            A d×d ball matrix.

        Returns
        -------
        flint.arb_mat or None
            FX.
        """
        return None if self.F is None else self.F * X

    def field(self, X):
        """f(X) = FX + Σ_h C_h X A_h X, plus the transpose (exactly symmetric for symmetric X).

        Parameters
        ----------
        X : flint.arb_mat
            A symmetric d×d ball matrix.

        Returns
        -------
        flint.arb_mat
            f(X) = FX + XFᵀ + Σ_h (C_hXA_hX + XA_hᵀXC_hᵀ).
        """
        W = self.drift(X)
        for C, A in self.heads:
            W = _acc(W, C * X * A * X)
        return W + W.transpose()


def _acc(W, w):
    return w if W is None else W + w


def taylor_coefficients(S, flow, K):
    """[σ_0, …, σ_K] of the solution through σ_0 = S (ball matrices).

    σ_{n+1} = (M_n + M_nᵀ)/(n+1), M_n = Fσ_n + Σ_h Σ_{j≤n} C_hσ_jA_hσ_{n−j}.

    Parameters
    ----------
    S : flint.arb_mat
        The point or box σ_0.
    flow : Flow
        The vector field.
    K : int
        The highest order.

    Returns
    -------
    list of flint.arb_mat
        [σ_0, …, σ_K].
    """
    sig = [S]
    Y = []
    for n in range(K):
        Y.append([C * sig[n] * A for C, A in flow.heads])
        W = cauchy_sum(Y, sig, n, flow.drift(sig[n]))
        sig.append((W + W.transpose()) / (n + 1))
    return sig


def variational_coefficients(sig, flow):
    """[M_0, …, M_k]: the Taylor coefficients of the Jacobian (svec coordinates) of the order-k Taylor
    map over the box of ``sig[0]`` (:func:`taylor_jacobian` = Σ_n M_n hⁿ), by the variational
    recurrence in operator form:

        M_0 = I,   M_{n+1} = (OpF·M_n + Σ_{j=0}^n Op(σ_{n−j})·M_j)/(n + 1),   J = Σ_n M_n h^n,

    M_n (m×m) the n-th Taylor coefficient of ∂σ/∂svec(σ_0) (its column e is svec δσ_n along E_e);
    Op(Y) = Big·svec(Y) is linear in Y (:meth:`Flow.variational`), so each order costs n + 1
    m×m products instead of m·(n + 1) pairs of d×d ones.

    Parameters
    ----------
    sig : list of flint.arb_mat
        The Taylor coefficients [σ_0, …, σ_k] over a box.
    flow : Flow
        The vector field.

    Returns
    -------
    list of flint.arb_mat
        [M_0, …, M_k], each m×m.
    """
    # check/tube_replay's Field.jacobian sums the same series its own way: the search keeps its own
    # arithmetic order, so its step choices (and the certificates it writes) stay as they are
    d = sig[0].nrows()
    big, opF = flow.variational(d)
    m = big.ncols()
    K = len(sig) - 1
    ops = [flint.arb_mat(m, m, (big * svec(s)).entries()) for s in sig[:K]]
    M = [flint.arb_mat([[int(i == j) for j in range(m)] for i in range(m)])]
    for n in range(K):
        terms = [ops[n - j] * M[j] for j in range(n + 1)]
        acc = sum(terms, opF * M[n]) if opF is not None else sum(terms[1:], terms[0])
        M.append(acc / (n + 1))
    return M


def taylor_jacobian(sig, flow, h):
    """The Jacobian (svec coordinates) of the order-k Taylor map Σ ↦ Σ_n σ_n(Σ) hⁿ over the box of
    ``sig[0]``: Σ_n M_n hⁿ with :func:`variational_coefficients`.

    Parameters
    ----------
    sig : list of flint.arb_mat
        The Taylor coefficients over the box.
    flow : Flow
        The vector field.
    h : flint.arb
        The step length.

    Returns
    -------
    flint.arb_mat
        The m×m ball Jacobian Σ_n M_n hⁿ.
    """
    return horner(variational_coefficients(sig, flow), h)


def dyadic_down(h: float, bits: int = 24) -> Fraction:
    """The largest ``bits``-bit dyadic ≤ h > 0 (step times stay exact in arb).

    Parameters
    ----------
    h : float
        A positive float.
    bits : int
        The mantissa length.

    Returns
    -------
    fractions.Fraction
        m·2^e ≤ h with an integer m < 2^bits.
    """
    m, e = math.frexp(h)  # h = m·2^e, 0.5 ≤ m < 1
    return Fraction(math.floor(m * 2 ** bits), 1) * Fraction(2) ** (e - bits)


def arb_of(q) -> flint.arb:
    """The exact rational q as a point ball.

    Parameters
    ----------
    q : int, fractions.Fraction or str
        An exact rational.

    Returns
    -------
    flint.arb
        A ball containing q (radius 0 when q is exactly representable at the working precision).
    """
    q = Fraction(q)
    return flint.arb(fmpq_of(q))


def singularity_distance(S, flow, order, coeffs=None) -> float:
    """Root-test estimate ρ of the distance (in time) to the nearest singularity from the midpoints of
    the Taylor coefficients of orders k−1 and k at S (math.inf if they vanish); steps are θ·ρ.
    ``coeffs``: the coefficients at (a point of) S if already known (:func:`prepare_step`).

    Parameters
    ----------
    S : flint.arb_mat
        The current enclosure.
    flow : Flow
        The vector field.
    order : int
        The Taylor order k.
    coeffs : list of flint.arb_mat or None
        Precomputed Taylor coefficients at S.

    Returns
    -------
    float
        ρ = min_n (‖σ_0‖/‖σ_n‖)^{1/n}, n ∈ {k − 1, k} (midpoint max-norms), or math.inf.
    """
    if coeffs is None:
        coeffs = taylor_coefficients(S, flow, order)
    norms = [max_mid(s) for s in coeffs]
    rho = math.inf
    for n in (order - 1, order):
        if n >= 1 and norms[n] > 0 and norms[0] > 0:
            rho = min(rho, (norms[0] / norms[n]) ** (1.0 / n))
    return rho


def horner(coeffs, h):
    """Σ_n c_n hⁿ by Horner's rule.

    Parameters
    ----------
    coeffs : list
        [c_0, …, c_k] (ball matrices or balls).
    h : flint.arb
        The argument.

    Returns
    -------
    same type as the coefficients
        c_0 + h(c_1 + h(… + h·c_k)).
    """
    acc = coeffs[-1]
    for n in range(len(coeffs) - 2, -1, -1):
        acc = acc * h + coeffs[n]
    return acc


def svec_basis(d, mat=flint.arb_mat):
    """The svec-upper basis of Sym(d): E_ii = e_ie_iᵀ, E_ij = e_ie_jᵀ + e_je_iᵀ (i < j), row-major.

    Parameters
    ----------
    d : int
        The dimension.
    mat : type
        ``flint.arb_mat`` or ``flint.fmpq_mat``.

    Returns
    -------
    list
        The m = d(d+1)/2 basis matrices.
    """
    out = []
    for i in range(d):
        for j in range(i, d):
            E = mat(d, d)
            E[i, j] = 1
            E[j, i] = 1
            out.append(E)
    return out


def _svec_list(X):
    d = X.nrows()
    return [X[i, j] for i in range(d) for j in range(i, d)]


def svec(X):
    """The svec-upper coordinates of a symmetric matrix: (X_ij), i ≤ j, row-major.

    Parameters
    ----------
    X : flint.arb_mat
        A symmetric d×d ball matrix.

    Returns
    -------
    flint.arb_mat
        The m×1 column, m = d(d+1)/2.
    """
    d = X.nrows()
    vals = [X[i, j] for i in range(d) for j in range(i, d)]
    return flint.arb_mat(len(vals), 1, vals)


def unsvec(v, d):
    """The symmetric matrix with svec-upper coordinates v (inverse of :func:`svec`).

    Parameters
    ----------
    v : flint.arb_mat
        An m×1 column, m = d(d+1)/2.
    d : int
        The dimension.

    Returns
    -------
    flint.arb_mat
        The symmetric d×d matrix.
    """
    X = flint.arb_mat(d, d)
    k = 0
    for i in range(d):
        for j in range(i, d):
            X[i, j] = v[k, 0]
            X[j, i] = v[k, 0]
            k += 1
    return X


def _householder_q(M):
    """Q (rows, floats) of a Householder QR of the square float matrix M; deterministic."""
    m = len(M)
    R = [row[:] for row in M]
    Q = [[1.0 if i == j else 0.0 for j in range(m)] for i in range(m)]
    for k in range(m - 1):
        x = [R[i][k] for i in range(k, m)]
        nx = math.sqrt(sum(v * v for v in x))
        if nx == 0.0:
            continue
        alpha = -nx if x[0] >= 0 else nx
        v = x[:]
        v[0] -= alpha
        nv2 = sum(t * t for t in v)
        if nv2 == 0.0:
            continue
        for j in range(m):
            dot = sum(v[i] * R[k + i][j] for i in range(m - k))
            f = 2.0 * dot / nv2
            for i in range(m - k):
                R[k + i][j] -= f * v[i]
        for i in range(m):
            dot = sum(Q[i][k + l] * v[l] for l in range(m - k))
            f = 2.0 * dot / nv2
            for l in range(m - k):
                Q[i][k + l] -= f * v[l]
    return Q


def _lohner_basis(Amat, r):
    m = Amat.nrows()
    mid = [[float(Amat[i, j].mid()) for j in range(m)] for i in range(m)]
    w = [float(r[j, 0].rad()) + abs(float(r[j, 0].mid())) for j in range(m)]
    length = [math.sqrt(sum(mid[i][j] ** 2 for i in range(m))) * w[j] for j in range(m)]
    perm = sorted(range(m), key=lambda j: (-length[j], j))
    Q = _householder_q([[mid[i][j] for j in perm] for i in range(m)])
    if not all(math.isfinite(q) for row in Q for q in row):
        Q = [[1.0 if i == j else 0.0 for j in range(m)] for i in range(m)]
    B = flint.arb_mat(Q)
    try:
        return B, B.inv()
    except ZeroDivisionError:
        B = flint.arb_mat([[int(i == j) for j in range(m)] for i in range(m)])
        return B, B


def max_mid(X) -> float:
    """The largest |midpoint| of a ball matrix's entries (a float size, for step heuristics).

    Parameters
    ----------
    X : flint.arb_mat
        A ball matrix.

    Returns
    -------
    float
        max_ij |mid X_ij|.
    """
    n, m = X.nrows(), X.ncols()
    return max(abs(float(X[i, j].mid())) for i in range(n) for j in range(m))


def max_rad(X) -> float:
    """The largest radius of a ball matrix's entries.

    Parameters
    ----------
    X : flint.arb_mat
        A ball matrix.

    Returns
    -------
    float
        max_ij rad X_ij.
    """
    n, m = X.nrows(), X.ncols()
    return max(float(X[i, j].rad()) for i in range(n) for j in range(m))


def _inflate(Y, smax):
    n = Y.nrows()
    out = flint.arb_mat(n, n)
    floor = smax * flint.arb(2) ** -60
    for i in range(n):
        for j in range(n):
            y = Y[i, j]
            r = y.rad() * _INFLATE_REL + abs(y.mid()) * flint.arb(2) ** -40 + floor
            out[i, j] = y + flint.arb(0, r.upper())
    return out


def _contains(X, Y) -> bool:
    n = X.nrows()
    return all(X[i, j].contains(Y[i, j]) for i in range(n) for j in range(n))


def picard_enclosure(S, h, flow):
    """Y = S + [0, h]·f(X) ⊆ X (verified) — an enclosure of Σ on [t, t + h] for Σ(t) ∈ S — or None.

    Inflate-and-iterate (at most PICARD_ITERATIONS rounds): X ← Y + [±(rad(Y)/8 + |Y|·2^(−40) +
    |S|_max·2^(−60))], Y = S + [0, h]·f(X), until Y ⊆ X.

    Parameters
    ----------
    S : flint.arb_mat
        The enclosure of Σ(t).
    h : flint.arb
        The step length (exact).
    flow : Flow
        The vector field.

    Returns
    -------
    flint.arb_mat or None
        Y ∋ Σ(s) for s ∈ [t, t + h], or None when the test fails or Y is not finite.
    """
    J = h.upper() * flint.arb(flint.fmpq(1, 2), flint.fmpq(1, 2))  # ⊇ [0, h]
    n = S.nrows()
    smax = max(abs(S[i, j]).upper() for i in range(n) for j in range(n))
    Y = S + flow.field(S) * J
    for _ in range(PICARD_ITERATIONS):
        X = _inflate(Y, smax)
        Y = S + flow.field(X) * J
        if not all(Y[i, j].is_finite() for i in range(n) for j in range(n)):
            return None
        if _contains(X, Y):
            return Y
    return None


class State:
    """Enclosure of Σ(t_i): a box S and (method "qr") a parallelepiped x̂ + B·r (svec coordinates)."""

    def __init__(self, S, xh=None, B=None, r=None, zrad=0.0, picard=None):
        self.S, self.xh, self.B, self.r = S, xh, B, r
        self.zrad = zrad        # max radius of the Lagrange remainder of the step that produced S
        self.picard = picard    # the Picard box of that step (encloses Σ on the whole step)


def initial_state(S0, method):
    """The :class:`State` at t = 0: the box S₀ and, for "qr", the parallelepiped x̂ + I·r with
    x̂ = mid svec S₀ and r = svec S₀ − x̂.

    Parameters
    ----------
    S0 : flint.arb_mat
        The (point) enclosure of Σ₀.
    method : str
        ``"qr"`` or ``"direct"``.

    Returns
    -------
    State
        The initial state.
    """
    if method == "direct":
        return State(S0)
    v = svec(S0)
    m = v.nrows()
    xh = v.mid()
    B = flint.arb_mat([[int(i == j) for j in range(m)] for i in range(m)])
    return State(S0, xh, B, v - xh)


def prepare_step(state, flow, order, method="qr"):
    """The parts of a step that do not depend on its length h, computed once per step and reused by
    every retry: the Taylor coefficients at the centre x̂ and over the hull of S and x̂ ("qr"), or
    over S ("direct").  ``pre["centre"]`` also serves :func:`singularity_distance`.

    Parameters
    ----------
    state : State
        The current enclosure.
    flow : Flow
        The vector field.
    order : int
        The Taylor order k.
    method : str
        ``"qr"`` or ``"direct"``.

    Returns
    -------
    dict
        ``{"direct", "centre"}`` (direct) or ``{"Xh", "hull", "centre"}`` (qr): Taylor coefficient lists;
        :func:`taylor_step` adds ``"M"`` (the variational coefficients) on first use.
    """
    S = state.S
    if method == "direct":
        sig = taylor_coefficients(S, flow, order)
        return {"direct": sig, "centre": sig}
    d = S.nrows()
    Xh = unsvec(state.xh, d)
    Sj = flint.arb_mat(d, d)
    for i in range(d):
        for j in range(d):
            Sj[i, j] = S[i, j].union(Xh[i, j])
    return {"Xh": Xh, "hull": taylor_coefficients(Sj, flow, order), "centre": taylor_coefficients(Xh, flow, order)}


def taylor_step(state, h, flow, order, method="qr", basis=None, pre=None, framed=False):
    """One validated step of length h (exact arb); the next :class:`State` or None.  ``pre`` is
    :func:`prepare_step` of this state (computed here when absent).

    Parameters
    ----------
    state : State
        The enclosure at t.
    h : flint.arb
        The step length (exact).
    flow : Flow
        The vector field.
    order : int
        The Taylor order k.
    method : str
        ``"qr"`` or ``"direct"``.
    basis : list or None
        Unused (kept for the callers' signature).
    pre : dict or None
        :func:`prepare_step` of ``state``.
    framed : bool
        Compute the Picard box and the remainder in the eigenframe of S
        (:mod:`~symbolic_tf.certify.check.frame`), as the checker does.  Far tighter near a singular
        Σ, so the step control allows much longer steps — which near a blow-up ray is what it is for,
        but on other flows can let Lohner's wrapping grow (measured on seed 0 #59 of the general-V
        set: exponential growth onto a rank-one direction, where steps 25 times the unframed ones
        wrecked the enclosure).  The ray and rotation searches take framed steps, the neutral growth
        search tries them first; the others keep the unframed steps, which the framed checker
        replays as well.

    Returns
    -------
    State or None
        The enclosure at t + h (with its Picard box and remainder radius), or None when the Picard
        test fails or (qr) the parallelepiped and the direct enclosure are disjoint.
    """
    S = state.S
    # the a priori box and the remainder in the eigenframe of S (kinds.frame: tight near a singular Σ)
    frame = eigen_frame(S) if framed else None
    local = flow if frame is None else Flow(frame.pairs(flow.exact_heads), frame.drift(flow.exact_F))
    Y = picard_enclosure(S if frame is None else frame.to(S), h, local)
    if Y is None:
        return None
    if pre is None:
        pre = prepare_step(state, flow, order, method)
    Z = taylor_coefficients(Y, local, order + 1)[order + 1] * h ** (order + 1)
    if frame is not None:
        Y, Z = frame.back(Y), frame.back(Z)
    if method == "direct":
        return State(horner(pre["direct"], h) + Z, zrad=max_rad(Z), picard=Y)
    d = S.nrows()
    sig = pre["hull"]
    direct = horner(sig, h) + Z
    if "M" not in pre:
        pre["M"] = variational_coefficients(sig, flow)
    J = horner(pre["M"], h)
    W = svec(horner(pre["centre"], h) + Z)
    xh = W.mid()
    A = J * state.B
    B, Binv = _lohner_basis(A, state.r)
    r = (Binv * A) * state.r + Binv * (W - xh)
    P = unsvec(xh + B * r, d)
    S_new = flint.arb_mat(d, d)
    try:
        for i in range(d):
            for j in range(d):
                S_new[i, j] = P[i, j].intersection(direct[i, j])
    except ValueError:
        return None
    return State(S_new, xh, B, r, max_rad(Z), picard=Y)
