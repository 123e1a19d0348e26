"""The condition on V for the softmax flow to be a gradient flow of its energy (docs/mathematics.md §7).

For A = Aᵀ invertible the softmax velocity is Γ_μ = M∇_x(δE/δμ)/Z_μ with M = VA⁻¹, for every
measure μ (:func:`~symbolic_tf.symbolic.energy.softmax_is_twisted_gradient_flow`).  That identity
alone is not a gradient flow: along the flow (continuity equation ∂_tμ + ∇·(μΓ) = 0)

    dE/dt = ∫⟨∇_x δE/δμ, Γ_μ⟩ dμ = ∫ gᵀ M_s g / Z_μ dμ,   g = ∇_x δE/δμ,  M_s = ½(M + Mᵀ),

so the sign of dE/dt is fixed only when M_s is semidefinite.  The decision for a pair (A, V):

* M symmetric and positive (negative) definite: PROVED — the flow is the gradient ascent of E
  (descent of E) for the metric with mobility ±M/Z_μ; E increases (decreases) monotonically;
* M_s indefinite: REFUTED — exact instances where dE/dt > 0 and where dE/dt < 0, so E is not
  monotone and the flow is the gradient flow of neither E nor −E, for any metric;
* M_s semidefinite with w ∈ ker M_s and Mw ≠ 0: REFUTED — at the Dirac mass δ_α, Aα = w, the
  energy is stationary (dE/dt = 0) while the mass moves (α̇ = Mw ≠ 0); a gradient flow has
  dE/dt = ±|velocity|² in its metric;
* otherwise (M_s definite but M ≠ Mᵀ, or M = Mᵀ semidefinite and singular): UNDECIDED, with the
  monotonicity of E as a proved side claim.

The exact instances.  A Dirac mass δ_α moves by α̇ = Vα and E(δ_α) = ½e^{αᵀAα}, so
dE/dt = e^{αᵀAα}·αᵀAVα = e^{αᵀAα}·wᵀMw with w = Aα.  A Gaussian μ = N(α, Σ): by the tilting
lemma g(x) = Z(x)·A(α + ΣAx) and Γ(x) = V(α + ΣAx), Z(x) = exp(αᵀAx + ½xᵀAΣAx), so

    dE/dt = ∫ Z(x) u(x)ᵀ B u(x) dμ(x) = C · (ūᵀBū + tr(B ΣA P⁻¹ AΣ)),

B = ½(AV + VᵀA) = A M_s A, u = α + ΣAx, C = ∫Z dμ > 0, P = Σ⁻¹ − AΣA ≻ 0 (the tilted law
Z·μ/C is the Gaussian with precision P and mean m = P⁻¹(Σ⁻¹α + Aα)) and ū = α + ΣAm: the sign is
the sign of a rational number.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ..display import matrix_str
from ..spec.errors import InvalidParameters
from ..spec.verdict import PROVED, REFUTED, UNDECIDED, Verdict

__all__ = ["dirac_energy_rate", "gaussian_energy_rate", "twisted_gradient_flow_pair"]


def _mat(X, field: str) -> sp.Matrix:
    try:
        M = sp.Matrix([[sp.Rational(e.numerator, e.denominator) if isinstance(e, Fraction) else sp.Rational(e)
                        for e in row] for row in X])
    except (TypeError, ValueError):
        raise InvalidParameters(field, "expected an exact (rational) matrix") from None
    return M


def _vec(x) -> sp.Matrix:
    return sp.Matrix([sp.Rational(e.numerator, e.denominator) if isinstance(e, Fraction) else sp.Rational(e)
                      for e in x])


def dirac_energy_rate(A, V, alpha) -> tuple:
    """dE/dt of the softmax flow at the Dirac mass δ_α: e^{αᵀAα}·αᵀAVα (A symmetric).

    δ_α moves by α̇ = Γ(α) = Vα and E(δ_α) = ½e^{αᵀAα}, so dE/dt = ½e^{αᵀAα}αᵀ(AV + VᵀA)α.

    Parameters
    ----------
    A, V : sequence of sequence of rationals
        Attention (symmetric) and value matrices, d × d.
    alpha : sequence of rationals
        The position α of the mass.

    Returns
    -------
    tuple of sympy.Rational
        (αᵀAα, ½αᵀ(AV + VᵀA)α): dE/dt = e^{first}·second, of the sign of the second.
    """
    A, V, a = _mat(A, "A"), _mat(V, "V"), _vec(alpha)
    return (a.T * A * a)[0, 0], ((a.T * (A * V + V.T * A) * a)[0, 0]) / 2


def gaussian_energy_rate(A, V, alpha, Sigma) -> dict:
    """dE/dt of the softmax flow at μ = N(α, Σ), A = Aᵀ: dE/dt = C·q with C = ∫Z_μ dμ > 0, q rational.

    q = ūᵀBū + tr(BΣAP⁻¹AΣ), B = ½(AV + VᵀA), P = Σ⁻¹ − AΣA, ū = α + ΣAP⁻¹(Σ⁻¹α + Aα)
    (module docstring); completing the square, C = det(ΣP)^{−1/2}·exp(½(ℓᵀP⁻¹ℓ − αᵀΣ⁻¹α)) with
    ℓ = Σ⁻¹α + Aα.

    Parameters
    ----------
    A, V : sequence of sequence of rationals
        Attention (symmetric) and value matrices, d × d.
    alpha : sequence of rationals
        The mean.
    Sigma : sequence of sequence of rationals
        The covariance, Σ ≻ 0, with P = Σ⁻¹ − AΣA ≻ 0 (E and dE/dt finite).

    Returns
    -------
    dict
        ``q`` (sympy.Rational, the sign of dE/dt), ``C`` (exact SymPy expression, > 0), ``rate``
        (C·q exact) and ``P`` (the tilted precision).  InvalidParameters (field ``Sigma``) when
        Σ is not positive definite or P is not (then E(μ) = +∞).
    """
    A, V, a, S = _mat(A, "A"), _mat(V, "V"), _vec(alpha), _mat(Sigma, "Sigma")
    if S != S.T or not S.is_positive_definite:
        raise InvalidParameters("Sigma", "must be symmetric positive definite")
    Si = S.inv()
    P = Si - A * S * A
    if not P.is_positive_definite:
        raise InvalidParameters("Sigma", "Σ⁻¹ − AΣA is not positive definite: the energy is infinite")
    Pi = P.inv()
    lin = Si * a + A * a
    m = Pi * lin
    ubar = a + S * A * m
    B = (A * V + V.T * A) / 2
    q = (ubar.T * B * ubar)[0, 0] + (B * S * A * Pi * A * S).trace()
    # C = ∫exp(αᵀAx + ½xᵀAΣAx) dN(α, Σ)(x): complete the square with precision P and linear term lin
    quad = (lin.T * Pi * lin)[0, 0] - (a.T * Si * a)[0, 0]
    C = sp.exp(quad / 2) / sp.sqrt((S * P).det())
    return {"q": sp.Rational(q), "C": C, "rate": C * q, "P": P}


def _sign_witness(B: sp.Matrix, sign: int):
    """A rational w with sign·wᵀBw > 0 (basis vectors, pairs, then rounded eigenvectors), or None."""
    d = B.shape[0]
    cands = [sp.Matrix([1 if i == k else 0 for i in range(d)]) for k in range(d)]
    cands += [sp.Matrix([1 if i in (k, l) else 0 for i in range(d)]) for k in range(d) for l in range(k + 1, d)]
    cands += [sp.Matrix([1 if i == k else (-1 if i == l else 0) for i in range(d)])
              for k in range(d) for l in range(k + 1, d)]
    for w in cands:
        if sign * (w.T * B * w)[0, 0] > 0:
            return w
    import numpy as np

    vals, vecs = np.linalg.eigh(np.array(B.tolist(), dtype=float))
    col = vecs[:, -1] if sign > 0 else vecs[:, 0]
    for den in (10, 10**3, 10**6, 10**12):
        w = sp.Matrix([sp.Rational(round(float(c) * den), den) for c in col])
        if sign * (w.T * B * w)[0, 0] > 0:
            return w
    return None


def _gaussian_instance(A, V, alpha, sign):
    """N(α, εI) with the exact rate of the wanted sign (ε = 1/10, 1/100, …), or None."""
    d = A.shape[0]
    for k in range(1, 9):
        eps = sp.Rational(1, 10**k)
        S = eps * sp.eye(d)
        try:
            r = gaussian_energy_rate(A.tolist(), V.tolist(), list(alpha), S.tolist())
        except InvalidParameters:
            continue
        if sign * r["q"] > 0:
            return {"mean": [str(e) for e in alpha], "Sigma": matrix_str(S), "epsilon": str(eps),
                    "q": str(r["q"]), "C": str(r["C"]),
                    "dE_dt": f"C·q = {sp.sstr(r['C'])}·({r['q']})",
                    "sign": "+" if sign > 0 else "−"}
    return None


def _dirac_instance(A, V, w):
    alpha = A.inv() * w
    expo, rate = dirac_energy_rate(A.tolist(), V.tolist(), list(alpha))
    return alpha, {"measure": "Dirac mass δ_α", "alpha": [str(e) for e in alpha], "w = Aα": [str(e) for e in w],
                   "dE_dt": f"exp({expo})·({rate})", "rate_factor": str(rate), "velocity": [str(e) for e in V * alpha]}


def twisted_gradient_flow_pair(A, V) -> Verdict:
    """Decide whether softmax attention with the pair (A, V) is a gradient flow of its energy.

    E(μ) = ½∬e^{yᵀAx}dμdμ; the flow's velocity is Γ_μ = M∇_x(δE/δμ)/Z_μ, M = VA⁻¹, exactly when
    A = Aᵀ, and dE/dt = ∫gᵀM_sg/Z_μ dμ (module docstring).  Everything is decided with exact
    rational arithmetic; the REFUTED instances carry exact rates re-checkable by
    :func:`dirac_energy_rate` and :func:`gaussian_energy_rate`.

    Parameters
    ----------
    A, V : sequence of sequence of rationals (fractions.Fraction, int or str)
        The attention and value matrices, d × d.

    Returns
    -------
    Verdict
        PROVED (M symmetric definite: gradient ascent of E for M ≻ 0, E increases; descent for
        M ≺ 0, E decreases), REFUTED (A ≠ Aᵀ: the velocity identity fails at an exact point;
        M_s indefinite: exact instances with both signs of dE/dt; a Dirac mass that moves while
        dE/dt = 0), or UNDECIDED with the reason.  InvalidParameters (field ``V``) when the
        shapes differ.
    """
    A, V = _mat(A, "A"), _mat(V, "V")
    d = A.shape[0]
    if A.shape != (d, d) or V.shape != (d, d):
        raise InvalidParameters("V", f"A and V must be square of the same size, got {A.shape} and {V.shape}")
    pair = f"A = {matrix_str(A)}, V = {matrix_str(V)}"
    claim = (f"softmax with {pair} is a gradient flow of E(μ) = ½∬e^{{yᵀAx}}dμdμ "
             "(needs A = Aᵀ and M = VA⁻¹ symmetric definite)")
    if A != A.T:
        if A.det() == 0:
            return Verdict(UNDECIDED, claim, reason="A is singular and not symmetric: M = VA⁻¹ is undefined")
        D = V * A.inv() * (A - A.T) / 2
        k = next((k for k in range(d) if any(D[i, k] != 0 for i in range(d))), None)
        if k is None:
            return Verdict(UNDECIDED, claim, reason="A ≠ Aᵀ but VA⁻¹(A − Aᵀ) = 0: the velocity identity "
                                                   "Γ = M∇δE/δμ/Z holds at x = 0 for every α; not decided")
        alpha = sp.Matrix([1 if i == k else 0 for i in range(d)])
        return Verdict(REFUTED, claim, "exact witness",
                       {"alpha": [str(e) for e in alpha], "Sigma": "any", "x": "0",
                        "lhs_velocity": [str(e) for e in V * alpha],
                        "rhs_M_grad_over_Z": [str(e) for e in V * A.inv() * (A + A.T) * alpha / 2],
                        "difference": [str(e) for e in D * alpha]},
                       reason="A ≠ Aᵀ: at x = 0 the velocity is Vα and M∇δE/δμ/Z is ½VA⁻¹(A + Aᵀ)α; they differ "
                              "by ½VA⁻¹(A − Aᵀ)α ≠ 0 here, so Γ is not M∇δE/δμ/Z")
    if A.det() == 0:
        return Verdict(UNDECIDED, claim, reason="A is singular: M = VA⁻¹ is undefined")
    M = V * A.inv()
    Ms = (M + M.T) / 2
    base = {"M": matrix_str(M), "M_sym": matrix_str(Ms), "symmetric": M == M.T,
            "dE_dt": "∫ gᵀ M_sym g / Z_μ dμ, g = ∇_x δE/δμ"}
    if M == M.T and Ms.is_positive_definite:
        return Verdict(PROVED, claim.split(" (needs")[0] + ": gradient ascent, E increases monotonically",
                       "exact linear algebra", {**base, "definite": "positive", "monotone": "increasing"},
                       reason="A = Aᵀ, so Γ_μ = M∇_x(δE/δμ)/Z_μ for every μ, and M = VA⁻¹ is symmetric positive "
                              "definite (exact Cholesky): the gradient ascent of E for the metric with mobility "
                              "M/Z_μ; dE/dt = ∫gᵀMg/Z_μ dμ ≥ 0")
    if M == M.T and (-Ms).is_positive_definite:
        return Verdict(PROVED, claim.split(" (needs")[0] + ": gradient descent, E decreases monotonically",
                       "exact linear algebra", {**base, "definite": "negative", "monotone": "decreasing"},
                       reason="A = Aᵀ, so Γ_μ = M∇_x(δE/δμ)/Z_μ for every μ, and M = VA⁻¹ is symmetric negative "
                              "definite (exact Cholesky of −M): the gradient descent of E for the metric with "
                              "mobility −M/Z_μ; dE/dt = ∫gᵀMg/Z_μ dμ ≤ 0")
    if Ms.is_indefinite:
        instances = []
        for sign in (1, -1):
            w = _sign_witness(Ms, sign)
            if w is None:
                return Verdict(UNDECIDED, claim, reason="M_sym is indefinite but no rational witness was found")
            alpha, inst = _dirac_instance(A, V, w)
            inst["gaussian"] = _gaussian_instance(A, V, alpha, sign)
            instances.append(inst)
        return Verdict(REFUTED, claim, "exact instances", {**base, "definite": "indefinite",
                                                           "increases_at": instances[0], "decreases_at": instances[1]},
                       reason="M_sym = ½(M + Mᵀ) is indefinite: dE/dt = e^{αᵀAα}·wᵀMw (w = Aα) at a Dirac mass "
                              "δ_α is > 0 at one exact instance and < 0 at another (Gaussian instances N(α, εI) "
                              "too): E is not monotone, so the flow is the gradient flow of neither E nor −E")
    # M_s semidefinite (not both signs)
    sgn = 1 if Ms.is_positive_semidefinite else -1
    word = "increases" if sgn > 0 else "decreases"
    for w in Ms.nullspace():
        w = w * sp.lcm([sp.fraction(e)[1] for e in w])
        if M * w != sp.zeros(d, 1):
            _, inst = _dirac_instance(A, V, w)
            return Verdict(REFUTED, claim, "exact instance", {**base, "definite": "semidefinite",
                                                              "stationary_energy_moving_mass": inst},
                           reason="M_sym is semidefinite with M_sym w = 0 but Mw ≠ 0: at the Dirac mass δ_α, Aα = w, "
                                  "dE/dt = e^{αᵀAα}wᵀMw = 0 while the mass moves (α̇ = Vα = Mw ≠ 0); a gradient "
                                  "flow has dE/dt = ±|velocity|² in its metric")
    if M == sp.zeros(d, d):
        return Verdict(UNDECIDED, claim, reason="V = 0: nothing moves")
    return Verdict(UNDECIDED, claim, "exact linear algebra", {**base, "definite": "semidefinite",
                                                            "monotone": "increasing" if sgn > 0 else "decreasing"},
                   reason=f"side claim PROVED: E {word} monotonically (M_sym is semidefinite, dE/dt = "
                          "∫gᵀM_sym g/Z_μ dμ); but M is not symmetric definite, so it is not a twisted gradient "
                          "flow, and whether another metric makes it one is not decided")
