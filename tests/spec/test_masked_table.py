"""The ``[masked]`` table of a problem file: the position marginal of masked attention (issue 50 item 8)."""
from __future__ import annotations

import tomllib
from fractions import Fraction

import pytest

from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.masked import PositionMarginal
from symbolic_tf.spec.problem import parse_problem, problem_text, problem_to_dict

BASE = {"variant": "masked", "d": 2, "A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]],
        "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}


def test_the_table_is_read_exactly_and_round_trips():
    p = parse_problem({**BASE, "masked": {"positions": " Grid:8 ", "sink": "0.05"}})
    assert p.masked == PositionMarginal("grid:8", Fraction(1, 20))  # "0.05" is 1/20 exactly
    doc = problem_to_dict(p)
    assert doc["masked"] == {"positions": "grid:8", "sink": "1/20"}
    assert parse_problem(doc) == p and parse_problem(doc).content_hash() == p.content_hash()
    assert parse_problem(tomllib.loads(problem_text(p))) == p  # the TOML face writes a [masked] table
    # defaults: uniform positions, no sink; a problem without the table keeps its hash (no key written)
    assert parse_problem({**BASE, "masked": {}}).masked == PositionMarginal("uniform", Fraction(0))
    assert "masked" not in problem_to_dict(parse_problem(BASE))
    assert parse_problem(BASE).content_hash() != parse_problem({**BASE, "masked": {}}).content_hash()


@pytest.mark.parametrize("table, field", [
    ({"positions": "gaussian"}, "masked.positions"),
    ({"positions": "grid:0"}, "masked.positions"),
    ({"positions": "grid:x"}, "masked.positions"),
    ({"positions": 3}, "masked.positions"),
    ({"sink": 1}, "masked.sink"),
    ({"sink": "-1/10"}, "masked.sink"),
    ({"sink": "nan"}, "masked.sink"),
    ({"sinks": [0, "1/2"]}, "masked.sinks"),
])
def test_bad_tables_name_their_field(table, field):
    with pytest.raises(InvalidParameters) as e:
        parse_problem({**BASE, "masked": table})
    assert e.value.field == field


def test_a_non_table_is_refused():
    with pytest.raises(InvalidParameters) as e:
        parse_problem({**BASE, "masked": "uniform"})
    assert e.value.field == "masked"


def test_a_table_on_a_variant_without_positions_is_refused_when_bound():
    # positions only exist for the masked variant: softmax with a [masked] table is bad input as soon
    # as the problem meets its variant (every command binds it first), not only in symtf masked
    from symbolic_tf.variants import bind

    p = parse_problem({"variant": "softmax", "d": 1, "A": [[1]], "V": [[1]], "masked": {"sink": "1/5"},
                       "initial": {"cov": [[1]]}})
    with pytest.raises(InvalidParameters, match="masked"):
        bind(p)


def test_the_token_sampler_follows_the_table():
    # meanfield / particles draw positions from the table: grid:4 with sink 1/4 puts N/4 tokens at 0 and
    # the rest evenly on 1/4, 1/2, 3/4, 1; without a table the positions stay i.i.d. uniform
    import numpy as np

    from symbolic_tf.numeric.particles import sample_initial

    p = parse_problem(dict(BASE, masked={"positions": "grid:4", "sink": "1/4"}))
    _, s = sample_initial(p, 16, 0)
    assert list(s) == [0.0] * 4 + [0.25] * 3 + [0.5] * 3 + [0.75] * 3 + [1.0] * 3
    _, u = sample_initial(parse_problem(BASE), 16, 0)
    assert np.all(np.diff(u) >= 0) and 0 < u.min() and u.max() < 1 and len(set(u)) == 16
