"""Shared forgery builders of the two chart kinds, ``tube-cluster-neutral`` (test_neutral.py) and
``tube-growth-neutral`` (test_neutral_growth.py): same data schema, same checks 1–7, two slow modes.

The genuine certificates are those of tests/soundness/test_tampering.py (NEUTRAL_AV/NEUTRAL_S0 and
GROWTH_AV/GROWTH_S0: a benchmark problem started at a dyadic rounding of its own Σ(t), so the tube is
empty); each search takes about 2 s.

:func:`chart_sigma0` is the forger's tool for the entry: an exact Σ₀ ⪰ 0 whose chart (in the
certificate's frame) has a chosen r, ζ̄ and scaled fast deviation ê — so that a forgery can put the
tube's end anywhere, the embedded problem re-hashed, everything else untouched.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np

from symbolic_tf.certify.check.neutral_chart import Chart, chart_of, cone_point, fast_centre
from symbolic_tf.spec.problem import parse_problem

# the tampering suite's neutral problems (seed 1 #7 and seed 0 #1 of the general-V set, from their own Σ(t))
from ..test_tampering import GROWTH_AV, GROWTH_S0, NEUTRAL_AV, NEUTRAL_S0
from .forge import forge, q, qm


def problem(A, V, S0):
    return parse_problem({"variant": "softmax", "d": 3, "A": A, "V": V, "initial": {"cov": S0}})


def F(x):
    return Fraction(x)


def fl(M):
    return np.array([[float(Fraction(x)) for x in row] for row in M])


class Geometry:
    """The float chart of a certificate (frame, line, funnel) — what a forger computes."""

    def __init__(self, cert):
        d, p = cert["data"], cert["problem"]
        self.cert = cert
        self.T = [[F(x) for x in row] for row in d["frame"]]
        T = fl(d["frame"])
        Ti = np.linalg.inv(T)
        self.Vt = (T @ fl(p["V"]) @ Ti).tolist()
        self.At = (Ti.T @ fl(p["A"]) @ Ti).tolist()
        self.rt = [float(F(x)) for x in d["r_tilde"]]
        self.t = [float(F(x)) for x in d["t_dir"]]
        self.m = [-self.t[1], self.t[0]]
        self.nt = self.t[0] ** 2 + self.t[1] ** 2
        self.W, self.k = fl(d["W"]), float(F(d["k"]))
        S = T @ fl(p["initial"]["cov"]) @ T.T
        sig, r, zeta, _Z = chart_of(S.tolist())
        self.zbar1 = zeta / sig
        self.theta1, self.s1 = self.coords(r)

    def coords(self, r):
        dr = [r[0] - self.rt[0], r[1] - self.rt[1]]
        return ((self.t[0] * dr[0] + self.t[1] * dr[1]) / self.nt, (self.m[0] * dr[0] + self.m[1] * dr[1]) / self.nt)

    def point(self, theta, s):
        return [self.rt[0] + theta * self.t[0] + s * self.m[0], self.rt[1] + theta * self.t[1] + s * self.m[1]]

    def a(self, r):
        w = np.array([1.0, *r])
        return float(w @ np.array(self.At) @ w)

    def roots(self, theta):
        """(s_c(θ), the other root) of a = 0 on the line through θ."""
        sc, _ = cone_point(self.At, self.rt, self.t, self.m, theta)
        w, wm, A = np.array([1.0, *self.point(theta, 0.0)]), np.array([0.0, *self.m]), np.array(self.At)
        a0, a1, a2 = w @ A @ w, w @ A @ wm + wm @ A @ w, wm @ A @ wm
        other = [float(np.real(x)) for x in np.roots([a2, a1, a0]) if abs(x - sc) > 1e-6]
        return sc, other[0]

    def sigma0(self, theta, s_start, zbar, scale=1.5, e_extra=(0.0, 0.0, 0.0), sigma=1):
        """An exact Σ₀ ⪰ 0 (frame back-transformed) with chart θ, s ≈ s_start (moved so that
        a = ζ̄ᾱ, ᾱ = ᾱ_c + ζ̄ê_α), ζ̄ and ê = the smallest deviation that keeps Z ⪰ 0 (times ``scale``)
        plus ``e_extra``; returns (Σ₀ as "p/q" strings, ê, the point r)."""
        e = np.array(e_extra, float)

        def at(s):
            r = self.point(theta, s)
            ch = Chart(self.Vt, self.At, r)
            ac, ec = fast_centre(ch)
            return r, ch, ac, ec

        def ehat(ch, ec):
            # det(Ẑ + ζ̄H) ≈ ζ̄²(qᵀê_ηq/∣q∣² − ∣η̄_c∣²): the least ê (in the W-norm) that keeps Z ⪰ 0
            qn = np.array(ch.q) / np.linalg.norm(ch.q)
            ell = np.array([0.0, qn[0] ** 2 - qn[1] ** 2, 2 * qn[0] * qn[1]])
            need = ec[0] ** 2 + ec[1] ** 2
            Wi = np.linalg.inv(self.W)
            return Wi @ ell * (scale * need + 1e-3) / (ell @ Wi @ ell) + e

        s = s_start
        for _ in range(40):     # Newton on a(r(s)) = ζ̄(ᾱ_c + ζ̄ê_α)
            def resid(s):
                r, ch, ac, ec = at(s)
                return self.a(r) - zbar * (ac + zbar * ehat(ch, ec)[0])
            h = 1e-9 * max(1.0, abs(s))
            g0 = resid(s)
            s -= g0 / ((resid(s + h) - g0) / h)
        r, ch, ac, ec = at(s)
        e = ehat(ch, ec)
        H = np.array(ec) + zbar * e[1:]
        Z = np.array(ch.Zh) + zbar * np.array([[H[0], H[1]], [H[1], -H[0]]])
        R = lambda x: Fraction(x).limit_denominator(2 ** 52)     # noqa: E731
        rq = [R(r[0]), R(r[1])]
        z00, z01 = R(Z[0, 0]), R(Z[0, 1])
        Zq = [[z00, z01], [z01, 1 - z00]]
        assert Zq[0][0] * Zq[1][1] - z01 * z01 > 0 and z00 > 0, "Z is not positive definite"
        zq, sq = R(zbar) * sigma, Fraction(sigma)
        L = [[1, 0, 0], [rq[0], 1, 0], [rq[1], 0, 1]]
        D = [[sq, 0, 0], [0, zq * Zq[0][0], zq * Zq[0][1]], [0, zq * Zq[1][0], zq * Zq[1][1]]]
        Sp = _mm(_mm(L, D), _tr(L))
        Ti = _inv3(self.T)
        return qm(_mm(_mm(Ti, Sp), _tr(Ti))), e, r

    def forged(self, S0):
        p = copy.deepcopy(self.cert["problem"])
        p["initial"] = {"cov": S0}
        return forge(self.cert, problem=p)


def _mm(X, Y):
    return [[sum(Fraction(X[i][k]) * Fraction(Y[k][j]) for k in range(3)) for j in range(3)] for i in range(3)]


def _tr(X):
    return [list(c) for c in zip(*X)]


def _inv3(T):
    import flint

    M = flint.fmpq_mat(3, 3, [flint.fmpq(x.numerator, x.denominator) for row in T for x in row]).inv()
    return [[Fraction(int(M[i, j].p), int(M[i, j].q)) for j in range(3)] for i in range(3)]


def with_problem(cert, **changes):
    """The certificate with entries of its embedded problem replaced (None deletes), re-hashed."""
    p = copy.deepcopy(cert["problem"])
    for k, v in changes.items():
        if v is None:
            p.pop(k, None)
        else:
            p[k] = v
    return forge(cert, problem=p)


def stale_problem(cert, **changes):
    """The embedded problem changed where :func:`forge` cannot re-hash it (the parser refuses it)."""
    c = copy.deepcopy(cert)
    c["problem"].update(changes)
    return c


def padded(M, n=4, corner="1"):
    return [list(r) + ["0"] * (n - len(r)) for r in M] + [["0"] * (n - 1) + [corner]]


def rat(x):
    return q(Fraction(x))


# ============================================================================================
# one forgery per hypothesis: (forged certificate, the regex its rejection must match)
# ============================================================================================
def one_head(cert):
    # two heads with W = I/2 each: the same flow, but not the one pair (V, A) the chart is written for
    p = cert["problem"]
    half = [["1/2", "0", "0"], ["0", "1/2", "0"], ["0", "0", "1/2"]]
    head = {"A": p["A"], "V": p["V"], "W": half}
    doc = {"variant": "multihead", "d": 3, "heads": [head, head], "initial": p["initial"]}
    return forge(cert, problem=doc), r"one softmax-type head only"


def dimension_three(cert):
    # the same flow with a fourth, decoupled coordinate (A, V padded with zeros)
    p = cert["problem"]
    doc = {"variant": "softmax", "d": 4, "A": padded(p["A"], corner="0"), "V": padded(p["V"], corner="0"),
           "initial": {"cov": padded(p["initial"]["cov"])}}
    return forge(cert, problem=doc), r"covers d = 3 only"


def no_drift(cert):
    return with_problem(cert, F=[["1/1000", "0", "0"], ["0", "0", "0"], ["0", "0", "0"]]), r"without drift only"


def constant_parameters(cert):
    return (with_problem(cert, phase=[{"duration": "1/2"}, {"duration": 1, "V": cert["problem"]["V"]}]),
            r"constant parameters only")


def sigma0_psd(cert):
    # the parser itself refuses an indefinite Σ₀, so the forger cannot re-hash it: the stale hash is
    # never reached, the parse names the failure
    S0 = [[F(x) for x in row] for row in cert["problem"]["initial"]["cov"]]
    # Σ₀ − c·vvᵀ with v ≈ the eigenvector of λ_min and c = 2vᵀΣ₀v/∣v∣⁴: then vᵀ(·)v = −vᵀΣ₀v < 0
    w, U = np.linalg.eigh(np.array([[float(x) for x in row] for row in S0]))
    v = [Fraction(x).limit_denominator(2 ** 20) for x in U[:, 0]]
    vSv = sum(v[i] * S0[i][j] * v[j] for i in range(3) for j in range(3))
    c = 2 * vSv / sum(x * x for x in v) ** 2
    S0 = [[S0[i][j] - c * v[i] * v[j] for j in range(3)] for i in range(3)]
    return stale_problem(cert, initial={"cov": qm(S0)}), r"not positive semidefinite"


def claim_rank(cert, params):
    return forge(cert, params=params), r"stated claim is not the one the data prove"


def claim_quantifier(cert):
    return forge(cert, quantifier="every Σ₀ ≻ 0"), r"stated claim is not the one the data prove"


def claim_status(cert):
    return forge(cert, status="REFUTED"), r"status must be PROVED"


def tube_replays(cert):
    # one Taylor step over [0, 1]: the stiff fast directions defeat the a priori enclosure
    return forge(cert, data={"steps": ["0", "1"]}), r"a priori \(Picard\) enclosure fails"


def projective_pair(cert):
    return forge(cert, data={"proj_steps": ["0", "1/100"]}), r"proj_steps and proj_order go together"


def frame_invertible(cert):
    return forge(cert, data={"frame": [["1", "0", "0"], ["0", "1", "0"], ["1", "1", "0"]]}), r"frame is singular"


def region_shape(cert):
    d = cert["data"]
    return forge(cert, data={"theta_box": [d["theta_star"][0], d["theta_box"][1]]}), r"need θ_lo < θ_a < θ_b < θ_hi"


def region_direction(cert):
    return forge(cert, data={"t_dir": ["0", "0"]}), r"t_dir is zero"


def funnel_data(cert):
    return forge(cert, data={"W": [["1", "0", "0"], ["0", "-1", "0"], ["0", "0", "1"]]}), r"W is not symmetric positive definite"


def funnel_rate(cert):
    return forge(cert, data={"mu": "0"}), r"zeta_max, mu and k must be positive"


def entry_chart(cert):
    # Σ₀ = 0 is ⪰ 0 and an equilibrium: it never converges to a rank-one limit
    return with_problem(cert, initial={"cov": [["0"] * 3] * 3}), r"tube's end has no chart"


def entry_zeta(cert):
    g = Geometry(cert)
    zmax = float(F(cert["data"]["zeta_max"]))
    S0, _e, _r = g.sigma0(g.theta1, g.roots(g.theta1)[0], 1.2 * zmax)
    return g.forged(S0), r"ζ̄ at the tube's end is not in \(0, zeta_max\)"


def entry_theta(cert):
    g = Geometry(cert)
    th = [float(F(x)) for x in cert["data"]["theta_box"]]
    theta = th[1] + 0.01 if g.theta1 > 0.5 * (th[0] + th[1]) else th[0] - 0.01
    S0, _e, _r = g.sigma0(theta, g.roots(theta)[0], g.zbar1)
    return g.forged(S0), r"tube's end is not inside theta_box"


def entry_funnel(cert):
    g = Geometry(cert)
    ea = 1.5 * g.k / np.sqrt(g.W[0, 0])      # ê_α alone outside 𝓔; it moves a = ζ̄ᾱ by ζ̄²ê_α only
    S0, e, _r = g.sigma0(g.theta1, g.roots(g.theta1)[0], g.zbar1, e_extra=(ea, 0.0, 0.0))
    assert e @ g.W @ e > g.k ** 2
    return g.forged(S0), r"not inside the fast funnel"


def other_branch(cert, theta, zbar):
    """Σ₀ whose chart point sits on the cone's other branch on the line through θ, with ê ∈ 𝓔: every
    check but the band passed before the band was checked (the hole)."""
    g = Geometry(cert)
    S0, e, r = g.sigma0(theta, g.roots(theta)[1], zbar)
    assert e @ g.W @ e < g.k ** 2
    return g.forged(S0), r"not within s_width of the isotropic cone's branch"


def cone_transversal(cert):
    # a band of half-width 3/2 reaches the vertex of s ↦ a between the cone's two branches
    return forge(cert, data={"s_width": "3/2"}), r"∂a/∂s is not sign-definite"


def fast_contraction(cert):
    return forge(cert, data={"mu": rat(2 * F(cert["data"]["mu"]))}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified"


def fast_funnel_margin(cert):
    return (forge(cert, data={"mu": rat(F(cert["data"]["mu"]) / 2)}),
            r"fast funnel is not invariant: \(mu − ζ̄_max\|g\|\)·k ≤ \|B\|_W")


def zeta_decay(cert, factor):
    return forge(cert, data={"zeta_max": rat(factor * F(cert["data"]["zeta_max"]))}), r"g is not negative over the region"


def rest_point_bracket(cert):
    d = cert["data"]
    hi, b = F(d["theta_box"][1]), F(d["theta_star"][1])
    return (forge(cert, data={"theta_star": [rat(b + (hi - b) / 4), rat(b + (hi - b) / 2)]}),
            r"does not change sign on theta_star")


def reach_inside_theta(cert):
    # Θ ends 10⁻¹² beyond the bracket on the side away from θ₁: the overshoot E·ζ̄₁/c does not fit
    g = Geometry(cert)
    d = cert["data"]
    th = list(d["theta_box"])
    if g.theta1 > float(F(d["theta_star"][1])):
        th[0] = rat(F(d["theta_star"][0]) - Fraction(1, 10 ** 12))
    else:
        th[1] = rat(F(d["theta_star"][1]) + Fraction(1, 10 ** 12))
    return forge(cert, data={"theta_box": th}), r"slow drift may leave theta_box"


def offset_inside_band(cert):
    # the entry's offset is ≈ 0.27·w_s, the bound ζ̄₁ᾱ_max/δ_a is larger: w_s' = 0.3·w_s keeps the
    # entry in the band and breaks the bound
    g = Geometry(cert)
    sw = F(cert["data"]["s_width"]) * Fraction(3, 10)
    assert abs(g.s1 - g.roots(g.theta1)[0]) < 0.95 * float(sw)
    return forge(cert, data={"s_width": rat(sw)}), r"transversal offset \|a\|/δ_a may exceed s_width"


def swapped_kind(cert, other_kind, subject, params):
    """The data of one chart kind under the other kind's name (claim re-rendered)."""
    c = forge(cert, subject=subject, params=params)
    c["kind"] = other_kind
    return c
