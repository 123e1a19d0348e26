"""Multiprecision matrix square roots (symbolic_tf.exact.multiprecision)."""
from __future__ import annotations

import mpmath
import pytest

from symbolic_tf.exact.multiprecision import mp_sqrtm, mp_symmetric_function


def _maxabs(M):
    return max(abs(x) for x in M)


def test_sqrtm_of_a_nonsymmetric_matrix_squares_back():
    with mpmath.workdps(40):
        M = mpmath.matrix([[4, 1], [0, 9]])
        S = mp_sqrtm(M)
        assert _maxabs(S * S - M) < mpmath.mpf(10) ** -35
        assert all(isinstance(x, mpmath.mpf) for x in S)  # stays real
        assert abs(S[0, 0] - 2) < mpmath.mpf(10) ** -35 and abs(S[1, 1] - 3) < mpmath.mpf(10) ** -35


def test_sqrtm_rejects_a_spectrum_off_the_right_half_plane():
    with mpmath.workdps(20), pytest.raises((ArithmeticError, ZeroDivisionError)):
        mp_sqrtm(mpmath.matrix([[0, 1], [-1, 0]]) * 0)


def test_symmetric_function_sqrt_and_agreement():
    with mpmath.workdps(40):
        S = mpmath.matrix([[2, 1], [1, 3]])
        R = mp_symmetric_function(S, mpmath.sqrt)
        assert _maxabs(R * R - S) < mpmath.mpf(10) ** -35
        assert _maxabs(R - mp_sqrtm(S)) < mpmath.mpf(10) ** -30
