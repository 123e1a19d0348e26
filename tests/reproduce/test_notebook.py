"""Execute notebooks/castin2025.ipynb (on a fast subset of experiments) and check its output."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def test_castin_notebook_executes(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMTF_NOTEBOOK_EXPERIMENTS", "line,blowup")
    monkeypatch.setenv("SYMTF_NOTEBOOK_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(ROOT / "notebooks" / "castin2025.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outputs)
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outputs)
    assert (tmp_path / "out" / "castin2025.json").exists()
    assert os.path.getsize(next((tmp_path / "out" / "figures").glob("*.png"))) > 1000
