"""Execute notebooks/conjectures.ipynb and check it refutes the seed statement with a checked certificate."""
from __future__ import annotations


def test_conjectures_notebook_executes(run_notebook):
    _, outs = run_notebook("conjectures.ipynb")
    text = "".join(o.get("text", "") for o in outs)
    assert "REFUTED" in text and "ok=True" in text and "NO_COUNTEREXAMPLE" in text
