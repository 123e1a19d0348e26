"""Reproductions of the numerical experiments of the seed papers.

One module per paper; each exposes ``run(out, quick=True, seed=0, progress=True) -> dict``,
which runs the experiments with the library (derived moment systems, compiled right-hand
sides, the batched integrator), writes figures under ``out/figures`` and a JSON summary
(parameters, seeds, counts, notes) under ``out``, and returns that summary.

- :mod:`symbolic_tf.reproduce.castin2025` — Castin, Ablin, Carrillo, Peyré, "A Unified
  Perspective on the Dynamics of Deep Transformers" (arXiv 2501.18322): the covariance
  experiments (convergence to 0, to a line, to a plane, to one of two lines, blow-up vs
  growth, Σ₀-dependent behaviour, histograms of limit ranks).
"""
