"""Matrix-form proofs (issue 20): every rewriting rule on random rational matrices in several
dimensions, every proof replayed and guarded in d = 1…6, the false trace identity refuted by
an exact witness, and the matrix-form closures against the engine's derivations for d = 1…4."""
from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import flint
import pytest
import sympy as sp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search.matrix_proofs import library as L
from symbolic_tf.certify.search.matrix_proofs._build import I, S, T, add, ddt, inv, logdet, mul, neg, num, sub, tr
from symbolic_tf.certify.search.matrix_proofs.certificates import identity_certificate, search_witness, witness_certificate
from symbolic_tf.certify.check.matrix_proofs.order import replay_theorem, stored_theorem
from symbolic_tf.certify.check.matrix_proofs.replay import check_witness, guard, replay
from symbolic_tf.certify.check.matrix_proofs.rules import Context, apply_rule
from symbolic_tf.certify.check.matrix_proofs.terms import Decl, evaluate, evaluate_logs, normal, padd, to_term
from symbolic_tf.exact.rational import qmat
from symbolic_tf.spec.errors import CertificationFailed

DIMS = (1, 2, 3, 4, 5)
dd = ["d", "d"]
DECL = Decl.from_data({"matrices": {"A": dd, "B": dd, "S": dd, "P": dd, "X": ["d", "1"], "Y": ["1", "d"]},
                       "scalars": ["c"]})
SYM = ("S", "P")


def _rand(rng, r, c):
    return flint.fmpq_mat(r, c, [flint.fmpq(rng.randint(-4, 4), rng.choice((1, 2, 3))) for _ in range(r * c)])


def _env(rng, n):
    env = {k: _rand(rng, n, n) for k in ("A", "B")}
    for k in SYM:
        L_ = _rand(rng, n, n)
        env[k] = L_ * L_.transpose() + flint.fmpq_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])
    env["X"], env["Y"] = _rand(rng, n, 1), _rand(rng, 1, n)
    env["c"] = flint.fmpq(rng.randint(1, 5), 2)
    return env


def _val(p, env, n):
    return evaluate(p, env, DECL, n)


def _same_value(before, after, n_points=2, seed=0):
    rng = random.Random(seed)
    for n in DIMS:
        for _ in range(n_points):
            env = _env(rng, n)
            try:
                a = _val(before, env, n)
            except ZeroDivisionError:
                continue
            if not after:  # the zero polynomial: no shape of its own
                assert all(a[i, j] == 0 for i in range(a.nrows()) for j in range(a.ncols())), n
            else:
                assert _val(after, env, n) == a, n


# ---- random expressions built from the letters, with inverses, transposes and traces --------
def _rand_term(rng, depth=3):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([S("A"), S("B"), S("S"), S("P"), I, T(S("A")), mul(num(rng.randint(1, 3)), S("B"))])
    op = rng.choice(["+", "*", "*", "T", "inv", "tr"])
    if op in ("+", "*"):
        return [op] + [_rand_term(rng, depth - 1) for _ in range(rng.randint(2, 3))]
    if op == "inv":  # S + P is positive definite, so the inverse exists
        e = inv(add(S("S"), S("P"), mul(_rand_term(rng, depth - 1), num(0))))
        return inv(e) if rng.random() < 0.3 else mul(e, add(S("S"), S("P"))) if rng.random() < 0.3 else e
    if op == "tr":
        return mul(tr(_rand_term(rng, depth - 1)), I)
    return T(_rand_term(rng, depth - 1))


CTX = Context(DECL, symmetric=SYM, equations=[(normal(S("P"), DECL), normal(mul(S("S"), S("S")), DECL))],
              derivatives={"A": {}, "B": {}, "S": normal(S("A"), DECL), "P": {}})


@pytest.mark.parametrize("rule", ["transpose", "symmetric", "cancel", "inverse_inverse", "trace", "trace_transpose"])
def test_argument_free_rules_preserve_the_value(rule):
    """Each rule maps an expression to one with the same value at random rational points,
    d = 1…5 (symmetric letters S, P sampled symmetric positive definite)."""
    rng = random.Random(sum(map(ord, rule)))
    args = {"names": list(SYM)} if rule == "symmetric" else {}
    changed = 0
    for _ in range(25):
        p = normal(_rand_term(rng), DECL)
        q = apply_rule(rule, apply_rule("transpose", p, CTX), CTX, args) if rule != "transpose" else apply_rule(rule, p, CTX)
        changed += q != p
        _same_value(p, q, n_points=1, seed=rng.randint(0, 10**6))
    assert changed > 0


def test_cancel_matches_a_sum_term_by_term():
    M = add(I, mul(num(2), S("A"), S("B")))
    p = normal(mul(S("B"), M, inv(M), S("A")), DECL)  # expanded: B·A + 2·BAB(I + 2AB)⁻¹A … after cancel: BA
    q = apply_rule("cancel", p, CTX)
    assert q == normal(mul(S("B"), S("A")), DECL)
    _same_value(p, q)


def test_push_through_both_directions():
    X, Y = S("A"), mul(num(3), S("B"))
    left = normal(mul(X, inv(add(I, mul(Y, X)))), DECL)
    right = normal(mul(inv(add(I, mul(X, Y))), X), DECL)
    assert apply_rule("push_through", left, CTX, {"X": X, "Y": Y, "direction": "right"}) == right
    assert apply_rule("push_through", right, CTX, {"X": X, "Y": Y, "direction": "left"}) == left
    rng = random.Random(3)
    for n in DIMS:
        env = _env(rng, n)
        try:
            assert _val(left, env, n) == _val(right, env, n)
        except ZeroDivisionError:
            pass


def test_sylvester_rewrites_log_det_and_its_identity_holds_exactly():
    """det(I + XY) = det(I + YX) exactly at random rational points, d = 1…5, for square X, Y and for
    X (d×1), Y (1×d) (then I + YX is 1×1); the rule rewrites log det(I + XY) to log det(I + YX),
    leaves log det(I + YX) alone when asked for I + XY, and the guard's formal log values agree."""
    rng = random.Random(17)
    for X, Y in ((S("A"), mul(num(3), S("B"))), (S("X"), S("Y")), (S("A"), neg(mul(S("S"), S("P"), S("A"))))):
        left = normal(logdet(add(I, mul(X, Y))), DECL)
        right = normal(logdet(add(I, mul(Y, X))), DECL)
        assert apply_rule("sylvester", left, CTX, {"X": X, "Y": Y}) == right
        assert apply_rule("sylvester", right, CTX, {"X": X, "Y": Y}) == right   # not of the form I + XY
        for n in DIMS:
            for _ in range(3):
                env = _env(rng, n)
                xy = evaluate(normal(add(I, mul(X, Y)), DECL), env, DECL, n)
                yx = evaluate(normal(add(I, mul(Y, X)), DECL), env, DECL, n)
                assert xy.det() == yx.det()
                if xy.det() > 0:
                    assert evaluate_logs(left, env, DECL, n) == evaluate_logs(right, env, DECL, n)
    with pytest.raises(CertificationFailed):
        apply_rule("sylvester", left, CTX, {"X": S("A")})


def test_the_semidefinite_determinant_proof_rejects_a_wrong_conclusion():
    """``twisted-semidefinite-determinant`` replays; with the right-hand side I − (RΣR)² replaced by
    I − RΣRΣ (the similarity's product without its R's) it does not."""
    doc = L.proof("twisted-semidefinite-determinant")
    replay(json.loads(json.dumps(doc)))
    bad = copy.deepcopy(doc)
    bad["rhs"] = ["logdet", ["+", ["I"], ["*", ["num", "-1"], ["*", ["sym", "R"], ["sym", "Sigma"], ["sym", "R"],
                                                                 ["sym", "Sigma"]]]]]
    with pytest.raises(CertificationFailed):
        replay(bad)


def test_inverse_product_and_insert_inverse():
    p = normal(inv(mul(S("S"), S("P"))), DECL)
    q = apply_rule("inverse_product", p, CTX, {"factors": [S("S"), S("P")]})
    assert q == normal(mul(inv(S("P")), inv(S("S"))), DECL)
    _same_value(p, q)
    r = apply_rule("insert_inverse", q, CTX, {"M": S("S"), "side": "right"})
    _same_value(q, r)
    with pytest.raises(CertificationFailed):  # the inverse of A does not occur: it may not exist
        apply_rule("insert_inverse", q, CTX, {"M": S("A")})


def test_scalar_transpose_identifies_uv_and_vu():
    p = normal(sub(mul(S("Y"), S("S"), T(S("Y"))), mul(S("Y"), T(S("S")), T(S("Y")))), DECL)
    q = apply_rule("scalar_transpose", p, CTX)
    _same_value(p, q)
    assert q == {}


def test_differentiate_and_substitute():
    ctx = Context(DECL, SYM, [(normal(S("A"), DECL), normal(mul(S("B"), S("B")), DECL))],
                  {"A": normal(S("B"), DECL), "B": {}, "S": normal(mul(S("A"), S("S")), DECL), "P": {}, "c": {}})
    p = normal(ddt(mul(inv(S("S")), tr(mul(S("S"), S("A"))), T(S("S")))), DECL)
    q = apply_rule("differentiate", p, ctx)
    # d/dt(S⁻¹ tr(SA) Sᵀ) with Ṡ = AS, Ȧ = B: the product rule by hand
    Si, Sd = inv(S("S")), mul(S("A"), S("S"))
    hand = add(mul(num(-1), Si, Sd, Si, tr(mul(S("S"), S("A"))), T(S("S"))),
               mul(Si, tr(add(mul(Sd, S("A")), mul(S("S"), S("B")))), T(S("S"))),
               mul(Si, tr(mul(S("S"), S("A"))), T(Sd)))
    assert apply_rule("transpose", q, ctx) == apply_rule("transpose", normal(hand, DECL), ctx)
    r = apply_rule("substitute", normal(mul(S("A"), T(S("A"))), DECL), ctx, {"equation": 0})
    assert r == normal(mul(S("B"), S("B"), T(S("B")), T(S("B"))), DECL)


def test_trace_cyclicity_and_tr_identity():
    p = normal(add(tr(mul(S("A"), S("B"))), mul(num(-1), tr(mul(S("B"), S("A")))), tr(I)), DECL)
    q = apply_rule("trace", p, CTX)
    assert q == normal(["scalar", "d"], DECL)


def test_terms_round_trip():
    rng = random.Random(5)
    for _ in range(40):
        p = normal(_rand_term(rng), DECL)
        assert normal(to_term(p), DECL) == p


# ---- the proofs ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", L.NAMES)
def test_every_proof_replays_and_passes_the_guard(name):
    doc = L.proof(name)
    replay(json.loads(json.dumps(doc)))
    g = guard(doc)
    assert g["points"] == 6 and g["checked_steps"] > 0
    res = check(identity_certificate(doc).to_dict())
    assert res.status == "PROVED" and "for every dimension d ≥ 1" in res.claim_text


def test_a_tampered_step_is_rejected():
    doc = L.proof("trace-identity-symmetric-V")
    bad = copy.deepcopy(doc)
    bad["steps"][2]["result"] = to_term(normal(["I"], Decl.from_data(bad["symbols"])))
    with pytest.raises(CertificationFailed):
        replay(bad)
    bad = copy.deepcopy(doc)
    del bad["steps"][-1]
    with pytest.raises(CertificationFailed, match="do not meet"):
        replay(bad)


def test_the_trace_identity_for_nonsymmetric_V_fails_and_is_refuted():
    """The symmetric proof does not go through without V = Vᵀ; an exact witness refutes it."""
    good = L.proof("trace-identity-symmetric-V")
    stmt = L.trace_identity_statement(False).doc
    wrong = {**stmt, "steps": copy.deepcopy(good["steps"])}
    with pytest.raises(CertificationFailed):
        replay(wrong)
    w = search_witness(stmt, dims=(2,))
    assert w is not None and w["d"] == 2
    res = check_witness(stmt, w)
    assert res["differs"]
    cert = witness_certificate(stmt, w)
    assert check(json.loads(cert.to_json())).status == "REFUTED"
    # a witness of the *symmetric* statement does not exist: V must be symmetric there
    sym_stmt = {k: v for k, v in good.items() if k != "steps"}
    with pytest.raises(CertificationFailed):
        check_witness(sym_stmt, w)


def test_inverse_identity_matches_the_closed_form():
    """d/dt Σ⁻¹ = −(A + Aᵀ) is consistent with Σ(t) = Σ₀(I − t(A + Aᵀ)Σ₀)⁻¹ (exact, d = 2, 3)."""
    t = sp.Symbol("t")
    rng = random.Random(7)
    for d in (2, 3):
        A = sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-3, 3), 2))
        L_ = sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-3, 3), 2))
        S0 = L_ * L_.T + sp.eye(d)
        Sig = S0 * (sp.eye(d) - t * (A + A.T) * S0).inv()
        assert (Sig.inv().diff(t) + (A + A.T)).applyfunc(sp.simplify) == sp.zeros(d, d)


# ---- closures against the engine (per-dimension, SymPy) ---------------------------------------
def _engine_gamma(variant, env, d):
    from symbolic_tf.symbolic import symbols as SS
    from symbolic_tf.symbolic.moments import derive

    system = derive(variant)
    J, c = system.closure.J, system.closure.c
    dims = {SS.d: d, SS.k: d}
    sub_ = {}
    for sym in (J.atoms(sp.MatrixSymbol) | c.atoms(sp.MatrixSymbol)):
        name = sym.name
        if name in env:
            sub_[sym.subs(dims)] = sp.ImmutableMatrix(env[name])
    scal = {SS.tau: 1}
    Jv = sp.Matrix(J.subs(dims).xreplace(sub_).xreplace(scal).doit())
    cv = sp.Matrix(c.subs(dims).xreplace(sub_).xreplace(scal).doit())
    return Jv * sp.Matrix(env["x"]) + cv


def _flint(M):
    M = sp.Matrix(M)
    return flint.fmpq_mat(M.rows, M.cols, [flint.fmpq(int(sp.Rational(e).p), int(sp.Rational(e).q)) for e in M])


@pytest.mark.parametrize("variant,proof_name", [("softmax", "closure-softmax"), ("l2", "closure-l2"),
                                                ("linear", "closure-linear")])
def test_matrix_form_closures_agree_with_the_engine(variant, proof_name):
    doc = L.proof(proof_name)
    decl = Decl.from_data(doc["symbols"])
    rhs = normal(doc["rhs"], decl)
    rng = random.Random(11)
    for d in (1, 2, 3, 4):
        r = lambda rows=d, cols=d: sp.Matrix(rows, cols, lambda i, j: sp.Rational(rng.randint(-3, 3), rng.choice((1, 2))))  # noqa: E731
        Lm = r()
        env = {"A": r(), "V": r(), "x": r(d, 1), "alpha": r(d, 1), "Sigma": Lm * Lm.T + sp.eye(d)}
        if variant == "l2":
            env["Q"], env["K"] = r(), r()
            env["A"] = env["K"].T * env["Q"]
        if variant == "linear":
            env["E2"] = env["Sigma"] + env["alpha"] * env["alpha"].T
        fenv = {k: _flint(v) for k, v in env.items()}
        fenv["tau"] = flint.fmpq(1)
        mine = evaluate(rhs, fenv, decl, d)
        assert _flint(_engine_gamma(variant, env, d)) == mine, (variant, d)


def test_multihead_and_drift_covariances_agree_with_the_engine():
    from symbolic_tf.symbolic import symbols as SS
    from symbolic_tf.symbolic.moments import derive

    rng = random.Random(13)
    for variant, proof_name, kw in (("multihead", "covariance-multihead", {}), ("softmax", "covariance-drift", {"drift": True})):
        doc = L.proof(proof_name)
        decl = Decl.from_data(doc["symbols"])
        rhs = normal(doc["rhs"], decl)
        cov = derive(variant, **kw).cov_rhs
        for d in (1, 2, 3, 4):
            r = lambda: sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-3, 3), 2))  # noqa: E731
            Lm = r()
            env = {n: r() for n in decl.matrices if n != "Sigma"}
            env["Sigma"] = Lm * Lm.T + sp.eye(d)
            for h in (1, 2):
                if f"C_{h}" in env:
                    env[f"C_{h}"] = env[f"W_{h}"] * env[f"V_{h}"]
            dims = {SS.d: d, SS.k: d}
            sub_ = {s.subs(dims): sp.ImmutableMatrix(env[s.name]) for s in cov.atoms(sp.MatrixSymbol) if s.name in env}
            eng = sp.Matrix(cov.subs(dims).xreplace(sub_).xreplace({SS.tau: 1}).doit())
            fenv = {k: _flint(v) for k, v in env.items()}
            assert _flint(eng) == evaluate(rhs, fenv, decl, d), (variant, d)


# ---- operator-inequality theorems --------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(L.THEOREMS))
def test_stored_theorems_are_the_library_theorems_and_replay(name):
    from symbolic_tf.certify.check.matrix_proofs.order import THEOREM_DIR

    stored = json.loads((THEOREM_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert stored == json.loads(json.dumps(L.theorem(name)))
    st, concl = replay_theorem(stored)
    assert 1 <= len(concl) <= 3
    sha, params = stored_theorem(name)
    assert len(sha) == 64 and params["conclusions"]


def test_a_theorem_with_an_overclaimed_fact_is_rejected():
    doc = L.theorem("l2-growth")
    bad = copy.deepcopy(doc)
    bad["facts"][1]["fact"] = "pd"  # congruence only gives ⪰ 0
    with pytest.raises(CertificationFailed):
        replay_theorem(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][7]["args"]["X"] = S("G")  # GGᵀ is not GRRG
    with pytest.raises(CertificationFailed):
        replay_theorem(bad)
    bad = copy.deepcopy(doc)
    bad["hypotheses"]["positive"] = []  # G ≻ 0 is needed
    with pytest.raises(CertificationFailed):
        replay_theorem(bad)


def _twisted_point(rng, n):
    """Exact R = Rᵀ invertible, A = R², Σ ≻ 0 scaled into the domain W = I − (RΣR)² ≻ 0, any N."""
    from symbolic_tf.exact.definiteness import definiteness

    R0 = _rand(rng, n, n)
    R = R0 + R0.transpose() + 5 * _eye(n)
    L_ = _rand(rng, n, n)
    Sg = L_ * L_.transpose() + _eye(n)
    Y = R * Sg * R
    while not definiteness(_eye(n) - Y * Y).pd:
        Sg, Y = Sg / 3, Y / 3
    Sg = Sg * flint.fmpq(rng.choice((1, 2)), 1) if definiteness(_eye(n) - 4 * Y * Y).pd else Sg
    Y = R * Sg * R
    return {"R": R, "A": R * R, "Sigma": Sg, "N": _rand(rng, n, n), "W": _eye(n) - Y * Y}


def _eye(n):
    return flint.fmpq_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])


def test_twisted_convexity_theorem_is_the_second_variation_and_is_non_negative():
    """The replayed conclusion t₁² + 2t₂ − 2t₃ ≥ 0 (in R, Σ, N, W) equals, exactly, the sign term the
    ``twisted-gaussian-nonconvexity`` checker computes from X = I − AᵀΣAΣ (with V = NA, B = I so that
    VA⁻¹B = N), d = 1…4; and it is 4E''/E from differentiating E(s) = ½det(X_s)^{-1/2} (d = 2)."""
    from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data

    st, concl = replay_theorem(L.theorem("twisted-symmetric-convexity"))
    assert [k for k, _ in concl] == ["psd", "psd", "nonneg"]
    rng = random.Random(11)
    for d in (1, 2, 3, 4):
        for _ in range(3):
            env = _twisted_point(rng, d)
            got = evaluate(concl[2][1], env, st.decl, d)
            term, _ = second_variation_sign_data(env["A"], env["N"] * env["A"], env["Sigma"], _eye(d))
            assert got[0, 0] == term and term >= 0, (d, got, term)
    for d in (1, 2, 3):     # 4E''/E from D(s) = det(X_s), E = ½D^{-1/2}: 4E''/E = 3(D'/D)² − 2D''/D
        env = _twisted_point(rng, d)
        s = sp.Symbol("s")
        M = {k: sp.Matrix(d, d, [sp.Rational(int(x.p), int(x.q)) for x in v.entries()]) for k, v in env.items()}
        P = sp.eye(d) + s * M["N"]
        Ss = P * M["Sigma"] * P.T
        D = sp.expand((sp.eye(d) - M["A"].T * Ss * M["A"] * Ss).det())
        D0, D1, D2 = (sp.diff(D, s, k).subs(s, 0) for k in range(3))
        got = evaluate(concl[2][1], env, st.decl, d)[0, 0]
        assert 3 * (D1 / D0) ** 2 - 2 * D2 / D0 == sp.Rational(int(got.p), int(got.q)), d


def test_identity_nsd_theorem_inverts_the_closed_form_and_decides_the_catalogue_claim():
    """V = I, A + Aᵀ = −GGᵀ ⪯ 0, Σ₀ = HHᵀ ⪰ 0 (singular H included), t = τ² ≥ 0: exactly,
    M = I + FᵀΣ₀F ≻ 0 (F = τG) and I − FM⁻¹FᵀΣ₀ inverts I − t(A + Aᵀ)Σ₀, so the closed form
    Σ(t) = Σ₀(I − t(A + Aᵀ)Σ₀)⁻¹ exists and solves the ODE (checked against its derivative); the
    catalogue's claim is PROVED by the stored theorem."""
    from symbolic_tf.conjectures.catalogue import catalogue
    from symbolic_tf.exact.definiteness import definiteness

    rng = random.Random(23)
    for d in (1, 2, 3, 4):
        for _ in range(3):
            G, H = _rand(rng, d, d), _rand(rng, d, d)
            H[0, 0], H[d - 1, 0] = 0, 0          # often singular
            Sg, Ssym = H * H.transpose(), -(G * G.transpose())
            tau = flint.fmpq(rng.randint(0, 9), rng.choice((1, 2, 3)))
            F = G * tau
            Id = flint.fmpq_mat(d, d, [1 if i == j else 0 for i in range(d) for j in range(d)])
            M = Id + F.transpose() * Sg * F
            assert definiteness(M).pd
            inv_ = Id - F * M.inv() * F.transpose() * Sg
            assert (Id - Ssym * Sg * tau * tau) * inv_ == Id
    s = sp.Symbol("s", nonnegative=True)
    G, H = sp.Matrix([[1, 2], [0, 1]]), sp.Matrix([[1, 0], [3, 0]])   # Σ₀ of rank one
    Ssym, S0 = -(G * G.T), H * H.T
    A = Ssym / 2 + sp.Matrix([[0, 5], [-5, 0]])                         # A + Aᵀ = Ssym
    Sig = S0 * (sp.eye(2) - s * Ssym * S0).inv()
    assert sp.simplify(sp.diff(Sig, s) - (Sig * A * Sig + Sig * A.T * Sig)) == sp.zeros(2, 2)
    (conj,) = [c for c in catalogue() if c.name == "identity-nsd-global"]
    ver = conj.decide()
    assert ver.status == "PROVED" and ver.evidence["theorem"] == "identity-nsd-global"
    assert ver.evidence["theorem_sha256"] == stored_theorem("identity-nsd-global")[0]


def test_scalar_facts_are_checked():
    """Scalar (trace) facts: a wrong weight in the final sum, a premise that is not a matrix fact, a
    square of a matrix, the commuting rule with the wrong identity, and a scalar fact claimed ≻ 0
    are rejected."""
    doc = L.theorem("twisted-symmetric-convexity")
    replay_theorem(doc)
    cases = []
    bad = copy.deepcopy(doc)
    bad["facts"][16]["args"]["weights"][2] = "2"          # 4tr(W⁻¹Y'Y') is needed, not 2
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][16]["args"]["weights"][0] = "-1"         # weights must be positive
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][12]["from"] = [6, 9]                     # a scalar fact is no matrix premise
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][15]["args"]["X"] = S("W")                # W² is a matrix, not a scalar square
    bad["facts"][15]["expr"] = mul(S("W"), S("W"))
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][7]["args"]["identity"] = 0               # the similarity is not W⁻¹Y = YW⁻¹
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][16]["fact"] = "pd"                       # a scalar is not a matrix fact
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["facts"][7]["from"] = [6, 4]                      # W⁻¹Y'' is not W⁻¹Y
    cases.append(bad)
    bad = copy.deepcopy(doc)
    bad["hypotheses"]["positive"] = ["Sigma"]             # W ≻ 0 (the domain) is needed
    cases.append(bad)
    for i, b in enumerate(cases):
        with pytest.raises(CertificationFailed):
            replay_theorem(b)
            pytest.fail(f"case {i} replayed")


def test_l2_theorem_numerically_sharp():
    """0 ⪯ Σ(I + 2GΣ)⁻¹ ≺ (2G)⁻¹ at random rational G ≻ 0, singular Σ ⪰ 0 included (exact)."""
    from symbolic_tf.exact.definiteness import definiteness

    rng = random.Random(17)
    for d in DIMS:
        Lg = _rand(rng, d, d)
        G = Lg * Lg.transpose() + flint.fmpq_mat(d, d, [flint.fmpq(1, 3) if i == j else 0 for i in range(d) for j in range(d)])
        Ls = _rand(rng, d, max(1, d - 1))  # rank ≤ d − 1: singular when d > 1
        Sg = Ls * Ls.transpose()
        Id = flint.fmpq_mat(d, d, [1 if i == j else 0 for i in range(d) for j in range(d)])
        N = Sg * (Id + 2 * G * Sg).inv()
        assert N == N.transpose()
        assert definiteness(N).psd and definiteness((2 * G).inv() - N).pd


# ---- Sinkhorn as a Bures–Wasserstein gradient flow ----------------------------------------------
def test_sinkhorn_gradient_flow_fails_without_symmetry_or_V_equal_A():
    """Exact points of both marginal equations where JΣ + ΣJᵀ ≠ ½((P+R)Σ + Σ(P+R))."""
    for sym_a, v_a in ((False, True), (True, False)):
        stmt = L.sinkhorn_gradient_statement(sym_a, v_a)
        w = L.sinkhorn_gradient_witness(sym_a, v_a)
        assert check_witness(stmt, w)["differs"]
        assert check(witness_certificate(stmt, w).to_dict()).status == "REFUTED"
    # the proved case: the same construction with a symmetric contraction and V = A agrees
    stmt = L.sinkhorn_gradient_statement(True, True)
    w = L.sinkhorn_gradient_witness(True, True)
    assert not check_witness(stmt, w)["differs"]


def test_sinkhorn_entropic_value_closed_form_d1():
    """d = 1: F(s) = ½(q − 1) − ½log((1 + q)/2), q = √(1 + 4a²s²), is the maximum over the
    correlation k of a·s·k + ½log(1 − k²); F'(s) = P = R (the coupling's precision shift), and the
    Sinkhorn velocity with v = a is ṡ = 2·(2·½F'(s))·s: the gradient flow of ½F (exact, SymPy)."""
    from symbolic_tf.symbolic._sinkhorn import coupling_1d

    cp = coupling_1d()
    s, a = cp["s"], cp["a"]
    q = sp.sqrt(1 + 4 * a**2 * s**2)
    F = (q - 1) / 2 - sp.log((1 + q) / 2) / 2
    k = sp.Symbol("k")
    phi = a * s * k + sp.log(1 - k**2) / 2
    kstar = 2 * a * s / (1 + q)
    assert sp.simplify(sp.diff(phi, k).subs(k, kstar)) == 0
    # φ(k*) = F: the linear parts agree and (1 − k*²)(1 + q)/2 = 1 (so the logarithms agree)
    assert sp.simplify(a * s * kstar - (q - 1) / 2) == 0
    assert sp.simplify((1 - kstar**2) * (1 + q) / 2 - 1) == 0
    assert sp.simplify(sp.diff(F, s) - cp["P"]) == 0 and sp.simplify(cp["P"] - cp["R"]) == 0
    sdot_sinkhorn = 2 * (a * cp["gain"]) * s          # J = v·gain with v = a, ṡ = 2Js
    sdot_gradient = 2 * 2 * (sp.diff(F, s) / 2) * s    # Σ̇ = 2(∇G Σ + Σ∇G) for G = ½F
    assert sp.simplify(sdot_sinkhorn - sdot_gradient) == 0


def test_sinkhorn_value_gradient_numerically_d2():
    """d = 2, A symmetric: the closed form F(Σ) = ½tr(Q − I) − ½log det((I + Q)/2),
    Q = (I + 4ΣAΣA)^{1/2}, has ∂F/∂Σ = ½(P + R) (central differences, 30 digits)."""
    import mpmath

    from symbolic_tf.symbolic._sinkhorn import coupling_fixed_point

    mpmath.mp.dps = 30
    A = mpmath.matrix([[mpmath.mpf(1) / 2, mpmath.mpf(1) / 3], [mpmath.mpf(1) / 3, -mpmath.mpf(1) / 4]])
    Sg = mpmath.matrix([[1, mpmath.mpf(1) / 5], [mpmath.mpf(1) / 5, mpmath.mpf(3) / 4]])

    def F(X):
        Q = mpmath.sqrtm(mpmath.eye(2) + 4 * X * A * X * A)
        return (sum(Q[i, i] for i in range(2)) - 2) / 2 - mpmath.log(mpmath.det((mpmath.eye(2) + Q) / 2)) / 2

    cf = coupling_fixed_point([[float(x) for x in row] for row in Sg.tolist()], A.tolist(), dps=30, tol=1e-28)
    grad = (cf.P + cf.R) / 2
    h = mpmath.mpf(10) ** -10
    for i, j in ((0, 0), (1, 1), (0, 1)):
        E = mpmath.zeros(2, 2)
        E[i, j] = 1
        E[j, i] = 1
        fd = (F(Sg + h * E) - F(Sg - h * E)) / (2 * h)
        exact = sum(grad[r, c] * E[r, c] for r in range(2) for c in range(2))
        assert abs(fd - exact) < 1e-12


# ---- hostile or ill-formed proofs ---------------------------------------------------------------
def test_ill_typed_statements_are_rejected():
    from symbolic_tf.certify.check.matrix_proofs.replay import parse_statement

    base = {"name": "x", "symbols": {"matrices": {"x": ["d", "1"], "A": ["d", "d"]}, "scalars": []},
            "hypotheses": {}, "steps": []}
    for lhs, rhs in ((mul(S("x"), S("x")), S("x")),          # (d×1)(d×1)
                     (S("x"), S("A")),                        # sides of different shapes
                     (inv(S("x")), inv(S("x"))),              # inverse of a non-square matrix
                     (add(S("x"), I), S("x"))):               # I added to a d×1 matrix
        with pytest.raises(CertificationFailed):
            parse_statement({**base, "lhs": lhs, "rhs": rhs})


def test_trace_of_a_one_by_one_identity_is_one():
    decl = Decl.from_data({"matrices": {"x": ["d", "1"], "y": ["d", "1"]}, "scalars": []})
    ctx = Context(decl)
    p = normal(tr(add(mul(T(S("y")), S("x")), I)), decl)  # tr(yᵀx + 1) = yᵀx + 1, not yᵀx + d
    q = apply_rule("trace", p, ctx)
    assert q == padd(apply_rule("trace", normal(tr(mul(T(S("y")), S("x"))), decl), ctx), normal(I, decl))


def test_exponential_expansion_is_refused_quickly():
    import time

    big = add(*[S("A"), S("B"), S("S"), S("P"), I, T(S("A")), T(S("B")), num(3)])
    t0 = time.process_time()  # CPU time: a guard against an exponential expansion, not a performance test
    with pytest.raises(CertificationFailed):
        normal(["*"] + [big] * 30, DECL)
    assert time.process_time() - t0 < 20


def test_insert_inverse_checks_sizes():
    decl = Decl.from_data({"matrices": {"x": ["d", "1"], "M": ["d", "d"]}, "scalars": []})
    ctx = Context(decl)
    p = normal(mul(T(S("x")), inv(S("M")), S("x")), decl)  # 1×1
    with pytest.raises(CertificationFailed):
        apply_rule("insert_inverse", p, ctx, {"M": S("M"), "side": "left"})


def test_proof_script_writes_certificates_that_check(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, str(root / "proofs" / "matrix_form.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert sum(v["status"] == "REFUTED" for v in summary.values()) == 3
    for p in tmp_path.glob("*.json"):
        res = check(json.loads(p.read_text(encoding="utf-8")))
        assert res.status == summary[p.stem]["status"]


# ---- the growth theorems against an independent method (numerical integration) ----------------
def _random_problem(rng, variant, d):
    from symbolic_tf.spec.problem import parse_problem

    def m(den=2):
        return [[f"{rng.randint(-3, 3)}/{den}" for _ in range(d)] for _ in range(d)]
    L_ = sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-2, 2), 2))
    S0 = L_ * L_.T + sp.eye(d) / 2
    doc = {"variant": variant, "d": d, "V": m(), "initial": {"cov": [[str(x) for x in S0.row(i)] for i in range(d)]}}
    if variant == "l2":
        K = sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-2, 2), 2)) + 2 * sp.eye(d)
        doc["K"] = [[str(x) for x in K.row(i)] for i in range(d)]
        doc["Q"] = m()
    else:
        doc["A"] = m()
    return parse_problem(doc)


@pytest.mark.parametrize("variant", ["l2", "sinkhorn"])
def test_uniform_growth_verdict_and_the_bound_along_integrated_solutions(variant):
    """classify --uniform proves GLOBAL_EXISTENCE for every Σ₀ ⪰ 0 by the growth theorem, d = 1…3,
    and an accurate integration stays below ‖Σ₀‖₂e^{γt} (two independent methods)."""
    import numpy as np

    from symbolic_tf.numeric.codegen import compile_system, numeric_env
    from symbolic_tf.numeric.integrate import integrate
    from symbolic_tf.regimes.classify import classify
    from symbolic_tf.symbolic.moments import derive_for_problem

    rng = random.Random(31 if variant == "l2" else 37)
    for d in (1, 2, 3):
        problem = _random_problem(rng, variant, d)
        if variant == "l2" and qmat(problem.K).det() == 0:
            continue
        c = classify(problem, uniform=True, evidence=False)
        assert c.status == "PROVED" and c.regime == "GLOBAL_EXISTENCE" and c.route == "growth-theorem", (d, c)
        gamma = float(Fraction(c.certificate["data"]["gamma"]))
        system = derive_for_problem(problem)
        S0 = np.array([[float(x) for x in r] for r in problem.cov])
        ts = np.linspace(0, 1.5, 7)
        sol = integrate(compile_system(system), np.zeros(d), S0, numeric_env(problem, system), 1.5, t_eval=ts,
                        blowup_norm=1e30)
        n0 = np.linalg.norm(S0, 2)
        for k, t in enumerate(ts):
            assert np.linalg.norm(sol.Sigma[0, k], 2) <= n0 * np.exp(gamma * t) * (1 + 1e-8) + 1e-12


@pytest.mark.heavy
def test_identity_blowup_and_drift_closed_forms_cross_checked_in_sympy():
    """Issue 50 item 5, cross-checked independently of the proofs: (a) V = I, Σ₀ ≻ 0: det of
    I − t(A + Aᵀ)Σ₀ first vanishes at 1/λ_max(Σ₀^{1/2}(A + Aᵀ)Σ₀^{1/2}) (the roots of the characteristic
    polynomial of (A + Aᵀ)Σ₀, similar to K); (b) the drift closed form eΣ₀(I − cRΣ₀)⁻¹ solves
    Σ̇ = FΣ + ΣFᵀ + vΣ(A + Aᵀ)Σ (F = fI) symbolically in t, its determinant first vanishes at
    ln(1 + f/ρ)/(2f), and with R ≺ 0, f > 0 it tends to −2fR⁻¹."""
    t = sp.Symbol("t", positive=True)
    A, S0 = sp.Matrix([[1, 2], [0, -1]]), sp.Matrix([[2, 1], [1, 1]])
    Sy = A + A.T
    lam = max((Sy * S0).eigenvals())                         # (A + Aᵀ)Σ₀ is similar to Σ₀^{1/2}(A + Aᵀ)Σ₀^{1/2}
    roots = [r for r in sp.solve(sp.det(sp.eye(2) - t * Sy * S0), t) if r.is_positive]
    assert sp.simplify(min(roots) - 1 / lam) == 0
    v, f = sp.Rational(1, 2), sp.Rational(3, 4)
    R = v * Sy
    e, c = sp.exp(2 * f * t), (sp.exp(2 * f * t) - 1) / (2 * f)
    Sig = e * S0 * (sp.eye(2) - c * R * S0).inv()
    rhs = 2 * f * Sig + v * (Sig * A * Sig + Sig * A.T * Sig)
    assert all(sp.simplify(x) == 0 for x in sp.diff(Sig, t) - rhs)
    rho = max((R * S0).eigenvals()) / 2
    Tstar = sp.log(1 + f / rho) / (2 * f)
    assert abs(sp.N(sp.det(sp.eye(2) - c.subs(t, Tstar) * R * S0), 30)) < 1e-25
    Rn = -sp.Matrix([[2, 1], [1, 3]])                                            # R ≺ 0
    Sn = e * S0 * (sp.eye(2) - c * Rn * S0).inv()
    assert sp.simplify(sp.limit(Sn[0, 0], t, sp.oo) - (-2 * f * Rn.inv())[0, 0]) == 0


def test_identity_blowup_and_drift_claims_are_proved_by_the_stored_theorems():
    """The catalogue's identity-blowup, drift-opposite-sign and drift-blowup-time: PROVED for every d, the
    replayed proofs' certificates re-checked, the stored theorems' hashes recorded."""
    from symbolic_tf.certify.check import check
    from symbolic_tf.conjectures.catalogue import catalogue

    for name, theorem in (("identity-blowup", "identity-blowup-before"), ("drift-opposite-sign", "identity-nsd-global"),
                          ("drift-blowup-time", "identity-blowup-before")):
        (conj,) = [cj for cj in catalogue() if cj.name == name]
        ver = conj.decide()
        assert ver.status == "PROVED" and ver.evidence["evidence_kind"] == "proof for every d"
        assert ver.evidence["theorem_sha256"] == stored_theorem(theorem)[0]
        assert all(check(c).status == "PROVED" for c in ver.evidence["certificates"])
