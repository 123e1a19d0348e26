"""Checker of ``nonconvexity-witness`` certificates (softmax interaction energy, docs/mathematics.md §7).

Recomputes d²E/ds²(0) = (1/(2n²)) Σ_{i,j} (ξ_i, ξ_j)ᵀ∇²W(x_i, x_j)(ξ_i, ξ_j) for
W(x, y) = e^{yᵀAx} from the stored rationals, with the Hessian assembled block by block
(∇²_xx = AᵀyyᵀA e^u, ∇²_yy = AxxᵀAᵀ e^u, ∇²_xy = (Aᵀ + AᵀyxᵀAᵀ)e^u, u = yᵀAx): the rational
quadratic forms exactly (fmpq), e^u as an arb ball (≥ 128 bits).  Accepts only if the ball is
< the stored rational ``value_upper`` < 0, the stored value ball overlaps the recomputed one,
∫|ξ|²dμ = (1/n)Σ|ξ_i|² is > 0 and matches, and ``lambda_bound`` = value_upper / ∫|ξ|²dμ.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ....exact.precision import working_precision
from ....exact.rational import fmpq_of, fraction_of, parse_frac
from ....spec.errors import CertificationFailed
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier, approx, claim_words, mat_text


_FORGERIES = "tests/soundness/forgeries/test_convexity.py"
#: the hypotheses of the witness argument, each checked below
HYPOTHESES = (
    Hypothesis("shapes", "A is a square d×d rational matrix; positions x_i and displacements ξ_i are n rational "
               "d-vectors, one displacement per position (n ≤ 256, precision ≤ 4096 bits).",
               f"{_FORGERIES}::test_displacements_of_another_count_are_rejected"),
    Hypothesis("second-variation-below", "The recomputed ball of d²E/ds²(0) = (1/(2n²)) Σ_ij (ξ_i, ξ_j)ᵀ∇²W(x_i, x_j)"
               "(ξ_i, ξ_j), W(x, y) = e^{yᵀAx}, along the geodesic μ_s = (1/n) Σ δ_{x_i + sξ_i}, lies at or below the "
               "stored rational value_upper.", f"{_FORGERIES}::test_upper_bound_below_the_second_variation_is_rejected"),
    Hypothesis("upper-negative", "value_upper < 0: the energy is not even convex along this geodesic (the claim is "
               "a nonconvexity).", f"{_FORGERIES}::test_nonnegative_upper_bound_is_rejected"),
    Hypothesis("value-ball", "The stored value ball (a decimal midpoint and radius, 1e-20 relative slack) overlaps "
               "the recomputed one.", f"{_FORGERIES}::test_value_ball_elsewhere_is_rejected"),
    Hypothesis("xi-norm", "xi_norm2 equals ∫∣ξ∣²dμ = (1/n) Σ ∣ξ_i∣² exactly, and it is positive (a nonzero "
               "displacement).", f"{_FORGERIES}::test_wrong_displacement_norm_is_rejected"),
    Hypothesis("lambda-bound", "lambda_bound = value_upper ÷ ∫∣ξ∣²dμ exactly, so d²E/ds² ≤ lambda_bound·∫∣ξ∣²dμ "
               "and λ-convexity fails for every λ > lambda_bound.", f"{_FORGERIES}::test_lower_lambda_bound_is_rejected"),
)


def _mat(rows, d=None, name="matrix"):
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        raise CertificationFailed(f"nonconvexity-witness: {name} must be a non-empty list of lists")
    m = len(rows[0])
    if any(len(r) != m for r in rows) or (d is not None and m != d):
        raise CertificationFailed(f"nonconvexity-witness: {name} has inconsistent dimensions")
    return flint.fmpq_mat(len(rows), m, [fmpq_of(parse_frac(e)) for r in rows for e in r])


def _col(M, i):
    return flint.fmpq_mat(M.ncols(), 1, [M[i, k] for k in range(M.ncols())])


def _scalar(M) -> flint.fmpq:
    return M[0, 0]


@claim_words("nonconvexity")
def _nonconvex(p):
    return (f"the interaction energy of softmax with A = {mat_text(p.get('A', []))} is not λ-convex along "
            f"Wasserstein geodesics for any λ > {p.get('lambda_bound')} (≈ {approx(p.get('lambda_bound'))})")


@kind("nonconvexity-witness", {"A": "rat[][]", "positions": "rat[][]", "displacements": "rat[][]",
                               "value": "str[]", "value_upper": "rat", "xi_norm2": "rat", "lambda_bound": "rat",
                               "prec?": "int"}, needs_problem=False, hypotheses=HYPOTHESES)
def check_nonconvexity_witness(cert, problem):
    """PROVED: the softmax interaction energy with this A is not λ-convex for λ > lambda_bound.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        Unused (the kind needs no embedded problem).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("nonconvexity", NONE, {"A", "lambda_bound"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the witness does not re-derive.
    """
    from ....exact.rational import frac_str

    _check_nonconvexity_witness(cert, problem)
    A = [[frac_str(x) for x in row] for row in cert.data["A"]]
    return "PROVED", Claim("nonconvexity", Quantifier.NONE,
                           {"A": A, "lambda_bound": frac_str(cert.data["lambda_bound"])})


def _check_nonconvexity_witness(cert, problem):
    data = cert.data
    A = _mat(data["A"], name="A")
    d = A.nrows()
    if A.ncols() != d:
        raise CertificationFailed("nonconvexity-witness: A must be square")
    X = _mat(data["positions"], d, "positions")
    Xi = _mat(data["displacements"], d, "displacements")
    n = X.nrows()
    if Xi.nrows() != n:
        raise CertificationFailed("nonconvexity-witness: need one displacement per position")
    prec = max(128, int(data.get("prec", 128)))
    if prec > 4096:  # the work grows with the precision: bounded, like every kind
        raise CertificationFailed("nonconvexity-witness: prec must be at most 4096")
    if n > 256:  # the check is quadratic in the number of particles
        raise CertificationFailed("nonconvexity-witness: at most 256 particles")
    At = A.transpose()
    with working_precision(prec):
        total = flint.arb(0)
        for i in range(n):
            x, xi = _col(X, i), _col(Xi, i)
            for j in range(n):
                y, eta = _col(X, j), _col(Xi, j)
                u = _scalar(y.transpose() * A * x)
                Hxx = At * y * y.transpose() * A
                Hyy = A * x * x.transpose() * At
                Hxy = At + At * y * x.transpose() * At
                q = (_scalar(xi.transpose() * Hxx * xi) + _scalar(eta.transpose() * Hyy * eta)
                     + 2 * _scalar(xi.transpose() * Hxy * eta))
                if q != 0:
                    total += flint.arb(q) * flint.arb(u).exp()
        value = total / (2 * n * n)
        up = fmpq_of(parse_frac(data["value_upper"]))
        if not up < 0:
            raise CertificationFailed("nonconvexity-witness: the claimed upper bound is not negative")
        if not value <= flint.arb(up):
            raise CertificationFailed("nonconvexity-witness: recomputed d²E/ds² is not below the claimed upper bound")
        mid, rad = data["value"]
        # the stored midpoint is a rounded decimal: allow a relative slack of 1e-20
        slack = flint.arb(rad).abs_upper() + (abs(flint.arb(mid)) + 1) * flint.arb("1e-20")
        claimed = flint.arb(mid) + flint.arb(0, slack.abs_upper())
        if not claimed.overlaps(value):
            raise CertificationFailed("nonconvexity-witness: the claimed value ball does not contain the recomputed value")
    norm2 = sum((fraction_of(Xi[i, k]) ** 2 for i in range(n) for k in range(d)),
                Fraction(0)) / n
    if norm2 <= 0 or parse_frac(data["xi_norm2"]) != norm2:
        raise CertificationFailed("nonconvexity-witness: ∫|ξ|²dμ is wrong or zero")
    if parse_frac(data["lambda_bound"]) != parse_frac(data["value_upper"]) / norm2:
        raise CertificationFailed("nonconvexity-witness: lambda_bound ≠ value_upper / ∫|ξ|²dμ")
