"""Floats announce themselves: a float whose exact binary value is not the decimal it prints as is
read at that binary value (nothing changes in the number) and a FloatReadWarning says so once per
distinct value, showing the value used and the string to write instead."""
from __future__ import annotations

import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import symbolic_tf as stf
from symbolic_tf.spec import rational
from symbolic_tf.spec.errors import FloatReadWarning
from symbolic_tf.spec.rational import floats_read_silently, to_fraction, to_matrix, to_vector

EXACT_SHOWN = re.compile(r"exact binary value (-?\d+(?:/\d+)?);")


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """Each test starts with no value announced yet (the announcement is once per process)."""
    monkeypatch.setattr(rational, "_ANNOUNCED", set())


def read(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args)
    return value, [w for w in caught if issubclass(w.category, FloatReadWarning)]


def test_one_warning_per_distinct_value_showing_the_value_used():
    M, ws = read(to_matrix, [[0.1, 0.1], [0.2, 0.1]], "A")
    assert [w.message.value for w in ws] == [0.1, 0.2]  # 0.1 three times, announced once
    assert M[0][0] == M[0][1] == M[1][1] == Fraction(0.1) and M[1][0] == Fraction(0.2)
    first = ws[0].message
    assert first.field == "A[0][0]"
    # the value shown is the number used: the exact dyadic m/2^55, not 1/10
    shown = Fraction(EXACT_SHOWN.search(str(first)).group(1))
    assert shown == M[0][0] == Fraction(3602879701896397, 2**55)
    assert shown != Fraction(1, 10)
    # the suggestion, read exactly, is the decimal the float prints as, and it rounds back to the float
    assert '"0.1"' in str(first) and '"1/10"' in str(first)
    assert Fraction(first.decimal) == Fraction(first.fraction) == Fraction(1, 10)
    assert float(first.decimal) == 0.1
    _, again = read(to_vector, [0.1, 0.2], "b")
    assert again == []  # both already announced in this process


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_warned_exactly_when_the_binary_value_is_not_the_printed_decimal(x):
    rational._ANNOUNCED.clear()
    q, ws = read(to_fraction, x, "x")
    assert q == Fraction(x)  # the value read never changes
    differs = Fraction(repr(x)) != Fraction(x)
    assert len(ws) == (1 if differs else 0)
    if ws:
        w = ws[0].message
        assert w.exact == Fraction(x) and float(w.decimal) == x  # the suggestion round-trips
        assert Fraction(w.fraction) == Fraction(w.decimal) != w.exact


@pytest.mark.parametrize("x", [0.5, 2.0, -0.375, 1e22, 3.0, -1024.25, 0.0])
def test_exact_decimals_are_silent(x):
    q, ws = read(to_fraction, x, "x")
    assert ws == [] and q == Fraction(repr(x))  # the binary value is the decimal as written


@pytest.mark.parametrize("value", ["0.1", "1/10", "1e-1", Fraction(1, 10), 7, np.int64(3)])
def test_strings_fractions_and_integers_are_silent(value):
    q, ws = read(to_fraction, value, "x")
    assert ws == [] and q == Fraction(value if not isinstance(value, np.integer) else int(value))


def test_numpy_floats_are_announced_by_their_decimal():
    q, ws = read(to_fraction, np.float64(0.1), "x")
    assert q == Fraction(0.1) and len(ws) == 1
    assert ws[0].message.decimal == "0.1"  # not "np.float64(0.1)"
    _, ws = read(to_matrix, np.array([[0.1, 0.3]]), "M")
    assert [w.message.value for w in ws] == [0.3]


def test_internal_float_paths_read_silently_and_the_same_value():
    with floats_read_silently():
        q, ws = read(to_fraction, 0.1, "x")
    assert ws == [] and q == Fraction(0.1)
    _, ws = read(to_fraction, 0.1, "x")  # outside the block the first user float is still announced
    assert len(ws) == 1


def test_api_problem_announces_once_and_points_at_the_user(recwarn):
    p = stf.Problem("softmax", A=[[0.7, 0], [0, 0.7]], cov=[[1, 0], [0, 1]])
    ws = [w for w in recwarn.list if issubclass(w.category, FloatReadWarning)]
    assert len(ws) == 1 and ws[0].filename == __file__  # the user's line, not the package's
    assert p.A[0][0] == p.A[1][1] == Fraction(0.7)


@pytest.mark.heavy  # the numeric stack's first import and compile dominate (≈ 5 s)
def test_integrating_a_problem_announces_nothing(recwarn):
    p = stf.Problem("softmax", A=[["1/2", 0], [0, "-1"]], V=[[1, 0], [0, 1]], cov=[[1, 0], [0, 1]])
    sol = stf.integrate(p, 0.3, t_eval=[0.1, 0.2, 0.3])  # float depths are numerics, not exact readings
    assert np.all(np.isfinite(sol.Sigma))
    assert not [w for w in recwarn.list if issubclass(w.category, FloatReadWarning)]
