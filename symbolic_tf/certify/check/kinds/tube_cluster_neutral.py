"""Checker of ``tube-cluster-neutral``: *this* Σ₀ clusters — the solution is global and Σ(t)
converges to a rank-one limit — for single-head softmax in d = 3 without drift and a general V,
where the limit is not hyperbolic (issue 15 item 2, "convergence of this Σ₀ … to a low-rank limit,
with the rank proved").  Mathematics: docs/mathematics.md §8 ("neutral clustering").

**The degeneracy.**  In d = 3 the rank-one equilibria s·wwᵀ (wᵀAw = 0) form a two-parameter
family, and at each of them one more transversal direction is neutral: the middle eigenvalue of
Σ(t) decays only like 1/t, and while it does the limit direction keeps drifting along the
isotropic cone, by an amount of order log t, until it settles where a scalar φ vanishes.  No
quadratic Lyapunov function of Σ sees this; the certificate works in the chart of
:mod:`~symbolic_tf.certify.check.neutral_chart` (after the exact rational change of basis
Σ ↦ TΣTᵀ, V ↦ TVT⁻¹, A ↦ T⁻ᵀAT⁻¹ stored as ``frame``).

**Data.**  ``frame`` T (3×3), the tube (steps, order, tube_prec, method, prec), r̃ (``r_tilde``),
a direction t (``t_dir``; m = Jt, ℓ = t/|t|², r = r̃ + θt + s·m), the region θ ∈ Θ
(``theta_box``), |s − s_c(θ)| ≤ w_s (``s_width``; s_c(θ) the isotropic cone a = 0), 0 < ζ̄ ≤ ``zeta_max``, a bracket [θ_a, θ_b] (``theta_star``) of the slow rest
point, the fast Lyapunov data W (3×3), ``mu``, ``k``, and the number of θ-pieces.

**Checks** (ball arithmetic; every region quantity over each θ-piece × S × [0, ζ̄_max] × the box
of the ellipsoid 𝓔 = {êᵀWê ≤ k²}; derivatives by dual numbers over balls):

1. the tube from the exact Σ₀ replays; its end (chart of TΣ(t_N)Tᵀ, σ₁ > 0, ζ₁ > 0) lies in the
   region, strictly: θ₁ ∈ Θ, |s₁ − s_c(θ₁)| < w_s (the band around the cone's branch the region
   follows — the line through θ₁ meets the cone a second time, where ᾱ = a/ζ̄ is small too),
   0 < ζ̄₁ < ζ̄_max and ê₁ = (y₁ − y_c(r₁))/ζ̄₁ ∈ 𝓔; checked first;
1′. optional projective continuation (``proj_steps``, ``proj_order``; both or neither): the
   validated tube of X' = Q(X) − tr Q(X)·X, u' = −tr Q(X)·u, s' = u from
   (Σ(t_N)/tr Σ(t_N), 1/tr Σ(t_N), 0) along the stored τ-steps
   (:func:`~symbolic_tf.certify.check.kinds.tube_ray.replay_projective_part`, the ``tube-ray`` kind's check
   1′, with its optional ``proj_apriori``) encloses X(τ_M); the checks below then start from the
   box of X(τ_M) in place of Σ(t_N).
   This is sound by homogeneity: Σ(t_N + s) = X/u (u > 0), and Σ̇ = Q(Σ) is homogeneous
   quadratic, so the solution from X is t′ ↦ u·Σ(t_N + s + u·t′) — the same solution up to the
   constant scales u of size and time, which change neither global existence, nor the rank of
   the limit, nor exponential growth.  (The chart's ζ̄, r, ê are scale-free anyway.)  The
   projective flow is not stiff where Σ grows: its fast rates are those of Σ̇ divided by tr Σ.
2. W ≻ 0, mu, k > 0 (exact); per piece ∂_s a = ∇a·m is sign-definite (|∂_s a| ≥ δ_a > 0);
3. fast funnel: per piece −(M₀ᵀW + WM₀) − 2μW ≻ 0 for the ball Jacobian M₀ of the fast field at
   ζ̄ = 0, and (μ − ζ̄_max·|g|)·k > |B|_W with B = ∂_ζ̄G − Dy_c[ρ] (mean value form in ζ̄);
4. γ := −sup g > 0 (so ζ̄_T ≤ −γζ̄);
5. slow contraction: f(θ) = φ(r_c(θ)) changes sign on [θ_a, θ_b] ⊂ Θ, and per piece
   c_j := inf(−(f(θ)/(θ − θ*))·ℓᵀβ) > 0, the quotient enclosed by the larger of two sound bounds:
   f′ over the pieces between the piece and the bracket (mean value: the quotient is f′(ξ), ξ
   between θ and θ*), and, for a piece disjoint from the bracket, f(piece)/(piece − [θ_a, θ_b])
   (the sector form; f in centred form); c := min c_j;
6. the reach: with E = |∇φ·m|·ᾱ_max/δ_a·|ℓᵀβ| + |ℓᵀ∂_ζ̄ρ|, u₁ = max|θ₁ − θ_{a,b}| and
   ε = Eζ̄₁/c, θ stays in [L, U] ⊂ Θ strictly, where L is the larger of min(θ₁, θ_a − ε) and the
   lower end of a *barrier piece* (one wholly below θ_a, not the first, with θ₁ above its lower
   end and c_j·(θ_a − θ_hi) > ζ̄₁·(O_j + max(0, −inf l_j)), O_j the piece's bound of the offset
   term |∇φ·m|·ᾱ_max/δ_a·|ℓᵀβ| and l_j its ball of ℓᵀ∂_ζ̄ρ, signed), U likewise above θ_b; and
   ζ̄₁ᾱ_max/δ_a < w_s;
7. with R(r) = λ(r, 0, y_c(r)) = φs̃ (zero at θ*), the bound D = |R′(Θ)|·I_u +
   |∇R·m|ᾱ_max I_ζ/δ_a + |∂_ζ̄λ|·I_ζ (I_u = u₁/c + Eζ̄₁/(cγ), I_ζ = ζ̄₁/γ) on
   |log σ(∞) − log σ₁| is finite.

The checks are written once for a :class:`SlowMode` — which factor of θ_T = φ·ℓᵀβ vanishes at
θ* and which logarithm is bounded; the growth kind (:mod:`.neutral_growth`) swaps φ and ℓᵀβ and
bounds log ζ.

**Why.**  While the state is in the region: 3 makes 𝓔 forward invariant for ê (dê/dt̄ =
M₀ê + B − ζ̄gê), so ᾱ = ᾱ_c + ζ̄ê_α is bounded by ᾱ_max and a = ζ̄ᾱ; 4 gives ζ̄ ≤ ζ̄₁e^{−γT};
with θ* the zero of f (5) and u = θ − θ*, θ_T = φ(r)ℓᵀβ + ζ̄ℓᵀ∂_ζ̄ρ and
φ(r) = (f(θ)/u)·u + O(|a|) give d|u|/dT ≤ −c_j|u| + E_jζ̄ on piece j, hence ≤ −c|u| + Eζ̄: u
stays in [min(u₁, −ε), max(u₁, ε)] (where |u| > ε it moves towards 0), θ never crosses a barrier
piece (θ_T points towards θ* all across it), and ∫|u| dT ≤ I_u; 6 keeps θ and s strictly
inside, and the state never leaves the region (first-exit argument).  Hence ζ̄ → 0, a → 0,
θ → θ*, r → r* (the cone point at θ*), and (log σ)_T = R(r) + ζ̄∂_ζ̄λ with
R(r) = R′(ξ)u + ∇R·m(s − s_c) is integrable (7):
σ → σ∞ ∈ σ₁[e^{−D}, e^{D}].  T = ∫ζ dt → ∞ with t (ζ̇ ≥ −Cζ²), so the solution is global and
Σ(t) = T⁻¹L(r)diag(σ, ζZ)L(r)ᵀT⁻ᵀ → σ∞T⁻¹w*w*ᵀT⁻ᵀ, w* = (1, r*): rank exactly one.  Claim
CLUSTERING (rank 1) for THIS Σ₀.
"""
from __future__ import annotations

import flint

from ....exact.ball import interval_ball
from ....exact.definiteness import is_pd
from ....exact.dual import Dual, slope, value
from ....exact.precision import working_precision
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..krawczyk_box import rat, square
from ..neutral_chart import Chart, chart_of, cone_point, fast_centre, fast_field, slow_parts
from .tube_ray import check_contraction, replay_projective_part
from ..tube_replay import int_in, replay_point_tube, tube_problem

KIND = "tube-cluster-neutral"
MAX_PIECES = 4096


_bad = refusal(KIND)


def _mag(x):
    """An exact arb upper bound of |x| (a ball); an infinite one when x is not finite, so that no
    NaN ever passes as a bound (a NaN would lose every comparison, including the max)."""
    if not x.is_finite():
        return flint.arb("inf")
    return flint.arb(abs(x).upper())


def _max(a, b):
    """max of two exact arb bounds (either may be +inf)."""
    if not a.is_finite() or not b.is_finite():
        return flint.arb("inf")
    return b if b > a else a


def _pair(data, key, fail):
    v = [rat(x) for x in data[key]]
    if len(v) != 2:
        fail(f"{key} must have two entries")
    return v


def parse_region(data, fail):
    """The certificate's exact region data, checked for shape and sign.

    Parameters
    ----------
    data : dict
        The certificate's data (frame, r_tilde, t_dir, theta_box, s_width, theta_star, zeta_max, W,
        mu, k, pieces).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple
        (T, T⁻¹, r̃, t, m = Jt, ℓ = t/|t|², Θ, w_s, [θ_a, θ_b], ζ̄_max, W, W⁻¹, μ, k, pieces), exact.
    """
    T = square(data["frame"], 3, "frame", fail)
    if T.det() == 0:
        fail("frame is singular")
    rt, t = _pair(data, "r_tilde", fail), _pair(data, "t_dir", fail)
    if t[0] == 0 and t[1] == 0:
        fail("t_dir is zero")
    m = [-t[1], t[0]]
    nt = t[0] * t[0] + t[1] * t[1]
    ell = [t[0] / nt, t[1] / nt]
    th, ts = _pair(data, "theta_box", fail), _pair(data, "theta_star", fail)
    sw = rat(data["s_width"])
    if not (th[0] < ts[0] < ts[1] < th[1]) or not sw > 0:
        fail("need θ_lo < θ_a < θ_b < θ_hi and s_width > 0")
    zmax, mu, k = rat(data["zeta_max"]), rat(data["mu"]), rat(data["k"])
    if not (zmax > 0 and mu > 0 and k > 0):
        fail("zeta_max, mu and k must be positive")
    W = square(data["W"], 3, "W", fail)
    if W != W.transpose() or not is_pd(W):
        fail("W is not symmetric positive definite")
    pieces = int_in(data["pieces"], "pieces", 1, MAX_PIECES, fail)
    return T, T.inv(), rt, t, m, ell, th, sw, ts, zmax, W, W.inv(), mu, k, pieces


def _arbify(M):
    return [[flint.arb(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]


def _r_of(rt, t, m, theta, s):
    return [rt[0] + theta * t[0] + s * m[0], rt[1] + theta * t[1] + s * m[1]]


def _cone(At, rt, t, m, theta, fail):
    """(s_c(θ), r_c(θ)) over arb or Dual; fails unless the linear coefficient's sign is decided."""
    try:
        return cone_point(At, rt, t, m, theta)
    except ValueError as exc:
        fail(str(exc))


class SlowMode:
    """What pins the slow rest point and which logarithm stays bounded, for one use of the chart
    (clustering here; growth in :mod:`~symbolic_tf.certify.check.kinds.tube_growth_neutral`).

    At ζ̄ = 0, y = y_c(r) the slow field is r_T = φβ(r), so θ_T = φ·ℓᵀβ: one of the two factors
    (:meth:`factor`) vanishes at the rest point θ* and the other (:meth:`cofactor`) sets the rate of
    approach.  :meth:`rate` picks, from the chart field, the T-derivative of the logarithm the
    certificate bounds; the mode's mathematics guarantees that its value R(r) at (r, 0, y_c(r))
    vanishes where :meth:`factor` does, under the hypotheses that :meth:`conditions` lists.
    """

    #: what the bounded logarithm is, for messages
    bounded = "log σ"
    #: the names of :meth:`conditions`' quantities, for messages
    condition_names: tuple = ()

    def factor(self, ch, ell):
        """The factor of θ_T that vanishes at θ* (clustering: φ).

        Parameters
        ----------
        ch : Chart
            The chart quantities at r.
        ell : sequence of 2 scalars
            ℓ = t/|t|².

        Returns
        -------
        scalar
            The factor at r.
        """
        return ch.phi

    def cofactor(self, ch, ell):
        """The other factor of θ_T (clustering: ℓᵀβ).

        Parameters
        ----------
        ch : Chart
            The chart quantities at r.
        ell : sequence of 2 scalars
            ℓ = t/|t|².

        Returns
        -------
        scalar
            The cofactor at r.
        """
        beta, _st = slow_parts(ch)
        return ell[0] * beta[0] + ell[1] * beta[1]

    def rate(self, field):
        """The T-derivative of the bounded logarithm (clustering: (log σ)_T = λ, and λ = φs̃ at
        ζ̄ = 0, y = y_c).

        Parameters
        ----------
        field : dict
            The output of :func:`~symbolic_tf.certify.check.neutral_chart.fast_field`.

        Returns
        -------
        scalar
            The rate.
        """
        return field["lam"]

    def conditions(self, ch):
        """Quantities that must be sign-definite over the region for R to vanish where the factor
        does (clustering: none — R = φs̃ has the factor φ outright).

        Parameters
        ----------
        ch : Chart
            The chart quantities at r.

        Returns
        -------
        list of scalar
            The quantities, named by :attr:`condition_names`.
        """
        return []


CLUSTER = SlowMode()


def _f(mode, Vt, At, rt, t, m, ell, theta, fail):
    """f(θ): the mode's factor at r_c(θ) (over arb or Dual)."""
    _s, r = _cone(At, rt, t, m, theta, fail)
    return mode.factor(Chart(Vt, At, r), ell)


def _rest_rate(mode, ch):
    """R(r): the mode's rate at ζ̄ = 0 on the slow manifold y = y_c(r)."""
    ac, ec = fast_centre(ch)
    return mode.rate(fast_field(ch, 0 * ch.phi, ac, ec))


_KEYS = ("g", "alpha_c", "lT", "co", "dfac", "Rprime", "dR", "drate", "fprime", "da")


def _piece_values(mode, Vb, Ab, rt, t, m, ell, theta, sig_s, zbox, ebox, fail):
    """The region quantities at θ, s = s_c(θ) + σ_s (θ, σ_s arb or tag-1 duals; ζ̄ ∈ zbox and ê ∈ ebox
    as balls); inner derivatives use tag-2 duals.  Returns a flat dict of scalars (M0, B and the
    mode's conditions as lists): g, the fast Jacobian M₀ at ζ̄ = 0, B = ∂_ζ̄G − Dy_c[ρ], ᾱ_c,
    ℓᵀ∂_ζ̄ρ, the cofactor, ∇f·m, R′(θ) = d/dθ R(r_c(θ)), ∇R·m, ∂_ζ̄ of the rate along
    y = y_c + ζ̄ê, f′(θ) and ∂_s a."""
    one = flint.arb(1)
    sc, _rc = _cone(Ab, rt, t, m, theta, fail)
    r = _r_of(rt, t, m, theta, sc + sig_s)
    ch = Chart(Vb, Ab, r)
    ac, ec = fast_centre(ch)
    yc = [ac, ec[0], ec[1]]
    M0 = [None] * 9
    for i in range(3):      # the fast field is affine in y at ζ̄ = 0: its slopes are M₀'s columns
        yd = [Dual(yc[n], one if n == i else 0 * one, 2) for n in range(3)]
        ff = fast_field(ch, 0 * one, yd[0], [yd[1], yd[2]])
        for row, val in enumerate((ff["alpha_dot"], ff["eta_dot"][0], ff["eta_dot"][1])):
            M0[3 * row + i] = slope(val, 2)
    y = [yc[n] + zbox * ebox[n] for n in range(3)]
    fz = fast_field(ch, Dual(zbox, one, 2), y[0], [y[1], y[2]])
    rho = [value(x, 2) for x in fz["rho"]]
    acD, ecD = fast_centre(Chart(Vb, Ab, [Dual(r[0], rho[0], 2), Dual(r[1], rho[1], 2)]))
    B = [slope(fz["alpha_dot"], 2) - slope(acD, 2), slope(fz["eta_dot"][0], 2) - slope(ecD[0], 2),
         slope(fz["eta_dot"][1], 2) - slope(ecD[1], 2)]
    yz = [Dual(yc[n] + zbox * ebox[n], ebox[n], 2) for n in range(3)]
    fs = fast_field(ch, Dual(zbox, one, 2), yz[0], [yz[1], yz[2]])
    chM = Chart(Vb, Ab, [Dual(r[0], one * m[0], 2), Dual(r[1], one * m[1], 2)])
    _sD, rD = _cone(Ab, rt, t, m, Dual(theta, one, 2), fail)
    chT = Chart(Vb, Ab, rD)
    return {"g": value(fz["g"], 2), "alpha_c": ac,
            "lT": ell[0] * slope(fs["rho"][0], 2) + ell[1] * slope(fs["rho"][1], 2),
            "co": mode.cofactor(ch, ell), "dfac": slope(mode.factor(chM, ell), 2),
            "Rprime": slope(_rest_rate(mode, chT), 2), "dR": slope(_rest_rate(mode, chM), 2),
            "drate": slope(mode.rate(fs), 2), "fprime": slope(mode.factor(chT, ell), 2), "da": ch.grad_a(m),
            "M0": M0, "B": B, "cond": mode.conditions(ch)}


def _centred(mode, Vb, Ab, rt, t, m, ell, lo, hi, s_off, zbox, ebox, fail):
    """The region quantities over the piece θ ∈ [lo, hi], σ_s ∈ s_off in mean-value (centred) form:
    q(θ_c, 0) + ∂_θq(piece)·(θ − θ_c) + ∂_σq(piece)·σ_s, with ζ̄ and ê as balls throughout — far
    tighter than the direct ball evaluation, whose dependency blow-up is large in this chart."""
    one = flint.arb(1)
    tb, tc = interval_ball(lo, hi), flint.arb((lo + hi) / 2)
    vc = _piece_values(mode, Vb, Ab, rt, t, m, ell, tc, 0 * one, zbox, ebox, fail)
    vt = _piece_values(mode, Vb, Ab, rt, t, m, ell, Dual(tb, one, 1), s_off, zbox, ebox, fail)
    vs = _piece_values(mode, Vb, Ab, rt, t, m, ell, tb, Dual(s_off, one, 1), zbox, ebox, fail)
    dt, ds = tb - tc, s_off

    def comb(a, b, c):
        return a + slope(b, 1) * dt + slope(c, 1) * ds

    out = {key: comb(vc[key], vt[key], vs[key]) for key in _KEYS}
    for key in ("M0", "B", "cond"):
        out[key] = [comb(a, b, c) for a, b, c in zip(vc[key], vt[key], vs[key])]
    return out


def check_neutral_end(pairs, S_end, data, prec, fail, mode=CLUSTER, report=None):
    """Checks 1 (after the tube) to 7 of the module docstring, for a slow mode; returns D as an
    arb ball.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The head's exact (V, A), A scaled by the temperature.
    S_end : flint.arb_mat
        The tube's end box Σ(t_N) ∈ S_N (3×3).
    data : dict
        The certificate's data.
    prec : int
        The arb working precision in bits.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    mode : SlowMode
        Which factor of the slow field vanishes at θ* and which logarithm is bounded
        (:data:`CLUSTER`: φ and log σ).
    report : dict, optional
        Receives ``overshoot`` (a float upper bound of ε = Eζ̄₁/c) once check 6 computes it, so that a
        search can size Θ for a retry; the verdict never depends on it.

    Returns
    -------
    flint.arb
        The bound D of the bounded logarithm's total drift after the tube's end (log σ for
        :data:`CLUSTER`).
    """
    if len(pairs) != 1:
        fail("covers one softmax-type head only (the chart is written for one pair V, A)")
    T, Ti, rt, t, m, ell, th, sw, ts, zmax, W, Winv, mu, k, pieces = parse_region(data, fail)
    V, A = pairs[0]
    Vt, At = T * V * Ti, Ti.transpose() * A * Ti
    with working_precision(prec):
        Vb, Ab = _arbify(Vt), _arbify(At)
        Wb = flint.arb_mat(W)
        k_b, mu_b, zmax_b = flint.arb(k), flint.arb(mu), flint.arb(zmax)
        # 1. the tube's end lies in the region (first: the first-exit argument starts there)
        z1, th1 = _check_entry(Vb, Ab, T, S_end, W, Wb, rt, t, m, ell, th, sw, zmax_b, k_b, fail)
        rad = [(k_b * k_b * flint.arb(Winv[i, i])).sqrt() for i in range(3)]
        ebox = [flint.arb(0, rad[i].upper()) for i in range(3)]
        zbox = interval_ball(flint.fmpq(0), zmax)
        s_off = interval_ball(-sw, sw)
        # 5a. the slow rest point: f changes sign on [θ_a, θ_b]
        fa = _f(mode, Vb, Ab, rt, t, m, ell, flint.arb(ts[0]), fail)
        fb = _f(mode, Vb, Ab, rt, t, m, ell, flint.arb(ts[1]), fail)
        if not ((fa > 0 and fb < 0) or (fa < 0 and fb > 0)):
            fail("f (the vanishing factor at r_c(θ)) does not change sign on theta_star")
        width = (th[1] - th[0]) / pieces
        per_piece, Rprime = [], None
        big = {"g_hi": None, "g_abs": flint.arb(0), "B": flint.arb(0)}
        big.update({key: flint.arb(0) for key in ("alpha_c", "lT", "dfac", "dR", "drate", "co")})
        da_min = None
        for j in range(pieces):
            lo, hi = th[0] + j * width, th[0] + (j + 1) * width
            q = _centred(mode, Vb, Ab, rt, t, m, ell, lo, hi, s_off, zbox, ebox, fail)
            Rprime = q["Rprime"] if Rprime is None else Rprime.union(q["Rprime"])
            da = q["da"]
            if not (da > 0 or da < 0):
                fail("∂a/∂s is not sign-definite over the region (the band is not transversal to the cone)")
            for name, val in zip(mode.condition_names, q["cond"]):
                if not (val > 0 or val < 0):
                    fail(f"{name} is not sign-definite over the region")
            da_lo = flint.arb(abs(da).lower())
            da_min = da_lo if da_min is None else flint.arb(min(da_min.lower(), da_lo.lower()))
            check_contraction(flint.arb_mat(3, 3, q["M0"]), Wb, mu, fail)
            B = flint.arb_mat(3, 1, q["B"])
            BW = (B.transpose() * Wb * B)[0, 0]
            g = q["g"]
            if not g < 0:
                fail("g is not negative over the region: ζ̄ = ζ/σ is not proved to decay")
            big["g_hi"] = flint.arb(g.upper()) if big["g_hi"] is None else _max(big["g_hi"], flint.arb(g.upper()))
            for key in ("alpha_c", "lT", "dfac", "dR", "drate", "co"):
                big[key] = _max(big[key], _mag(q[key]))
            big["g_abs"] = _max(big["g_abs"], _mag(g))
            big["B"] = _max(big["B"], _mag(BW).sqrt())
            # 3b. the fast funnel's margin, checked as the sups grow (so it fails at the first bad piece)
            if not (mu_b - zmax_b * big["g_abs"]) * k_b > big["B"]:
                fail("the fast funnel is not invariant: (mu − ζ̄_max|g|)·k ≤ |B|_W")
            tb = interval_ball(lo, hi)
            f_piece = _f(mode, Vb, Ab, rt, t, m, ell, flint.arb((lo + hi) / 2), fail) + \
                q["fprime"] * (tb - flint.arb((lo + hi) / 2))
            # the piece's own bound on the off-cone and ζ̄ terms of θ_T (E of check 6, per piece)
            e_off = _mag(q["dfac"]) * (_mag(q["alpha_c"]) + zmax_b * rad[0]) / da_lo * _mag(q["co"])
            per_piece.append((tb, q["co"], q["fprime"], f_piece, e_off, q["lT"]))
        # 4. ζ̄ decays
        gamma = -big["g_hi"]
        if not gamma > 0:
            fail("g is not negative over the region: ζ̄ = ζ/σ is not proved to decay")
        # 5b. slow contraction over every piece
        cs = _slow_contraction(per_piece, interval_ball(ts[0], ts[1]), fail)
        c = flint.arb(min(x.lower() for x in cs))
        alpha_max = big["alpha_c"] + zmax_b * rad[0]
        E = big["dfac"] * alpha_max / da_min * big["co"] + big["lT"]
        u1 = flint.arb(max(abs(th1 - ts[0]).upper(), abs(th1 - ts[1]).upper()))
        over = E * z1 / c
        # u = θ − θ* stays in [min(u₁, −ε), max(u₁, ε)]: where |u| > ε it moves towards 0
        lo_reach = flint.arb(min(th1.lower(), (flint.arb(ts[0]) - over).lower()))
        hi_reach = flint.arb(max(th1.upper(), (flint.arb(ts[1]) + over).upper()))
        # or a barrier piece: θ_T points towards θ* across all of it, so θ never crosses it
        bar_lo, bar_hi = _barriers(per_piece, cs, ts, th1, z1)
        if bar_lo is not None and bar_lo > lo_reach:
            lo_reach = bar_lo
        if bar_hi is not None and bar_hi < hi_reach:
            hi_reach = bar_hi
        if report is not None:
            report["overshoot"] = float(over.upper())
        if not (lo_reach > th[0] and hi_reach < th[1]):
            fail(f"the slow drift may leave theta_box (overshoot E·ζ̄₁/c ≈ {float(over.upper()):.3g}, c ≈ "
                 f"{float(c.lower()):.3g})")
        if not z1 * alpha_max / da_min < flint.arb(sw):
            fail("the transversal offset |a|/δ_a may exceed s_width")
        Iu = u1 / c + E * z1 / (c * gamma)
        Iz = z1 / gamma
        D = _mag(Rprime) * Iu + big["dR"] * alpha_max * Iz / da_min + big["drate"] * Iz
        if not D.is_finite():
            fail(f"the bound on the drift of {mode.bounded} is not finite")
        return D


def _barriers(per_piece, cs, ts, th1, z1):
    """Bounds (L, U) with L ≤ θ ≤ U for ever after the entry, from barrier pieces (check 6).

    On piece j, θ_T = f·ℓᵀβ + (offset term) + ζ̄·ℓᵀ∂_ζ̄ρ with |offset term| ≤ O_jζ̄ and the last
    term's factor in the ball l_j.  A piece [θ_lo, θ_hi] wholly below the bracket [θ_a, θ_b] is a
    barrier when c_j·(θ_a − θ_hi) > ζ̄₁·(O_j + max(0, −inf l_j)): on it θ_T > 0 (0 < ζ̄ ≤ ζ̄₁ while in
    the region; a ζ̄-term that pushes towards θ* only helps), so a solution that starts at
    θ₁ ≥ θ_lo never goes below θ_lo.  The same above the bracket with max(0, sup l_j).  The first
    and last pieces are never barriers (their outer ends are Θ's).

    Returns
    -------
    tuple of (flint.arb or None, flint.arb or None)
        The highest lower barrier's θ_lo and the lowest upper barrier's θ_hi; None where no piece
        qualifies.
    """
    lo_b = hi_b = None
    a, b, z = flint.arb(ts[0]), flint.arb(ts[1]), flint.arb(z1.upper())
    zero = flint.arb(0)
    for j, (tb, _co, _fp, _fv, o_j, l_j) in enumerate(per_piece):
        t_lo, t_hi = flint.arb(tb.lower()), flint.arb(tb.upper())
        if not l_j.is_finite():
            continue
        push_down, push_up = _max(zero, -flint.arb(l_j.lower())), _max(zero, flint.arb(l_j.upper()))
        if 0 < j and t_hi < a and t_lo < th1 and cs[j] * (a - t_hi) > (o_j + push_down) * z:
            lo_b = t_lo if lo_b is None or t_lo > lo_b else lo_b
        if j < len(per_piece) - 1 and t_lo > b and t_hi > th1 and cs[j] * (t_lo - b) > (o_j + push_up) * z:
            hi_b = t_hi if hi_b is None or t_hi < hi_b else hi_b
    return lo_b, hi_b


def _slow_contraction(per_piece, star, fail):
    """c = min over the θ-pieces of a lower bound of −(f(θ)/(θ − θ*))·cofactor (check 5b).

    For θ in a piece and θ* in the bracket ``star`` (f(θ*) = 0), f(θ)/(θ − θ*) = f′(ξ) with ξ
    between θ and θ*, so it lies in the union of f′ over the pieces that meet the hull of the piece
    and the bracket; for a piece disjoint from the bracket it also lies in f(piece)/(piece − star)
    (the sector form, tighter where f is far from linear).  Each piece takes the larger of the two
    lower bounds; both are sound, so is their maximum.

    Parameters
    ----------
    per_piece : list of tuple of 6 arb
        Per piece in θ order: its θ-ball, the cofactor, f′ and f over the piece (centred forms), and
        the two parts of its perturbation, O_j and l_j (used by :func:`_barriers`).
    star : flint.arb
        The ball of the bracket [θ_a, θ_b] of the rest point.
    fail : callable
        ``fail(msg)`` raises (never returns).

    Returns
    -------
    list of flint.arb
        Per piece, an exact lower bound c_j > 0 (c is their minimum).
    """
    n = len(per_piece)
    near = [j for j in range(n) if per_piece[j][0].overlaps(star)]
    if not near:
        fail("theta_star lies outside every θ-piece")
    lo, hi = near[0], near[-1]      # the pieces are contiguous, so are those meeting the bracket
    core = per_piece[lo][2]
    for j in range(lo + 1, hi + 1):
        core = core.union(per_piece[j][2])
    hull = [core] * n    # f′ over the pieces from j to the bracket (ξ lies between θ and θ*)
    for j in range(hi + 1, n):
        hull[j] = hull[j - 1].union(per_piece[j][2])
    for j in range(lo - 1, -1, -1):
        hull[j] = hull[j + 1].union(per_piece[j][2])
    cs = []
    for j, (tb, co, _fp, fv, *_e) in enumerate(per_piece):
        prod = -(hull[j] * co)
        low = prod.lower() if prod > 0 else None
        if not lo <= j <= hi:
            sector = -((fv / (tb - star)) * co)
            if sector > 0 and (low is None or sector.lower() > low):
                low = sector.lower()
        if low is None:
            fail("the slow field does not contract along the isotropic cone (f·cofactor points away from θ* "
                 "somewhere)")
        cs.append(flint.arb(low))
    return cs


def _check_entry(Vb, Ab, T, S_end, W, Wb, rt, t, m, ell, th, sw, zmax_b, k_b, fail):
    """Check 1: the tube's end lies in the region — θ₁ ∈ Θ, |s₁ − s_c(θ₁)| < w_s, 0 < ζ̄₁ < ζ̄_max and
    ê₁ ∈ 𝓔, all strictly; returns (ζ̄₁, θ₁) as balls.

    Without the band, a Σ whose chart point r₁ sits on the *other* branch of the cone a = 0 on the
    line through θ₁ (where ᾱ = a/ζ̄ can again be small and ê₁ ∈ 𝓔) passed every check, although
    none of the region's enclosures says anything about it (there the fast centre is unstable)."""
    z1, _sig1, r1, eh1 = _entry(Vb, Ab, T, S_end, W, fail)
    if not (z1 > 0 and z1 < zmax_b):
        fail("ζ̄ at the tube's end is not in (0, zeta_max)")
    d = [r1[0] - rt[0], r1[1] - rt[1]]
    th1 = ell[0] * d[0] + ell[1] * d[1]
    if not (th1 > th[0] and th1 < th[1]):
        fail("the tube's end is not inside theta_box (θ₁ ∉ Θ)")
    s1 = (m[0] * d[0] + m[1] * d[1]) / (t[0] * t[0] + t[1] * t[1])  # m ⊥ t and |m| = |t|
    sc1, _rc1 = _cone(Ab, rt, t, m, th1, fail)
    if not abs(s1 - sc1) < flint.arb(sw):
        fail("the tube's end is not within s_width of the isotropic cone's branch (|s₁ − s_c(θ₁)| ≥ w_s)")
    if not (eh1.transpose() * Wb * eh1)[0, 0] < k_b * k_b:
        fail("the tube's end is not inside the fast funnel (ê₁ ∉ 𝓔)")
    return z1, th1


def _entry(Vb, Ab, T, S_end, W, fail):
    """(ζ̄₁, σ₁, r₁, ê₁) at the tube's end (chart of TΣ(t_N)Tᵀ)."""
    Sb = flint.arb_mat(T) * S_end * flint.arb_mat(T.transpose())
    S = [[Sb[i, j] for j in range(3)] for i in range(3)]
    sig, r, zeta, Z = chart_of(S)
    if not (sig > 0 and zeta > 0):
        fail("the tube's end has no chart: σ = (TΣTᵀ)₀₀ or ζ = tr Ŝ is not positive (Σ = 0 or of rank ≤ 1 there)")
    zb = zeta / sig
    ch = Chart(Vb, Ab, r)
    y = [sig * ch.a / zeta, sig * (Z[0][0] - ch.Zh[0][0]) / zeta, sig * (Z[0][1] - ch.Zh[0][1]) / zeta]
    ac, ec = fast_centre(ch)
    yc = [ac, ec[0], ec[1]]
    eh = flint.arb_mat(3, 1, [(y[n] - yc[n]) / zb for n in range(3)])
    return zb, sig, r, eh


#: the data schema shared by the kinds built on the chart (clustering here, growth in neutral_growth)
REGION_SCHEMA = {"frame": "rat[][]", "r_tilde": "rat[]", "t_dir": "rat[]", "theta_box": "rat[]", "s_width": "rat",
                 "theta_star": "rat[]", "zeta_max": "rat", "W": "rat[][]", "mu": "rat", "k": "rat", "pieces": "int",
                 "prec": "int", "steps": "rat[]", "order": "int", "tube_prec": "int",
                 "method": ("enum", "qr", "direct"), "proj_steps?": "rat[]", "proj_order?": "int",
                 "proj_apriori?": ("enum", "picard", "taylor")}


def check_chart_certificate(cert, problem, mode, bad):
    """The whole check of a chart certificate for a slow mode: the problem's preconditions, the
    stored tube's replay from the exact Σ₀, then checks 1–7 at the tube's end.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against :data:`REGION_SCHEMA`.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: single-head softmax, d = 3, no drift, Σ₀ ⪰ 0 exact.
    mode : SlowMode
        The slow mode of the kind.
    bad : callable
        ``bad(msg)`` raises the kind's :class:`~symbolic_tf.spec.errors.CertificationFailed`.

    Returns
    -------
    flint.arb
        The bound D of the mode's bounded logarithm after the tube's end.
    """
    pairs, F, S0 = tube_problem(cert, problem, bad, psd=True)
    if problem.d != 3:
        bad(f"covers d = 3 only (the embedded problem has d = {problem.d})")
    if F is not None:
        bad("covers the flow without drift only (F = 0): the chart and the projective continuation use "
            "that Σ̇ is homogeneous quadratic")
    data = cert.data
    prec, S_end, ts = replay_point_tube(pairs, None, S0, data, bad)
    if "proj_steps" in data or "proj_order" in data:
        # check 1′: the scale-free continuation; its X stands for Σ by homogeneity
        S_end, _u, _t = replay_projective_part(pairs, None, S_end, ts[-1], data, bad)
    return check_neutral_end(pairs, S_end, data, prec, bad, mode)


def chart_hypotheses(test_file, factor, cofactor, bounded, claim, extra=()):
    """The hypotheses of the chart argument (checks 1–7), shared by the clustering and growth kinds.

    Parameters
    ----------
    test_file : str
        The forgery test file of the kind (``tests/soundness/forgeries/test_<module>.py``); each
        hypothesis names its test ``test_<id with underscores>`` there.
    factor, cofactor : str
        The factor of θ_T that vanishes at θ* and the other one, in words.
    bounded : str
        The logarithm whose drift D bounds.
    claim : str
        The derived claim, in words.
    extra : tuple of (str, str)
        Mode-specific (id, statement) pairs, appended.

    Returns
    -------
    tuple of Hypothesis
    """
    items = (
        ("one-head", "The embedded flow is one quadratic softmax-type head, Σ̇ = VΣAΣ + ΣAᵀΣVᵀ (A scaled by the "
         "temperature): the chart and every enclosure are written for one pair (V, A)."),
        ("dimension-three", "d = 3: the chart splits Σ into σ, a point r of the plane and a 2×2 Schur complement "
         "Ŝ, and the neutral direction and the isotropic cone are those of d = 3."),
        ("no-drift", "No drift (F = 0): Σ̇ is homogeneous quadratic, which the scale-free chart variables and the "
         "projective continuation (Σ = X/u) use."),
        ("constant-parameters", "V and A do not depend on depth (no schedule): the region's enclosures are "
         "those of one autonomous field."),
        ("sigma0-psd", "Σ₀ is exactly symmetric and ⪰ 0, a covariance: the flow keeps Σ ⪰ 0, so the Schur "
         "complement Ŝ stays ⪰ 0 along the solution."),
        ("claim", f"The certificate states exactly what the argument gives, status PROVED: {claim}, for the "
         "embedded Σ₀ only (quantifier this Σ₀)."),
        ("tube-replays", "The stored Taylor tube (times from 0, strictly increasing) replays from the exact Σ₀ "
         "and encloses Σ(t_N); a projective continuation, when present, has both proj_steps and proj_order "
         "and replays from that box (Σ = X/u with u > 0, the same solution up to scales)."),
        ("frame-invertible", "The frame T is invertible, so Σ ↦ TΣTᵀ is a change of basis: it preserves global "
         "existence, growth rates and the rank of a limit."),
        ("region-shape", "The region is a non-empty band along the cone that contains the bracket: t ≠ 0, "
         "θ_lo < θ_a < θ_b < θ_hi, w_s > 0 and at least one θ-piece."),
        ("funnel-data", "The funnel data are admissible: W symmetric ≻ 0 and μ, k, ζ̄_max > 0 (exact)."),
        ("entry-chart", "At the tube's end σ = (TΣTᵀ)₀₀ > 0 and ζ = tr Ŝ > 0: Σ there is neither 0 nor of "
         "rank ≤ 1 in the chart (Σ₀ = 0 stays 0 and has no rank-one limit)."),
        ("entry-zeta", "At the tube's end 0 < ζ̄₁ < ζ̄_max: the entry lies in the region's ζ̄-range."),
        ("entry-theta", "At the tube's end θ₁ = ℓᵀ(r₁ − r̃) lies strictly inside Θ."),
        ("entry-cone-band", "At the tube's end ∣s₁ − s_c(θ₁)∣ < w_s: r₁ lies in the band around the branch "
         "of the cone a = 0 that the region follows, not near the cone's other branch on the same line "
         "(there a = ζ̄ᾱ is small as well, but no enclosure of the region covers it)."),
        ("entry-funnel", "At the tube's end the scaled fast deviation ê₁ = (y₁ − y_c(r₁))/ζ̄₁ lies strictly "
         "inside the ellipsoid 𝓔 = {êᵀWê ≤ k²}."),
        ("cone-transversal", "On every θ-piece the line r̃ + θt + s·m crosses the cone transversally (the sign of "
         "its linear coefficient is decided, so s_c(θ) is one continuous root) and ∂a/∂s = ∇a·m is "
         "sign-definite over the band, ∣∂a/∂s∣ ≥ δ_a > 0, so ∣s − s_c∣ ≤ ∣a∣/δ_a."),
        ("fast-contraction", "On every piece −(M₀ᵀW + WM₀) − 2μW ≻ 0 for the ball Jacobian M₀ of the fast "
         "field at ζ̄ = 0: the fast variables contract at rate μ in the W-norm."),
        ("fast-funnel-margin", "(μ − ζ̄_max·sup∣g∣)·k > sup‖B‖_W with B = ∂_ζ̄G − Dy_c[ρ] over the region: the "
         "ellipsoid 𝓔 is forward invariant for ê, so ᾱ stays bounded by ᾱ_max and a = ζ̄ᾱ."),
        ("zeta-decay", "g < 0 over the region, γ = −sup g > 0: ζ̄ ≤ ζ̄₁e^{−γT}, so the perturbation terms are "
         "integrable and the bound D on the drift of " + bounded + " is finite."),
        ("rest-point-bracket", f"f(θ) = {factor} at the cone point r_c(θ) changes sign on [θ_a, θ_b]: the "
         "slow rest point θ* (f(θ*) = 0) lies in the bracket."),
        ("slow-contraction", f"On every θ-piece c_j = inf −(f(θ)/(θ − θ*))·({cofactor}) > 0 for θ* in the "
         "bracket (mean value or sector bound): ∣θ − θ*∣ decreases at rate ≥ c_j up to O(ζ̄)."),
        ("reach-inside-theta", "The slow angle stays strictly inside Θ: [L, U] ⊂ (θ_lo, θ_hi), with L the "
         "larger of min(θ₁, θ_a − Eζ̄₁/c) and a lower barrier piece (c_j·dist to the bracket beating its "
         "ζ̄₁-terms, θ₁ above it), U likewise."),
        ("offset-inside-band", "ζ̄₁·ᾱ_max/δ_a < w_s: the transversal offset ∣s − s_c(θ)∣ ≤ ∣a∣/δ_a stays "
         "strictly inside the band, so the first-exit argument closes."),
    ) + tuple(extra)
    return tuple(Hypothesis(i, st, f"{test_file}::test_{i.replace('-', '_')}") for i, st in items)


HYPOTHESES = chart_hypotheses("tests/soundness/forgeries/test_neutral.py", "φ(r_c(θ))", "ℓᵀβ", "log σ",
                              "the solution is global and Σ(t) converges to a limit of rank exactly 1 (CLUSTERING)")


@kind(KIND, REGION_SCHEMA, hypotheses=HYPOTHESES)
def check_tube_cluster_neutral(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and converges to a rank-one
    limit (regime CLUSTERING, rank 1, quantifier THIS), d = 3.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: single-head softmax, d = 3, no drift, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("CLUSTERING", THIS, {"rank": 1}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or a check 1–7 fails.
    """
    check_chart_certificate(cert, problem, CLUSTER, _bad)
    return "PROVED", Claim("CLUSTERING", Quantifier.THIS, {"rank": 1})
