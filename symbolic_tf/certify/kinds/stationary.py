"""Checker of ``stationary`` certificates: Σ̇(Σ₀) = 0 exactly, so Σ(t) = Σ₀ for all t.

The covariance equation is an autonomous ODE with a locally Lipschitz right-hand side; if it
vanishes at Σ₀, the constant Σ(t) ≡ Σ₀ is a solution and, by uniqueness, *the* solution.  The
right-hand side is recomputed here exactly from the embedded problem:

* softmax / multi-head softmax (± drift): Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ),
  C_h = W_hV_h, A_h scaled by the temperature (docs/certification.md);
* any other Gaussian-closed variant (ℓ2, Sinkhorn, linear) only at Σ₀ = 0, where the
  congruence form Σ(t) = Φ(t)Σ₀Φ(t)ᵀ gives Σ ≡ 0 whatever J is.
"""
from __future__ import annotations

import flint

from ...exact.rational import qmat
from ...spec.errors import CertificationFailed
from ...spec.errors import InvalidParameters
from ...variants import get as get_variant, quadratic_heads
from ..check import kind
from ..claims import Claim, Quantifier



def _fail(msg):
    raise CertificationFailed(f"stationary certificate: {msg}")


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
        F = qmat(problem.F)
        G += F * S + S * F.transpose()
    for C, A in pairs:
        G += C * S * A * S + S * A.transpose() * S * C.transpose()
    return G


@kind("stationary", {})
def check_stationary(cert, problem):
    """PROVED: for this Σ₀, Σ(t) = Σ₀ for all t (an equilibrium of rank rank Σ₀).

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem, with Σ₀ and a Gaussian-closed variant.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
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
        _fail(f"variant {problem.variant!r} is not covered")
    S = qmat(problem.cov)
    zero = all(S[i, j] == 0 for i in range(problem.d) for j in range(problem.d))
    if not zero:
        G = covariance_rhs_exact(problem, S)
        if G is None:
            _fail("the right-hand side can be evaluated exactly only for softmax / multi-head softmax (Σ₀ ≠ 0)")
        if any(G[i, j] != 0 for i in range(problem.d) for j in range(problem.d)):
            _fail("Σ̇(Σ₀) ≠ 0")
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, {"stationary": True, "rank": S.rank()})
