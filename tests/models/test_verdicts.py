"""Exact head verdicts: dyadic conversion, the 2d_h-dimensional inertia reduction, witnesses,
and the certified rank-one eigenlines — each re-checked here by an independent route."""
from __future__ import annotations

import re
from fractions import Fraction

import flint
import numpy as np
import pytest

from symbolic_tf.exact.definiteness import inertia
from symbolic_tf.models._heads import head_params
from symbolic_tf.models.loader import load_bert
from symbolic_tf.models.verdicts import CATEGORIES, dyadic, exact_sym_inertia, head_verdicts, heads_report


@pytest.fixture(scope="module")
def model():
    return load_bert()


@pytest.fixture(scope="module")
def report(model, tmp_path_factory):
    """Heads (0, 0) and (0, 9) of MiniLM, computed in a two-process pool."""
    out = tmp_path_factory.mktemp("heads")
    return heads_report(model, layers=[0], heads=[9, 0], workers=2, out_dir=out), out


def test_dyadic_is_exact():
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((5, 7)) * 10.0 ** rng.integers(-30, 30, (5, 7))).astype(np.float32)
    X[0, 0], X[1, 1], X[2, 2] = 0.0, -np.float32(1e-45), np.float32(3.4e38)   # zero, subnormal, huge
    N, s = dyadic(X)
    assert all(Fraction(N[i][j], 2**s) == Fraction(float(X[i, j])) for i in range(5) for j in range(7))


@pytest.mark.parametrize("seed", range(6))
def test_inertia_reduction_matches_the_full_matrix(seed):
    """n±(LᵀR + RᵀL) from the 2k×2k matrix GEG equals the d×d inertia, also when [L; R] is
    rank deficient (repeated rows, R a combination of L's rows, zero rows)."""
    rng = np.random.default_rng(seed)
    k, d = 3, 8
    L = rng.integers(-5, 6, (k, d))
    R = rng.integers(-5, 6, (k, d))
    if seed % 3 == 1:
        R = rng.integers(-2, 3, (k, k)) @ L          # range(Rᵀ) ⊂ range(Lᵀ)
    if seed % 3 == 2:
        L[1] = L[0]
        R[2] = 0
    full = L.T @ R + R.T @ L
    want = inertia(flint.fmpq_mat(flint.fmpz_mat(full.tolist())))
    assert exact_sym_inertia(L.tolist(), R.tolist(), d) == want


def _exact_quadratic(hp, x_int):
    """xᵀ(W_Kᵀ W_Q + W_Qᵀ W_K)x for integer x with Fractions of the float32 weights."""
    K = [[Fraction(float(v)) for v in row] for row in hp.Wk]
    Q = [[Fraction(float(v)) for v in row] for row in hp.Wq]
    Kx = [sum(a * b for a, b in zip(row, x_int)) for row in K]
    Qx = [sum(a * b for a, b in zip(row, x_int)) for row in Q]
    return 2 * sum(a * b for a, b in zip(Kx, Qx))


def _ball(s):
    m = re.match(r"\[(\S+) \+/- (\S+)\]", s)
    return float(m.group(1)), float(m.group(2))


@pytest.mark.parametrize("layer,head,status", [(0, 0, "PROVED"), (0, 9, "UNDECIDED")])
def test_head_verdicts(model, report, layer, head, status):
    hp = head_params(model, layer, head)
    r = next(h for h in report[0].heads if (h["layer"], h["head"]) == (layer, head))
    v = r["verdicts"]
    assert v["symA_nsd"]["status"] == "REFUTED" and v["identity_value_blowup"]["status"] == "PROVED"
    assert v["symA_nsd"]["evidence"]["inertia"] == [32, 32, 320]      # [W_K; W_Q] has full row rank 64
    assert v["conjecture_hypothesis"]["status"] == "REFUTED"
    w = v["symA_nsd"]["evidence"]["witnesses"]
    assert _exact_quadratic(hp, w["positive"]) > 0 and _exact_quadratic(hp, w["negative"]) < 0
    # float spectrum of sym(A_h): 32 positive, 32 negative, the rest ~0 (numerical evidence)
    lam = np.linalg.eigvalsh(hp.A + hp.A.T)
    assert np.sum(lam > 1e-8) == 32 and np.sum(lam < -1e-8) == 32
    hb = v["head_blowup"]
    assert hb["status"] == status and r["category"] in CATEGORIES
    lines = hb["evidence"]["eigenlines"]
    assert lines, "both heads have real eigenvalues"
    C, A = hp.C, hp.A
    ev, U = np.linalg.eig(C)
    for ln in lines:
        mid, rad = _ball(ln["v"])
        i = int(np.argmin(np.abs(ev - mid)))
        assert abs(ev[i].imag) < 1e-9 and abs(ev[i].real - mid) < 1e-9 + rad
        u = np.real(U[:, i])
        u /= np.linalg.norm(u)
        a = u @ A @ u
        assert np.sign(ev[i].real * a) == ln["sign_v_a"]
        if ln["sign_v_a"] == 1:
            assert np.isclose(ln["T_star_float"], 1 / (2 * ev[i].real * a), rtol=1e-6)
    if status == "UNDECIDED":
        assert all(ln["sign_v_a"] == -1 for ln in lines)


def test_rank_one_line_is_invariant_under_the_derived_closure(model, report):
    """Σ̇ at Σ = ûûᵀ from the toolkit's own softmax closure (derived + compiled) is 2va·ûûᵀ, so
    Σ(t) = ûûᵀ/(1 − 2vat) exactly; with va > 0 that is the certified blow-up."""
    from symbolic_tf.numeric.codegen import compile_system
    from symbolic_tf.symbolic.moments import derive

    hp = head_params(model, 0, 0)
    h00 = next(h for h in report[0].heads if (h["layer"], h["head"]) == (0, 0))
    best = min((ln for ln in h00["verdicts"]["head_blowup"]["evidence"]["eigenlines"]
                if ln["sign_v_a"] == 1), key=lambda ln: ln["T_star_float"])
    ev, U = np.linalg.eig(hp.C)
    i = int(np.argmin(np.abs(ev - best["v_float"])))
    u = np.real(U[:, i])
    u /= np.linalg.norm(u)
    S = np.outer(u, u)
    _, dS = compile_system(derive("softmax")).rhs(np.zeros(384), S, {"A": hp.A, "V": hp.C})
    v, a = ev[i].real, u @ hp.A @ u
    assert np.allclose(dS[0], 2 * v * a * S, atol=1e-10 * abs(2 * v * a))
    assert 2 * v * a > 0 and np.isclose(1 / (2 * v * a), best["T_star_float"], rtol=1e-6)


def test_report_counts_order_and_files(model, report):
    rep, out = report
    assert [(h["layer"], h["head"]) for h in rep.heads] == [(0, 0), (0, 9)]    # pool results in order
    c = rep.counts()
    assert c["head_blowup"] == {"PROVED": 1, "UNDECIDED": 1} and c["symA_nsd"] == {"REFUTED": 2}
    assert c["category"]["collapse_on_real_eigenlines"] == 1
    assert (out / "heads.json").exists() and (out / "heads_heatmap.png").stat().st_size > 1000
    assert "witnesses" not in str(rep.to_dict(witnesses=False)["heads"][0]["verdicts"]["symA_nsd"]["evidence"])
    # the pool gives what a serial call gives (exact parts; float spectra may differ in the last bits)
    serial = head_verdicts(head_params(model, 0, 9))
    assert serial["category"] == rep.heads[1]["category"]
    for k, v in serial["verdicts"].items():
        assert v["status"] == rep.heads[1]["verdicts"][k]["status"]
        assert v["evidence"].get("inertia") == rep.heads[1]["verdicts"][k]["evidence"].get("inertia")
