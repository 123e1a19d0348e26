"""Checker of ``tube-growth-neutral``: the solution from *this* Σ₀ exists for all t and grows at
most exponentially (regime GLOBAL_EXISTENCE), single-head softmax in d = 3 without drift and a
general V, where Σ(t) becomes a growing rank-one part σwwᵀ beside a middle eigenvalue that
settles (issue 15 item 2, "global existence of this Σ₀").  Mathematics: docs/mathematics.md §8
("neutral growth").

**The mechanism.**  In the chart of :mod:`~symbolic_tf.certify.check.neutral_chart` the slow field
at ζ̄ = 0 is r_T = φβ(r) along the isotropic cone.  The clustering kind
(:mod:`~symbolic_tf.certify.check.kinds.tube_cluster_neutral`) certifies a rest point where φ = 0; here the rest
point is a zero of the *other* factor, b = ℓᵀβ, with φ ≠ 0 there.  Then (log σ)_T = λ → φs̃ ≠ 0,
so σ keeps growing (exponentially in T), while ζ = tr Ŝ (the middle eigenvalue) has
(log ζ)_T = g + λ, whose value on the slow manifold, G(r) = (g + λ)(r, 0, y_c(r)), obeys the exact
identity

    G(r)·|ẑ|⁴(qᵀp)(∇a·p) = B(r)·P(r),   B(r) = det[V̂₂₂ẑ, p],   β = −B·J∇a/(|ẑ|²∇a·p),

with P a polynomial in the chart's entries (a test checks both identities symbolically and at
exact rational points).  So where qᵀp, ∇a·p and |ẑ|² are non-zero, b = 0 ⇔ B = 0 ⇒ G = 0: the
middle eigenvalue is stationary at the rest point, and ∫|G| dT is finite along the approach.

**Data and checks** are those of the clustering kind (same schema, checks 1–7 with
:data:`GROWTH` as the slow mode): f(θ) = b(r_c(θ)) changes sign on [θ_a, θ_b]; the contraction
is c = inf(−f′(Θ)·φ) > 0; and the bound D of check 7 is for log ζ, with R = G (R′ over Θ, ∇G·m,
∂_ζ̄(g + λ)).  In addition qᵀp, ∇a·p and |ẑ|² are sign-definite on every piece (the hypotheses of
the identity).

**Why.**  The first-exit argument of the clustering kind keeps the state in the region for every
T ≥ 0, with ζ̄ ≤ ζ̄₁e^{−γT} and ∫|θ − θ*| dT ≤ I_u.  Along it (log ζ)_T = G(r_c(θ)) +
∇G·m·(s − s_c) + ζ̄∂_ζ̄(g + λ) with G(r_c(θ*)) = 0, so |log ζ(T) − log ζ₁| ≤ D for all T, and
t(T) = t₁ + ∫₀^T dT′/ζ ≥ t₁ + Te^{−D}/ζ₁ → ∞: the chart solution covers every t ≥ t₁.  There σ =
σ₁exp∫λ dT is finite, ζ ≤ ζ₁e^{D}, and (log σ)˙ = λζ is bounded (λ is a polynomial on the bounded
region), so Σ(t) = T⁻¹L(r)diag(σ, ζZ)L(r)ᵀT⁻ᵀ exists for all t and grows at most exponentially.
Claim GLOBAL_EXISTENCE for THIS Σ₀.
"""
from __future__ import annotations

from .. import kind, refusal
from ..claims import Claim, Quantifier
from .tube_cluster_neutral import REGION_SCHEMA, SlowMode, chart_hypotheses, check_chart_certificate
from ..neutral_chart import slow_parts

KIND = "tube-growth-neutral"


_bad = refusal(KIND)


class GrowthMode(SlowMode):
    """The slow mode of growth: the rest point is a zero of b = ℓᵀβ (φ ≠ 0 there), and the bounded
    logarithm is log ζ, with rate g + λ."""

    bounded = "log ζ"
    condition_names = ("qᵀp", "∇a·p", "|ẑ|²")

    def factor(self, ch, ell):
        """b = ℓᵀβ, which vanishes at the growth rest point.

        Parameters
        ----------
        ch : Chart
            The chart quantities at r.
        ell : sequence of 2 scalars
            ℓ = t/|t|².

        Returns
        -------
        scalar
            ℓᵀβ(r).
        """
        return SlowMode.cofactor(self, ch, ell)

    def cofactor(self, ch, ell):
        """φ, the rate factor of the approach.

        Parameters
        ----------
        ch : Chart
            The chart quantities at r.
        ell : sequence of 2 scalars
            ℓ = t/|t|² (unused).

        Returns
        -------
        scalar
            φ(r).
        """
        return ch.phi

    def rate(self, field):
        """(log ζ)_T = g + λ.

        Parameters
        ----------
        field : dict
            The output of :func:`~symbolic_tf.certify.check.neutral_chart.fast_field`.

        Returns
        -------
        scalar
            g + λ.
        """
        return field["g"] + field["lam"]

    def conditions(self, ch):
        """qᵀp, ∇a·p and |ẑ|²: the denominators of the identity G·|ẑ|⁴(qᵀp)(∇a·p) = B·P.

        Parameters
        ----------
        ch : Chart
            The chart quantities at r.

        Returns
        -------
        list of scalar
            The three quantities.
        """
        return [ch.q[0] * ch.p[0] + ch.q[1] * ch.p[1], ch.grad_a(ch.p), ch.nz]


GROWTH = GrowthMode()


def growth_identity_parts(ch):
    """B(r) = det[V̂₂₂ẑ, p] and the slow-manifold rate G(r) = (g + λ)(r, 0, y_c(r)), for the tests
    of the identity G·|ẑ|⁴(qᵀp)(∇a·p) = B·P and β = −B·J∇a/(|ẑ|²∇a·p).

    Parameters
    ----------
    ch : Chart
        The chart quantities at r (any scalar type, exact rationals included).

    Returns
    -------
    tuple
        (B, G, β).
    """
    from ..neutral_chart import fast_centre, fast_field

    Vz = [ch.V22[0][0] * ch.zh[0] + ch.V22[0][1] * ch.zh[1], ch.V22[1][0] * ch.zh[0] + ch.V22[1][1] * ch.zh[1]]
    B = Vz[0] * ch.p[1] - Vz[1] * ch.p[0]
    ac, ec = fast_centre(ch)
    ff = fast_field(ch, 0 * ch.phi, ac, ec)
    beta, _st = slow_parts(ch)
    return B, GROWTH.rate(ff), beta


HYPOTHESES = chart_hypotheses(
    "tests/soundness/forgeries/test_neutral_growth.py", "b = ℓᵀβ", "φ", "log ζ",
    "the solution exists for all t and grows at most exponentially (GLOBAL_EXISTENCE)",
    extra=(("identity-denominators", "On every θ-piece qᵀp, ∇a·p and ∣ẑ∣² are sign-definite: with ∂a/∂s ≠ 0 "
            "(ℓᵀJ∇a = −∂a/∂s/∣t∣²), b = 0 forces B = det[V̂₂₂ẑ, p] = 0, and the identity "
            "G·∣ẑ∣⁴(qᵀp)(∇a·p) = B·P makes the middle eigenvalue's rate G vanish at the rest point."),))


@kind(KIND, REGION_SCHEMA, hypotheses=HYPOTHESES)
def check_tube_growth_neutral(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ exists for all t and grows at most
    exponentially (regime GLOBAL_EXISTENCE, quantifier THIS), d = 3.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: single-head softmax, d = 3, no drift, Σ₀ ⪰ 0 exact.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("GLOBAL_EXISTENCE", THIS, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or a check fails.
    """
    check_chart_certificate(cert, problem, GROWTH, _bad)
    return "PROVED", Claim("GLOBAL_EXISTENCE", Quantifier.THIS, {})
