"""Sinkhorn attention keeps Gaussians Gaussian, α̇ = Vα (docs/mathematics.md §3)."""
from _common import run

run("sinkhorn", "Sinkhorn attention preserves Gaussian laws and the mean decouples", "Castin et al. 2501.18322; docs/mathematics.md §3",
    {"mean": "V*alpha", "cov_d1": "4*V_00*A_00*Sigma_00**2/(1 + sqrt(1 + 4*A_00**2*Sigma_00**2))"})
