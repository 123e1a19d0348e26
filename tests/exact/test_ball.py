"""Ball helpers (symbolic_tf.exact.ball): rational bounds of balls, the ball PD test."""
from __future__ import annotations

from fractions import Fraction

import flint
from hypothesis import given
from hypothesis import strategies as st

from symbolic_tf.exact.ball import arb_lower, arb_matrix, arb_upper, ball_pd
from symbolic_tf.exact.precision import working_precision


@given(st.fractions(max_denominator=10**9), st.fractions(min_value=0, max_value=10, max_denominator=10**9))
def test_arb_bounds_contain_the_ball(mid, rad):
    with working_precision(64):
        x = flint.arb(flint.fmpq(mid.numerator, mid.denominator), flint.arb(flint.fmpq(rad.numerator,
                                                                                       rad.denominator)).upper())
        lo, hi = arb_lower(x), arb_upper(x)
    lo_f, hi_f = Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q))
    assert lo_f <= mid - rad and mid + rad <= hi_f


def test_arb_matrix_precision_is_restored_and_ball_pd():
    before = flint.ctx.prec
    B = arb_matrix([[1, "1/3"], ["1/3", 1]], prec=200)
    assert flint.ctx.prec == before
    assert ball_pd(B) is True
    assert ball_pd(arb_matrix([[-1, 0], [0, 1]])) is False
    assert ball_pd(arb_matrix([[0, 0], [0, 1]])) is None
