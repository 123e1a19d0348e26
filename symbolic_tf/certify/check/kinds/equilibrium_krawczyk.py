"""Checker of ``equilibrium-krawczyk``: a certified equilibrium of the drift model, general V.

For Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (A = scale·A_problem) on symmetric matrices in the
rational basis E_ii, E_ij + E_ji (i < j; coordinates Σ_ij, i ≤ j, row-major), re-derived here
from the embedded exact problem and the stored rationals alone:

* ``exists-unique``: the Krawczyk operator on X = x̃ + [−r, r]^m,
  K(X) − x̃ = −Y·G(x̃) + (I − Y·DG(X))[−r, r]^m, with G(x̃) exact over ℚ and DG(X) the arb
  enclosure of Δ ↦ FΔ + ΔFᵀ + VΔAΣ + VΣAΔ + ΔAᵀΣVᵀ + ΣAᵀΔVᵀ for Σ ∈ X, lies in the open box
  (−r, r)^m ⇒ exactly one zero of G in X;
* ``pd``: the ball matrix Sigma_mid ± r is PD (ball Cholesky);
* ``stable``: W rational symmetric, W ≻ 0 exactly, −(LᵀW + WL) ball-PD over L ∈ DG(X);
* ``unstable``: W rational symmetric with a positive direction (exact inertia) and LᵀW + WL
  ball-PD over L ∈ DG(X) (Ostrowski–Schneider: DG(Σ*) has an eigenvalue with Re > 0);
* ``mean`` (needs ``stable``): Wm ≻ 0 exactly, −(MᵀWm + WmM) ball-PD for M ∈ F + V + VXA, and
  the interval solution of M(X)α = −b (recomputed) lies in the stated α box.

The claim text must be exactly the one these tokens stand for.  Independent of the search
module :mod:`symbolic_tf.certify.search._equilibrium_krawczyk` (nothing is imported from it).
"""
from __future__ import annotations


import flint

from ....exact.ball import ball_pd
from ....exact.definiteness import definiteness
from ....exact.precision import working_precision
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words, mat_text
from ..krawczyk_box import ball, drift_model, krawczyk, parse_box, rat, square


def _fail(msg):
    raise CertificationFailed(f"equilibrium-krawczyk: {msg}")


_FORGERIES = "tests/soundness/forgeries/test_equilibrium.py"
#: the hypotheses of each part of the claim, checked from the data and the embedded problem
HYPOTHESES = (
    Hypothesis("one-softmax-head", "The embedded problem is one softmax head with constant parameters and an "
               "optional drift: G(Σ) = FΣ + ΣFᵀ + VΣÃΣ + ΣÃᵀΣVᵀ, Ã = τ·A, any V (no other variant, no head sum).",
               f"{_FORGERIES}::test_another_variant_is_rejected"),
    Hypothesis("parts-consistent", "The stated parts include exists-unique, are distinct known tokens, stable and "
               "unstable exclude each other and mean comes with stable; the status is PROVED.",
               f"{_FORGERIES}::test_stable_and_unstable_together_are_rejected"),
    Hypothesis("box-well-formed", "Sigma_mid is a symmetric d×d rational matrix, the radius r > 0 and Y is m×m, "
               "m = d(d+1)/2 (coordinates Σ_ij, i ≤ j).", f"{_FORGERIES}::test_zero_radius_is_rejected"),
    Hypothesis("krawczyk-inclusion", "K(X) − x̃ = −Y·G(x̃) + (I − Y·DG(X))[−r, r]^m lies in the open box (−r, r)^m, "
               "G(x̃) exact and DG(X) enclosed over every Σ in X = Sigma_mid ± r: G has exactly one zero Σ* in X "
               "(the claim's box).", f"{_FORGERIES}::test_box_of_other_parameters_is_rejected"),
    Hypothesis("pd", "For the part pd: every Σ in X is positive definite (ball Cholesky), so Σ* ≻ 0; Σ = 0 is "
               "always an equilibrium and must not be called one.", f"{_FORGERIES}::test_zero_equilibrium_called_pd_is_rejected"),
    Hypothesis("stable-lyapunov", "For the part stable: W is given, symmetric and exactly positive definite, and "
               "−(LᵀW + WL) is ball-PD for every L in DG(X): the linearisation at Σ* is Hurwitz.",
               f"{_FORGERIES}::test_unstable_equilibrium_called_stable_is_rejected"),
    Hypothesis("unstable-inertia", "For the part unstable: W is given, symmetric with a positive direction (exact "
               "inertia) and LᵀW + WL is ball-PD over DG(X): by Ostrowski–Schneider DG(Σ*) has an eigenvalue with "
               "positive real part.", f"{_FORGERIES}::test_stable_equilibrium_called_unstable_is_rejected"),
    Hypothesis("mean-hurwitz", "For the part mean: the mean data are given, Wm ≻ 0 exactly and −(MᵀWm + WmM) is "
               "ball-PD for every M in F + V + VXÃ, so M* = F + V + VΣ*Ã is Hurwitz and α̇ = M(Σ(t))α + b "
               "converges to α* = −M*⁻¹b whenever Σ(t) → Σ*.", f"{_FORGERIES}::test_mean_without_a_hurwitz_certificate_is_rejected"),
    Hypothesis("mean-box", "For the part mean: the interval solution of M(X)α = −b, recomputed from the problem's "
               "b, lies in the stated α box alpha_mid ± alpha_rad (radii ≥ 0).",
               f"{_FORGERIES}::test_mean_box_of_another_bias_is_rejected"),
)


def _sym_W(raw, n, what):
    W = square(raw, n, what, _fail)
    if W != W.transpose():
        _fail(f"{what} is not symmetric")
    return W


#: the words of each part an equilibrium enclosure may claim
EQ_PART_TEXT = {
    "exists-unique": ("Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ has exactly one equilibrium Σ* among the symmetric Σ "
                      "with |Σ_ij − Sigma_mid_ij| ≤ r for all i, j"),
    "pd": "Σ* is positive definite",
    "stable": "Σ* is locally exponentially stable (the linearisation on symmetric matrices is Hurwitz)",
    "unstable": "Σ* is unstable (the linearisation has an eigenvalue with positive real part)",
    "mean": ("along every solution with Σ(t) → Σ* the mean converges to α* = −M*⁻¹b, "
             "M* = F + V + VΣ*A Hurwitz, with |α*_i − alpha_mid_i| ≤ alpha_rad_i"),
}
EQ_PART_ORDER = ("exists-unique", "pd", "stable", "unstable", "mean")


@claim_words("equilibrium-enclosure")
def _eq_enclosure(p):
    parts = [c for c in EQ_PART_ORDER if c in p.get("parts", [])]
    alpha = (f", alpha_mid = [{', '.join(str(x) for x in p['alpha_mid'])}], alpha_rad = "
             f"[{', '.join(str(x) for x in p.get('alpha_rad', []))}]" if "alpha_mid" in p else "")
    return ("; ".join(EQ_PART_TEXT[c] for c in parts)
            + f" (r = {p.get('r')}, Sigma_mid = {mat_text(p.get('Sigma_mid', []))}{alpha})")


@kind("equilibrium-krawczyk", {"basis": ("enum", "svec-upper"), "prec": "int", "claims": "str[]",
                                "Sigma_mid": "rat[][]", "r": "rat", "Y": "rat[][]", "K_rad?": "str",
                                "W?": "rat[][]",
                                "mean?": {"W": "rat[][]", "alpha_mid": "rat[]", "alpha_rad": "rat[]"}},
      hypotheses=HYPOTHESES)
def check_equilibrium_krawczyk(cert, problem):
    """PROVED: a property of the parameters — an equilibrium Σ* exists uniquely in the box,
    (PD, locally stable or unstable, the mean's limit).  Local: it decides no Σ₀ by itself.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (the drift model with one quadratic head).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("equilibrium-enclosure", NONE, {"parts", "Sigma_mid", "r"}))`` — a property
        of the parameters, no regime of Σ₀.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the Krawczyk inclusion or a stored part (PD, stability, mean) fails.
    """
    from ....exact.rational import frac_str

    _check_equilibrium_krawczyk(cert, problem)
    data = cert.data
    params = {"parts": [c for c in EQ_PART_ORDER if c in data["claims"]],
              "Sigma_mid": [[frac_str(rat(x)) for x in row] for row in data["Sigma_mid"]], "r": frac_str(rat(data["r"]))}
    if "mean" in params["parts"]:  # the α* box is part of what is claimed
        params["alpha_mid"] = [frac_str(rat(x)) for x in data["mean"]["alpha_mid"]]
        params["alpha_rad"] = [frac_str(rat(x)) for x in data["mean"]["alpha_rad"]]
    return "PROVED", Claim("equilibrium-enclosure", Quantifier.NONE, params)


def _check_equilibrium_krawczyk(cert, problem):
    F, V, A = drift_model(problem, _fail)
    data = cert.data
    if data.get("basis") != "svec-upper":
        _fail("unknown coordinate basis (expected 'svec-upper')")
    claims = data["claims"]
    if not isinstance(claims, list) or any(c not in EQ_PART_TEXT for c in claims) or len(set(claims)) != len(claims):
        _fail("claims must be distinct tokens among " + ", ".join(EQ_PART_ORDER))
    if "exists-unique" not in claims:
        _fail("the claims must include 'exists-unique'")
    if "stable" in claims and "unstable" in claims:
        _fail("'stable' and 'unstable' exclude each other")
    if "mean" in claims and "stable" not in claims:
        _fail("'mean' needs 'stable'")
    if cert.status != "PROVED":
        _fail("status must be PROVED")
    prec = int(data.get("prec", 128))
    if not 64 <= prec <= 4096:
        _fail("prec must lie in [64, 4096]")

    d = problem.d
    m = d * (d + 1) // 2
    b = problem.exact.b if problem.b is not None else flint.fmpq_mat(d, 1)
    S, r, Y = parse_box(data, d, _fail)

    with working_precision(prec):
        # --- Krawczyk: K(X) − x̃ ⊂ (−r, r)^m
        Sb, L = krawczyk(F, V, A, S, r, Y, _fail)
        # --- positive definiteness of every Σ in X
        if "pd" in claims and ball_pd(Sb) is not True:
            _fail("the box Sigma_mid ± r is not certified positive definite")
        # --- (in)stability of the linearisation
        if "stable" in claims or "unstable" in claims:
            if "W" not in data:
                _fail("the part (un)stable needs the Lyapunov matrix W")
            W = _sym_W(data["W"], m, "W")
            Wb = ball(W)
            Q = L.transpose() * Wb + Wb * L
            if "stable" in claims:
                if not definiteness(W).pd:
                    _fail("W is not positive definite")
                if ball_pd(Q * (-1)) is not True:
                    _fail("−(LᵀW + WL) is not certified PD over DG(X)")
            else:
                if definiteness(W).pos == 0:
                    _fail("W has no positive direction")
                if ball_pd(Q) is not True:
                    _fail("LᵀW + WL is not certified PD over DG(X)")
        # --- the mean
        if "mean" in claims:
            if "mean" not in data:
                _fail("the part mean needs the mean data (W, alpha_mid, alpha_rad)")
            mean = data["mean"]
            Wm = _sym_W(mean["W"], d, "mean.W")
            if not definiteness(Wm).pd:
                _fail("mean.W is not positive definite")
            Vb = ball(V)
            M = ball(F) + Vb + Vb * Sb * ball(A)
            Wmb = ball(Wm)
            if ball_pd((M.transpose() * Wmb + Wmb * M) * (-1)) is not True:
                _fail("−(MᵀWm + WmM) is not certified PD for M = F + V + VΣA, Σ ∈ X")
            mids, rads = mean["alpha_mid"], mean["alpha_rad"]
            if len(mids) != d or len(rads) != d:
                _fail("alpha box has the wrong length")
            try:
                enc = M.solve(ball(b) * (-1))
            except ZeroDivisionError:
                _fail("M(X)α = −b could not be solved in ball arithmetic")
            for i in range(d):
                rad = rat(rads[i])
                if rad < 0:
                    _fail("alpha radius must be ≥ 0")
                dev = (enc[i, 0] - flint.arb(rat(mids[i]))).abs_upper()
                if not dev <= flint.arb(rad):
                    _fail(f"α* enclosure is not inside the stated box in coordinate {i}")
