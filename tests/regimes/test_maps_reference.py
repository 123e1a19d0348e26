"""docs/reference/mapspec.md: every key and family of a map spec is on the page, and each example
runs as written (read from a file as a user would, then run on a coarse grid and re-checked)."""
import re
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from symbolic_tf.regimes.maps import check_map, run_map
from symbolic_tf.spec.mapspec import FAMILIES, SPEC_FIELDS, load_map_spec, parse_map_spec

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "mapspec.md"
TEXT = PAGE.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```toml\n(.*?)```", TEXT, re.S)


def test_every_key_and_family_is_documented():
    first_column = re.findall(r"^\| ([^|]+) \|", TEXT, re.M)
    table = {k for cell in first_column for k in re.findall(r"`([^`]+)`", cell)}
    for key in SPEC_FIELDS:
        assert key in table or f"[{key}]" in table, key
    for family in FAMILIES:
        assert f"### `{family}`" in TEXT, family
    assert sorted(tomllib.loads(e)["family"] for e in EXAMPLES) == sorted(FAMILIES)   # one example per family


@pytest.mark.parametrize("k", range(len(FAMILIES)))
def test_each_example_runs_as_written(tmp_path, k):
    path = tmp_path / "spec.toml"
    path.write_text(EXAMPLES[k], encoding="utf-8")
    spec = load_map_spec(path)
    small = parse_map_spec({**{key: v for key, v in spec.to_dict().items() if key != "schema"},
                            "resolution": [2, 2], "max_depth": 1})
    m = run_map(small)
    r = check_map(m)
    assert r["cells"] == len(m["cells"]) and m["route"] is not None   # each example has whole cells
    assert m["totals"]["decided_fraction"] > 0


def test_the_disk_coordinates_are_the_documented_matrix():
    """Σ₀(u, w) = ½[[1 + u, w], [w, 1 − u]]: trace one, det (1 − u² − w²)/4, and u = a − b, w = 2c."""
    disk = next(e for e in EXAMPLES if tomllib.loads(e)["family"] == "cov-disk")
    spec = parse_map_spec(tomllib.loads(disk))
    for u, w in [(Fraction(1, 3), Fraction(-1, 2)), (Fraction(-3, 5), Fraction(4, 5)), (Fraction(0), Fraction(0))]:
        (a, c), (c2, b) = [[Fraction(v) for v in row] for row in spec.problem_doc_at(u, w)["initial"]["cov"]]
        assert c == c2 and a + b == 1 and a - b == u and 2 * c == w
        assert a * b - c * c == (1 - u * u - w * w) / 4
    assert (spec.x_range, spec.y_range) == ((-1, 1), (-1, 1))
    assert (spec.x_label, spec.y_label) == ("u = a − b", "w = 2c")
