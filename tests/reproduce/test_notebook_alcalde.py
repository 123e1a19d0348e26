"""Execute notebooks/alcalde2026.ipynb (few tokens, so it stays fast) and check its output."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def test_alcalde_notebook_executes(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMTF_NOTEBOOK_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("SYMTF_NOTEBOOK_N", "200")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(ROOT / "notebooks" / "alcalde2026.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outputs)
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outputs)
    assert (tmp_path / "out" / "alcalde2026.json").exists()
    assert os.path.getsize(tmp_path / "out" / "figures" / "alcalde_trace.png") > 1000
