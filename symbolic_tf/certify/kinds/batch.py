"""Checker of ``blowup-riccati-vI-batch`` certificates (every member re-verified exactly)."""
from __future__ import annotations

from fractions import Fraction

from ...exact.definiteness import definiteness
from ...exact.rational import qmat
from ...spec.errors import CertificationFailed
from ..check import kind
from ..claims import Claim, Quantifier


@kind("blowup-riccati-vI-batch", {"A": "rat[][]", "v": "rat", "members": "obj[]"}, needs_problem=False)
def check_batch(cert, problem):
    """PROVED: each listed Σ₀ ≻ 0 (members with a bracket) blows up inside its bracket.

    Parameters
    ----------
    cert : symbolic_tf.certify.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.claims.Claim)
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
    from ...exact.rational import frac_str

    return {"v": frac_str(Fraction(data["v"])), "members": n,
            "A": [[frac_str(Fraction(x)) for x in row] for row in data["A"]],
            "brackets": [None if "undecided" in m else [frac_str(Fraction(m["T_lo"])), frac_str(Fraction(m["T_hi"]))]
                         for m in data["members"]]}


def _check_batch(cert, problem):
    A = qmat(cert.data["A"])
    d = A.nrows()
    v = Fraction(cert.data["v"])
    import flint

    R = (A + A.transpose()) * flint.fmpq(v.numerator, v.denominator)
    members = cert.data["members"]
    if not members:
        raise CertificationFailed("batch: no members")
    from ..schema import validate

    for k, m in enumerate(members):
        validate(m, {"Sigma0": "rat[][]", "T_lo?": "rat", "T_hi?": "rat", "witness?": "rat[]", "undecided?": "str"},
                 f"members[{k}]")
        if "undecided" in m:
            continue
        S = qmat(m["Sigma0"])
        if S.nrows() != d or S != S.transpose() or not definiteness(S).pd:
            raise CertificationFailed(f"batch member {k}: Σ₀ is not symmetric positive definite")
        lo, hi = Fraction(m["T_lo"]), Fraction(m["T_hi"])
        if not 0 < lo <= hi:
            raise CertificationFailed(f"batch member {k}: need 0 < T_lo ≤ T_hi")
        Sinv = S.inv()
        if not definiteness(Sinv - R * flint.fmpq(lo.numerator, lo.denominator)).pd:
            raise CertificationFailed(f"batch member {k}: Σ₀⁻¹ − T_lo·R is not positive definite")
        w = qmat([[x] for x in m["witness"]])
        if all(w[i, 0] == 0 for i in range(d)):
            raise CertificationFailed(f"batch member {k}: zero witness")
        val = (w.transpose() * (Sinv - R * flint.fmpq(hi.numerator, hi.denominator)) * w)[0, 0]
        if val > 0:
            raise CertificationFailed(f"batch member {k}: the witness does not show blow-up before T_hi")
    return sum("undecided" not in m for m in members)
