"""Castin et al. / docs/mathematics.md §4: softmax with V = I blows up at T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2})
when that eigenvalue is positive.  Certified bracket; the closed form (computed at 50 digits
with mpmath, independently) must fall inside."""
import sys
from fractions import Fraction

import mpmath
from _regime import run

DOC = {"variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/4", "-1/3"]], "V": [[1, 0], [0, 1]],
       "initial": {"cov": [["3/4", "1/8"], ["1/8", "1/4"]]}}


def closed_form(c):
    mpmath.mp.dps = 50
    A = mpmath.matrix([[1, mpmath.mpf(1) / 2], [-mpmath.mpf(1) / 4, -mpmath.mpf(1) / 3]])
    S = mpmath.matrix([[mpmath.mpf(3) / 4, mpmath.mpf(1) / 8], [mpmath.mpf(1) / 8, mpmath.mpf(1) / 4]])
    E, Q = mpmath.eigsy(S)
    h = Q * mpmath.diag([mpmath.sqrt(e) for e in E]) * Q.T
    T = 1 / max(mpmath.eigsy(h * (A + A.T) * h)[0])
    lo, hi = Fraction(c.T_lo), Fraction(c.T_hi)
    assert mpmath.mpf(lo.numerator) / lo.denominator <= T <= mpmath.mpf(hi.numerator) / hi.denominator
    return f"closed form T* = {mpmath.nstr(T, 30)} lies in the bracket"


sys.exit(run("blowup_softmax_identity", "softmax, V = I: blow-up at T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2})",
             DOC, "BLOWUP", extra=closed_form))
