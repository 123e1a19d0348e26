"""Checker of the certificate kind ``head-symA-witness``.

The certificate names a checkpoint file (``model.safetensors``, with its SHA-256), a layer, a
head and an integer vector x.  The checker reads the head's query/key rows itself (the
``safetensors`` reader only; nothing of :mod:`symbolic_tf.models`), takes the float32 weights
at their exact dyadic values, and decides the sign of

    xᵀ(W_KᵀW_Q + W_QᵀW_K)x = 2 (W_K x)·(W_Q x)

in exact rational arithmetic.  A positive value proves n₊(A_h + A_hᵀ) > 0 (A_h = W_KᵀW_Q/√d_h,
the factor 1/√d_h > 0 does not change a sign), hence both

* REFUTED "A_h + A_hᵀ ⪯ 0", and
* PROVED "with V = I the Gaussian flow of A_h blows up from every Σ₀ ≻ 0" (docs/mathematics.md §4:
  Σ(t)⁻¹ = Σ₀⁻¹ − t(A + Aᵀ) loses definiteness since Σ₀^½(A+Aᵀ)Σ₀^½ has a positive eigenvalue).

For the verdict ``conjecture_hypothesis`` (REFUTED "C_hA_h + A_hᵀC_hᵀ ⪯ 0", C_h = W_O,hW_V,h)
the form is xᵀ(C_hA_h + A_hᵀC_hᵀ)x = 2 (W_K W_Vᵀ W_Oᵀ x)·(W_Q x)/√d_h, read from the value
rows and the output-projection columns of the head as well.

The pinned checkpoint and the head partition are read by :mod:`symbolic_tf.certify.check.heads`.
"""
from __future__ import annotations

from fractions import Fraction

from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words
from ..heads import (CHECKPOINT_PINNED, FORGERIES, HEAD_PARTITION, HEAD_SCHEMA, exact_dot_rows, head_claim_params,
                     head_tensors, refuse)

KIND = "head-symA-witness"
CLAIMS = {("REFUTED", "symA_nsd"), ("PROVED", "identity_value_blowup"), ("REFUTED", "conjecture_hypothesis")}

WITNESS_HYPOTHESES = (
    CHECKPOINT_PINNED, HEAD_PARTITION,
    Hypothesis("x-nonzero", "x is a nonzero integer vector of the model's width.",
               f"{FORGERIES}::test_zero_witness_is_rejected"),
    Hypothesis("form-positive", "For the verdicts symA_nsd and identity_value_blowup, (W_K x)·(W_Q x) > 0 exactly, "
               "so xᵀ(A_h + A_hᵀ)x > 0: A_h + A_hᵀ is not ⪯ 0, and with V = I, Σ(t)⁻¹ = Σ₀⁻¹ − t(A_h + A_hᵀ) loses "
               "definiteness in finite time from every Σ₀ ≻ 0.", f"{FORGERIES}::test_negative_direction_is_rejected"),
    Hypothesis("form-of-the-verdict", "For the verdict conjecture_hypothesis the form is the one of C_hA_h + "
               "A_hᵀC_hᵀ, C_h = W_O,hW_V,h: (W_K W_Vᵀ W_Oᵀ x)·(W_Q x) > 0 exactly; a witness of A_h + A_hᵀ does "
               "not serve for it.", f"{FORGERIES}::test_witness_of_the_other_form_is_rejected"),
)

_STATUS = {v: s for s, v in CLAIMS}


_HEAD_TEXT = {"symA_nsd": "A_h + A_hᵀ ⪯ 0",
              "identity_value_blowup": "with V = I the Gaussian flow of A_h blows up from every Σ₀ ≻ 0",
              "conjecture_hypothesis": "C_hA_h + A_hᵀC_hᵀ ⪯ 0"}


@claim_words("head-property")
def _head(p):
    return (f"checkpoint sha256 {str(p.get('sha256'))[:12]}…, layer {p.get('layer')}, head {p.get('head')} "
            f"(d_h = {p.get('head_dim')}): {_HEAD_TEXT.get(p.get('verdict'), '?')}")


@kind(KIND, {**HEAD_SCHEMA, "verdict": ("enum", *sorted(_STATUS)), "x": "int[]"}, needs_problem=False,
      hypotheses=WITNESS_HYPOTHESES)
def check_head_witness(cert, problem):
    """REFUTED "A_h + A_hᵀ ⪯ 0" / PROVED "V = I blows up from every Σ₀ ≻ 0" / REFUTED
    "C_hA_h + A_hᵀC_hᵀ ⪯ 0", from an integer witness x (status derived from the verdict).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        the status derived from the verdict (PROVED or REFUTED) and
        ``Claim("head-property", NONE, {...})``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the checkpoint's SHA-256 differs or the witness does not show the verdict exactly.
    """
    _check_head_witness(cert, problem)
    verdict = cert.data["verdict"]
    return _STATUS[verdict], Claim("head-property", Quantifier.NONE, head_claim_params(cert.data, verdict=verdict))


def _check_head_witness(cert, problem):
    data = cert.data
    x = [int(v) for v in data["x"]]
    if not any(x):
        refuse("the witness x is zero")
    ca = data["verdict"] == "conjecture_hypothesis"
    tensors = head_tensors(data, ca)
    K, Q = tensors[:2]
    if ca:
        V, O = tensors[2:]
    if K.shape[1] != len(x):
        refuse(f"x has {len(x)} entries, the model dimension is {K.shape[1]}")
    if ca:
        left = exact_dot_rows(K, exact_dot_rows(V.T, exact_dot_rows(O.T, x)))  # W_K W_Vᵀ W_Oᵀ x
    else:
        left = exact_dot_rows(K, x)
    val = sum((a * b for a, b in zip(left, exact_dot_rows(Q, x))), Fraction(0))
    if not val > 0:
        refuse(f"xᵀ(A_h + A_hᵀ)x ∝ (W_K x)·(W_Q x) = {val} is not positive")
