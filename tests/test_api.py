"""The top-level API ``import symbolic_tf as stf`` (issue 18): light import, exact problems from
lists / numpy arrays / strings, the verbs, rich reprs, py.typed, progress and readable numbers."""
from __future__ import annotations

import io
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import symbolic_tf as stf
from symbolic_tf import display

ROOT = Path(__file__).resolve().parents[1]


def test_import_is_light_and_lazy():
    code = ("import sys, symbolic_tf as stf; "
            "print(sorted(m for m in ('sympy', 'numpy', 'scipy', 'cvxpy', 'matplotlib', 'flint') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_all_names_resolve_and_py_typed_ships():
    for name in stf.__all__:
        assert getattr(stf, name) is not None
    assert set(stf.__all__) <= set(dir(stf))
    with pytest.raises(AttributeError):
        stf.no_such_name  # noqa: B018
    assert (Path(stf.__file__).parent / "py.typed").exists()


def test_problem_from_numpy_lists_strings_reads_exactly():
    p = stf.Problem("softmax", A=np.array([[0.1, 0], [0, 1]]), V=np.eye(2), mean=np.zeros(2),
                    cov=[[1, "1/4"], ["0.25", 1]])
    assert p.d == 2
    assert p.A[0][0] == Fraction(0.1) != Fraction(1, 10)  # a float is its exact binary value
    assert p.cov[0][1] == p.cov[1][0] == Fraction(1, 4)
    q = stf.Problem("softmax", A=sp.Matrix([[sp.Rational(1, 3), 0], [0, 1]]), cov=np.eye(2).reshape(2, 2))
    assert q.A[0][0] == Fraction(1, 3)
    col = stf.Problem("softmax", A=np.eye(2), b=np.array([[1.0], [2.0]]), F=np.zeros((2, 2)), cov=np.eye(2))
    assert col.b == (1, 2)


@pytest.mark.parametrize("kw, field", [({"A": np.array([[np.nan, 0], [0, 1]])}, "A[0][0]"),
                                       ({"A": np.eye(2), "cov": -np.eye(2)}, "initial.cov"),
                                       ({"A": np.eye(2), "cov": np.eye(3)}, "initial.cov"),
                                       ({}, "d")])
def test_problem_errors_are_the_projects(kw, field):
    with pytest.raises(stf.InvalidParameters) as e:
        stf.Problem("softmax", **kw)
    assert str(e.value).startswith(field)


def test_verbs_classify_check_integrate():
    p = stf.Problem("softmax", A=np.eye(2), V=np.eye(2), cov=np.eye(2))
    c = stf.classify(p)
    assert (c.regime, c.status) == ("BLOWUP", "PROVED")
    assert Fraction(c.T_lo) <= Fraction(1, 2) <= Fraction(c.T_hi)  # T* = 1/λ_max(2I) = 1/2
    assert stf.check(c.certificate).ok
    sol = stf.integrate(p, 0.25)  # Σ(t) = (I − 2tI)⁻¹ = 2I at t = 1/4
    assert np.allclose(sol.Sigma_end[0], 2 * np.eye(2), rtol=1e-8)
    assert stf.invariance("sigmoid").status == "REFUTED"
    assert stf.rhs(p).cov_rhs == [["2", "0"], ["0", "2"]]  # VΣAΣ + ΣAᵀΣVᵀ = 2I


def test_check_accepts_a_path(tmp_path):
    import json

    c = stf.classify(stf.Problem("softmax", A=np.eye(2), V=np.eye(2), cov=np.eye(2)))
    path = tmp_path / "c.json"
    path.write_text(json.dumps(c.certificate))
    assert stf.check(path).status == "PROVED"


def test_rich_reprs():
    m = stf.derive("softmax")
    assert r"\dot\Sigma" in m._repr_latex_() and m._repr_latex_().startswith("$$")
    assert repr(m).startswith("MomentSystem(softmax:") and len(repr(m)) < 300
    v = stf.invariance("softmax")
    assert repr(v).startswith("Verdict(PROVED:") and r"\textbf{PROVED}" in v._repr_latex_()
    c = stf.classify(stf.Problem("softmax", A=np.eye(2), V=np.eye(2), cov=np.eye(2)))
    assert repr(c).startswith("Classification(BLOWUP (PROVED):") and "T*" in c._repr_latex_()
    assert r"\textbf{verified}" in stf.check(c.certificate)._repr_latex_()


def test_readable_numbers_and_labels():
    assert display.exact_and_decimal("1/3") == "1/3 (≈ 0.3333333)"
    assert display.exact_and_decimal("7") == "7"
    assert display.verdict_label("UNDECIDED", "UNDECIDED") == "UNDECIDED"
    assert display.verdict_label("BLOWUP", "PROVED") == "BLOWUP (PROVED)"
    assert display.tagged("x", {"a": 1}) == {"schema": "symbolic_tf.x/1", "version": stf.__version__, "a": 1}
    assert display.tagged("x", {"schema": "keep"}) == {"schema": "keep"}


def test_progress_bar_on_stderr_only_when_enabled(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    display.set_enabled(False)
    assert list(display.progress(range(3), desc="x")) == [0, 1, 2] and err.getvalue() == ""
    display.set_enabled(True)
    try:
        assert list(display.progress(range(3), desc="work")) == [0, 1, 2]
    finally:
        display.set_enabled(None)
    assert "work" in err.getvalue()
    monkeypatch.setenv("SYMTF_PROGRESS", "0")
    assert not display.enabled()


def test_status_line_for_a_long_single_step(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    display.set_enabled(True)
    try:
        with display.status("simplifying"):
            pass
    finally:
        display.set_enabled(None)
    assert "simplifying" in err.getvalue()
    err.truncate(0)
    display.set_enabled(False)
    try:
        with display.status("quiet"):
            pass
    finally:
        display.set_enabled(None)
    assert "quiet" not in err.getvalue()
