"""Run every proof script and re-check its certificate independently of the engine."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symbolic_tf import variants
from symbolic_tf.symbolic.ball import to_arb

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "proofs").glob("*closure_*.py"))


def test_every_variant_has_a_proof_script():
    covered = {p.stem.split("_", 1)[1] for p in SCRIPTS}
    assert set(variants.names()) <= covered
    assert "drift" in covered


def _namespace(d):
    ns = {n: sp.MatrixSymbol(n, d, d) for n in
          ["A", "V", "Q", "K", "F", "Sigma", "A_1", "A_2", "V_1", "V_2", "W_1", "W_2"]}
    ns.update(alpha=sp.MatrixSymbol("alpha", d, 1), b=sp.MatrixSymbol("b", d, 1), I=sp.Identity(d),
              sqrt=sp.sqrt)
    return ns


def _instance(ns, d, rng):
    env = {}
    for name, sym in ns.items():
        if isinstance(sym, sp.MatrixSymbol):
            M = sp.Matrix(*sym.shape, lambda i, j: sp.Rational(rng.randint(-4, 4), 4))
            if name == "Sigma":
                M = M * M.T + sp.eye(d) / 2
            env[sym] = sp.ImmutableMatrix(M)
    return env


def _ev(expr, env):
    return sp.Matrix(expr.xreplace(env).doit())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_proof_script_certificate(script, tmp_path):
    proc = subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (cert_path,) = tmp_path.glob("*.json")
    cert = json.loads(cert_path.read_text())
    assert cert["status"] == "PROVED", cert["reason"]
    if script.stem.startswith("closure_"):
        _check_closed(cert)
    else:
        _check_witness(cert)


def _check_closed(cert):
    rng = random.Random(42)
    for d in (2, 3):
        ns = _namespace(d)
        mean = sp.sympify(cert["system"]["mean_rhs"], locals=ns)
        cov = sp.sympify(cert["system"]["cov_rhs"], locals=ns)
        J = sp.sympify(cert["system"]["J"], locals=ns)
        stated = cert["stated_formula"]
        if cert["variant"] == "sinkhorn" and d > 1:
            continue  # the matrix square root: checked at d = 1 below
        for _ in range(2):
            env = _instance(ns, d, rng)
            S_ = env[ns["Sigma"]]
            Jv = _ev(J, env)
            assert _ev(cov, env) == Jv * S_ + S_ * Jv.T  # Σ̇ = JΣ + ΣJᵀ
            if "cov" in stated and "J" not in stated:
                assert _ev(cov, env) == _ev(sp.sympify(stated["cov"], locals=ns), env)
            if "J" in stated:
                assert Jv == _ev(sp.sympify(stated["J"], locals=ns), env)
            if "mean" in stated:
                assert _ev(mean, env) == _ev(sp.sympify(stated["mean"], locals=ns), env)
    if cert["variant"] == "sinkhorn":
        ns = _namespace(1)
        cov = sp.sympify(cert["system"]["cov_rhs"], locals=ns)
        a, s, v = sp.Rational(3, 2), sp.Rational(2, 3), sp.Rational(-1, 3)
        env = {ns["A"]: sp.ImmutableMatrix([[a]]), ns["Sigma"]: sp.ImmutableMatrix([[s]]),
               ns["V"]: sp.ImmutableMatrix([[v]])}
        mpmath.mp.dps = 30
        got = cov.xreplace(env)
        want = sp.sympify(cert["stated_formula"]["cov_d1"]).subs({"V_00": v, "A_00": a, "Sigma_00": s})
        # 1×1: square root of a 1×1 matrix is the scalar root
        val = sp.Matrix(got.xreplace({m: m for m in got.atoms(sp.MatPow)}).doit())[0, 0]
        assert abs(sp.N(val - want, 30)) < 1e-25


def _check_witness(cert):
    ev = cert["evidence"]
    assert cert["invariance_status"] == "REFUTED" and ev["order"] >= 2
    value = sp.sympify(ev["derivative"][ev["component"]])
    if value.is_Rational:
        assert value != 0
    else:
        ball = to_arb(value)
        assert ball > 0 or ball < 0  # the ball excludes zero
        mid, rad = (mpmath.mpf(t) for t in ev["ball"])
        assert abs(mid) > rad
        assert abs(mpmath.mpf(str(sp.N(value, 30))) - mid) <= rad + mpmath.mpf(10) ** -25


REGIME_SCRIPTS = [ROOT / "proofs" / f"{n}.py" for n in
                  ("blowup_softmax_identity", "clustering_softmax_identity", "drift_stable_equilibrium", "drift_blowup")]


@pytest.mark.parametrize("script", REGIME_SCRIPTS, ids=lambda p: p.stem)
def test_regime_proof_rechecked_by_symtf_check(script, tmp_path):
    proc = subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    (cert_path,) = tmp_path.glob("*.json")
    chk = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(cert_path), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert chk.returncode == 0, chk.stderr
    assert json.loads(chk.stdout)["ok"] is True
    # one altered entry must be rejected
    cert = json.loads(cert_path.read_text())
    key = "T_lo" if "T_lo" in cert["data"] else ("P_star" if "P_star" in cert["data"] else "limit_rank")
    if key == "T_lo":
        cert["data"]["T_lo"] = cert["data"]["T_hi"] = str(2 * __import__("fractions").Fraction(cert["data"]["T_hi"]))
    elif key == "P_star":
        cert["data"]["P_star"][0][0] = "1000"
    else:
        cert["data"]["limit_rank"] = 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(cert))
    chk = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(bad)], capture_output=True,
                         text=True, timeout=120)
    assert chk.returncode == 1 and chk.stderr.count("\n") == 1 and "Traceback" not in chk.stderr


def test_catalogue_certificates_recheck(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "proofs" / "catalogue.py"), "--out", str(tmp_path),
                           "--examples", "25", "--only", "seed-nsd-rank-deficient,trace-nonsymmetric-V,sinkhorn-mean"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    verdicts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert verdicts["seed-nsd-rank-deficient"] == "REFUTED" and verdicts["sinkhorn-mean"] == "PROVED"
    certs = [p for p in tmp_path.glob("*.json") if p.name != "catalogue.json"]
    assert certs
    for c in certs:
        chk = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(c)], capture_output=True,
                             text=True, timeout=120)
        assert chk.returncode == 0, chk.stderr


def test_gradient_flow_and_convexity_proofs(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "proofs" / "nonconvexity_softmax.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    cert = tmp_path / "nonconvexity_softmax.json"
    chk = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(cert)], capture_output=True,
                         text=True, timeout=120)
    assert chk.returncode == 0, chk.stderr
    data = json.loads(cert.read_text())
    data["data"]["positions"][0][0] = "0"
    cert.write_text(json.dumps(data))
    chk = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(cert)], capture_output=True,
                         text=True, timeout=120)
    assert chk.returncode == 1  # rejected
    proc = subprocess.run([sys.executable, str(ROOT / "proofs" / "gradient_flows.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    status = json.loads(proc.stdout.strip().splitlines()[-1])
    assert status == {"twisted_symmetric_A": "PROVED", "twisted_general_A": "REFUTED",
                      "sinkhorn_bw_d1": "PROVED", "sinkhorn_bw_d2": "UNDECIDED"}
