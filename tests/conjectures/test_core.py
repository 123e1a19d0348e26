"""The conjecture runner: planted false claims are refuted with certificates that check,
planted true ones are never refuted, counterexamples shrink, symbolic identities decide."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.cli import main
from symbolic_tf.conjectures import strategies as S
from symbolic_tf.conjectures.catalogue import _identity, conjecture_from_toml, run_catalogue
from symbolic_tf.conjectures.core import RegimeConjecture, verify
from symbolic_tf.conjectures._identities import trace_identity_nonsymmetric, trace_identity_symmetric
from symbolic_tf.spec.errors import InvalidParameters


def test_planted_false_is_refuted_with_a_small_certified_counterexample():
    conj = RegimeConjecture("planted-false", "every softmax flow with V = I stays bounded", "test",
                            S.problems(d=S.dims(1, 3), value=_identity), "no_blowup")
    rep = verify(conj, examples=40, seed=0)
    assert rep.verdict == "REFUTED"
    assert check(rep.certificate).ok
    p = rep.counterexample["problem"]
    assert p["d"] == 1  # shrunk to the smallest dimension
    assert all(Fraction(x).denominator <= 2 for row in p["A"] for x in row)


def test_planted_true_is_never_refuted():
    conj = RegimeConjecture("planted-true", "V = I and A + Aᵀ ⪯ 0 ⇒ no blow-up", "test",
                            S.problems(d=S.dims(1, 3), value=_identity, attention=S.a_with_nsd_sym, cov=S.psd),
                            "no_blowup")
    rep = verify(conj, examples=40, seed=0)
    assert rep.verdict == "NO_COUNTEREXAMPLE" and rep.examples >= 30
    assert sum(rep.tried["dimensions"].values()) == rep.examples


def test_seed_statement_is_false_at_the_boundary():
    """VA + AᵀVᵀ ⪯ 0 ⇒ rank-deficient limit fails when VA + AᵀVᵀ = 0 (Σ stays Σ₀)."""
    conj = RegimeConjecture("seed", "VA + AᵀVᵀ ⪯ 0 ⇒ global and rank-deficient limit", "seed",
                            S.problems(d=S.dims(1, 2), value_attention=S.v_a_with_nsd), "global_rank_deficient")
    rep = verify(conj, examples=30, seed=0)
    assert rep.verdict == "REFUTED" and rep.counterexample["regime"] == "EQUILIBRIUM"
    assert check(rep.certificate).ok


def test_identities():
    assert trace_identity_symmetric(dims=(2,)).status == "PROVED"
    v = trace_identity_nonsymmetric()
    assert v.status == "REFUTED"
    import sympy as sp

    V, A, Sg = (sp.Matrix(sp.sympify(v.evidence[k])) for k in ("V", "A", "Sigma"))
    cov = V * Sg * A * Sg + Sg * A.T * Sg * V.T
    assert (V.inv() * cov).trace() - (Sg * (A + A.T) * Sg).trace() == sp.sympify(v.evidence["gap"]) != 0


def test_catalogue_smoke():
    reps = run_catalogue(examples=5, only={"sinkhorn-mean", "invariance-sigmoid", "drift-opposite-sign"})
    by = {r.name: r.verdict for r in reps}
    assert by == {"invariance-sigmoid": "REFUTED", "sinkhorn-mean": "PROVED", "drift-opposite-sign": "PROVED"}


def test_no_catalogue_claim_is_left_at_no_counterexample():
    """Issue 50 item 5: every claim of the catalogue is decided (a proof or a certified counterexample);
    the ids name what is proved (identity-nsd-global, not '…clustering')."""
    from symbolic_tf.conjectures.catalogue import catalogue

    names = [c.name for c in catalogue()]
    assert "identity-nsd-clustering" not in names and "identity-nsd-global" in names
    regime = [c for c in catalogue() if c.kind == "regime"]
    # the remaining regime claims are refuted by their explicit certified candidates, tried first
    assert all(c.explicit for c in regime), [c.name for c in regime if not c.explicit]


def test_twisted_gaussian_entry_records_the_partial_result():
    """Refuted as stated (A + Aᵀ indefinite, certified witness); the evidence records the proof for every d
    when A = Aᵀ is definite (a twisted-gaussian-convexity certificate), the witness families otherwise, and
    the fixed-pair proof for A = aI + bJ, V = vI (a twisted-rotation-scaling-convexity certificate)."""
    from symbolic_tf.certify.check import check

    (r,) = run_catalogue(only={"twisted-convexity-gaussians"})
    assert r.verdict == "REFUTED" and r.evidence_kind == "certified counterexample"
    assert check(r.evidence["certificate"]).kind == "twisted-gaussian-nonconvexity"
    part = {p["evidence_kind"]: p for p in r.evidence["partial"] if not p["case"].startswith("A singular")}
    assert set(part) == {"proof for every d", "certified counterexample", "proof for fixed d"}
    pair = check(part["proof for fixed d"]["certificate"])   # A = I + J, V = I: convex (b² ≤ 3a²)
    assert pair.kind == "twisted-rotation-scaling-convexity" and pair.status == "PROVED"
    singular = [p for p in r.evidence["partial"] if p["case"].startswith("A singular")]
    assert [check(p["certificate"]).kind for p in singular] == ["twisted-gaussian-convexity", "gaussian-curve-nonconvexity"]
    proof = part["proof for every d"]
    res = check(proof["certificate"])
    assert res.kind == "twisted-gaussian-convexity" and res.status == "PROVED"
    assert proof["theorem"] == "twisted-symmetric-convexity" == proof["certificate"]["data"]["theorem"]
    assert "proof for every d for A = Aᵀ definite" in r.reason


@pytest.mark.parametrize("doc,field", [
    ({"name": "x", "bogus": 1}, "bogus"),
    ({"hypothesis": {"value": "weird"}}, "hypothesis.value"),
    ({"hypothesis": {"max_d": 0}}, "hypothesis.max_d"),
    ({"conclusion": {"regime": "fly"}}, "conclusion.regime"),
    ({"hypothesis": {"variant": "nope"}}, "variant"),
])
def test_bad_conjecture_files(doc, field):
    with pytest.raises(InvalidParameters) as exc:
        conjecture_from_toml(doc)
    assert field in str(exc.value)


def test_cli_verify_file(tmp_path, capsys):
    f = tmp_path / "c.toml"
    f.write_text('name = "b"\n[hypothesis]\nvalue = "identity"\nmax_d = 2\n[conclusion]\nregime = "no_blowup"\n')
    cert = tmp_path / "cx.json"
    code = main(["verify", str(f), "--examples", "20", "--json", "--quiet", "--cert", str(cert)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["verdict"] == "REFUTED"
    assert main(["check", str(cert)]) == 0
    f.write_text('[conclusion]\nregime = "fly"\n')
    assert main(["verify", str(f)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_seed_claim_is_refuted_strictly_by_a_certified_blowup():
    """The seed statement "VA + AᵀVᵀ ⪯ 0 ⇒ rank-deficient limit" fails even with VA + AᵀVᵀ ≺ 0 and
    Σ₀ ≻ 0: the catalogue's counterexample is a certified BLOWUP with a bracket, not a degenerate
    (A = 0 or V = 0) case."""
    from symbolic_tf.conjectures.catalogue import catalogue
    from symbolic_tf.exact.definiteness import definiteness
    from symbolic_tf.exact.rational import qmat

    conj = next(c for c in catalogue() if c.name == "seed-nsd-rank-deficient")
    assert conj.nondegenerate
    rep = verify(conj, examples=1, seed=0)
    assert rep.verdict == "REFUTED", rep.reason
    res = check(rep.certificate)
    assert res.ok and res.claim.subject == "BLOWUP"
    T_lo, T_hi = Fraction(rep.counterexample["T_lo"]), Fraction(rep.counterexample["T_hi"])
    assert 0 < T_lo <= T_hi
    p = rep.counterexample["problem"]
    A, V, S0 = qmat(p["A"]), qmat(p["V"]), qmat(p["initial"]["cov"])
    assert any(x != 0 for x in A.entries()) and any(x != 0 for x in V.entries())
    assert definiteness(-(V * A + A.transpose() * V.transpose())).pd   # strict: VA + AᵀVᵀ ≺ 0
    assert definiteness(S0).pd


def test_degenerate_draws_are_not_counterexamples():
    """A planted claim whose only counterexamples have A = 0 (Σ stays Σ₀, no blow-up) is refuted
    without the guard and not refuted with it."""
    from hypothesis import strategies as st

    from symbolic_tf.conjectures.core import degenerate
    from symbolic_tf.spec.problem import parse_problem

    def attention(d):
        return st.sampled_from([[[Fraction(0)] * d for _ in range(d)],
                                [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]])

    strat = S.problems(d=st.just(1), value=_identity, attention=attention)
    plain = RegimeConjecture("planted", "V = I, A ∈ {0, I} ⇒ blow-up", "test", strat, "blowup")
    guarded = RegimeConjecture("planted", "V = I, A ∈ {0, I} ⇒ blow-up", "test", strat, "blowup", nondegenerate=True)
    r1 = verify(plain, examples=20, seed=0)
    assert r1.verdict == "REFUTED" and degenerate(parse_problem(r1.counterexample["problem"]))
    r2 = verify(guarded, examples=20, seed=0)
    assert r2.verdict == "NO_COUNTEREXAMPLE"


def test_sinkhorn_gradient_flow_one_engine_one_answer():
    """`symtf gradient-flow sinkhorn --metric bures-wasserstein` and the catalogue's
    `sinkhorn-gradient-velocity` entry decide the same statement by the same matrix-form proofs:
    both PROVED for every d (the command said UNDECIDED, "numerical evidence only", in d = 3)."""
    from symbolic_tf.certify.check import check
    from symbolic_tf.conjectures.catalogue import catalogue
    from symbolic_tf.conjectures.theorems import SINKHORN_BW_PROOFS, gradient_flow

    entry = next(c for c in catalogue() if c.name == "sinkhorn-gradient-velocity")
    cat = entry.decide()
    assert gradient_flow("sinkhorn", "bures-wasserstein", 1, symmetric=True).status == "PROVED"  # exact in d = 1
    cmd = gradient_flow("sinkhorn", "bures-wasserstein", 3, symmetric=True)
    assert cmd.status == cat.status == "PROVED", (cmd.reason, cat.reason)
    assert cmd.evidence["proofs"] == cat.evidence["proofs"] == list(SINKHORN_BW_PROOFS)
    assert all(check(c).ok for c in cmd.evidence["certificates"])
    assert "numerical cross-check agrees" in cmd.reason
