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


from ....exact.definiteness import definiteness
from ....exact.rational import frac_str
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..krawczyk_box import check_basin, drift_model, initial_cov


def _fail(msg):
    raise CertificationFailed(f"equilibrium-basin: {msg}")


def basin_hypotheses(T, pre, what, level):
    """The hypotheses of the basin argument shared by ``equilibrium-basin`` and ``tube-basin``
    (:func:`~symbolic_tf.certify.check.krawczyk_box.check_basin`); ``T`` is the forgery file, ``pre`` the
    forgery tests' name prefix, ``what`` the point or box that must lie in the basin and ``level`` the
    (id, test name) of that last hypothesis.

    Parameters
    ----------
    T : str
        The forgery test file (``tests/…::``).
    pre : str
        The forgery tests' name prefix.
    what : str
        The point or box that must lie in the basin.
    level : tuple of (str, str)
        The id and test name of the last hypothesis.

    Returns
    -------
    tuple of Hypothesis
        The shared hypotheses.
    """
    return (
        Hypothesis("single-softmax-head", "The embedded problem is one softmax head with an affine drift, "
                   "Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (F = 0 allowed, A scaled by the temperature): G, DG and "
                   "Q(Δ) = VΔAΔ + ΔAᵀΔVᵀ are those of this flow.", T + f"test_{pre}_other_variant"),
        Hypothesis("constant-parameters", "The parameters do not depend on depth t (no schedule): G is autonomous.",
                   T + f"test_{pre}_schedule"),
        Hypothesis("krawczyk", "Krawczyk: −Y·G(Sigma_mid) + (I − Y·DG(X))·[−r, r]^m lies in the open box (−r, r)^m "
                   "(G(Sigma_mid) exact, DG over every Σ in X = Sigma_mid ± r): X holds exactly one zero Σ* of G.",
                   T + f"test_{pre}_krawczyk_box_misses_the_equilibrium"),
        Hypothesis("equilibrium-full-rank", "Every Σ in X is positive definite (ball Cholesky): the limit Σ* ≻ 0 has "
                   "full rank — the EQUILIBRIUM regime, not a rank-deficient (CLUSTERING) limit.",
                   T + f"test_{pre}_singular_equilibrium"),
        Hypothesis("W-equivalence", "lam_lo > 0, W − lam_lo·D ⪰ 0 and lam_hi·D − W ⪰ 0 (exact; D the svec Gram "
                   "matrix, δᵀDδ = ‖Δ‖_F²): the W-norm and the Frobenius norm are equivalent with these constants.",
                   T + f"test_{pre}_W_bounds_wrong"),
        Hypothesis("norm-bounds", "normV2·I − VᵀV ⪰ 0 and normA2·I − AᵀA ⪰ 0 (exact): ‖V‖₂² ≤ normV2, ‖A‖₂² ≤ normA2.",
                   T + f"test_{pre}_norm_bound_too_small"),
        Hypothesis("quadratic-bound", "c_Q ≥ 0 and c_Q²·lam_lo² ≥ 4·lam_hi·normV2·normA2: ‖svec Q(Δ)‖_W ≤ c_Q·‖δ‖_W².",
                   T + f"test_{pre}_quadratic_bound_too_small"),
        Hypothesis("linear-decay", "kappa > 0 and −(LᵀW + WL) − kappa·W ≻ 0 for every L in the ball DG(X) ∋ DG(Σ*): "
                   "the linear part decays at rate kappa in the W-norm.", T + f"test_{pre}_decay_rate_too_large"),
        Hypothesis("level", "0 < rho and 4·c_Q²·rho < kappa²: on {E ≤ rho}, Ė ≤ −(kappa − 2c_Q√E)·E ≤ "
                   "−(kappa − 2c_Q√rho)·E < 0, so {E ≤ rho} is forward invariant and E → 0.",
                   T + f"test_{pre}_level_too_high"),
        Hypothesis(level[0], f"svec({what} − Σ)ᵀW svec({what} − Σ) < rho for every Σ in X (balls), so "
                   f"for Σ*: {what} lies in the invariant basin {{E < rho}} of Σ*.", T + level[1]),
    )


HYPOTHESES = basin_hypotheses("tests/soundness/forgeries/test_basin.py::", "basin", "Σ₀",
                              ("sigma0-in-level-set", "test_basin_sigma0_outside_the_level_set")) + (
    Hypothesis("sigma0-full-rank", "Σ₀ ≻ 0 exactly (rank d): Σ(t) = Φ(t)Σ₀Φ(t)ᵀ keeps the rank of Σ₀, so only a "
               "full-rank Σ₀ can converge to Σ* ≻ 0.", "tests/soundness/forgeries/test_basin.py::test_basin_singular_sigma0"),
)


_SCHEMA = {"basis": ("enum", "svec-upper"), "prec": "int", "Sigma_mid": "rat[][]", "r": "rat", "Y": "rat[][]",
           "W": "rat[][]", "kappa": "rat", "c_Q": "rat", "rho": "rat", "lam_lo": "rat", "lam_hi": "rat",
           "normV2": "rat", "normA2": "rat"}


@kind("equilibrium-basin", _SCHEMA, hypotheses=HYPOTHESES)
def check_equilibrium_basin(cert, problem):
    """PROVED: for the embedded problem's Σ₀ the solution is global and converges to the unique
    equilibrium Σ* in the box Sigma_mid ± r (regime EQUILIBRIUM, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: the drift model (general V) with Σ₀ ≻ 0 exactly.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", THIS, {"Sigma_mid", "r"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a check 1–7 of the module docstring fails.
    """
    _check(cert, problem)
    data = cert.data
    params = {"Sigma_mid": [[frac_str(x) for x in row] for row in data["Sigma_mid"]],
              "r": frac_str(data["r"])}
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
