"""Input limits (symbolic_tf.spec.limits) and the number limits of spec/rational.py.

Every hostile input must end in one of the project's errors (one line), quickly: never a
RecursionError, ValueError, MemoryError or a hang.
"""
from __future__ import annotations

import json
import os
import time  # CPU-time guards against work blow-ups on hostile input (not performance tests)
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symbolic_tf.spec import limits
from symbolic_tf.spec.errors import InvalidParameters, ProblemFileError, SymtfError
from symbolic_tf.spec.limits import (MAX_DECIMAL_EXPONENT, MAX_DEPTH, MAX_DIGITS, MAX_DIM, check_json_limits,
                                     int_digits_exceed, load_json_text, load_toml_text, read_text_file)
from symbolic_tf.spec.problem import decode_document, parse_problem, read_document
from symbolic_tf.spec.rational import parse_rational_str, to_fraction


def _id(v):
    """Short test ids (pytest's str() of a 5000-digit int would hit Python's own digit limit)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        return f"int{v.bit_length()}bits"
    if isinstance(v, (Fraction, list)) or (isinstance(v, str) and len(v) > 40):
        return f"{type(v).__name__}{len(str(v)) if not isinstance(v, Fraction) else ''}"
    return None


def one_line(exc: BaseException) -> str:
    msg = str(exc)
    assert msg and "\n" not in msg and len(msg) < 600, msg
    return msg


# ----- the constants ---------------------------------------------------------------------
def test_limits_are_what_the_readme_says():
    assert limits.MAX_FILE_BYTES == 8 * 2**20 and limits.MAX_MAP_FILE_BYTES == 64 * 2**20
    assert (MAX_DEPTH, MAX_DIGITS, MAX_DECIMAL_EXPONENT, MAX_DIM) == (64, 2000, 9999, 64)


@pytest.mark.parametrize("n, over", [(10**1999, False), (10**2000 - 1, False), (10**2000, True),
                                     (-(10**2000 - 1), False), (-(10**2000), True), (0, False),
                                     (10**5000, True), (2**6640, False), (2**6700, True)], ids=_id)
def test_int_digits_exceed_is_exact_at_the_boundary(n, over):
    assert int_digits_exceed(n) is over
    if n.bit_length() < 10_000:
        assert over == (len(str(abs(n))) > MAX_DIGITS)


# ----- read_text_file --------------------------------------------------------------------
def test_read_text_file_ok_and_bom(tmp_path):
    p = tmp_path / "a.toml"
    p.write_bytes("\ufeffd = 1\n".encode("utf-8"))
    assert read_text_file(p, "problem file") == "d = 1\n"


def test_read_text_file_refuses(tmp_path):
    cases = {
        "missing": tmp_path / "nope.toml",
        "directory": tmp_path,
        "nul in path": str(tmp_path / "a\0b"),
    }
    for what, path in cases.items():
        with pytest.raises(ProblemFileError, match="cannot read") as ei:
            read_text_file(path, "problem file")
        one_line(ei.value)
    latin = tmp_path / "latin1.toml"
    latin.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(ProblemFileError, match="not valid UTF-8") as ei:
        read_text_file(latin, "problem file")
    one_line(ei.value)


def test_read_text_file_checks_the_size_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # a sparse 9 MiB file: refused from os.stat alone
        fh.truncate(limits.MAX_FILE_BYTES + 2**20)
    reads = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: reads.append(a) or real_open(*a, **k))
    with pytest.raises(ProblemFileError, match="too large") as ei:
        read_text_file(big, "certificate")
    assert not reads
    one_line(ei.value)
    small = tmp_path / "small.json"
    small.write_text("[1]")
    with pytest.raises(ProblemFileError, match="too large"):
        read_text_file(small, "certificate", max_bytes=2)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_read_text_file_reads_a_bounded_prefix_of_endless_files():
    t = time.process_time()
    with pytest.raises(ProblemFileError, match="too large"):
        read_text_file("/dev/zero", "problem file", max_bytes=2**20)
    assert time.process_time() - t < 10


# ----- load_json_text / load_toml_text ----------------------------------------------------
def test_json_nesting():
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_json_text(ok, "f") is not None
    for n in (MAX_DEPTH + 1, 200, 100_000):
        t = time.process_time()
        with pytest.raises(ProblemFileError, match="nested too deeply") as ei:
            load_json_text('{"a":' * n + "1" + "}" * n, "f")
        one_line(ei.value)
        assert time.process_time() - t < 10


@pytest.mark.parametrize("text, needle", [
    ("[NaN]", "NaN is not a number"),
    ('{"x": "NaN", "y":\n  [1, -Infinity]}', "line 2, column 7: -Infinity"),
    ("[Infinity]", "Infinity"),
    ("[1e99999999]", "overflows a float"),
    ("[-1e400]", "overflows a float"),
    ("[" + "1" * 100_000 + "]", "100000 digits"),
    ("[" + "1" * 5000 + "]", "5000 digits"),
    ("[0." + "1" * 100_000 + "]", "characters"),
    ('["' + "7" * 2001 + '"]', "2001 digits"),
    ('{"a": 1,}', "line 1, column 9"),
    ("", "line 1, column 1"),
], ids=_id)
def test_json_refusals_are_one_line(text, needle):
    with pytest.raises(ProblemFileError) as ei:
        load_json_text(text, "f.json")
    msg = one_line(ei.value)
    assert msg.startswith("f.json:") and needle in msg, msg


def test_json_keeps_exact_floats_and_big_but_allowed_numbers():
    doc = load_json_text('{"a": 0.1, "b": ' + "9" * MAX_DIGITS + ', "c": "' + "1" * MAX_DIGITS + '/3"}', "f")
    assert doc["a"] == 0.1 and doc["b"] == 10**MAX_DIGITS - 1
    assert parse_rational_str(doc["c"], "c") == Fraction(int("1" * MAX_DIGITS), 3)


@pytest.mark.parametrize("text, needle", [
    ("a = " + "1" * 5000, "4300 digits"),
    ("a = " + "1" * 3000, "more than 2000 digits"),
    ("a = " + "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("a = " + "[" * 200 + "]" * 200, "nested too deeply"),
    ("x = " + "{ y = " * 200 + "1" + " }" * 200, "nested too deeply"),
    ("[" + ".".join(["t"] * 500) + "]\nk = 1", "nested too deeply"),
    ("a = = 1", "invalid TOML"),
], ids=_id)
def test_toml_refusals_are_one_line(text, needle):
    t = time.process_time()
    with pytest.raises(ProblemFileError) as ei:
        load_toml_text(text, "f.toml")
    assert needle in one_line(ei.value)
    assert time.process_time() - t < 10


def test_check_json_limits_walks_without_recursion(monkeypatch):
    deep: list = []
    node = deep
    for _ in range(50_000):  # far deeper than the interpreter's recursion limit
        node.append([])
        node = node[0]
    with pytest.raises(ProblemFileError, match="nested too deeply"):
        check_json_limits(deep, "f")
    monkeypatch.setattr(limits, "MAX_NODES", 10)
    with pytest.raises(ProblemFileError, match="more than 10 values"):
        check_json_limits(list(range(20)), "f")
    monkeypatch.setattr(limits, "MAX_STRING_CHARS", 5)
    with pytest.raises(ProblemFileError, match="characters"):
        check_json_limits({"k": "abcdefgh"}, "f")
    with pytest.raises(ProblemFileError, match="characters"):
        check_json_limits({"abcdefgh": 1}, "f")


def test_problem_decoding_uses_the_limits(tmp_path):
    p = tmp_path / "p.json"
    p.write_text('{"variant": "softmax", "d": 1, "A": [[NaN]]}')
    with pytest.raises(ProblemFileError, match="NaN"):
        read_document(p)
    with pytest.raises(ProblemFileError, match="neither valid TOML nor valid JSON"):
        decode_document("= =", ".txt", "x")
    with pytest.raises(ProblemFileError, match="nested too deeply"):
        decode_document("[" * 300 + "]" * 300, ".txt", "x")  # valid JSON, too deep


@pytest.mark.parametrize("d", [MAX_DIM + 1, 10**9, 10**1999], ids=_id)
def test_huge_dimension_is_invalid_parameters(d):
    t = time.process_time()
    with pytest.raises(InvalidParameters) as ei:
        parse_problem({"variant": "softmax", "d": d})
    assert ei.value.field == "d" and f"at most {MAX_DIM}" in one_line(ei.value)
    assert time.process_time() - t < 10


# ----- numbers ----------------------------------------------------------------------------
@pytest.mark.parametrize("value, needle", [
    ("1" * (MAX_DIGITS + 1), "digits"),
    ("1/" + "3" * (MAX_DIGITS + 1), "digits"),
    ("0." + "0" * MAX_DIGITS + "1", "digits"),
    ("1e10000", "exponent"),
    ("1e99999999", "exponent"),
    ("1e-00000000000000010000", "exponent"),
    (f"1e{MAX_DIGITS}", "digits"),      # the value 10^2000 has 2001 digits
    (f"1e-{MAX_DIGITS}", "digits"),     # its denominator too
    ("x" * 10**6, "too long"),
    ("nan", "finite"), ("-inf", "finite"), ("", "finite"),
    ("1/0", "zero denominator"),
    ("1/2/3", "cannot read"),
    (10**MAX_DIGITS, "digits"),
    (Fraction(1, 10**MAX_DIGITS), "digits"),
    (float("nan"), "finite"),
    ([1] * 10**5, "list"),
], ids=_id)
def test_to_fraction_limits(value, needle):
    t = time.process_time()
    with pytest.raises(InvalidParameters) as ei:
        to_fraction(value, "A[0][0]")
    msg = one_line(ei.value)
    assert ei.value.field == "A[0][0]" and needle in msg, msg
    assert time.process_time() - t < 5


@pytest.mark.parametrize("value, expected", [
    ("9" * MAX_DIGITS, Fraction(10**MAX_DIGITS - 1)),
    (f"1e{MAX_DIGITS - 1}", Fraction(10**(MAX_DIGITS - 1))),
    (f"1e-{MAX_DIGITS - 1}", Fraction(1, 10**(MAX_DIGITS - 1))),
    ("-2/4", Fraction(-1, 2)), (" 1.5e-3 ", Fraction(3, 2000)), ("1_000", Fraction(1000)),
    (10**(MAX_DIGITS - 1), Fraction(10**(MAX_DIGITS - 1))),
], ids=_id)
def test_to_fraction_accepts_up_to_the_limits(value, expected):
    assert to_fraction(value, "x") == expected
    if isinstance(value, str):
        assert parse_rational_str(value, "x") == expected


def test_parse_rational_str_wants_a_string():
    with pytest.raises(InvalidParameters, match="as a string"):
        parse_rational_str(3, "data.t")


def test_every_accepted_value_round_trips():
    """What to_fraction accepts, problem_to_dict writes as "p/q" and to_fraction reads back."""
    from symbolic_tf.exact.rational import frac_str

    for text in (f"1e{MAX_DIGITS - 1}", f"-1e-{MAX_DIGITS - 1}", "9" * MAX_DIGITS + "/" + "7" * MAX_DIGITS):
        q = to_fraction(text, "x")
        assert to_fraction(frac_str(q), "x") == q


# ----- hostile documents, generated ----------------------------------------------------------
_fragments = st.sampled_from([
    "[", "]", "{", "}", '"', ",", ":", "=", "\n", "NaN", "-Infinity", "1e99999999", "1e400", "0.1",
    "9" * 4400, "7" * 2100, '"1/' + "3" * 2100 + '"', "inf", "nan", "true", "[[", "]]", "a.b.c",
    '"variant"', '"softmax"', "d", "2", "\\", "\\u", "\x00", "\ufeff", "#", "'''", '"""',
])
_hostile_text = st.one_of(
    st.text(max_size=300),
    st.lists(_fragments, max_size=60).map("".join),
    st.integers(1, 3000).flatmap(lambda n: st.sampled_from([
        "[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, "a = " + "[" * n + "]" * n,
        "x = " + "{ y = " * n + "1" + " }" * n, "[" * n,
    ])),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_hostile_text, st.sampled_from([".json", ".toml", ".txt"]))
def test_hostile_text_only_raises_project_errors(text, suffix):
    t = time.process_time()
    try:
        doc = decode_document(text, suffix, "f" + suffix)
        if isinstance(doc, dict):
            parse_problem(doc)
    except SymtfError as exc:
        one_line(exc)
    assert time.process_time() - t < 10


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400), st.sampled_from([".json", ".toml"]))
def test_hostile_bytes_only_raise_project_errors(tmp_path, data, suffix):
    p = tmp_path / ("f" + suffix)
    p.write_bytes(data)
    t = time.process_time()
    try:
        doc = read_document(p)
        if isinstance(doc, dict):
            parse_problem(doc)
    except SymtfError as exc:
        one_line(exc)
    assert time.process_time() - t < 10


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
                    max_leaves=40),
       st.sampled_from(["variant", "d", "A", "V", "initial", "heads", "T", "scale"]))
def test_hostile_problem_documents_only_raise_project_errors(value, key):
    doc = {"variant": "softmax", "d": 2, key: value}
    t = time.process_time()
    try:
        parse_problem(json.loads(json.dumps(doc, allow_nan=True)))
    except SymtfError as exc:
        one_line(exc)
    assert time.process_time() - t < 10


@pytest.mark.parametrize("expr, needle", [
    ("(" * 100_000 + "x", "nested too deeply"),
    ("-" * 100_000 + "x", "nested too deeply"),
    ("x + 1e99999999", "exponent"),
    ("*".join(["1e9999"] * 100) + "*x", "digits"),
    ("+".join(f"1/{p}" for p in range(3, 30_000, 2)) + "+x", "more than 2000 digits"),
    ("x + " + "9" * 3000, "digits"),
], ids=["parens", "signs", "exponent", "product", "sum", "digits"])
def test_map_spec_expressions_are_bounded(expr, needle):
    from symbolic_tf.spec.mapspec import parse_affine

    t = time.process_time()
    with pytest.raises(InvalidParameters) as ei:
        parse_affine(expr, "problem.A[0][0]")
    assert needle in one_line(ei.value)
    assert time.process_time() - t < 10
