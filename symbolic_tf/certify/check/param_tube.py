r"""Checker-side replay of a validated Taylor tube of the covariance flow with the map's two
coordinates as extra state (kind ``cell-tube-param``; docs/certification.md, "Whole parameter cells:
tubes with the parameters as state").

On a parameter slice the heads and the drift are matrix polynomials in p = (x, y),

    Σ̇ = f(p, Σ) = F(p)Σ + ΣF(p)ᵀ + Σ_h (C_h(p) Σ A_h(p) Σ + Σ A_h(p)ᵀ Σ C_h(p)ᵀ),   ṗ = 0.

Adjoining p to the state makes one autonomous polynomial system on (svec Σ, x, y), and the validated
step of :mod:`symbolic_tf.certify.check.tube_replay` (Picard test, Lagrange remainder, "direct" or "qr"
Lohner wrapping, :func:`~symbolic_tf.certify.check.tube_replay.replay_step`) applies to it unchanged,
once the field gives

* the Taylor coefficients of a solution through a box (Σ-box, p-box): p is constant, so its
  coefficients of order ≥ 1 vanish, and σ_{n+1} = (M_n + M_nᵀ)/(n + 1) with
  M_n = F(p)σ_n + Σ_h Σ_{j≤n} C_h(p)σ_jA_h(p)σ_{n−j}, the matrices C_h(p), A_h(p), F(p) evaluated in
  balls on the p-box (an interval extension contains the value at every p of the box);
* the Jacobian of the order-k Taylor map in the coordinates (svec Σ, x, y): the Taylor coefficients
  of the fundamental matrix of the variational system, whose matrix has the coefficients
  G_j = [[DQ_p(σ_j) (+ L_p at j = 0), ∂_x f_j, ∂_y f_j], [0, 0, 0]] with
  ∂_x f_j = Σ_h Σ_{a+b=j} (∂_xC_h σ_a A_h σ_b + C_h σ_a ∂_xA_h σ_b) + ∂_xF σ_j + transpose
  (the j-th coefficient of ∂f/∂x along the solution), all evaluated on the p-box.

The state is stored as one (d + 2)×(d + 2) ball matrix: the Σ block, x at (d, d), y at (d + 1, d + 1)
and exact zeros elsewhere; the parallelepiped coordinates are (svec-upper Σ, x, y).  No eigenframe is
used (any frame is sound; none is needed).  So every solution from {Σ₀} × (closed cell) exists on
[0, t_N], and (Σ(t_N; p), p) lies in the end box for every p of the cell.
"""
from __future__ import annotations

import flint

from ...exact.precision import working_precision
from ...exact.rational import fmpq_of
from .tube_replay import TubeState, jacobian_series, svec_basis, walk_tube

__all__ = ["ParamField", "ProjParamField", "ProjRayParamField", "ball_eval", "interval", "param_start", "replay_param_tube", "sigma_block", "param_block"]


def ball_eval(P, x, y, dx: int = 0, dy: int = 0) -> flint.arb_mat:
    """The matrix polynomial P (or its partial derivative ∂ˣ^dx ∂ʸ^dy P) evaluated on the balls (x, y).

    Parameters
    ----------
    P : symbolic_tf.certify.check.cell_enclosures.MatPoly
        The exact matrix polynomial Σ C_ij xⁱ yʲ.
    x, y : flint.arb
        The balls (an interval extension: the result contains P at every point of x × y).
    dx, dy : int
        The orders of differentiation in x and y (0 or 1).

    Returns
    -------
    flint.arb_mat
        Σ C_ij·i^(dx)·j^(dy)·x^(i−dx)·y^(j−dy) in balls.
    """
    out = flint.arb_mat(P.nrows, P.ncols)
    for (i, j), C in P.terms.items():
        if i < dx or j < dy:
            continue
        c = flint.arb(1)
        if dx:
            c = c * i
        if dy:
            c = c * j
        out += flint.arb_mat(C) * (c * x ** (i - dx) * y ** (j - dy))
    return out


def interval(lo, hi) -> flint.arb:
    """A ball containing the closed interval [lo, hi] (exact ends): its exact midpoint (rounded) widened by
    the half-width rounded up — tighter than a union of the two ends.

    Parameters
    ----------
    lo, hi : flint.fmpq
        The ends, lo ≤ hi.

    Returns
    -------
    flint.arb
        The ball ⊇ [lo, hi].
    """
    lo, hi = flint.fmpq(lo), flint.fmpq(hi)
    mid = flint.arb((lo + hi) / 2)
    return mid + flint.arb(0, flint.arb((hi - lo) / 2).upper() + mid.rad())


def sigma_block(X, d: int) -> flint.arb_mat:
    """The Σ block (upper-left d×d) of an augmented state matrix.

    Parameters
    ----------
    X : flint.arb_mat
        The (d + 2)×(d + 2) state.
    d : int
        The dimension of Σ.

    Returns
    -------
    flint.arb_mat
        The d×d block.
    """
    return flint.arb_mat([[X[i, j] for j in range(d)] for i in range(d)])


def param_block(X, d: int) -> tuple:
    """The parameter balls (x, y) of an augmented state matrix: its entries (d, d) and (d + 1, d + 1).

    Parameters
    ----------
    X : flint.arb_mat
        The (d + 2)×(d + 2) state.
    d : int
        The dimension of Σ.

    Returns
    -------
    tuple of flint.arb
        (x, y).
    """
    return X[d, d], X[d + 1, d + 1]


def _embed(S, x, y, d):
    out = flint.arb_mat(d + 2, d + 2)
    for i in range(d):
        for j in range(d):
            out[i, j] = S[i, j]
    out[d, d], out[d + 1, d + 1] = x, y
    return out


class ParamField:
    """The augmented field (f(p, Σ), 0, 0) of the module docstring on (d + 2)×(d + 2) state matrices.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        (C_h(x, y), A_h(x, y)), exact matrix polynomials (A_h scaled by the temperature).
    F : MatPoly or None
        The drift F(x, y) (None or no term: no drift).
    d : int
        The dimension of Σ.
    """

    def __init__(self, heads, F, d: int):
        self.heads, self.d = list(heads), d
        self.F = F if F is not None and F.terms else None
        self._up = [(i, j) for i in range(d) for j in range(i, d)]

    def vec(self, X):
        """The parallelepiped coordinates (svec-upper Σ, x, y) of a state.

        Parameters
        ----------
        X : flint.arb_mat
            The (d + 2)×(d + 2) state.

        Returns
        -------
        flint.arb_mat
            The (m + 2)×1 column, m = d(d + 1)/2.
        """
        d = self.d
        return flint.arb_mat(len(self._up) + 2, 1, [X[i, j] for i, j in self._up] + [X[d, d], X[d + 1, d + 1]])

    def unvec(self, v, like=None):
        """The state with coordinates v (the inverse of :meth:`vec`; zeros off the blocks).

        Parameters
        ----------
        v : flint.arb_mat
            An (m + 2)×1 column.
        like : flint.arb_mat or None
            Unused (the size is the field's).

        Returns
        -------
        flint.arb_mat
            The (d + 2)×(d + 2) state.
        """
        d, m = self.d, len(self._up)
        S = flint.arb_mat(d, d)
        for k, (i, j) in enumerate(self._up):
            S[i, j] = S[j, i] = v[k, 0]
        return _embed(S, v[m, 0], v[m + 1, 0], d)

    def embed_start(self, S0, x, y):
        """The state matrix of the start Σ₀ at the parameter balls (x, y).

        Parameters
        ----------
        S0 : flint.fmpq_mat
            The exact start (of this field's Σ block).
        x, y : flint.arb
            The parameter balls.

        Returns
        -------
        flint.arb_mat
            The (d + 2)×(d + 2) state.
        """
        return _embed(flint.arb_mat(S0), x, y, self.d)

    def _at(self, X):
        x, y = param_block(X, self.d)
        pairs = [(ball_eval(C, x, y), ball_eval(A, x, y)) for C, A in self.heads]
        F = None if self.F is None else ball_eval(self.F, x, y)
        return x, y, pairs, F

    def __call__(self, X):
        d = self.d
        _x, _y, pairs, F = self._at(X)
        return _embed(_field(sigma_block(X, d), pairs, F), flint.arb(0), flint.arb(0), d)

    def coefficients(self, X, upto):
        """Taylor coefficients 0..upto of every solution through the state box X (module docstring).

        Parameters
        ----------
        X : flint.arb_mat
            The state box.
        upto : int
            The highest order.

        Returns
        -------
        list of flint.arb_mat
            [σ₀ = X, σ₁, …] as state matrices (p-entries zero from order 1).
        """
        d = self.d
        _x, _y, pairs, F = self._at(X)
        sig = [sigma_block(X, d)]
        left = []
        for n in range(upto):
            left.append([C * sig[n] * A for C, A in pairs])
            acc = None if F is None else F * sig[n]
            for j in range(n + 1):
                for L in left[j]:
                    t = L * sig[n - j]
                    acc = t if acc is None else acc + t
            sig.append((acc + acc.transpose()) / (n + 1))
        zero = flint.arb(0)
        return [X] + [_embed(s, zero, zero, d) for s in sig[1:]]

    def jacobian(self, sig, h):
        """The ball Jacobian of the order-k Taylor map in (svec Σ, x, y) over the box sig[0]
        (:func:`~symbolic_tf.certify.check.tube_replay.jacobian_series` with the G_j of the module docstring).

        Parameters
        ----------
        sig : list of flint.arb_mat
            The coefficients from :meth:`coefficients`.
        h : flint.arb
            The step length.

        Returns
        -------
        flint.arb_mat
            The (m + 2)×(m + 2) ball Jacobian.
        """
        d, up = self.d, self._up
        m = len(up)
        x, y, pairs, F = self._at(sig[0])
        dpairs = [[(ball_eval(C, x, y, *dd), ball_eval(A, x, y, *dd)) for C, A in self.heads]
                  for dd in ((1, 0), (0, 1))]
        dF = [None if self.F is None else ball_eval(self.F, x, y, *dd) for dd in ((1, 0), (0, 1))]
        s = [sigma_block(S, d) for S in sig]
        basis = svec_basis(d)
        k = len(sig) - 1
        G = []
        for j in range(k):
            Gj = flint.arb_mat(m + 2, m + 2)
            for f, E in enumerate(basis):
                acc = None if (F is None or j > 0) else F * E
                for C, A in pairs:
                    t = C * E * A * s[j] + C * s[j] * A * E
                    acc = t if acc is None else acc + t
                sym = acc + acc.transpose()
                for r, (a, b) in enumerate(up):
                    Gj[r, f] = sym[a, b]
            for q in range(2):
                acc = None if dF[q] is None else dF[q] * s[j]
                for (C, A), (Cd, Ad) in zip(pairs, dpairs[q]):
                    for a in range(j + 1):
                        t = Cd * s[a] * A * s[j - a] + C * s[a] * Ad * s[j - a]
                        acc = t if acc is None else acc + t
                if acc is None:
                    continue
                sym = acc + acc.transpose()
                for r, (a, b) in enumerate(up):
                    Gj[r, m + q] = sym[a, b]
            G.append(Gj)
        return jacobian_series(G, h)


def param_start(field: ParamField, S0, box):
    """The start state {Σ₀} × [x₀, x₁] × [y₀, y₁] (as the field embeds it: :meth:`ParamField.embed_start`): the box
    and the exact parallelepiped (svec Σ₀, x_c, y_c, …) + diag(0, …, 0, h_x, h_y, 0, …)·(0, …, 0, s, t, 0, …),
    (s, t) ∈ [−1, 1]² (unit vectors with zero coordinates complete the basis).

    Parameters
    ----------
    field : ParamField
        The field (its dimension).
    S0 : flint.fmpq_mat
        The exact Σ₀.
    box : sequence of 4 flint.fmpq
        (x₀, x₁, y₀, y₁).

    Returns
    -------
    symbolic_tf.certify.check.tube_replay.TubeState
        The initial state.
    """
    d = field.d
    x0, x1, y0, y1 = (fmpq_of(b) if not isinstance(b, flint.fmpq) else b for b in box)
    xc, yc, hx, hy = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
    m = d * (d + 1) // 2
    X = field.embed_start(S0, interval(x0, x1), interval(y0, y1))
    v = field.vec(field.embed_start(S0, flint.arb(xc), flint.arb(yc)))
    n = v.nrows()
    basis = flint.arb_mat(n, n)
    others = [k for k in range(n) if k not in (m, m + 1)]
    for col, k in enumerate(others):
        basis[k, col + 2] = 1
    basis[m, 0] = hx
    basis[m + 1, 1] = hy
    coords = flint.arb_mat(n, 1, [flint.arb(0, 1), flint.arb(0, 1)] + [0] * (n - 2))
    return TubeState(X, v, basis, coords)


def replay_param_tube(field: ParamField, S0, box, ts, order: int, method: str, prec: int, fail, on_state=None):
    """Replay a stored tube of the augmented flow from {Σ₀} × (closed box) along the exact times ``ts``.

    Parameters
    ----------
    field : ParamField
        The augmented field.
    S0 : flint.fmpq_mat
        The exact Σ₀.
    box : sequence of 4 flint.fmpq
        The closed cell (x₀, x₁, y₀, y₁).
    ts : list of flint.fmpq
        The exact times, ts[0] = 0, strictly increasing.
    order : int
        The Taylor order k.
    method : str
        ``"direct"`` or ``"qr"``.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    on_state : callable or None
        ``on_state(t_i, state)`` after each step (and at t_0).

    Returns
    -------
    flint.arb_mat
        The augmented end box ∋ (Σ(t_N; p), p) for every p of the box.
    """
    def step_failed(i, why):
        fail(f"parameter tube step {i} does not validate ({why})")

    with working_precision(prec):
        state = param_start(field, S0, box)
        return walk_tube(field, state, ts, order, method, step_failed, on_state=on_state)


class ProjParamField(ParamField):
    r"""The projective flow with the parameters as state, (Φ_p(X), 0, 0) on (d + 2)×(d + 2) state matrices, for
    heads without drift:

        Φ_p(X) = Q_p(X) − (tr Q_p(X) + κ(tr X − 1))·X,   Q_p(X) = Σ_h (C_h(p) X A_h(p) X + transpose),   ṗ = 0.

    For Σ₀ ⪰ 0, Σ₀ ≠ 0, X(τ) = Σ(t)/tr Σ(t) with dτ = tr Σ dt solves Ẋ = Φ_p(X) from Σ₀/tr Σ₀ (tr X = 1 is
    invariant, where Φ_p does not depend on κ), and tr Σ(τ) = tr Σ₀·exp ∫₀^τ tr Q_p(X): a tube of this field
    on [0, τ_N] means Σ exists while τ ≤ τ_N and ends with Σ/tr Σ in the end box.  Its Taylor coefficients
    (σ_0 = X, n ≥ 0):

        Q_n = Σ_h Σ_{j≤n} C_h σ_j A_h σ_{n−j} + transpose,  c_n = tr Q_n + κ(tr σ_n − [n = 0]),
        σ_{n+1} = (Q_n − Σ_{j≤n} c_j σ_{n−j})/(n + 1),

    and the coefficients of its variational matrix, for a direction E of Sym(d):
    DΦ_j[E] = DQ_j[E] − Σ_{a≤j} Dc_a[E] σ_{j−a} − c_j E with DQ_j[E] = Σ_h (C_hEA_hσ_j + C_hσ_jA_hE) + transpose and
    Dc_a[E] = tr DQ_a[E] + κ tr E·[a = 0]; for the parameter q ∈ {x, y}:
    ∂_qΦ_j = ∂_qQ_j − Σ_{a≤j} (tr ∂_qQ_a) σ_{j−a}, ∂_qQ_j = Σ_h Σ_{a≤j} (∂_qC_h σ_a A_h + C_h σ_a ∂_qA_h) σ_{j−a} + transpose,
    every head evaluated in balls on the state's parameter box.

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        (C_h(x, y), A_h(x, y)), exact.
    d : int
        The dimension.
    kappa : flint.fmpq
        κ ≥ 0.
    """

    def __init__(self, heads, d: int, kappa):
        super().__init__(heads, None, d)
        self.kappa = flint.arb(kappa)

    def _series(self, sig, pairs, upto):
        """Q_n, c_n for n < upto and σ_1..σ_upto appended to ``sig`` (in place)."""
        Qs, cs, left = [], [], []
        for n in range(upto):
            left.append([C * sig[n] * A for C, A in pairs])
            acc = None
            for j in range(n + 1):
                for L in left[j]:
                    t = L * sig[n - j]
                    acc = t if acc is None else acc + t
            Q = acc + acc.transpose()
            c = _tr(Q) + self.kappa * (_tr(sig[n]) - (1 if n == 0 else 0))
            Qs.append(Q)
            cs.append(c)
            phi = Q
            for j in range(n + 1):
                phi = phi - sig[n - j] * cs[j]
            sig.append(phi / (n + 1))
        return Qs, cs

    def __call__(self, X):
        d = self.d
        _x, _y, pairs, _F = self._at(X)
        S = sigma_block(X, d)
        Q = _field(S, pairs)
        c = _tr(Q) + self.kappa * (_tr(S) - 1)
        return _embed(Q - S * c, flint.arb(0), flint.arb(0), d)

    def coefficients(self, X, upto):
        """Taylor coefficients 0..upto of every solution through the state box X (class docstring).

        Parameters
        ----------
        X : flint.arb_mat
            The state box.
        upto : int
            The highest order.

        Returns
        -------
        list of flint.arb_mat
            [σ₀ = X, σ₁, …] as state matrices (p-entries zero from order 1).
        """
        d = self.d
        _x, _y, pairs, _F = self._at(X)
        sig = [sigma_block(X, d)]
        self._series(sig, pairs, upto)
        zero = flint.arb(0)
        return [X] + [_embed(s, zero, zero, d) for s in sig[1:]]

    def _gmats(self, sig, n):
        """The variational coefficients G_j (n×n, n ≥ m + 2; rows and columns beyond m + 2 zero) and the series
        DQ_j[E], ∂_qQ_j, Q_j they are built from."""
        d, up = self.d, self._up
        m = len(up)
        x, y, pairs, _F = self._at(sig[0])
        dpairs = [[(ball_eval(C, x, y, *dd), ball_eval(A, x, y, *dd)) for C, A in self.heads]
                  for dd in ((1, 0), (0, 1))]
        s = [sigma_block(S, d) for S in sig]
        k = len(sig) - 1
        # Q_j and c_j recomputed from the stored σ_j (the same recursion as the coefficients)
        Qs, cs = [], []
        for j in range(k):
            acc = None
            for a in range(j + 1):
                for C, A in pairs:
                    t = C * s[a] * A * s[j - a]
                    acc = t if acc is None else acc + t
            Q = acc + acc.transpose()
            Qs.append(Q)
            cs.append(_tr(Q) + self.kappa * (_tr(s[j]) - (1 if j == 0 else 0)))
        basis = svec_basis(d)
        dQ = [[None] * k for _ in basis]
        for f, E in enumerate(basis):
            for j in range(k):
                acc = None
                for C, A in pairs:
                    t = C * E * A * s[j] + C * s[j] * A * E
                    acc = t if acc is None else acc + t
                dQ[f][j] = acc + acc.transpose()
        dpQ = [[None] * k for _ in range(2)]
        for q in range(2):
            for j in range(k):
                acc = None
                for (C, A), (Cd, Ad) in zip(pairs, dpairs[q]):
                    for a in range(j + 1):
                        t = Cd * s[a] * A * s[j - a] + C * s[a] * Ad * s[j - a]
                        acc = t if acc is None else acc + t
                dpQ[q][j] = None if acc is None else acc + acc.transpose()
        G = []
        for j in range(k):
            Gj = flint.arb_mat(n, n)
            for f, E in enumerate(basis):
                col = dQ[f][j] - E * cs[j]
                for a in range(j + 1):
                    dc = _tr(dQ[f][a]) + (self.kappa * _tr(E) if a == 0 else 0)
                    col = col - s[j - a] * dc
                for r, (i, jj) in enumerate(up):
                    Gj[r, f] = col[i, jj]
            for q in range(2):
                if dpQ[q][j] is None:
                    continue
                col = dpQ[q][j]
                for a in range(j + 1):
                    col = col - s[j - a] * _tr(dpQ[q][a])
                for r, (i, jj) in enumerate(up):
                    Gj[r, m + q] = col[i, jj]
            G.append(Gj)
        return G, dQ, dpQ, Qs

    def jacobian(self, sig, h):
        """The ball Jacobian of the order-k Taylor map in (svec X, x, y) over the box sig[0] (class docstring).

        Parameters
        ----------
        sig : list of flint.arb_mat
            The coefficients from :meth:`coefficients`.
        h : flint.arb
            The step length.

        Returns
        -------
        flint.arb_mat
            The (m + 2)×(m + 2) ball Jacobian.
        """
        return jacobian_series(self._gmats(sig, self.d * (self.d + 1) // 2 + 2)[0], h)


class ProjRayParamField(ProjParamField):
    r"""The projective flow with the projective scale and the time as state, for heads without drift (the
    ``tube-ray`` end in projective space): on (d + 4)×(d + 4) state matrices (X, x, y, u, s) — X the d×d block,
    x, y at (d, d), (d + 1, d + 1), u at (d + 2, d + 2), s at (d + 3, d + 3) —

        X' = Φ_p(X) (:class:`ProjParamField`),   u' = −c·u,   s' = u,   c = tr Q_p(X),   x' = y' = 0.

    For Σ₀ ⪰ 0, Σ₀ ≠ 0 the start (Σ₀/tr Σ₀, x, y, 1/tr Σ₀, 0) gives Σ = X/u at time t = s: with dτ = tr Σ dt,
    X = Σ/tr Σ solves X' = Φ_p(X) on tr X = 1 (where κ drops out), (tr Σ)' = tr Σ·tr Q_p(X) so u = 1/tr Σ solves
    u' = −cu, and dt/dτ = u.  Taylor coefficients of u and s (c_n = tr Q_n, Q_n of :class:`ProjParamField`):

        u_{n+1} = −(Σ_{j≤n} c_j u_{n−j})/(n + 1),   s_{n+1} = u_n/(n + 1);

    the variational matrix adds the rows ∂u'/∂X[E] = −u·tr DQ[E], ∂u'/∂u = −c, ∂u'/∂q = −u·tr ∂_qQ (as series:
    Σ_{a≤j} of products of coefficients) and ∂s'/∂u = 1; the X rows do not depend on (u, s).

    Parameters
    ----------
    heads : list of (MatPoly, MatPoly)
        (C_h(x, y), A_h(x, y)), exact.
    d : int
        The dimension.
    kappa : flint.fmpq
        κ ≥ 0 of the X flow.
    """

    def embed_start(self, S0, x, y):
        """The state (Σ₀/tr Σ₀, x, y, 1/tr Σ₀, 0) of an exact Σ₀ with tr Σ₀ > 0.

        Parameters
        ----------
        S0 : flint.fmpq_mat
            The exact Σ₀ (not normalised).
        x, y : flint.arb
            The parameter balls.

        Returns
        -------
        flint.arb_mat
            The (d + 4)×(d + 4) state.
        """
        S0 = flint.fmpq_mat(S0)
        tr0 = sum((S0[i, i] for i in range(self.d)), flint.fmpq(0))
        return _embed4(flint.arb_mat(S0 / tr0), x, y, flint.arb(1 / tr0), flint.arb(0), self.d)

    def vec(self, X):
        """The coordinates (svec-upper X, x, y, u, s) of a state.

        Parameters
        ----------
        X : flint.arb_mat
            The (d + 4)×(d + 4) state.

        Returns
        -------
        flint.arb_mat
            The (m + 4)×1 column.
        """
        d = self.d
        return flint.arb_mat(len(self._up) + 4, 1, [X[i, j] for i, j in self._up] + [X[d + k, d + k] for k in range(4)])

    def unvec(self, v, like=None):
        """The state with coordinates v (the inverse of :meth:`vec`).

        Parameters
        ----------
        v : flint.arb_mat
            An (m + 4)×1 column.
        like : flint.arb_mat or None
            Unused.

        Returns
        -------
        flint.arb_mat
            The (d + 4)×(d + 4) state.
        """
        d, m = self.d, len(self._up)
        S = flint.arb_mat(d, d)
        for k, (i, j) in enumerate(self._up):
            S[i, j] = S[j, i] = v[k, 0]
        return _embed4(S, v[m, 0], v[m + 1, 0], v[m + 2, 0], v[m + 3, 0], d)

    def __call__(self, X):
        d = self.d
        _x, _y, pairs, _F = self._at(X)
        S = sigma_block(X, d)
        Q = _field(S, pairs)
        c = _tr(Q)
        u = X[d + 2, d + 2]
        zero = flint.arb(0)
        return _embed4(Q - S * (c + self.kappa * (_tr(S) - 1)), zero, zero, -c * u, u, d)

    def coefficients(self, X, upto):
        """Taylor coefficients 0..upto of every solution through the state box X (class docstring).

        Parameters
        ----------
        X : flint.arb_mat
            The state box.
        upto : int
            The highest order.

        Returns
        -------
        list of flint.arb_mat
            [σ₀ = X, σ₁, …] as state matrices (p-entries zero from order 1).
        """
        d = self.d
        _x, _y, pairs, _F = self._at(X)
        sig = [sigma_block(X, d)]
        Qs, _cs = self._series(sig, pairs, upto)
        us, ss = [X[d + 2, d + 2]], [X[d + 3, d + 3]]
        for n in range(upto):
            acc = flint.arb(0)
            for j in range(n + 1):
                acc += _tr(Qs[j]) * us[n - j]
            us.append(-acc / (n + 1))
            ss.append(us[n] / (n + 1))
        zero = flint.arb(0)
        return [X] + [_embed4(sig[n], zero, zero, us[n], ss[n], d) for n in range(1, upto + 1)]

    def jacobian(self, sig, h):
        """The ball Jacobian of the order-k Taylor map in (svec X, x, y, u, s) over the box sig[0] (class docstring).

        Parameters
        ----------
        sig : list of flint.arb_mat
            The coefficients from :meth:`coefficients`.
        h : flint.arb
            The step length.

        Returns
        -------
        flint.arb_mat
            The (m + 4)×(m + 4) ball Jacobian.
        """
        d = self.d
        m = len(self._up)
        G, dQ, dpQ, Qs = self._gmats(sig, m + 4)
        us = [S[d + 2, d + 2] for S in sig]
        for j, Gj in enumerate(G):
            for f in range(m):
                acc = flint.arb(0)
                for a in range(j + 1):
                    acc += _tr(dQ[f][a]) * us[j - a]
                Gj[m + 2, f] = -acc
            for q in range(2):
                acc = flint.arb(0)
                for a in range(j + 1):
                    if dpQ[q][a] is not None:
                        acc += _tr(dpQ[q][a]) * us[j - a]
                Gj[m + 2, m + q] = -acc
            Gj[m + 2, m + 2] = -_tr(Qs[j])
            if j == 0:
                Gj[m + 3, m + 2] = flint.arb(1)
        return jacobian_series(G, h)


def _embed4(S, x, y, u, s, d):
    out = flint.arb_mat(d + 4, d + 4)
    for i in range(d):
        for j in range(d):
            out[i, j] = S[i, j]
    out[d, d], out[d + 1, d + 1], out[d + 2, d + 2], out[d + 3, d + 3] = x, y, u, s
    return out


def _field(S, pairs, F=None):
    """FS + SFᵀ + Σ_h (C_hSA_hS + SA_hᵀSC_hᵀ) in balls (no F: the quadratic part Q(S) alone)."""
    acc = None if F is None else F * S
    for C, A in pairs:
        t = C * S * A * S
        acc = t if acc is None else acc + t
    return acc + acc.transpose()


def _tr(M):
    out = M[0, 0]
    for i in range(1, M.nrows()):
        out = out + M[i, i]
    return out
