"""Multi-head softmax attention keeps Gaussians Gaussian: Σ̇ = Σ_h C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ, C_h = W_hV_h."""
from _common import run

run("multihead", "multi-head attention preserves Gaussian laws", "Castin et al. 2501.18322; docs/mathematics.md §3",
    {"cov": "W_1*V_1*Sigma*A_1*Sigma + Sigma*A_1.T*Sigma*V_1.T*W_1.T + W_2*V_2*Sigma*A_2*Sigma + Sigma*A_2.T*Sigma*V_2.T*W_2.T",
     "mean": "W_1*V_1*(I + Sigma*A_1)*alpha + W_2*V_2*(I + Sigma*A_2)*alpha"})
