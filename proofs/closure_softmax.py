"""Softmax attention keeps Gaussians Gaussian: α̇ = V(I + ΣA)α, Σ̇ = VΣAΣ + ΣAᵀΣVᵀ (docs/mathematics.md §3)."""
from _common import run

run("softmax", "softmax attention preserves Gaussian laws with the Riccati covariance flow", "Castin et al. 2501.18322; docs/mathematics.md §3",
    {"mean": "V*(I + Sigma*A)*alpha", "cov": "V*Sigma*A*Sigma + Sigma*A.T*Sigma*V.T"})
