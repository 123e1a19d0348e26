"""Sphinx configuration of the symbolic_tf documentation site.

Build (warnings are errors):  python -m sphinx -W --keep-going -b html docs docs/_build/html
The tutorials and the gallery are MyST notebooks executed at build time (myst-nb); the CLI
reference and one page per certificate kind are generated from the code before the build.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SYMTF_PROGRESS", "0")       # no progress bars in executed pages
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")  # kernels

import symbolic_tf  # noqa: E402

sys.path.insert(0, str(HERE))
from _generate import generate  # noqa: E402

generate(HERE)

project = "symbolic_tf"
author = "The symbolic_tf authors"
copyright = "2026, The symbolic_tf authors (MIT licence)"
release = version = symbolic_tf.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "jupyter_execute"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]   # the mathematics pages number their sections "§1 …"

nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks: set = set()
numpydoc_xref_param_type = False

html_theme = "furo"
html_title = f"symbolic_tf {release}"
html_static_path = ["_static"]
