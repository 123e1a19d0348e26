"""Every certificate kind lists the hypotheses of its argument, and each names the forgery test
that violates it alone (tests/soundness/forgeries/); the kind pages of the docs render them."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from symbolic_tf.certify.check import Hypothesis, declaration, kind_names

ROOT = Path(__file__).resolve().parents[2]


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name.startswith("test")}


@pytest.mark.parametrize("name", kind_names())
def test_kind_lists_its_hypotheses_with_a_forgery_each(name):
    decl = declaration(name)
    assert decl.hypotheses, f"{name}: no hypotheses declared"
    ids = [h.id for h in decl.hypotheses]
    assert len(ids) == len(set(ids)), f"{name}: repeated hypothesis ids {ids}"
    for h in decl.hypotheses:
        assert isinstance(h, Hypothesis) and h.statement.strip()
        file, _, test = h.forgery.partition("::")
        path = ROOT / file
        assert path.is_file() and file.startswith("tests/"), f"{name}/{h.id}: no file {file}"
        assert test.split("[")[0] in _tests_in(path), f"{name}/{h.id}: no test {test} in {file}"
