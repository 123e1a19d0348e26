"""Variants declare, engines compute: the structure declarations (quadratic flow, growth bound,
energy kernel, moment assumptions) against the symbolic engine, and a new variant added as one
class is covered by every engine that consults the declarations (a toy: softmax at twice the
temperature, which must behave exactly like softmax with 2A)."""
from __future__ import annotations

import random
from fractions import Fraction

import flint
import pytest
import sympy as sp

from symbolic_tf import variants
from symbolic_tf.certify.check import check
from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec import parse_problem
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.symbolic.energy import gaussian_energy
from symbolic_tf.symbolic.moments import derive, rhs
from symbolic_tf.variants import base
from symbolic_tf.variants.velocity import softmax_velocity

QUADRATIC = [n for n in variants.names() if variants.get(n).quadratic_factor is not None]


def _rat(rng, den=4):
    return Fraction(rng.randint(-4, 4), den)


def _mat(rng, d, den=4):
    return [[_rat(rng, den) for _ in range(d)] for _ in range(d)]


def _spd(rng, d):
    L = sp.Matrix(_mat(rng, d))
    S = L * L.T / 2 + sp.eye(d) / 4
    return [[str(S[i, j]) for j in range(d)] for i in range(d)]


def _s(M):
    return [[str(e) for e in row] for row in M]


def _fm(M):
    return sp.Matrix(M.nrows(), M.ncols(), lambda i, j: sp.Rational(int(M[i, j].p), int(M[i, j].q)))


# --------------------------------------------------------------------- declarations vs engine
def test_the_softmax_family_declares_the_quadratic_flow():
    assert "softmax" in QUADRATIC
    assert variants.get("multihead").quadratic_factor is None  # composite: its heads declare


@pytest.mark.parametrize("name", QUADRATIC)
@pytest.mark.parametrize("d", [2, 3])
def test_declared_quadratic_pair_is_the_derived_flow(name, d):
    """Σ̇ derived by the closure engine = CΣÃΣ + ΣÃᵀΣCᵀ with the declared (C, Ã), exactly."""
    rng = random.Random(7 * d + len(name))
    for _ in range(2):
        problem = parse_problem({"variant": name, "d": d, "A": _s(_mat(rng, d)), "V": _s(_mat(rng, d)),
                                 "scale": "3/2", "initial": {"cov": _spd(rng, d)}})
        (C, At), = variants.quadratic_heads(problem)
        S = sp.Matrix([[sp.Rational(x) for x in r] for r in problem.cov])
        want = _fm(C) * S * _fm(At) * S + S * _fm(At).T * S * _fm(C).T
        got = sp.Matrix([[sp.Rational(x) for x in r] for r in rhs(problem).cov_rhs])
        assert got == want


def test_multihead_composes_the_declared_pairs_with_output_weights():
    rng = random.Random(5)
    d = 2
    heads = [{"variant": "softmax", "A": _s(_mat(rng, d)), "V": _s(_mat(rng, d)), "W": _s(_mat(rng, d))}
             for _ in range(2)]
    problem = parse_problem({"variant": "multihead", "d": d, "heads": heads, "scale": "1/2",
                             "initial": {"cov": _spd(rng, d)}})
    S = sp.Matrix([[sp.Rational(x) for x in r] for r in problem.cov])
    want = sp.zeros(d, d)
    for C, At in variants.quadratic_heads(problem):
        want += _fm(C) * S * _fm(At) * S + S * _fm(At).T * S * _fm(C).T
    got = sp.Matrix([[sp.Rational(x) for x in r] for r in rhs(problem).cov_rhs])
    assert got == want


@pytest.mark.parametrize("name", [n for n in variants.names() if variants.get(n).quadratic_factor is None
                                  and not variants.get(n).composite])
def test_other_variants_are_refused_with_a_reason(name):
    v = variants.get(name)
    doc = {"variant": name, "d": 2, "V": [[1, 0], [0, 1]], "initial": {"cov": [[1, 0], [0, 1]]}}
    doc.update({"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]]} if "Q" in v.matrices else {"A": [[1, 0], [0, 1]]})
    with pytest.raises(InvalidParameters, match="quadratic"):
        variants.quadratic_heads(parse_problem(doc))


@pytest.mark.parametrize("name", [n for n in variants.names() if variants.get(n).growth_bound])
def test_declared_growth_bound_holds_on_random_states(name):
    """‖Σ̇‖_F ≤ γ‖Σ‖_F with the γ the growth route proves from the declaration (exact Σ̇)."""
    from symbolic_tf.certify.search._growth import no_blowup

    rng = random.Random(11)
    d = 2
    doc = {"variant": name, "d": d, "V": _s(_mat(rng, d)), "scale": "1/2"}
    doc.update({"Q": [[1, 0], [0, 1]], "K": [[2, 1], [0, 1]]} if "Q" in variants.get(name).matrices
               else {"A": _s(_mat(rng, d))})
    gamma = None
    for _ in range(4):
        problem = parse_problem({**doc, "initial": {"cov": _spd(rng, d)}})
        v = no_blowup(problem)
        assert v.status == "PROVED"
        gamma = float(Fraction(v.evidence["gamma"]))
        G = rhs(problem).cov_rhs
        nG = sum(float(sp.Rational(x)) ** 2 for r in G for x in r) ** 0.5 if all(
            isinstance(x, (str, Fraction, int)) for r in G for x in r) else sum(float(x) ** 2 for r in G for x in r) ** 0.5
        nS = sum(float(sp.Rational(x)) ** 2 for r in problem.cov for x in r) ** 0.5
        assert nG <= gamma * nS * (1 + 1e-12)


@pytest.mark.parametrize("name", [n for n in variants.names() if variants.get(n).energy_kernel])
def test_declared_energy_kernel_is_the_attention_kernel(name):
    """The energy's kernel is the variant's own attention weight at τ = 1 (log-quadratic)."""
    E = gaussian_energy(name, 1)
    assert E.expr.free_symbols  # a closed form in the parameters and (α, Σ)
    with pytest.raises(ValueError):
        gaussian_energy("sinkhorn" if variants.get("sinkhorn").energy_kernel is None else "linear", 1)


def test_moment_assumptions_are_declared_and_reported():
    for name in ("l2", "sinkhorn"):
        v = variants.get(name)
        assert v.moment_assumptions and set(v.moment_assumptions) <= set(derive(name).assumptions)


# --------------------------------------------------------------------- a new variant, one class
@pytest.fixture()
def toy():
    """Softmax at twice the temperature, declared in one class as a new variant module would be."""
    @base.register
    class TwiceSoftmax(base.Variant):
        name = "toy-twice-softmax"
        summary = "Γ(x) = V ∫ e^{2yᵀAx} y dμ / ∫ e^{2yᵀAx} dμ"
        normalisation = base.ROW
        matrices = ("A", "V")
        quadratic_factor = Fraction(2)
        order = 99

        def kernel(self, x, y, P):
            return sp.exp(2 * base.bilinear(x, y, P))

        def velocity(self, Xq, Y, params, w=None, **kw):
            return softmax_velocity(Xq, Y, 2 * params["A"], params["V"], w=w, **kw)

    yield TwiceSoftmax.name
    variants.unregister(TwiceSoftmax.name)


@pytest.fixture()
def trusted_toy(toy, monkeypatch):
    """The toy with a row in the checker's table of trusted flows (certify/check/flows.py): the kernel
    does not import the variants, so a new quadratic variant is certified only once a reviewer adds
    its row there."""
    from symbolic_tf.certify.check import flows

    row = flows.Flow(toy, flows.ROW, quadratic_factor=Fraction(2))
    monkeypatch.setattr(flows, "FLOWS", flows.FLOWS + (row,))
    monkeypatch.setitem(flows._BY_NAME, toy, row)
    return toy


def test_a_new_variant_the_checker_does_not_trust_is_never_proved(toy):
    """Without a row in the checker's table the search still finds the softmax twin's certificate
    for the toy, but the independent check refuses it: UNDECIDED, never PROVED (fail closed)."""
    S0 = [[1, 0], [0, 1]]
    want = classify(_pair("softmax", [["1/2", 0], [0, "1/4"]], [[1, 0], [0, 1]], S0, factor=2))
    assert want.status == "PROVED"
    got = classify(_pair(toy, [["1/2", 0], [0, "1/4"]], [[1, 0], [0, 1]], S0))
    assert got.status == "UNDECIDED" and got.certificate is None


def _pair(name, A, V, S0, factor=1):
    A2 = [[str(factor * Fraction(x)) for x in r] for r in A]
    return parse_problem({"variant": name, "d": len(A), "A": A2, "V": _s(V), "initial": {"cov": S0}})


def test_a_new_variant_is_derived_from_its_declaration(toy):
    rng = random.Random(3)
    A, V = _mat(rng, 2), _mat(rng, 2)
    S0 = _spd(rng, 2)
    assert rhs(_pair(toy, _s(A), V, S0)).cov_rhs == rhs(_pair("softmax", _s(A), V, S0, factor=2)).cov_rhs
    assert toy in variants.names() and variants.get(toy).quadratic_factor == 2


@pytest.mark.parametrize("A, V, S0", [
    ([["1/2", 0], [0, "1/4"]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]),          # V = I, R ≻ 0: Radon blow-up
    ([["-1", 0], [0, "-1/2"]], [[1, 0], [0, 1]], [[1, 0], [0, 2]]),          # V = I, R ≺ 0: clustering
    ([[0, 1], [-1, 0]], [[1, 0], [0, 1]], [[2, 0], [0, 1]]),                 # R = 0: equilibrium
    ([[1, "1/2"], [0, 1]], [[1, 1], [0, 1]], [[1, 0], [0, 1]]),             # general V (LMI / tube routes)
])
def test_a_new_variant_is_certified_like_its_softmax_twin(trusted_toy, A, V, S0):
    """Every route consults declarations: once the checker's table trusts the toy's flow, the toy
    gets the verdict of softmax with 2A, and its certificate passes the independent checker."""
    toy = trusted_toy
    V = [[Fraction(x) for x in r] for r in V]
    got = classify(_pair(toy, A, V, S0))
    want = classify(_pair("softmax", A, V, S0, factor=2))
    assert (got.status, got.regime.name if hasattr(got.regime, "name") else got.regime) == \
        (want.status, want.regime.name if hasattr(want.regime, "name") else want.regime)
    assert got.route == want.route and got.claim == want.claim
    if got.status == "PROVED":
        assert got.certificate is not None
        assert check(got.certificate).status == "PROVED"


def test_a_new_variant_is_refused_where_no_declaration_covers_it(toy):
    """A route that needs what the toy does not declare (a growth bound) does not apply."""
    from symbolic_tf.certify.search._growth import no_blowup

    p = _pair(toy, [[1, 0], [0, 1]], [[Fraction(1), 0], [0, Fraction(1)]], [[1, 0], [0, 1]])
    assert no_blowup(p).status == "UNDECIDED"
    assert variants.single_quadratic_factor(toy) == 2 and variants.single_quadratic_factor("multihead") is None
    assert flint.fmpq(2) * flint.fmpq(1) == variants.quadratic_heads(p)[0][1][0, 0]
