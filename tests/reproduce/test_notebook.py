"""Execute notebooks/castin2025.ipynb (on a fast subset of experiments) and check its output."""
from __future__ import annotations

import os


def test_castin_notebook_executes(tmp_path, monkeypatch, run_notebook):
    monkeypatch.setenv("SYMTF_NOTEBOOK_EXPERIMENTS", "line,blowup")
    monkeypatch.setenv("SYMTF_NOTEBOOK_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    _, outputs = run_notebook("castin2025.ipynb")
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outputs)
    assert (tmp_path / "out" / "castin2025.json").exists()
    assert os.path.getsize(next((tmp_path / "out" / "figures").glob("*.png"))) > 1000
