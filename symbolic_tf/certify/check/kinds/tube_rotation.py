"""Checker of ``tube-rotation``: blow-up of *this* Σ₀ with a bracket when the blow-up *rotates*
(d = 2, without or with a drift F; issue 15 item 2 (ii)).  The argument without drift comes
first; the drift version (the stored ``u_max``) is at the end.

Without drift the flow Σ̇ = Q(Σ) = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) is homogeneous quadratic.  In the
projective coordinates of :mod:`symbolic_tf.certify.check.kinds.tube_ray` (Σ = X/u, dτ = dt/u) with
tr X = 1,

    X' = Q(X) − c(X)·X,   u' = −c(X)·u,   c(X) = tr Q(X),

and the plane X = ½[[1 + p, q], [q, 1 − p]] (tr X' = c(1 − tr X) = 0 keeps tr X = 1);
(p, q) = r(cos ψ, sin ψ), r ≤ 1 ⇔ X ⪰ 0, r = 1 the rank-one matrices (ψ = twice the angle of the
top eigenvector).  When V has no real eigenvector the rank-one circle carries no ray: the
direction keeps turning and Σ grows in bursts, one per half-turn of the eigenvector.  A
rotation-averaged growth functional certifies it: with a trigonometric polynomial
φ(ψ) = Σ_k (a_k cos kψ + b_k sin kψ) (stored rationals ``phi_a``, ``phi_b``) and
G = −log u + φ(ψ),

    G' = c + φ'(ψ)·ψ',   ψ' = (p q' − q p')/r².

The circle need not attract at every ψ, only on average: the distance to it is measured by
D = (1 − r²)·e^{η(ψ)} with a second trigonometric polynomial η (``eta_a``, ``eta_b``; η = 0 gives
an annulus), and N = {D ≤ D0, r ≤ 1}.  Verified, in balls at ``prec`` bits, with [0, 2π] cut into
``n_psi`` pieces (a ball π; a piece on which check 2 or 3 fails is bisected, deterministically,
at most ``max_depth`` times) and, per piece, [r_b, 1] into ``n_r`` pieces, where r_b = the lower
bound over the piece of the boundary radius √(1 − D0·e^{−η(ψ)}):

1. d = 2, Σ₀ ⪰ 0 (exact); 0 < D0 < 1; no drift and no ``u_max`` (the drift case is below);
2. *invariance*: on the boundary D = D0, i.e. at r = √(1 − D0e^{−η(ψ)}) for ψ in each piece,
   2(tr K(X) − c(X)) + η'(ψ)·ψ' < 0, where K(X) = Σ_h C_hXA_h.  Since Σ̇ = KΣ + ΣKᵀ,
   (log det Σ)˙ = 2 tr K(Σ), and det X = u²det Σ = (1 − r²)/4, the factor (1 − r²) divides exactly:
   (1 − r²)' = 2(tr K(X) − c(X))·(1 − r²), so D' = D·(2(tr K − c) + η'ψ') < 0 there (a form with
   no cancellation near the circle, where (r²)' itself vanishes);
3. *growth*: κ_lo := lower(hull of G') > 0 over the pieces of N (of N' with a drift, below); κ_hi := its upper bound;
   φ_lo, φ_hi := the bounds of the hull of φ over the ψ-pieces;
4. *the tube* (:func:`symbolic_tf.certify.check.tube_replay.replay_tube`, exact times) from Σ₀:
   Σ(t_N) ∈ S_N; tr S_N > 0; u₁ = 1/tr S_N; (p₁, q₁) from X₁ = u₁S_N; r₁² = p₁² + q₁² > 0 and
   (1 − r₁²)·e^{η(ψ₁)} < D0, with φ₁, η₁ evaluated at e^{iψ₁} = (p₁ + iq₁)/r₁ (complex balls, no
   angle needed);
5. T_lo ≤ t_N + u₁·e^{φ_lo − φ₁}/κ_hi and T_hi ≥ t_N + u₁·e^{φ_hi − φ₁}/κ_lo.

**Why.**  Σ(t) = Φ(t)Σ₀Φ(t)ᵀ stays ⪰ 0, so X(τ) has r ≤ 1; by 2 it cannot cross D = D0 outward,
so it stays in N (compact, r ≥ min r_b > 0) for all τ ≥ 0 and G(τ) ∈ G₁ + [κ_lo, κ_hi]·τ.  Hence u(τ) = e^{φ(ψ(τ)) − G(τ)}
decays exponentially, t(τ) = t_N + ∫₀^τ u increases to T* ∈ [t_N + u₁e^{φ_lo − φ₁}/κ_hi,
t_N + u₁e^{φ_hi − φ₁}/κ_lo], and tr Σ = 1/u → ∞: the solution from Σ₀ blows up at T* (the map
(X, u) ↦ X/u sends solutions of the projective field to solutions of Σ̇ = Q(Σ), see
:mod:`symbolic_tf.certify.check.kinds.tube_ray`).  Claim BLOWUP for THIS Σ₀ with T* ∈ [T_lo, T_hi].

**With a drift F ≠ 0** (Σ̇ = FΣ + ΣFᵀ + Q(Σ)) the projective field is

    X' = Q(X) + u·L(X) − c̃·X,   u' = −c̃·u,   c̃ = tr Q(X) + u·tr L(X),   L(X) = FX + XFᵀ,

and Q(X) + uL(X) = K̃X + XK̃ᵀ with K̃ = K(X) + u·F; (p', q', c̃, tr K̃) are computed from K̃
exactly as (p', q', c, tr K) from K, so checks 2–3 read the same with the tilded quantities
((log det Σ)˙ = 2 tr(K(Σ) + F), hence (1 − r²)' = 2(tr K̃ − c̃)(1 − r²)), and they are verified
with u the ball [0, u_max] (the stored positive rational ``u_max``, required exactly when F ≠ 0
and refused without drift), over N' = {D ≤ D0, r ≤ 1, 0 < u ≤ u_max}.  c̃ need not be positive
on N' (c changes sign along the circle; only its average is positive), so u may grow for a while
and u₁ ≤ u_max does not keep the state in N'.  The extra check is

4'. u₁·e^{φ_hi − φ₁} < u_max (upper bound of the ball).

*Why.*  Let τ_e be the first time the state leaves N' (∞ if never).  On [0, τ_e), G' ≥ κ_lo > 0,
so G ≥ G₁ and u = e^{φ − G} ≤ u₁e^{φ_hi − φ₁} < u_max by 4'; D cannot reach D0 from below
(D' < 0 on D = D0 for every u ∈ [0, u_max], check 2), r ≤ 1 as before, and u > 0 (u' = −c̃u).  So
the state stays in a compact subset of N' and τ_e = ∞; the solution of the projective field
exists for all τ ≥ 0 and G' ∈ [κ_lo, κ_hi] throughout.  Check 5 and the rest of the argument are
unchanged (dt = u dτ, u = e^{φ − G}), with κ_lo, κ_hi the bounds over N'.
"""
from __future__ import annotations

import flint

from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..krawczyk_box import rat
from ..tube_replay import TUBE_ORDER, TUBE_STEPS, bracket_claim, int_in, replay_stored, tube_problem

KIND = "tube-rotation"
MAX_ORDER, MAX_STEPS = TUBE_ORDER, TUBE_STEPS
_MAX_K = 64
_MAX_PIECES = 1 << 16


_bad = refusal(KIND)


class PlaneField:
    """(p', q', c̃, tr K̃) of the projective field on the trace-one plane, over arb balls
    (K̃ = Σ_h C_hXA_h + u·F, so that Q(X) + u·L(X) = K̃X + XK̃ᵀ; F = None: no drift, u unused)."""

    def __init__(self, pairs, F=None):
        self.pairs = [(flint.arb_mat(C), flint.arb_mat(A)) for C, A in pairs]
        self.F = None if F is None else flint.arb_mat(F)

    def __call__(self, p, q, u=None):
        half = flint.arb(flint.fmpq(1, 2))
        X = flint.arb_mat([[half * (1 + p), half * q], [half * q, half * (1 - p)]])
        K = None
        for C, A in self.pairs:
            t = C * X * A
            K = t if K is None else K + t
        if self.F is not None:
            K = K + self.F * u
        KX = K * X
        Q = KX + KX.transpose()
        c = Q[0, 0] + Q[1, 1]
        Xd = Q - X * c
        return Xd[0, 0] - Xd[1, 1], 2 * Xd[0, 1], c, K[0, 0] + K[1, 1]


def _trig_polys(a, b):
    """The complex polynomials P(z) = Σ_k (a_k − i b_k) z^k and P'(z) = Σ_k k(b_k + i a_k) z^k (arb
    coefficients), so that φ(ψ) = Re P(e^{iψ}) and φ'(ψ) = Re P'(e^{iψ}) for the trigonometric
    polynomial φ(ψ) = Σ_k a_k cos kψ + b_k sin kψ; evaluated in balls by Arb (Horner)."""
    value = [flint.acb(0)] + [flint.acb(ak, -bk) for ak, bk in zip(a, b)]
    slope = [flint.acb(0)] + [flint.acb(k * bk, k * ak) for k, (ak, bk) in enumerate(zip(a, b), start=1)]
    return flint.acb_poly(value), flint.acb_poly(slope)


def _phi_sum(a, b, z):
    """φ(ψ) at z = e^{iψ} (acb ball): Re Σ_k (a_k − i b_k) z^k."""
    return _trig_polys(a, b)[0](z).real


def _pieces(lo, hi, n):
    """n balls covering [lo, hi] (arb endpoints)."""
    out = []
    for j in range(n):
        a = lo + (hi - lo) * flint.arb(flint.fmpq(j, n))
        b = lo + (hi - lo) * flint.arb(flint.fmpq(j + 1, n))
        mid = (a + b) / 2
        out.append(mid + flint.arb(0, ((b - a) / 2).upper() + mid.rad()))
    return out


def u_ball(u_max):
    """A ball containing [0, u_max] (None when u_max is None: no drift).

    Parameters
    ----------
    u_max : flint.fmpq or None
        The largest projective scale u of the region N' (drift only).

    Returns
    -------
    flint.arb or None
        A ball ⊇ [0, u_max].
    """
    if u_max is None:
        return None
    h = flint.arb(u_max) / 2
    return h + flint.arb(0, h.upper())


def _piece_values(f, psi, D0b, eta_p, phi_p, n_r, sign=1, u=None):
    """(failure, G hull, φ hull) over one ψ-piece (and u in the ball ``u``): failure is None when
    checks 2–3 hold there, else which one is not verified — ``"boundary"`` (D0·e^{−η} < 1, the
    boundary radius is real and positive), ``"invariance"`` (check 2) or ``"growth"`` (check 3,
    sign·G' > 0).  ``eta_p``, ``phi_p``: :func:`_trig_polys` of η and φ."""
    cs, sn = psi.cos(), psi.sin()
    z = flint.acb(cs, sn)
    et, det = eta_p[0](z).real, eta_p[1](z).real
    # 2. invariance on the boundary D = D0, r = √(1 − D0·e^{−η})
    delta = D0b * (-et).exp()
    if not (delta < 1):
        return "boundary", None, None
    rb = (1 - delta).sqrt()
    p, q = rb * cs, rb * sn
    dp, dq, c, trK = f(p, q, u)
    rate = 2 * (trK - c) + det * (p * dq - q * dp) / (p * p + q * q)
    if not (rate < 0):
        return "invariance", None, None
    ph, dph = phi_p[0](z).real, phi_p[1](z).real
    G_hull = None
    for r in _pieces(flint.arb(rb.lower()), flint.arb(1), n_r):
        p, q = r * cs, r * sn
        dp, dq, c, _ = f(p, q, u)
        G = c + dph * (p * dq - q * dp) / (p * p + q * q)
        if not (G * sign > 0):
            return "growth", None, None
        G_hull = G if G_hull is None else G_hull.union(G)
    return None, G_hull, ph


def _piece_failure(why, k, depth, sign):
    """The one-line reason a ψ-piece failed, naming the hypothesis."""
    where = f"on the ψ-piece {k} (after {depth} bisections)"
    if why == "boundary":
        return f"the boundary of N leaves the disc: D0·e^(−η(ψ)) < 1 is not verified {where}"
    if why == "invariance":
        return f"invariance of N: D' = D·(2(tr K − c) + η'ψ') < 0 on the boundary D = D0 is not verified {where}"
    if sign > 0:
        return f"growth: G' = c + φ'ψ' > 0 is not verified over N {where}"
    return f"decay: G' = c + φ'ψ' < 0 is not verified over N {where}"


def region_bounds(pairs, D0, eta, phi, n_psi, n_r, prec, fail, max_depth=0, sign=1, F=None, u_max=None):
    """Checks 2–3 of the module docstring; returns (κ_lo, κ_hi, φ_lo, φ_hi) as arb bounds.
    With a drift F the field carries the u-terms and u ranges over the ball [0, u_max].
    ``eta`` and ``phi`` are (a, b) coefficient lists.  A ψ-piece on which a check is not
    verified is bisected (deterministically, at most ``max_depth`` times) before failing.
    ``sign = −1`` verifies G' < 0 instead (the rotating collapse of ``tube-rotation-collapse``).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads' exact (C_h, A_h), A_h scaled by the temperature.
    D0 : flint.fmpq
        The level D0 ∈ (0, 1) of N = {D ≤ D0, r ≤ 1}.
    eta, phi : tuple of (list, list)
        The trigonometric polynomials η and φ as coefficient lists (a_k, b_k).
    n_psi : int
        The number of ψ-pieces of [0, 2π].
    n_r : int
        The number of r-pieces of [r_b, 1] per ψ-piece.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    max_depth : int
        The largest number of bisections of a failing ψ-piece.
    sign : int
        +1 to verify the growth G' > 0 (``tube-rotation``), −1 for the decay G' < 0.
    F : flint.fmpq_mat or None
        The exact drift (None: no drift; then ``u_max`` is None too).
    u_max : flint.fmpq or None
        With a drift, the largest u of N' = {D ≤ D0, r ≤ 1, 0 < u ≤ u_max}.

    Returns
    -------
    tuple of 4 flint.arb
        (κ_lo, κ_hi, φ_lo, φ_hi): the bounds of G' over N (N') and of φ over the ψ-pieces.
    """
    if (F is None) != (u_max is None):
        fail("a drift F needs u_max, and u_max needs a drift")
    with working_precision(prec):
        f = PlaneField(pairs, F)
        u = u_ball(u_max)
        eta_p = _trig_polys(*([flint.arb(x) for x in v] for v in eta))
        phi_p = _trig_polys(*([flint.arb(x) for x in v] for v in phi))
        D0b = flint.arb(D0)
        G_hull = ph_hull = None   # unions (never a float min/max of overlapping balls)
        stack = [(k, psi, 0) for k, psi in enumerate(_pieces(flint.arb(0), 2 * flint.arb.pi(), n_psi))]
        stack.reverse()
        while stack:
            k, psi, depth = stack.pop()
            why, G, ph = _piece_values(f, psi, D0b, eta_p, phi_p, n_r, sign, u)
            if why is not None:
                if depth >= max_depth:
                    fail(_piece_failure(why, k, depth, sign))
                lo, hi = psi.mid() - psi.rad(), psi.mid() + psi.rad()
                halves = _pieces(flint.arb(lo.lower()), flint.arb(hi.upper()), 2)
                stack.extend([(k, halves[1], depth + 1), (k, halves[0], depth + 1)])
                continue
            G_hull = G if G_hull is None else G_hull.union(G)
            ph_hull = ph if ph_hull is None else ph_hull.union(ph)
        return G_hull.lower(), G_hull.upper(), ph_hull.lower(), ph_hull.upper()


def end_point(S_end, D0, eta, phi, fail):
    """Check 4 on the tube's end box (at the working precision): (u₁, φ₁) as balls.

    Parameters
    ----------
    S_end : flint.arb_mat
        The tube's end box S_N (2×2).
    D0 : flint.fmpq
        The level D0 ∈ (0, 1) of N = {D ≤ D0, r ≤ 1}.
    eta, phi : tuple of (list, list)
        The trigonometric polynomials η and φ as coefficient lists (a_k, b_k).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        (u₁, φ₁) = (1/tr S_N, φ(ψ₁)), once r₁ > 0 and (1 − r₁²)e^{η(ψ₁)} < D0.
    """
    tr = S_end[0, 0] + S_end[1, 1]
    if not (tr > 0):
        fail("the tube's end: tr Σ(t_N) is not certainly positive on its end box (Σ₀ = 0 is an equilibrium)")
    u1 = 1 / tr
    p1 = (S_end[0, 0] - S_end[1, 1]) * u1
    q1 = 2 * S_end[0, 1] * u1
    r2 = p1 * p1 + q1 * q1
    if not (r2 > 0):
        fail("the tube's end: r₁ > 0 is not verified (the end box meets the centre of the trace-one disk)")
    r1 = r2.sqrt()
    z1 = flint.acb(p1 / r1, q1 / r1)
    eta1 = _phi_sum([flint.arb(x) for x in eta[0]], [flint.arb(x) for x in eta[1]], z1)
    if not ((1 - r2) * eta1.exp() < flint.arb(D0)):
        fail("the tube's end is not inside the certified region N: (1 − r₁²)·e^(η(ψ₁)) < D0 is not verified")
    phi1 = _phi_sum([flint.arb(x) for x in phi[0]], [flint.arb(x) for x in phi[1]], z1)
    return u1, phi1


def end_bracket(S_end, t_end, D0, eta, phi, bounds, prec, fail, u_max=None):
    """Checks 4–5 on the tube's end box: (lower, upper) arb bounds of T*.

    Parameters
    ----------
    S_end : flint.arb_mat
        The tube's end box S_N.
    t_end : flint.fmpq or fractions.Fraction
        The exact end time t_N.
    D0 : flint.fmpq
        The level D0 ∈ (0, 1) of N = {D ≤ D0, r ≤ 1}.
    eta, phi : tuple of (list, list)
        The trigonometric polynomials η and φ as coefficient lists (a_k, b_k).
    bounds : tuple of 4 flint.arb
        (κ_lo, κ_hi, φ_lo, φ_hi) from :func:`region_bounds`.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    u_max : flint.fmpq or None
        With a drift, the largest u of N'; then also u₁·e^{φ_hi − φ₁} < u_max is checked (check 4').

    Returns
    -------
    tuple of (flint.arb, flint.arb)
        (t_N + u₁e^{φ_lo − φ₁}/κ_hi, t_N + u₁e^{φ_hi − φ₁}/κ_lo), bounds of the blow-up time T*.
    """
    k_lo, k_hi, ph_lo, ph_hi = bounds
    with working_precision(prec):
        u1, phi1 = end_point(S_end, D0, eta, phi, fail)
        if u_max is not None and not (u1 * (ph_hi - phi1).exp() < flint.arb(u_max)):
            fail("u₁·e^(φ_hi − φ₁) < u_max fails: the tube does not end where u stays below u_max")
        t = flint.arb(t_end if isinstance(t_end, flint.fmpq) else rat(t_end))
        lo = t + u1 * (ph_lo - phi1).exp() / k_hi
        hi = t + u1 * (ph_hi - phi1).exp() / k_lo
        return lo, hi


def _coeffs(data, key, fail):
    a = [rat(x) for x in data[key + "_a"]]
    b = [rat(x) for x in data[key + "_b"]]
    if len(a) != len(b) or not 1 <= len(a) <= _MAX_K:
        fail(f"{key}_a and {key}_b need the same length in [1, {_MAX_K}]")
    return a, b


def parse_functions(data, fail):
    """(D0, η, φ) of a certificate's data.

    Parameters
    ----------
    data : dict
        The certificate's data (``D0``, ``eta_a``, ``eta_b``, ``phi_a``, ``phi_b``).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.fmpq, tuple, tuple)
        (D0 ∈ (0, 1), η coefficients, φ coefficients).
    """
    D0 = rat(data["D0"])
    if not 0 < D0 < 1:
        fail("D0 must lie in (0, 1)")
    return D0, _coeffs(data, "eta", fail), _coeffs(data, "phi", fail)


def planar_problem(cert, problem, fail):
    """The common preconditions of the rotation kinds: PROVED, d = 2, no drift, Σ₀ ⪰ 0 (exact);
    returns (pairs, Σ₀).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (list of (flint.fmpq_mat, flint.fmpq_mat), flint.fmpq_mat)
        (the heads' exact (C_h, A_h), Σ₀).
    """
    pairs, F, S0 = tube_problem(cert, problem, fail, psd=True)
    if problem.d != 2:
        fail("covers d = 2 only")
    if F is not None:
        fail("covers the flow without drift only")
    return pairs, S0


def parse_region(data, fail):
    """(D0, η, φ, n_psi, n_r, prec, max_depth) of a rotation kind's data, within the limits.

    Parameters
    ----------
    data : dict
        The certificate's data.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple
        (D0, η, φ, n_psi, n_r, prec, max_depth), every integer inside its admissible range.
    """
    D0, eta, phi = parse_functions(data, fail)
    n_psi = int_in(data["n_psi"], "n_psi", 8, _MAX_PIECES, fail)
    n_r = int_in(data["n_r"], "n_r", 1, 64, fail)
    if n_psi * n_r > _MAX_PIECES:
        fail(f"n_psi·n_r must be ≤ {_MAX_PIECES}")
    prec = int_in(data["prec"], "prec", 64, 4096, fail)
    max_depth = int_in(data["max_depth"], "max_depth", 0, 10, fail)
    return D0, eta, phi, n_psi, n_r, prec, max_depth


_SCHEMA = {"phi_a": "rat[]", "phi_b": "rat[]", "eta_a": "rat[]", "eta_b": "rat[]", "D0": "rat", "max_depth": "int", "n_psi": "int", "n_r": "int", "T_lo": "rat",
           "T_hi": "rat", "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct"), "u_max?": "rat"}


_T = "tests/soundness/forgeries/test_rotation.py::"

HYPOTHESES = (
    Hypothesis("quadratic-flow", "The embedded problem's covariance flow is the (multi-head) softmax-type field "
               "Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) with constant parameters (no depth schedule, "
               "no ReLU term): the projective field and its homogeneity are those of this flow.",
               _T + "test_rotation_needs_the_quadratic_flow"),
    Hypothesis("d-two", "d = 2: the trace-one plane X = ½[[1 + p, q], [q, 1 − p]] and its rank-one circle r = 1 "
               "are the d = 2 objects the region N is built on.", _T + "test_rotation_needs_d_two"),
    Hypothesis("sigma0-psd", "Σ₀ is an exact symmetric positive semidefinite matrix: Σ(t) = Φ(t)Σ₀Φ(t)ᵀ ⪰ 0, "
               "so the projective state keeps r ≤ 1 and cannot leave N through the circle.",
               _T + "test_rotation_sigma0_not_psd"),
    Hypothesis("D0-range", "0 < D0 < 1, so N = {(1 − r²)e^{η(ψ)} ≤ D0, r ≤ 1} is a proper neighbourhood of the "
               "rank-one circle.", _T + "test_rotation_D0_out_of_range"),
    Hypothesis("boundary-in-disc", "D0·e^{−η(ψ)} < 1 for every ψ: the boundary D = D0 is the curve "
               "r = √(1 − D0e^{−η(ψ)}) > 0, so N is compact and avoids the centre r = 0 where ψ is undefined.",
               _T + "test_rotation_boundary_leaves_the_disc"),
    Hypothesis("invariance", "D' = D·(2(tr K̃ − c̃) + η'(ψ)ψ') < 0 on the boundary D = D0 for every ψ (and every "
               "u ∈ [0, u_max] with a drift): N (N') is forward invariant.", _T + "test_rotation_invariance_fails"),
    Hypothesis("growth", "G' = c̃ + φ'(ψ)ψ' ∈ [κ_lo, κ_hi] with κ_lo > 0 over N (N'): G = −log u + φ(ψ) grows "
               "at least linearly, so u = 1/tr Σ decays exponentially in τ.", _T + "test_rotation_growth_fails"),
    Hypothesis("tube", "The validated tube replays from the exact Σ₀ at t = 0 along the stored exact times: the "
               "solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.",
               _T + "test_rotation_tube_does_not_replay"),
    Hypothesis("sigma0-nonzero", "tr S_N > 0 on the end box: Σ(t_N) ≠ 0 (Σ₀ = 0 is an equilibrium and never "
               "blows up), so u₁ = 1/tr Σ(t_N) and X₁ are defined.", _T + "test_rotation_sigma0_zero"),
    Hypothesis("end-in-N", "The tube ends inside N: r₁ > 0 and (1 − r₁²)·e^{η(ψ₁)} < D0 on the end box.",
               _T + "test_rotation_tube_ends_outside_N"),
    Hypothesis("u-max-iff-drift", "A stored u_max > 0 exactly when the drift F ≠ 0: the drift terms u·F are "
               "bounded over N' = {D ≤ D0, r ≤ 1, 0 < u ≤ u_max}, and without a drift there is no u to bound.",
               _T + "test_rotation_u_max_iff_drift"),
    Hypothesis("u-stays-below-u-max", "With a drift: u₁·e^{φ_hi − φ₁} < u_max, so u = e^{φ − G} stays below "
               "u_max while G ≥ G₁ and the state never leaves N'.", _T + "test_rotation_u_exceeds_u_max"),
    Hypothesis("bracket", "T_lo ≤ T_hi, T_lo ≤ t_N + u₁e^{φ_lo − φ₁}/κ_hi and "
               "T_hi ≥ t_N + u₁e^{φ_hi − φ₁}/κ_lo (exact comparisons with the balls' end points).",
               _T + "test_rotation_bracket_stretched"),
    Hypothesis("claim", "The claim is BLOWUP for THIS Σ₀ (the embedded one) with the stored T_lo, T_hi, "
               "status PROVED: the argument follows one solution.", _T + "test_rotation_claim_rebound"),
)


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_rotation(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ blows up (rotating) at a T* ∈ [T_lo, T_hi]
    (regime BLOWUP, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: (multi-head) softmax, d = 2, with or without a drift F, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a check 1–5 of the module docstring fails or [T_lo, T_hi] does not contain the derived bracket.
    """
    pairs, F, S0 = tube_problem(cert, problem, _bad, psd=True)
    if problem.d != 2:
        _bad("covers d = 2 only")
    data = cert.data
    u_max = None
    if F is None:
        if "u_max" in data:
            _bad("u_max belongs to a flow with drift only (the embedded problem has F = 0)")
    else:
        if "u_max" not in data:
            _bad("a flow with drift needs u_max (the embedded problem has F ≠ 0)")
        u_max = rat(data["u_max"])
        if not u_max > 0:
            _bad("u_max must be positive")
    D0, eta, phi, n_psi, n_r, prec, max_depth = parse_region(data, _bad)
    bounds = region_bounds(pairs, D0, eta, phi, n_psi, n_r, prec, _bad, max_depth, F=F, u_max=u_max)
    if not bounds[0] > 0:  # every piece has G' > 0; the hull's lower end must say so too
        _bad("growth: the bound κ_lo of G' over N is not positive")
    S_end, ts = replay_stored(pairs, F, S0, data, _bad, MAX_ORDER, MAX_STEPS)
    lo, hi = end_bracket(S_end, ts[-1], D0, eta, phi, bounds, prec, _bad, u_max)
    return "PROVED", bracket_claim(data, lo, hi, _bad)
