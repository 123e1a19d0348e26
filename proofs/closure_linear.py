"""Linear attention keeps Gaussians Gaussian: Γ(x) = V(Σ + ααᵀ)Ax (docs/mathematics.md §3)."""
from _common import run

run("linear", "linear attention preserves Gaussian laws", "Castin et al. 2501.18322; docs/mathematics.md §3",
    {"mean": "V*(Sigma + alpha*alpha.T)*A*alpha", "cov": "V*(Sigma + alpha*alpha.T)*A*Sigma + Sigma*A.T*(Sigma + alpha*alpha.T)*V.T"})
