"""Sigmoid attention does not preserve Gaussians: exact witness (ball-certified)."""
from _common import run

run("sigmoid", "sigmoid attention does not preserve Gaussian laws", "Castin et al. 2501.18322; docs/mathematics.md §3", closed=False)
