"""Checker of ``trace-growth-lmi``: for (multi-head) softmax with or without an affine drift, a trace
functional tr(PΣ) whose quadratic part is non-positive *on the cone Σ ⪰ 0* (not on all symmetric
matrices) bounds every solution: global existence, bounded (κ ≤ 0) or at most exponential growth
(κ > 0), for every Σ₀ ⪰ 0.  Mathematics: docs/mathematics.md §5 ("trace functionals on the cone").

The covariance flow is Σ̇ = FΣ + ΣFᵀ + Q(Σ), Q(Σ) = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) (the bias b does not
enter it).  It has the form KΣ + ΣKᵀ, so Σ(t) = U(t)Σ₀U(t)ᵀ stays ⪰ 0 while it exists.

**Data.**  ``P`` (d×d), ``lam`` (one rational per pair i < j, in the order (0,1), (0,2), …, (1,2), …),
``kappa``.  **Checks** (all exact over ℚ):

1. the problem is softmax / multi-head softmax (any drift F, or none); P = Pᵀ ≻ 0;
2. λ_ij ≥ 0, and M = Q_P + Σ_{i<j} λ_ij·D_ij ⪯ 0 on the plain svec coordinates, where Q_P is the
   form of q_P(Σ) = tr(P·Q(Σ)) (:func:`~symbolic_tf.certify.check.lmi.trace_qform`) and D_ij the form
   of the principal 2×2 minor Σ_iiΣ_jj − Σ_ij²;
3. PF + FᵀP − κP ⪯ 0 (F = 0 without drift).

**Why.**  Every principal minor of a PSD matrix is ≥ 0, so on the cone q_P(Σ) ≤ −Σ λ_ij·minor_ij ≤ 0
by 2 — an S-procedure: q_P itself may be indefinite on Sym(d) (e.g. a skew A in d = 2, where
q_P(Σ) = 2·tr(PVA)·det Σ).  By 3, tr((PF + FᵀP)Σ) ≤ κ·tr(PΣ) for Σ ⪰ 0.  Hence
d/dt tr(PΣ) = tr((PF + FᵀP)Σ) + q_P(Σ) ≤ κ·tr(PΣ) and tr(PΣ(t)) ≤ e^{κt}·tr(PΣ₀); since
‖Σ‖ ≤ tr Σ ≤ tr(PΣ)/λ_min(P) for Σ ⪰ 0, Σ stays bounded on every finite interval, so the solution is
global.  Claim BOUNDED (κ ≤ 0) or GLOBAL_EXISTENCE (κ > 0) for every Σ₀ ⪰ 0.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import inertia
from ....spec.errors import CertificationFailed, InvalidParameters
from ..flows import quadratic_heads
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..krawczyk_box import rat, square
from ..lmi import trace_qform
from ..tube_replay import svec_pairs

KIND = "trace-growth-lmi"

_T = "tests/soundness/forgeries/test_trace_growth.py::"
HYPOTHESES = (
    Hypothesis("proved-status", "Only PROVED is meaningful: the argument proves a bound, it refutes nothing.",
               _T + "test_refuted_status"),
    Hypothesis("quadratic-field", "The flow is softmax or multi-head softmax, with or without the affine drift "
               "Fx + b: Σ̇ = FΣ + ΣFᵀ + Q(Σ) with Q(Σ) = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ), of congruence form, so "
               "Σ(t) ⪰ 0 while it exists.", _T + "test_not_quadratic"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t.", _T + "test_schedule"),
    Hypothesis("P-pd", "P = Pᵀ ≻ 0 exactly, so tr(PΣ) ≥ λ_min(P)·tr Σ ≥ λ_min(P)·‖Σ‖ on the cone: a bound on "
               "tr(PΣ) bounds Σ.", _T + "test_P_not_positive_definite"),
    Hypothesis("lambda-nonneg", "One multiplier λ_ij ≥ 0 per pair i < j: the principal minors "
               "Σ_iiΣ_jj − Σ_ij² are ≥ 0 on the cone, so only non-negative multiples may be added.",
               _T + "test_negative_multiplier"),
    Hypothesis("cone-lmi", "Q_P + Σ_(i<j) λ_ij·D_ij ⪯ 0 exactly on the svec coordinates (D_ij the form of the minor), "
               "so q_P(Σ) = tr(P·Q(Σ)) ≤ −Σ λ_ij·minor_ij(Σ) ≤ 0 for every Σ ⪰ 0 (an S-procedure).",
               _T + "test_cone_lmi_fails"),
    Hypothesis("drift-kappa", "PF + FᵀP − κP ⪯ 0 exactly (F = 0 without drift), so "
               "d/dt tr(PΣ) ≤ κ·tr(PΣ) and tr(PΣ(t)) ≤ e^(κt)·tr(PΣ₀): the solution is global.",
               _T + "test_kappa_too_small"),
    Hypothesis("regime-label", "The regime is BOUNDED when κ ≤ 0 and GLOBAL_EXISTENCE when κ > 0 (derived from κ, "
               "never read).", _T + "test_regime_label"),
)


_bad = refusal(KIND)


def minor_forms(d):
    """The exact svec forms D_ij of the principal 2×2 minors Σ_iiΣ_jj − Σ_ij², i < j.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    list of flint.fmpq_mat
        One symmetric m×m matrix per pair (i, j), i < j, in row-major order (m = d(d+1)/2; plain
        svec coordinates s_k = Σ_ij, k = (i, j), i ≤ j).
    """
    index = {ij: k for k, ij in enumerate(svec_pairs(d))}
    m = len(index)
    out = []
    for i in range(d):
        for j in range(i + 1, d):
            D = flint.fmpq_mat(m, m)
            a, b, c = index[(i, i)], index[(j, j)], index[(i, j)]
            D[a, b] = D[b, a] = flint.fmpq(1, 2)
            D[c, c] = -1
            out.append(D)
    return out


def cone_form(P, lam, heads, d):
    """M = Q_P + Σ λ_ij·D_ij (check 2 of the module docstring), exactly.

    Parameters
    ----------
    P : flint.fmpq_mat
        The weight.
    lam : list of flint.fmpq
        The multipliers, one per pair i < j.
    heads : list of (flint.fmpq_mat, flint.fmpq_mat)
        The exact heads (C_h, A_h).
    d : int
        The dimension.

    Returns
    -------
    flint.fmpq_mat
        The symmetric matrix M.
    """
    M = trace_qform(P, heads, d)
    for lij, D in zip(lam, minor_forms(d)):
        M = M + D * lij
    return M


@kind(KIND, {"P": "rat[][]", "lam": "rat[]", "kappa": "rat"}, hypotheses=HYPOTHESES)
def check_trace_growth(cert, problem):
    """PROVED: for every Σ₀ ⪰ 0 the solution is global, with tr(PΣ(t)) ≤ e^{κt}·tr(PΣ₀) — BOUNDED
    when κ ≤ 0, GLOBAL_EXISTENCE when κ > 0.

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: softmax or multi-head softmax, with or without drift.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BOUNDED" or "GLOBAL_EXISTENCE", EVERY_PSD, {}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the problem is not covered or a check fails exactly.
    """
    if cert.status != "PROVED":
        _bad("status must be PROVED")
    if problem is None:
        _bad("needs an embedded problem")
    try:
        heads = quadratic_heads(problem)
    except InvalidParameters as exc:
        _bad(f"the flow is not softmax / multi-head softmax (± drift): {exc.reason}")
    d = problem.d
    data = cert.data
    P = square(data["P"], d, "P", _bad)
    if P != P.transpose() or inertia(P)[0] != d:
        _bad("P is not symmetric positive definite")
    lam = [rat(x) for x in data["lam"]]
    if len(lam) != d * (d - 1) // 2 or any(x < 0 for x in lam):
        _bad(f"lam needs {d * (d - 1) // 2} non-negative multipliers (one per pair i < j)")
    pos = inertia(cone_form(P, lam, heads, d))[0]
    if pos:
        _bad(f"Q_P + Σ λ_ij·D_ij is not negative semidefinite ({pos} positive eigenvalue(s))")
    kappa = rat(data["kappa"])
    F = flint.fmpq_mat(d, d) if problem.F is None else problem.exact.F
    if inertia(P * F + F.transpose() * P - P * kappa)[0]:
        _bad("PF + FᵀP − κP is not negative semidefinite")
    regime = "BOUNDED" if kappa <= 0 else "GLOBAL_EXISTENCE"
    return "PROVED", Claim(regime, Quantifier.EVERY_PSD, {})
