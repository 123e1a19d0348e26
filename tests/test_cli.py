"""The ``symtf`` command line: error contract, ``rhs`` mathematics, ``derive``/``invariance``/
``variants``/``run`` outputs.

Most cases call :func:`symbolic_tf.cli.main` in-process (fast, output via ``capsys``); a few
run ``python -m symbolic_tf.cli`` as a real subprocess to prove the exit status and that
stderr is one line without a traceback.

Every expected value of ``symtf rhs`` is recomputed here independently from the formulas of
docs/mathematics.md §3/§6 (Fractions / SymPy Rationals / mpmath), never hard-coded.
"""
from __future__ import annotations

import json
from pathlib import Path
import os
import random
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from symbolic_tf.cli import main

# ----- helpers ----------------------------------------------------------------------------


def run_cli(capsys, *argv):
    """Run ``symtf argv`` in-process; return (status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_user_error(status, out, err, *needles):
    """Status 2, nothing on stdout, exactly one ``symtf: error:`` line on stderr."""
    assert status == 2, (status, out, err)
    assert out == ""
    assert err.startswith("symtf: error:"), err
    assert err.endswith("\n") and err.count("\n") == 1, f"not exactly one line: {err!r}"
    assert "Traceback" not in err
    for n in needles:
        assert n in err, f"{n!r} not in {err!r}"


def rhs_json(capsys, tmp_path, text, suffix=".toml", name="problem"):
    """Write a problem file, run ``symtf rhs FILE --json``, return the decoded JSON."""
    path = tmp_path / f"{name}{suffix}"
    path.write_text(text, encoding="utf-8")
    status, out, err = run_cli(capsys, "rhs", path, "--json")
    assert status == 0, err
    assert err == ""
    return json.loads(out)


def toml_num(q: Fraction) -> str:
    return f'"{q.numerator}/{q.denominator}"'


def toml_mat(M) -> str:
    return "[" + ", ".join("[" + ", ".join(toml_num(x) for x in row) + "]" for row in M) + "]"


def toml_vec(v) -> str:
    return "[" + ", ".join(toml_num(x) for x in v) + "]"


# exact Fraction linear algebra, written here so the test does not reuse the library's
def mm(*Ms):
    out = Ms[0]
    for M in Ms[1:]:
        out = [[sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in zip(*M)] for row in out]
    return out


def madd(*Ms):
    return [[sum(xs, Fraction(0)) for xs in zip(*rows)] for rows in zip(*Ms)]


def tr(M):
    return [list(r) for r in zip(*M)]


def eye(d):
    return [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]


def col(v):
    return [[x] for x in v]


def flat(M):
    return [row[0] for row in M]


def scal(c, M):
    return [[c * x for x in row] for row in M]


def rand_q(rng, num=5, den=4):
    return Fraction(rng.randint(-num, num), rng.randint(1, den))


def rand_mat(rng, r, c=None):
    return [[rand_q(rng) for _ in range(c or r)] for _ in range(r)]


def rand_cov(rng, d):
    """A random positive definite rational covariance M Mᵀ + I/2."""
    M = rand_mat(rng, d)
    return madd(mm(M, tr(M)), scal(Fraction(1, 2), eye(d)))


def frac_matrix(rows):
    return [[Fraction(x) for x in row] for row in rows]


RHS_KEYS = {"schema", "version", "variant", "gaussian_closed", "mean_rhs", "cov_rhs", "exact"}


def assert_exact(data, mean, cov):
    assert RHS_KEYS == set(data), data.keys()
    assert data["gaussian_closed"] is True
    assert data["exact"] is True
    assert [Fraction(x) for x in data["mean_rhs"]] == mean
    assert frac_matrix(data["cov_rhs"]) == cov


# ----- 1. bad input: status 2, one line, no traceback -------------------------------------

ID2 = "[[1, 0], [0, 1]]"
GOOD_INIT = "[initial]\nmean = [0, 0]\ncov = [[1, 0], [0, 1]]\n"

BAD_FILES = [
    # (id, file content, suffix, substrings expected in the message)
    ("toml-syntax", 'variant = "softmax"\nd = 2\nA = [[1, 2\n', ".toml", ["invalid TOML"]),
    ("json-syntax", '{"variant": "softmax", "d": 2,', ".json", ["invalid JSON"]),
    ("neither", "variant = = {", ".txt", ["neither valid TOML nor valid JSON"]),
    ("A-2x3", f'variant = "softmax"\nd = 2\nA = [[1, 2, 3], [4, 5, 6]]\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["A:", "2x2", "2x3"]),
    ("cov-nonsymmetric", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n'
     "[initial]\ncov = [[1, 2], [0, 1]]\n", ".toml", ["initial.cov", "symmetric"]),
    ("cov-indefinite", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n'
     "[initial]\ncov = [[1, 2], [2, 1]]\n", ".toml", ["initial.cov", "semidefinite", "v = ["]),
    ("nan-string", f'variant = "softmax"\nd = 2\nA = [[1, "nan"], [0, 1]]\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["A[0][1]", "finite"]),
    ("nan-toml-literal", f'variant = "softmax"\nd = 2\nA = [[1, nan], [0, 1]]\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["A[0][1]", "finite"]),
    ("nan-json-literal", '{"variant": "softmax", "d": 2, "A": [[1, NaN], [0, 1]], "V": [[1, 0], [0, 1]],'
      ' "initial": {"cov": [[1, 0], [0, 1]]}}', ".json", ["NaN", "line 1, column 42", "finite"]),
    ("inf-toml", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = [[1, inf], [0, 1]]\n{GOOD_INIT}',
     ".toml", ["V[0][1]", "finite"]),
    ("inf-json-literal", '{"variant": "softmax", "d": 2, "A": [[1, 0], [0, 1]], "V": [[1, -Infinity],'
      ' [0, 1]], "initial": {"cov": [[1, 0], [0, 1]]}}', ".json", ["Infinity", "line 1", "finite"]),
    ("inf-string-in-cov", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n'
     '[initial]\ncov = [["inf", 0], [0, 1]]\n', ".toml", ["initial.cov[0][0]", "finite"]),
    ("unknown-field", f'variant = "softmax"\nd = 2\ntemperature = 3\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["temperature", "unknown field"]),
    ("unknown-initial-field", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n'
     "[initial]\ncov = [[1, 0], [0, 1]]\nvar = 1\n", ".toml", ["initial.var", "unknown field"]),
    ("unknown-variant", f'variant = "nosuch"\nd = 2\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["variant", "nosuch", "softmax"]),
    ("softmax-missing-V", f'variant = "softmax"\nd = 2\nA = {ID2}\n{GOOD_INIT}', ".toml", ["V:", "needs V"]),
    ("l2-only-A", f'variant = "l2"\nd = 2\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}', ".toml", ["Q", "l2"]),
    ("Q-without-K", f'variant = "l2"\nd = 2\nQ = {ID2}\nV = {ID2}\n{GOOD_INIT}', ".toml", ["K:", "together"]),
    ("multihead-no-heads", f'variant = "multihead"\nd = 2\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["heads"]),
    ("head-variant-l2", f'variant = "multihead"\nd = 2\n[[heads]]\nvariant = "l2"\nA = {ID2}\nV = {ID2}\n'
     f"{GOOD_INIT}", ".toml", ["heads[0].variant", "l2"]),
    ("head-variant-nested", f'variant = "multihead"\nd = 2\n[[heads]]\nA = {ID2}\nV = {ID2}\n'
     f'[[heads]]\nvariant = "multihead"\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}', ".toml",
     ["heads[1].variant", "multihead"]),
    ("head-variant-unknown", f'variant = "multihead"\nd = 2\n[[heads]]\nvariant = "nosuch"\nA = {ID2}\n'
     f"V = {ID2}\n{GOOD_INIT}", ".toml", ["nosuch"]),
    ("head-not-gaussian-closed", f'variant = "multihead"\nd = 2\n[[heads]]\nA = {ID2}\nV = {ID2}\n'
     f'[[heads]]\nvariant = "sigmoid"\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}', ".toml",
     ["heads[1].variant", "sigmoid", "not Gaussian-closed"]),
    ("head-missing-V", f'variant = "multihead"\nd = 2\n[[heads]]\nA = {ID2}\n{GOOD_INIT}', ".toml",
     ["heads[0].V"]),
    ("sigmoid-bias-on-softmax", f'variant = "softmax"\nd = 2\nsigmoid_bias = 1\nA = {ID2}\nV = {ID2}\n'
     f"{GOOD_INIT}", ".toml", ["sigmoid_bias"]),
    ("missing-initial-cov", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n[initial]\nmean = [0, 0]\n',
     ".toml", ["initial.cov"]),
    ("missing-initial", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n', ".toml", ["initial.cov"]),
    ("d-zero", 'variant = "softmax"\nd = 0\n', ".toml", ["d:", "positive"]),
    ("scale-zero", f'variant = "softmax"\nd = 2\nscale = 0\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}', ".toml",
     ["scale", "positive"]),
    ("mean-wrong-length", f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n'
     "[initial]\nmean = [0, 0, 0]\ncov = [[1, 0], [0, 1]]\n", ".toml", ["initial.mean", "length 2"]),
    ("not-a-number", f'variant = "softmax"\nd = 2\nA = [[1, "x"], [0, 1]]\nV = {ID2}\n{GOOD_INIT}',
     ".toml", ["A[0][1]", "'x'"]),
    ("json-top-level-list", "[1, 2]", ".json", ["expected a table/object"]),
]


@pytest.mark.parametrize("text,suffix,needles", [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES])
def test_rhs_bad_problem_file(capsys, tmp_path, text, suffix, needles):
    path = tmp_path / f"problem{suffix}"
    path.write_text(text, encoding="utf-8")
    assert_user_error(*run_cli(capsys, "rhs", path), *needles)


def test_rhs_bad_problem_json_flag(capsys, tmp_path):
    """--json changes the output format, never the error contract."""
    path = tmp_path / "p.toml"
    path.write_text(f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n[initial]\ncov = [[1, 2], [2, 1]]\n')
    assert_user_error(*run_cli(capsys, "rhs", path, "--json"), "initial.cov")


def test_rhs_nonexistent_file(capsys, tmp_path):
    missing = tmp_path / "nope.toml"
    assert_user_error(*run_cli(capsys, "rhs", missing), "cannot read problem file", "nope.toml")


def test_rhs_directory_and_binary_file(capsys, tmp_path):
    assert_user_error(*run_cli(capsys, "rhs", tmp_path), "cannot read problem file")
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"\xff\xfe\x00variant")
    assert_user_error(*run_cli(capsys, "rhs", binary), "UTF-8")


BAD_ARGS = [
    ("derive-unknown-variant", ["derive", "nosuch"], ["unknown variant", "nosuch", "softmax"]),
    ("invariance-unknown-variant", ["invariance", "nosuch"], ["unknown variant", "nosuch"]),
    ("derive-missing-variant", ["derive"], ["required", "variant"]),
    ("invariance-missing-variant", ["invariance"], ["required", "variant"]),
    ("rhs-missing-problem", ["rhs"], ["required", "problem"]),
    ("no-command", [], ["command"]),
    ("unknown-command", ["bogus"], ["bogus"]),
    ("bad-format", ["derive", "softmax", "--format", "xml"], ["--format", "xml"]),
    ("dim-zero", ["derive", "softmax", "--dim", "0"], ["--dim", "0"]),
    ("dim-negative", ["derive", "softmax", "--dim", "-3"], ["--dim", "-3"]),
    ("dim-not-int", ["derive", "softmax", "--dim", "two"], ["--dim", "two"]),
    ("invariance-dim-zero", ["invariance", "softmax", "--dim", "0"], ["--dim"]),
    ("heads-zero", ["derive", "multihead", "--heads", "0"], ["--heads", "0"]),
    ("heads-negative", ["derive", "multihead", "--heads", "-1"], ["--heads"]),
    ("derive-not-closed", ["derive", "sigmoid"], ["sigmoid", "invariance"]),
    ("derive-sinkhorn-dim2", ["derive", "sinkhorn", "--dim", "2"], ["sinkhorn"]),
    ("unknown-option", ["variants", "--frobnicate"], ["--frobnicate"]),
]


@pytest.mark.parametrize("argv,needles", [c[1:] for c in BAD_ARGS], ids=[c[0] for c in BAD_ARGS])
def test_bad_arguments(capsys, argv, needles):
    assert_user_error(*run_cli(capsys, *argv), *needles)


def test_run_out_is_a_file(capsys, tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    assert_user_error(*run_cli(capsys, "run", "--out", f, "--quiet"), "--out")
    assert f.read_text() == "x"


def _subprocess(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "symbolic_tf.cli", *map(str, argv)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize("argv,needle", [
    (["derive", "nosuch"], "nosuch"),
    (["rhs", "{bad}"], "invalid TOML"),
], ids=["unknown-variant", "malformed-toml"])
def test_subprocess_user_error(tmp_path, argv, needle):
    bad = tmp_path / "bad.toml"
    bad.write_text('variant = "softmax"\nd = [[\n', encoding="utf-8")
    r = _subprocess(*[a.format(bad=bad) for a in argv], cwd=tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith("symtf: error:")
    assert r.stderr.count("\n") == 1 and r.stderr.endswith("\n"), repr(r.stderr)
    assert "Traceback" not in r.stderr
    assert needle in r.stderr


def test_subprocess_rhs_ok(tmp_path):
    p = tmp_path / "p.json"
    p.write_text(json.dumps({"variant": "softmax", "d": 1, "A": [["1/3"]], "V": [[2]],
                             "initial": {"mean": [1], "cov": [[3]]}}))
    r = _subprocess("rhs", p, "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    data = json.loads(r.stdout)
    # d = 1: ṡ = 2 v a s², α̇ = v(1 + s a)α
    assert Fraction(data["cov_rhs"][0][0]) == 2 * 2 * Fraction(1, 3) * 9
    assert Fraction(data["mean_rhs"][0]) == 2 * (1 + 3 * Fraction(1, 3)) * 1


# ----- 2. symtf rhs: the mathematics --------------------------------------------------------

@pytest.mark.parametrize("d,seed", [(2, 1), (2, 7), (3, 3)])
def test_rhs_softmax_exact(capsys, tmp_path, d, seed):
    rng = random.Random(seed)
    A, V, S = rand_mat(rng, d), rand_mat(rng, d), rand_cov(rng, d)
    a = [rand_q(rng) for _ in range(d)]
    text = (f'variant = "softmax"\nd = {d}\nA = {toml_mat(A)}\nV = {toml_mat(V)}\n'
            f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n")
    data = rhs_json(capsys, tmp_path, text)
    assert data["variant"] == "softmax"
    cov = madd(mm(V, S, A, S), mm(S, tr(A), S, tr(V)))
    mean = flat(mm(V, madd(eye(d), mm(S, A)), col(a)))
    assert_exact(data, mean, cov)


@pytest.mark.parametrize("d,seed", [(2, 11), (3, 12)])
def test_rhs_softmax_with_drift(capsys, tmp_path, d, seed):
    rng = random.Random(seed)
    A, V, F, S = rand_mat(rng, d), rand_mat(rng, d), rand_mat(rng, d), rand_cov(rng, d)
    a, b = [rand_q(rng) for _ in range(d)], [rand_q(rng) for _ in range(d)]
    text = (f'variant = "softmax"\nd = {d}\nA = {toml_mat(A)}\nV = {toml_mat(V)}\nF = {toml_mat(F)}\n'
            f"b = {toml_vec(b)}\n[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n")
    data = rhs_json(capsys, tmp_path, text)
    # docs/mathematics.md §6: Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ, α̇ = (F + V)α + VΣAα + b
    cov = madd(mm(F, S), mm(S, tr(F)), mm(V, S, A, S), mm(S, tr(A), S, tr(V)))
    mean = flat(madd(mm(madd(F, V), col(a)), mm(V, S, A, col(a)), col(b)))
    assert_exact(data, mean, cov)


def test_rhs_drift_b_only(capsys, tmp_path):
    """b without F: F defaults to 0."""
    rng = random.Random(5)
    d = 2
    A, V, S = rand_mat(rng, d), rand_mat(rng, d), rand_cov(rng, d)
    a, b = [rand_q(rng) for _ in range(d)], [rand_q(rng) for _ in range(d)]
    text = (f'variant = "softmax"\nd = {d}\nA = {toml_mat(A)}\nV = {toml_mat(V)}\nb = {toml_vec(b)}\n'
            f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n")
    data = rhs_json(capsys, tmp_path, text)
    cov = madd(mm(V, S, A, S), mm(S, tr(A), S, tr(V)))
    mean = flat(madd(mm(V, madd(eye(d), mm(S, A)), col(a)), col(b)))
    assert_exact(data, mean, cov)


@pytest.mark.parametrize("d,seed", [(2, 21), (3, 22)])
def test_rhs_linear(capsys, tmp_path, d, seed):
    rng = random.Random(seed)
    A, V, S = rand_mat(rng, d), rand_mat(rng, d), rand_cov(rng, d)
    a = [rand_q(rng) for _ in range(d)]
    text = (f'variant = "linear"\nd = {d}\nA = {toml_mat(A)}\nV = {toml_mat(V)}\n'
            f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n")
    data = rhs_json(capsys, tmp_path, text)
    M2 = madd(S, mm(col(a), [a]))  # second moment Σ + ααᵀ
    cov = madd(mm(V, M2, A, S), mm(S, tr(A), M2, tr(V)))
    mean = flat(mm(V, M2, A, col(a)))
    assert_exact(data, mean, cov)


@pytest.mark.parametrize("second_W", [True, False], ids=["W2-given", "W2-default-identity"])
def test_rhs_multihead(capsys, tmp_path, second_W):
    rng = random.Random(31)
    d = 2
    S = rand_cov(rng, d)
    a = [rand_q(rng) for _ in range(d)]
    heads = [(rand_mat(rng, d), rand_mat(rng, d), rand_mat(rng, d)) for _ in range(2)]
    if not second_W:
        heads[1] = (heads[1][0], heads[1][1], eye(d))
    text = f'variant = "multihead"\nd = {d}\n'
    for i, (A, V, W) in enumerate(heads):
        text += f"[[heads]]\nA = {toml_mat(A)}\nV = {toml_mat(V)}\n"
        if i == 0 or second_W:
            text += f"W = {toml_mat(W)}\n"
    text += f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n"
    data = rhs_json(capsys, tmp_path, text)
    cov = [[Fraction(0)] * d for _ in range(d)]
    mean = [[Fraction(0)] for _ in range(d)]
    for A, V, W in heads:
        C = mm(W, V)
        cov = madd(cov, mm(C, S, A, S), mm(S, tr(A), S, tr(C)))
        mean = madd(mean, mm(C, madd(eye(d), mm(S, A)), col(a)))
    assert_exact(data, flat(mean), cov)


def _sym(M):
    return sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in row] for row in M])


@pytest.mark.parametrize("d,k,seed", [(2, 2, 41), (2, 3, 42), (3, 1, 43)])
def test_rhs_l2(capsys, tmp_path, d, k, seed):
    rng = random.Random(seed)
    Q, K, V, S = rand_mat(rng, k, d), rand_mat(rng, k, d), rand_mat(rng, d), rand_cov(rng, d)
    a = [rand_q(rng) for _ in range(d)]
    text = (f'variant = "l2"\nd = {d}\nQ = {toml_mat(Q)}\nK = {toml_mat(K)}\nV = {toml_mat(V)}\n'
            f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n")
    data = rhs_json(capsys, tmp_path, text)
    Qs, Ks, Vs, Ss, al = _sym(Q), _sym(K), _sym(V), _sym(S), _sym(col(a))
    I = sp.eye(d)
    As = Ks.T * Qs
    J = 2 * Vs * Ss * (I + 2 * Ks.T * Ks * Ss).inv() * As
    cov = J * Ss + Ss * J.T
    # Γ(α) = V(I + 2ΣKᵀK)⁻¹(α + 2ΣKᵀQα)
    mean = Vs * (I + 2 * Ss * Ks.T * Ks).inv() * (al + 2 * Ss * Ks.T * Qs * al)
    assert data["exact"] is True and data["gaussian_closed"] is True
    assert sp.Matrix([[sp.Rational(x) for x in row] for row in data["cov_rhs"]]) == cov
    assert sp.Matrix([sp.Rational(x) for x in data["mean_rhs"]]) == mean


@pytest.mark.parametrize("scale", ["2", "1/3"])
def test_rhs_scale_equals_scaled_A(capsys, tmp_path, scale):
    rng = random.Random(51)
    d = 2
    A, V, S = rand_mat(rng, d), rand_mat(rng, d), rand_cov(rng, d)
    a = [rand_q(rng) for _ in range(d)]
    init = f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n"
    scaled = rhs_json(capsys, tmp_path, f'variant = "softmax"\nd = 2\nscale = "{scale}"\n'
                      f"A = {toml_mat(A)}\nV = {toml_mat(V)}\n{init}", name="scaled")
    A2 = scal(Fraction(scale), A)
    direct = rhs_json(capsys, tmp_path, f'variant = "softmax"\nd = 2\n'
                      f"A = {toml_mat(A2)}\nV = {toml_mat(V)}\n{init}", name="direct")
    assert scaled == direct
    cov = madd(mm(V, S, A2, S), mm(S, tr(A2), S, tr(V)))
    assert frac_matrix(scaled["cov_rhs"]) == cov
    plain = rhs_json(capsys, tmp_path, f'variant = "softmax"\nd = 2\n'
                     f"A = {toml_mat(A)}\nV = {toml_mat(V)}\n{init}", name="plain")
    assert plain != scaled


def test_decimal_strings_are_exact(capsys, tmp_path):
    """"0.1" is exactly 1/10; a JSON float 0.1 is its exact binary value (documented)."""
    text = 'variant = "softmax"\nd = 1\nA = [["0.1"]]\nV = [[1]]\n[initial]\nmean = ["0.3"]\ncov = [["2.5"]]\n'
    data = rhs_json(capsys, tmp_path, text)
    s, a, al = Fraction(5, 2), Fraction(1, 10), Fraction(3, 10)
    assert Fraction(data["cov_rhs"][0][0]) == 2 * a * s * s
    assert Fraction(data["cov_rhs"][0][0]) == Fraction(5, 4)
    assert Fraction(data["mean_rhs"][0]) == (1 + s * a) * al
    # JSON floats are not decimals: 0.1 as a double is 3602879701896397/2**55 (announced on stderr,
    # tests/test_cli_light.py; the strings above announce nothing)
    path = tmp_path / "float.json"
    path.write_text(json.dumps({"variant": "softmax", "d": 1, "A": [[0.1]], "V": [[1]], "initial": {"cov": [[1]]}}),
                    encoding="utf-8")
    status, out, err = run_cli(capsys, "rhs", path, "--json")
    assert status == 0 and all(line.startswith("symtf: warning: ") for line in err.splitlines())
    data = json.loads(out)
    assert Fraction(data["cov_rhs"][0][0]) == 2 * Fraction(0.1)
    assert Fraction(data["cov_rhs"][0][0]) != Fraction(1, 5)


def _mp(M):
    return mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in M])


def test_rhs_sinkhorn_d2_fixed_point(capsys, tmp_path):
    d = 2
    A = [[Fraction(1, 2), Fraction(1, 3)], [Fraction(-1, 4), Fraction(2, 3)]]
    V = [[Fraction(1), Fraction(1, 2)], [Fraction(-1, 3), Fraction(3, 2)]]
    S = [[Fraction(3, 2), Fraction(1, 2)], [Fraction(1, 2), Fraction(1)]]
    a = [Fraction(1, 2), Fraction(-2)]
    text = (f'variant = "sinkhorn"\nd = {d}\nA = {toml_mat(A)}\nV = {toml_mat(V)}\n'
            f"[initial]\nmean = {toml_vec(a)}\ncov = {toml_mat(S)}\n")
    data = rhs_json(capsys, tmp_path, text)
    assert RHS_KEYS == set(data)
    assert data["gaussian_closed"] is True
    assert data["exact"] is False
    with mpmath.workdps(40):
        Am, Vm, Sm = _mp(A), _mp(V), _mp(S)
        Si = mpmath.inverse(Sm)
        R = mpmath.zeros(d, d)
        for _ in range(10000):  # R ← A(Σ⁻¹ + Aᵀ(Σ⁻¹+R)⁻¹A)⁻¹Aᵀ from 0 (monotone)
            Rn = Am * mpmath.inverse(Si + Am.T * mpmath.inverse(Si + R) * Am) * Am.T
            step = max(abs(x) for x in (Rn - R))
            R = Rn
            if step < mpmath.mpf(10) ** -38:
                break
        else:
            pytest.fail("fixed-point iteration did not converge")
        P = Am.T * mpmath.inverse(Si + R) * Am
        assert max(abs(x) for x in (R - Am * mpmath.inverse(Si + P) * Am.T)) < mpmath.mpf(10) ** -35
        J = Vm * mpmath.inverse(Si + R) * Am
        cov = J * Sm + Sm * J.T
        mean = Vm * _mp(col(a))  # α̇ = Vα: the mean decouples
        for i in range(d):
            assert abs(mpmath.mpf(data["mean_rhs"][i]) - mean[i, 0]) < 1e-25
            for j in range(d):
                assert abs(mpmath.mpf(data["cov_rhs"][i][j]) - cov[i, j]) < 1e-25
        assert abs(cov[0, 0]) > 0.1  # not a trivially zero comparison


@pytest.mark.parametrize("s,a,v", [("2", "1/3", "3/2"), ("1/2", "-3", "1"), ("7/5", "5/2", "-2/3")])
def test_rhs_sinkhorn_d1_closed_form(capsys, tmp_path, s, a, v):
    text = f'variant = "sinkhorn"\nd = 1\nA = [["{a}"]]\nV = [["{v}"]]\n[initial]\nmean = [1]\ncov = [["{s}"]]\n'
    data = rhs_json(capsys, tmp_path, text)
    assert data["exact"] is False
    with mpmath.workdps(30):
        S, A_, V_ = (mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in (s, a, v))
        expected = 4 * V_ * A_ * S**2 / (1 + mpmath.sqrt(1 + 4 * A_**2 * S**2))
        got = mpmath.mpf(data["cov_rhs"][0][0])
        assert abs(got - expected) <= mpmath.mpf(10) ** -27 * max(1, abs(expected))
        assert abs(mpmath.mpf(data["mean_rhs"][0]) - V_) <= mpmath.mpf(10) ** -27


@pytest.mark.parametrize("variant", ["sigmoid", "unnormalised", "masked"])
def test_rhs_not_gaussian_closed(capsys, tmp_path, variant):
    extra = "sigmoid_bias = \"1/2\"\n" if variant == "sigmoid" else ""
    text = f'variant = "{variant}"\nd = 2\n{extra}A = {ID2}\nV = {ID2}\n{GOOD_INIT}'
    data = rhs_json(capsys, tmp_path, text)
    assert RHS_KEYS <= set(data)
    assert data["variant"] == variant
    assert data["gaussian_closed"] is False
    assert data["mean_rhs"] is None and data["cov_rhs"] is None
    if variant == "masked":  # the text form too (once: each call re-derives the witness)
        status, out, err = run_cli(capsys, "rhs", tmp_path / "problem.toml")
        assert status == 0 and "not Gaussian-closed" in out


def test_rhs_text_output(capsys, tmp_path):
    p = tmp_path / "p.toml"
    p.write_text(f'variant = "softmax"\nd = 2\nA = {ID2}\nV = {ID2}\n{GOOD_INIT}')
    status, out, err = run_cli(capsys, "rhs", p)
    assert status == 0 and err == ""
    assert "d/dt alpha" in out and "d/dt Sigma" in out and "exact" in out


# ----- 3. derive / invariance / variants / run ---------------------------------------------

def _matrix_locals(d):
    return {n: sp.MatrixSymbol(n, d, d) for n in ("A", "V", "Sigma", "F", "W")} | {
        "alpha": sp.MatrixSymbol("alpha", d, 1), "b": sp.MatrixSymbol("b", d, 1), "I": sp.Identity(d)}


def _at_random_point(expr, seed):
    """Evaluate a matrix expression with every MatrixSymbol replaced by a random integer matrix."""
    rng = random.Random(seed)
    env = {}
    for m in sorted(expr.atoms(sp.MatrixSymbol), key=lambda m: m.name):
        M = sp.Matrix(*m.shape, lambda i, j: rng.randint(-4, 4))
        env[m] = sp.ImmutableMatrix(M + M.T if m.name == "Sigma" else M)  # Σ is symmetric
    return sp.Matrix(expr.xreplace(env).doit())


def _same_matrix_expr(got, expected, d=2):
    """Equal as polynomial maps: compare at a few random integer points (exact arithmetic)."""
    if isinstance(got, str):
        got = sp.sympify(got, locals=_matrix_locals(d))
    assert {m.name for m in got.atoms(sp.MatrixSymbol)} == {m.name for m in expected.atoms(sp.MatrixSymbol)}
    return all(_at_random_point(got, seed) == _at_random_point(expected, seed) for seed in range(3))


def test_derive_softmax_json(capsys):
    status, out, err = run_cli(capsys, "derive", "softmax", "--format", "json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["variant"] == "softmax" and data["gaussian_closed"] is True
    assert data["alpha_free_covariance"] is True
    L = _matrix_locals(2)
    A, V, S, al = L["A"], L["V"], L["Sigma"], L["alpha"]
    assert _same_matrix_expr(data["cov_rhs"], V * S * A * S + S * A.T * S * V.T)
    assert _same_matrix_expr(data["mean_rhs"], V * (sp.Identity(2) + S * A) * al)
    # --json is the same as --format json
    status, out2, _ = run_cli(capsys, "derive", "softmax", "--json")
    assert status == 0 and json.loads(out2) == data


def test_derive_softmax_latex(capsys):
    status, out, err = run_cli(capsys, "derive", "softmax", "--format", "latex")
    assert status == 0 and err == ""
    assert "\\begin{aligned}" in out and "\\end{aligned}" in out
    assert "\\dot\\alpha" in out and "\\dot\\Sigma" in out
    assert "\\Sigma" in out and "V^{T}" in out
    status, out, _ = run_cli(capsys, "derive", "softmax", "--dim", "2", "--format", "latex")
    assert status == 0 and out.startswith("\\dot\\alpha = ") and "\\dot\\Sigma = " in out


def _explicit(d):
    """Symbols named as in MomentSystem.explicit_symbols (Σ symmetric: Sigma_ij with i <= j)."""
    Sig = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"Sigma_{min(i, j)}{max(i, j)}"))
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"A_{i}{j}"))
    V = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"V_{i}{j}"))
    al = sp.Matrix(d, 1, lambda i, j: sp.Symbol(f"alpha_{i}"))
    return Sig, A, V, al


@pytest.mark.parametrize("d", [2, 3])
def test_derive_softmax_dim(capsys, d):
    status, out, err = run_cli(capsys, "derive", "softmax", "--dim", d, "--format", "json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["dim"] == d
    Sig, A, V, al = _explicit(d)
    cov = V * Sig * A * Sig + Sig * A.T * Sig * V.T
    mean = V * (sp.eye(d) + Sig * A) * al
    got_cov = sp.Matrix([[sp.sympify(e) for e in row] for row in data["cov_rhs_entries"]])
    got_mean = sp.Matrix([sp.sympify(e) for e in data["mean_rhs_entries"]])
    assert got_cov.shape == (d, d)
    assert (got_cov - cov).applyfunc(sp.expand) == sp.zeros(d, d)
    assert (got_mean - mean).applyfunc(sp.expand) == sp.zeros(d, 1)
    # the text form lists the upper triangle of Σ̇
    status, out, _ = run_cli(capsys, "derive", "softmax", "--dim", d)
    assert status == 0
    assert sum(line.startswith("d/dt Sigma[") for line in out.splitlines()) == d * (d + 1) // 2


def test_derive_sinkhorn_dim1_closed_form(capsys):
    status, out, _ = run_cli(capsys, "derive", "sinkhorn", "--dim", "1", "--json")
    assert status == 0
    data = json.loads(out)
    got = sp.sympify(data["cov_rhs_entries"][0][0])
    # at d = 1 explicit_symbols names a 1x1 parameter like a vector (A_0, not A_00): look up by prefix
    by_prefix = {sym.name.split("_")[0]: sym for sym in got.free_symbols}
    assert set(by_prefix) == {"Sigma", "A", "V"}
    s, a, v = by_prefix["Sigma"], by_prefix["A"], by_prefix["V"]
    expected = 4 * v * a * s**2 / (1 + sp.sqrt(1 + 4 * a**2 * s**2))
    assert sp.simplify(got - expected) == 0


def test_derive_multihead_and_drift(capsys):
    status, out, _ = run_cli(capsys, "derive", "multihead", "--heads", "3", "--json")
    assert status == 0
    data = json.loads(out)
    d = 2
    loc = {f"{n}_{h}": sp.MatrixSymbol(f"{n}_{h}", d, d) for n in "AVW" for h in (1, 2, 3)}
    loc |= {"Sigma": sp.MatrixSymbol("Sigma", d, d), "alpha": sp.MatrixSymbol("alpha", d, 1)}
    S = loc["Sigma"]
    expected = sp.ZeroMatrix(d, d)
    for h in (1, 2, 3):
        C, A = loc[f"W_{h}"] * loc[f"V_{h}"], loc[f"A_{h}"]
        expected = expected + C * S * A * S + S * A.T * S * C.T
    assert _same_matrix_expr(sp.sympify(data["cov_rhs"], locals=loc), expected)

    status, out, _ = run_cli(capsys, "derive", "softmax", "--drift", "--json")
    assert status == 0
    data = json.loads(out)
    L = _matrix_locals(2)
    A, V, S, F, b, al = (L[n] for n in ("A", "V", "Sigma", "F", "b", "alpha"))
    assert _same_matrix_expr(data["cov_rhs"], F * S + S * F.T + V * S * A * S + S * A.T * S * V.T, d=2)
    assert _same_matrix_expr(data["mean_rhs"], (F + V) * al + V * S * A * al + b, d=2)


def test_invariance_sigmoid_refuted(capsys):
    status, out, err = run_cli(capsys, "invariance", "sigmoid", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["variant"] == "sigmoid"
    assert data["status"] == "REFUTED"
    assert data["evidence"]["order"] >= 2
    status, out, _ = run_cli(capsys, "invariance", "softmax", "--json")
    assert status == 0 and json.loads(out)["status"] == "PROVED"


def test_variants_json(capsys):
    from symbolic_tf import variants

    status, out, err = run_cli(capsys, "variants", "--json", "--decide")
    assert status == 0 and err == ""
    rows = json.loads(out)["variants"]
    listed = [r["name"] for r in rows]
    assert sorted(listed) == sorted(variants.names())
    assert len(listed) == len(set(listed))
    for expected in ("softmax", "l2", "sinkhorn", "linear", "multihead", "unnormalised", "sigmoid", "masked"):
        assert expected in listed
    # the declared closure (what `symtf variants` lists without SymPy) is what the engine decides
    for r in rows:
        assert r["invariance"] == ("PROVED" if r["gaussian_closed"] else "REFUTED"), r["name"]
        assert r["gaussian_closed"] is variants.get(r["name"]).expected_closed
    status, out, _ = run_cli(capsys, "variants")
    assert status == 0 and all(n in out for n in listed) and "not closed" in out


def test_run_writes_report(capsys, tmp_path):
    from symbolic_tf import variants

    out_dir = tmp_path / "out"
    status, out, err = run_cli(capsys, "run", "--out", out_dir, "--quiet")
    assert status == 0, err
    assert "report.md" in out and "report.json" in out
    assert sorted(os.listdir(out_dir)) == ["certificates", "regime_map", "report.html", "report.json", "report.md"]  # no temp files
    assert sorted(os.listdir(out_dir / "regime_map")) == ["map.json", "map.png"]
    from symbolic_tf.regimes.maps import check_map

    assert check_map(json.loads((out_dir / "regime_map" / "map.json").read_text()))["cells_checked"] > 0
    certs = sorted(os.listdir(out_dir / "certificates"))
    assert certs and all(c.endswith(".json") and not c.startswith(".") for c in certs)
    report = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    labels = [row["variant"] for row in report["variants"]]
    assert sorted(labels) == sorted(variants.names() + ["softmax + drift"])
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    for label in labels:
        assert f"## {label}" in md
    by = {row["variant"]: row for row in report["variants"]}
    assert by["sigmoid"]["invariance"]["status"] == "REFUTED" and "system" not in by["sigmoid"]
    assert by["softmax + drift"]["invariance"]["status"] == "PROVED"
    assert "F" in by["softmax + drift"]["system"]["cov_rhs"]
    # every built-in regime example is certified and its certificate re-checks
    from symbolic_tf.certify.check import check

    assert report["regimes"] and all(r["status"] == "PROVED" and r["checked"] for r in report["regimes"])
    for r in report["regimes"]:
        assert check(json.loads(Path(r["certificate_file"]).read_text())).ok


# ----- help texts ---------------------------------------------------------------------------


def _subcommands():
    import argparse

    from symbolic_tf.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub


def test_every_argument_has_help():
    """Every argument of every subcommand (positional ones too) says what it is (issue 51)."""
    import argparse

    parser, sub = _subcommands()
    missing = [a.dest for a in parser._actions
               if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and not a.help]
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name, s in sub.choices.items():
        if not helps.get(name):
            missing.append(name)
        missing += [f"{name} {a.option_strings[0] if a.option_strings else a.dest}" for a in s._actions
                    if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert missing == []


def test_help_runs(capsys):
    """``symtf --help`` and every ``symtf CMD --help`` print their help and exit 0."""
    from symbolic_tf.cli import COMMAND_ORDER

    _, sub = _subcommands()
    assert set(sub.choices) == set(COMMAND_ORDER)
    for argv in (["--help"], *([name, "--help"] for name in COMMAND_ORDER)):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        out, err = capsys.readouterr()
        assert exc.value.code == 0, (argv, err)
        assert out.startswith("usage: symtf") and err == "", argv
