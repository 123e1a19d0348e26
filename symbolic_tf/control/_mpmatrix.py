"""mpmath matrix helpers of the steering constructions (docs/mathematics.md §6).

The constructive routes of :mod:`symbolic_tf.control.steer` and
:mod:`symbolic_tf.control._restricted` compute matrix functions (square roots, logarithms,
principal angles) in mpmath at :data:`DPS` digits and round the results to dyadic rationals
(:func:`symbolic_tf.exact.sympy_bridge.mpf_fraction`).  Everything here is numerical: the schedules
built from it are certified afterwards (:mod:`symbolic_tf.control._certified`) or reported as evidence.
"""
from __future__ import annotations

import mpmath

__all__ = ["DPS", "mp_matrix", "mp_vector", "rotation_generator",
           "principal_rotation", "mp_distance"]

#: Decimal digits of the mpmath constructions (schedules are built at ``DPS`` or ``DPS + 10``).
DPS = 50


def mp_matrix(M):
    """An exact rational matrix as an mpmath matrix at the working precision."""
    return mpmath.matrix([[mpmath.mpf(e.numerator) / e.denominator for e in r] for r in M])


def mp_vector(v):
    """An exact rational vector as an mpmath column vector at the working precision."""
    return mpmath.matrix([mpmath.mpf(e.numerator) / e.denominator for e in v])


def rotation_generator(u, w):
    """A generator V with e^{V}u = w: V = ln(|w|/|u|) I + θK, K = e₂e₁ᵀ − e₁e₂ᵀ.

    e₁ = u/|u|, e₂ the unit vector of w/|w| orthogonal to e₁, θ the angle between u and w
    (θ = π in any plane containing e₁ when w is antiparallel to u).
    """
    d = u.rows
    nu, nw = mpmath.norm(u), mpmath.norm(w)
    e1 = u / nu
    w1 = w / nw
    c = sum(e1[i] * w1[i] for i in range(d))
    perp = w1 - c * e1
    V = mpmath.log(nw / nu) * mpmath.eye(d)
    if mpmath.norm(perp) < mpmath.mpf(10) ** (-DPS + 5):
        if c > 0:
            return V
        # antiparallel: rotate by π in any plane containing e1
        k = min(range(d), key=lambda i: abs(e1[i]))
        v = mpmath.matrix([mpmath.mpf(int(i == k)) for i in range(d)])
        perp = v - sum(e1[i] * v[i] for i in range(d)) * e1
        theta = mpmath.pi
    else:
        theta = mpmath.acos(max(-1, min(1, c)))
    e2 = perp / mpmath.norm(perp)
    K = e2 * e1.T - e1 * e2.T
    return V + theta * K


def principal_rotation(c0, c1):
    """Skew K with e^{K} mapping range c0 onto range c1: the direct rotation by the principal
    angles θᵢ ∈ [0, π/2], K = Σᵢ θᵢ(fᵢuᵢᵀ − uᵢfᵢᵀ), identity on the complement of both ranges.
    """
    d = len(c0)

    def onb(c):
        E, Q = mpmath.eigsy(mp_matrix(c))
        top = max(abs(E[i]) for i in range(d))
        idx = [i for i in range(d) if E[i] > top * mpmath.mpf(10) ** (-DPS // 2)]
        U = mpmath.zeros(d, len(idx))
        for k, i in enumerate(idx):
            for j in range(d):
                U[j, k] = Q[j, i]
        return U

    U0, U1 = onb(c0), onb(c1)
    r = U0.cols
    W, s, Zt = mpmath.svd_r(U0.T * U1)
    K = mpmath.zeros(d, d)
    for i in range(r):
        u = U0 * W[:, i]
        v = U1 * Zt.T[:, i]
        c = min(mpmath.mpf(1), s[i])
        sn = mpmath.sqrt(max(mpmath.mpf(0), 1 - c * c))
        if sn < mpmath.mpf(10) ** (-DPS + 10):
            continue
        theta = mpmath.acos(c)
        f = (v - c * u) / sn
        K += theta * (f * u.T - u * f.T)
    return K


def mp_distance(a, S, mean1, cov1) -> float:
    """Distance of an end point to the target, √(‖a − α₁‖² + ‖S − Σ₁‖_F²), at :data:`DPS` digits."""
    d = len(cov1)
    with mpmath.workdps(DPS):
        tot = mpmath.mpf(0)
        for i in range(d):
            tot += (a[i] - mpmath.mpf(mean1[i].numerator) / mean1[i].denominator) ** 2
            for j in range(d):
                tot += (S[i, j] - mpmath.mpf(cov1[i][j].numerator) / cov1[i][j].denominator) ** 2
        return float(mpmath.sqrt(tot))
