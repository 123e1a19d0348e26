"""Checkers of the trace-functional LMI certificates ``bounded-lmi`` and ``blowup-lmi``
(docs/mathematics.md §5).

Independent of :mod:`symbolic_tf.certify.search.lmi` (the search): the quadratic form
q_P(Σ) = 2 Σ_h tr(P C_h Σ A_h Σ) is re-assembled here entry by entry on the plain svec
coordinates (s_k = Σ_ij for k = (i, j), i ≤ j; basis E_ii, E_ij + E_ji) from

    tr(M E_k A E_l) = Σ_{(a,b) ∈ k} Σ_{(c,e) ∈ l} M_ea A_bc,   M = P C_h,

with (a, b) running over the one or two index pairs of E_k, and every inequality is decided
over ℚ (charpoly inertia of :mod:`symbolic_tf.exact`).

``bounded-lmi`` data: ``P``.  Verified: the problem is drift-free softmax / multi-head softmax,
P symmetric, P ≻ 0, Q_P ⪯ 0.
``blowup-lmi`` data: ``P``, ``c`` and, for the embedded initial covariance Σ₀, ``T_hi``,
``T_lo``, ``u_V``, ``u_A`` (one per head; u_V bounds ‖C_h‖_F = ‖W_hV_h‖_F, u_A bounds
‖scale·A_h‖_F) and ``u_Sigma``.  Verified: P ≻ 0, c > 0, Q_P − c ppᵀ ⪰ 0,
tr(PΣ₀) > 0 and T_hi ≥ 1/(c tr(PΣ₀)); u ≥ 0 with u² ≥ ‖·‖_F², T_lo > 0 and
T_lo ≤ 1/(u_Σ Σ_h 2u_{V,h}u_{A,h}); T_lo ≤ T_hi.  (A stored bracket may be wider than the
recomputed one — a weaker claim is still proved — but never narrower.)
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ....exact.definiteness import inertia
from ....exact.rational import qmat
from ....spec.errors import CertificationFailed
from ....spec.errors import InvalidParameters
from ....variants import quadratic_heads
from .. import Hypothesis, kind
from ..claims import Claim, Quantifier

_T = "tests/soundness/forgeries/test_lmi.py::"
_PROBLEM = Hypothesis(
    "drift-free-quadratic", "The embedded problem is a drift-free quadratic flow Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) "
    "(softmax or multi-head softmax, F = 0, b = 0, constant parameters): q_P is the derivative of tr(PΣ) "
    "only for that flow.", _T + "test_lmi_refuses_a_drift")
_P_PD = Hypothesis("P-positive-definite", "P is symmetric and P ≻ 0, so tr(PΣ) ≥ 0 on Σ ⪰ 0 and vanishes only at Σ = 0.",
                   _T + "test_lmi_P_not_positive_definite")
BOUNDED_HYPOTHESES = (
    _PROBLEM, _P_PD,
    Hypothesis("Q-nsd", "Q_P ⪯ 0 on the svec coordinates, so d/dt tr(PΣ) = q_P(Σ) ≤ 0 for every symmetric Σ.",
               _T + "test_bounded_lmi_Q_not_nsd"),
)
BLOWUP_HYPOTHESES = (
    _PROBLEM, _P_PD,
    Hypothesis("c-positive", "c > 0.", _T + "test_blowup_lmi_c_not_positive"),
    Hypothesis("schur", "Q_P − c·ppᵀ ⪰ 0 (p = svec weights of P), i.e. q_P(Σ) ≥ c·tr(PΣ)² for every symmetric Σ; "
               "with y = tr(PΣ) this gives ẏ ≥ c·y².", _T + "test_blowup_lmi_schur_fails"),
    Hypothesis("sigma0-nonzero", "For a bracket (T_lo or T_hi, either alone): the problem has Σ₀ and y₀ = tr(PΣ₀) > 0, "
               "i.e. Σ₀ ≠ 0 — without it Σ ≡ 0 is an equilibrium and nothing blows up.",
               _T + "test_blowup_lmi_T_lo_alone_on_sigma0_zero"),
    Hypothesis("T_hi", "T_hi ≥ 1/(c·y₀): the comparison ẏ ≥ c·y² forces blow-up by then.",
               _T + "test_blowup_lmi_T_hi_too_small"),
    Hypothesis("norm-bounds", "u_V,h ≥ ‖C_h‖_F, u_A,h ≥ ‖A_h‖_F (one per head) and u_Σ ≥ ‖Σ₀‖_F, all ≥ 0.",
               _T + "test_blowup_lmi_norm_bound_too_small"),
    Hypothesis("T_lo", "0 < T_lo ≤ 1/(u_Σ·Σ_h 2u_V,h·u_A,h): ‖Σ‖_F obeys ẋ ≤ Kx², so it is finite before 1/(K‖Σ₀‖_F).",
               _T + "test_blowup_lmi_T_lo_too_large"),
)


def _fail(msg):
    raise CertificationFailed(msg)


def _q(s) -> flint.fmpq:
    if not isinstance(s, (str, int)) or isinstance(s, bool):
        raise ValueError(f"expected an exact number as a string, got {s!r}")
    f = Fraction(s)
    return flint.fmpq(f.numerator, f.denominator)


def _heads(kind, problem):
    """[(C_h, A_h)] exactly from the embedded problem (A scaled by the temperature)."""
    if problem is None:
        _fail(f"{kind} certificate: needs an embedded problem")
    if problem.F is not None and any(x != 0 for row in problem.F for x in row):
        _fail(f"{kind} certificate: the problem has a feed-forward drift F ≠ 0 (not covered)")
    if problem.b is not None and any(x != 0 for x in problem.b):
        _fail(f"{kind} certificate: the problem has a bias drift b ≠ 0 (not covered)")
    try:
        return quadratic_heads(problem)
    except InvalidParameters as exc:
        _fail(f"{kind} certificate: {exc.reason}")


def _pairs(d):
    """svec index k ↦ (i, j) and the index pairs (a, b) with E_k = Σ e_a e_bᵀ."""
    out = []
    for i in range(d):
        for j in range(i, d):
            out.append([(i, i)] if i == j else [(i, j), (j, i)])
    return out


def trace_qform(P, heads, d):
    """The exact matrix Q_P of the quadratic form q_P(Σ) = 2 Σ_h tr(P C_h Σ A_h Σ) = sᵀQ_Ps on the
    plain svec coordinates s (s_k = Σ_ij, k = (i, j), i ≤ j), assembled entry by entry (module
    docstring).

    Parameters
    ----------
    P : flint.fmpq_mat
        The d×d weight.
    heads : list of (flint.fmpq_mat, flint.fmpq_mat)
        The exact heads (C_h, A_h).
    d : int
        The dimension.

    Returns
    -------
    flint.fmpq_mat
        The symmetric m×m matrix Q_P, m = d(d+1)/2.
    """
    pairs = _pairs(d)
    m = len(pairs)
    B = [[flint.fmpq(0)] * m for _ in range(m)]
    for C, A in heads:
        M = P * C
        Me = [[M[i, j] for j in range(d)] for i in range(d)]
        Ae = [[A[i, j] for j in range(d)] for i in range(d)]
        for k, pk in enumerate(pairs):
            for l, pl in enumerate(pairs):
                acc = flint.fmpq(0)
                for a, b in pk:
                    for c, e in pl:
                        acc += Me[e][a] * Ae[b][c]
                B[k][l] += 2 * acc
    return flint.fmpq_mat(m, m, [(B[k][l] + B[l][k]) / 2 for k in range(m) for l in range(m)])


def _pvec(P, d):
    return [P[i, i] if i == j else 2 * P[i, j] for i in range(d) for j in range(i, d)]


def _matrix_P(kind, data, d):
    raw = data["P"]
    if not isinstance(raw, list) or len(raw) != d or any(not isinstance(r, list) or len(r) != d for r in raw):
        _fail(f"{kind} certificate: P must be a {d}×{d} matrix")
    P = flint.fmpq_mat(d, d, [_q(x) for r in raw for x in r])
    if P != P.transpose():
        _fail(f"{kind} certificate: P is not symmetric")
    if inertia(P)[0] != d:
        _fail(f"{kind} certificate: P is not positive definite")
    return P


def _check_status(kind, cert):
    if cert.status != "PROVED":
        _fail(f"{kind} certificate: only PROVED is meaningful, not {cert.status!r}")


@kind("bounded-lmi", {"P": "rat[][]"}, hypotheses=BOUNDED_HYPOTHESES)
def check_bounded(cert, problem):
    """PROVED: for every Σ₀ ⪰ 0, Σ(t) exists for all t and stays bounded (tr(PΣ) is
    non-increasing since q_P ⪯ 0).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (quadratic flow without drift).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED", EVERY_PSD, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When P ≻ 0 or q_P ⪯ 0 fails exactly.
    """
    _check_bounded(cert, problem)
    return "PROVED", Claim("BOUNDED", Quantifier.EVERY_PSD, {})


def _lmi_start(kind, cert, problem):
    """(heads, d, P) after the checks every LMI kind starts with: PROVED, the heads, P ≻ 0."""
    _check_status(kind, cert)
    heads = _heads(kind, problem)
    d = problem.d
    return heads, d, _matrix_P(kind, cert.data, d)


def _check_bounded(cert, problem):
    kind = "bounded-lmi"
    heads, d, P = _lmi_start(kind, cert, problem)
    Qm = trace_qform(P, heads, d)
    pos, _, _ = inertia(Qm)
    if pos:
        _fail(f"{kind} certificate: Q_P is not negative semidefinite ({pos} positive eigenvalue(s))")


def _frob_sq(M):
    return sum((M[i, j] ** 2 for i in range(M.nrows()) for j in range(M.ncols())), flint.fmpq(0))


@kind("blowup-lmi", {"P": "rat[][]", "c": "rat", "T_hi?": "rat", "T_lo?": "rat", "u_V?": "rat[]",
                     "u_A?": "rat[]", "u_Sigma?": "rat"}, hypotheses=BLOWUP_HYPOTHESES)
def check_blowup(cert, problem):
    """PROVED: every Σ₀ ⪰ 0, Σ₀ ≠ 0 blows up (q_P ≥ c·tr(PΣ)², P ≻ 0); with a bracket, this
    Σ₀ blows up at T* ∈ [T_lo, T_hi].

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (quadratic flow without drift; Σ₀ for a bracket).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))`` with a bracket, else
        ``("PROVED", Claim("BLOWUP", EVERY_NONZERO, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When P ≻ 0, c > 0 or Q_P − c·ppᵀ ⪰ 0 (so q_P ≥ c·tr(PΣ)²) fails, or the stored bracket
        is not implied.
    """
    from ....exact.rational import frac_str

    _check_blowup(cert, problem)
    params = {k: frac_str(_q(cert.data[k])) for k in ("T_lo", "T_hi") if k in cert.data}
    if params:
        return "PROVED", Claim("BLOWUP", Quantifier.THIS, params)
    return "PROVED", Claim("BLOWUP", Quantifier.EVERY_NONZERO, {})


def _check_blowup(cert, problem):
    kind = "blowup-lmi"
    heads, d, P = _lmi_start(kind, cert, problem)
    data = cert.data
    c = _q(data["c"])
    if not c > 0:
        _fail(f"{kind} certificate: c must be positive")
    Qm = trace_qform(P, heads, d)
    p = _pvec(P, d)
    m = len(p)
    M = flint.fmpq_mat(m, m, [Qm[k, l] - c * p[k] * p[l] for k in range(m) for l in range(m)])
    neg = inertia(M)[1]
    if neg:
        _fail(f"{kind} certificate: Q_P − c·ppᵀ is not positive semidefinite ({neg} negative eigenvalue(s))")
    T_hi = T_lo = None
    if "T_hi" in data or "T_lo" in data:
        # any bracket is about this Σ₀: it must blow up at all (y₀ = tr(PΣ₀) > 0), T_lo alone included
        if problem.cov is None:
            _fail(f"{kind} certificate: a T* bracket is given but the problem has no initial covariance")
        S0 = qmat(problem.cov)
        tr = sum((P[i, j] * S0[j, i] for i in range(d) for j in range(d)), flint.fmpq(0))
        if not tr > 0:
            _fail(f"{kind} certificate: tr(PΣ₀) = {tr} is not positive (Σ₀ = 0 does not blow up)")
    if "T_hi" in data:
        T_hi = _q(data["T_hi"])
        if T_hi < 1 / (c * tr):
            _fail(f"{kind} certificate: T_hi = {T_hi} is below 1/(c·tr(PΣ₀)) = {1 / (c * tr)}")
    if "T_lo" in data:
        uV = [_q(x) for x in data["u_V"]]
        uA = [_q(x) for x in data["u_A"]]
        uS = _q(data["u_Sigma"])
        if len(uV) != len(heads) or len(uA) != len(heads):
            _fail(f"{kind} certificate: u_V and u_A need one bound per head ({len(heads)})")
        for name, u, Mx in ([("u_V", u, C) for u, (C, _) in zip(uV, heads)]
                            + [("u_A", u, A) for u, (_, A) in zip(uA, heads)] + [("u_Sigma", uS, S0)]):
            if u < 0 or u * u < _frob_sq(Mx):
                _fail(f"{kind} certificate: {name} = {u} is not an upper bound of the Frobenius norm")
        K = sum((2 * a * b for a, b in zip(uV, uA)), flint.fmpq(0)) * uS
        T_lo = _q(data["T_lo"])
        if not T_lo > 0:
            _fail(f"{kind} certificate: T_lo must be positive")
        if K * T_lo > 1:
            _fail(f"{kind} certificate: T_lo = {T_lo} exceeds the norm bound 1/(u_Σ Σ 2u_V u_A) = {1 / K}")
    if T_lo is not None and T_hi is not None and T_lo > T_hi:
        _fail(f"{kind} certificate: T_lo > T_hi")
