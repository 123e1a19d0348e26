"""Mathematical checks of the Castin et al. (2025) reproduction, on small grids.

Each experiment function is run once (module fixtures) with sizes far below the paper's; the
assertions are about the mathematics (closed forms, invariants, exact ranks), not about
pictures.  One smoke test runs ``run(quick=True)`` on a subset of experiments and checks the
JSON and the figure files.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from symbolic_tf.numeric.solution import BLOWUP, CONVERGED, HORIZON
from symbolic_tf.plots import to_cone
from symbolic_tf.reproduce import castin2025 as C
from symbolic_tf.reproduce.castin2025.conventions import draw_until, experiment_rng, indefinite, positive
from symbolic_tf.reproduce.castin2025._mathematics import angle_to_lines


# ----------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------
def test_grid_is_trace_one_positive_definite_and_matches_reference_count():
    S, uw = C.trace_one_grid(40, 1.0)
    g = np.linspace(-1, 1, 40)
    expected = sum(1 for u in g for w in g if u * u + w * w < 1)  # reference init_grid rule
    assert S.shape == (expected, 2, 2) and 1100 < expected < 1300
    assert np.allclose(np.trace(S, axis1=1, axis2=2), 1.0)
    assert np.all(np.linalg.eigvalsh(S)[:, 0] > 0)
    assert np.allclose(to_cone(S)[:, :2], uw)
    S10, _ = C.trace_one_grid(10, 0.5)
    assert S10.shape[0] == 100  # the whole [−½, ½]² square lies inside the disk


def test_exact_rank_is_exact():
    assert C.exact_rank([[1.0, 2.0], [2.0, 4.0]]) == 1
    assert C.exact_rank([[0.1, 0.2], [0.2, 0.4]]) == 1       # dyadic values are exactly proportional
    assert C.exact_rank([[1.0, 1.0], [1.0, 1.0 + 2.0 ** -52]]) == 2   # float-singular, exactly regular
    assert C.exact_rank(np.zeros((3, 2))) == 0
    rng = np.random.default_rng(1)
    Q = rng.standard_normal((2, 5))
    assert C.exact_rank(Q) == 2
    assert C.exact_rank(np.vstack([Q, Q[0] + Q[1]])) in (2, 3)  # float sum may round: exact, not fuzzy


def test_attention_scalings_follow_the_reference_code():
    rng = np.random.default_rng(2)
    Q, K, V = rng.standard_normal((3, 2, 2))
    p = C.attention_params("softmax", Q, K, V)
    assert np.allclose(p["A"], K.T @ Q / math.sqrt(2))
    p = C.attention_params("sinkhorn", Q, K, V)
    assert np.allclose(p["A"], K.T @ Q)
    p = C.attention_params("l2", Q, K, V)
    assert p["tau"] == pytest.approx(1 / math.sqrt(2))
    p = C.attention_params("multihead", Q, K, V, heads=2)
    # head h: rows h of Q and K (k = 1, scale 1/√1), C_h = P_h V
    assert np.allclose(p["A_1"], np.outer(K[0], Q[0])) and np.allclose(p["A_2"], np.outer(K[1], Q[1]))
    assert np.allclose(p["W_1"] @ p["V_1"] + p["W_2"] @ p["V_2"], V)


def test_reference_l2_convention_matches_reference_rhs():
    """The 'reference' ℓ2 convention reproduces utils.rhs_L2 of the reference code."""
    from symbolic_tf.reproduce.castin2025._runs import system_of

    rng = np.random.default_rng(3)
    Q, K, V = rng.standard_normal((3, 2, 2))
    G = rng.standard_normal((2, 2))
    S = G @ G.T
    A = K.T @ Q / math.sqrt(2)
    ref = 2 * V @ S @ np.linalg.inv(np.eye(2) + 2 * K.T @ K @ S) @ A @ S
    ref = ref + ref.T
    prm = C.attention_params("l2", Q, K, V, l2_convention="reference")
    _, dS = system_of("l2").rhs(np.zeros((1, 2)), S[None], prm)
    assert np.allclose(dS[0], ref, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------
# experiment 1: convergence to 0
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def zero():
    return C.exp_zero(0, n=4)


def test_exp1_every_member_converges_to_zero(zero):
    S0 = zero["data"]["Sigma0"]
    tr0 = np.trace(S0, axis1=1, axis2=2)
    for v, run in zero["data"]["runs"].items():
        tr = np.trace(run["Sigma_end"], axis1=1, axis2=2)
        ok = (tr < 1e-3 * tr0) | (run["status"] == CONVERGED)
        assert ok.all(), (v, tr / tr0)
        assert not np.any(run["status"] == BLOWUP)
        # algebraic 1/t decay: t·trΣ(t) is nearly constant over the last samples
        r = zero["summary"][v]["t_trace_ratio_last_decade"]
        assert 0.9 < r["min"] <= r["max"] < 1.1, (v, r)


def test_exp1_lyapunov_function_decreases_for_softmax(zero):
    """V ≻ 0 symmetric: d/dt tr(V⁻¹Σ) = tr(Σ(A+Aᵀ)Σ) ≤ 0 (docs/mathematics.md §4)."""
    V = zero["parameters"]["V"]
    L = np.einsum("ij,btji->bt", np.linalg.inv(V), zero["data"]["runs"]["softmax"]["Sigma"])
    assert np.all(np.diff(L, axis=1) <= 1e-12 * np.abs(L[:, :-1]))


# ----------------------------------------------------------------------------------------
# experiment 2: convergence to a line
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def line():
    return C.exp_line(0, n=5)


def test_exp2_softmax_limit_is_rank_one_with_range_ker(line):
    run = line["data"]["runs"]["softmax"]
    q = line["parameters"]["q"][0]
    A = C.attention_params("softmax", q[None], -q[None], np.eye(2))["A"]
    # ker(A + Aᵀ) = q^⊥
    w, U = np.linalg.eigh(A + A.T)
    kernel = U[:, np.argmin(np.abs(w))]
    assert abs(kernel @ q) < 1e-12
    S = run["Sigma_end"]
    assert np.all(C.numerical_rank(S)[1e-2] == 1)
    ang, _ = angle_to_lines(S, kernel[None])
    assert ang.max() < 1e-3                     # O(1/T) at T = 1e4
    # against the closed form at T and the exact limit Σ₀ − Σ₀qᵀqΣ₀/(qΣ₀qᵀ)
    S0 = line["data"]["Sigma0"]
    exact_T = C.softmax_closed_form(A, S0, run["T"])
    assert np.allclose(S, exact_T, rtol=1e-7, atol=1e-10)
    lim = S0 - np.einsum("bi,bj->bij", S0 @ q, S0 @ q) / np.einsum("i,bij,j->b", q, S0, q)[:, None, None]
    assert np.all(np.abs(lim @ q) < 1e-12)
    assert np.max(np.linalg.norm(S - lim, axis=(1, 2))) < 1e-3


def test_exp2_l2_also_converges_to_the_line(line):
    S = line["data"]["runs"]["l2"]["Sigma_end"]
    qperp = line["data"]["lines"]
    ang, _ = angle_to_lines(S, qperp)
    assert ang.max() < 1e-3
    assert np.all(C.numerical_rank(S)[1e-2] == 1)


# ----------------------------------------------------------------------------------------
# experiment 3: convergence to a plane
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def plane():
    return C.exp_plane(0, n=5, m3=12)


def test_exp3_d3_limit_has_rank_two_and_range_qperp(plane):
    run = plane["data"]["d3"]["run"]
    q = plane["data"]["d3"]["q"][0]
    S = run["Sigma_end"]
    assert plane["summary"]["d3"]["exact_limit_rank"] == 2
    assert np.all(np.linalg.norm(S @ q, axis=1) / np.linalg.norm(S, axis=(1, 2)) < 1e-2)
    ev = np.linalg.eigvalsh(S)
    assert np.all(ev[:, 0] / ev[:, 2] < 1e-2)     # one direction dies (like 1/t)


def test_exp3_d2_reference_limits_on_plane_with_conserved_entry(plane):
    d2 = plane["data"]["d2"]
    run = d2["runs"]["multihead"]
    q = d2["q"][0]
    S0, S = d2["Sigma0"], run["Sigma"]
    # C₁ = e₁e₁ᵀ: Σ₂₂ is constant along every trajectory
    assert np.max(np.abs(S[:, :, 1, 1] - S0[:, None, 1, 1])) < 1e-12
    # the limit lies on the plane e₁ᵀΣqᵀ = 0
    s = np.abs(run["Sigma_end"][:, 0, :] @ q) / np.linalg.norm(run["Sigma_end"], axis=(1, 2))
    assert s.max() < 1e-3


# ----------------------------------------------------------------------------------------
# experiments 4 and 6: indefinite A + Aᵀ, non-symmetric V
# ----------------------------------------------------------------------------------------
def test_isotropic_directions_are_isotropic():
    rng = np.random.default_rng(4)
    Q, K = draw_until(rng, indefinite)
    A = K.T @ Q
    dirs = C.isotropic_directions(A)
    assert dirs.shape == (2, 2)
    assert np.allclose(np.einsum("bi,ij,bj->b", dirs, A, dirs), 0, atol=1e-12)
    assert abs(dirs[0] @ dirs[1]) < 1 - 1e-6  # two distinct lines


def test_exp4_bounded_members_converge_to_one_of_the_two_lines():
    exp = C.exp_two_lines(0, n=6, T=300.0)
    sel = exp["selection"]
    assert sel["found"] and sel["candidates"][-1]["accepted"]
    A = exp["parameters"]["K"].T @ exp["parameters"]["Q"]
    assert np.linalg.eigvalsh(A + A.T)[0] < 0 < np.linalg.eigvalsh(A + A.T)[1]
    for v, run in exp["data"]["runs"].items():
        ok = run["status"] == HORIZON
        assert ok.sum() >= 0.9 * ok.size, v
        ang, idx = angle_to_lines(run["Sigma_end"][ok], exp["data"]["lines"])
        assert np.all(ang < 1e-2), v
        assert np.all(C.numerical_rank(run["Sigma_end"][ok])[1e-2] == 1), v
        counts = exp["summary"][v]["rank1_on_isotropic_line"]
        assert counts["line_0"] > 0 and counts["line_1"] > 0, (v, counts)


def test_exp6_softmax_outcome_depends_on_initial_covariance():
    exp = C.exp_mixed(0, n=6, T=60.0, variants=("softmax", "multihead"))
    st = exp["data"]["runs"]["softmax"]["status"]
    assert np.any(st == BLOWUP) and np.any(st == HORIZON)
    assert exp["parameters"]["heads"] == 2
    assert any("H = 1" in note for note in exp["notes"])


# ----------------------------------------------------------------------------------------
# experiment 5: blow-up vs growth
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def blowup():
    return C.exp_blowup(0, n=7, T_growth=3.0, n_eval=30)


def test_exp5_softmax_blows_up_at_closed_form_time(blowup):
    run = blowup["data"]["runs"]["softmax"]
    Ts = blowup["data"]["Tstar_softmax"]
    assert np.all(np.isfinite(Ts)) and np.all(run["status"] == BLOWUP)
    assert np.max(np.abs(run["t_end"] - Ts) / Ts) < 1e-3


def test_exp5_blowup_time_homogeneity():
    """T*(cΣ₀) = T*(Σ₀)/c (docs/mathematics.md §4), by the integrator and the closed form."""
    from symbolic_tf.reproduce.castin2025._runs import integrate_run

    rng = experiment_rng(0, 5)
    Q, K = draw_until(rng, positive)
    prm = C.attention_params("softmax", Q, K, np.eye(2))
    S0, _ = C.trace_one_grid(3, 0.5)
    c = 2.5
    T = float(C.softmax_blowup_time(prm["A"], S0).max()) * 1.5
    r1 = integrate_run("softmax", prm, S0, T, np.array([0.0, T]))
    r2 = integrate_run("softmax", prm, c * S0, T, np.array([0.0, T]))
    assert np.all(r1["status"] == BLOWUP) and np.all(r2["status"] == BLOWUP)
    assert np.allclose(r2["t_end"] * c, r1["t_end"], rtol=1e-6)


def test_exp5_l2_and_sinkhorn_grow_without_blowup(blowup):
    for v in ("l2", "sinkhorn"):
        run = blowup["data"]["runs"][v]
        assert np.all(run["status"] == HORIZON), v
        tr = np.trace(run["Sigma"], axis1=2, axis2=3)
        assert np.all(np.diff(tr, axis=1) > 0), v
        assert np.all(tr[:, -1] > tr[:, 0]), v
        assert blowup["summary"][v]["log_trace_growth_rate_last_quarter"]["min"] > 0


# ----------------------------------------------------------------------------------------
# experiment 7: ranks
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ranks():
    return C.exp_ranks(0, dims=(3, 4, 5), n_draws=30, variants=("softmax",), Vs=("I",))


def test_exp7_exact_rank_is_d_minus_floor_half(ranks):
    for d in (3, 4, 5):
        row = ranks["summary"][f"softmax/V=I/d={d}"]
        hist = row["exact_rank"]
        assert hist[d - d // 2] == 30, (d, hist)


def test_exp7_numerical_rank_at_1e4_matches_exact(ranks):
    for d in (3, 4, 5):
        row = ranks["summary"][f"softmax/V=I/d={d}"]
        assert row["agreement_with_exact"]["0.0001"] >= 0.9, (d, row)
        # the 1e-8 threshold is not reached by 1/t decay within T = 1e6: full rank is read
        assert row["rank_counts"]["1e-08"][d] == 30


# ----------------------------------------------------------------------------------------
# figures and the whole run
# ----------------------------------------------------------------------------------------
def _check_png(path):
    import matplotlib.image as mpimg

    assert path.exists() and path.stat().st_size > 0
    img = mpimg.imread(path)
    assert img.ndim == 3 and img.shape[0] > 50 and img.shape[1] > 50


def test_figures_for_disk_and_histograms(tmp_path, blowup, ranks):
    files = C.castin_figures(blowup, tmp_path) + C.castin_figures(ranks, tmp_path)
    names = {p.name for p in files}
    assert {"castin_5_blowup_disk.png", "castin_5_blowup_disk.pdf", "castin_7_rank_histograms.png",
            "castin_7_rank_decay.png"} <= names
    for p in files:
        if p.suffix == ".png":
            _check_png(p)
        else:
            assert p.read_bytes()[:4] == b"%PDF"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_run_quick_writes_json_and_figures(tmp_path):
    out = tmp_path / "castin"
    summary = C.run(out, quick=True, seed=3, progress=False, experiments=("line", "plane"))
    data = json.loads((out / "castin2025.json").read_text())
    assert data["seed"] == 3 and data["mode"] == "quick"
    assert set(data["experiments"]) == {"line", "plane"}
    assert data["experiments"]["line"]["rng"] == "numpy.random.default_rng([3, 2])"
    assert data == summary
    figs = [out / f for fs in data["figures"].values() for f in fs]
    assert figs and all(p.exists() for p in figs)
    for p in figs:
        if p.suffix == ".png":
            _check_png(p)


def test_eigenvalues_of_runs_with_nan_samples():
    """Samples past a blow-up or the step limit are NaN (numeric.solution): the rank experiment reads
    the eigenvalues of the finite ones and NaN for the rest (it raised LinAlgError in
    ``symtf reproduce castin2025 --quick --seed 0``)."""
    import numpy as np

    from symbolic_tf.reproduce.castin2025._runs import eigvalsh_or_nan

    S = np.array([[[2.0, 1.0], [1.0, 2.0]], [[np.nan, 0.0], [0.0, 1.0]], [[4.0, 0.0], [0.0, 9.0]]])
    ev = eigvalsh_or_nan(S)
    assert ev.shape == (3, 2)
    assert np.allclose(ev[0], [1.0, 3.0]) and np.allclose(ev[2], [4.0, 9.0])
    assert np.isnan(ev[1]).all()
    assert np.isnan(eigvalsh_or_nan(np.full((2, 5, 3, 3), np.nan))).all()
