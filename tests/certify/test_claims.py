"""Claim words rendered from the data (certify/check/claims.py)."""

from fractions import Fraction

import pytest

from symbolic_tf.certify.check.claims import Claim, Quantifier, Regime


@pytest.mark.parametrize("gamma,words", [
    ("-1/3", "Σ(t) → 0 exponentially fast"),
    ("0", "stays bounded by ‖Σ₀‖"),
    ("5/2", "‖Σ(t)‖ ≤ ‖Σ₀‖·e^(γt), γ = 5/2"),
])
def test_global_existence_says_what_its_rate_proves(gamma, words):
    # ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}: γ < 0 forces Σ(t) → 0, γ = 0 a bound by ‖Σ₀‖; the name says existence only
    text = Claim("GLOBAL_EXISTENCE", Quantifier.EVERY_PSD, {"gamma": gamma}).text()
    assert words in text
    assert ("→ 0" in text) == (Fraction(gamma) < 0)
    assert "grows" not in text


def test_regime_names_do_not_overstate():
    # the regime of a growth bound is named by what it proves (issue 50: a decaying Σ was "growth")
    assert "GLOBAL_EXISTENCE" in {r.value for r in Regime}
    assert not any("GROWTH" in r.value for r in Regime)
