"""Exact obstructions to steering under restricted controls (REFUTED verdicts).

Everything here is a *necessary* condition for reachability, proved for every
piecewise-constant schedule in the restricted class and decided rigorously (exact rationals,
ball arithmetic for exp/log).  A violated condition is a proof of unreachability; a satisfied one
proves nothing.

Structural (no norm bound), controls = "attention" (F = 0, b = 0):
  α̇ = V(I + ΣA)α is linear homogeneous, α(t) = Ψ(t)α₀ with Ψ(t) invertible (a fundamental
  matrix): α₀ = 0 ⇒ α ≡ 0; α₀ ≠ 0 ⇒ α(t) ≠ 0; d = 1 ⇒ the sign of α is preserved.

Norm bounds (``max_norm`` m; each phase has ‖F‖_F, ‖A‖_F, ‖b‖ ≤ m and V ∈ {0, I} or ‖V‖_F ≤ m,
so ‖V‖₂ ≤ v := max(1, m)).  With J = F + VΣA (Σ̇ = JΣ + ΣJᵀ, Σ(t) = Φ(t,s)Σ(s)Φ(t,s)ᵀ):

* λ := λ_max(Σ(t)) satisfies |d/dt ln λ| ≤ 2‖J‖₂ ≤ 2(m_F + cλ) a.e. (Grönwall on Φ(t,s) and
  Φ(s,t) = Φ(t,s)⁻¹), with m_F = m when F is free (else 0) and c = v·m when attention is free
  (else 0).  For u = 1/λ: |u̇| ≤ 2(m_F u + c), hence
      m_F > 0:  e^{−2m_F T} ≤ (u₁ + c/m_F)/(u₀ + c/m_F) ≤ e^{2m_F T},
      m_F = 0:  |u₁ − u₀| ≤ 2cT.
* feed-forward only (V = A = 0): Σ₁ = MΣ₀Mᵀ with M = Π e^{F_kτ_k}, ‖M‖₂, ‖M⁻¹‖₂ ≤ e^{mT}; by
  Ostrowski's theorem (Horn–Johnson 4.5.9) λ_k(Σ₁) = θ_kλ_k(Σ₀), θ_k ∈ [e^{−2mT}, e^{2mT}], for
  every k (ascending order); for full rank also |ln det Σ₁ − ln det Σ₀| = 2|Σ τ_k tr F_k|
  ≤ 2√d·m·T; and the mean: d|α|/dt ≤ m|α| + m, so ‖α₁‖ + 1 ≤ (‖α₀‖ + 1)e^{mT} and back.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from ..exact.rational import frac_str, qmat
from ..exact import working_precision
from ._certified import PREC, arb_q, eig_brackets

__all__ = ["attention_mean_obstruction", "norm_obstruction"]


def attention_mean_obstruction(m0, m1) -> str | None:
    """Exact reason why attention-only controls (F = 0, b = 0) cannot move α₀ to α₁, or None.

    With F = b = 0 the mean solves the linear homogeneous ODE α̇ = V(I + ΣA)α, α(t) = Ψ(t)α₀ with
    Ψ(t) invertible: α₀ = 0 ⟺ α ≡ 0, and in d = 1 the sign of α is kept.
    """
    a0, a1 = any(m0), any(m1)
    if not a0 and a1:
        return ("α₀ = 0 and α₁ ≠ 0: with F = 0, b = 0 the mean solves the linear homogeneous "
                "ODE α̇ = V(I + ΣA)α, so α ≡ 0")
    if a0 and not a1:
        return ("α₀ ≠ 0 and α₁ = 0: with F = 0, b = 0 the mean solves α̇ = V(I + ΣA)α, "
                "α(t) = Ψ(t)α₀ with Ψ(t) invertible, so α(t) ≠ 0")
    if len(m0) == 1 and a0 and (m0[0] > 0) != (m1[0] > 0):
        return ("d = 1: α(t) = exp(∫v(1 + σa))·α₀ keeps the sign of α₀, and α₁ has the "
                "opposite sign")
    return None


def _f(x) -> str:
    return f"{float(x):.6g}"


def norm_obstruction(m0, c0, m1, c1, T: Fraction, controls: str, m: Fraction) -> str | None:
    """An exact reason why no schedule with controls bounded by ``m`` (see the module doc) steers
    (α₀, Σ₀) to (α₁, Σ₁) in time T, or None when these necessary conditions hold.
    """
    T, m = Fraction(T), Fraction(m)
    d = len(c0)
    r = qmat(c0).rank()
    mF = m if controls in ("any", "feedforward") else Fraction(0)
    v = max(Fraction(1), m)
    c = v * m if controls in ("any", "attention") else Fraction(0)
    tag = f"controls={controls!r}, max_norm m = {frac_str(m)}, T = {frac_str(T)}"
    with working_precision(PREC):
        if r >= 1:
            br0, br1 = eig_brackets(c0), eig_brackets(c1)
            (l0, u0), (l1, u1) = br0[-1], br1[-1]
            # u = 1/λ_max ∈ [1/u, 1/l]  (λ_max > 0 for r ≥ 1; a bracket touching 0 decides nothing)
            if l0 <= 0 or l1 <= 0:
                pass
            elif mF == 0:
                if c == 0:
                    pass
                elif 1 / u1 - 1 / l0 > 2 * c * T or 1 / u0 - 1 / l1 > 2 * c * T:
                    return (f"λ_max(Σ₀) ≈ {_f(u0)}, λ_max(Σ₁) ≈ {_f(u1)}: every admissible schedule "
                            f"has |d/dt (1/λ_max(Σ))| ≤ 2‖V‖₂‖A‖_F ≤ 2·{_f(c)} (‖V‖₂ ≤ max(1, m)), so "
                            f"|1/λ_max(Σ₁) − 1/λ_max(Σ₀)| ≤ {_f(2 * c * T)}; here it is > that "
                            f"(exact rational brackets of the eigenvalues; {tag})")
            else:
                k = c / mF
                w0_lo, w0_hi = 1 / u0 + k, 1 / l0 + k
                w1_lo, w1_hi = 1 / u1 + k, 1 / l1 + k
                e = (arb_q(2 * mF * T)).exp()
                if arb_q(w1_lo / w0_hi) > e or arb_q(w0_lo / w1_hi) > e:
                    what = ("λ_max(Σ) can change at most by the factor e^{±2mT}" if c == 0 else
                            f"w = 1/λ_max(Σ) + c/m_F (c = max(1, m)·m) can change at most by the "
                            f"factor e^{{±2mT}}")
                    return (f"λ_max(Σ₀) ≈ {_f(u0)}, λ_max(Σ₁) ≈ {_f(u1)}: {what} "
                            f"(‖J‖₂ ≤ ‖F‖_F + ‖V‖₂‖Σ‖₂‖A‖_F and Grönwall on Σ = ΦΣ₀Φᵀ), "
                            f"e^{{2mT}} ≈ {_f(math.exp(float(2 * mF * T)))}; violated "
                            f"(rigorous: rational eigenvalue brackets, arb exp; {tag})")
            if controls == "feedforward":
                e = (arb_q(2 * m * T)).exp()
                for k_, ((lo0, hi0), (lo1, hi1)) in enumerate(zip(br0, br1), start=1):
                    if hi0 == 0:
                        continue
                    if (lo0 > 0 and arb_q(lo1 / hi0) > e) or (lo1 > 0 and arb_q(lo0 / hi1) > e):
                        return (f"eigenvalue λ_{k_} (ascending): Σ₀ ≈ {_f(hi0)}, Σ₁ ≈ {_f(hi1)}; with "
                                f"V = A = 0, Σ₁ = MΣ₀Mᵀ, M = Π e^{{F_kτ_k}}, ‖M‖₂, ‖M⁻¹‖₂ ≤ e^{{mT}}, so by "
                                f"Ostrowski's theorem every eigenvalue ratio lies in [e^{{−2mT}}, e^{{2mT}}] "
                                f"= [{_f(1 / math.exp(float(2 * m * T)))}, "
                                f"{_f(math.exp(float(2 * m * T)))}]; violated (rigorous; {tag})")
                if r == d:
                    det0, det1 = qmat(c0).det(), qmat(c1).det()
                    ld = abs((flint.arb(det1) / flint.arb(det0)).log())
                    bound = arb_q(2 * m * T) * flint.arb(d).sqrt()
                    if ld > bound:
                        return (f"|ln det Σ₁ − ln det Σ₀| ≈ {float(ld.mid()):.6g} > 2√d·m·T ≈ "
                                f"{float(bound.mid()):.6g}: with V = A = 0, d/dt ln det Σ = 2 tr F and "
                                f"|tr F| ≤ √d‖F‖_F ≤ √d·m (rigorous, arb; {tag})")
        if controls == "feedforward":
            n0 = sum((arb_q(x) ** 2 for x in m0), flint.arb(0)).sqrt()
            n1 = sum((arb_q(x) ** 2 for x in m1), flint.arb(0)).sqrt()
            e = arb_q(m * T).exp()
            if n1 + 1 > (n0 + 1) * e or n0 + 1 > (n1 + 1) * e:
                return (f"‖α₀‖ ≈ {float(n0.mid()):.6g}, ‖α₁‖ ≈ {float(n1.mid()):.6g}: with V = A = 0, "
                        f"d‖α‖/dt ≤ ‖F‖₂‖α‖ + ‖b‖ ≤ m(‖α‖ + 1), so (‖α‖ + 1) changes at most by the "
                        f"factor e^{{mT}} ≈ {_f(math.exp(float(m * T)))} (rigorous, arb; {tag})")
    return None
