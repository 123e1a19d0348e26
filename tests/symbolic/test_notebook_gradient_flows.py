"""Execute notebooks/gradient_flows.ipynb: the witness checks, the plot is drawn, the scan runs."""
from __future__ import annotations


def test_gradient_flows_notebook_executes(run_notebook):
    _, outs = run_notebook("gradient_flows.ipynb")
    text = "".join(o.get("text", "") for o in outs)
    assert "independent check: True" in text and "A = diag(-1, -1) → PROVED" in text
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outs)
