"""Deciders of catalogue claims by matrix-form proofs for every dimension (issue 20).

Each decider returns a :class:`~symbolic_tf.spec.verdict.Verdict` whose evidence names the
*kind of evidence* (``evidence_kind``, see :data:`EVIDENCE_KINDS`) and carries the certificate
that the independent checker re-verified:

* ``proof for every d`` — a replayed ``matrix-identity`` proof
  (:mod:`symbolic_tf.certify.check.matrix_proofs`) or a replayed operator-inequality theorem;
* ``certified counterexample`` — an exact witness (a ``matrix-identity`` REFUTED certificate, or
  the non-closure witness of :func:`symbolic_tf.symbolic.closure.decide_invariance`).

The remaining kinds (``proof for fixed d``, ``no counterexample in N examples``) are assigned by
the runner (:func:`symbolic_tf.conjectures.core.verify`).  docs/mathematics.md §10.
"""
from __future__ import annotations

from ..spec.verdict import PROVED, REFUTED, UNDECIDED, Verdict

__all__ = ["gradient_flow", "EVIDENCE_KINDS", "EVERY_D", "FIXED_D", "COUNTEREXAMPLE", "by_matrix_proofs", "refuted_by_witness", "refuted_by_given_witness",
           "closure_every_d", "growth_every_d", "by_theorem"]

EVERY_D = "proof for every d"
FIXED_D = "proof for fixed d"
COUNTEREXAMPLE = "certified counterexample"
SEARCHED = "no counterexample in N examples"
UNDECIDED_KIND = "undecided"
EVIDENCE_KINDS = (EVERY_D, FIXED_D, COUNTEREXAMPLE, SEARCHED, UNDECIDED_KIND)

#: the matrix-form closure proofs of each Gaussian-closed variant (docs/mathematics.md §3)
CLOSURE_PROOFS = {
    "softmax": ("closure-softmax", "covariance-softmax"),
    "l2": ("closure-l2", "covariance-l2"),
    "sinkhorn": ("closure-sinkhorn", "mean-sinkhorn", "marginal-sinkhorn"),
    "linear": ("closure-linear", "covariance-linear"),
    "multihead": ("closure-multihead", "covariance-multihead"),
}


def by_matrix_proofs(claim: str, *names: str) -> Verdict:
    """PROVED for every d by the named proofs of :mod:`symbolic_tf.certify.search.matrix_proofs.library`,
    each turned into a certificate and re-verified by the independent checker.

    Parameters
    ----------
    claim : str
        The claim's words.
    *names : str
        Proof names (:data:`symbolic_tf.certify.search.matrix_proofs.library.NAMES`).

    Returns
    -------
    Verdict
        PROVED with evidence kind ``proof for every d`` and the checked certificates, or
        UNDECIDED when a proof does not check.
    """
    from ..certify.check import check
    from ..certify.search.matrix_proofs import library as L
    from ..certify.search.matrix_proofs.certificates import identity_certificate

    certs, texts = [], []
    for n in names:
        cert = identity_certificate(L.proof(n)).to_dict()
        res = check(cert)
        if res.status != PROVED:
            return Verdict(UNDECIDED, claim, reason=f"proof {n} did not check")
        certs.append(cert)
        texts.append(res.claim_text)
    return Verdict(PROVED, claim, "matrix-form proof",
                   evidence={"evidence_kind": EVERY_D, "proofs": list(names), "certificates": certs, "claims": texts},
                   reason="matrix-form proof for every d: " + ", ".join(names) + " (replayed and guarded by the checker)")


#: the matrix-form proofs of Sinkhorn's Bures–Wasserstein gradient velocity (A = Aᵀ, V = A), for every d
SINKHORN_BW_PROOFS = ("sinkhorn-value-stationary", "sinkhorn-value-gradient", "sinkhorn-gradient-velocity")


def gradient_flow(variant: str, metric: str, d: int, symmetric: bool = False, A=None, V=None) -> Verdict:
    """Is the variant's flow a gradient flow for ``metric``?  The engine of ``symtf gradient-flow``.

    :func:`~symbolic_tf.symbolic.energy_structure.decide_gradient_flow`, except that Sinkhorn's
    Bures–Wasserstein statement (A = Aᵀ, V = A: Σ̇ = ½((P+R)Σ + Σ(P+R)), the gradient velocity of
    ½·the entropic self-transport value) is decided for every d by the same matrix-form proofs the
    catalogue uses — one engine, one answer; the d-specific numerical cross-check stays as evidence.

    Parameters
    ----------
    variant : str
        ``"softmax"`` or ``"sinkhorn"``.
    metric : str
        ``"twisted"``, ``"wasserstein"`` or ``"bures-wasserstein"``.
    d : int
        The dimension of the explicit check.
    symmetric : bool
        Restrict to symmetric A (softmax).
    A, V : sequence of sequence of rationals, optional
        A given pair (softmax, twisted metric): the condition on M = VA⁻¹ decided for it.

    Returns
    -------
    Verdict
        PROVED (for every d, with the proofs' certificates) or the explicit decision.
    """
    from ..symbolic.energy_structure import decide_gradient_flow

    v = decide_gradient_flow(variant, metric, d, symmetric=symmetric, A=A, V=V)
    if metric != "bures-wasserstein" or v.status == PROVED:
        return v
    p = by_matrix_proofs(v.claim.replace(f"d = {d}: ", "every d: ", 1), *SINKHORN_BW_PROOFS)
    if p.status != PROVED:
        return v
    return Verdict(PROVED, p.claim, p.argument, evidence=p.evidence, numerical=v.numerical,
                   reason=p.reason + f"; in d = {d} the numerical cross-check agrees ({v.reason})")


def refuted_by_witness(claim: str, statement: dict, dims=(2,)) -> Verdict:
    """REFUTED by an exact witness of a false matrix statement (a checked REFUTED certificate).

    Parameters
    ----------
    claim : str
        The claim's words.
    statement : dict
        A matrix-form statement (a proof document without steps).
    dims : tuple of int
        The dimensions searched for a witness.

    Returns
    -------
    Verdict
        REFUTED with evidence kind ``certified counterexample``, the certificate and the witness,
        or UNDECIDED when none is found or it does not check.
    """
    from ..certify.check import check
    from ..certify.search.matrix_proofs.certificates import search_witness, witness_certificate

    w = search_witness(statement, dims=dims)
    if w is None:
        return Verdict(UNDECIDED, claim, reason="no exact witness found")
    cert = witness_certificate(statement, w).to_dict()
    res = check(cert)
    if res.status != REFUTED:
        return Verdict(UNDECIDED, claim, reason="the witness did not check")
    return Verdict(REFUTED, claim, "exact witness", evidence={"evidence_kind": COUNTEREXAMPLE, "certificate": cert,
                                                              "witness": w},
                   reason=f"exact witness at d = {w['d']}: the two sides differ (certificate checked)")


def refuted_by_given_witness(statement: dict, witness: dict) -> Verdict:
    """REFUTED by a constructed exact witness (a checked REFUTED ``matrix-identity`` certificate).

    Parameters
    ----------
    statement : dict
        A matrix-form statement (a proof document without steps).
    witness : dict
        ``{"d": n, "values": {...}}``, an exact point satisfying the hypotheses.

    Returns
    -------
    Verdict
        REFUTED (the claim text from the checker) with the certificate, or UNDECIDED when the
        witness does not check.
    """
    from ..certify.check import check
    from ..certify.search.matrix_proofs.certificates import witness_certificate

    cert = witness_certificate(statement, witness).to_dict()
    res = check(cert)
    claim = res.claim_text
    if res.status != REFUTED:
        return Verdict(UNDECIDED, claim, reason="the witness did not check")
    return Verdict(REFUTED, claim, "exact witness", evidence={"evidence_kind": COUNTEREXAMPLE, "certificate": cert,
                                                              "witness": witness},
                   reason=f"exact witness at d = {witness['d']} satisfying every hypothesis: the two sides differ")


def closure_every_d(name: str) -> Verdict:
    """Gaussian closure of a variant: PROVED for every d by its matrix-form closure proofs, or
    REFUTED by the engine's exact non-closure witness.

    Parameters
    ----------
    name : str
        A variant name.

    Returns
    -------
    Verdict
        PROVED (``proof for every d``, else ``proof for fixed d`` from the engine), REFUTED
        (``certified counterexample``), or the engine's UNDECIDED verdict.
    """
    from ..symbolic.closure import decide_invariance

    v = decide_invariance(name)
    claim = v.claim
    if v.status == REFUTED:
        ev = dict(v.evidence)
        ev["evidence_kind"] = COUNTEREXAMPLE
        return Verdict(REFUTED, claim, v.argument, evidence=ev, reason=v.reason)
    if v.status == PROVED and name in CLOSURE_PROOFS:
        w = by_matrix_proofs(claim, *CLOSURE_PROOFS[name])
        if w.status == PROVED:
            w.evidence["engine"] = v.evidence
            return w
    if v.status == PROVED:
        ev = dict(v.evidence)
        ev["evidence_kind"] = FIXED_D
        return Verdict(PROVED, claim, v.argument, evidence=ev, reason=v.reason)
    return v


def growth_every_d(claim: str, theorem: str) -> Verdict:
    """No finite-time blow-up for every d: the stored operator-inequality theorem replayed
    (docs/mathematics.md §10: with it, ‖Σ̇‖ ≤ γ‖Σ‖ and Grönwall).

    Parameters
    ----------
    claim : str
        The claim's words.
    theorem : str
        A stored theorem name (e.g. ``"l2-growth"``).

    Returns
    -------
    Verdict
        PROVED with evidence kind ``proof for every d``, the theorem's SHA-256 and its statement,
        or UNDECIDED when it does not replay.
    """
    return by_theorem(claim, theorem, "‖Σ̇‖ ≤ γ‖Σ‖ with γ from the parameters (Grönwall); each instance is "
                                      "certified by the kind exponential-growth-theorem")


def by_theorem(claim: str, theorem: str, consequence: str) -> Verdict:
    """PROVED for every d by a stored operator-inequality theorem, replayed (docs/mathematics.md §10).

    Parameters
    ----------
    claim : str
        The claim's words.
    theorem : str
        A stored theorem name (:data:`symbolic_tf.certify.search.matrix_proofs.library.THEOREMS`).
    consequence : str
        How the claim follows from the theorem's conclusions (the words of the reason).

    Returns
    -------
    Verdict
        PROVED with evidence kind ``proof for every d``, the theorem's SHA-256 and its statement,
        or UNDECIDED when it does not replay.
    """
    from ..certify.check.matrix_proofs.order import stored_theorem
    from ..spec.errors import CertificationFailed

    try:
        sha, params = stored_theorem(theorem)
    except CertificationFailed as exc:
        return Verdict(UNDECIDED, claim, reason=f"the theorem did not replay: {exc}")
    return Verdict(PROVED, claim, "matrix-form theorem",
                   evidence={"evidence_kind": EVERY_D, "theorem": theorem, "theorem_sha256": sha, "statement": params},
                   reason=f"theorem {theorem} replayed (every d): " + "; ".join(params["conclusions"])
                          + " ⇒ " + consequence)
