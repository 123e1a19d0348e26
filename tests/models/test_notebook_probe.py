"""Execute notebooks/pretrained_probe.ipynb with small sizes and check its outputs."""
from __future__ import annotations


def test_pretrained_probe_notebook_executes(tmp_path, monkeypatch, run_notebook):
    monkeypatch.setenv("SYMTF_NOTEBOOK_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("SYMTF_NOTEBOOK_N", "512")
    monkeypatch.setenv("SYMTF_NOTEBOOK_HEAD_LAYERS", "0")
    monkeypatch.setenv("SYMTF_NOTEBOOK_HEADS", "0,9")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")   # the kernel is a third BLAS process on 2 cores
    _, outputs = run_notebook("pretrained_probe.ipynb", timeout=300)
    images = [o for o in outputs if o.get("output_type") == "display_data" and "image/png" in o.get("data", {})]
    assert len(images) == 2
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "published: 0.6660, 0.1046, 0.1411; ours: 0.666 0.1046 0.1411" in text
    assert "head_blowup: PROVED 1, UNDECIDED 1" in text
    assert (tmp_path / "out" / "full" / "probe.json").exists()
    assert (tmp_path / "out" / "heads" / "heads_heatmap.png").stat().st_size > 1000
