"""ℓ2 attention keeps Gaussians Gaussian: Σ̇ = JΣ + ΣJᵀ, J = 2VΣ(I + 2KᵀKΣ)⁻¹A (docs/mathematics.md §3)."""
from _common import run

run("l2", "l2 attention preserves Gaussian laws", "Castin et al. 2501.18322; docs/mathematics.md §3",
    {"cov": "J*Sigma + Sigma*J.T", "J": "2*V*Sigma*(I + 2*K.T*K*Sigma)**(-1)*K.T*Q"})
