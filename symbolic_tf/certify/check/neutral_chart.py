"""The rank-one chart of the d = 3 softmax covariance flow near a rank-one limit, written once for
any scalar type (float for the search, arb balls for the checker, :class:`~symbolic_tf.exact.dual.Dual`
numbers over either for derivatives).  Mathematics: docs/mathematics.md §8 ("neutral clustering").

For Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ write Σ = L D Lᵀ with L = [[1, 0], [r, I]] (r ∈ ℝ²), D = diag(σ, Ŝ):
σ = Σ₀₀, r = Σ₁:,₀/σ, Ŝ = Σ₁:,₁: − σrrᵀ (the Schur complement, ⪰ 0), ζ = tr Ŝ, Z = Ŝ/ζ.  With
V̂ = L⁻¹VL, Â = LᵀAL and K̃ = V̂DÂ the flow Σ̇ = KΣ + ΣKᵀ (K = VΣA) becomes exactly

    σ̇ = 2σK̃₀₀,   ṙ = K̃₁:,₀ + ŜK̃₀,₁:ᵀ/σ,   Ŝ̇ = K̃₁:,₁:Ŝ + ŜK̃₁:,₁:ᵀ.

Notation: a = Â₀₀ = wᵀAw (w = (1, r)), p = V̂₁:,₀, q = Â₀,₁:ᵀ, ẑ = Jq (J the quarter turn, so
qᵀẑ = 0), Ẑ = ẑẑᵀ/|ẑ|², φ = ẑᵀÂ₁:,₀.  The flow is homogeneous (Σ ↦ cΣ, t ↦ t/c), and in the
scale-free variables ζ̄ = ζ/σ, ᾱ = σa/ζ, η̄ = σ(Z − Ẑ(r))/ζ (trace zero, coordinates (η̄₀₀, η̄₀₁)),
with the fast time dt̄ = σ dt and the slow time dT = ζ̄ dt̄ = ζ dt, the system is division-free
(the identities Ẑq = 0 and Ŝq = ζ²ηq remove every 1/ζ):

    r_T = ρ = ᾱp + V̂₂₂ZÂ₁:,₀ + ζ̄(V̂₀₀η̄q + ZÂ₂₂ᵀZV̂₀,₁:ᵀ),   (log σ)_T = λ = 2(V̂₀₀ᾱ + V̂₀,₁:ZÂ₁:,₀),
    ζ̄_T = ζ̄g,  g = 2 tr M₁ − λ,  M₁ = pqᵀη̄ + V̂₂₂ZÂ₂₂Z,                    (Z = Ẑ + ζ̄η̄)
    dᾱ/dt̄ = ∇a·ρ − ζ̄gᾱ,   dη̄/dt̄ = M₁ + M₁ᵀ − 2(tr M₁)Z − DẐ(r)[ρ] − ζ̄gη̄.

At ζ̄ = 0 the fast field is affine in y = (ᾱ, η̄) and vanishes at y_c(r) (:func:`fast_centre`);
there r_T = φβ(r) and λ = φs̃(r) (:func:`slow_parts`), both with the factor φ.
"""
from __future__ import annotations

from ...exact.dual import base, sqrt

__all__ = ["Chart", "chart_of", "fast_field", "fast_centre", "slow_parts", "cone_point", "tz"]


def _mm(X, Y):
    return [[sum((X[i][k] * Y[k][j] for k in range(1, len(Y))), X[i][0] * Y[0][j]) for j in range(len(Y[0]))]
            for i in range(len(X))]


def _tr(X):
    return [list(col) for col in zip(*X)]


def _mv(X, v):
    return [sum((X[i][k] * v[k] for k in range(1, len(v))), X[i][0] * v[0]) for i in range(len(X))]


def _dot(u, v):
    return sum((u[k] * v[k] for k in range(1, len(u))), u[0] * v[0])


def _outer(u, v):
    return [[ui * vj for vj in v] for ui in u]


def _add(X, Y, c=1):
    return [[x + c * y for x, y in zip(rx, ry)] for rx, ry in zip(X, Y)]


def _scale(X, c):
    return [[c * x for x in row] for row in X]


def tz(e0, e1):
    """The trace-zero symmetric 2×2 matrix [[e0, e1], [e1, −e0]].

    Parameters
    ----------
    e0, e1 : scalar
        Its (0, 0) and (0, 1) entries.

    Returns
    -------
    list of list
        The matrix as nested lists.
    """
    return [[e0, e1], [e1, -e0]]


class Chart:
    """The frame quantities of the chart at r (any scalar type): V̂, Â, a, p, q, ẑ, |ẑ|², Ẑ, φ and
    ∇a (as a function of a direction).

    Parameters
    ----------
    Vt, At : list of list
        V and A in the frame (3×3 nested lists).
    r : sequence of 2 scalars
        The point r.
    """

    def __init__(self, Vt, At, r):
        one, zero = r[0] * 0 + 1, r[0] * 0
        L = [[one, zero, zero], [r[0], one, zero], [r[1], zero, one]]
        Li = [[one, zero, zero], [-r[0], one, zero], [-r[1], zero, one]]
        self.At, self.r = At, r
        self.Vh = _mm(_mm(Li, Vt), L)
        self.Ah = _mm(_mm(_tr(L), At), L)
        Vh, Ah = self.Vh, self.Ah
        self.a = Ah[0][0]
        self.p = [Vh[1][0], Vh[2][0]]
        self.q = [Ah[0][1], Ah[0][2]]
        self.A21 = [Ah[1][0], Ah[2][0]]
        self.A22 = [[Ah[1][1], Ah[1][2]], [Ah[2][1], Ah[2][2]]]
        self.V11 = Vh[0][0]
        self.V12 = [Vh[0][1], Vh[0][2]]
        self.V22 = [[Vh[1][1], Vh[1][2]], [Vh[2][1], Vh[2][2]]]
        self.zh = [-self.q[1], self.q[0]]
        self.nz = _dot(self.zh, self.zh)
        self.Zh = _scale(_outer(self.zh, self.zh), 1 / self.nz)
        self.phi = _dot(self.zh, self.A21)
        w = [one, r[0], r[1]]
        S = _add(At, _tr(At))
        self._ga = [_dot(_mv(_tr(S), w), [zero, one, zero]), _dot(_mv(_tr(S), w), [zero, zero, one])]

    def grad_a(self, v):
        """∇a(r)·v, a(r) = wᵀAw with w = (1, r).

        Parameters
        ----------
        v : sequence of 2 scalars
            The direction.

        Returns
        -------
        scalar
            The directional derivative of a at r.
        """
        return self._ga[0] * v[0] + self._ga[1] * v[1]

    def dZh(self, v):
        """The derivative DẐ(r)[v] (Ẑ = ẑẑᵀ/|ẑ|², ẑ = Jq(r), q = (LᵀAL)₀,₁:).

        Parameters
        ----------
        v : sequence of 2 scalars
            The direction.

        Returns
        -------
        list of list
            The symmetric 2×2 derivative (trace zero).
        """
        r, At = self.r, self.At
        zero = r[0] * 0
        dL = [[zero, zero, zero], [v[0], zero, zero], [v[1], zero, zero]]
        one = zero + 1
        L = [[one, zero, zero], [r[0], one, zero], [r[1], zero, one]]
        dA = _add(_mm(_mm(_tr(dL), At), L), _mm(_mm(_tr(L), At), dL))
        dq = [dA[0][1], dA[0][2]]
        dz = [-dq[1], dq[0]]
        zh, nz = self.zh, self.nz
        sym = _add(_outer(dz, zh), _outer(zh, dz))
        return _add(_scale(sym, 1 / nz), self.Zh, -2 * _dot(zh, dz) / nz)


def chart_of(S):
    """The chart coordinates of a symmetric 3×3 Σ: σ = Σ₀₀, r = Σ₁:,₀/σ, Ŝ = Σ₁:,₁: − σrrᵀ,
    ζ = tr Ŝ, Z = Ŝ/ζ.

    Parameters
    ----------
    S : list of list
        Σ as nested lists (any scalar type).

    Returns
    -------
    tuple
        (σ, r, ζ, Z), r a list of 2 and Z a 2×2 nested list.
    """
    sig = S[0][0]
    r = [S[1][0] / sig, S[2][0] / sig]
    Sh = [[S[1 + i][1 + j] - sig * r[i] * r[j] for j in range(2)] for i in range(2)]
    zeta = Sh[0][0] + Sh[1][1]
    return sig, r, zeta, _scale(Sh, 1 / zeta)


def fast_field(ch, zeta, alpha, eta):
    """The division-free, scale-free field at (r, ζ̄, ᾱ, η̄).

    Parameters
    ----------
    ch : Chart
        The chart quantities at r.
    zeta : scalar
        ζ̄ = ζ/σ.
    alpha : scalar
        ᾱ = σa/ζ.
    eta : sequence of 2 scalars
        η̄ = σ(Z − Ẑ)/ζ in coordinates (η̄₀₀, η̄₀₁).

    Returns
    -------
    dict
        ``rho`` (r_T), ``lam`` ((log σ)_T), ``g`` (ζ̄_T = ζ̄·g with g = 2 tr M₁ − λ),
        ``alpha_dot``, ``eta_dot`` (dȳ/dt̄, η̄ in coordinates (η̄₀₀, η̄₀₁)).
    """
    H = tz(eta[0], eta[1])
    Z = _add(ch.Zh, H, zeta)
    p, q = ch.p, ch.q
    M1 = _add(_outer(p, _mv(_tr(H), q)), _mm(_mm(_mm(ch.V22, Z), ch.A22), Z))
    trM = M1[0][0] + M1[1][1]
    ZA21 = _mv(Z, ch.A21)
    extra = [ch.V11 * x + y for x, y in zip(_mv(H, q), _mv(_mm(_mm(Z, _tr(ch.A22)), Z), ch.V12))]
    rho = [alpha * pi + vz + zeta * e for pi, vz, e in zip(p, _mv(ch.V22, ZA21), extra)]
    lam = 2 * (ch.V11 * alpha + _dot(ch.V12, ZA21))
    g = 2 * trM - lam
    alpha_dot = ch.grad_a(rho) - zeta * g * alpha
    Zd = _add(_add(M1, _tr(M1)), Z, -2 * trM)
    Ed = _add(_add(Zd, ch.dZh(rho), -1), H, -zeta * g)
    return {"rho": rho, "lam": lam, "g": g, "alpha_dot": alpha_dot, "eta_dot": [Ed[0][0], Ed[0][1]]}


def slow_parts(ch):
    """β(r) and s̃(r) with r_T = φβ and (log σ)_T = φs̃ at ζ̄ = 0, y = y_c:
    β = (V̂₂₂ẑ − p(∇a·V̂₂₂ẑ)/(∇a·p))/|ẑ|², s̃ = 2(V̂₀,₁:ẑ − V̂₀₀(∇a·V̂₂₂ẑ)/(∇a·p))/|ẑ|².

    Parameters
    ----------
    ch : Chart
        The chart quantities at r.

    Returns
    -------
    tuple
        (β as a list of 2, s̃).
    """
    Vz = _mv(ch.V22, ch.zh)
    ratio = ch.grad_a(Vz) / ch.grad_a(ch.p)
    beta = [(v - pi * ratio) / ch.nz for v, pi in zip(Vz, ch.p)]
    st = 2 * (_dot(ch.V12, ch.zh) - ch.V11 * ratio) / ch.nz
    return beta, st


def fast_centre(ch):
    """y_c(r) = (ᾱ_c, η̄_c): the zero of the fast field at ζ̄ = 0 (η̄ in coordinates (η̄₀₀, η̄₀₁)).

    ᾱ_c = −φ(∇a·V̂₂₂ẑ)/(|ẑ|²∇a·p); η̄_c solves 𝓛η = −c₀ with 𝓛η = pqᵀη + ηqpᵀ − 2(qᵀηp)Ẑ,
    c₀ = N + Nᵀ − 2(tr N)Ẑ − DẐ[φβ], N = V̂₂₂ẐÂ₂₂Ẑ.

    Parameters
    ----------
    ch : Chart
        The chart quantities at r.

    Returns
    -------
    tuple
        (ᾱ_c, [η̄_c,00, η̄_c,01]).
    """
    beta, _st = slow_parts(ch)
    b = [ch.phi * x for x in beta]
    alpha_c = -ch.phi * ch.grad_a(_mv(ch.V22, ch.zh)) / (ch.nz * ch.grad_a(ch.p))
    N = _mm(_mm(_mm(ch.V22, ch.Zh), ch.A22), ch.Zh)
    c0 = _add(_add(_add(N, _tr(N)), ch.Zh, -2 * (N[0][0] + N[1][1])), ch.dZh(b), -1)
    cols = []
    zero = ch.phi * 0
    for E in (tz(zero + 1, zero), tz(zero, zero + 1)):
        qEp = _dot(ch.q, _mv(E, ch.p))
        LE = _add(_add(_outer(ch.p, _mv(_tr(E), ch.q)), _outer(_mv(E, ch.q), ch.p)), ch.Zh, -2 * qEp)
        cols.append((LE[0][0], LE[0][1]))
    (l00, l10), (l01, l11) = cols
    det = l00 * l11 - l01 * l10
    rhs = (-c0[0][0], -c0[0][1])
    e0 = (rhs[0] * l11 - l01 * rhs[1]) / det
    e1 = (l00 * rhs[1] - l10 * rhs[0]) / det
    return alpha_c, [e0, e1]


def cone_point(At, rt, t, m, theta):
    """The point of the isotropic cone a = 0 on the line rt + θt + s·m: the root s nearest 0, in the
    stable form −2a₀/(a₁ + sgn(a₁)√(a₁² − 4a₀a₂)).

    Parameters
    ----------
    At : list of list
        A in the frame (3×3, any scalar type).
    rt, t, m : sequence of 2 scalars
        The base point r̃, the direction along the cone and the transversal direction.
    theta : scalar
        θ (a ball or a dual number for derivatives).

    Returns
    -------
    tuple
        (s, r) with r = rt + θt + s·m.

    Raises
    ------
    ValueError
        When the sign of a₁ (the line's transversality to the cone) is not decided.
    """
    rth = [rt[0] + theta * t[0], rt[1] + theta * t[1]]
    one = theta * 0 + 1
    w = [one, rth[0], rth[1]]
    wm = [theta * 0, m[0], m[1]]
    a0 = _dot(w, _mv(At, w))
    a1 = _dot(w, _mv(At, wm)) + _dot(wm, _mv(At, w))
    a2 = _dot(wm, _mv(At, wm))
    disc = sqrt(a1 * a1 - 4 * a0 * a2)
    a1v = base(a1)
    if a1v > 0:
        pos = True
    elif a1v < 0:
        pos = False
    else:
        raise ValueError("the isotropic cone is not transversal to the direction m (a₁ not sign-definite)")
    s = -2 * a0 / (a1 + disc) if pos else -2 * a0 / (a1 - disc)
    return s, [rth[0] + s * m[0], rth[1] + s * m[1]]
