"""Alcalde–Ji–Zuazua / docs/mathematics.md §6: V = vI, F = fI, R ≻ 0: blow-up at T* = ln(1 + f/ρ)/(2f),
ρ = λ_max(Σ₀^{1/2}RΣ₀^{1/2})/2 — certified by the Radon linearisation in ball arithmetic; the
closed form (50 digits, independently) must fall inside the bracket."""
import sys
from fractions import Fraction

import mpmath
from _regime import run

DOC = {"variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, "1/3"]], "V": [[2, 0], [0, 2]],
       "F": [["1/2", 0], [0, "1/2"]], "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}


def closed_form(c):
    mpmath.mp.dps = 50
    A = mpmath.matrix([[1, mpmath.mpf(1) / 2], [0, mpmath.mpf(1) / 3]])
    R = 2 * (A + A.T)
    S = mpmath.matrix([[1, mpmath.mpf(1) / 4], [mpmath.mpf(1) / 4, mpmath.mpf(1) / 2]])
    E, Q = mpmath.eigsy(S)
    h = Q * mpmath.diag([mpmath.sqrt(e) for e in E]) * Q.T
    rho = max(mpmath.eigsy(h * R * h)[0]) / 2
    f = mpmath.mpf(1) / 2
    T = mpmath.log(1 + f / rho) / (2 * f)
    lo, hi = Fraction(c.T_lo), Fraction(c.T_hi)
    assert mpmath.mpf(lo.numerator) / lo.denominator <= T <= mpmath.mpf(hi.numerator) / hi.denominator
    return f"closed form T* = ln(1 + f/ρ)/(2f) = {mpmath.nstr(T, 30)} lies in the bracket"


sys.exit(run("drift_blowup", "drift model, V = vI, F = fI, R ≻ 0: blow-up at ln(1 + f/ρ)/(2f)",
             DOC, "BLOWUP", extra=closed_form))
