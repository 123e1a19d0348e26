"""Checker of ``blowup-riccati-vI-batch`` certificates (every member re-verified exactly)."""
from __future__ import annotations


from ....exact.definiteness import definiteness
from ....exact.rational import fmpq_of, parse_frac, qmat
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words, mat_text


_T = "tests/soundness/forgeries/test_batch.py::"
HYPOTHESES = (
    Hypothesis("A-square", "The claim is about softmax with V = v·I, no drift and constant parameters, for the stated "
               "(temperature-scaled) A, a square d×d matrix: for Σ₀ ≻ 0, P = Σ⁻¹ solves Ṗ = −R with R = v(A + Aᵀ), so "
               "Σ(t) = (Σ₀⁻¹ − tR)⁻¹ (docs/mathematics.md §4).", _T + "test_batch_A_not_square"),
    Hypothesis("members", "At least one member is listed; a member with a bracket states Σ₀, T_lo, T_hi and a witness "
               "(a member marked undecided claims nothing).", _T + "test_batch_members_listed_and_complete"),
    Hypothesis("member-sigma0-pd", "Each decided member's Σ₀ is a symmetric d×d matrix with Σ₀ ≻ 0 (so Σ₀⁻¹ exists "
               "and X(t) = Σ₀⁻¹ − tR).", _T + "test_batch_member_sigma0_not_pd"),
    Hypothesis("member-bracket-order", "0 < T_lo ≤ T_hi for each decided member.", _T + "test_batch_member_bracket_order"),
    Hypothesis("member-pd-at-T_lo", "Σ₀⁻¹ − T_lo·R ≻ 0: X is affine in t with X(0) = Σ₀⁻¹ ≻ 0, so X ≻ 0 on [0, T_lo] "
               "and T* > T_lo.", _T + "test_batch_member_not_pd_at_T_lo"),
    Hypothesis("member-witness", "A rational w ≠ 0 of length d with wᵀ(Σ₀⁻¹ − T_hi·R)w ≤ 0: X(T_hi) is not ≻ 0, so "
               "X turns singular (Σ blows up) at some T* ≤ T_hi.", _T + "test_batch_member_witness"),
)


@claim_words("batch-blowup")
def _batch(p):
    return (f"softmax with V = vI, v = {p.get('v')}, A = {mat_text(p.get('A', []))}: each of the {p.get('members')} "
            f"listed Σ₀ ≻ 0 with a bracket blows up at a T* inside its bracket [T_lo, T_hi]")


@kind("blowup-riccati-vI-batch", {"A": "rat[][]", "v": "rat", "members": "obj[]"}, needs_problem=False,
      hypotheses=HYPOTHESES)
def check_batch(cert, problem):
    """PROVED: each listed Σ₀ ≻ 0 (members with a bracket) blows up inside its bracket.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("batch-blowup", NONE, batch_params(...)))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a member is not Σ₀ ≻ 0 with Σ₀⁻¹ − T_lo·R ≻ 0 and a witness w with wᵀ(Σ₀⁻¹ − T_hi·R)w ≤ 0
        (R = v(A + Aᵀ)), or no member is listed.
    """
    n = _check_batch(cert, problem)
    return "PROVED", Claim("batch-blowup", Quantifier.NONE, batch_params(cert.data, n))


def batch_params(data, n):
    """The claim's parameters: v, A and every member's bracket (None where undecided).

    Parameters
    ----------
    data : dict
        The certificate's data (``v``, ``A``, ``members``).
    n : int
        The number of decided members (those with a bracket).

    Returns
    -------
    dict
        ``{"v", "members": n, "A", "brackets"}`` as exact strings, a bracket [T_lo, T_hi] per member (None
        where undecided).
    """
    from ....exact.rational import frac_str

    return {"v": frac_str(data["v"]), "members": n,
            "A": [[frac_str(x) for x in row] for row in data["A"]],
            "brackets": [None if "undecided" in m else [frac_str(m["T_lo"]), frac_str(m["T_hi"])]
                         for m in data["members"]]}


def _check_batch(cert, problem):
    raw = cert.data["A"]
    d = len(raw)
    if d == 0 or any(len(row) != d for row in raw):
        raise CertificationFailed("batch: A is not a square d×d matrix")
    A = qmat(raw)
    v = parse_frac(cert.data["v"])
    R = (A + A.transpose()) * fmpq_of(v)
    members = cert.data["members"]
    if not members:
        raise CertificationFailed("batch: no members")
    from ..schema import validate

    for k, m in enumerate(members):
        validate(m, {"Sigma0": "rat[][]", "T_lo?": "rat", "T_hi?": "rat", "witness?": "rat[]", "undecided?": "str"},
                 f"members[{k}]")
        if "undecided" in m:
            continue
        missing = [k2 for k2 in ("T_lo", "T_hi", "witness") if k2 not in m]
        if missing:
            raise CertificationFailed(f"batch member {k}: a member with a bracket needs {', '.join(missing)}")
        S = qmat(m["Sigma0"])
        if S.nrows() != d or S != S.transpose() or not definiteness(S).pd:
            raise CertificationFailed(f"batch member {k}: Σ₀ is not symmetric positive definite")
        lo, hi = parse_frac(m["T_lo"]), parse_frac(m["T_hi"])
        if not 0 < lo <= hi:
            raise CertificationFailed(f"batch member {k}: need 0 < T_lo ≤ T_hi")
        Sinv = S.inv()
        if not definiteness(Sinv - R * fmpq_of(lo)).pd:
            raise CertificationFailed(f"batch member {k}: Σ₀⁻¹ − T_lo·R is not positive definite")
        if len(m["witness"]) != d:
            raise CertificationFailed(f"batch member {k}: the witness is not a vector of length {d}")
        w = qmat([[x] for x in m["witness"]])
        if all(w[i, 0] == 0 for i in range(d)):
            raise CertificationFailed(f"batch member {k}: zero witness")
        val = (w.transpose() * (Sinv - R * fmpq_of(hi)) * w)[0, 0]
        if val > 0:
            raise CertificationFailed(f"batch member {k}: the witness does not show blow-up before T_hi")
    return sum("undecided" not in m for m in members)
