"""Regression tests for the wrong or crashing answers a new user hit (issue 18).

1. ``symtf derive … --dim 11``: generated entry names collided (A₁,₁₀ and A₁₁,₀ were
   both ``A_110``), so the printed entries were wrong.
2. ``symtf convexity --along gaussian`` at Σ = I: the Gaussian energy is +∞ there (D(0) = 0,
   the formula gave NaN and a traceback), and a sign was reported where E = +∞.
3. ``symtf gradient-flow sinkhorn … --dim 3`` silently ran d = 2.
"""
from __future__ import annotations

import json
import random

import pytest
import sympy as sp

import symbolic_tf as stf
from symbolic_tf.cli import main
from symbolic_tf.symbolic._convexity import gaussian_energy_is_finite, second_variation_gaussian_bw
from symbolic_tf.spec.errors import InvalidParameters
from symbolic_tf.symbolic.moments import derive
from symbolic_tf.symbolic.symbols import entry_name


# ---- 1. entry names at d ≥ 11 -----------------------------------------------------------
def test_entry_names_are_injective_from_dimension_11():
    for n in (10, 11, 12):
        names = [entry_name("A", i, j, n) for i in range(n) for j in range(n)]
        assert len(set(names)) == n * n
    assert entry_name("A", 1, 10, 11) != entry_name("A", 11, 0, 12)
    assert entry_name("A", 0, 1, 3) == "A_01"  # small dimensions keep the papers' names


def test_derive_entries_dimension_11_are_the_matrix_formula():
    d = 11
    _, cov = derive("softmax").entries(d)
    syms = set().union(*(e.free_symbols for e in cov))
    # every entry of A, V and the upper triangle of Σ is its own symbol
    assert len(syms) == d * d + d * d + d * (d + 1) // 2
    # and the entries are Σ̇ = VΣAΣ + ΣAᵀΣVᵀ at a random integer point (entry (1, 10) and (10, 1)
    # involve exactly the indices that used to collide)
    rng = random.Random(0)
    A = sp.Matrix(d, d, lambda i, j: rng.randint(-2, 2))
    V = sp.Matrix(d, d, lambda i, j: rng.randint(-2, 2))
    B = sp.Matrix(d, d, lambda i, j: rng.randint(-1, 1))
    Sg = B * B.T
    by_name = {s.name: s for s in syms}
    point = {}
    for i in range(d):
        for j in range(d):
            point[by_name[entry_name("A", i, j, d)]] = A[i, j]
            point[by_name[entry_name("V", i, j, d)]] = V[i, j]
            if i <= j:
                point[by_name[entry_name("Sigma", i, j, d)]] = Sg[i, j]
    expected = V * Sg * A * Sg + Sg * A.T * Sg * V.T
    for i, j in ((1, 10), (10, 1), (0, 0), (10, 10)):
        assert cov[i, j].xreplace(point) == expected[i, j]


# ---- 2. convexity along Gaussians where the energy is +∞ --------------------------------
def test_gaussian_energy_finiteness_is_decided_exactly():
    I2 = sp.eye(2)
    assert gaussian_energy_is_finite(-I2, I2) is False        # ‖Σ^{1/2}AΣ^{1/2}‖ = 1: E = +∞
    assert gaussian_energy_is_finite(2 * I2, I2) is False     # D(0) > 0 but E = +∞
    assert gaussian_energy_is_finite(-I2 / 2, I2) is True
    assert gaussian_energy_is_finite(sp.Symbol("a"), 1) is None


def test_second_variation_refuses_infinite_energy():
    I2 = sp.eye(2)
    T = sp.diag(2, 1)
    for A in (-I2, 2 * I2):
        try:
            second_variation_gaussian_bw(A, I2, T)
        except InvalidParameters as exc:
            assert "+∞" in str(exc)
        else:
            raise AssertionError("a second variation was reported where E = +∞")
    assert second_variation_gaussian_bw(-I2 / 2, I2, T) == sp.Rational(20, 9)


def test_cli_convexity_gaussian_at_identity(capsys):
    argv = ["convexity", "softmax", "--A", "[[-1,0],[0,-1]]", "--along", "gaussian",
            "--sigma", "[[1,0],[0,1]]", "--target", "[[2,0],[0,1]]"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("symtf: error: --sigma:") and "+∞" in err and err.count("\n") == 1
    argv[3] = '[["-1/2",0],[0,"-1/2"]]'
    assert main(argv + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["second_variation"] == "20/9" and data["sign"] == 1


# ---- 3. gradient-flow honours --dim ------------------------------------------------------
def test_cli_gradient_flow_runs_the_requested_dimension(capsys):
    assert main(["gradient-flow", "sinkhorn", "--metric", "bures-wasserstein", "--dim", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # proved for every d by the matrix-form proofs; the d = 3 cross-check is what --dim runs
    assert data["dim"] == 3 and data["claim"].startswith("every d") and "in d = 3" in data["reason"]
    assert all(len(sp.Matrix(sp.sympify(p["Sigma"]))) == 9 for p in data["numerical_evidence"]["points"])
    assert main(["gradient-flow", "softmax", "--dim", "3", "--symmetric", "--json"]) == 0
    assert "d = 3" in json.loads(capsys.readouterr().out)["claim"]
    assert main(["gradient-flow", "sinkhorn", "--metric", "bures-wasserstein", "--dim", "9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("symtf: error: --dim") and err.count("\n") == 1


# ---- a typo is named where it is made ---------------------------------------------------
def test_problem_with_a_mistyped_variant_is_refused_at_once():
    from symbolic_tf.spec.errors import UnknownVariant

    with pytest.raises(UnknownVariant, match=r"did you mean 'softmax'"):
        stf.Problem("sofmax", A=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], cov=[[1, 0], [0, 1]])


def test_a_mistyped_command_gets_one_line_with_the_closest_command(capsys):
    assert main(["clasify", "x.toml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("symtf: error: unknown command 'clasify' (did you mean 'classify'?)")
    assert "symtf: error: symtf" not in err
