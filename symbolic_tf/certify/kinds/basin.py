"""Checker of ``equilibrium-basin``: the problem's own Σ₀ lies in a certified basin of attraction
of a Krawczyk-certified equilibrium Σ* of the drift model (general V).

For Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (A = scale·A_problem) and Δ = Σ − Σ*, exactly
Δ̇ = L*Δ + Q(Δ) with L* = DG(Σ*) and Q(Δ) = VΔAΔ + ΔAᵀΔVᵀ (G is quadratic).  Coordinates
δ = svec-upper(Δ) (Δ_ij, i ≤ j, row-major; basis E_ii, E_ij + E_ji), D = diag(1 on (i, i),
2 on (i, j), i < j), so δᵀDδ = ‖Δ‖_F².  Re-derived here from the embedded exact problem and the
stored rationals alone (nothing is imported from the search code):

1. Krawczyk: K(X) − x̃ = −Y·G(x̃) + (I − Y·DG(X))[−r, r]^m ⊂ (−r, r)^m (G(x̃) exact over ℚ, DG(X)
   the arb enclosure of the linearisation over Σ ∈ X = Sigma_mid ± r) ⇒ X holds exactly one zero
   Σ* of G; every Σ in X is PD (ball Cholesky);
2. λ_lo > 0, W − λ_lo·D ⪰ 0, λ_hi·D − W ⪰ 0 (exact inertia);
3. n_V·I − VᵀV ⪰ 0, n_A·I − AᵀA ⪰ 0 (exact), so ‖V‖₂² ≤ n_V, ‖A‖₂² ≤ n_A;
4. c_Q ≥ 0, c_Q²λ_lo² ≥ 4λ_hi·n_V·n_A (exact) ⇒ ‖q(δ)‖_W ≤ √λ_hi‖Q(Δ)‖_F ≤ 2√(λ_hi n_V n_A)‖Δ‖_F²
   ≤ c_Q‖δ‖_W²   (‖VΔAΔ‖_F ≤ ‖V‖₂‖Δ‖_F‖A‖₂‖Δ‖₂);
5. κ > 0 and −(LᵀW + WL) − κW ball-PD for every L ∈ DG(X) (so for L*);
6. ρ > 0, 4c_Q²ρ < κ² (exact);
7. Σ₀ symmetric and PD exactly (rank d), and svec(Σ₀ − Σ)ᵀW svec(Σ₀ − Σ) < ρ in ball arithmetic
   over every Σ ∈ X (so for Σ*).

Then E = δᵀWδ obeys Ė ≤ −κE + 2c_Q E^{3/2} = −(κ − 2c_Q√E)E ≤ −(κ − 2c_Q√ρ)E < 0 on
{0 < E ≤ ρ}: the compact set {E ≤ ρ} is forward invariant, the solution from Σ₀ is global and
E(t) ≤ E(0)e^{−(κ − 2c_Q√ρ)t} → 0, i.e. Σ(t) → Σ*.  The derived claim is EQUILIBRIUM for THIS
Σ₀ with |Σ*_ij − Sigma_mid_ij| ≤ r.
"""
from __future__ import annotations

from fractions import Fraction

from ...exact.definiteness import definiteness
from ...exact.rational import frac_str
from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier
from .krawczyk_box import check_basin, drift_model, initial_cov


def _fail(msg):
    raise CertificationFailed(f"equilibrium-basin: {msg}")


_SCHEMA = {"basis": ("enum", "svec-upper"), "prec": "int", "Sigma_mid": "rat[][]", "r": "rat", "Y": "rat[][]",
           "W": "rat[][]", "kappa": "rat", "c_Q": "rat", "rho": "rat", "lam_lo": "rat", "lam_hi": "rat",
           "normV2": "rat", "normA2": "rat"}


@kind("equilibrium-basin", _SCHEMA)
def check_equilibrium_basin(cert, problem):
    """PROVED: for the embedded problem's Σ₀ the solution is global and converges to the unique
    equilibrium Σ* in the box Sigma_mid ± r (regime EQUILIBRIUM, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: the drift model (general V) with Σ₀ ≻ 0 exactly.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", THIS, {"Sigma_mid", "r"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a check 1–7 of the module docstring fails.
    """
    _check(cert, problem)
    data = cert.data
    params = {"Sigma_mid": [[frac_str(Fraction(x)) for x in row] for row in data["Sigma_mid"]],
              "r": frac_str(Fraction(data["r"]))}
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, params)


def _check(cert, problem):
    F, V, A = drift_model(problem, _fail)
    if cert.status != "PROVED":
        _fail("status must be PROVED")
    data = cert.data
    prec = int(data["prec"])
    if not 64 <= prec <= 4096:
        _fail("prec must lie in [64, 4096]")
    d = problem.d

    # --- Σ₀: PD exactly (rank d)
    S0 = initial_cov(problem, _fail)
    if not definiteness(S0).pd:
        _fail("Σ₀ is not positive definite (rank < d or indefinite): no basin claim for it")

    check_basin(data, F, V, A, d, S0, prec, "Σ₀", _fail)
