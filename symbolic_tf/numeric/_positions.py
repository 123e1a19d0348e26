"""The position marginal of masked (causal) attention: N sorted token positions in [0, 1].

Its own module because both the masked-attention experiments (:mod:`.masked`) and the token sampler
(:mod:`.particles`) draw positions, and the experiments call the sampler.
"""
from __future__ import annotations

import math

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["POSITION_KINDS", "positions"]

POSITION_KINDS = ("uniform", "grid:K")


def positions(kind: str, N: int, rng=None, *, sink: float = 0.0) -> np.ndarray:
    """N sorted positions in [0, 1] from the marginal ``kind`` with a Dirac mass ``sink`` at 0.

    Parameters
    ----------
    kind : "uniform" or "grid:K"
        Sorted i.i.d. U[0, 1] (seeded by ``rng``), or K positions k/K (k = 1..K) with the
        non-sink tokens split as evenly as possible (earlier positions get the remainder).
    N : int
        Number of tokens (≥ 1).
    rng : numpy Generator, int or None
    sink : float in [0, 1)
        Mass of the Dirac at s = 0: the first round(sink·N) tokens sit at position 0.

    Returns
    -------
    ndarray (N,), non-decreasing.
    """
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise InvalidParameters("N", f"expected a positive integer, got {N!r}")
    if not (isinstance(sink, (int, float)) and math.isfinite(sink) and 0 <= sink < 1):
        raise InvalidParameters("sink", f"the sink mass must lie in [0, 1), got {sink!r}")
    n0 = int(round(sink * N))
    rest = N - n0
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    kind = str(kind).strip().lower()
    if kind == "uniform":
        s = np.sort(rng.uniform(0.0, 1.0, rest))
    elif kind.startswith("grid:"):
        try:
            K = int(kind[5:])
        except ValueError:
            raise InvalidParameters("positions", f"expected grid:K with an integer K, got {kind[:40]!r}") from None
        if not 1 <= K <= max(rest, 1):
            raise InvalidParameters("positions", f"grid:K needs 1 ≤ K ≤ {max(rest, 1)} (tokens off the sink), got {K}")
        counts = np.full(K, rest // K)
        counts[: rest % K] += 1
        s = np.repeat(np.arange(1, K + 1) / K, counts)
    else:
        raise InvalidParameters("positions", f"expected one of {', '.join(POSITION_KINDS)}, got {kind[:40]!r}")
    out = np.concatenate([np.zeros(n0), s])
    out.setflags(write=False)
    return out
