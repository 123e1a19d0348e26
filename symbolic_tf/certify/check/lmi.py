"""What the trace-functional LMI certificate kinds ``bounded-lmi`` and ``blowup-lmi`` share
(docs/mathematics.md §5): the problem class, P ≻ 0 and the quadratic form q_P.

Independent of :mod:`symbolic_tf.certify.search._lmi` (the search): the quadratic form
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

import flint

from ...exact.definiteness import inertia
from ...exact.rational import fmpq_of
from ...spec.errors import InvalidParameters
from . import Hypothesis, refuse
from .flows import quadratic_heads

#: the forgeries of every hypothesis of these kinds (tests/soundness)
FORGERIES = "tests/soundness/forgeries/test_lmi.py::"

DRIFT_FREE_QUADRATIC = Hypothesis(
    "drift-free-quadratic", "The embedded problem is a drift-free quadratic flow Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) "
    "(softmax or multi-head softmax, F = 0, b = 0, constant parameters): q_P is the derivative of tr(PΣ) "
    "only for that flow.", FORGERIES + "test_lmi_refuses_a_drift")

P_POSITIVE_DEFINITE = Hypothesis("P-positive-definite", "P is symmetric and P ≻ 0, so tr(PΣ) ≥ 0 on Σ ⪰ 0 and vanishes only at Σ = 0.",
                   FORGERIES + "test_lmi_P_not_positive_definite")


def rational(s) -> flint.fmpq:
    """An exact rational from a certificate's number (a "p/q" string or an int, never a float).

    Parameters
    ----------
    s : str or int
        The stored number.

    Returns
    -------
    flint.fmpq
        Its exact value.
    """
    if not isinstance(s, (str, int)) or isinstance(s, bool):
        raise ValueError(f"expected an exact number as a string, got {s!r}")
    return fmpq_of(s)


def exact_heads(kind, problem):
    """[(C_h, A_h)] exactly from the embedded problem (A scaled by the temperature).

    Parameters
    ----------
    kind : str
        The kind, for the messages.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (drift-free quadratic flow).

    Returns
    -------
    list of (flint.fmpq_mat, flint.fmpq_mat)
        The heads.
    """
    if problem is None:
        refuse(f"{kind} certificate: needs an embedded problem")
    if problem.F is not None and any(x != 0 for row in problem.F for x in row):
        refuse(f"{kind} certificate: the problem has a feed-forward drift F ≠ 0 (not covered)")
    if problem.b is not None and any(x != 0 for x in problem.b):
        refuse(f"{kind} certificate: the problem has a bias drift b ≠ 0 (not covered)")
    try:
        return quadratic_heads(problem)
    except InvalidParameters as exc:
        refuse(f"{kind} certificate: {exc.reason}")


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


def svec_weights(P, d):
    """The svec weights p of P: tr(PΣ) = pᵀs on the plain svec coordinates s.

    Parameters
    ----------
    P : flint.fmpq_mat
        The d×d weight.
    d : int
        The dimension.

    Returns
    -------
    list of flint.fmpq
        P_ii on the diagonal entries, 2P_ij off it.
    """
    return [P[i, i] if i == j else 2 * P[i, j] for i in range(d) for j in range(i, d)]


def matrix_P(kind, data, d):
    """P from the data after checking that it is a symmetric positive definite d×d matrix.

    Parameters
    ----------
    kind : str
        The kind, for the messages.
    data : dict
        The certificate's data.
    d : int
        The dimension.

    Returns
    -------
    flint.fmpq_mat
        P.
    """
    raw = data["P"]
    if not isinstance(raw, list) or len(raw) != d or any(not isinstance(r, list) or len(r) != d for r in raw):
        refuse(f"{kind} certificate: P must be a {d}×{d} matrix")
    P = flint.fmpq_mat(d, d, [rational(x) for r in raw for x in r])
    if P != P.transpose():
        refuse(f"{kind} certificate: P is not symmetric")
    if inertia(P)[0] != d:
        refuse(f"{kind} certificate: P is not positive definite")
    return P


def proved_only(kind, cert):
    """Refuse a status other than PROVED (an LMI proves, it never refutes).

    Parameters
    ----------
    kind : str
        The kind, for the message.
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate.
    """
    if cert.status != "PROVED":
        refuse(f"{kind} certificate: only PROVED is meaningful, not {cert.status!r}")


def lmi_start(kind, cert, problem):
    """(heads, d, P) after the checks every LMI kind starts with: PROVED, the heads, P ≻ 0.

    Parameters
    ----------
    kind : str
        The kind, for the messages.
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem.

    Returns
    -------
    tuple
        The exact heads, the dimension d and P.
    """
    proved_only(kind, cert)
    heads = exact_heads(kind, problem)
    d = problem.d
    return heads, d, matrix_P(kind, cert.data, d)


def frobenius_sq(M):
    """‖M‖_F² exactly.

    Parameters
    ----------
    M : flint.fmpq_mat
        The matrix.

    Returns
    -------
    flint.fmpq
        The sum of the squared entries.
    """
    return sum((M[i, j] ** 2 for i in range(M.nrows()) for j in range(M.ncols())), flint.fmpq(0))
