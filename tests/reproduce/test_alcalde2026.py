"""Alcalde–Ji–Zuazua prescribed-attention experiments (symbolic_tf.reproduce.alcalde2026)."""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.regimes.classify import classify
from symbolic_tf.reproduce import alcalde2026 as al


def _m(rows):
    return np.array([[float(Fraction(x)) for x in r] for r in rows])


def test_stable_ode_reaches_certified_equilibrium():
    p, _, extra = al.stable_problem()
    cert = al.certified(p)
    assert cert["regime"] == "EQUILIBRIUM" and cert["status"] == "PROVED" and cert["certificate_ok"]
    assert cert["alpha_star"] == extra["target"]  # b = −M*·target steers the mean exactly
    ode = al.ode_run(p, 30.0)
    assert np.abs(ode["Sigma_end"] - _m(cert["Sigma_star"])).max() < 1e-6
    assert np.abs(ode["alpha_end"] - np.array([float(Fraction(x)) for x in cert["alpha_star"]])).max() < 1e-6


def test_blowup_time_in_certified_bracket():
    p, _, _ = al.blowup_problem()
    c = classify(p)
    assert c.regime == "BLOWUP" and c.status == "PROVED" and check(c.certificate).ok
    lo, hi = float(Fraction(c.T_lo)), float(Fraction(c.T_hi))
    ode = al.ode_run(p, 2 * hi)
    assert ode["status"] == "blowup"
    assert 0.999 * lo <= ode["t_end"] <= 1.001 * hi
    assert lo * (1 - 1e-9) <= al.predicted_blowup_time(p) <= hi * (1 + 1e-9)


def test_threshold_pair():
    th = al.threshold_problems()
    below = classify(th["threshold_below"][0])
    above = classify(th["threshold_above"][0])
    assert (below.regime, below.status, below.rank) == ("CLUSTERING", "PROVED", 0)
    assert (above.regime, above.status) == ("BLOWUP", "PROVED")
    assert check(below.certificate).ok and check(above.certificate).ok
    lo, hi = float(Fraction(above.T_lo)), float(Fraction(above.T_hi))
    ode = al.ode_run(th["threshold_above"][0], 2 * hi)
    assert ode["status"] == "blowup" and 0.999 * lo <= ode["t_end"] <= 1.001 * hi


def test_run_quick_writes_json_and_figures(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    s = al.run(tmp_path, quick=True, seed=0, progress=False, n_tokens=300)
    data = json.loads((tmp_path / "alcalde2026.json").read_text())
    assert data["schema"] == "symbolic_tf.reproduce.alcalde2026/1" and "version" in data
    assert set(data["cases"]) == set(al.CASES)
    for name, case in data["cases"].items():
        assert case["certified"]["certificate_ok"], name
        assert isinstance(case["problem"]["A"][0][1], str)  # exact "p/q" parameters
        assert "cov_rel_distance_last" in case["agreement"]
    assert data["cases"]["blowup"]["agreement"]["ode_blowup_in_bracket"]
    assert data["cases"]["threshold_above"]["agreement"]["ode_blowup_in_bracket"]
    assert np.isfinite(data["cases"]["threshold_below"]["agreement"]["cov_rel_distance_last"])
    for name, case in data["cases"].items():  # the finite-N study of the token/ODE gap
        f = case["finite_n"]
        assert f["label"] == "numerical evidence" and f["Ns"] == sorted(f["Ns"]) and len(f["gap"]) == len(f["Ns"])
        assert all(1.0 <= e <= f["ess_N"] for e in f["ess_p01"])
    for stem in ("alcalde_trace", "alcalde_ellipses", "alcalde_mean", "alcalde_finite_n"):
        img = imread(tmp_path / "figures" / f"{stem}.png")
        assert img.ndim == 3 and img.shape[0] > 100
        assert (tmp_path / "figures" / f"{stem}.pdf").stat().st_size > 1000
        # each figure has a caption in the JSON, in words and Unicode: no TeX source shown as text
        assert data["captions"][stem] and not any(tex in data["captions"][stem] for tex in ("^{", "_{", "\\", "$"))
    assert "_results" in s


def test_attention_ess_matches_the_tilting_lemma():
    """ESS/N of the softmax weights → e^{-cᵀΣc}, c = Ax, for Gaussian samples (two methods agree)."""
    from symbolic_tf.numeric.gaussianity import attention_ess

    rng = np.random.default_rng(0)
    S = np.array([[1.0, 0.3], [0.3, 0.5]])
    X = rng.standard_normal((100_000, 2)) @ np.linalg.cholesky(S).T + np.array([1.0, -1.0])
    A = np.array([[0.3, 0.1], [-0.2, 0.2]])
    q = np.array([[0.5, 0.7], [-1.0, 0.2]])
    c = q @ A.T
    expected = np.exp(-np.einsum("ij,jk,ik->i", c, S, c))
    assert np.allclose(attention_ess(X, A, q) / len(X), expected, rtol=0.01)
    Y = np.zeros((5, 2))  # identical tokens: uniform weights, ESS = N exactly
    assert np.allclose(attention_ess(Y, A), 5.0)


def test_token_gap_is_a_softmax_bias_not_a_fluctuation():
    """Near blow-up the token/ODE gap does not shrink with N and the attention of the extreme tokens
    is a hardmax (ESS ≈ 1); in the collapsing threshold_below run every query averages over ≈ N
    tokens and the gap is small (numerical evidence; thresholds far from the measured values)."""
    p, _, _ = al.blowup_problem()
    blow = al.finite_n_study(p, 0.85 * al.predicted_blowup_time(p), 20, (40, 640), (0, 1, 2), n_save=4)
    assert blow["label"] == "numerical evidence"
    assert blow["gap_last"][1] > 0.4 and blow["gap_last"][1] > 0.6 * blow["gap_last"][0]
    assert blow["ess_p01"][-1] < 3
    th = al.threshold_problems()["threshold_below"][0]
    below = al.finite_n_study(th, 2.0, 20, (40, 640), (0, 1, 2), n_save=4)
    assert below["ess_p01"][-1] > 640 / 2 and below["gap_last"][1] < 0.3
