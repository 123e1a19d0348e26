"""Test configuration of tests/models.

The probe's work is BLAS-heavy (N×N Gram matrices, 384×384 eigen-decompositions).  With
``pytest -n 2`` on two cores, OpenBLAS's default of one thread per core gives four busy
threads (more with the notebook kernel), and its spinning threads then slow these tests down
several-fold.  One BLAS thread per worker process is the efficient setting; it only takes
effect if numpy is not imported yet in this process (true when this folder is run on its
own — a whole-suite run should set it before numpy loads, e.g. in the environment), and a
value set by the user wins.  The notebook test passes it on to the kernel it starts.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
