"""Forgeries of ``tube-basin`` (kinds/tube.py): a validated tube from this Σ₀ ends in a certified Lyapunov
basin of a Krawczyk-enclosed equilibrium Σ* ≻ 0 of the drift model.  The basin part is the argument of
``equilibrium-basin``, forged by the same functions (test_basin.py) with the tube's end box in place of
Σ₀; the tube adds one hypothesis.  The multi-field forgeries tried while hunting for holes (genuine data
reused with another embedded problem, the tube cut or stretched): all are rejected or sound — a
stretched or merged tube that still validates proves the same claim.

The genuine certificate is the tampering suite's (found by the library's search in a quarter second).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, forge, q, rejects
from .test_basin import (MODEL, check_singular_limit, forge_decay, forge_krawczyk, forge_level, forge_norm_bound,
                         forge_other_variant, forge_quadratic_bound, forge_schedule, forge_W_bounds, problem_with,
                         singular_equilibrium_forgery)

TUBE = {"steps": ["0"], "order": 10, "tube_prec": 128, "method": "qr"}


@pytest.fixture(scope="module")
def cert():
    from symbolic_tf.certify.search.validated._tube_basin import find_tube_basin

    v = find_tube_basin(parse_problem({**MODEL, "initial": {"cov": [["2", "0"], ["0", "1"]]}}), order=10)
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    assert c["kind"] == "tube-basin" and len(c["data"]["steps"]) > 2
    accepts(c)
    return c


# ------------------------------------------------------------------ one forgery per hypothesis
def test_tube_other_variant(cert):
    forge_other_variant(cert)


def test_tube_schedule(cert):
    forge_schedule(cert)


def test_tube_krawczyk_box_misses_the_equilibrium(cert):
    forge_krawczyk(cert)


def test_tube_singular_equilibrium():
    """The hand-built basin of the rank-one equilibrium diag(1, 0), reached by an empty tube."""
    rejects(singular_equilibrium_forgery("tube-basin", TUBE), r"box Sigma_mid ± r is not certified positive definite")
    check_singular_limit()


def test_tube_W_bounds_wrong(cert):
    forge_W_bounds(cert)


def test_tube_norm_bound_too_small(cert):
    forge_norm_bound(cert)


def test_tube_quadratic_bound_too_small(cert):
    forge_quadratic_bound(cert)


def test_tube_decay_rate_too_large(cert):
    forge_decay(cert)


def test_tube_level_too_high(cert):
    forge_level(cert)


def test_tube_end_outside_the_level_set(cert):
    rejects(forge(cert, data={"steps": cert["data"]["steps"][:-1]}), r"tube's end box is not certified inside the level set")


def test_tube_step_too_long(cert):
    rejects(forge(cert, data={"steps": ["0", "50"]}), r"a priori \(Picard\) enclosure fails on step 1")


# ------------------------------------------------------------------ the hunt
@pytest.mark.parametrize("change", ["sigma0-zero", "sigma0-singular", "sigma0-doubled", "drift-dropped",
                                    "drift-negated", "scale", "V-negated", "A-transposed"])
def test_tube_data_reused_with_another_problem(cert, change):
    p = cert["problem"]
    cov = [[Fraction(x) for x in row] for row in p["initial"]["cov"]]
    new = {"sigma0-zero": lambda: problem_with(cert, initial={"cov": [["0", "0"], ["0", "0"]]}),
           "sigma0-singular": lambda: problem_with(cert, initial={"cov": [["1", "0"], ["0", "0"]]}),
           "sigma0-doubled": lambda: problem_with(cert, initial={"cov": [[q(2 * x) for x in row] for row in cov]}),
           "drift-dropped": lambda: problem_with(cert, F=None, b=None),
           "drift-negated": lambda: problem_with(cert, F=[[q(-Fraction(x)) for x in row] for row in p["F"]]),
           "scale": lambda: problem_with(cert, scale="2"),
           "V-negated": lambda: problem_with(cert, V=[[q(-Fraction(x)) for x in row] for row in p["V"]]),
           "A-transposed": lambda: problem_with(cert, A=[list(r) for r in zip(*p["A"])])}[change]()
    rejects(forge(cert, problem=new), r"^tube-basin certificate: ")


def test_tube_merged_or_stretched_steps_still_validated_are_sound(cert):
    """The hunt's acceptances: one step [0, t_N], or every time doubled — each step's enclosure is
    re-validated from Σ₀, and the end box is in the basin, so the claim is the genuine one again."""
    steps = cert["data"]["steps"]
    accepts(forge(cert, data={"steps": [steps[0], steps[-1]]}))
    accepts(forge(cert, data={"steps": [q(2 * Fraction(x)) for x in steps]}))
