"""Problem documents: parsing, exact round trips, validation errors, files.

The document strategy builds, side by side, a document spelled the way a user may spell
numbers (ints, "p/q", decimal strings, floats) and the exact :class:`Problem` it denotes, so
parsing is checked against an independent expectation, not only against itself.
"""
from __future__ import annotations

import copy
import json
import math
import random
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from symbolic_tf.spec import (
    Head, InvalidParameters, Problem, ProblemFileError, SymtfError, UnknownVariant, load_problem,
    parse_problem, problem_to_dict,
)
from symbolic_tf.exact.congruence import matmul, psd_decision, transpose
from symbolic_tf.spec.problem import HEAD_FIELDS, INITIAL_FIELDS, TOP_LEVEL_FIELDS

# =========================================================================== number spellings
small = st.builds(Fraction, st.integers(-20, 20), st.integers(1, 9))
decimal_values = st.builds(lambda m, e: Fraction(m, 10**e), st.integers(-10**5, 10**5), st.integers(0, 5))
float_values = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False).map(Fraction)
values = st.one_of(small, small, decimal_values, float_values)
positive_values = st.one_of(
    st.builds(Fraction, st.integers(1, 20), st.integers(1, 9)),
    st.builds(lambda m, e: Fraction(m, 10**e), st.integers(1, 10**5), st.integers(0, 5)),
    st.floats(2.0**-30, 1e3).map(Fraction),
)
nonzero_values = st.builds(lambda q, s: s * q, positive_values, st.sampled_from([-1, 1]))
positive_small = st.builds(Fraction, st.integers(1, 20), st.integers(1, 9))


def decimal_digits(q: Fraction):
    """(n, k) with q = n / 10**k when q has a finite decimal expansion, else None."""
    den, a, b = q.denominator, 0, 0
    while den % 2 == 0:
        den, a = den // 2, a + 1
    while den % 5 == 0:
        den, b = den // 5, b + 1
    if den != 1:
        return None
    k = max(a, b)
    return q.numerator * (10**k // q.denominator), k


def spell(q: Fraction, rnd: random.Random):
    """One of the exact ways a user may write q, chosen by rnd."""
    kinds = ["ratio"]
    if q.denominator == 1:
        kinds.append("int")
    dd = decimal_digits(q)
    if dd is not None:
        kinds += ["decimal", "scientific"]
    if Fraction(float(q)) == q:
        kinds.append("float")
    kind = rnd.choice(kinds)
    if kind == "int":
        return int(q)
    if kind == "float":
        return float(q)
    if kind == "ratio":
        m = rnd.randint(1, 4)
        return f"{q.numerator * m}/{q.denominator * m}"
    n, k = dd
    if kind == "scientific":
        return f"{n}e-{k}"
    digits = str(abs(n)).rjust(k + 1, "0")
    body = f"{digits[:-k]}.{digits[-k:]}" if k else f"{digits}.0"
    return ("-" if n < 0 else "") + body


# one drawn seed picks every spelling of a matrix: far fewer draws than one per entry
seeds = st.integers(0, 2**32 - 1).map(random.Random)


def spelled(q: Fraction):
    return seeds.map(lambda rnd: spell(q, rnd))


@st.composite
def spell_matrix(draw, exact):
    rnd = draw(seeds)
    return [[spell(x, rnd) for x in row] for row in exact]


@st.composite
def matrix(draw, rows, cols, elements=values):
    exact = tuple(tuple(draw(elements) for _ in range(cols)) for _ in range(rows))
    return draw(spell_matrix(exact)), exact


@st.composite
def vector(draw, n):
    exact = tuple(draw(values) for _ in range(n))
    rnd = draw(seeds)
    return [spell(x, rnd) for x in exact], exact


@st.composite
def attention(draw, d, allow_none: bool):
    """Document fields for A / (Q, K) / both, and the exact (A, Q, K, given_A)."""
    kinds = ["A", "QK", "both"] + (["none"] if allow_none else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return {}, (None, None, None, False)
    if kind == "A":
        sA, A = draw(matrix(d, d))
        return {"A": sA}, (A, None, None, True)
    k = draw(st.integers(1, 4))  # k may differ from d
    sQ, Q = draw(matrix(k, d, small))
    sK, K = draw(matrix(k, d, small))
    A = matmul(transpose(K), Q)
    fields = {"Q": sQ, "K": sK}
    if kind == "both":
        fields = {"A": draw(spell_matrix(A)), **fields}
    return fields, (A, Q, K, kind == "both")


variant_names = st.sampled_from(["softmax", "Softmax", " l2 ", "sinkhorn", "SIGMOID"])
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@st.composite
def problem_docs(draw, require_cov=False, require_heads=False, min_d=1):
    """(document, expected Problem)."""
    d = draw(st.integers(min_d, 4))
    variant = draw(variant_names)
    doc = {"variant": variant, "d": d}
    kw = {"variant": variant.strip().lower(), "d": d}
    fields, (A, Q, K, given_A) = draw(attention(d, allow_none=True))
    doc.update(fields)
    kw.update(A=A, Q=Q, K=K, given_A=given_A)
    for key in ("V", "F"):
        if draw(st.booleans()):
            doc[key], kw[key] = draw(matrix(d, d))
    if draw(st.booleans()):
        doc["b"], kw["b"] = draw(vector(d))
    if require_heads or draw(st.booleans()):
        heads, docs = [], []
        for _ in range(draw(st.integers(1, 2))):
            fields, (hA, hQ, hK, _) = draw(attention(d, allow_none=False))
            h = dict(fields)
            hv = draw(st.one_of(st.none(), variant_names))
            if hv is not None:
                h["variant"] = hv
            h["V"], hV = draw(matrix(d, d))
            hW = None
            if draw(st.booleans()):
                h["W"], hW = draw(matrix(d, d))
            docs.append(h)
            heads.append(Head("softmax" if hv is None else hv.strip().lower(), hA, hQ, hK, hV, hW))
        doc["heads"], kw["heads"] = docs, tuple(heads)
    if draw(st.booleans()):
        q = draw(values)
        doc["sigmoid_bias"], kw["sigmoid_bias"] = draw(spelled(q)), q
    if draw(st.booleans()):
        q = draw(positive_values)
        doc["scale"], kw["scale"] = draw(spelled(q)), q
    if draw(st.booleans()):
        q = draw(positive_values)
        doc["T"], kw["T"] = draw(spelled(q)), q
    if require_cov or draw(st.booleans()):
        init = {}
        if draw(st.booleans()):
            init["mean"], kw["mean"] = draw(vector(d))
        if require_cov or draw(st.booleans()):
            r = draw(st.integers(0, d))  # rank-deficient when r < d
            L = tuple(tuple(draw(small) for _ in range(r)) for _ in range(d)) if r else None
            cov = matmul(L, transpose(L)) if r else tuple((Fraction(0),) * d for _ in range(d))
            init["cov"], kw["cov"] = draw(spell_matrix(cov)), cov
        doc["initial"] = init
    for key in ("name", "description"):
        if draw(st.booleans()):
            doc[key] = kw[key] = draw(texts)
    return doc, Problem(**kw)


# =========================================================================== a tiny TOML writer
def _toml_str(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _toml_str(k)


def _toml_val(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_val(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def to_toml(doc: dict) -> str:
    lines, tables, arrays = [], [], []
    for k, v in doc.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays.append((k, v))
        else:
            lines.append(f"{_toml_key(k)} = {_toml_val(v)}")
    for k, v in tables:
        lines.append(f"[{_toml_key(k)}]")
        lines += [f"{_toml_key(kk)} = {_toml_val(vv)}" for kk, vv in v.items()]
    for k, items in arrays:
        for item in items:
            lines.append(f"[[{_toml_key(k)}]]")
            lines += [f"{_toml_key(kk)} = {_toml_val(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


# =========================================================================== round trips
CANONICAL = re.compile(r"-?\d+(/\d+)?")


NON_NUMERIC = ("variant", "d", "name", "description")


def numeric_leaves(x, key=None):
    """Every number-carrying leaf of a serialised problem."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in NON_NUMERIC:
                yield from numeric_leaves(v, k)
    elif isinstance(x, list):
        for v in x:
            yield from numeric_leaves(v, key)
    else:
        yield x


@given(problem_docs())
def test_valid_documents_parse_to_the_exact_problem(case):
    doc, expected = case
    p = parse_problem(doc)
    assert p == expected
    assert p.given_A == expected.given_A
    # the same document after JSON (floats survive json exactly) and after TOML text
    assert parse_problem(json.loads(json.dumps(doc))) == expected
    import tomllib

    assert parse_problem(tomllib.loads(to_toml(doc))) == expected


@given(problem_docs(), st.data())
def test_problem_to_dict_round_trips(tmp_path_factory, case, data):
    doc, expected = case
    p = parse_problem(doc)
    out = problem_to_dict(p)
    # entries are canonical "p/q" strings
    for leaf in numeric_leaves(out):
        assert isinstance(leaf, str) and CANONICAL.fullmatch(leaf), leaf
    back = parse_problem(out)
    assert back == p and back.given_A == p.given_A
    assert problem_to_dict(back) == out
    assert back.content_hash() == p.content_hash()
    via_json = parse_problem(json.loads(json.dumps(out)))
    assert via_json == p
    path = tmp_path_factory.mktemp("rt") / data.draw(st.sampled_from(["p.toml", "p.json", "p.txt"]))
    path.write_text(json.dumps(out) if path.suffix == ".json" else to_toml(out), encoding="utf-8")
    from_file = load_problem(path)
    assert from_file == p and from_file.given_A == p.given_A


@given(problem_docs(), st.data())
def test_equal_values_spelled_differently_are_equal_problems(case, data):
    """Respelling every number (e.g. 0.5 vs "1/2" vs "5e-1") changes neither the Problem nor its hash."""
    doc, expected = case
    p = parse_problem(doc)
    respelled = parse_problem(json.loads(json.dumps(problem_to_dict(p))))
    # respell each "p/q" leaf of the canonical output in a random exact way
    out = problem_to_dict(p)
    rnd = data.draw(seeds)

    def respell(x, key=None):
        if isinstance(x, dict):
            return {k: respell(v, k) for k, v in x.items()}
        if isinstance(x, list):
            return [respell(v, key) for v in x]
        if isinstance(x, str) and key not in NON_NUMERIC:
            return spell(Fraction(x), rnd)
        return x

    other = parse_problem(respell(out))
    assert other == p == respelled
    assert other.content_hash() == p.content_hash()


@given(problem_docs())
def test_redundant_a_next_to_q_k_changes_neither_equality_nor_hash(case):
    """A spelled out next to Q, K (given_A) is presentation only: same Problem, same hash."""
    doc, _ = case
    p = parse_problem(doc)
    out = problem_to_dict(p)
    with_a = copy.deepcopy(out)
    without_a = copy.deepcopy(out)
    for w, wo, src in [(with_a, without_a, p)] + list(zip(with_a.get("heads", []), without_a.get("heads", []), p.heads)):
        if "Q" in w:
            w["A"] = [[str(x) for x in row] for row in src.A]
            wo.pop("A", None)
    assert parse_problem(with_a).given_A == (p.A is not None)
    for v in (with_a, without_a):
        q = parse_problem(v)
        assert q == p and q.content_hash() == p.content_hash()


def test_q_k_fill_a_and_k_may_differ_from_d():
    p = parse_problem({"variant": "softmax", "d": 2, "Q": [[1, 2]], "K": [["1/2", 3]], "V": [[1, 0], [0, 1]]})
    # KᵀQ = [[1/2],[3]] · [[1, 2]]
    assert p.A == ((Fraction(1, 2), Fraction(1)), (Fraction(3), Fraction(6)))
    assert not p.given_A
    assert "A" not in problem_to_dict(p)
    h = Head(Q=((Fraction(1), Fraction(2)),), K=((Fraction(1, 2), Fraction(3)),))
    assert h.attention == p.A
    assert parse_problem({"variant": "softmax", "d": 1, "A": "2/3"}).A == ((Fraction(2, 3),),)
    assert parse_problem({"variant": "softmax", "d": 2, "b": [0, 0]}).has_drift
    assert not parse_problem({"variant": "softmax", "d": 2}).has_drift


def test_decimal_strings_and_floats_in_documents():
    p = parse_problem({"variant": "softmax", "d": 1, "A": [["0.1"]], "V": [[0.1]], "scale": "0.1"})
    assert p.A[0][0] == Fraction(1, 10) == p.scale
    assert p.V[0][0] == Fraction(0.1) != Fraction(1, 10)


# =========================================================================== invalid documents
def raises_on(doc, field: str | None = None, match: str | None = None) -> InvalidParameters:
    with pytest.raises(InvalidParameters) as ei:
        parse_problem(doc)
    err = ei.value
    if field is not None:
        assert err.field == field, (err.field, str(err))
    assert str(err).startswith(f"{err.field}: ")
    if match is not None:
        assert re.search(match, str(err)), str(err)
    return err


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def numeric_slots(doc):
    """(path, field name, kind) of every matrix/vector in a document."""
    for key in ("A", "Q", "K", "V", "F"):
        if key in doc:
            yield (key,), key, "matrix"
    if "b" in doc:
        yield ("b",), "b", "vector"
    for i, h in enumerate(doc.get("heads", [])):
        for key in ("A", "Q", "K", "V", "W"):
            if key in h:
                yield ("heads", i, key), f"heads[{i}].{key}", "matrix"
    init = doc.get("initial", {})
    if "mean" in init:
        yield ("initial", "mean"), "initial.mean", "vector"
    if "cov" in init:
        yield ("initial", "cov"), "initial.cov", "matrix"


BAD_NUMBERS = [math.nan, math.inf, -math.inf, "nan", "NaN", "-inf", "+Infinity", " inf ", True, False,
               "1/0", "-3/0", None, "abc", "1/2/3", "", [1], {"x": 1}]


@given(problem_docs(), st.data())
def test_bad_number_at_a_random_entry_names_that_entry(case, data):
    doc, _ = case
    slots = list(numeric_slots(doc))
    if not slots:
        doc["b"] = [0] * doc["d"]
        slots = list(numeric_slots(doc))
    path, name, kind = data.draw(st.sampled_from(slots))
    bad = data.draw(st.sampled_from(BAD_NUMBERS))
    mutated = copy.deepcopy(doc)
    target = _get(mutated, path)
    i = data.draw(st.integers(0, len(target) - 1))
    if kind == "matrix":
        j = data.draw(st.integers(0, len(target[i]) - 1))
        target[i][j] = bad
        field = f"{name}[{i}][{j}]"
    else:
        target[i] = bad
        field = f"{name}[{i}]"
    err = raises_on(mutated, field)
    if isinstance(bad, str) and bad.endswith("/0"):
        assert "zero denominator" in str(err)
    if isinstance(bad, bool):
        assert "boolean" in str(err)


MATRIX_MUTATIONS = ["drop_row", "add_row", "drop_col", "add_col", "ragged", "empty", "not_list", "row_not_list"]


@given(problem_docs(), st.data())
def test_wrong_shape_names_the_field(case, data):
    doc, _ = case
    slots = list(numeric_slots(doc))
    if not slots:
        doc["initial"] = {"mean": [0] * doc["d"]}
        slots = list(numeric_slots(doc))
    path, name, kind = data.draw(st.sampled_from(slots))
    mutated = copy.deepcopy(doc)
    parent, key = _get(mutated, path[:-1]), path[-1]
    M = parent[key]
    field = name
    if kind == "vector":
        how = data.draw(st.sampled_from(["drop", "append", "string", "table", "scalar"]))
        parent[key] = {"drop": M[:-1], "append": M + [1], "string": "1", "table": {"0": 1}, "scalar": 1}[how]
    else:
        how = data.draw(st.sampled_from(MATRIX_MUTATIONS))
        if how == "drop_row":
            parent[key] = M[:-1]
        elif how == "add_row":
            parent[key] = M + [[0] * len(M[0])]
        elif how == "drop_col":
            parent[key] = [row[:-1] for row in M]
        elif how == "add_col":
            parent[key] = [row + [0] for row in M]
        elif how == "ragged":
            i = data.draw(st.integers(0, len(M) - 1))
            parent[key] = [row + [0] if r == i else row for r, row in enumerate(M)]
        elif how == "empty":
            parent[key] = []
        elif how == "not_list":
            parent[key] = {"rows": M}
        else:
            i = data.draw(st.integers(0, len(M) - 1))
            parent[key] = [7 if r == i else row for r, row in enumerate(M)]
        # Q fixes k; a Q with another (non-zero) number of rows is reported against K
        if key == "Q" and how in ("drop_row", "add_row") and parent[key]:
            field = name[:-1] + "K"
        # a 1xc ragged change to a 1-row matrix is just a column change: still this field
    raises_on(mutated, field)


@given(problem_docs(require_cov=True, min_d=2), st.data())
def test_asymmetric_cov_is_rejected_at_the_right_entry(case, data):
    doc, expected = case
    d = doc["d"]
    i, j = data.draw(st.lists(st.integers(0, d - 1), min_size=2, max_size=2, unique=True))
    delta = data.draw(nonzero_values)
    mutated = copy.deepcopy(doc)
    mutated["initial"]["cov"][i][j] = data.draw(spelled(expected.cov[i][j] + delta))
    err = raises_on(mutated, "initial.cov", "not symmetric")
    assert f"[{max(i, j)}][{min(i, j)}]" in str(err)


@st.composite
def indefinite_cov(draw, d):
    """L D Lᵀ with L invertible and D having a negative entry: indefinite by Sylvester."""
    Lo = [[Fraction(int(i == j)) if j >= i else draw(small) for j in range(d)] for i in range(d)]
    perm = draw(st.permutations(range(d)))
    L = [Lo[perm[i]] for i in range(d)]
    diag = [draw(st.sampled_from([-1, 0, 1])) * draw(positive_small) for _ in range(d)]
    diag[draw(st.integers(0, d - 1))] = -draw(positive_small)
    D = [[diag[i] if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    return matmul(matmul(L, D), transpose(L))


WITNESS = re.compile(r"v = \[([^\]]*)\]")


def witness_from(err) -> tuple:
    m = WITNESS.search(str(err))
    assert m, str(err)
    return tuple(Fraction(t.strip()) for t in m.group(1).split(","))


def vMv(M, v):
    return sum(v[i] * M[i][j] * v[j] for i in range(len(v)) for j in range(len(v)))


@given(problem_docs(require_cov=True), st.data())
def test_indefinite_cov_is_rejected_with_a_checkable_witness(case, data):
    doc, _ = case
    cov = data.draw(indefinite_cov(doc["d"]))
    mutated = copy.deepcopy(doc)
    mutated["initial"]["cov"] = data.draw(spell_matrix(cov))
    err = raises_on(mutated, "initial.cov", "not positive semidefinite")
    v = witness_from(err)
    assert len(v) == doc["d"]
    assert vMv(cov, v) < 0
    assert psd_decision(cov).witness == v


@pytest.mark.parametrize(
    "cov",
    [[[0, 1], [1, 0]], [[1, 2], [2, 1]], [[-1]], [["1/3", "1/6"], ["1/6", "1/13"]],
     [[1, 1, 1], [1, 1, 2], [1, 2, 1]], [[1, 0], [0, "-1e-30"]]],
)
def test_indefinite_cov_examples(cov):
    d = len(cov)
    err = raises_on({"variant": "softmax", "d": d, "initial": {"cov": cov}}, "initial.cov", "semidefinite")
    exact = [[Fraction(x) for x in row] for row in cov]
    assert vMv(exact, witness_from(err)) < 0


@given(problem_docs(), st.data())
def test_unknown_field_is_named(case, data):
    doc, _ = case
    where = ["top"] + (["head"] if "heads" in doc else []) + (["initial"] if "initial" in doc else [])
    loc = data.draw(st.sampled_from(where))
    allowed = {"top": TOP_LEVEL_FIELDS, "head": HEAD_FIELDS, "initial": INITIAL_FIELDS}[loc]
    key = data.draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in allowed))
    mutated = copy.deepcopy(doc)
    if loc == "top":
        mutated[key] = 1
        field = key
    elif loc == "head":
        i = data.draw(st.integers(0, len(doc["heads"]) - 1))
        mutated["heads"][i][key] = 1
        field = f"heads[{i}].{key}"
    else:
        mutated["initial"][key] = [1]
        field = f"initial.{key}"
    err = raises_on(mutated, field, "unknown field")
    assert ", ".join(allowed) in str(err)


BASE = {"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]}


def with_(**kw):
    doc = copy.deepcopy(BASE)
    for k, v in kw.items():
        if v is ...:
            doc.pop(k, None)
        else:
            doc[k] = v
    return doc


@pytest.mark.parametrize(
    "doc, field, match",
    [
        (with_(variant=...), "variant", "missing"),
        (with_(variant=3), "variant", None),
        (with_(variant="  "), "variant", None),
        (with_(d=...), "d", "missing"),
        (with_(d=0), "d", "positive integer"),
        (with_(d=-2), "d", "positive integer"),
        (with_(d=2.0), "d", "positive integer"),
        (with_(d="2"), "d", "positive integer"),
        (with_(d=True), "d", "positive integer"),
        (with_(A=..., Q=[[1, 0]]), "K", "together"),
        (with_(A=..., K=[[1, 0]]), "Q", "together"),
        (with_(A=[[1, 0], [0, 1]], Q=[[1, 0]], K=[[1, 0]]), "A", "KᵀQ"),
        (with_(A=..., Q=[[1, 0, 0]], K=[[1, 0, 0]]), "Q", "shape"),
        (with_(A=..., Q=[[1, 0]], K=[[1, 0], [0, 1]]), "K", "shape"),
        (with_(scale=0), "scale", "positive"),
        (with_(scale="-1/2"), "scale", "positive"),
        (with_(scale=-0.0), "scale", "positive"),
        (with_(scale="1/0"), "scale", "zero denominator"),
        (with_(T=0), "T", "positive"),
        (with_(T="-0.5"), "T", "positive"),
        (with_(T=math.inf), "T", "finite"),
        (with_(T="nan"), "T", "finite"),
        (with_(sigmoid_bias=True), "sigmoid_bias", "boolean"),
        (with_(sigmoid_bias="NaN"), "sigmoid_bias", "finite"),
        (with_(V=[[1, "1/0"], [0, 1]]), "V[0][1]", "zero denominator"),
        (with_(F=[[1, 0]]), "F", "shape"),
        (with_(b=[1, 2, 3]), "b", "length"),
        (with_(heads=[]), "heads", "non-empty"),
        (with_(heads={"A": [[1, 0], [0, 1]]}), "heads", None),
        (with_(heads=[5]), "heads[0]", "table"),
        (with_(heads=[{"V": [[1, 0], [0, 1]]}]), "heads[0].A", "missing"),
        (with_(heads=[{"A": [[1, 0], [0, 1]]}]), "heads[0].V", "missing"),
        (with_(heads=[{"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "variant": 1}]), "heads[0].variant", None),
        (with_(heads=[{"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "variant": " "}]), "heads[0].variant", None),
        (with_(heads=[{"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "W": [[1]]}]), "heads[0].W", "shape"),
        (with_(heads=[{"Q": [[1, 0]], "V": [[1, 0], [0, 1]]}]), "heads[0].K", "together"),
        (with_(initial=[1, 2]), "initial", "table"),
        (with_(initial={"cov": [[1, 2], [3, 4]]}), "initial.cov", "symmetric"),
        (with_(initial={"cov": [[1, "0.1"], [0.1, 1]]}), "initial.cov", "symmetric"),
        (with_(initial={"mean": [0, "inf"]}), "initial.mean[1]", "finite"),
        (with_(name=5), "name", "string"),
        (with_(description=["x"]), "description", "string"),
        (with_(Heads=[]), "Heads", "unknown field"),
    ],
)
def test_specific_invalid_documents(doc, field, match):
    raises_on(doc, field, match)


def test_non_mapping_document_and_error_types():
    err = raises_on([("variant", "softmax")], "problem")
    assert isinstance(err, SymtfError) and isinstance(err, ValueError)
    assert issubclass(UnknownVariant, InvalidParameters)
    uv = UnknownVariant("softmaxx", ["softmax", "l2"])
    assert uv.field == "variant" and "softmax, l2" in str(uv) and str(uv).startswith("variant: ")


def test_cov_with_decimal_and_float_spellings_is_decided_exactly():
    # "0.1" and 0.1 are different numbers: this matrix is asymmetric by 2^-55·(1/5)
    raises_on({"variant": "softmax", "d": 2, "initial": {"cov": [[1, "0.1"], [0.1, 1]]}}, "initial.cov")
    # [[1, 1], [1, 1 - 10^-20]] is indefinite; only exact arithmetic sees it
    raises_on({"variant": "softmax", "d": 2, "initial": {"cov": [[1, 1], [1, "0.99999999999999999999"]]}},
              "initial.cov", "semidefinite")
    p = parse_problem({"variant": "softmax", "d": 2, "initial": {"cov": [[1, 1], [1, "1.00000000000000000001"]]}})
    assert psd_decision(p.cov).pd


# =========================================================================== files
TOML_DOC = """
variant = "softmax"
d = 2
A = [[1, "1/2"], [0, -1]]
V = [[1, 0], [0, 1]]
scale = "0.1"
T = 0.1

[[heads]]
variant = "l2"
Q = [[1, 0]]
K = [["2/3", 1]]
V = [[0, 1], [1, 0]]

[initial]
mean = ["0.5", -1]
cov = [[2, "1/3"], ["1/3", 1]]
"""


def test_load_toml_and_json(tmp_path):
    t = tmp_path / "p.toml"
    t.write_text(TOML_DOC, encoding="utf-8")
    p = load_problem(t)
    assert p.A == ((1, Fraction(1, 2)), (0, -1))
    assert p.scale == Fraction(1, 10) and p.T == Fraction(0.1)
    assert p.heads[0].variant == "l2"
    assert p.heads[0].A == ((Fraction(2, 3), 0), (1, 0))
    assert p.mean == (Fraction(1, 2), -1)
    j = tmp_path / "p.json"
    j.write_text(json.dumps(problem_to_dict(p)), encoding="utf-8")
    assert load_problem(str(j)) == p
    # other suffixes: TOML is tried first, then JSON
    for text in (TOML_DOC, json.dumps(problem_to_dict(p))):
        x = tmp_path / "p.problem"
        x.write_text(text, encoding="utf-8")
        assert load_problem(x) == p


def test_json_floats_keep_their_binary_value(tmp_path):
    j = tmp_path / "p.json"
    j.write_text('{"variant": "softmax", "d": 1, "A": [[0.1]], "V": [["0.1"]]}')
    p = load_problem(j)
    assert p.A[0][0] == Fraction(0.1) and p.V[0][0] == Fraction(1, 10)


@pytest.mark.parametrize(
    "name, content",
    [
        ("bad.toml", 'variant = "softmax"\nd = \n'),
        ("bad.toml", '{"variant": "softmax", "d": 1}'),  # JSON is not accepted for .toml
        ("bad.json", '{"variant": "softmax", "d": 1,}'),
        ("bad.json", 'variant = "softmax"\nd = 1\n'),  # TOML is not accepted for .json
        ("bad.json", ""),
        ("bad.txt", "this is = = neither"),
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.toml", "a = " + "[" * 100_000 + "]" * 100_000),
        ("latin1.toml", b'variant = "softmax"\nd = 1\nname = "caf\xe9"\n'),
        # JSON has no NaN/Infinity and no float above 1.8e308: refused while decoding (limits.py)
        ("nan.json", '{"variant": "softmax", "d": 1, "A": [[NaN]]}'),
        ("inf.json", '{"variant": "softmax", "d": 1, "b": [Infinity]}'),
        ("big.json", '{"variant": "softmax", "d": 1, "b": [1e400]}'),
    ],
)
def test_malformed_files_raise_problem_file_error(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ProblemFileError) as ei:
        load_problem(path)
    assert isinstance(ei.value, SymtfError) and not isinstance(ei.value, InvalidParameters)
    assert name in str(ei.value)


def test_unreadable_paths_raise_problem_file_error(tmp_path):
    for path in (tmp_path / "missing.toml", tmp_path):  # absent file; a directory
        with pytest.raises(ProblemFileError, match="cannot read"):
            load_problem(path)


@pytest.mark.parametrize(
    "name, content, field",
    [
        ("nan.toml", 'variant = "softmax"\nd = 1\nA = [[nan]]\n', "A[0][0]"),
        ("inf.toml", 'variant = "softmax"\nd = 1\nT = -inf\n', "T"),
        ("bool.toml", 'variant = "softmax"\nd = 1\nscale = true\n', "scale"),
        ("list.json", "[1, 2]", "problem"),
    ],
)
def test_well_formed_files_with_invalid_content_raise_invalid_parameters(tmp_path, name, content, field):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidParameters) as ei:
        load_problem(path)
    assert ei.value.field == field


def test_exact_view_is_cached_copied_and_not_pickled():
    import pickle

    import flint

    p = parse_problem({"variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, 1]], "V": [[1, 0], [0, 1]],
                       "F": [[0, 1], [0, 0]], "b": [1, 2], "scale": "1/3",
                       "initial": {"cov": [[1, 0], [0, 2]], "mean": [0, 1]}})
    e = p.exact
    assert p.exact is e
    assert e.A == flint.fmpq_mat(2, 2, [1, flint.fmpq(1, 2), 0, 1]) and e.scale == flint.fmpq(1, 3)
    assert e.b == flint.fmpq_mat(2, 1, [1, 2]) and e.mean == flint.fmpq_mat(2, 1, [0, 1])
    assert e.Sigma0 == flint.fmpq_mat(2, 2, [1, 0, 0, 2]) and e.Q is None and e.heads == ()
    M = e.A
    M[0, 0] = 99
    assert p.exact.A[0, 0] == 1  # callers get copies
    assert pickle.loads(pickle.dumps(p)) == p


def test_exact_view_of_heads():
    import flint

    p = parse_problem({"variant": "multihead", "d": 2, "heads": [
        {"A": [[1, 0], [0, 1]], "V": [[2, 0], [0, 2]], "W": [[0, 1], [1, 0]]},
        {"Q": [[1, 0], [0, 0]], "K": [[1, 1], [0, 1]], "V": [[1, 0], [0, 1]]}],
        "initial": {"cov": [[1, 0], [0, 1]]}})
    (C0, A0), (C1, A1) = p.exact.heads
    assert C0 == flint.fmpq_mat(2, 2, [0, 2, 2, 0]) and A0 == flint.fmpq_mat(2, 2, [1, 0, 0, 1])
    assert A1 == flint.fmpq_mat(2, 2, [1, 0, 1, 0])  # KᵀQ
    assert C1 == flint.fmpq_mat(2, 2, [1, 0, 0, 1])
