"""Alcalde–Ji–Zuazua / docs/mathematics.md §6: with V = vI, R = v(B + Bᵀ) ≺ 0 and F anti-Hurwitz, every
Σ₀ ≻ 0 converges to the stable equilibrium Σ* = P*⁻¹, FᵀP* + P*F = −R."""
import sys

from _regime import run

DOC = {"variant": "softmax", "d": 2, "A": [[-1, "1/2"], [0, -1]], "V": [[1, 0], [0, 1]],
       "F": [[1, "1/4"], ["-1/4", "3/2"]], "b": [0, 1], "initial": {"cov": [[1, 0], [0, 1]]}}

sys.exit(run("drift_stable_equilibrium", "drift model, V = vI, R ≺ 0, F anti-Hurwitz: stable PD equilibrium",
             DOC, "EQUILIBRIUM"))
