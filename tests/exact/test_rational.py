"""Exact rational conversions (symbolic_tf.exact.rational) against Fraction / integer oracles."""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from symbolic_tf.exact.rational import (
    Q, dyadic, dyadic_matrix_str, float_fraction, frac_str, parse_frac, qmat, qmat_to_float, qmat_to_fractions,
    round_out, sympy_rational,
)

fractions_ = st.fractions(max_denominator=10**12)
floats_ = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


def test_float_is_its_exact_binary_value():
    assert float_fraction(0.1) == Fraction(3602879701896397, 2**55) == Fraction(*(0.1).as_integer_ratio())
    assert Q(0.1) == flint.fmpq(3602879701896397, 2**55)
    assert sympy_rational(0.1) == sp.Rational(3602879701896397, 2**55)
    assert sympy_rational(np.float64(0.5)) == sp.Rational(1, 2)


def test_strings_and_rationals_stay_exact():
    assert parse_frac("0.1") == Fraction(1, 10)
    assert Q("1/10") == flint.fmpq(1, 10)
    assert sympy_rational(Fraction(-637, 1440)) == sp.Rational(-637, 1440)
    assert frac_str(flint.fmpq(-6, 4)) == frac_str(sp.Rational(-3, 2)) == frac_str(Fraction(-3, 2)) == "-3/2"
    assert frac_str(7) == "7"


@given(fractions_)
def test_round_trips(q):
    assert parse_frac(frac_str(q)) == q
    assert Fraction(int(Q(q).p), int(Q(q).q)) == q
    assert Fraction(int(sympy_rational(q).p), int(sympy_rational(q).q)) == q


@given(st.lists(st.lists(fractions_, min_size=2, max_size=2), min_size=1, max_size=3))
def test_qmat_round_trip(rows):
    M = qmat(rows)
    assert qmat_to_fractions(M) == tuple(tuple(r) for r in rows)
    assert np.array_equal(qmat_to_float(M), np.array([[float(x) for x in r] for r in rows]))


@given(floats_, st.integers(4, 60))
def test_dyadic_is_close_and_short(x, bits):
    q = dyadic(x, bits)
    assert q.denominator & (q.denominator - 1) == 0  # a power of two
    if x != 0:
        assert abs(q - Fraction(x)) <= abs(Fraction(x)) * Fraction(1, 2**bits)
    assert dyadic_matrix_str([[x]]) == [[frac_str(dyadic(x))]]


def test_dyadic_of_non_finite_is_zero():
    assert dyadic(math.inf) == dyadic(math.nan) == dyadic(0.0) == 0


@given(fractions_, st.integers(2, 80))
def test_round_out_brackets(q, bits):
    lo, hi = round_out(Q(q), False, bits), round_out(Q(q), True, bits)
    assert lo <= q <= hi
    assert lo.denominator & (lo.denominator - 1) == 0 and hi.denominator & (hi.denominator - 1) == 0
    if q != 0:
        assert hi - lo <= abs(q) * Fraction(2, 2**bits)
