"""Checker of ``matrix-identity`` certificates: matrix-form identities for every dimension d
(docs/mathematics.md §10, docs/certification.md "Matrix-form proofs").

The data hold a statement (symbols with shapes, hypotheses, lhs, rhs) and either

* ``steps`` — a proof; the checker replays every named rewriting step
  (:func:`symbolic_tf.certify.check.matrix_proofs.replay.replay`) and runs the numeric guard (every
  step re-evaluated exactly at one random rational point per d = 1…6, the seed derived from
  the proof's content): PROVED; or
* ``witness`` — an exact point (d, a rational value for every symbol) that satisfies every
  hypothesis exactly and where the two sides differ: REFUTED.

Either way the claim is the statement rendered from the data (quantifier "no Σ₀": a property
of matrices, not of one initial covariance).
"""
from __future__ import annotations

from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words
from ..matrix_proofs.replay import check_witness, guard, parse_statement, replay, statement_params

KIND = "matrix-identity"


@claim_words("matrix-identity")
def _matrix_identity(p):
    """A matrix-form identity for every dimension (docs/mathematics.md §10)."""
    hyps = p.get("hypotheses", [])
    where = ("; ".join(str(h) for h in hyps)) if isinstance(hyps, list) and hyps else "no hypothesis"
    return (f"«{p.get('name')}»: for every dimension d ≥ 1 and all real matrices {p.get('symbols')} with {where}, "
            f"wherever every inverse written exists: {p.get('identity')}")


_FORGERIES = "tests/soundness/forgeries/test_matrix_identity.py"
#: the hypotheses of a proof (PROVED) and of a counter-witness (REFUTED)
HYPOTHESES = (
    Hypothesis("statement-well-formed", "The statement declares its symbols with shapes, its hypotheses are among "
               "symmetric, positive definite, equations and derivatives (every differentiated symbol has one), "
               "and both sides are terms in the declared symbols; the claim is rendered from it.",
               f"{_FORGERIES}::test_unknown_hypothesis_kind_is_rejected"),
    Hypothesis("steps-replay", "PROVED: every step is a named rewriting rule whose stated result is what the rule "
               "gives under the hypotheses, and the rewritten sides meet (the numeric guard re-evaluates every step "
               "at random rational points, d = 1 … 6).", f"{_FORGERIES}::test_tampered_step_is_rejected"),
    Hypothesis("sides-meet", "PROVED: the chain of steps ends with the two sides equal; an empty proof only "
               "proves an identity whose sides already agree.", f"{_FORGERIES}::test_false_identity_without_steps_is_rejected"),
    Hypothesis("witness-alone", "REFUTED: a counter-witness certificate carries no proof steps.",
               f"{_FORGERIES}::test_witness_with_steps_is_rejected"),
    Hypothesis("witness-admissible", "REFUTED: the witness gives, for one d in 1 … 12, a value of the declared "
               "shape to every symbol, and satisfies every hypothesis exactly (symmetry, positive definiteness, "
               "equations, symmetric derivatives).", f"{_FORGERIES}::test_witness_violating_a_hypothesis_is_rejected"),
    Hypothesis("witness-differs", "REFUTED: the two sides differ at the witness, exactly.",
               f"{_FORGERIES}::test_witness_where_the_sides_agree_is_rejected"),
)

@kind(KIND, {"proof": "obj", "witness?": "obj"}, needs_problem=False, hypotheses=HYPOTHESES)
def check_matrix_identity(cert, problem):
    """PROVED by a replayed proof, REFUTED by an exact witness.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("matrix-identity", NONE, statement))`` for a replayed proof, or
        ``("REFUTED", ...)`` for a witness at which the two sides differ.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a step does not replay, the numeric guard fails, or the sides agree at the witness.
    """
    doc = cert.data["proof"]
    if "witness" in cert.data:
        if doc.get("steps"):
            raise CertificationFailed("matrix-identity: a witness certificate carries no proof steps")
        st = parse_statement(doc)
        if not check_witness(doc, cert.data["witness"])["differs"]:
            raise CertificationFailed("matrix-identity: the two sides agree at the witness")
        return "REFUTED", Claim("matrix-identity", Quantifier.NONE, statement_params(st))
    st, _ = replay(doc)
    guard(doc)
    return "PROVED", Claim("matrix-identity", Quantifier.NONE, statement_params(st))
