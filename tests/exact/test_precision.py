"""working_precision sets and restores flint's and mpmath's precision."""
import flint
import mpmath
import pytest

from symbolic_tf.exact import working_precision
from symbolic_tf.exact.precision import bits_of_digits


def test_sets_and_restores_flint():
    old = flint.ctx.prec
    with working_precision(300) as p:
        assert p == 300 and flint.ctx.prec == 300
        # a ball at 300 bits resolves 1/3 to about 90 digits
        assert flint.arb(1) / 3 != flint.arb(1) / 3 + flint.arb(2) ** -250
    assert flint.ctx.prec == old


def test_restores_on_error_and_nests():
    old, old_mp = flint.ctx.prec, mpmath.mp.prec
    with pytest.raises(RuntimeError):
        with working_precision(dps=40, mpmath_too=True):
            assert mpmath.mp.prec == flint.ctx.prec == bits_of_digits(40)
            with working_precision(64):
                assert flint.ctx.prec == 64
            assert flint.ctx.prec == bits_of_digits(40)
            raise RuntimeError
    assert (flint.ctx.prec, mpmath.mp.prec) == (old, old_mp)


def test_digits_match_mpmath_conversion():
    for dps in (1, 15, 50, 333):
        with mpmath.workdps(dps):
            assert bits_of_digits(dps) == mpmath.mp.prec


def test_arguments_checked():
    with pytest.raises(TypeError):
        with working_precision():
            pass
    with pytest.raises(TypeError):
        with working_precision(64, dps=20):
            pass
    with pytest.raises(ValueError):
        with working_precision(1):
            pass
