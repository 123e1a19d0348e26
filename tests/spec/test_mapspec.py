"""Map specs: exact affine parsing, slice families, refusals with one clear message."""
from fractions import Fraction as Fr

import pytest
from hypothesis import given, strategies as st

from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.spec.mapspec import parse_affine, parse_map_spec


def base(**over):
    doc = {"family": "parameter", "resolution": [4, 4], "max_depth": 2,
           "x": {"label": "A11", "range": [-1, 1]}, "y": {"label": "A22", "range": ["-1/2", "1/2"]},
           "problem": {"variant": "softmax", "d": 2, "A": [["x", "1/2"], ["0.25*y - 1", "y"]],
                       "V": [[1, 0], [0, 1]], "initial": {"cov": [[1, 0], [0, 1]]}}}
    doc.update(over)
    return doc


def test_affine_parser_is_exact():
    assert parse_affine("0.1*x - y/3 + 1/7", "f") == (Fr(1, 7), Fr(1, 10), Fr(-1, 3))
    assert parse_affine("-(x - 2*(y + 1))/4", "f") == (Fr(1, 2), Fr(-1, 4), Fr(1, 2))
    assert parse_affine("3", "f") == (Fr(3), 0, 0)
    assert parse_affine(0.5, "f") == (Fr(1, 2), 0, 0)


@given(st.fractions(max_denominator=50), st.fractions(max_denominator=50), st.fractions(max_denominator=50),
       st.fractions(max_denominator=50), st.fractions(max_denominator=50))
def test_affine_parser_round_trip(c0, cx, cy, x, y):
    text = f"({c0}) + ({cx})*x + y*({cy})"
    a = parse_affine(text, "f")
    assert a[0] + a[1] * x + a[2] * y == c0 + cx * x + cy * y


@pytest.mark.parametrize("text, msg", [("x*y", "not affine"), ("x/y", "not affine"), ("x**2", "unexpected"),
                                       ("exp(x)", "only numbers"), ("z + x", "only numbers"), ("(x", "missing"),
                                       ("x/0", "division by zero")])
def test_affine_parser_refuses(text, msg):
    with pytest.raises(InvalidParameters, match=msg):
        parse_affine(text, "f")


def test_points_and_affine_fields():
    spec = parse_map_spec(base())
    p = spec.problem_at(Fr(1, 3), Fr(-1, 4))
    assert p.A == ((Fr(1, 3), Fr(1, 2)), (Fr(-1, 16) - 1, Fr(-1, 4)))
    C0, Cx, Cy = spec.field_affine("A")
    assert C0 == ((0, Fr(1, 2)), (-1, 0)) and Cx == ((1, 0), (0, 0)) and Cy == ((0, 0), (Fr(1, 4), 1))
    assert spec.cov_affine()[1] == ((0, 0), (0, 0))
    assert spec.to_dict()["x"]["range"] == ["-1", "1"]
    assert parse_map_spec({k: v for k, v in spec.to_dict().items()}).content_hash() == spec.content_hash()


def test_cov_disk_family():
    spec = parse_map_spec({"family": "cov-disk", "problem": {"variant": "softmax", "d": 2, "A": [[1, 0], [0, -1]],
                                                             "V": [[1, 0], [0, 1]]}})
    S = spec.problem_at(Fr(1, 2), Fr(-1, 3)).cov
    assert S == ((Fr(3, 4), Fr(-1, 6)), (Fr(-1, 6), Fr(1, 4)))  # trace one, (a − b, 2c) = (u, w)
    assert spec.x_label.startswith("u") and spec.x_range == (-1, 1)


@pytest.mark.parametrize("over, msg", [
    ({"family": "polar"}, "unknown slice family"),
    ({"x": {"range": [1, 1]}}, "empty range"),
    ({"x": {"range": [2, -1]}}, "empty range"),
    ({"resolution": [0, 4]}, "resolution"),
    ({"max_depth": 40}, "max_depth"),
    ({"colour": "red"}, "unknown field"),
])
def test_bad_specs(over, msg):
    with pytest.raises(InvalidParameters, match=msg):
        parse_map_spec(base(**over))


def test_indefinite_covariance_refused():
    doc = base(family="cov")
    doc["problem"]["A"] = [[1, 0], [0, -1]]
    doc["problem"]["initial"]["cov"] = [["1", "x"], ["x", "1"]]  # x = ±1: singular at the corners
    with pytest.raises(InvalidParameters, match="not positive definite at the corner"):
        parse_map_spec(doc)
    doc["problem"]["initial"]["cov"] = [["1", "x/2"], ["x/2", "1"]]
    assert parse_map_spec(doc).family == "cov"


def test_family_consistency():
    doc = base()
    doc["problem"]["initial"]["cov"] = [["1 + x", 0], [0, 1]]
    with pytest.raises(InvalidParameters, match="keeps the initial Gaussian fixed"):
        parse_map_spec(doc)
    with pytest.raises(InvalidParameters, match="varies only the initial Gaussian"):
        parse_map_spec(base(family="cov"))
    with pytest.raises(InvalidParameters, match="must lie in"):
        parse_map_spec({"family": "cov-disk", "x": {"range": [-2, 1]},
                        "problem": {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]}})
    nothing = base()
    nothing["problem"]["A"] = [[1, 0], [0, 1]]
    with pytest.raises(InvalidParameters, match="nothing to map"):
        parse_map_spec(nothing)
