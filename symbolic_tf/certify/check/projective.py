"""Checker-side validated tube of the *projective* covariance flow (the continuation of a ``tube-ray``
tube past the point where the covariance tube loses its relative accuracy).

Near a blow-up Σ(t) ≈ C/(T* − t) an enclosure of Σ(t) at a fixed t has a relative width of order
δ/(T* − t), where δ is the enclosure's uncertainty about T* itself (accumulated remainders): it must
stop before T* − t reaches δ.  A slowly attracting ray is approached only like (T* − t)^(a/c), so
the tube ends far from the ray.  In projective coordinates the uncertainty about T* is harmless:
with Σ = X/u and dτ = dt/u (:mod:`symbolic_tf.certify.check.kinds.tube_ray`),

    X' = Q(X) + u·L(X) − c·X,   u' = −c·u,   s' = u,   c = tr Q(X) + u·tr L(X),      (Φₛ)

where s is the elapsed time t − t_N.  Any solution with u(0) > 0 gives the covariance solution
Σ(t_N + s(τ)) = X(τ)/u(τ) (the ray module's computation; s' = u is dt/dτ), and the state stays of
order one while τ → ∞.

**The procedure** (part of the ``tube-ray`` kind's definition).  The state is the block-diagonal
(d + 2)×(d + 2) matrix Z = diag(X, u, s); the parallelepiped's coordinates are (svec-upper X, u, s)
(:meth:`ProjectiveSeries.vec`), and the other entries of Z are zero for every solution (their
component of the field is zero), so their enclosures stay exactly 0.  From the covariance tube's end
box S_N (tr S_N > 0): Z_0 = diag(S_N/tr S_N, 1/tr S_N, 0) in balls.  Each stored step of length
h = τ_i − τ_{i−1} is :func:`symbolic_tf.certify.check.tube_replay.replay_step` (the deterministic Picard
test, the Lagrange remainder, Lohner's QR parallelepiped intersected with the direct enclosure) with
the Taylor recurrence of Φₛ:

    Q_n = Σ_h Σ_{j≤n} C_hX_jA_hX_{n−j} + transpose,  (uL)_n = Σ_{j≤n} u_jL(X_{n−j}),
    c_n = tr Q_n + tr (uL)_n,
    X_{n+1} = (Q_n + (uL)_n − Σ_{j≤n} c_jX_{n−j})/(n+1),  u_{n+1} = −Σ_{j≤n} c_ju_{n−j}/(n+1),
    s_{n+1} = u_n/(n+1),

and the Jacobian of the order-k Taylor map by D_0 = I, D_{n+1} = Σ_{j≤n} G_jD_{n−j}/(n+1), where
G_j is the j-th Taylor coefficient of DΦₛ(z(τ)) on the (X, u) block, the orders above the first p
with a small majorant tail ε replaced by ±ε (:func:`~.replay.jacobian_series`) (the s row of the
Jacobian is Σ_{n≥1} (u row of D_{n−1})·hⁿ/n, from s_n = u_{n−1}/n, with ±|h|ε for its tail)
(DΦₛ is polynomial in z, so G_j is a finite sum of products of the coefficients X_i, u_i, c_i):
for the direction E of X,

    DΦₛ[E] = (DQ(X)[E] + u·L(E) − δc·X − c·E, −δc·u, 0),  δc = tr DQ(X)[E] + u·tr L(E),

for u: (L(X) − tr L(X)·X, −c − u·tr L(X), 1), and for s: 0.
"""
from __future__ import annotations

import flint

from .frame import eigen_frame
from .tube_replay import (Field, ball_flow, cauchy_sum, jacobian_terms, norm_f, start_state, svec_pairs, trace,
                          walk_tube)

__all__ = ["ProjectiveSeries", "projective_start", "replay_projective", "projective_end"]


class _Series(list):
    """Taylor coefficients Z_0, …, Z_n with the coefficients ``c`` of c(X, u) alongside."""

    c: list


def _acc(total, term):
    return term if total is None else total + term


class ProjectiveSeries:
    """The field Φₛ of the module docstring on Z = diag(X, u, s), in arb balls; ``pairs`` are exact
    (C_h, A_h), ``F`` exact or None (all-zero: None)."""

    def __init__(self, pairs, F=None):
        self.exact_pairs, self.pairs, self.exact_F, self.F = ball_flow(pairs, F)
        self.d = self.exact_pairs[0][0].nrows()
        self.up = svec_pairs(self.d)
        self.cov = Field(pairs, F)   # the covariance field's exact operators

    def frame(self, Z):
        """The eigenframe of the X block of ``Z`` (u and s unchanged) for a step's a priori enclosure
        and remainder (:mod:`~symbolic_tf.certify.check.frame`: traces are invariant under an
        orthogonal Q, so the rotated field is again Φₛ, of the rotated heads), or None.

        Parameters
        ----------
        Z : flint.arb_mat
            The step's starting state.

        Returns
        -------
        symbolic_tf.certify.check.frame.Frame or None
            The frame.
        """
        return eigen_frame(Z, self.d, 2)

    # ------------------------------------------------------------------ coordinates
    def vec(self, Z):
        """The parallelepiped's coordinates (svec-upper X, u, s) of Z = diag(X, u, s), as an (m+2)×1 column.

        Parameters
        ----------
        Z : flint.arb_mat
            The (d+2)×(d+2) state.

        Returns
        -------
        flint.arb_mat
            The column (m + 2 entries, m = d(d+1)/2).
        """
        d = self.d
        vals = [Z[i, j] for i, j in self.up] + [Z[d, d], Z[d + 1, d + 1]]
        return flint.arb_mat(len(vals), 1, vals)

    def unvec(self, v, like=None):
        """The state Z = diag(X, u, s) with coordinates v (the inverse of :meth:`vec`).

        Parameters
        ----------
        v : flint.arb_mat
            An (m+2)×1 column.
        like : object
            Unused (the shape is the field's).

        Returns
        -------
        flint.arb_mat
            The (d+2)×(d+2) state.
        """
        d = self.d
        Z = flint.arb_mat(d + 2, d + 2)
        for k, (i, j) in enumerate(self.up):
            Z[i, j] = Z[j, i] = v[k, 0]
        m = len(self.up)
        Z[d, d] = v[m, 0]
        Z[d + 1, d + 1] = v[m + 1, 0]
        return Z

    def split(self, Z):
        """(X, u, s) of the state Z.

        Parameters
        ----------
        Z : flint.arb_mat
            The (d+2)×(d+2) state.

        Returns
        -------
        tuple of (flint.arb_mat, flint.arb, flint.arb)
            The blocks.
        """
        d = self.d
        X = flint.arb_mat(d, d)
        for i in range(d):
            for j in range(d):
                X[i, j] = Z[i, j]
        return X, Z[d, d], Z[d + 1, d + 1]

    def join(self, X, u, s):
        """The state Z = diag(X, u, s).

        Parameters
        ----------
        X : flint.arb_mat
            The d×d block.
        u, s : flint.arb
            The scalars.

        Returns
        -------
        flint.arb_mat
            The (d+2)×(d+2) state.
        """
        d = self.d
        Z = flint.arb_mat(d + 2, d + 2)
        for i in range(d):
            for j in range(d):
                Z[i, j] = X[i, j]
        Z[d, d] = u
        Z[d + 1, d + 1] = s
        return Z

    # ------------------------------------------------------------------ the field
    def _Q(self, X, Y):
        acc = None
        for C, A in self.pairs:
            acc = _acc(acc, C * X * A * Y)
        return acc

    def _L(self, X):
        t = self.F * X
        return t + t.transpose()

    def __call__(self, Z):
        X, u, _s = self.split(Z)
        QX = self._Q(X, X)
        QX = QX + QX.transpose()
        c = trace(QX)
        top = QX
        if self.F is not None:
            LX = self._L(X)
            c = c + u * trace(LX)
            top = top + LX * u
        return self.join(top - X * c, -c * u, u)

    def coefficients(self, Z, upto):
        """Taylor coefficients Z_0, …, Z_upto of the solution of Φₛ through Z (module docstring).

        Parameters
        ----------
        Z : flint.arb_mat
            The (ball) state the solution passes through.
        upto : int
            The highest order.

        Returns
        -------
        list of flint.arb_mat
            [Z_0, …, Z_upto], with the attribute ``c`` = [c_0, …, c_{upto−1}].
        """
        X0, u0, s0 = self.split(Z)
        Xs, us, cs, Ls, left = [X0], [u0], [], [], []
        for n in range(upto):
            left.append([C * Xs[n] * A for C, A in self.pairs])
            acc = cauchy_sum(left, Xs, n)
            Qn = acc + acc.transpose()
            c = trace(Qn)
            top = Qn
            if self.F is not None:
                Ls.append(self._L(Xs[n]))
                uL = Ls[n] * us[0]
                for j in range(1, n + 1):
                    uL += Ls[n - j] * us[j]
                c = c + trace(uL)
                top = top + uL
            cs.append(c)
            cX, cu = Xs[n] * cs[0], cs[0] * us[n]
            for j in range(1, n + 1):
                cX += Xs[n - j] * cs[j]
                cu += cs[j] * us[n - j]
            Xs.append((top - cX) / (n + 1))
            us.append(-cu / (n + 1))
        out = _Series(self.join(X, u, us[n - 1] / n if n else s0) for n, (X, u) in enumerate(zip(Xs, us)))
        out.c = cs
        return out

    def _operators(self):
        """(lin, Lop, ell): the covariance field's exact operators (:meth:`.replay.Field.operators`:
        Op(Y) = E ↦ DQ(Y)[E] and E ↦ L(E) in svec coordinates) and the 1×m row of the trace."""
        lin, Lop = self.cov.operators(self.d)
        return lin, Lop, flint.arb_mat(1, len(self.up), [int(i == j) for i, j in self.up])

    def jacobian(self, sig, h):
        """The (m+2)×(m+2) ball Jacobian Σ_n D_n hⁿ of the order-k Taylor map over the box sig[0]
        (module docstring), in the coordinates of :meth:`vec`.

        Parameters
        ----------
        sig : list of flint.arb_mat
            The Taylor coefficients Z_0..Z_k over the box (from :meth:`coefficients`, with ``c``).
        h : flint.arb
            The step length.

        Returns
        -------
        flint.arb_mat
            The ball Jacobian.
        """
        lin, Lop, ell = self._operators()
        m = lin.ncols()
        k = len(sig) - 1
        parts = [self.split(Z) for Z in sig[:k]]
        x = [_svec(X, self.up) for X, _u, _s in parts]
        u = [p[1] for p in parts]
        c = sig.c
        op = [flint.arb_mat(m, m, (lin * xj).entries()) for xj in x]
        # δc along each X direction: dc[i] = ell·Op(X_i) + u_i·ell·Lop (1×m); tr L(X_i) = ell·Lop·x_i
        dc = [ell * op[i] for i in range(k)]
        trL = None
        if Lop is not None:
            ellL = ell * Lop
            dc = [dc[i] + ellL * u[i] for i in range(k)]
            trL = [(ellL * x[i])[0, 0] for i in range(k)]
        # G_j on the (X, u) block only: Φₛ's (X, u) part does not depend on s
        n_xu = m + 1
        G = _Variational(m, x, u, c, op, dc, Lop, trL)
        D, eps = jacobian_terms(G, h, G.norms())
        block = D[-1]
        for n in reversed(range(len(D) - 1)):
            block = block * h + D[n]
        # s = s_0 + Σ_{n≥1} u_{n−1}hⁿ/n: its row is Σ_{n≥1} (row u of D_{n−1})·hⁿ/n, and ∂s/∂s_0 = 1;
        # the orders past jacobian_terms' p add at most |h|·ε to each entry (ε bounds Σ‖D_n‖|h|ⁿ)
        value = flint.arb_mat(m + 2, m + 2)
        rad = flint.arb(0, eps.upper()) if eps != 0 else None
        srad = flint.arb(0, (abs(h) * eps).upper()) if eps != 0 else None
        for a in range(n_xu):
            for b in range(n_xu):
                value[a, b] = block[a, b] if rad is None else block[a, b] + rad
        hp = h
        for n in range(1, min(len(D), k) + 1):
            for b in range(n_xu):
                value[m + 1, b] += D[n - 1][m, b] * hp / n
            hp = hp * h
        if srad is not None:
            for b in range(n_xu):
                value[m + 1, b] += srad
        value[m + 1, m + 1] = 1
        return value


class _Variational:
    """The Taylor coefficients G_j of DΦₛ(z(τ)) on the (X, u) block (the jacobian's docstring),
    built on demand (:func:`~.replay.jacobian_terms` reads only the first few), with bounds of
    their Frobenius norms from the parts' norms."""

    def __init__(self, m, x, u, c, op, dc, Lop, trL):
        self.m, self.x, self.u, self.c, self.op, self.dc, self.Lop, self.trL = m, x, u, c, op, dc, Lop, trL
        self._built = {}

    def __len__(self):
        return len(self.c)

    def __getitem__(self, j):
        if j not in self._built:
            self._built[j] = self._build(j)
        return self._built[j]

    def _build(self, j):
        m, x, u, c, op, dc, Lop, trL = self.m, self.x, self.u, self.c, self.op, self.dc, self.Lop, self.trL
        blk = op[j] - _identity(m) * c[j]
        if Lop is not None:
            blk = blk + Lop * u[j]
        conv_x = x[j] * dc[0]
        conv_u = dc[0] * u[j]
        for i in range(1, j + 1):
            conv_x += x[j - i] * dc[i]
            conv_u += dc[i] * u[j - i]
        blk = (blk - conv_x).entries()
        # the u column
        uu = -c[j]
        ucol = [flint.arb(0)] * m
        if Lop is not None:
            col = Lop * x[j]
            for i in range(j + 1):
                col = col - x[j - i] * trL[i]
                uu = uu - u[i] * trL[j - i]
            ucol = col.entries()
        rows = []
        for a in range(m):
            rows.extend(blk[a * m:(a + 1) * m])
            rows.append(ucol[a])
        rows.extend(-e for e in conv_u.entries())
        rows.append(uu)
        return flint.arb_mat(m + 1, m + 1, rows)

    def norms(self):
        """Upper bounds g_j ≥ ‖G_j‖_F: the Frobenius norm of a block matrix is at most the sum of
        its blocks' norms, ‖x·dc‖_F = ‖x‖‖dc‖ for an outer product, and the triangle inequality on
        each block's sum (:meth:`_build`)."""
        m, k = self.m, len(self)
        nx = [norm_f(v) for v in self.x]
        ndc = [norm_f(v) for v in self.dc]
        au = [_up(v) for v in self.u]
        ac = [_up(v) for v in self.c]
        nL = norm_f(self.Lop) if self.Lop is not None else None
        atr = [_up(v) for v in self.trL] if self.Lop is not None else None
        root_m = flint.arb(m).sqrt()
        out = []
        for j in range(k):
            g = norm_f(self.op[j]) + root_m * ac[j] + ac[j]
            for i in range(j + 1):
                g += nx[j - i] * ndc[i] + ndc[i] * au[j - i]
            if nL is not None:
                g += au[j] * nL + nL * nx[j]
                for i in range(j + 1):
                    g += atr[i] * nx[j - i] + au[i] * atr[j - i]
            out.append(_up(g))
        return out


def _up(x):
    """An exact upper bound of |x| (+inf when x is not finite)."""
    return flint.arb(abs(x).upper()) if x.is_finite() else flint.arb("inf")


def _svec(X, up):
    return flint.arb_mat(len(up), 1, [X[i, j] for i, j in up])


def _identity(m):
    """The m×m identity (exact entries, so one matrix serves every precision; never mutated)."""
    eye = _IDENTITIES.get(m)
    if eye is None:
        eye = _IDENTITIES[m] = flint.arb_mat([[int(i == j) for j in range(m)] for i in range(m)])
    return eye


_IDENTITIES = {}


def projective_start(field, S_end, fail):
    """Z_0 = diag(S_N/tr S_N, 1/tr S_N, 0) from the covariance tube's end box (tr S_N > 0 required).

    Parameters
    ----------
    field : ProjectiveSeries
        The projective field.
    S_end : flint.arb_mat
        The covariance tube's end box.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    flint.arb_mat
        The initial state box.
    """
    trS = trace(S_end)
    if not (trS > 0):
        fail("tr Σ(t_N) is not positive on the covariance tube's end box")
    u = 1 / trS
    return field.join(S_end * u, u, flint.arb(0))


def replay_projective(field, Z0, taus, order, fail, on_step=None, apriori="picard", on_state=None):
    """The end state of the projective tube from Z_0 along the exact times ``taus`` (fmpq, taus[0] = 0),
    method "qr", at the working precision; ``on_step(τ_i, Z_i)`` after each step.

    Parameters
    ----------
    field : ProjectiveSeries
        The projective field.
    Z0 : flint.arb_mat
        The initial state box (:func:`projective_start`).
    taus : list of flint.fmpq
        The exact projective times, strictly increasing from 0.
    order : int
        The Taylor order k.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    on_step : callable or None
        Called as ``on_step(τ_i, Z_i)`` for i = 0..N.
    apriori : str
        The steps' a priori enclosure, ``"picard"`` or ``"taylor"``
        (:func:`~symbolic_tf.certify.check.tube_replay.replay_step`).
    on_state : callable or None
        Called as ``on_state(τ_i, state)`` with the whole :class:`~symbolic_tf.certify.check.tube_replay.TubeState`.

    Returns
    -------
    flint.arb_mat
        The box Z_N ∋ (X, u, s)(τ_N).
    """
    def step_failed(i, why):
        fail(f"the projective tube's step {i} does not validate ({why})")

    return walk_tube(field, start_state(field, Z0), taus, order, "qr", step_failed, on_step, on_state, apriori)


def projective_end(field, Z):
    """(X, u, s) of an end box, for the ray's end checks.

    Parameters
    ----------
    field : ProjectiveSeries
        The projective field.
    Z : flint.arb_mat
        The state box.

    Returns
    -------
    tuple of (flint.arb_mat, flint.arb, flint.arb)
        (X, u, s).
    """
    return field.split(Z)
