"""Softmax + affine drift (Alcalde–Ji–Zuazua) keeps Gaussians Gaussian: the matrix Bernoulli equation (docs/mathematics.md §6)."""
from _common import run

run("softmax", "softmax attention plus the drift Fx + b preserves Gaussian laws", "Alcalde, Ji, Zuazua 2606.07600; docs/mathematics.md §6",
    {"mean": "(F + V)*alpha + V*Sigma*A*alpha + b", "cov": "F*Sigma + Sigma*F.T + V*Sigma*A*Sigma + Sigma*A.T*Sigma*V.T"}, drift=True)
