"""The masked position marginal from the problem file's [masked] table, with the options overriding it
(issue 50 item 8), in the library and through `symtf masked` / `symtf stability`."""
from __future__ import annotations

import json

import numpy as np
import pytest

from symbolic_tf.cli import main
from symbolic_tf.numeric.masked import marginal, positions
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.problem import parse_problem

pytest.importorskip("ot")

MASKED = {"variant": "masked", "d": 2, "A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]],
          "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}
TEXT = """variant = "masked"
d = 2
A = [[-1, 0], [0, -1]]
V = [[1, 0], [0, 1]]
[initial]
mean = [0, 0]
cov = [[1, 0], [0, "1/2"]]
[masked]
positions = "grid:4"
sink = "1/4"
"""


def test_the_table_sets_the_marginal_and_options_override_it():
    p = parse_problem({**MASKED, "masked": {"positions": "grid:4", "sink": "1/4"}})
    assert marginal(p) == ("grid:4", 0.25)
    assert marginal(p, "uniform") == ("uniform", 0.25) and marginal(p, None, 0.0) == ("grid:4", 0.0)
    assert marginal(parse_problem(MASKED)) == ("uniform", 0.0)  # no table: uniform, no sink
    kind, m0 = marginal(p)
    s = positions(kind, 20, 0, sink=m0)
    assert np.count_nonzero(s == 0) == 5 and set(s[s > 0]) == {0.25, 0.5, 0.75, 1.0}  # 15 tokens on 4 sites
    with pytest.raises(InvalidParameters, match="--positions"):
        marginal(p, "grid:0")


def test_a_table_on_a_variant_without_positions_is_refused():
    p = parse_problem({**MASKED, "variant": "softmax", "masked": {"sink": "1/4"}})
    with pytest.raises(InvalidParameters) as e:
        marginal(p)
    assert e.value.field == "masked"


def test_commands_read_the_table(tmp_path, capsys):
    f = tmp_path / "m.toml"
    f.write_text(TEXT)
    assert main(["masked", str(f), "--N", "24", "--T", "0.1", "--steps", "2", "--save-every", "1", "--json",
                 "--quiet"]) == 0
    runs = json.loads(capsys.readouterr().out)["sink_experiment"]["runs"]
    assert [r["sink"] for r in runs] == [0.25] and runs[0]["first_position_tokens"] == 6  # round(24/4)
    assert main(["masked", str(f), "--N", "24", "--T", "0.1", "--steps", "2", "--save-every", "1", "--json",
                 "--sinks", "0,0.5", "--quiet"]) == 0
    assert [r["sink"] for r in json.loads(capsys.readouterr().out)["sink_experiment"]["runs"]] == [0.0, 0.5]
    assert main(["stability", str(f), "--T", "0.2", "--N", "16", "--seeds", "1", "--steps", "4", "--json",
                 "--perturb", "shift:0.05", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["positions"] == {"kind": "grid:4", "sink": 0.25} and res["runs"][0]["cone_mass"] == 0.25
    assert res["all_sound"] is True and res["all_sound_sup"] is True
    assert main(["stability", str(f), "--T", "0.2", "--N", "16", "--seeds", "1", "--steps", "4", "--json",
                 "--perturb", "shift:0.05", "--sink", "0", "--positions", "uniform", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["positions"] == {"kind": "uniform", "sink": 0.0} and res["runs"][0]["cone_mass"] == 1 / 16
