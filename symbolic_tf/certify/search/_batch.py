"""Fast certified blow-up brackets for many Σ₀ at once (softmax, V = vI, no drift).

For Σ₀ ≻ 0, X(t) = Σ₀⁻¹ − tR with R = v(A + Aᵀ) (docs/mathematics.md §4: Σ(t) = (Σ₀⁻¹ − tR)⁻¹), and
T* is the first t where X(t) is singular.  A float eigenvalue computation, batched over all
Σ₀, *guesses* T*; each bracket [lo, hi] (dyadic rationals around the guess) is then decided
exactly: X(lo) ≻ 0 by an exact LDLᵀ (X is affine in t and X(0) ≻ 0, so PD on [0, lo]) and a
rational w with wᵀX(hi)w ≤ 0.  One ``blowup-riccati-vI-batch`` certificate holds them all;
:mod:`symbolic_tf.certify.check.kinds.blowup_riccati_vI_batch` re-verifies every member.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...exact.definiteness import pd_or_witness
from ...exact.rational import frac_str
from ..check.certificate import Certificate, mat_str

__all__ = ["blowup_brackets_batch"]


def _inv(S):
    from ...exact.rational import qmat, qmat_to_fractions

    return qmat_to_fractions(qmat(S).inv())


def blowup_brackets_batch(A, v, Sigma0s, rel_width: float = 1e-12, problem_label: str | None = None):
    """Certified [T_lo, T_hi] for each positive-definite Σ₀ (exact rational inputs).

    Returns (brackets, certificate): brackets[i] is (T_lo, T_hi) as Fractions, or None when
    Σ₀ does not blow up (λ_max(Σ₀R) ≤ 0) or verification failed (then it is listed in the
    certificate's ``undecided``).
    """
    d = len(A)
    Af = [[Fraction(x) for x in r] for r in A]
    vf = Fraction(v)
    R = tuple(tuple(vf * (Af[i][j] + Af[j][i]) for j in range(d)) for i in range(d))
    Rf = np.array(R, dtype=float)
    S_f = np.array([[[float(x) for x in r] for r in S] for S in Sigma0s])
    # λ_max of Σ₀R (real: similar to Σ₀^{1/2}RΣ₀^{1/2}); batched float guess
    lam = np.linalg.eigvals(S_f @ Rf).real.max(axis=1)
    members, brackets = [], []
    delta = rel_width / 4
    for i, S in enumerate(Sigma0s):
        if not lam[i] > 0:
            brackets.append(None)
            members.append({"Sigma0": mat_str(S), "undecided": "no blow-up guessed (λ_max(Σ₀R) ≤ 0)"})
            continue
        Sinv = _inv(S)
        t = 1.0 / lam[i]
        found = None
        for widen in (1, 100, 10**4, 10**6):
            lo = Fraction(t * (1 - delta * widen))
            hi = Fraction(t * (1 + delta * widen))
            Xlo = tuple(tuple(Sinv[a][b] - lo * R[a][b] for b in range(d)) for a in range(d))
            ok, _ = pd_or_witness(Xlo)
            if not ok:
                continue
            Xhi = tuple(tuple(Sinv[a][b] - hi * R[a][b] for b in range(d)) for a in range(d))
            pd, w = pd_or_witness(Xhi)
            if not pd:
                found = (lo, hi, w)
                break
        if found is None:
            brackets.append(None)
            members.append({"Sigma0": mat_str(S), "undecided": "bracket verification failed"})
            continue
        lo, hi, w = found
        brackets.append((lo, hi))
        members.append({"Sigma0": mat_str(S), "T_lo": frac_str(lo), "T_hi": frac_str(hi),
                        "witness": [frac_str(x) for x in w]})
    claim = "for each listed Σ₀ ≻ 0, softmax with V = vI blows up at T* ∈ [T_lo, T_hi]"
    from ..check.claims import Claim, Quantifier

    claim = Claim("batch-blowup", Quantifier.NONE,
                  {"v": frac_str(vf), "members": sum("undecided" not in m for m in members), "A": mat_str(Af),
                   "brackets": [None if "undecided" in m else [m["T_lo"], m["T_hi"]] for m in members]})
    cert = Certificate(kind="blowup-riccati-vI-batch", claim=claim, status="PROVED",
                       data={"A": mat_str(Af), "v": frac_str(vf), "members": members},
                       notes=[problem_label] if problem_label else [])
    return brackets, cert
