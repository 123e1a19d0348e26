"""Samples past a blow-up are NaN, never the last finite state held constant: V = I, A = I,
Σ₀ = diag(103/100, 1) blows up at T* = 1/(2·103/100) = 50/103 (closed form, docs/mathematics.md §4)."""
from __future__ import annotations

import numpy as np

import symbolic_tf as stf


def test_samples_past_the_blowup_are_nan_and_before_it_match_the_closed_form():
    p = stf.Problem("softmax", A=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], cov=[["103/100", 0], [0, 1]])
    t = np.array([0.1, 0.3, 0.45, 0.49, 0.5])
    s = stf.integrate(p, T=0.5, t_eval=t)
    assert s.status_names() == ["blowup"] and abs(s.t_end[0] - 50 / 103) < 1e-3
    past = t > s.t_end[0]
    assert np.isnan(s.Sigma[0, past]).all() and np.isnan(s.alpha[0, past]).all()
    s11 = 1 / (1 / 1.03 - 2 * t[~past])            # Σ(t)⁻¹ = Σ₀⁻¹ − 2tI
    assert np.allclose(s.Sigma[0, ~past, 0, 0], s11, rtol=1e-6)


def test_a_converged_member_keeps_its_limit():
    """A + Aᵀ ≺ 0, V = I: Σ → 0; samples after a convergence stop stay finite (the limit)."""
    p = stf.Problem("softmax", A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]], cov=[[1, 0], [0, 1]])
    s = stf.integrate(p, T=50, t_eval=np.linspace(0, 50, 6))
    assert np.isfinite(s.Sigma).all()
