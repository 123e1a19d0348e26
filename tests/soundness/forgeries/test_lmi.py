"""Forgeries of the trace-functional LMI kinds ``bounded-lmi`` and ``blowup-lmi``: one per
hypothesis of their argument (kinds/bounded_lmi.py, kinds/blowup_lmi.py, check/lmi.py), each consistent in
every other field, plus the regression of the hole found by review (a bracket with T_lo alone on Σ₀ = 0)."""
from __future__ import annotations

import numpy as np
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check.claims import Claim, Quantifier
from symbolic_tf.spec.problem import parse_problem

from ..oracle import closed_form_Tstar, rhs_for
from .forge import accepts, forge, rejects

I2 = [["1", "0"], ["0", "1"]]
S0 = [["1", "1/4"], ["1/4", "1/2"]]
BLOWUP_DOC = {"variant": "softmax", "d": 2, "A": I2, "V": [["1", "1/10"], ["0", "1"]], "initial": {"cov": S0}}


@pytest.fixture(scope="module")
def blowup():
    """A genuine bracketed blow-up LMI certificate found by the library's search."""
    from symbolic_tf.certify.search._lmi import find_blowup_certificate

    c = find_blowup_certificate(parse_problem(BLOWUP_DOC)).evidence["certificate"]
    assert {"T_lo", "T_hi"} <= set(c["data"])
    accepts(c)
    return c


@pytest.fixture(scope="module")
def bounded():
    """A genuine bounded LMI certificate: V = I, A = −I, P = I (q_P = −2 tr(Σ²) ⪯ 0)."""
    p = parse_problem({"variant": "softmax", "d": 2, "A": [["-1", "0"], ["0", "-1"]], "V": I2, "initial": {"cov": S0}})
    c = Certificate.for_problem(p, "bounded-lmi", Claim("BOUNDED", Quantifier.EVERY_PSD, {}), "PROVED",
                                {"P": I2}).to_dict()
    accepts(c)
    return c


def test_lmi_refuses_a_drift(bounded, blowup):
    for c in (bounded, blowup):
        prob = {**c["problem"], "F": [["1", "0"], ["0", "1"]]}
        rejects(forge(c, problem=prob), r"drift F ≠ 0")


def test_lmi_P_not_positive_definite(bounded):
    rejects(forge(bounded, data={"P": [["1", "0"], ["0", "-1"]]}), r"P is not positive definite")


def test_bounded_lmi_Q_not_nsd(bounded):
    """V = A = I with P = I: q_P = 2 tr(Σ²) > 0; the flow blows up at T* = 1/(2λ_max(Σ₀))."""
    prob = {**bounded["problem"], "A": I2}
    p = parse_problem(prob)
    assert closed_form_Tstar(p) == pytest.approx(1 / (2 * max(np.linalg.eigvalsh([[1, .25], [.25, .5]]))))
    rejects(forge(bounded, problem=prob), r"Q_P is not negative semidefinite")


def test_blowup_lmi_c_not_positive(blowup):
    rejects(forge(blowup, data={"c": "0"}), r"c must be positive")


def test_blowup_lmi_schur_fails(blowup):
    """c ten times larger: T_hi recomputed consistently from it, the Schur condition fails."""
    rejects(forge(blowup, data={"c": "15"}), r"Q_P − c·ppᵀ is not positive semidefinite")


def test_blowup_lmi_T_hi_too_small(blowup):
    lo = blowup["data"]["T_lo"]
    rejects(forge(blowup, data={"T_hi": lo}, params={"T_lo": lo, "T_hi": lo}), r"T_hi = .* is below 1/\(c·tr\(PΣ₀\)\)")


def test_blowup_lmi_norm_bound_too_small(blowup):
    rejects(forge(blowup, data={"u_Sigma": "1/2"}), r"u_Sigma = .* not an upper bound of the Frobenius norm")


def test_blowup_lmi_T_lo_too_large(blowup):
    hi = blowup["data"]["T_hi"]
    rejects(forge(blowup, data={"T_lo": hi}, params={"T_lo": hi, "T_hi": hi}), r"T_lo = .* exceeds the norm bound")


def test_blowup_lmi_T_lo_alone_on_sigma0_zero():
    """The reviewed hole: V = A = I, Σ₀ = 0, P = I, c = 1, T_lo = 1 (u_Σ = 0, so the norm bound
    allows any T_lo), no T_hi.  The file says "for this Σ₀: Σ(t) blows up"; Σ ≡ 0 is an
    equilibrium (the right-hand side vanishes at 0, so by uniqueness Σ(t) = 0 for all t)."""
    doc = {"variant": "softmax", "d": 2, "A": I2, "V": I2, "initial": {"cov": [["0", "0"], ["0", "0"]]}}
    p = parse_problem(doc)
    assert np.all(rhs_for(p).f(np.zeros((2, 2))) == 0)   # independent right-hand side: 0 is an equilibrium
    data = {"P": I2, "c": "1", "T_lo": "1", "u_V": ["3/2"], "u_A": ["3/2"], "u_Sigma": "0"}
    c = Certificate.for_problem(p, "blowup-lmi", Claim("BLOWUP", Quantifier.THIS, {"T_lo": "1"}), "PROVED", data).to_dict()
    rejects(c, r"tr\(PΣ₀\) = 0 is not positive")
    # and the same data with Σ₀ ≠ 0 are genuine: the check is on Σ₀, not on the shape of the data
    doc2 = {**doc, "initial": {"cov": S0}}
    accepts(forge(c, problem=doc2, data={"u_Sigma": "6/5", "T_lo": "5/27"}, params={"T_lo": "5/27"}))


def test_forged_certificate_is_refused_by_the_cli(tmp_path):
    """`symtf check` on the Σ₀ = 0 forgery: exit 1 and one `REJECTED:` line naming the hypothesis."""
    import json
    import subprocess
    import sys

    p = parse_problem({"variant": "softmax", "d": 2, "A": I2, "V": I2, "initial": {"cov": [["0", "0"], ["0", "0"]]}})
    data = {"P": I2, "c": "1", "T_lo": "1", "u_V": ["3/2"], "u_A": ["3/2"], "u_Sigma": "0"}
    c = Certificate.for_problem(p, "blowup-lmi", Claim("BLOWUP", Quantifier.THIS, {"T_lo": "1"}), "PROVED", data).to_dict()
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(c), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "check", str(path)], capture_output=True, text=True)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert lines[0].startswith("REJECTED:") and "tr(PΣ₀) = 0 is not positive" in lines[0]
