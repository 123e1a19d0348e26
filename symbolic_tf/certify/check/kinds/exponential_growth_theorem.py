"""Checker of ``exponential-growth-theorem`` certificates: ℓ2 (KᵀK ≻ 0) and Sinkhorn flows grow
at most exponentially from every Σ₀ ⪰ 0, by a matrix-form theorem valid for every d
(docs/mathematics.md §10, docs/certification.md "Matrix-form proofs").

The data name a stored theorem (``symbolic_tf/certify/matrix_proofs/theorems/<name>.json``)
and its SHA-256; the checker replays that theorem (its identities step by step, its
operator-inequality facts rule by rule, :mod:`symbolic_tf.certify.check.matrix_proofs.order`) and
requires its statement to be exactly the one this kind is defined by:

* ``l2-growth``: for every d, G ≻ 0 and Σ ⪰ 0: 0 ⪯ N := Σ(I + 2GΣ)⁻¹ ≺ (2G)⁻¹.  With
  G = τKᵀK and J = 2τVNA (the ℓ2 closure), ‖N‖₂ ≤ 1/(2λ_min(G)), so
  ‖Σ̇‖₂ ≤ 2‖JΣ‖₂ ≤ (2τ‖V‖₂‖A‖₂/λ_min(G))‖Σ‖₂;
* ``sinkhorn-growth``: the whitened cross-covariance K = Σ^{-1/2}CΣ^{-1/2} of the Gaussian
  self-coupling satisfies I − KKᵀ ⪰ 0, so ‖C‖₂ ≤ ‖Σ‖₂ and, with JΣ = VC,
  ‖Σ̇‖₂ ≤ 2‖V‖₂‖Σ‖₂ (Σ ≻ 0; Σ ⪰ 0 by continuity of the closed-form closure).

With a drift F, 2‖F‖₂ is added.  Then Grönwall: ‖Σ(t)‖₂ ≤ ‖Σ₀‖₂e^{γt}, no finite-time blow-up.
The instance part is exact: u ≥ ‖·‖_F ≥ ‖·‖₂ (u² ≥ Σ entries²), g ≤ λ_min(τKᵀK) (τKᵀK − gI ⪰ 0),
and γ must equal the formula.
"""
from __future__ import annotations


from ....exact.rational import frac_str, parse_frac
from ....spec.errors import CertificationFailed
from ..flows import growth_bound_of
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier
from ..matrix_proofs.order import require_theorem
from .no_blowup import bound_hypotheses, growth_rate

KIND = "exponential-growth-theorem"

_T = "tests/soundness/forgeries/test_growth_theorem.py::"
HYPOTHESES = bound_hypotheses("test_growth_theorem.py") + (
    Hypothesis("theorem", "The data name the stored matrix-form theorem of the variant's bound (l2-growth for ℓ2, "
               "sinkhorn-growth for Sinkhorn), which is replayed step by step and states exactly the operator "
               "inequality this kind is defined by.", _T + "test_other_theorem"),
    Hypothesis("theorem-sha256", "The stored theorem's file has the SHA-256 the certificate names (the proof "
               "replayed is the one the certificate was issued with).", _T + "test_theorem_sha256"),
)

#: the statements this kind is defined by (rendered from the replayed theorem)
STATEMENTS = {
    "inverse-kernel": ("l2-growth", {"name": "ℓ2 growth: 0 ⪯ Σ(I + 2GΣ)⁻¹ ≺ (2G)⁻¹", "symbols": "G (d×d), R (d×d), Σ (d×d)",
                         "hypotheses": ["symmetric: Σ, G, R", "positive definite: G", "RR = Σ"],
                         "conclusions": ["Σ(I + 2·GΣ)⁻¹ ⪰ 0", "1/2·G⁻¹ − Σ(I + 2·GΣ)⁻¹ ≻ 0"]}),
    "coupling": ("sinkhorn-growth", {
        "name": "Sinkhorn growth: the whitened cross-covariance is a contraction",
        "symbols": "B (d×d), C (d×d), Lyy (d×d), S (d×d), Σ (d×d)",
        "hypotheses": ["symmetric: Σ, Lyy, S", "positive definite: Σ, Lyy", "C = BΣ", "SS = Σ", "(Lyy)⁻¹ = Σ − BΣBᵀ"],
        "conclusions": ["Σ − CΣ⁻¹Cᵀ ≻ 0", "I − S⁻¹CS⁻¹S⁻¹CᵀS⁻¹ ⪰ 0"]}),
}


@kind(KIND, {"theorem": "str", "theorem_sha256": "str", "u_V": "rat", "u_F": "rat", "gamma": "rat",
             "u_A?": "rat", "g?": "rat"}, hypotheses=HYPOTHESES)
def check_growth_theorem(cert, problem):
    """PROVED: every Σ₀ ⪰ 0 has a global solution with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (Sinkhorn, or ℓ2 with KᵀK ≻ 0).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("GLOBAL_EXISTENCE", EVERY_PSD, {"gamma": γ}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the stored theorem, its SHA-256 or statement is not the one this kind needs, or γ is not
        :func:`~symbolic_tf.certify.check.kinds.no_blowup.growth_rate`.
    """
    d = cert.data
    bound = growth_bound_of(problem)
    if bound not in STATEMENTS:
        raise CertificationFailed(f"{KIND}: no growth theorem for variant {problem.variant!r}")
    name, expected = STATEMENTS[bound]
    require_theorem(d, name, expected, KIND)
    if bound == "coupling" and ("u_A" in d or "g" in d):
        raise CertificationFailed(f"{KIND}: the Sinkhorn bound takes no u_A, g")
    gamma = growth_rate(d, problem, KIND)
    if parse_frac(d["gamma"]) != gamma:
        raise CertificationFailed(f"{KIND}: the growth rate γ = {frac_str(d['gamma'])} does not follow "
                                  f"from the bounds (they prove γ = {frac_str(gamma)})")
    return "PROVED", Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": frac_str(gamma)})
