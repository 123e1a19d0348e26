"""Twisted geodesic convexity of the softmax energy on Gaussians (issue 20, item 4)."""
from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest
import sympy as sp

from symbolic_tf.certify.check import check
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.exact.definiteness import definiteness
from symbolic_tf.exact.rational import qmat
from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import second_variation_sign_data
from symbolic_tf.certify.search.twisted_gaussian import rank_one_second_variation, twisted_gaussian_witness


def _energy_along(A, V, S, B):
    s = sp.Symbol("s")
    N = V * A.inv() * B
    P = sp.eye(A.rows) + s * N
    Ss = P * S * P.T
    return s, sp.Rational(1, 2) / sp.sqrt((sp.eye(A.rows) - A.T * Ss * A * Ss).det())


def _rand(rng, d, den=2):
    return sp.Matrix(d, d, lambda i, j: sp.Rational(rng.randint(-3, 3), den))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_exact_sign_term_is_4E_over_E(d):
    """E''(0)/E(0) = ¼(t₁² + 2t₂ − 2t₃), exactly, against SymPy's derivative of the determinant formula."""
    rng = random.Random(d)
    done = 0
    while done < 3:
        A, V, L_, B0 = (_rand(rng, d) for _ in range(4))
        if A.det() == 0:
            continue
        S = (L_ * L_.T + sp.eye(d)) / 8
        B = B0 + B0.T
        if not definiteness(qmat(S.inv() - A.T * S * A)).pd:
            continue
        s, E = _energy_along(A, V, S, B)
        ratio = sp.nsimplify(sp.simplify(sp.diff(E, s, 2).subs(s, 0) / E.subs(s, 0)))
        term, _ = second_variation_sign_data(qmat(A), qmat(V), qmat(S), qmat(B))
        assert sp.Rational(int(term.p), int(term.q)) / 4 == ratio
        done += 1


def test_rank_one_formula_matches_the_determinant_formula():
    s = sp.Symbol("s")
    A = sp.Matrix([[1, sp.Rational(1, 2)], [0, -2]])
    V = sp.Matrix([[2, 1], [0, 1]])
    u, v, eps = sp.Matrix([1, 2]), sp.Matrix([-1, 1]), sp.Rational(1, 20)
    w = V * A.inv() * v
    us = u + s * w
    E = sp.Rational(1, 2) / sp.sqrt((sp.eye(2) - A.T * (eps * us * us.T) * A * (eps * us * us.T)).det())
    first, g = rank_one_second_variation(A.tolist(), V.tolist(), list(u), list(v), eps)
    exact = sp.diff(E, s, 2).subs(s, 0)
    assert sp.simplify(exact - sp.Rational(first.numerator, first.denominator) * sp.Rational(g.numerator, g.denominator) ** sp.Rational(-5, 2)) == 0


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_semidefinite_symmetric_part_gives_nonnegative_rank_one_second_variation(d):
    rng = random.Random(10 + d)
    for _ in range(30):
        L_ = _rand(rng, d)
        K = _rand(rng, d) - _rand(rng, d).T
        A = -(L_ * L_.T + sp.eye(d) / 4) + (K - K.T) / 2   # A + Aᵀ ≺ 0, any skew part
        V = _rand(rng, d) + 3 * sp.eye(d)
        if V.det() == 0:
            continue
        u = [sp.Rational(rng.randint(-3, 3), 2) for _ in range(d)]
        v = [sp.Rational(rng.randint(-3, 3), 2) for _ in range(d)]
        if not any(u):
            continue
        q = (sp.Matrix(u).T * A * sp.Matrix(u))[0, 0]
        eps = Fraction(1, 2) / max(abs(Fraction(int(q.p), int(q.q))), Fraction(1))
        first, g = rank_one_second_variation(A.tolist(), V.tolist(), u, v, eps)
        assert g > 0 and first >= 0


@pytest.mark.parametrize("d", [2, 3, 4])
def test_indefinite_symmetric_part_has_a_certified_witness(d):
    rng = random.Random(20 + d)
    found = 0
    while found < 2:
        A, V = _rand(rng, d), _rand(rng, d) + 2 * sp.eye(d)
        dA = definiteness(qmat(A + A.T))
        if A.det() == 0 or V.det() == 0 or dA.psd or dA.nsd:
            continue
        ver = twisted_gaussian_witness(A.tolist(), V.tolist())
        assert ver.status == "PROVED", ver.reason
        res = check(ver.evidence["certificate"])
        assert res.status == "PROVED"
        found += 1


def test_tampered_witness_is_rejected():
    from symbolic_tf.spec.errors import CertificationFailed

    ver = twisted_gaussian_witness([[1, 0], [0, -1]], [[1, 0], [0, 1]])
    cert = ver.evidence["certificate"]
    bad = {**cert, "data": {**cert["data"], "B": [["0", "0"], ["0", "0"]]}}
    with pytest.raises(CertificationFailed):
        check(bad)


# ---- full-rank Gaussians: the decision (docs/mathematics.md §7) -------------------------------
from symbolic_tf.certify.search.twisted_gaussian import (rotation_scaling_sign_term, rotation_scaling_witness,  # noqa: E402
                                                  small_gaussian_second_variation, small_gaussian_witness,
                                                  twisted_gaussian_convexity)


def _spd(rng, d):
    L_ = _rand(rng, d)
    return (L_ * L_.T + sp.eye(d)) / 4


def _finite(A, S):
    return definiteness(qmat(S.inv() - A.T * S * A)).pd


@pytest.mark.parametrize("d", [2, 3])
def test_symmetric_definite_A_has_nonnegative_second_variation_everywhere(d):
    """A = Aᵀ ≻ 0 or ≺ 0, random V, Σ ≻ 0 of finite energy (up to the domain boundary), B = Bᵀ: the exact
    sign term t₁² + 2t₂ − 2t₃ is ≥ 0 — the theorem, checked on exact instances."""
    rng = random.Random(30 + d)
    done = 0
    while done < 25:
        L_ = _rand(rng, d)
        A = (L_ * L_.T + sp.eye(d) / 2) * rng.choice([1, -1])
        V, B0 = _rand(rng, d), _rand(rng, d)
        S = _spd(rng, d) * sp.Rational(rng.randint(1, 8), 8)
        while not _finite(A, S):
            S = S / 2
        S = S * rng.choice([1, sp.Rational(3, 2), 2])    # close to the boundary when still finite
        if not _finite(A, S):
            continue
        term, xi2 = second_variation_sign_data(qmat(A), qmat(V), qmat(S), qmat(B0 + B0.T))
        assert term >= 0
        done += 1
        ver = twisted_gaussian_convexity(A.tolist(), V.tolist())
        assert ver.status == "PROVED" and ver.evidence["theorem"] == "twisted-symmetric-convexity"
        res = check(ver.evidence["certificate"])
        assert res.kind == "twisted-gaussian-convexity" and res.claim.params["A"] == ver.evidence["certificate"]["data"]["A"]
        assert res.claim.params["definite"] == ("positive" if A[0, 0] > 0 else "negative")


def test_the_symmetric_case_rests_on_replayed_matrix_form_steps():
    from symbolic_tf.certify.search.matrix_proofs import library as ML
    from symbolic_tf.certify.check.matrix_proofs.order import replay_theorem, stored_theorem

    from symbolic_tf.certify.search.twisted_gaussian import SYMMETRIC_PROOFS

    for name in SYMMETRIC_PROOFS + ("twisted-symmetric-commutation",):
        assert ML.proof(name)["steps"]
    _, concl = replay_theorem(ML.theorem("twisted-symmetric-convexity"))
    assert [k for k, _ in concl] == ["psd", "psd", "nonneg"]
    sha, params = stored_theorem("twisted-symmetric-convexity")
    assert params["conclusions"] and len(sha) == 64


def test_symmetric_similarity_and_second_derivative_on_instances():
    """R⁻¹(AᵀΣAΣ)R = (RΣR)² for A = R², and d²/ds²[(I + sN)Σ(I + sN)ᵀ] = 2NΣNᵀ, exactly."""
    rng = random.Random(7)
    s = sp.Symbol("s")
    for d in (2, 3):
        R0 = _rand(rng, d)
        R = R0 + R0.T + 4 * sp.eye(d)
        A, S, N = R * R, _spd(rng, d), _rand(rng, d)
        assert R.inv() * A.T * S * A * S * R == (R * S * R) ** 2
        P = sp.eye(d) + s * N
        assert sp.expand(sp.diff(P * S * P.T, s, 2)) == 2 * N * S * N.T


def test_rotation_scaling_closed_form_matches_the_exact_sign_term():
    """t₁² + 2t₂ − 2t₃ at Σ = εI, N symmetric traceless, A = aI + bJ, against the checker's formula."""
    rng = random.Random(3)
    for _ in range(12):
        a, b = sp.Rational(rng.randint(-4, 4), 2), sp.Rational(rng.randint(-6, 6), 2)
        A = sp.Matrix([[a, b], [-b, a]])
        if A.det() == 0:
            continue
        x, y = sp.Rational(rng.randint(-3, 3), 2), sp.Rational(rng.randint(-3, 3), 2)
        N = sp.Matrix([[x, y], [y, -x]])
        eps = sp.Rational(1, rng.randint(2, 9)) / (1 + abs(a) + abs(b))
        B = A * N                                      # V = I: B = AN is symmetric (JN is)
        assert B == B.T
        term, _ = second_variation_sign_data(qmat(A), qmat(sp.eye(2)), qmat(eps * sp.eye(2)), qmat(B))
        closed = rotation_scaling_sign_term(Fraction(str(a)), Fraction(str(b)), Fraction(str(eps)), N.tolist())
        assert Fraction(int(term.p), int(term.q)) == closed


@pytest.mark.parametrize("V", [[[1, 0], [0, 1]], [[2, 1], [0, -1]], [[0, 1], [1, 0]], [[1, 2], [3, 4]]])
@pytest.mark.parametrize("ab", [(1, 2), (0, 1), (-1, 3), (2, 7)])
def test_rotation_scaling_family_is_certified_for_every_invertible_V(ab, V):
    a, b = ab
    A = [[a, b], [-b, a]]
    S, B = rotation_scaling_witness(A, V)
    term, xi2 = second_variation_sign_data(qmat(A), qmat(V), S, B)
    assert term < 0 and xi2 > 0
    ver = twisted_gaussian_convexity(A, V)
    assert ver.status == "REFUTED"
    assert check(ver.evidence["certificate"]).status == "PROVED"


def test_rotation_scaling_family_needs_b2_above_3a2():
    assert rotation_scaling_witness([[1, 1], [-1, 1]], [[1, 0], [0, 1]]) is None
    for b in (1, 2):      # b² ≤ 3a² with a = 1 (b = 2 is beyond): the closed form at small ε
        val = rotation_scaling_sign_term(1, b, Fraction(1, 100), [[1, 0], [0, -1]])
        assert (val < 0) == (b * b > 3)


def test_small_gaussian_coefficient_is_the_limit_of_the_exact_second_variation():
    """4E''/E = 8E'' + O(ε⁴) at Σ = εΣ₀ and E'' = ε²Q/4 + O(ε⁴): (t₁² + 2t₂ − 2t₃)/ε² → 2Q."""
    rng = random.Random(11)
    for d in (2, 3):
        A, V, B0, S0 = _rand(rng, d) + sp.eye(d), _rand(rng, d), _rand(rng, d), _spd(rng, d)
        if A.det() == 0:
            continue
        B = B0 + B0.T
        Q = small_gaussian_second_variation(A.tolist(), V.tolist(), S0.tolist(), B.tolist())
        errs = []
        for k in (8, 10, 12):
            eps = sp.Rational(1, 2 ** k)
            term, _ = second_variation_sign_data(qmat(A), qmat(V), qmat(eps * S0), qmat(B))
            errs.append(abs(Fraction(int(term.p), int(term.q)) / Fraction(1, 4 ** k) - 2 * Q))
        assert errs[1] < errs[0] / 8 and errs[2] < errs[1] / 8      # O(ε²) convergence


@pytest.mark.parametrize("A", [[[1, 2], [0, 1]], [[1, 0, 0], [0, 0, 2], [0, -2, 0]], [[2, 1, 0], [-1, 0, 1], [0, -1, 1]]])
def test_small_gaussian_witness_is_certified(A):
    V = [[1 if i == j else 0 for j in range(len(A))] for i in range(len(A))]
    w = small_gaussian_witness(A, V)
    assert w is not None
    S, B = w
    ver = twisted_gaussian_convexity(A, V)
    assert ver.status == "REFUTED"
    assert check(ver.evidence["certificate"]).status == "PROVED"


def test_second_variation_formula_against_high_precision_finite_differences():
    """E''(0) = (E/4)(t₁² + 2t₂ − 2t₃) against a central difference of E(Σ_s) in 60-digit arithmetic."""
    import mpmath as mp

    mp.mp.dps = 60
    rng = random.Random(5)
    for d in (2, 3):
        A, V, B0, S = _rand(rng, d) + sp.eye(d), _rand(rng, d), _rand(rng, d), _spd(rng, d) / 4
        if A.det() == 0 or not _finite(A, S):
            continue
        B = B0 + B0.T
        N = V * A.inv() * B

        def M(X):
            return mp.matrix([[mp.mpf(sp.Rational(X[i, j]).p) / sp.Rational(X[i, j]).q for j in range(d)]
                              for i in range(d)])
        Am, Sm, Nm = M(A), M(S), M(N)

        def E(s):
            P = mp.eye(d) + s * Nm
            Ss = P * Sm * P.T
            return mp.mpf(1) / 2 / mp.sqrt(mp.det(mp.eye(d) - Am.T * Ss * Am * Ss))
        h = mp.mpf(10) ** -15
        fd = (E(h) - 2 * E(0) + E(-h)) / h ** 2
        term, _ = second_variation_sign_data(qmat(A), qmat(V), qmat(S), qmat(B))
        exact = E(0) / 4 * mp.mpf(int(term.p)) / int(term.q)
        assert abs(fd - exact) < mp.mpf(10) ** -20 * (1 + abs(exact))


def test_decision_edge_cases():
    assert twisted_gaussian_convexity([[1, 1], [1, 1]], [[1, 0], [0, 1]]).status == "UNDECIDED"   # A singular
    v0 = twisted_gaussian_convexity([[1, 3], [-3, 1]], [[0, 0], [0, 0]])   # V = 0: true, but no kind certifies it
    assert v0.status == "UNDECIDED" and "V = 0" in v0.reason
    ver = twisted_gaussian_convexity([[1, 0], [0, -1]], [[1, 0], [0, 1]])                         # A + Aᵀ indefinite
    assert ver.status == "REFUTED" and check(ver.evidence["certificate"]).status == "PROVED"


def test_cli_reports_the_gaussian_decision(capsys):
    """d = 1 keeps the (slow) Dirac-configuration search of the measure-level verdict short."""
    import json

    from symbolic_tf.cli import main

    assert main(["convexity", "softmax", "--A", "[[-1]]", "--V", "[[2]]", "--along", "twisted", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "REFUTED"                       # among Dirac masses
    assert out["gaussians"]["status"] == "PROVED"           # on Gaussians: A = Aᵀ definite
    assert out["gaussians"]["evidence"]["theorem"] == "twisted-symmetric-convexity"


def test_a_finite_gaussian_refutes_where_small_gaussians_do_not():
    """A = I + ½J, V = diag(−1, 1/20)·A: exact negative sign term at Σ = diag(13/25, 23/25) (docs §7),
    and the finite-Gaussian search certifies a point of its own."""
    h = Fraction(1, 2)
    A = qmat([[1, h], [-h, 1]])
    V = qmat([[-1, 0], [0, Fraction(1, 20)]]) * A
    S = qmat([[Fraction(13, 25), 0], [0, Fraction(23, 25)]])
    assert definiteness(S.inv() - A.transpose() * S * A).pd
    term, _ = second_variation_sign_data(A, V, S, qmat([[1, 0], [0, 1]]))
    assert term < 0
    ver = twisted_gaussian_convexity(A, V)
    assert ver.status == "REFUTED"
    assert check(ver.evidence["certificate"]).status == "PROVED"


@pytest.mark.parametrize("A", [[[1, "1/2"], ["-1/2", 1]], [[1, 1], [0, 1]], [[2, 1, 0], [0, 1, 0], [0, 0, 1]]])
def test_free_direction_witness_gives_a_certified_V(A):
    from symbolic_tf.certify.search.twisted_gaussian import free_direction_witness

    A = [[Fraction(x) for x in row] for row in A]
    V, S, B = free_direction_witness(A)
    term, xi2 = second_variation_sign_data(qmat(A), V, S, B)
    assert term < 0 and xi2 > 0 and definiteness(S.inv() - qmat(A).transpose() * S * qmat(A)).pd


def test_free_direction_witness_finds_nothing_for_symmetric_definite_A():
    from symbolic_tf.certify.search.twisted_gaussian import free_direction_witness

    assert free_direction_witness([[2, 1], [1, 1]], tries=4) is None


def test_rotation_scaling_witness_embeds_block_diagonally():
    """A = A₂ ⊕ A′, V = V₂ ⊕ V′, B = B₂ ⊕ 0, Σ = Σ₂ ⊕ δI: E factorises, the sign is the block's (docs §7)."""
    A2, V2 = [[1, 2], [-2, 1]], [[2, 1], [0, -1]]
    S2, B2 = rotation_scaling_witness(A2, V2)
    t2, _ = second_variation_sign_data(qmat(A2), qmat(V2), S2, B2)
    A = sp.diag(sp.Matrix(A2), sp.Rational(5))
    V = sp.diag(sp.Matrix(V2), sp.Rational(7))
    S = sp.diag(sp.Matrix(2, 2, lambda i, j: sp.Rational(int(S2[i, j].p), int(S2[i, j].q))), sp.Rational(1, 100))
    B = sp.diag(sp.Matrix(2, 2, lambda i, j: sp.Rational(int(B2[i, j].p), int(B2[i, j].q))), 0)
    assert _finite(A, S)
    t3, _ = second_variation_sign_data(qmat(A), qmat(V), qmat(S), qmat(B))
    assert t3 == t2 < 0


def test_v_identity_can_fail_for_a_non_symmetric_A_with_definite_symmetric_part():
    """d = 3, A = [[2, 1, 0], [0, 1, 0], [0, 0, 1]] (A + Aᵀ ≻ 0), V = I: a point found by the finite-Gaussian
    search (docs §7), stored here and re-checked by the certificate checker."""
    from symbolic_tf.certify.check.certificate import Certificate
    from symbolic_tf.certify.check.claims import Claim, Quantifier

    data = {"A": [["2", "1", "0"], ["0", "1", "0"], ["0", "0", "1"]], "V": [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]],
            "Sigma": [["25/88", "-16/175", "3/227"], ["-16/175", "239/251", "8/163"], ["3/227", "8/163", "1/256"]],
            "B": [["127577/928034", "21622/440503", "-1"], ["21622/440503", "-12340/833043", "6206/49007"],
                  ["-1", "6206/49007", "-38147/724552"]]}
    assert definiteness(qmat(data["A"]) + qmat(data["A"]).transpose()).pd
    cert = Certificate(kind="twisted-gaussian-nonconvexity", status="PROVED", data=data,
                       claim=Claim("twisted-gaussian-nonconvexity", Quantifier.NONE, data))
    assert check(cert.to_dict()).status == "PROVED"


# ---- the certificate of the symmetric theorem (kind twisted-gaussian-convexity) -----------------
def _convexity_cert(A):
    from symbolic_tf.certify.search.twisted_gaussian import symmetric_convexity_certificate

    return symmetric_convexity_certificate(A)


def _with_data(cert, **data):
    import copy

    out = copy.deepcopy(cert)
    out["data"].update(data)
    return out


def test_convexity_certificate_is_checked_and_binds_A():
    cert = _convexity_cert([[2, "1/2"], ["1/2", 1]])
    res = check(cert)
    assert res.status == "PROVED" and res.claim.subject == "twisted-gaussian-convexity"
    assert res.claim.params == {"A": [["2", "1/2"], ["1/2", "1"]], "definite": "positive"}
    assert "A = [2, 1/2; 1/2, 1] (symmetric, positive definite)" in res.claim_text
    assert "for every value matrix V" in res.claim_text
    # another symmetric definite A in the data proves another claim: the stated one is rejected
    with pytest.raises(CertificationFailed):
        check(_with_data(cert, A=[["3", "1/2"], ["1/2", "1"]]))
    # the claim text is bound: edited words, or "negative" for a positive definite A, are rejected
    for edit in ({"text": cert["claim"]["text"].replace("every value matrix V", "V = I")},
                 {"params": {**cert["claim"]["params"], "definite": "negative"}}):
        with pytest.raises(CertificationFailed):
            check({**cert, "claim": {**cert["claim"], **edit}})
    neg = _convexity_cert([[-1, 0], [0, "-1/3"]])
    assert check(neg).claim.params["definite"] == "negative"


@pytest.mark.parametrize("A, why", [
    ([["2", "1"], ["0", "1"]], "symmetric"),                # non-symmetric (A + Aᵀ ≻ 0 even)
    ([["1", "0"], ["0", "-1"]], "definite"),                # indefinite
    ([["1", "0", "0"], ["0", "-1", "0"], ["0", "0", "0"]], "definite"),   # singular, indefinite
    ([], "square"),
])
def test_convexity_certificate_rejects_A_that_is_not_symmetric_definite(A, why):
    cert = _convexity_cert([[2, "1/2"], ["1/2", 1]])
    with pytest.raises(CertificationFailed, match=re.escape(why)):
        check(_with_data(cert, A=A))
    assert _convexity_cert(A) is None                       # and the builder refuses it


# ---- every curve (I + sN)Σ(I + sN)ᵀ, singular A included (docs §7, "every curve") ------------------
def _curve_second_variation_sign(A, N, S):
    """sign of E''(0) from SymPy's derivatives of D(s) = det(I − AᵀΣ_sAΣ_s): 4E''/E = 3(D'/D)² − 2D''/D."""
    s = sp.Symbol("s")
    P = sp.eye(A.rows) + s * N
    Ss = P * S * P.T
    D = sp.expand((sp.eye(A.rows) - A.T * Ss * A * Ss).det())
    D0, D1, D2 = (sp.diff(D, s, k).subs(s, 0) for k in range(3))
    return sp.sign(3 * (D1 / D0) ** 2 - 2 * D2 / D0)


def _sp(M):
    return sp.Matrix(M.nrows(), M.ncols(), [sp.Rational(int(x.p), int(x.q)) for x in M.entries()])


@pytest.mark.parametrize("A, status, kind", [
    ([[1, 1], [1, 1]], "PROVED", "twisted-gaussian-convexity"),                       # singular ⪰ 0
    ([[-1, 0, 0], [0, -2, 0], [0, 0, 0]], "PROVED", "twisted-gaussian-convexity"),    # singular ⪯ 0
    ([[2, "1/2"], ["1/2", 1]], "PROVED", "twisted-gaussian-convexity"),               # definite
    ([[1, 0, 0], [0, -1, 0], [0, 0, 0]], "REFUTED", "gaussian-curve-nonconvexity"),   # A + Aᵀ indefinite
    ([[1, 2], [0, 0]], "REFUTED", "gaussian-curve-nonconvexity"),                     # singular, indefinite sym part
    ([[1, 1, 0], [-1, 0, 0], [0, 0, 0]], "REFUTED", "gaussian-curve-nonconvexity"),   # A + Aᵀ ⪰ 0, A ≠ Aᵀ
    ([[0, 1, 2], [-1, 0, 3], [-2, -3, 0]], "REFUTED", "gaussian-curve-nonconvexity"), # skew, d = 3
    ([[1, 2], [0, 1]], "REFUTED", "gaussian-curve-nonconvexity"),                     # invertible, A ≠ Aᵀ
])
def test_every_curve_is_decided_for_singular_A_too(A, status, kind):
    """Convex along every curve (I + sN)Σ(I + sN)ᵀ iff A = Aᵀ is semidefinite: each verdict carries a
    certificate that the checker accepts; a REFUTED one has E''(0) < 0 by SymPy's derivatives of the
    determinant (independent of the checker's formula)."""
    from symbolic_tf.certify.search.twisted_gaussian import EVERY_CURVE_CLAIM, gaussian_convexity_every_curve

    ver = gaussian_convexity_every_curve(A)
    assert ver.status == status and ver.claim == EVERY_CURVE_CLAIM
    cert = ver.evidence["certificate"]
    res = check(cert)
    assert res.status == "PROVED" and res.kind == kind
    if status == "REFUTED":
        d = {k: qmat(cert["data"][k]) for k in ("A", "N", "Sigma")}
        assert _curve_second_variation_sign(_sp(d["A"]), _sp(d["N"]), _sp(d["Sigma"])) == -1
        assert _finite(_sp(d["A"]), _sp(d["Sigma"]))
    else:   # a singular A rests on Sylvester's identity (a replayed proof) instead of the similarity by R⁻¹
        from symbolic_tf.certify.search.matrix_proofs import library as ML
        from symbolic_tf.certify.check.matrix_proofs.replay import replay

        singular = qmat(A).det() == 0
        assert ("twisted-semidefinite-determinant" in ver.evidence["proofs"]) == singular
        assert ("twisted-symmetric-similarity" in ver.evidence["proofs"]) == (not singular)
        for name in ver.evidence["proofs"]:
            replay(ML.proof(name))


@pytest.mark.parametrize("A", [[[1, 1], [1, 1]], [[2, 1, 0], [1, 1, 0], [0, 0, 0]], [[-1, 0], [0, 0]]])
def test_singular_semidefinite_A_is_convex_along_random_curves(A):
    """The PROVED claim for a singular semidefinite A (which rests on Sylvester's identity), at random
    exact points of the domain and random N: the sign term is ≥ 0 (exact)."""
    from symbolic_tf.certify.check.kinds.twisted_gaussian_nonconvexity import curve_sign_data

    rng = random.Random(5)
    A = sp.Matrix(A)
    d, done = A.rows, 0
    for _ in range(60):
        S = _spd(rng, d)
        while not _finite(A, S):
            S = S / 2
        S = S * rng.choice([1, sp.Rational(3, 2), 2])
        if not _finite(A, S):
            continue
        term, _ = curve_sign_data(qmat(A), qmat(_rand(rng, d)), qmat(S))
        assert term >= 0
        done += 1
    assert done >= 20


def test_curve_certificates_are_checked():
    """A curve certificate with N = 0, Σ not ≻ 0, Σ outside the domain or a relabelled N is rejected;
    the every-V question for a singular A is answered about every curve."""
    from symbolic_tf.certify.search.twisted_gaussian import (EVERY_CURVE_CLAIM, gaussian_convexity_every_curve,
                                                      twisted_gaussian_convexity_every_v)

    cert = gaussian_convexity_every_curve([[1, 1, 0], [-1, 0, 0], [0, 0, 0]]).evidence["certificate"]
    n = len(cert["data"]["A"])
    zero = [["0"] * n for _ in range(n)]
    eye = [["1" if i == j else "0" for j in range(n)] for i in range(n)]
    for edit in ({"N": zero}, {"Sigma": [["-1" if i == j else "0" for j in range(n)] for i in range(n)]},
                 {"Sigma": [["1000" if i == j else "0" for j in range(n)] for i in range(n)]}, {"N": eye}):
        with pytest.raises(CertificationFailed):
            check(_with_data(cert, **edit))
    ver = twisted_gaussian_convexity_every_v([[1, 1, 0], [-1, 0, 0], [0, 0, 0]])
    assert ver.status == "REFUTED" and ver.claim == EVERY_CURVE_CLAIM and "singular" in ver.reason


def test_convexity_certificate_rejects_another_theorem_or_sha():
    cert = _convexity_cert([[1, 0], [0, 1]])
    sha = cert["data"]["theorem_sha256"]
    assert len(sha) == 64
    bad_sha = ("0" if sha[0] != "0" else "1") + sha[1:]
    with pytest.raises(CertificationFailed, match="SHA-256"):
        check(_with_data(cert, theorem_sha256=bad_sha))
    with pytest.raises(CertificationFailed, match="theorem"):
        check(_with_data(cert, theorem="l2-growth", theorem_sha256=sha))


def test_convexity_kind_expects_the_stored_statement():
    """The statement the kind requires is the replayed theorem's (not a copy that drifted)."""
    from symbolic_tf.certify.check.kinds.twisted_gaussian_convexity import STATEMENT, THEOREM
    from symbolic_tf.certify.check.matrix_proofs.order import stored_theorem

    assert stored_theorem(THEOREM)[1] == STATEMENT


def test_non_symmetric_A_gets_no_convexity_certificate():
    """A + Aᵀ ≻ 0 but A ≠ Aᵀ: not the theorem's case (docs §7: a certified d = 3 witness exists for V = I)."""
    ver = twisted_gaussian_convexity([[1, 3], [-3, 1]], [[1, 0], [0, 1]])
    assert ver.status != "PROVED"
    assert "certificate" not in ver.evidence or ver.evidence["certificate"]["kind"] != "twisted-gaussian-convexity"


@pytest.mark.parametrize("A,V", [([[1, 1], [-1, 1]], [[1, 0], [0, 1]]),
                                 ([[2, 3], [-3, 2]], [[5, 0], [0, 5]]),
                                 ([["-1/2", "5/6"], ["-5/6", "-1/2"]], [["-1/3", 0], [0, "-1/3"]])])
def test_rotation_scaling_pair_with_scalar_V_is_proved(A, V):
    """A = aI + bJ, b² ≤ 3a², V = vI: PROVED by the family's symbolic verification (docs §7, "A fixed pair"),
    the certificate re-checked, the claim naming this pair."""
    from symbolic_tf.certify.check.claims import Claim

    ver = twisted_gaussian_convexity(A, V)
    assert ver.status == "PROVED", ver.reason
    cert = ver.evidence["certificate"]
    assert cert["kind"] == "twisted-rotation-scaling-convexity"
    res = check(cert)
    assert res.ok and res.status == "PROVED" and res.claim.same_as(Claim.from_dict(cert["claim"]))


@pytest.mark.parametrize("A,V,why", [
    ([[1, 2], [-2, 1]], [[1, 0], [0, 1]], "b² ≤ 3a²"),            # b² = 4 > 3: REFUTED by the family
    ([[1, 1], [-1, 1]], [[1, 0], [0, 2]], "vI"),                   # V not scalar
    ([[1, 1], [-1, 1]], [[0, 0], [0, 0]], "vI"),                   # V = 0
    ([[1, 1], [1, 1]], [[1, 0], [0, 1]], "aI + bJ"),               # not a rotation–scaling matrix
    ([[0, 1], [-1, 0]], [[1, 0], [0, 1]], "aI + bJ"),              # a = 0 (skew)
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "2×2"),
])
def test_rotation_scaling_checker_rejects_other_pairs(A, V, why):
    from symbolic_tf.certify.check.certificate import Certificate
    from symbolic_tf.certify.check.claims import Claim, Quantifier
    from symbolic_tf.exact.rational import frac_str

    data = {k: [[frac_str(Fraction(x)) for x in row] for row in M] for k, M in (("A", A), ("V", V))}
    cert = Certificate(kind="twisted-rotation-scaling-convexity",
                       claim=Claim("twisted-rotation-scaling-convexity", Quantifier.NONE, data),
                       status="PROVED", data=data).to_dict()
    with pytest.raises(CertificationFailed, match=re.escape(why)):
        check(cert)


def test_rotation_scaling_threshold_matches_the_witness_family():
    """Just above b² = 3a² the decision refutes with the rotation–scaling witness; at or below it, it proves."""
    assert twisted_gaussian_convexity([[1, "7/4"], ["-7/4", 1]], [[1, 0], [0, 1]]).status == "REFUTED"
    assert twisted_gaussian_convexity([[1, "17/10"], ["-17/10", 1]], [[1, 0], [0, 1]]).status == "PROVED"


# ---- the converse: every A other than a symmetric definite one has a breaking V (docs §7) ---------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from symbolic_tf.certify.search.twisted_gaussian import (EVERY_V_CLAIM, boundary_plane_curvature,  # noqa: E402
                                                  boundary_witness, twisted_gaussian_convexity_every_v)


@pytest.mark.parametrize("cs", [(Fraction(3, 5), Fraction(4, 5)), (Fraction(5, 13), Fraction(-12, 13)),
                                (Fraction(-8, 17), Fraction(15, 17))])
@pytest.mark.parametrize("tau", [Fraction(1, 10), Fraction(1, 5), Fraction(1, 2), Fraction(9, 10)])
def test_boundary_plane_closed_form_is_the_limit_of_the_exact_sign_term(cs, tau):
    """A = C = xyᵀ + τx₂y₂ᵀ (‖C‖ = 1), Σ = rI, N = diag(s², −c²), V = NA, B = I: the determinant formula
    (checker) and the singular-value closed form agree, (1 − r²)(t₁² + 2t₂ − 2t₃) = 4σ₁''(0) + O(1 − r²);
    its sign is that of 1/3 − τ; and σ₁'(0) = 0, σ₁''(0) = the closed form from the exact root formula."""
    c, s = cs
    A = qmat([[c * c - s * s * tau, -c * s * (1 + tau)], [c * s * (1 + tau), c * c * tau - s * s]])
    N = qmat([[s * s, 0], [0, -c * c]])
    limit = 4 * boundary_plane_curvature(c, s, tau)
    assert (limit < 0) == (tau > Fraction(1, 3)) and limit != 0
    errs = []
    for k in (12, 18, 24):
        r = 1 - Fraction(1, 2 ** k)
        S = qmat([[r, 0], [0, r]])
        assert definiteness(S.inv() - A.transpose() * S * A).pd            # inside the domain
        term, _ = second_variation_sign_data(A, N * A, S, qmat([[1, 0], [0, 1]]))
        errs.append(abs(Fraction(int(term.p), int(term.q)) * (1 - r * r) - limit))
        if tau > Fraction(1, 3) and k == 24:
            assert term < 0                                                 # a witness, exactly
    assert errs[1] < errs[0] / 32 and errs[2] < errs[1] / 32                # O(1 − r) convergence
    # and directly: σ₁(s)² is the larger root of λ² − tr(C_sᵀC_s)λ + det(C_s)² (SymPy, exact)
    t = sp.Symbol("t")
    Cs = (sp.eye(2) + t * sp.Matrix(N.tolist())).T * sp.Matrix(A.tolist()) * (sp.eye(2) + t * sp.Matrix(N.tolist()))
    T, D = (Cs.T * Cs).trace(), Cs.det() ** 2
    sigma1 = sp.sqrt((T + sp.sqrt(T ** 2 - 4 * D)) / 2)
    assert sp.simplify(sp.diff(sigma1, t).subs(t, 0)) == 0
    assert sp.simplify(sp.diff(sigma1, t, 2).subs(t, 0) - sp.Rational(limit.numerator, 4 * limit.denominator)) == 0
    with pytest.raises(ValueError):
        boundary_plane_curvature(c, s + 1, tau)


@st.composite
def non_symmetric_semidefinite(draw, d):
    """A = ±LLᵀ + K, K skew, L d×rank (A + Aᵀ semidefinite, singular when rank < d)."""
    ints = st.integers(-3, 3)
    rank = draw(st.integers(1, d))
    L = sp.Matrix(d, rank, draw(st.lists(ints, min_size=d * rank, max_size=d * rank)))
    K0 = sp.Matrix(d, d, draw(st.lists(ints, min_size=d * d, max_size=d * d)))
    sign = draw(st.sampled_from([1, -1]))
    A = sign * L * L.T + (K0 - K0.T) / 2
    return A


@pytest.mark.parametrize("d", [2, 3, 4])
@settings(max_examples=20)
@given(data=st.data())
def test_every_non_symmetric_A_with_semidefinite_symmetric_part_gets_a_certified_V(d, data):
    from hypothesis import assume

    A = data.draw(non_symmetric_semidefinite(d))
    assume(A != A.T and A.det() != 0 and A + A.T != sp.zeros(*A.shape))
    ver = twisted_gaussian_convexity_every_v(A.tolist())
    assert ver.status == "REFUTED", ver.reason
    assert ver.claim == EVERY_V_CLAIM and "boundary family" in ver.reason
    cert = ver.evidence["certificate"]
    res = check(cert)
    assert res.status == "PROVED" and res.kind == "twisted-gaussian-nonconvexity"
    assert qmat(res.claim.params["A"]) == qmat(A.tolist())
    V, B = qmat(cert["data"]["V"]), qmat(cert["data"]["B"])
    assert B == qmat([[1 if i == j else 0 for j in range(A.rows)] for i in range(A.rows)])
    # tampering: zero displacement, or Σ doubled (beyond the boundary: ‖Σ^½AΣ^½‖ > 1), is rejected
    for bad in ({"B": [["0"] * A.rows for _ in range(A.rows)]},
                {"Sigma": [[str(2 * Fraction(x)) for x in row] for row in cert["data"]["Sigma"]]}):
        with pytest.raises(CertificationFailed):
            check({**cert, "data": {**cert["data"], **bad}})


@pytest.mark.parametrize("d", [2, 3, 4])
def test_symmetric_definite_A_gets_no_boundary_witness_and_is_proved_for_every_V(d):
    rng = random.Random(40 + d)
    for i in range(3):
        L_ = _rand(rng, d)
        A = (L_ * L_.T + sp.eye(d) / 2) * rng.choice([1, -1])
        assert boundary_witness(A.tolist(), tries=4) is None
        V = _rand(rng, d) + 2 * sp.eye(d)
        if V.det() != 0 and d + i <= 4:
            assert boundary_witness(A.tolist(), V.tolist(), tries=2) is None
        ver = twisted_gaussian_convexity_every_v(A.tolist())
        assert ver.status == "PROVED" and check(ver.evidence["certificate"]).kind == "twisted-gaussian-convexity"


def test_every_v_decision_on_the_other_cases():
    assert "singular" in twisted_gaussian_convexity_every_v([[1, 2], [0, 0]]).reason
    for A, why in (([[1, 0], [0, -1]], "rank-one"), ([[0, 2], [-2, 0]], "small Gaussian"),
                   ([[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 3], [0, 0, -3, 0]], "small Gaussian")):
        ver = twisted_gaussian_convexity_every_v(A)
        assert ver.status == "REFUTED" and why in ver.reason
        assert check(ver.evidence["certificate"]).status == "PROVED"


@pytest.mark.parametrize("A, V", [
    ([[1, "1/2"], ["-1/2", 1]], [[-1, "-1/40"], ["-1/2", "1/20"]]),        # diag(−1, 1/20)·A (docs §7)
    ([[1, "1/2"], ["-1/2", 1]], [[2, 1], [0, -1]]),
    ([[2, 1, 0], [0, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
])
def test_boundary_witness_for_a_fixed_V_stays_in_its_directions(A, V):
    """N = VA⁻¹B with the given V (B symmetric): the witness is about (A, V), re-checked exactly."""
    S, V2, B = boundary_witness(A, V)
    assert V2 == qmat(V) and B == B.transpose()
    term, xi2 = second_variation_sign_data(qmat(A), V2, S, B)
    assert term < 0 and xi2 > 0 and definiteness(S.inv() - qmat(A).transpose() * S * qmat(A)).pd
