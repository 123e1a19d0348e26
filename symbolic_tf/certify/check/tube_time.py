r"""Checker-side replay of a validated Taylor tube of a covariance flow whose parameters are
polynomials in the depth t — the depth as an extra state with ṫ = 1 (kind ``schedule-phases``,
flow ``tube-t``; docs/schedules.md).

The flow on a schedule segment is

    Σ̇ = f(t, Σ) = F(t)Σ + ΣF(t)ᵀ + Σ_h (C_h(t) Σ A_h(t) Σ + Σ A_h(t)ᵀ Σ C_h(t)ᵀ),

each C_h, A_h, F a matrix of polynomials in t with rational coefficients.  Adjoining t to the
state (ṫ = 1, t(t_i) = t_i exact) makes it autonomous, and the t-component of every enclosure
is the exact point t_i at a step start and the interval [t_i, t_i + h] over a step.  So a step
[t_i, t_i + h] is the step of :mod:`symbolic_tf.certify.check.tube_replay` (Picard test, Lagrange
remainder, "direct" or "qr" wrapping, :func:`~symbolic_tf.certify.check.tube_replay.replay_step`)
with a field whose coefficients depend on t:

* the Taylor coefficients of a parameter at depth τ are P_m(τ) = P⁽ᵐ⁾(τ)/m! (so
  P(τ + s) = Σ_m P_m(τ) sᵐ, finitely many terms); the solution's coefficients follow
  σ_{n+1} = (M_n + M_nᵀ)/(n + 1) with
  M_n = Σ_m F_m σ_{n−m} + Σ_h Σ_{a+b+c+e=n} C_{h,a} σ_b A_{h,c} σ_e (computed as the series of
  (C_h Σ) A_h, then times Σ);
* the order-k Taylor polynomial and the Jacobian of the Taylor map (Lohner "qr") use the
  coefficients at the exact step start τ = t_i: they are the solution's own coefficients there;
* the a priori (Picard) test S + [0, h]·f([t_i, t_i + h], X) ⊆ X and the Lagrange remainder
  h^{k+1}·σ_{k+1} use the coefficients over the whole interval τ ∈ [t_i, t_i + h]: the remainder
  of the solution's component is h^{k+1}·σ_{k+1}(t_i + ξ, Σ(t_i + ξ)) for some ξ ∈ (0, h), the
  coefficient at a depth in the step and a state in the Picard box X — enclosed by evaluating
  P_m on the interval and σ on X (interval extensions contain every value).

Hence, as for constant parameters, the solution exists on the whole replayed interval and
Σ(t_i) lies in the i-th box.  The variational recurrence of the Jacobian is that of the field
at fixed t: D_{n+1} = Σ_{j≤n} G_j D_{n−j}/(n + 1) with G_j the j-th coefficient of
E ↦ Σ_h (C_h E A_h Σ + C_h Σ A_h E) + F E + transpose along the solution (svec coordinates).
No eigenframe is used (the rotation argument of the constant tubes is not needed for soundness).
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ...exact.precision import working_precision
from ...exact.rational import fmpq_of
from .tube_replay import Field, int_in, jacobian_series, replay_step, start_state, svec_basis

__all__ = ["TimeField", "poly_matrix", "replay_time_tube", "MAX_STEPS", "MAX_ORDER"]

MAX_ORDER, MAX_STEPS = 60, 50_000   # as the constant tubes: a hostile certificate cannot make the replay hang


def poly_matrix(rows) -> list:
    """A matrix of schedule leaves (coefficient tuples, constant first) as flint polynomials.

    Parameters
    ----------
    rows : sequence of sequence of tuple of Fraction
        The entries p(t) = Σ c_k t^k as coefficient tuples.

    Returns
    -------
    list of list of flint.fmpq_poly
        The same matrix.
    """
    return [[flint.fmpq_poly([fmpq_of(Fraction(c)) for c in p]) for p in row] for row in rows]


def _coefficients_at(P, tau, n_max):
    """[P_0(τ), …, P_m(τ)] (m ≤ n_max): P_m = P⁽ᵐ⁾/m! of a matrix of fmpq_poly, evaluated at the exact
    fmpq τ (as arb_mat) or on the arb interval τ (Horner in balls); trailing zero orders dropped."""
    d = len(P)
    deg = max(p.degree() for row in P for p in row)
    out = []
    cur = P
    for m in range(min(max(deg, 0), n_max) + 1):
        if isinstance(tau, flint.fmpq):
            out.append(flint.arb_mat(flint.fmpq_mat(d, d, [cur[i][j](tau) for i in range(d) for j in range(d)])))
        else:
            M = flint.arb_mat(d, d)
            for i in range(d):
                for j in range(d):
                    c = cur[i][j].coeffs()
                    acc = flint.arb(0)
                    for x in reversed(c):
                        acc = acc * tau + flint.arb(x)
                    M[i, j] = acc
            out.append(M)
        cur = [[p.derivative() / (m + 1) for p in row] for row in cur]
    return out


class TimeField:
    """The field f(t, Σ) of one step [t_i, t_i + h] (module docstring): coefficients up to the
    step's Taylor order k at the exact t_i; above k (the Lagrange remainder) and in ``__call__``
    (the Picard test) over the whole interval [t_i, t_i + h].

    ``heads`` is a list of (C(t), A(t)) matrices of fmpq_poly (A already scaled by the temperature),
    ``F`` a matrix of fmpq_poly or None."""

    vec = staticmethod(Field.vec)
    unvec = staticmethod(Field.unvec)

    def __init__(self, heads, F, t_start: flint.fmpq, h: flint.fmpq, order: int):
        self.order = order
        span = flint.arb(t_start).union(flint.arb(t_start + h))
        self._at = self._series(heads, F, t_start, order + 1)
        self._over = self._series(heads, F, span, order + 2)

    @staticmethod
    def _series(heads, F, tau, n_max):
        pairs = [(_coefficients_at(C, tau, n_max), _coefficients_at(A, tau, n_max)) for C, A in heads]
        drift = None if F is None else _coefficients_at(F, tau, n_max)
        return pairs, drift

    def __call__(self, X):
        pairs, drift = self._over
        acc = None if drift is None else drift[0] * X
        for C, A in pairs:
            term = C[0] * X * A[0] * X
            acc = term if acc is None else acc + term
        return acc + acc.transpose()

    def coefficients(self, X, upto):
        """Taylor coefficients 0..upto of the solution through (τ, X): τ = t_i exactly when
        upto ≤ k, τ ∈ [t_i, t_i + h] when upto > k (only the remainder asks for order k + 1).

        Parameters
        ----------
        X : flint.arb_mat
            The (ball) state.
        upto : int
            The highest order.

        Returns
        -------
        list of flint.arb_mat
            [σ₀, …, σ_upto].
        """
        pairs, drift = self._at if upto <= self.order else self._over
        sig = [X]
        L = [[] for _ in pairs]    # L[h][m]: coefficient m of C_h Σ
        LA = [[] for _ in pairs]   # LA[h][m]: coefficient m of C_h Σ A_h
        for n in range(upto):
            acc = None
            if drift is not None:
                for m in range(min(n, len(drift) - 1) + 1):
                    term = drift[m] * sig[n - m]
                    acc = term if acc is None else acc + term
            for (C, A), Lh, LAh in zip(pairs, L, LA):
                Lh.append(sum((C[a] * sig[n - a] for a in range(1, min(n, len(C) - 1) + 1)), C[0] * sig[n]))
                LAh.append(sum((Lh[n - c] * A[c] for c in range(1, min(n, len(A) - 1) + 1)), Lh[n] * A[0]))
                for e in range(n + 1):
                    term = LAh[n - e] * sig[e]
                    acc = term if acc is None else acc + term
            sig.append((acc + acc.transpose()) / (n + 1))
        return sig

    def jacobian(self, sig, h):
        """svec Jacobian of the order-k Taylor map over the box sig[0] at the exact t_i
        (:func:`~symbolic_tf.certify.check.tube_replay.jacobian_series` with the variational
        field's coefficients G_j, module docstring).

        Parameters
        ----------
        sig : list of flint.arb_mat
            σ₀..σ_k at t_i (from :meth:`coefficients`).
        h : flint.arb
            The step length.

        Returns
        -------
        flint.arb_mat
            The m×m ball Jacobian, m = d(d+1)/2.
        """
        pairs, drift = self._at
        d = sig[0].nrows()
        basis = svec_basis(d)
        m, k = len(basis), len(sig) - 1
        G = []
        for j in range(k):
            Gj = flint.arb_mat(m, m)
            for f, E in enumerate(basis):
                acc = flint.arb_mat(d, d)
                if drift is not None and j < len(drift):
                    acc += drift[j] * E
                for C, A in pairs:
                    for a in range(min(j, len(C) - 1) + 1):
                        for c in range(min(j - a, len(A) - 1) + 1):
                            s = sig[j - a - c]
                            acc += C[a] * E * A[c] * s + C[a] * s * A[c] * E
                col = Field.vec(acc + acc.transpose())
                for r in range(m):
                    Gj[r, f] = col[r, 0]
            G.append(Gj)
        return jacobian_series(G, h)


def replay_time_tube(heads, F, t_start: Fraction, S0, data: dict, fail):
    """Validate a stored tube (``steps``: exact times from 0, strictly increasing, relative to
    ``t_start``; ``order``; ``tube_prec``; ``method``) and replay it from S0 with the
    t-dependent field (module docstring).

    Parameters
    ----------
    heads : list of (list of list of flint.fmpq_poly, list of list of flint.fmpq_poly)
        (C_h(t), A_h(t)) in the global depth t (A_h scaled by the temperature).
    F : list of list of flint.fmpq_poly or None
        The drift F(t).
    t_start : fractions.Fraction
        The depth at which the tube starts.
    S0 : flint.fmpq_mat or flint.arb_mat
        The state (point or box) at ``t_start``.
    data : dict
        ``steps``, ``order``, ``tube_prec``, ``method``.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed`.

    Returns
    -------
    tuple of (flint.arb_mat, list of flint.fmpq)
        The end box ∋ Σ(t_start + t_N) and the exact relative times t_0 = 0 < … < t_N.
    """
    order = int_in(data["order"], "order", 1, MAX_ORDER, fail)
    tprec = int_in(data["tube_prec"], "tube_prec", 53, 4096, fail)
    method = data["method"]
    if method not in ("direct", "qr"):
        fail(f"unknown tube method {str(method)[:20]!r}")
    steps = data["steps"]
    if not isinstance(steps, list) or not steps or len(steps) > MAX_STEPS + 1:
        fail(f"steps must be a list of 1..{MAX_STEPS + 1} times")
    ts = [fmpq_of(Fraction(x)) for x in steps]
    if ts[0] != 0:
        fail("the first step time must be 0")
    if any(b <= a for a, b in zip(ts, ts[1:])):
        fail("step times must be strictly increasing")
    t0 = fmpq_of(t_start)
    with working_precision(tprec):
        state = start_state(Field([]), S0)
        for i in range(1, len(ts)):
            h = ts[i] - ts[i - 1]
            step = replay_step(TimeField(heads, F, t0 + ts[i - 1], h, order), state, flint.arb(h), order, method)
            if isinstance(step, str):
                fail(f"time-dependent tube step {i} does not validate ({step})")
            state = step
        return state.box, ts
