"""Execute notebooks/alcalde2026.ipynb (few tokens, so it stays fast) and check its output."""
from __future__ import annotations

import os


def test_alcalde_notebook_executes(tmp_path, monkeypatch, run_notebook):
    monkeypatch.setenv("SYMTF_NOTEBOOK_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("SYMTF_NOTEBOOK_N", "200")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    _, outputs = run_notebook("alcalde2026.ipynb", timeout=120)
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outputs)
    assert (tmp_path / "out" / "alcalde2026.json").exists()
    assert os.path.getsize(tmp_path / "out" / "figures" / "alcalde_trace.png") > 1000
