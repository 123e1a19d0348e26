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
