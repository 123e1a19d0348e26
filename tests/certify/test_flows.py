"""The kernel's table of covariance flows (symbolic_tf/certify/check/flows.py) agrees with the
variants' declarations, for every registered variant: a variant the checker does not know, or
knows differently, fails here with its name."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from symbolic_tf import variants
from symbolic_tf.certify.check import flows
from symbolic_tf.spec.errors import InvalidParameters, UnknownVariant
from symbolic_tf.spec.problem import parse_problem

NAMES = variants.names()


def _rat(rng):
    return Fraction(rng.randint(-9, 9), rng.randint(1, 6))


def _problem(name, rng, d=2):
    m = [[str(_rat(rng)) for _ in range(d)] for _ in range(d)]
    doc = {"variant": name, "d": d, "scale": str(abs(_rat(rng)) + 1), "initial": {"cov": [[1, 0], [0, 1]]}}
    v = variants.get(name)
    if v.composite:
        doc["heads"] = [{"A": m, "V": [[str(_rat(rng)) for _ in range(d)] for _ in range(d)],
                         "W": [[str(_rat(rng)) for _ in range(d)] for _ in range(d)]} for _ in range(2)]
    else:
        for k in v.matrices:
            doc[k] = [[str(_rat(rng)) for _ in range(d)] for _ in range(d)]
    return parse_problem(doc)


def _outcome(f, *args):
    try:
        return "ok", f(*args)
    except InvalidParameters as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_knows_every_variant_as_it_declares_itself(name):
    v = variants.get(name)
    assert name in flows.names(), (f"variant {name!r} is not in the checker's table of flows "
                                   "(symbolic_tf/certify/check/flows.py): add its row there")
    f = flows.get(name)
    got = (f.normalisation, f.matrices, f.composite, f.expected_closed, f.growth_bound,
           None if f.quadratic_factor is None else Fraction(f.quadratic_factor), tuple(sorted(f.aliases)))
    want = (v.normalisation, v.matrices, v.composite, v.expected_closed, v.growth_bound,
            None if v.quadratic_factor is None else Fraction(v.quadratic_factor), tuple(sorted(v.aliases)))
    assert got == want, f"variant {name!r}: the checker's flows.py row {got} differs from the declaration {want}"


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_computes_the_declared_quadratic_pairs(name):
    rng = random.Random(name)
    for _ in range(3):
        p = _problem(name, rng)
        P = variants.get(name).exact_params(p)
        if not variants.get(name).composite:
            assert flows.get(name).quadratic_pair(P) == variants.get(name).quadratic_pair(P)
        for fn in ("quadratic_heads", "single_quadratic_head", "growth_bound_of"):
            assert _outcome(getattr(flows, fn), p) == _outcome(getattr(variants, fn), p), (name, fn)
        for single in (False, True):
            assert flows.quadratic_reason(p, single) == variants.quadratic_reason(p, single)
        assert flows.single_quadratic_factor(name) == variants.single_quadratic_factor(name)


def test_the_table_has_no_variant_the_registry_lacks():
    assert flows.names() == sorted(flows.names()) and set(flows.names()) == set(NAMES)


@pytest.mark.parametrize("name", ["nope", "Softmax", " softmax ", "ℓ2", "mha", "causal", "exp", ""])
def test_names_and_unknown_names_behave_as_before(name):
    def look(get):
        try:
            return get(name).name
        except UnknownVariant as exc:
            return str(exc)
    assert look(flows.get) == look(variants.get)
    assert flows.single_quadratic_factor(name) == variants.single_quadratic_factor(name)
    assert flows.single_quadratic_factor(None) == variants.single_quadratic_factor(None)
