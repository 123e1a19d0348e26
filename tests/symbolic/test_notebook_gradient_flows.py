"""Execute notebooks/gradient_flows.ipynb: the witness checks, the plot is drawn, the scan runs."""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def test_gradient_flows_notebook_executes(tmp_path):
    nb = nbformat.read(ROOT / "notebooks" / "gradient_flows.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outs)
    text = "".join(o.get("text", "") for o in outs)
    assert "independent check: True" in text and "A = diag(-1, -1) → PROVED" in text
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outs)
