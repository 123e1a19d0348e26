"""Unnormalised exponential attention does not preserve Gaussians: exact rational witness."""
from _common import run

run("unnormalised", "unnormalised exponential attention does not preserve Gaussian laws", "Castin et al. 2501.18322; docs/mathematics.md §3", closed=False)
