"""Checker of ``tube-ray``: blow-up of *this* Σ₀ with a bracket, for a general (non-symmetric) V,
through a validated tube that enters the basin of an attracting *ray* (issue 15 item 2 (i)).

The covariance flow of (multi-head) softmax with affine drift is

    Σ̇ = L(Σ) + Q(Σ),   L(Σ) = FΣ + ΣFᵀ,   Q(Σ) = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ)

(docs/mathematics.md §8), Q homogeneous quadratic.  **Projective coordinates.**  Write Σ = X/u
(u > 0) and change time by dτ = dt/u.  For the polynomial field on Sym(d) × ℝ

    X' = Q(X) + u·L(X) − c(X, u)·X,   u' = −c(X, u)·u,   c(X, u) = tr Q(X) + u·tr L(X),      (Φ)

any solution (X, u)(τ) with u > 0 gives a solution Σ(t) = X/u of the covariance flow with
t = t₁ + ∫₀^τ u:  dΣ/dt = (X'u − Xu')/u³ = (Q(X) + uL(X))/u² = Q(Σ) + L(Σ) (Q is quadratic, L
linear; the c-terms cancel).  A ray Σ = C/(T* − t) (Q(C) = C, no drift) is an equilibrium
(X*, 0) of Φ; so is its drift analogue.  The certificate stores rationals

    X_star (symmetric d×d), W ((m+1)×(m+1), m = d(d+1)/2), rho, mu, R (m+1 radii),
    T_lo, T_hi, prec, and the tube (steps, order, tube_prec, method)

in the coordinates z = (svec-upper(X − X_star), u) (the coordinate of X on E_ij + E_ji is X_ij).
Verified (balls at ``prec`` bits unless "exact"):

1. *The tube* from the embedded problem's exact Σ₀ along the stored exact times 0 = t_0 < … < t_N
   (:func:`symbolic_tf.certify.check.tube_replay.replay_tube`): the solution exists on [0, t_N] and
   Σ(t_N) ∈ S_N.  tr S_N > 0; u₁ = 1/tr S_N, X₁ = u₁·S_N, z₁ = (svec(X₁ − X_star), u₁).
1′. *Optional projective continuation* (``proj_steps``: exact τ times 0 = τ_0 < … < τ_M, ``proj_order``;
   both or neither): from Z_0 = diag(S_N/tr S_N, 1/tr S_N, 0) the validated tube of
   X' = Q(X) + u·L(X) − c·X, u' = −c·u, s' = u along the stored τ steps, replayed at ``tube_prec``
   bits (:func:`symbolic_tf.certify.check.projective.replay_projective`), encloses (X, u, s)(τ_M);
   then z₁ = (svec(X − X_star), u) and the time t_N + s replace those of step 1 below (the solution
   is Σ = X/u at t = t_N + s, and u > 0 there since u' = −c·u and u(0) > 0).  The optional
   ``proj_apriori`` ("picard", the default, or "taylor") picks the steps' a priori enclosure
   (:mod:`symbolic_tf.certify.check.tube_replay`).
2. (exact) W = Wᵀ ≻ 0, rho > 0, mu > 0, R_k > 0 and rho·(W⁻¹)_kk ≤ R_k²: the ellipsoid
   𝓔 = {zᵀWz ≤ rho} lies in the box |z_k| ≤ R_k.
3. Over the box H = {|svec(X − X_star)_k| ≤ R_k, 0 ≤ u ≤ R_u} (the part of the box hull of 𝓔 with
   u ≥ 0), the ball enclosure 𝐌 of the Jacobian DΦ satisfies −(MᵀW + WM) − 2·mu·W ≻ 0 for every
   M ∈ 𝐌 (ball LDLᵀ).  With the optional ``pieces`` = n > 1, H is instead bisected adaptively
   (:func:`check_contraction_pieces`: a piece whose ball lower bound of zᵀWz exceeds rho holds no
   point of 𝓔 and is dropped; a piece whose ball Jacobian 𝐌_P satisfies the inequality is done;
   any other piece is halved along the coordinate k of largest width²·W_kk, the lowest such k),
   and fails when more than n pieces are examined.
4. (exact) r = Φ(X_star, 0) = (Q(X_star) − tr Q(X_star)·X_star, 0) has rᵀWr < mu²·rho.
5. z₁ᵀWz₁ < rho (upper bound of the ball).
6. c_lo := lower(c(H)) > 0 and lower(tr X over H) > 0; c_hi := upper(c(H)).
7. T_lo ≤ t_N + max(lower(u₁), 0)/c_hi and T_hi ≥ t_N + upper(u₁)/c_lo (exact comparisons with the
   balls' end points; with 1′, t_N + s in place of t_N), T_lo ≤ T_hi.

**Why this proves the claim.**  For z ∈ 𝓔 with u ≥ 0, the segment from z* = (X_star, 0) to z lies
in H, so Φ(z) = r + M̄(z − z*) with M̄ (the mean of DΦ along the segment) in the convex ball 𝐌
(with pieces: each point of the segment lies in 𝓔, hence in a kept piece, so M̄ is a mean of matrices
that each satisfy the inequality of 3, and so does M̄ — λ_min(−(MᵀW + WM) − 2·mu·W) is concave in M);
with E = (z − z*)ᵀW(z − z*), by 3 and Cauchy–Schwarz, Ė = 2(z − z*)ᵀW(r + M̄(z − z*)) ≤
2√E·√(rᵀWr) − 2·mu·E, which is < 0 on the boundary E = rho by 4.  u = 0 is invariant (u' = −cu),
so 𝓔 ∩ {u > 0} is forward invariant and compact: the solution of Φ from z₁ (5) exists for all
τ ≥ 0, stays in H, and u(τ) = u₁·exp(−∫₀^τ c) with c ∈ [c_lo, c_hi] (6).  Hence t(τ) increases to
t_N + ∫₀^∞ u ∈ [t_N + u₁/c_hi, t_N + u₁/c_lo], while ‖Σ‖_F ≥ tr X/(√d·u) → ∞.  By uniqueness this
is the solution from Σ₀: it blows up at T* ∈ [T_lo, T_hi] (7).  Claim BLOWUP for THIS Σ₀.
"""
from __future__ import annotations

import flint

from ....exact.ball import ball_pd, interval_ball
from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..krawczyk_box import rat, square
from ..projective import ProjectiveSeries, projective_start, replay_projective
from ..tube_replay import (bracket_claim, int_in, replay_point_tube, svec_basis, svec_pairs, trace, TUBE_ORDER,
                           tube_problem, TUBE_STEPS)

KIND = "tube-ray"
_MAX_D = 6


_bad = refusal(KIND)


class ProjectiveField:
    """The field Φ of the module docstring over arb (or fmpq) matrices: ``pairs`` [(C_h, A_h)], F."""

    def __init__(self, pairs, F, mat):
        self.pairs = [(mat(C), mat(A)) for C, A in pairs]
        self.F = None if F is None else mat(F)

    def Q(self, X):
        """The quadratic part Q(X) = Σ_h (C_hXA_hX + XA_hᵀXC_hᵀ).

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            A d×d matrix.

        Returns
        -------
        flint.arb_mat or flint.fmpq_mat
            Q(X).
        """
        acc = None
        for C, A in self.pairs:
            t = C * X * A * X
            acc = t if acc is None else acc + t
        return acc + acc.transpose()

    def dQ(self, X, E):
        """The directional derivative DQ(X)[E] = Σ_h (C_hEA_hX + C_hXA_hE) + its transpose.

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            The base point.
        E : flint.arb_mat or flint.fmpq_mat
            The direction.

        Returns
        -------
        flint.arb_mat or flint.fmpq_mat
            DQ(X)[E].
        """
        acc = None
        for C, A in self.pairs:
            t = C * E * A * X + C * X * A * E
            acc = t if acc is None else acc + t
        return acc + acc.transpose()

    def L(self, X):
        """The linear part L(X) = FX + XFᵀ (0 without drift).

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            A d×d matrix.

        Returns
        -------
        flint.arb_mat or flint.fmpq_mat
            L(X).
        """
        if self.F is None:
            return X * 0
        t = self.F * X
        return t + t.transpose()

    def jacobian(self, X, u, basis):
        """Ball (or exact) Jacobian of Φ at (X, u) in the coordinates (svec-upper X, u).

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            The point (a ball box or an exact matrix).
        u : flint.arb or flint.fmpq
            The projective scale u.
        basis : list of matrices
            The svec-upper basis of Sym(d) (E_ii, E_ij + E_ji).

        Returns
        -------
        list of list
            The (m+1)×(m+1) Jacobian of Φ (rows), m = d(d+1)/2, the last coordinate u.
        """
        d = X.nrows()
        up = svec_pairs(d)
        QX, LX = self.Q(X), self.L(X)
        trL = trace(LX)
        c = trace(QX) + u * trL
        cols = []
        for E in basis:
            dQE, LE = self.dQ(X, E), self.L(E)
            dc = trace(dQE) + u * trace(LE)
            top = dQE + LE * u - X * dc - E * c
            cols.append([top[i, j] for i, j in up] + [-u * dc])
        top = LX - X * trL
        cols.append([top[i, j] for i, j in up] + [-c - u * trL])
        n = len(cols)
        return [[cols[cc][rr] for cc in range(n)] for rr in range(n)]

    def c(self, X, u):
        """The scalar c(X, u) = tr Q(X) + u·tr L(X) of Φ.

        Parameters
        ----------
        X : flint.arb_mat or flint.fmpq_mat
            The point.
        u : flint.arb or flint.fmpq
            The projective scale.

        Returns
        -------
        flint.arb or flint.fmpq
            c(X, u).
        """
        return trace(self.Q(X)) + u * trace(self.L(X))


def ellipsoid_data(data, centre_key, d, n, fail):
    """Parse a contracting-ellipsoid certificate's exact part and check it: the centre (``data[centre_key]``)
    symmetric d×d, W = Wᵀ n×n, rho > 0, mu > 0, n radii R_k > 0, W ≻ 0 and rho·(W⁻¹)_kk ≤ R_k² for every k
    (the ellipsoid 𝓔 = {zᵀWz ≤ rho} lies in the box |z_k| ≤ R_k).

    Parameters
    ----------
    data : dict
        The certificate's data (``centre_key``, W, rho, mu, R).
    centre_key : str
        The key of the centre matrix ("X_star", "Sigma_star").
    d : int
        The centre's size.
    n : int
        The number of ellipsoid coordinates (W's size, the number of radii).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat, flint.fmpq_mat, flint.fmpq, flint.fmpq, list of flint.fmpq)
        (centre, W, W⁻¹, rho, mu, R), exact.
    """
    centre = square(data[centre_key], d, centre_key, fail)
    if centre != centre.transpose():
        fail(f"{centre_key} is not symmetric")
    W = square(data["W"], n, "W", fail)
    if W != W.transpose():
        fail("W is not symmetric")
    rho, mu = rat(data["rho"]), rat(data["mu"])
    R = [rat(x) for x in data["R"]]
    if len(R) != n:
        fail(f"R needs {n} radii")
    if not (rho > 0 and mu > 0 and all(x > 0 for x in R)):
        fail("rho, mu and every R_k must be positive")
    if not definiteness(W).pd:
        fail("W is not positive definite (exact)")
    Winv = W.inv()
    for k in range(n):
        if rho * Winv[k, k] > R[k] * R[k]:
            fail(f"the ellipsoid zᵀWz ≤ rho leaves the box in coordinate {k} (rho·(W⁻¹)_kk > R_k²)")
    return centre, W, Winv, rho, mu, R


def check_residual(rv, W, mu, rho, what, fail):
    """Check (exactly) rᵀWr < mu²·rho for the residual r of the field at the ellipsoid's centre.

    Parameters
    ----------
    rv : flint.fmpq_mat
        The residual r as a column.
    W : flint.fmpq_mat
        The ellipsoid's matrix.
    mu, rho : flint.fmpq
        The contraction rate and the level.
    what : str
        The centre's name in the failure message ("the ray point", "the centre").
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    if not (rv.transpose() * W * rv)[0, 0] < mu * mu * rho:
        fail(f"{what}'s residual is too large for the contraction rate (rᵀWr ≥ mu²·rho)")


def centre_box(centre, R, up):
    """The symmetric ball matrix H with H_ij = H_ji = centre_ij ± R_k for the k-th pair (i, j) of ``up``
    (at the working precision).

    Parameters
    ----------
    centre : flint.fmpq_mat
        The exact d×d centre.
    R : list of flint.fmpq
        The radii (at least one per pair; extra ones are ignored).
    up : list of (int, int)
        The svec-upper pairs (i, j), i ≤ j.

    Returns
    -------
    flint.arb_mat
        H ⊇ {X symmetric : |X_ij − centre_ij| ≤ R_k}.
    """
    d = centre.nrows()
    H = flint.arb_mat(d, d)
    for k, (i, j) in enumerate(up):
        H[i, j] = H[j, i] = flint.arb(centre[i, j]) + flint.arb(0, flint.arb(R[k]).upper())
    return H


def check_contraction(J, Wb, mu, fail):
    """Check −(MᵀW + WM) − 2·mu·W ≻ 0 for every M in the ball Jacobian J (ball LDLᵀ).

    Parameters
    ----------
    J : flint.arb_mat
        The ball enclosure of the Jacobian over the box.
    Wb : flint.arb_mat
        W as a ball matrix.
    mu : flint.fmpq
        The contraction rate.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    if not _contracts(J, Wb, mu):
        fail("−(MᵀW + WM) − 2·mu·W ≻ 0 is not verified over the box (ball LDLᵀ)")


def _contracts(J, Wb, mu) -> bool:
    """Whether −(MᵀW + WM) − 2·mu·W ≻ 0 is verified for every M in the ball matrix J (ball LDLᵀ)."""
    return ball_pd(-(J.transpose() * Wb + Wb * J) - Wb * (2 * flint.arb(mu))) is True


def check_ray_end(pairs, F, S_end, t_end, data, prec, fail):
    """Checks 1 (after the tube) to 7 of the module docstring on the end box ``S_end`` (arb_mat) at
    the exact time ``t_end``; returns (lower, upper) arb bounds of T*.  ``fail`` raises.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h), A_h scaled by the temperature.
    F : flint.fmpq_mat or None
        The exact drift, or None.
    S_end : flint.arb_mat
        The tube's end box.
    t_end : flint.fmpq or fractions.Fraction
        The exact end time t_N of the tube.
    data : dict
        The certificate's data (X_star, W, rho, mu, R).
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        Lower and upper bounds of the blow-up time T* (t_N + u₁/c_hi, t_N + u₁/c_lo).
    """
    with working_precision(prec):
        trS = trace(S_end)
        if not (trS > 0):
            fail("tr Σ(t_N) is not positive on the tube's end box")
        u1 = 1 / trS
        t = flint.arb(t_end if isinstance(t_end, flint.fmpq) else rat(t_end))
        return check_ray_state(pairs, F, S_end * u1, u1, t, data, prec, fail)


def check_ray_state(pairs, F, X1, u1, t1, data, prec, fail):
    """Checks 2 to 7 of the module docstring for a projective end state: the box (X1, u1) ∋ (X, u) at
    a time in the ball ``t1`` (the solution's Σ = X/u, u > 0 there); returns (lower, upper) arb bounds
    of T*.  ``fail`` raises.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift, or None.
    X1 : flint.arb_mat
        The box of X, where Σ = X/u (X = Σ/tr Σ for a covariance box).
    u1 : flint.arb
        The ball of u (its true value is positive).
    t1 : flint.arb
        The ball of the time at which the state is enclosed.
    data : dict
        The certificate's data (X_star, W, rho, mu, R).
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        Lower and upper bounds of T* (t1 + u₁/c_hi, t1 + u₁/c_lo, outward).
    """
    d = X1.nrows()
    m = d * (d + 1) // 2
    Xs, W, _Winv, rho, mu, R = ellipsoid_data(data, "X_star", d, m + 1, fail)
    # 4. the residual of the (rational) ray point, exactly
    ex = ProjectiveField(pairs, F, flint.fmpq_mat)
    QX = ex.Q(Xs)
    rX = QX - Xs * trace(QX)
    up = svec_pairs(d)
    rv = flint.fmpq_mat(m + 1, 1, [rX[i, j] for i, j in up] + [0])
    check_residual(rv, W, mu, rho, "the ray point", fail)
    with working_precision(prec):
        bf = ProjectiveField(pairs, F, flint.arb_mat)
        H = centre_box(Xs, R, up)
        half = flint.arb(R[m] / 2)
        uH = half + flint.arb(0, half.upper())   # ⊇ [0, R_u]
        Wb = flint.arb_mat(W)
        # 6 before 3: cheap, and each names its own hypothesis when a box is too large for both
        c = bf.c(H, uH)
        trH = trace(H)
        if not (trH > 0):
            fail("tr X is not positive over the box (‖Σ‖ ≥ tr X/(√d·u) → ∞ is not proved)")
        if not (c > 0):
            fail("the growth rate c = tr Q(X) + u·tr L(X) is not positive over the box")
        pieces = int_in(data.get("pieces", 1), "pieces", 1, MAX_PIECES, fail)
        if pieces == 1:
            check_contraction(flint.arb_mat(bf.jacobian(H, uH, svec_basis(d))), Wb, mu, fail)
        else:
            check_contraction_pieces(bf, Xs, R, W, rho, mu, pieces, fail)
        # 5. the end state in projective coordinates
        z1 = flint.arb_mat(m + 1, 1, [X1[i, j] - Xs[i, j] for i, j in up] + [u1])
        E1 = (z1.transpose() * Wb * z1)[0, 0]
        if not (E1 < flint.arb(rho)):
            fail("the tube's end is not inside the certified ellipsoid (z₁ᵀWz₁ < rho fails)")
        # 7. the bracket (u > 0 at the end: lower(u₁) may be replaced by 0)
        c_lo = flint.arb(c.lower())
        c_hi = flint.arb(c.upper())
        u_lo = max(u1.lower(), flint.arb(0))
        lo = flint.arb(t1.lower()) + flint.arb(u_lo) / c_hi
        hi = flint.arb(t1.upper()) + flint.arb(u1.upper()) / c_lo
        return lo, hi


def check_contraction_pieces(bf, Xs, R, W, rho, mu, budget, fail):
    """Check 3 of the module docstring piecewise, by adaptive bisection of the box H (svec coordinates
    |z_k| ≤ R_k, and 0 ≤ u ≤ R_u).

    A piece (exact rational bounds) is dropped when the ball lower bound of zᵀWz over it exceeds rho
    (no point of the ellipsoid lies in it), done when its ball Jacobian passes
    :func:`check_contraction`, and otherwise halved along the coordinate k with the largest
    width_k²·W_kk (the lowest such k).  Depth first, the lower half first; fails when more than
    ``budget`` pieces are examined.  The procedure is deterministic: the search and the checker
    examine the same pieces.

    Parameters
    ----------
    bf : ProjectiveField
        The field over arb matrices.
    Xs : flint.fmpq_mat
        The exact centre X_star.
    R : list of flint.fmpq
        The m + 1 radii (the last one bounds u).
    W : flint.fmpq_mat
        The exact ellipsoid matrix.
    rho, mu : flint.fmpq
        The level and the contraction rate.
    budget : int
        The largest number of pieces examined.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    d = Xs.nrows()
    up = svec_pairs(d)
    m = len(up)
    basis = svec_basis(d)
    Wb = flint.arb_mat(W)
    rho_b = flint.arb(rho)
    weight = [W[k, k] for k in range(m + 1)]
    stack = [[(-R[k], R[k]) for k in range(m)] + [(R[m] * 0, R[m])]]
    seen = 0
    while stack:
        piece = stack.pop()
        seen += 1
        if seen > budget:
            fail(f"the piecewise contraction check needs more than {budget} pieces")
        z = [_interval(lo, hi) for lo, hi in piece]
        zc = flint.arb_mat(m + 1, 1, z)
        if (zc.transpose() * Wb * zc)[0, 0] > rho_b:
            continue   # no point of the ellipsoid in this piece
        P = flint.arb_mat(d, d)
        for k, (i, j) in enumerate(up):
            P[i, j] = P[j, i] = flint.arb(Xs[i, j]) + z[k]
        if _contracts(flint.arb_mat(bf.jacobian(P, z[m], basis)), Wb, mu):
            continue
        widths = [(hi - lo) * (hi - lo) * weight[k] for k, (lo, hi) in enumerate(piece)]
        k = max(range(m + 1), key=lambda j: (widths[j], -j))
        lo, hi = piece[k]
        mid = (lo + hi) / 2
        stack.append(piece[:k] + [(mid, hi)] + piece[k + 1:])
        stack.append(piece[:k] + [(lo, mid)] + piece[k + 1:])


_interval = interval_ball   # a ball containing the exact interval [lo, hi] (fmpq ends)


MAX_PIECES = 8192   #: the largest piece budget a certificate may ask for

_T = "tests/soundness/forgeries/test_ray.py::"
# worded like tube-singular-equilibrium's shared steps, each kind keeps its own (distinct forgery tests)
HYPOTHESES = (
    Hypothesis("softmax-flow", "The embedded problem's covariance flow is the quadratic field Σ̇ = FΣ + ΣFᵀ + "
               "Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) of (multi-head) softmax, a drift F allowed: Φ and the tube are built "
               "from exactly these heads and this drift.", _T + "test_ray_other_variant"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t (no schedule): Φ is autonomous.",
               _T + "test_ray_schedule"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ along the stored times 0 = t₀ < … < t_N: "
               "the solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.", _T + "test_ray_tube_step_too_long"),
    Hypothesis("sigma-nonzero", "tr S_N > 0, so u₁ = 1/tr Σ(t_N) is a finite positive projective scale; "
               "Σ₀ = 0 is the equilibrium 0 and does not blow up.", _T + "test_ray_sigma0_zero"),
    Hypothesis("projective-tube", "When the projective continuation is stored, proj_steps and proj_order are both "
               "given and the validated tube of (X, u, s) replays from (S_N/tr S_N, 1/tr S_N, 0); its end state and "
               "time t_N + s replace those of the covariance tube.", _T + "test_ray_projective_step_too_long"),
    Hypothesis("W-positive-definite", "W = Wᵀ ≻ 0 (exact), rho > 0, mu > 0 and every R_k > 0: 𝓔 = {zᵀWz ≤ rho} is a "
               "compact ellipsoid around the ray point (X_star, 0).", _T + "test_ray_W_indefinite"),
    Hypothesis("ellipsoid-in-box", "rho·(W⁻¹)_kk ≤ R_k² for every k: 𝓔 lies in the box H over which the field, "
               "its Jacobian, c and tr X are bounded.", _T + "test_ray_ellipsoid_leaves_the_box"),
    Hypothesis("trace-positive", "tr X > 0 over H, so ‖Σ‖_F ≥ tr X/(√d·u) → ∞ as u → 0.",
               _T + "test_ray_trace_not_positive_over_the_box"),
    Hypothesis("growth-rate-positive", "c = tr Q(X) + u·tr L(X) ∈ [c_lo, c_hi] with c_lo > 0 over H: "
               "u = u₁·exp(−∫c) decays to 0 and ∫u dτ is finite — the blow-up time.",
               _T + "test_ray_growth_rate_not_positive_over_the_box"),
    Hypothesis("contraction", "−(MᵀW + WM) − 2·mu·W ≻ 0 for every M in the ball Jacobian of Φ over H ∩ {u ≥ 0} "
               "(with pieces > 1: over every piece of the deterministic bisection that meets 𝓔, within the budget).",
               _T + "test_ray_contraction_rate_too_large"),
    Hypothesis("residual", "rᵀWr < mu²·rho for r = Φ(X_star, 0) (exact): with the contraction, Ė < 0 on the "
               "boundary of 𝓔, so 𝓔 ∩ {u > 0} is forward invariant.", _T + "test_ray_residual_too_large"),
    Hypothesis("end-in-ellipsoid", "z₁ᵀWz₁ < rho: the tube's end, in projective coordinates (X₁, u₁), lies inside 𝓔.",
               _T + "test_ray_tube_ends_outside_the_ellipsoid"),
    Hypothesis("bracket", "T_lo ≤ t_N + u₁/c_hi and T_hi ≥ t_N + u₁/c_lo (exact comparisons with the balls' end "
               "points; t_N + s after a projective continuation), T_lo ≤ T_hi: T* = t_N + ∫u dτ lies in [T_lo, T_hi].",
               _T + "test_ray_bracket_tighter_than_proved"),
)
_SCHEMA = {"X_star": "rat[][]", "W": "rat[][]", "rho": "rat", "mu": "rat", "R": "rat[]", "T_lo": "rat",
           "T_hi": "rat", "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct"), "pieces?": "int", "proj_steps?": "rat[]", "proj_order?": "int",
           "proj_apriori?": ("enum", "picard", "taylor")}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_ray(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ blows up at a T* ∈ [T_lo, T_hi] (regime
    BLOWUP, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem ((multi-head) softmax, with Σ₀ ⪰ 0 exact).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When d exceeds the limit, the tube does not replay, a check fails or [T_lo, T_hi] does not contain
        the derived bracket.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, max_d=_MAX_D)
    data = cert.data
    prec, S_end, ts = replay_point_tube(pairs, F, S0, data, _bad)
    if "proj_steps" in data or "proj_order" in data:
        X1, u1, t1 = replay_projective_part(pairs, F, S_end, ts[-1], data, _bad)
        lo, hi = check_ray_state(pairs, F, X1, u1, t1, data, prec, _bad)
    else:
        lo, hi = check_ray_end(pairs, F, S_end, ts[-1], data, prec, _bad)
    return "PROVED", bracket_claim(data, lo, hi, _bad)


def replay_projective_part(pairs, F, S_end, t_end, data, fail):
    """Check 1′ of the module docstring: the projective continuation (``proj_steps``, ``proj_order``) from
    the covariance tube's end box, replayed at ``tube_prec`` bits (:mod:`.projective`); returns the end
    state (X, u) and the ball t_N + s of its time.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift, or None.
    S_end : flint.arb_mat
        The covariance tube's end box.
    t_end : flint.fmpq
        The covariance tube's exact end time t_N.
    data : dict
        The certificate's data.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.arb_mat, flint.arb, flint.arb)
        (X, u, t) at the end of the projective tube.
    """
    if "proj_steps" not in data or "proj_order" not in data:
        fail("proj_steps and proj_order go together")
    order = int_in(data["proj_order"], "proj_order", 1, TUBE_ORDER, fail)
    steps = data["proj_steps"]
    if not isinstance(steps, list) or len(steps) < 2 or len(steps) > TUBE_STEPS + 1:
        fail(f"proj_steps must be a list of 2..{TUBE_STEPS + 1} times")
    taus = [rat(x) for x in steps]
    if taus[0] != 0:
        fail("the first projective time must be 0")
    if any(b <= a for a, b in zip(taus, taus[1:])):
        fail("projective times must be strictly increasing")
    tprec = int_in(data["tube_prec"], "tube_prec", 53, 4096, fail)
    with working_precision(tprec):
        field = ProjectiveSeries(pairs, F)
        Z = replay_projective(field, projective_start(field, S_end, fail), taus, order, fail,
                              apriori=data.get("proj_apriori", "picard"))
        X, u, s = field.split(Z)
        return X, u, flint.arb(t_end) + s
