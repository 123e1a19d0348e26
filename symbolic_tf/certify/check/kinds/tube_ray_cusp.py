"""Checker of ``tube-ray-cusp``: blow-up of *this* Σ₀ with a bracket in d = 2 along a rank-one ray that is
approached without hyperbolic contraction (a Jordan-block V, a zero spectral abscissa, a ray on the boundary of
the cone Σ ⪰ 0) — issue 48.

**Projective coordinates.**  As for ``tube-ray`` (:mod:`.tube_ray`), Σ = X/u with dτ = dt/u solves

    X' = Q(X) + u·L(X) − c·X,   u' = −c·u,   c = tr Q(X) + u·tr L(X),

Q(Σ) = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ), L(Σ) = FΣ + ΣFᵀ.  This kind takes F = 0 or F = f·I (exact), so that
L(X) = 2fX and the X-equation **does not depend on u**: X' = Q(X) − tr Q(X)·X, with c = tr Q(X) + 2f·u on
tr X = 1 (tr X = 1 is invariant: (tr X)' = c(1 − tr X)).  A solution from Σ(t_N) ⪰ 0 keeps X ⪰ 0 (the flow of
Σ is a congruence Σ(t) = Φ(t)Σ(t_N)Φ(t)ᵀ).

**Coordinates of the cusp.**  The certificate stores a rational v ≠ 0 in ℚ² and side σ = ±1; with
n = |v|², w = σ·(−v₂, v₁) (so vᵀw = 0, |w|² = n, vvᵀ + wwᵀ = nI) and tr X = 1,

    p = wᵀXw,   q = vᵀXw,   vᵀXv = n − p,   X = X(p, q) = ((n − p)vvᵀ + q(vwᵀ + wvᵀ) + p·wwᵀ)/n²,

and X ⪰ 0 ⇔ 0 ≤ p ≤ n, (n − p)p ≥ q².  The ray point is X* = X(0, 0) = vvᵀ/n (rank one).  With rationals
K > 0 and q0 > 0 (stored) the **cusp** is

    R = {X ⪰ 0, tr X = 1 : 0 ≤ q ≤ q0, p ≤ K·q²}.

In R, q = 0 forces p ≤ 0 ≤ p, i.e. X = X*: the cusp touches the ray point only at its apex.  Writing
P(p, q) = wᵀX'w and Qd(p, q) = vᵀX'w (polynomials of degree ≤ 3 with rational coefficients), verified
(exact unless "balls", at ``prec`` bits):

1. the tube from the embedded problem's exact Σ₀ ⪰ 0 along the stored times: Σ(t_N) ∈ S_N (as ``tube-ray``);
2. (exact) d = 2, F = 0 or F = f·I, v ≠ 0, side ∈ {1, −1}, K > 0, q0 > 0; X* is an equilibrium:
   P(0, 0) = Qd(0, 0) = 0;
3. (face p = K·q²) G(q) = 2Kq·Qd(Kq², q) − P(Kq², q), a polynomial of degree ≤ 7 whose exact coefficients
   come from exact values at 10 rational nodes (Newton interpolation), is written G = q^k·H with H(0) ≠ 0, and
   H > 0 on [0, q0] (balls over an adaptive bisection of at most ``pieces`` intervals): G > 0 on (0, q0];
4. (face q = q0) Qd(p, q0), of degree ≤ 3 in p (exact coefficients from 5 nodes), is < 0 on [0, K·q0²]
   (balls, bisection as in 3);
5. u₁ = 1/tr S_N > 0 and, over the boxes 0 ≤ q ≤ q0, 0 ≤ p ≤ K·q², 0 ≤ u ≤ upper(u₁) (q bisected as in 3),
   c = tr Q(X(p, q)) + 2f·u has a lower bound c_lo > 0 and an upper bound c_hi;
6. at the end X₁ = S_N/tr S_N: lower(q₁) > 0, upper(q₁) < q0 and upper(p₁ − K·q₁²) < 0;
7. T_lo ≤ t_N + lower(u₁)/c_hi, T_hi ≥ t_N + upper(u₁)/c_lo (exact comparisons), T_lo ≤ T_hi.

**Why this proves the claim.**  The solution (X, u) of the projective field from (X₁, u₁) corresponds to Σ from
Σ(t_N).  X(τ) stays in R for all τ ≥ 0: X(0) ∈ R by 6 (its true value is PSD with trace one), and X(0) ≠ X*
since q₁ > 0.  If X left R, let τ₀ be the supremum of the τ with X([0, τ]) ⊆ R; X(τ₀) ∈ R (closed) and
X(τ₀) ≠ X* (an equilibrium by 2 is not reached in finite time: uniqueness), so q(τ₀) > 0.  If q(τ₀) = q0 then
q' < 0 there (4, p ∈ [0, Kq0²] in R); if p(τ₀) = K·q(τ₀)² then (Kq² − p)' = G(q(τ₀)) > 0 (3); constraints
that are not active stay strict by continuity, and X ⪰ 0, tr X = 1 are invariant.  So X stays in R a little
beyond τ₀ — a contradiction.  R is compact, so X exists for all τ ≥ 0.  While c > 0, u' = −cu ≤ 0, so
u ≤ u₁ and (X, u) stays in the boxes of 5 (the same first-exit argument); hence c ∈ [c_lo, c_hi] for every
τ ≥ 0, u(τ) = u₁·exp(−∫c) → 0 and t(τ) = t_N + ∫₀^τ u increases to t_N + ∫₀^∞ u ∈
[t_N + u₁/c_hi, t_N + u₁/c_lo], while tr Σ = 1/u → ∞.  By uniqueness this is the solution from Σ₀: it blows up
at T* ∈ [T_lo, T_hi] (7).  Nothing asks the ray to attract hyperbolically: along a Jordan block q decays only
like 1/τ and the cusp is where the flow still points inward.  Claim BLOWUP for THIS Σ₀.
"""
from __future__ import annotations

import flint

from ....exact.ball import interval_ball
from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..krawczyk_box import rat
from ..tube_replay import bracket_claim, int_in, replay_point_tube, trace, tube_problem
from .tube_ray import ProjectiveField

KIND = "tube-ray-cusp"
MAX_PIECES = 4096     #: the largest bisection budget a certificate may ask for
_FACE_NODES = 10      # > 7 = deg G
_EDGE_NODES = 5       # > 3 = deg Qd(·, q0)

_bad = refusal(KIND)


class CuspField:
    """The X-field X' = Q(X) − tr Q(X)·X of the module docstring in the cusp coordinates (p, q).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    v : list of flint.fmpq
        The ray direction v ∈ ℚ².
    side : int
        σ = ±1 (w = σ·(−v₂, v₁)).
    """

    def __init__(self, pairs, v, side):
        self.pairs = pairs
        self.v = [flint.fmpq(x) for x in v]
        self.w = [-side * self.v[1], side * self.v[0]]
        self.n = self.v[0] ** 2 + self.v[1] ** 2

    def X(self, p, q, mat):
        """X(p, q) = ((n − p)vvᵀ + q(vwᵀ + wvᵀ) + p·wwᵀ)/n² as a ``mat`` (fmpq_mat or arb_mat).

        Parameters
        ----------
        p, q : flint.fmpq or flint.arb
            The cusp coordinates.
        mat : type
            ``flint.fmpq_mat`` or ``flint.arb_mat``.

        Returns
        -------
        flint.fmpq_mat or flint.arb_mat
            The 2×2 trace-one matrix X(p, q).
        """
        v, w, n = self.v, self.w, self.n
        a = n - p
        ent = [(a * v[i] * v[j] + q * (v[i] * w[j] + w[i] * v[j]) + p * w[i] * w[j]) / (n * n)
               for i in range(2) for j in range(2)]
        return mat(2, 2, ent)

    def rates(self, p, q, mat):
        """(P, Qd) = (wᵀX'w, vᵀX'w) at X(p, q), and c₀ = tr Q(X(p, q)).

        Parameters
        ----------
        p, q : flint.fmpq or flint.arb
            The cusp coordinates.
        mat : type
            ``flint.fmpq_mat`` (exact) or ``flint.arb_mat`` (balls).

        Returns
        -------
        tuple
            (P, Qd, c₀).
        """
        X = self.X(p, q, mat)
        QX = ProjectiveField(self.pairs, None, mat).Q(X)
        c0 = trace(QX)
        D = QX - X * c0
        v, w = self.v, self.w
        P = sum((w[i] * D[i, j] * w[j] for i in range(2) for j in range(2)), 0 * c0)
        Qd = sum((v[i] * D[i, j] * w[j] for i in range(2) for j in range(2)), 0 * c0)
        return P, Qd, c0


def coefficients(f, nodes):
    """The exact monomial coefficients of the polynomial of degree < ``nodes`` through (x, f(x)), x = 0, …,
    nodes − 1 (Newton divided differences over ℚ).

    Parameters
    ----------
    f : callable
        ``f(x)`` for x a flint.fmpq, exact.
    nodes : int
        The number of nodes (more than the degree).

    Returns
    -------
    list of flint.fmpq
        c_0, …, c_{nodes−1}: f(x) = Σ c_k x^k.
    """
    xs = [flint.fmpq(i) for i in range(nodes)]
    dd = [f(x) for x in xs]
    for level in range(1, nodes):
        for i in range(nodes - 1, level - 1, -1):
            dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - level])
    coef = [flint.fmpq(0)] * nodes
    for i in range(nodes - 1, -1, -1):   # Horner on the Newton form: coef ← coef·(x − x_i) + dd_i
        new = [flint.fmpq(0)] * nodes
        for k in range(nodes - 1):
            new[k + 1] += coef[k]
            new[k] -= coef[k] * xs[i]
        new[0] += dd[i]
        coef = new
    return coef


def positive_on(coef, lo, hi, budget, what, fail):
    """Check Σ c_k x^k > 0 for every x ∈ [lo, hi] (exact rational ends): ball Horner over an adaptive
    bisection (depth first, lower half first; a piece whose ball is not positive is halved), failing after
    ``budget`` pieces.

    Parameters
    ----------
    coef : list of flint.fmpq
        The exact coefficients.
    lo, hi : flint.fmpq
        The interval, lo ≤ hi.
    budget : int
        The largest number of pieces examined.
    what : str
        The inequality's name in the failure message.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    stack, seen = [(lo, hi)], 0
    while stack:
        a, b = stack.pop()
        seen += 1
        if seen > budget:
            fail(f"{what} is not verified within {budget} pieces")
        x = interval_ball(a, b)
        acc = flint.arb(0)
        for c in reversed(coef):
            acc = acc * x + flint.arb(c)
        if acc > 0:
            continue
        m = (a + b) / 2
        stack.append((m, b))
        stack.append((a, m))


def strip_zero_root(coef):
    """(k, H): the coefficients with the factor x^k of their lowest nonzero term removed (H(0) ≠ 0).

    Parameters
    ----------
    coef : list of flint.fmpq
        The coefficients (not all zero).

    Returns
    -------
    tuple of (int, list of flint.fmpq)
        k and the coefficients of H = G/x^k.
    """
    k = 0
    while k < len(coef) and coef[k] == 0:
        k += 1
    return k, coef[k:]


def scalar_drift(F, fail):
    """f with F = f·I (0 without drift), or ``fail``.

    Parameters
    ----------
    F : flint.fmpq_mat or None
        The exact drift.
    fail : callable
        ``fail(msg)`` raises (never returns).

    Returns
    -------
    flint.fmpq
        f.
    """
    if F is None:
        return flint.fmpq(0)
    d = F.nrows()
    f = F[0, 0]
    if any(F[i, j] != (f if i == j else 0) for i in range(d) for j in range(d)):
        fail("the drift must be F = f·I (the X-equation then does not depend on u)")
    return flint.fmpq(f)


def cusp_data(data, fail):
    """The exact part of the certificate: (v, side, K, q0, pieces), checked (2 of the module docstring, except
    the equilibrium).

    Parameters
    ----------
    data : dict
        The certificate's data.
    fail : callable
        ``fail(msg)`` raises (never returns).

    Returns
    -------
    tuple
        (v, side, K, q0, pieces).
    """
    v = data["v"]
    if not isinstance(v, list) or len(v) != 2:
        fail("v must be a vector of 2 rationals")
    v = [rat(x) for x in v]
    if v[0] == 0 and v[1] == 0:
        fail("v must be nonzero")
    side = data["side"]
    if side not in (1, -1) or isinstance(side, bool):
        fail("side must be 1 or -1")
    K, q0 = rat(data["K"]), rat(data["q0"])
    if not (K > 0 and q0 > 0):
        fail("K and q0 must be positive")
    pieces = int_in(data.get("pieces", 256), "pieces", 1, MAX_PIECES, fail)
    return v, side, K, q0, pieces


def check_cusp_region(pairs, f, v, side, K, q0, pieces, u_hi, fail):
    """Checks 2 (the equilibrium), 5, 3 and 4 of the module docstring, in this order; returns the arb bounds
    (c_lo, c_hi).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    f : flint.fmpq
        The scalar drift (F = f·I).
    v : list of flint.fmpq
        The ray direction.
    side : int
        ±1.
    K, q0 : flint.fmpq
        The cusp's parameters.
    pieces : int
        The bisection budget of each check.
    u_hi : flint.arb
        An upper bound of u over the region (u₁'s upper end).
    fail : callable
        ``fail(msg)`` raises (never returns).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        (c_lo, c_hi) as exact-point balls, c_lo > 0.
    """
    cf = CuspField(pairs, v, side)
    ex = flint.fmpq_mat
    zero = flint.fmpq(0)
    P0, Q0, _ = cf.rates(zero, zero, ex)
    if P0 != 0 or Q0 != 0:
        fail("the ray point X* = vvᵀ/|v|² is not an equilibrium of X' = Q(X) − tr Q(X)·X (exact)")

    # 5: c over the region, q bisected (each piece's p-range [0, K·q_hi²])
    two_f = flint.arb(2 * f)
    lo_u = two_f * u_hi if f < 0 else flint.arb(0)        # the smallest 2f·u over 0 ≤ u ≤ u_hi
    hi_u = two_f * u_hi if f > 0 else flint.arb(0)        # the largest
    stack, seen = [(zero, q0)], 0
    c_lo = c_hi = None
    while stack:
        a, b = stack.pop()
        seen += 1
        if seen > pieces:
            fail(f"c = tr Q(X) + 2f·u > 0 over the cusp is not verified within {pieces} pieces")
        _P, _Q, c0 = cf.rates(interval_ball(zero, K * b * b), interval_ball(a, b), flint.arb_mat)
        low = c0 + lo_u
        if not (low > 0):
            if b - a < q0 / 2 ** 40:
                fail("the growth rate c = tr Q(X) + 2f·u is not positive over the cusp")
            m = (a + b) / 2
            stack.append((m, b))
            stack.append((a, m))
            continue
        high = c0 + hi_u
        lo_b, hi_b = flint.arb(low.lower()), flint.arb(high.upper())
        c_lo = lo_b if c_lo is None or lo_b < c_lo else c_lo
        c_hi = hi_b if c_hi is None or hi_b > c_hi else c_hi

    def face(q):
        P, Qd, _ = cf.rates(K * q * q, q, ex)
        return 2 * K * q * Qd - P

    coef = coefficients(face, _FACE_NODES)
    if all(c == 0 for c in coef):
        fail("the face p = K·q² is invariant (G ≡ 0): the flow does not cross it inward")
    _k, H = strip_zero_root(coef)
    positive_on(H, zero, q0, pieces, "G(q)/q^k > 0 on the face p = K·q², 0 ≤ q ≤ q0", fail)

    edge = coefficients(lambda p: -cf.rates(p, q0, ex)[1], _EDGE_NODES)
    positive_on(edge, zero, K * q0 * q0, pieces, "q' < 0 on the face q = q0, 0 ≤ p ≤ K·q0²", fail)

    return c_lo, c_hi


def check_cusp_end(pairs, F, S_end, t_end, data, prec, fail):
    """Checks 2 to 7 of the module docstring on the end box ``S_end`` at the exact time ``t_end``; returns
    (lower, upper) arb bounds of T*.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift (F = f·I or None).
    S_end : flint.arb_mat
        The tube's end box (2×2).
    t_end : flint.fmpq
        The exact end time t_N.
    data : dict
        The certificate's data (v, side, K, q0, pieces).
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises (never returns).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        Lower and upper bounds of T* (t_N + u₁/c_hi, t_N + u₁/c_lo).
    """
    if S_end.nrows() != 2:
        fail("d = 2 only")
    f = scalar_drift(F, fail)
    v, side, K, q0, pieces = cusp_data(data, fail)
    with working_precision(prec):
        trS = trace(S_end)
        if not (trS > 0):
            fail("tr Σ(t_N) is not positive on the tube's end box")
        u1 = 1 / trS
        c_lo, c_hi = check_cusp_region(pairs, f, v, side, K, q0, pieces, u1, fail)
        cf = CuspField(pairs, v, side)
        X1 = S_end * u1
        vv, w = cf.v, cf.w
        p1 = sum((w[i] * X1[i, j] * w[j] for i in range(2) for j in range(2)), flint.arb(0))
        q1 = sum((vv[i] * X1[i, j] * w[j] for i in range(2) for j in range(2)), flint.arb(0))
        if not (q1 > 0):
            fail("the tube's end is not strictly inside the cusp: q₁ > 0 is not verified")
        if not (q1 < flint.arb(q0)):
            fail("the tube's end is not inside the cusp: q₁ < q0 is not verified")
        if not (p1 - flint.arb(K) * q1 * q1 < 0):
            fail("the tube's end is not inside the cusp: p₁ < K·q₁² is not verified")
        t = flint.arb(t_end if isinstance(t_end, flint.fmpq) else rat(t_end))
        u_lo = max(u1.lower(), flint.arb(0))
        lo = flint.arb(t.lower()) + flint.arb(u_lo) / c_hi
        hi = flint.arb(t.upper()) + flint.arb(u1.upper()) / c_lo
        return lo, hi


_T = "tests/soundness/forgeries/test_tube_ray_cusp.py::"
HYPOTHESES = (
    Hypothesis("softmax-flow", "The embedded problem's covariance flow is Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + "
               "ΣA_hᵀΣC_hᵀ) of (multi-head) softmax in d = 2, Σ₀ ⪰ 0: the tube and the cusp field are built from "
               "exactly these heads.", _T + "test_cusp_other_problem"),
    Hypothesis("scalar-drift", "F = 0 or F = f·I (exact): the projective X-equation X' = Q(X) − tr Q(X)·X does not "
               "depend on u.", _T + "test_cusp_general_drift"),
    Hypothesis("tube", "The validated Taylor tube replays from the exact Σ₀ along the stored times: Σ(t_N) ∈ S_N.",
               _T + "test_cusp_tube_step_too_long"),
    Hypothesis("cusp-data", "v ∈ ℚ² ∖ {0}, side = ±1, K > 0, q0 > 0: the cusp R = {X ⪰ 0, tr X = 1, 0 ≤ q ≤ q0, "
               "p ≤ K·q²} in the coordinates p = wᵀXw, q = vᵀXw meets the ray point X* = vvᵀ/|v|² only at its "
               "apex.", _T + "test_cusp_data_out_of_range"),
    Hypothesis("ray-equilibrium", "X* is an equilibrium of the X-field (exact), so no solution reaches the apex in "
               "finite time.", _T + "test_cusp_ray_not_an_equilibrium"),
    Hypothesis("face-inward", "On the face p = K·q², 0 < q ≤ q0, (K·q² − p)' = G(q) > 0: G's exact coefficients, "
               "its factor q^k removed, H > 0 on [0, q0] (balls, bisection within the budget).",
               _T + "test_cusp_face_not_inward"),
    Hypothesis("edge-inward", "On the face q = q0, 0 ≤ p ≤ K·q0², q' < 0 (exact coefficients, balls).",
               _T + "test_cusp_edge_not_inward"),
    Hypothesis("growth-rate-positive", "c = tr Q(X) + 2f·u ∈ [c_lo, c_hi] with c_lo > 0 over the cusp and "
               "0 ≤ u ≤ u₁: u decays to 0 and ∫u dτ is finite — the blow-up time.",
               _T + "test_cusp_growth_rate_not_positive"),
    Hypothesis("end-in-cusp", "The tube's end X₁ = S_N/tr S_N has q₁ > 0, q₁ < q0 and p₁ < K·q₁² (balls): the "
               "solution starts in the cusp, away from its apex.", _T + "test_cusp_end_outside"),
    Hypothesis("bracket", "T_lo ≤ t_N + u₁/c_hi and T_hi ≥ t_N + u₁/c_lo (exact comparisons with the balls' end "
               "points), T_lo ≤ T_hi: T* = t_N + ∫u dτ lies in [T_lo, T_hi].", _T + "test_cusp_bracket_too_tight"),
)
_SCHEMA = {"v": "rat[]", "side": "int", "K": "rat", "q0": "rat", "T_lo": "rat", "T_hi": "rat", "prec": "int",
           "steps": "rat[]", "order": "int", "tube_prec": "int", "method": ("enum", "qr", "direct"),
           "pieces?": "int"}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_ray_cusp(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ blows up at a T* ∈ [T_lo, T_hi] (regime BLOWUP,
    quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem ((multi-head) softmax, d = 2, Σ₀ ⪰ 0 exact, F = 0 or f·I).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When d ≠ 2, the drift is not scalar, the tube does not replay, a check fails or [T_lo, T_hi] does not
        contain the derived bracket.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, max_d=2, psd=True)
    if problem.d != 2:
        _bad("d = 2 only")
    scalar_drift(F, _bad)
    cusp_data(cert.data, _bad)
    prec, S_end, ts = replay_point_tube(pairs, F, S0, cert.data, _bad)
    lo, hi = check_cusp_end(pairs, F, S_end, ts[-1], cert.data, prec, _bad)
    return "PROVED", bracket_claim(cert.data, lo, hi, _bad)
