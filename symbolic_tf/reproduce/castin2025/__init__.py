"""Covariance experiments of Castin, Ablin, Carrillo, Peyré (arXiv 2501.18322), reproduced.

The paper studies the Transformer PDE on Gaussian data: for softmax, ℓ2, Sinkhorn and
multi-head attention, N(α, Σ) stays Gaussian and the covariance solves Σ̇ = JΣ + ΣJᵀ
(docs/mathematics.md §3).  Its Section on Gaussian dynamics illustrates, in d = 2, the typical behaviours
of Σ(t) (convergence to 0, to a line, to a plane, to one of two lines, finite-time blow-up
versus exponential growth, Σ₀-dependent behaviour) and shows histograms of the rank of the
limit covariance for d = 3, 4, 5.  This package redoes those experiments with the library:
the moment systems are *derived* (``symbolic.moments.derive``), compiled to numpy
(``numeric.codegen``) and integrated for a whole grid of Σ₀ at once
(``numeric.integrate``, which integrates Σ = ΦΣ₀Φᵀ, so rank is invariant and Σ ⪰ 0).

Modules by job:

* :mod:`.conventions` — the paper's conventions (scalings per variant, the trace-one Σ₀ grid,
  seeds and the reference code's draws), tolerances, sizes, and the per-variant tables of the
  experiments;
* :mod:`.mathematics` — exact and numerical ranks, the softmax closed forms, isotropic lines;
* :mod:`.runs` — one batch integrated and summarised, JSON conversion;
* :mod:`.experiments` — the seven ``exp_*`` experiments;
* :mod:`.figures` — their figures (drawn with :mod:`symbolic_tf.plots`);
* :mod:`.suite` — :func:`run`, the whole suite (``symtf reproduce castin2025``).

Each ``exp_*`` function returns a dict with the parameters, the seed, the arrays (under
``"data"``: Σ₀, sample times, Σ(t), status, end times) and a JSON-ready ``"summary"``;
:func:`to_json` drops the arrays.
"""
from __future__ import annotations

from .conventions import EXPERIMENTS, attention_params, reference_draws, trace_one_grid
from ._experiments import exp_blowup, exp_line, exp_mixed, exp_plane, exp_ranks, exp_two_lines, exp_zero
from ._figures import castin_figures
from ._mathematics import exact_rank, isotropic_directions, numerical_rank, softmax_blowup_time, softmax_closed_form
from ._runs import to_json
from ._suite import run

__all__ = [
    "run", "to_json", "EXPERIMENTS",
    "exp_zero", "exp_line", "exp_plane", "exp_two_lines", "exp_blowup", "exp_mixed", "exp_ranks",
    "trace_one_grid", "attention_params", "exact_rank", "numerical_rank",
    "softmax_blowup_time", "softmax_closed_form", "isotropic_directions", "reference_draws", "castin_figures",
]
