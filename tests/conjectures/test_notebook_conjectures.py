"""Execute notebooks/conjectures.ipynb and check it refutes the seed statement with a checked certificate."""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def test_conjectures_notebook_executes(tmp_path):
    nb = nbformat.read(ROOT / "notebooks" / "conjectures.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert not any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", []))
    assert "REFUTED" in text and "ok=True" in text and "NO_COUNTEREXAMPLE" in text
