"""Exact inertia of A_h + A_hᵀ for real MiniLM heads: the 64×64 reduction vs the full 384×384 matrix.

Ours (:func:`symbolic_tf.models.verdicts.exact_sym_inertia`): n±(GEG) with G = MMᵀ,
M = [W_K,h; W_Q,h] as integers (64×64).  Baseline: :func:`symbolic_tf.exact.definiteness.inertia`
on the full integer matrix W_Kᵀ W_Q + W_Qᵀ W_K (384×384).  Both are exact; the script checks
they agree and reports the times.  Also times the float32 and float64 forward passes.

Run:  .venv/bin/python benchmarks/bench_probe.py [HEADS]   (default 2 heads; the baseline
takes ~15 s per head)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import flint  # noqa: E402
import numpy as np  # noqa: E402

from symbolic_tf.exact.definiteness import inertia  # noqa: E402
from symbolic_tf.models._forward import encode  # noqa: E402
from symbolic_tf.models._heads import head_params  # noqa: E402
from symbolic_tf.models.loader import load_bert  # noqa: E402
from symbolic_tf.models.verdicts import dyadic, exact_sym_inertia  # noqa: E402


def main(n_heads: int = 2, smoke: bool = False):
    model = load_bert()
    print(f"exact inertia of A_h + A_h^T, d = {model.config.hidden_size}")
    for i in range(n_heads):
        layer, head = divmod(7 * i, model.config.num_heads)
        hp = head_params(model, layer % model.config.num_layers, head)
        K, _ = dyadic(hp.Wk)
        Q, _ = dyadic(hp.Wq)
        t = time.perf_counter()
        ours = exact_sym_inertia(K, Q, hp.Wq.shape[1])
        t_ours = time.perf_counter() - t
        S = flint.fmpz_mat(K).transpose() * flint.fmpz_mat(Q)
        t = time.perf_counter()
        base = inertia(flint.fmpq_mat(S + S.transpose()))
        t_base = time.perf_counter() - t
        assert ours == base, (ours, base)
        print(f"  layer {hp.layer} head {hp.head}: {ours}  reduction {t_ours:.3f} s, full matrix {t_base:.2f} s "
              f"(x{t_base / t_ours:.0f})")
    X = np.random.default_rng(0).standard_normal((2 if smoke else 32, 8 if smoke else 64, model.config.hidden_size))
    for dt in (np.float32, np.float64):
        t = time.perf_counter()
        encode(model, X, dtype=dt)
        print(f"forward pass, {X.shape[0] * X.shape[1]} tokens, 6 layers, {np.dtype(dt).name}: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    smoke = "--smoke" in sys.argv[1:]  # toy size (the bench_smoke pytest marker)
    args = [a for a in sys.argv[1:] if a != "--smoke"]
    main(int(args[0]) if args else (1 if smoke else 2), smoke=smoke)
