"""Shared pytest configuration for every test directory.

Hypothesis profiles
-------------------
``ci`` (the default): derandomized, so a run is reproducible; no deadline (exact arithmetic
and SymPy have irregular timings); 60 examples per property; failing examples print their
reproduction blob.  ``dev``: random, more examples, for local bug hunting.  ``nightly``:
random, 2000 examples per property (soundness properties of the certificates).  Choose with the
``HYPOTHESIS_PROFILE`` environment variable, e.g. ``HYPOTHESIS_PROFILE=dev pytest tests``.
"""
from __future__ import annotations

import os

# One BLAS thread per process: with `pytest -n 2` on two cores, OpenBLAS's default threads
# oversubscribe the machine (the pretrained-model tests slow down ~6×).  Must precede numpy.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=300,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "nightly",
    deadline=None,
    max_examples=2000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest  # noqa: E402


@pytest.fixture
def run_notebook(tmp_path):
    """Execute ``notebooks/NAME`` in ``tmp_path`` and return (notebook, code-cell outputs);
    fails the test if any cell raised."""
    from pathlib import Path

    import nbformat
    from nbclient import NotebookClient

    def run(name: str, timeout: int = 600):
        nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / name, as_version=4)
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        assert not any(o.get("output_type") == "error" for o in outputs)
        return nb, outputs

    return run
