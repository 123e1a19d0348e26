"""Causal (masked) attention does not preserve position-dependent Gaussian laws: exact witness."""
from _common import run

run("masked", "causal attention does not preserve position-dependent Gaussian laws", "Castin et al. 2501.18322; docs/mathematics.md §3", closed=False)
