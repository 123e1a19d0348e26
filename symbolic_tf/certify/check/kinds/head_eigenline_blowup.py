"""Checker of the certificate kind ``head-eigenline-blowup``.

PROVED: the head's own Gaussian flow (A = A_h, V = C_h = W_O,hW_V,h) blows up in finite time from a rank-one
Σ₀ = ûûᵀ on a real eigenline of C_h (the data: an interval of one sign holding the eigenvalue, and the
indices of the reduced eigenvector system).

The pinned checkpoint and the head partition are read by :mod:`symbolic_tf.certify.check.heads`.
"""
from __future__ import annotations

from fractions import Fraction

from ....exact.precision import working_precision
from ....exact.rational import fmpq_of, parse_frac
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, claim_words
from ..heads import (CHECKPOINT_PINNED, FORGERIES, HEAD_PARTITION, HEAD_SCHEMA, head_claim_params, head_tensors,
                     int_matrix, refuse)

EIGENLINE_HYPOTHESES = (
    CHECKPOINT_PINNED, HEAD_PARTITION,
    Hypothesis("interval-of-one-sign", "v_lo < v_hi have one sign (so 0 is not in the interval) and the indices "
               "k, r lie in 0 … d_h − 1.", f"{FORGERIES}::test_interval_through_zero_is_rejected"),
    Hypothesis("eigenvalue-in-interval", "The exact characteristic polynomial of W_V,hW_O,h (the nonzero spectrum "
               "of C_h) changes sign on [v_lo, v_hi]: a real eigenvalue v* lies there.",
               f"{FORGERIES}::test_interval_beside_the_eigenvalue_is_rejected"),
    Hypothesis("simple-eigenline", "W_V,hW_O,h − vI with row r and column k removed is certified invertible for "
               "every v in [v_lo, v_hi], so at v* the eigenvector z is unique with z_k = 1, and u = W_O,h z ≠ 0 "
               "satisfies C_hu = v*u.", f"{FORGERIES}::test_singular_reduced_system_is_rejected"),
    Hypothesis("blowup-sign", "v*·ûᵀA_hû > 0 (a ball over the interval): on the invariant line Σ = s·ûûᵀ, "
               "ṡ = 2v*(ûᵀA_hû)s², which blows up in finite time from every s₀ > 0.",
               f"{FORGERIES}::test_eigenline_without_blowup_is_rejected"),
)


@claim_words("head-eigenline-blowup")
def _head_eig(p):
    return (f"checkpoint sha256 {str(p.get('sha256'))[:12]}…, layer {p.get('layer')}, head {p.get('head')} "
            f"(d_h = {p.get('head_dim')}): the "
            f"single-head Gaussian flow (A = A_h, V = C_h) blows up in finite time from the rank-one Σ₀ = ûûᵀ on "
            f"the real eigenline of C_h with eigenvalue in [{p.get('v_lo')}, {p.get('v_hi')}]")


@kind("head-eigenline-blowup", {**HEAD_SCHEMA, "v_lo": "rat", "v_hi": "rat", "k": "int", "r": "int"}, needs_problem=False,
      hypotheses=EIGENLINE_HYPOTHESES)
def check_head_eigenline(cert, problem):
    """PROVED: the head's own Gaussian flow blows up from a rank-one Σ₀ on a real eigenline.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("head-eigenline-blowup", NONE, {..., "v_lo", "v_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the checkpoint's SHA-256 differs or the eigenline enclosure does not check.
    """
    from ....exact.rational import frac_str

    _check_head_eigenline(cert, problem)
    d = cert.data
    return "PROVED", Claim("head-eigenline-blowup", Quantifier.NONE,
                           head_claim_params(d, v_lo=frac_str(d["v_lo"]), v_hi=frac_str(d["v_hi"])))


def _check_head_eigenline(cert, problem):
    """For Σ₀ = ûûᵀ with C_hû = vû (C_h = W_O,hW_V,h), Σ(t) = ûûᵀ/(1 − 2v·a·t), a = ûᵀA_hû
    (docs/mathematics.md §3 closure restricted to the invariant rank-one line), so v·a > 0 proves blow-up.

    Data: the checkpoint, layer, head, rationals v_lo < v_hi of one sign and indices k, r.
    Checked: (1) the exact characteristic polynomial of W_V,hW_O,h (same nonzero spectrum as
    C_h) changes sign on [v_lo, v_hi], so a real eigenvalue v* lies inside; (2) the linear
    system (W_VW_O − vI)z = 0 with z_k = 1 and row r dropped is solved in ball arithmetic for
    every v in the interval (arb ``solve`` fails if any matrix is singular), so at v* its unique
    solution is an eigenvector (an eigenvector with z_k = 0, or a 2-dimensional eigenspace, would
    make the reduced matrix singular); (3) with u = W_O z (then C_hu = v*u), the ball of
    v·(W_K u)·(W_Q u) is positive — the sign of v*·ûᵀA_hû (positive factors dropped)."""
    import flint

    data = cert.data
    dh = int(data["head_dim"])
    lo, hi = parse_frac(data["v_lo"]), parse_frac(data["v_hi"])
    k, r = int(data["k"]), int(data["r"])
    if not (lo < hi and lo * hi > 0) or not (0 <= k < dh and 0 <= r < dh):
        refuse("need v_lo < v_hi of one sign (0 not inside) and indices 0 ≤ k, r < head_dim")
    K, Q, V, O = head_tensors(data, True)
    (Vi, sV), (Oi, sO), (Ki, _), (Qi, _) = (int_matrix(M) for M in (V, O, K, Q))
    N = Vi * Oi                                # = 2^{sV+sO} W_V W_O
    sc = Fraction(2) ** (sV + sO)
    P = flint.fmpq_poly(N.charpoly())
    a_, b_ = lo * sc, hi * sc
    pa = P(fmpq_of(a_))
    pb = P(fmpq_of(b_))
    if not pa * pb < 0:
        refuse("the characteristic polynomial does not change sign on [v_lo, v_hi]")
    with working_precision(256):
        lam = flint.arb(fmpq_of(a_)).union(flint.arb(fmpq_of(b_)))
        rows = [i for i in range(dh) if i != r]
        cols = [j for j in range(dh) if j != k]
        Mred = flint.arb_mat(dh - 1, dh - 1, [flint.arb(N[i, j]) - (lam if i == j else 0) for i in rows for j in cols])
        rhs = flint.arb_mat(dh - 1, 1, [-(flint.arb(N[i, k]) - (lam if i == k else 0)) for i in rows])
        try:
            zc = Mred.solve(rhs)
        except ZeroDivisionError:
            refuse("the reduced eigenvector system is not certified invertible on the interval")
        z = flint.arb_mat(dh, 1)
        it = iter(range(dh - 1))
        for j in range(dh):
            z[j, 0] = flint.arb(1) if j == k else zc[next(it), 0]
        u = flint.arb_mat(Oi) * z
        a = ((flint.arb_mat(Ki) * u).transpose() * (flint.arb_mat(Qi) * u))[0, 0]
        if not (lam * a) > 0:
            refuse("v·ûᵀA_hû is not certified positive")
