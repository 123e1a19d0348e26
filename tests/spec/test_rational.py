"""Exact parsing of user numbers (symbolic_tf.spec.rational).

Oracles are independent of the code under test: ``decimal.Decimal`` (exact decimal
arithmetic), ``Fraction(float)`` / ``float.as_integer_ratio`` (exact binary value) and
integer arithmetic.
"""
from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from symbolic_tf.exact.rational import frac_str
from symbolic_tf.spec import InvalidParameters, to_fraction, to_matrix, to_vector

finite_floats = st.floats(allow_nan=False, allow_infinity=False)
fractions_ = st.builds(Fraction, st.integers(-10**30, 10**30), st.integers(1, 10**30))


# --------------------------------------------------------------------------- decimals vs floats
def test_decimal_string_is_exact_and_float_is_its_dyadic_value():
    dec = to_fraction("0.1", "x")
    flt = to_fraction(0.1, "x")
    assert dec == Fraction(1, 10)
    assert flt == Fraction(3602879701896397, 36028797018963968) == Fraction(0.1)
    assert dec != flt
    assert flt.denominator == 2**55  # dyadic
    # the gap is the rounding error of the double nearest to 1/10
    assert flt - dec == Fraction(1, 180143985094819840)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.1", Fraction(1, 10)),
        ("-0.25", Fraction(-1, 4)),
        ("1.5e-3", Fraction(3, 2000)),
        ("2E3", Fraction(2000)),
        (".5", Fraction(1, 2)),
        ("5.", Fraction(5)),
        ("1e-30", Fraction(1, 10**30)),
        ("0.3333333333333333333333333", Fraction(3333333333333333333333333, 10**25)),
        ("  7/21 ", Fraction(1, 3)),
        ("-6/4", Fraction(-3, 2)),
        ("+3/9", Fraction(1, 3)),
        ("12", Fraction(12)),
    ],
)
def test_string_forms(text, expected):
    got = to_fraction(text, "x")
    assert got == expected and type(got) is Fraction


def test_ints_and_fractions_pass_through_exactly():
    big = 10**40 + 1
    assert to_fraction(big, "x") == Fraction(big)
    q = Fraction(-22, 7)
    assert to_fraction(q, "x") is q


@given(st.integers(-10**40, 10**40), st.integers(-40, 40))
def test_scientific_decimal_strings_match_decimal_oracle(mantissa, exponent):
    for text in (f"{mantissa}e{exponent}", f"{mantissa}E{exponent}"):
        got = to_fraction(text, "x")
        assert got == Fraction(Decimal(text))
        expected = Fraction(mantissa) * Fraction(10) ** exponent
        assert got == expected


@given(st.integers(-10**12, 10**12), st.integers(0, 20))
def test_positional_decimal_strings_are_exact(n, k):
    digits = str(abs(n)).rjust(k + 1, "0")
    text = ("-" if n < 0 else "") + (digits[:-k] + "." + digits[-k:] if k else digits)
    assert to_fraction(text, "x") == Fraction(n, 10**k)


@given(finite_floats)
def test_float_is_its_exact_binary_value(f):
    q = to_fraction(f, "x")
    num, den = f.as_integer_ratio()
    assert (q.numerator, q.denominator) == (num, den)
    assert den & (den - 1) == 0  # a power of two
    assert float(q) == f
    # the shortest decimal repr, read as a string, is its *decimal* value (which rounds back)
    r = to_fraction(repr(f), "x")
    assert r == Fraction(Decimal(repr(f)))
    assert float(r) == f


@given(finite_floats)
def test_numpy_scalars_are_exact(f):
    assert to_fraction(np.float64(f), "x") == Fraction(f)
    f32 = np.float32(f) if abs(f) < 3e38 else np.float32(1.5)
    assert to_fraction(f32, "x") == Fraction(float(f32))


def test_numpy_integers_and_zero_dim_arrays():
    assert to_fraction(np.int64(-7), "x") == -7
    assert to_fraction(np.array(0.5), "x") == Fraction(1, 2)
    with pytest.raises(InvalidParameters) as ei:
        to_fraction(np.float32("nan"), "w")
    assert ei.value.field == "w"
    with pytest.raises(InvalidParameters):
        to_fraction(np.array([1.0, 2.0]), "w")
    with pytest.raises(InvalidParameters):
        to_fraction(np.bool_(True), "w")


# --------------------------------------------------------------------------- p/q strings
@given(st.integers(-10**20, 10**20), st.integers(-10**20, 10**20))
def test_ratio_strings(p, q):
    text = f"{p}/{q}"
    if q == 0:
        with pytest.raises(InvalidParameters, match="zero denominator") as ei:
            to_fraction(text, "F[1][0]")
        assert ei.value.field == "F[1][0]"
        return
    assume(q > 0)  # Fraction's grammar has no sign in the denominator
    assert to_fraction(text, "x") == Fraction(p, q)
    assert to_fraction(text, "x") * q == p


@given(fractions_)
def test_fraction_str_is_canonical_and_inverted_by_to_fraction(q):
    s = frac_str(q)
    assert to_fraction(s, "x") == q
    if "/" in s:
        num, den = (int(t) for t in s.split("/"))
        assert den > 1 and math.gcd(num, den) == 1
    else:
        assert q.denominator == 1 and int(s) == q
    # canonical: equal values have equal spellings
    assert frac_str(Fraction(q.numerator * 3, q.denominator * 3)) == s


def test_fraction_str_examples():
    assert frac_str(Fraction(-6, 4)) == "-3/2"
    assert frac_str(Fraction(0)) == "0"
    assert frac_str(5) == "5"


# --------------------------------------------------------------------------- rejections
@pytest.mark.parametrize(
    "bad",
    [math.nan, math.inf, -math.inf, "nan", "NaN", "-nan", "inf", "-inf", "+Infinity", " infinity ",
     "", "   "],
)
def test_non_finite_rejected(bad):
    with pytest.raises(InvalidParameters) as ei:
        to_fraction(bad, "scale")
    assert ei.value.field == "scale"
    assert str(ei.value).startswith("scale: ")


@pytest.mark.parametrize("bad", [True, False])
def test_booleans_rejected(bad):
    with pytest.raises(InvalidParameters, match="boolean") as ei:
        to_fraction(bad, "T")
    assert ei.value.field == "T"


@pytest.mark.parametrize(
    "bad", [None, [1], {"a": 1}, 1 + 2j, "0x10", "1/2/3", "1.5/2", "one", "1/", b"1"]
)
def test_non_numbers_rejected(bad):
    with pytest.raises(InvalidParameters) as ei:
        to_fraction(bad, "b[2]")
    assert ei.value.field == "b[2]"
    assert isinstance(ei.value, ValueError)  # InvalidParameters is also a ValueError


@pytest.mark.parametrize("bad", ["1/0", "-3/0", " 0/0 "])
def test_zero_denominator(bad):
    with pytest.raises(InvalidParameters, match="zero denominator"):
        to_fraction(bad, "A[0][0]")


# --------------------------------------------------------------------------- vectors and matrices
def test_to_vector():
    assert to_vector([1, "1/2", "0.25", 0.5], "v", 4) == (1, Fraction(1, 2), Fraction(1, 4), Fraction(1, 2))
    assert to_vector((), "v") == ()
    with pytest.raises(InvalidParameters, match="expected length 3, got 2") as ei:
        to_vector([1, 2], "initial.mean", 3)
    assert ei.value.field == "initial.mean"
    for bad in ("12", b"12", 3, {"a": 1}, None):
        with pytest.raises(InvalidParameters) as ei:
            to_vector(bad, "b")
        assert ei.value.field == "b"
    with pytest.raises(InvalidParameters) as ei:
        to_vector([1, 2, "nan"], "b", 3)
    assert ei.value.field == "b[2]"


def test_to_matrix_shapes():
    M = to_matrix([[1, "2/3"], ["0.5", 2.5]], "A", (2, 2))
    assert M == ((1, Fraction(2, 3)), (Fraction(1, 2), Fraction(5, 2)))
    assert all(type(x) is Fraction for row in M for x in row)
    assert to_matrix("3/4", "A", (1, 1)) == ((Fraction(3, 4),),)  # scalar for 1x1
    assert to_matrix([[1, 2, 3]], "Q", (None, 3)) == ((1, 2, 3),)  # free row count
    cases = [
        ([[1, 2], [3, 4]], (2, 3), "expected shape 2x3, got 2x2"),
        ([[1, 2], [3, 4]], (None, 3), "expected shape kx3, got 2x2"),
        ([[1, 2], [3]], (2, 2), "rows have different lengths"),
        ([[], []], (2, 0), "rows have different lengths or are empty"),
        ([], (None, None), "empty matrix"),
        ([[1, 2], 3], (2, 2), "row 1 is not a list"),
        (5, (2, 2), "expected a matrix"),
        ("[[1]]", (2, 2), "expected a matrix"),
    ]
    for value, shape, msg in cases:
        with pytest.raises(InvalidParameters, match=msg.replace("[", r"\[")) as ei:
            to_matrix(value, "heads[0].V", shape)
        assert ei.value.field == "heads[0].V"
        assert str(ei.value).startswith("heads[0].V: ")
    with pytest.raises(InvalidParameters) as ei:
        to_matrix([[1, 2], [3, math.inf]], "F", (2, 2))
    assert ei.value.field == "F[1][1]"


@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_to_matrix_exact_entries(r, c, data):
    vals = data.draw(st.lists(st.lists(st.one_of(fractions_, finite_floats.map(Fraction)), min_size=c,
                                       max_size=c), min_size=r, max_size=r))
    spelled = [[frac_str(x) for x in row] for row in vals]
    assert to_matrix(spelled, "M", (r, c)) == tuple(tuple(row) for row in vals)
