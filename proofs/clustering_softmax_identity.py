"""docs/mathematics.md §4: softmax with V = I and A + Aᵀ ⪯ 0: global solution converging to a limit whose
rank is dim ker(A+Aᵀ) on the range of Σ₀ (here A + Aᵀ = −2e₁e₁ᵀ, Σ₀ ≻ 0 in d = 3: rank 2)."""
import sys

from _regime import run

DOC = {"variant": "softmax", "d": 3, "A": [[-1, 1, 0], [-1, 0, "1/2"], [0, "-1/2", 0]],
       "V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "initial": {"cov": [[1, "1/3", 0], ["1/3", 1, 0], [0, 0, "1/2"]]}}


def rank_is_two(c):
    assert c.rank == 2
    return "limit rank 2 = dim ker(A + Aᵀ)"


sys.exit(run("clustering_softmax_identity", "softmax, V = I, A + Aᵀ ⪯ 0: clustering to rank dim ker(A+Aᵀ)",
             DOC, "CLUSTERING", extra=rank_is_two))
