"""The documentation site builds with warnings as errors (tutorial cells not executed here: the
executed build, ≈ 4 min, is the separate job .ci/docs).  Catches broken cross-references, bad
numpydoc, missing pages and malformed MyST in every CI run."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          "-D", "nb_execution_mode=off", "-D", "suppress_warnings=myst-nb.lexer",
                          str(ROOT / "docs"), str(tmp_path / "html")],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert (tmp_path / "html" / "index.html").is_file()
    assert (tmp_path / "html" / "mathematics.html").is_file()
