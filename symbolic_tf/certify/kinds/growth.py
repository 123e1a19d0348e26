"""Checker of ``no-blowup`` certificates (Sinkhorn and ℓ2 growth bounds)."""
from __future__ import annotations

from fractions import Fraction

import flint

from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier
from ..exact import definiteness, qmat


def _sq(M):
    return sum((Fraction(e) ** 2 for row in M for e in row), Fraction(0))


def _upper(u, M, name):
    u = Fraction(u)
    if u < 0 or u * u < _sq(M):
        raise CertificationFailed(f"no-blowup: u_{name} is not an upper bound of ‖{name}‖_F")
    return u


@kind("no-blowup", {"u_V": "rat", "u_F": "rat", "gamma": "rat", "u_A?": "rat", "g?": "rat"})
def check_no_blowup(cert, problem):
    """PROVED: every Σ₀ ⪰ 0 has a global solution with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}."""
    from ..exact import frac_str

    _check_no_blowup(cert, problem)
    return "PROVED", Claim("EXPONENTIAL_GROWTH", Quantifier.EVERY_PSD, {"gamma": frac_str(Fraction(cert.data["gamma"]))})


def _check_no_blowup(cert, problem):
    if problem is None:
        raise CertificationFailed("no-blowup: needs the embedded problem")
    d = cert.data
    uF = _upper(d["u_F"], problem.F, "F") if problem.F is not None else Fraction(0)
    if problem.F is None and Fraction(d["u_F"]) != 0:
        pass  # a positive bound for an absent F is harmless but must still be consistent below
    if Fraction(d["u_F"]) < 0:
        raise CertificationFailed("no-blowup: u_F must be non-negative")
    uF = max(uF, Fraction(d["u_F"]))
    if problem.variant == "sinkhorn":
        uV = _upper(d["u_V"], problem.V, "V")
        gamma = 2 * (uV + uF)
    elif problem.variant == "l2":
        uV = _upper(d["u_V"], problem.V, "V")
        uA = _upper(d["u_A"], problem.A, "A")
        g = Fraction(d["g"])
        n = problem.d
        G = qmat(problem.K).transpose() * qmat(problem.K) * flint.fmpq(problem.scale.numerator, problem.scale.denominator)
        gI = flint.fmpq_mat(n, n, [flint.fmpq(g.numerator, g.denominator) if i == j else 0 for i in range(n) for j in range(n)])
        if g <= 0 or not definiteness(G - gI).psd:
            raise CertificationFailed("no-blowup: g is not a positive lower bound of λ_min(KᵀK)")
        gamma = 2 * uV * uA * Fraction(problem.scale) / g + 2 * uF
    else:
        raise CertificationFailed(f"no-blowup: no growth theorem for variant {problem.variant!r}")
    if Fraction(d["gamma"]) != gamma:
        raise CertificationFailed("no-blowup: the growth rate γ does not follow from the bounds")
