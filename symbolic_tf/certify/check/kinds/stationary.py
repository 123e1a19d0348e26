"""Checker of ``stationary`` certificates: Σ̇(Σ₀) = 0 exactly, so Σ(t) = Σ₀ for all t.

The covariance equation is an autonomous ODE with a locally Lipschitz right-hand side; if it
vanishes at Σ₀, the constant Σ(t) ≡ Σ₀ is a solution and, by uniqueness, *the* solution.  The
right-hand side is recomputed here exactly from the embedded problem:

* softmax / multi-head softmax (± drift): Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ),
  C_h = W_hV_h, A_h scaled by the temperature (docs/certification.md);
* any other Gaussian-closed variant (ℓ2, Sinkhorn, linear) only at Σ₀ = 0, where the
  congruence form Σ(t) = Φ(t)Σ₀Φ(t)ᵀ gives Σ ≡ 0 whatever J is — *as long as J exists*: at
  Σ₀ = 0 the law is a point mass δ_α that moves by α̇ = Γ_{δ_α}(α).  A normalised head (softmax,
  ℓ2, Sinkhorn: a weighted mean of Vy) gives V_hα, so α̇ is linear and global; an un-normalised
  head (linear: (αᵀÃα)Vα) can send α to infinity in finite time (α̇ = α³ from α₀ = 1), so
  there the claim needs α ≡ 0 (α₀ = 0, b = 0).
"""
from __future__ import annotations

import flint

from ....spec.errors import CertificationFailed
from ....spec.errors import InvalidParameters
from ..flows import BISTOCHASTIC, ROW, get as get_variant, quadratic_heads
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier

_T = "tests/soundness/forgeries/test_stationary.py::"
HYPOTHESES = (
    Hypothesis("sigma0-given", "The problem states its Gaussian initial covariance Σ₀ (symmetric ⪰ 0, checked when "
               "the problem is parsed): the claim is about this Σ₀ and its rank.", _T + "test_no_sigma0"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t: Σ̇(Σ₀) = 0 makes Σ₀ an equilibrium "
               "only of an autonomous equation.", _T + "test_schedule"),
    Hypothesis("gaussian-closed", "The variant is Gaussian-closed (its covariance ODE Σ̇ = JΣ + ΣJᵀ describes "
               "the flow); masked, sigmoid and un-normalised attention are not.", _T + "test_variant_not_closed"),
    Hypothesis("quadratic-field", "For Σ₀ ≠ 0 the flow is softmax or multi-head softmax, with or without the "
               "affine drift Fx + b, whose right-hand side FΣ + ΣFᵀ + Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) does not "
               "involve the mean and is evaluated exactly.", _T + "test_sigma0_nonzero_not_quadratic"),
    Hypothesis("rhs-zero", "Σ̇(Σ₀) = 0 exactly over ℚ; by uniqueness of solutions of the locally Lipschitz "
               "autonomous ODE the constant Σ(t) ≡ Σ₀ is the solution.", _T + "test_rhs_not_zero"),
    Hypothesis("point-mass-global", "For Σ₀ = 0 the law is a point mass δ_α whose motion α̇ = Γ(α) exists for all t: "
               "every head is normalised (α̇ linear in α), or α₀ = 0 and b = 0 (α ≡ 0); an un-normalised "
               "(linear) head can make α blow up in finite time.", _T + "test_point_mass_escapes"),
    Hypothesis("rank", "The claimed rank is rank Σ₀ (the claim is re-derived, never read).",
               _T + "test_claimed_rank"),
)



def _fail(msg):
    raise CertificationFailed(f"stationary certificate: {msg}")


def point_mass_reason(problem) -> str | None:
    """Why the point mass δ_α (Σ₀ = 0) may fail to move along a global trajectory, or None when it
    does: every head normalised (α̇ = (F + Σ_h W_hV_h)α + b is linear), or α₀ = 0 and b = 0 (α ≡ 0).

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem (its Σ₀ is 0).

    Returns
    -------
    str or None
        The reason, or None.
    """
    v = get_variant(problem.variant)
    heads = [get_variant(h.variant) for h in problem.heads] if v.composite else [v]
    if all(h.normalisation in (ROW, BISTOCHASTIC) for h in heads):
        return None  # Γ_{δ_α}(x) = Σ_h W_hV_hα + Fx + b: α̇ linear in α, global
    at_rest = (all(e == 0 for e in (problem.mean or ()))
               and all(e == 0 for e in (problem.b or ())))
    if at_rest:
        return None
    return ("Σ₀ = 0 with an un-normalised head needs α₀ = 0 and b = 0: otherwise the point mass "
            "α̇ = (αᵀÃα)Vα + … may escape to infinity in finite time (the solution is not global)")


def _point_mass_global(problem):
    """Σ₀ = 0: the point mass δ_α must move along a global trajectory (module docstring)."""
    why = point_mass_reason(problem)
    if why is not None:
        _fail(why)


def covariance_rhs_exact(problem, S):
    """Σ̇ at Σ = S for softmax / multi-head softmax (± drift), exactly; None for other variants.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem (its heads give the pairs (C_h, A_h), F the drift).
    S : flint.fmpq_mat
        The symmetric d×d point Σ.

    Returns
    -------
    flint.fmpq_mat or None
        Σ̇ = FS + SFᵀ + Σ_h (C_hSA_hS + SA_hᵀSC_hᵀ) exactly, or None when the flow is not quadratic.
    """
    d = problem.d
    try:
        pairs = quadratic_heads(problem)
    except InvalidParameters:
        return None
    G = flint.fmpq_mat(d, d)
    if problem.F is not None:
        F = problem.exact.F
        G += F * S + S * F.transpose()
    for C, A in pairs:
        G += C * S * A * S + S * A.transpose() * S * C.transpose()
    return G


@kind("stationary", {}, hypotheses=HYPOTHESES)
def check_stationary(cert, problem):
    """PROVED: for this Σ₀, Σ(t) = Σ₀ for all t (an equilibrium of rank rank Σ₀).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem, with Σ₀ and a Gaussian-closed variant.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", THIS, {"stationary": True, "rank": rank Σ₀}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When Σ₀ is missing, the variant is not covered, or Σ̇(Σ₀) ≠ 0 exactly.
    """
    if problem.cov is None:
        _fail("the problem has no Σ₀")
    if not get_variant(problem.variant).expected_closed:
        # Σ₀ = 0 is stationary when the Gaussian closure holds (Σ̇ = JΣ + ΣJᵀ vanishes at 0)
        _fail(f"variant {problem.variant!r} is not Gaussian-closed (not covered)")
    S = problem.exact.Sigma0
    zero = all(S[i, j] == 0 for i in range(problem.d) for j in range(problem.d))
    if zero:
        _point_mass_global(problem)
    else:
        G = covariance_rhs_exact(problem, S)
        if G is None:
            _fail("the right-hand side can be evaluated exactly only for softmax / multi-head softmax (Σ₀ ≠ 0)")
        if any(G[i, j] != 0 for i in range(problem.d) for j in range(problem.d)):
            _fail("Σ̇(Σ₀) ≠ 0 exactly: Σ₀ is not an equilibrium")
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": S.rank()})
