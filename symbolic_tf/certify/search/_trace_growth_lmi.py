"""Search of ``trace-growth-lmi`` certificates (:mod:`symbolic_tf.certify.check.kinds.trace_growth_lmi`): a trace
functional tr(PΣ) with q_P(Σ) = tr(P·Q(Σ)) ≤ 0 on the cone Σ ⪰ 0 — certified by the S-procedure
Q_P + Σ_{i<j} λ_ij·D_ij ⪯ 0 with the principal 2×2 minors D_ij — and a rate κ with
PF + FᵀP ⪯ κP.  Then every Σ₀ ⪰ 0 has a global solution with tr(PΣ(t)) ≤ e^{κt}·tr(PΣ₀).

The semidefinite program (Clarabel) is a float guess; P and λ are rounded to short rationals (several
roundings are tried: the optimum is often on the boundary, where only the exact values pass, e.g.
λ = −2·tr(PVA) for a skew A in d = 2) and κ is rounded up; the kind's checker decides.
"""
from __future__ import annotations

import time
import warnings
from fractions import Fraction

import flint
import numpy as np

from ...exact.definiteness import inertia, kernel_basis
from ...exact.rational import dyadic, fmpq_of, frac_str
from ...spec.errors import CertificationFailed, InvalidParameters
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ...variants import quadratic_heads
from ..check.certificate import Certificate, mat_str

__all__ = ["find_trace_growth"]

ARGUMENT = "trace-functional-on-the-PSD-cone+S-procedure"
_CLAIM0 = "for every Σ₀ ⪰ 0: the solution is global and tr(PΣ) grows at most exponentially"


def find_trace_growth(problem) -> Verdict:
    """PROVED (BOUNDED or GLOBAL_EXISTENCE, for every Σ₀ ⪰ 0) with a ``trace-growth-lmi`` certificate,
    or UNDECIDED with the reason.
    """
    t0 = time.perf_counter()
    try:
        heads = quadratic_heads(problem)
    except InvalidParameters as exc:
        return Verdict(UNDECIDED, _CLAIM0, reason=exc.reason)
    d = problem.d
    F = flint.fmpq_mat(d, d) if problem.F is None else problem.exact.F
    guess = _sdp(heads, d)
    numerical = {"sdp_seconds": time.perf_counter() - t0}
    if isinstance(guess, str):
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason=guess)
    for P, lam in _roundings(*guess):
        if not _exact_ok(P, lam, heads, d):
            continue
        kappa = _rate(P, F)
        if kappa is None:
            continue
        data = {"P": mat_str(P), "lam": [frac_str(x) for x in lam],
                "kappa": frac_str(kappa)}
        return _finish(problem, data, kappa, numerical, t0)
    # a boundary case (e.g. A + Aᵀ singular): every feasible M annihilates the svec of the rank-one Σ on the common
    # null space of the sym Ã_h, so the feasible set has no interior; solve on that face and round onto it exactly
    for P, lam in _face_roundings(heads, d):
        if not _exact_ok(P, lam, heads, d):
            continue
        kappa = _rate(P, F)
        if kappa is None:
            continue
        data = {"P": mat_str(P), "lam": [frac_str(x) for x in lam], "kappa": frac_str(kappa)}
        return _finish(problem, data, kappa, numerical, t0)
    numerical["seconds"] = time.perf_counter() - t0
    return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                   reason="the SDP's trace functional did not survive exact rounding")


def _float(M):
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def _sdp(heads, d):
    """(P, λ) floats with P ⪰ I, λ ≥ 0 and Q_P + Σλ_ij·D_ij ⪯ 0 (minimising tr P), or the reason."""
    import cvxpy as cp

    from ..check.lmi import trace_qform
    from ..check.kinds.trace_growth_lmi import minor_forms

    basis = []
    for i in range(d):
        for j in range(i, d):
            E = flint.fmpq_mat(d, d)
            E[i, j] = E[j, i] = 1
            basis.append(E)
    Qs = [_float(trace_qform(E, heads, d)) for E in basis]
    Ds = [_float(D) for D in minor_forms(d)]
    p = cp.Variable(len(basis))
    lam = cp.Variable(len(Ds), nonneg=True) if Ds else None
    P = sum(p[k] * _float(E) for k, E in enumerate(basis))
    M = sum(p[k] * Q for k, Q in enumerate(Qs))
    if Ds:
        M = M + sum(lam[k] * D for k, D in enumerate(Ds))
    prob = cp.Problem(cp.Minimize(cp.trace(P)), [P >> np.eye(d), (M + M.T) / 2 << 0])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prob.solve(solver="CLARABEL")
    except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
        return f"the SDP failed ({type(exc).__name__})"
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or p.value is None:
        return f"no trace functional is non-increasing in its quadratic part on the PSD cone (SDP {prob.status})"
    Pf = np.array(P.value, dtype=float)
    return 0.5 * (Pf + Pf.T), ([] if lam is None else [max(0.0, float(x)) for x in lam.value])


def _nullspace(M):
    """An exact basis (list of fmpq column vectors as lists) of {w : Mw = 0}."""
    return kernel_basis(M)


def _kernel_vectors(heads, d):
    """svec(sym(w_a w_bᵀ)) for a basis w_a of the common null space of every sym(Ã_h): there q_P(Σ) = 0 for
    every P and every principal minor vanishes on rank-one Σ, so sᵀMs = 0 with M ⪯ 0 forces Ms = 0."""
    from ..check.tube_replay import svec_pairs

    rows = []
    for _, At in heads:
        S = (At + At.transpose()) / 2
        rows += [[S[i, j] for j in range(d)] for i in range(d)]
    W = _nullspace(flint.fmpq_mat(rows))
    out = []
    for a in range(len(W)):
        for b in range(a, len(W)):
            wa, wb = W[a], W[b]
            out.append([(wa[i] * wb[j] + wb[i] * wa[j]) / 2 for i, j in svec_pairs(d)])
    return out


def _face_roundings(heads, d):
    """(P, λ) exactly on the face {M(P, λ)s = 0 for the kernel vectors s}: the SDP with those equalities
    maximises the margin of M on their orthogonal complement, the float optimum is rounded and then
    projected onto the face exactly (least-norm correction over ℚ)."""
    import cvxpy as cp

    from ..check.kinds.trace_growth_lmi import cone_form

    kern = _kernel_vectors(heads, d)
    if not kern:
        return
    m = d * (d + 1) // 2
    basis = []
    for i in range(d):
        for j in range(i, d):
            E = flint.fmpq_mat(d, d)
            E[i, j] = E[j, i] = 1
            basis.append(E)
    n_lam = d * (d - 1) // 2
    zero_lam = [flint.fmpq(0)] * n_lam
    # M is linear in z = (p, λ): its exact columns, and the exact map B: z ↦ (M(z)s)_s
    cols = [cone_form(E, zero_lam, heads, d) for E in basis]
    cols += [cone_form(flint.fmpq_mat(d, d), [flint.fmpq(int(k == l)) for l in range(n_lam)], heads, d)
             for k in range(n_lam)]
    svecs = [flint.fmpq_mat(m, 1, s) for s in kern]
    B = flint.fmpq_mat([[(Mk * s)[i, 0] for Mk in cols] for s in svecs for i in range(m)])
    Mf = [_float(Mk) for Mk in cols]
    Sf = np.array([[float(x) for x in s] for s in kern])
    Qo, _ = np.linalg.qr(Sf.T)
    comp = np.eye(m) - Qo @ Qo.T
    z = cp.Variable(len(cols))
    t = cp.Variable()
    M = sum(z[k] * Mf[k] for k in range(len(cols)))
    P = sum(z[k] * _float(E) for k, E in enumerate(basis))
    cons = [P >> np.eye(d), cp.trace(P) <= 100 * d, (M + M.T) / 2 << -t * comp,
            *(M @ sv == 0 for sv in Sf)]
    if n_lam:
        cons.append(z[len(basis):] >= 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cp.Problem(cp.Maximize(t), cons).solve(solver="CLARABEL")
    except (cp.error.SolverError, ValueError, ArithmeticError):
        return
    if t.value is None or not t.value > 1e-9 or z.value is None:
        return
    # the independent rows of B, then z' = z − Rᵀ(RRᵀ)⁻¹Rz: exactly on the face
    Rr, rank = B.rref()
    R = flint.fmpq_mat([[Rr[i, j] for j in range(B.ncols())] for i in range(rank)]) if rank else None
    for den in (10 ** 4, 10 ** 6, 10 ** 9):
        zq = flint.fmpq_mat(len(cols), 1, [fmpq_of(Fraction(float(x)).limit_denominator(den)) for x in z.value])
        if R is not None:
            zq = zq - R.transpose() * (R * R.transpose()).inv() * (R * zq)
        vals = [zq[k, 0] for k in range(len(cols))]
        lam = vals[len(basis):]
        if any(x < 0 for x in lam):
            continue
        Pq = flint.fmpq_mat(d, d)
        for k, (i, j) in enumerate((i, j) for i in range(d) for j in range(i, d)):
            Pq[i, j] = Pq[j, i] = vals[k]
        yield Pq, lam


def _roundings(Pf, lamf):
    """Candidate exact (P, λ): short rationals first (boundary optima are often exact there), then dyadics."""
    d = Pf.shape[0]
    scale = float(np.abs(Pf).max())
    for how in (lambda x: Fraction(x).limit_denominator(64), lambda x: Fraction(x).limit_denominator(10 ** 4),
                lambda x: dyadic(x, 30)):
        P = flint.fmpq_mat(d, d)
        for i in range(d):
            for j in range(i, d):
                q = how(Pf[i, j] / scale)
                P[i, j] = P[j, i] = fmpq_of(q)
        lam = []
        for x in lamf:
            q = how(x / scale)
            lam.append(fmpq_of(max(q, Fraction(0))))
        yield P, lam


def _exact_ok(P, lam, heads, d) -> bool:
    from ..check.kinds.trace_growth_lmi import cone_form

    return inertia(P)[0] == d and inertia(cone_form(P, lam, heads, d))[0] == 0


def _rate(P, F):
    """A rational κ slightly above the largest generalized eigenvalue of (PF + FᵀP, P), with
    PF + FᵀP − κP ⪯ 0 verified exactly (0 when that already holds with κ = 0); None if none found."""
    R = P * F + F.transpose() * P
    if inertia(R)[0] == 0:
        return Fraction(0)
    Pf, Rf = _float(P), _float(R)
    L = np.linalg.cholesky(Pf)
    Li = np.linalg.inv(L)
    top = float(np.linalg.eigvalsh(Li @ Rf @ Li.T).max())
    for bump in (1e-9, 1e-6, 1e-3):
        k = dyadic(top + bump * (1.0 + abs(top)), 30)
        kq = fmpq_of(k)
        if inertia(R - P * kq)[0] == 0:
            return k
    return None


def _finish(problem, data, kappa, numerical, t0) -> Verdict:
    from ..check import check
    from ..check.claims import Claim, Quantifier

    regime = "BOUNDED" if kappa <= 0 else "GLOBAL_EXISTENCE"
    claim = Claim(regime, Quantifier.EVERY_PSD, {})
    cert = Certificate.for_problem(problem, "trace-growth-lmi", claim, PROVED, data)
    numerical["seconds"] = time.perf_counter() - t0
    try:
        check(cert)   # the independent checker: a PROVED verdict must re-verify
    except CertificationFailed as exc:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=f"the certificate failed the independent check: {exc}")
    rate = "tr(PΣ) is non-increasing" if kappa <= 0 else f"tr(PΣ(t)) ≤ e^{{{float(kappa):.6g}t}}·tr(PΣ₀)"
    return Verdict(PROVED, claim.text(), ARGUMENT, {"certificate": cert.to_dict()}, numerical,
                   f"for every Σ₀ ⪰ 0 the solution is global: {rate} (q_P ≤ 0 on the PSD cone by an S-procedure "
                   "with the principal 2×2 minors; verified exactly)")


# ---- route ----
from .routes import declare, quadratic_family, searching  # noqa: E402 - the route is declared after its search

_MAX_D = 8


def _trace_growth_applies(problem, ctx):
    if problem.d > _MAX_D:
        return f"d ≤ {_MAX_D} only (the S-procedure LMI and its exact inertia have d(d+1)/2 rows)"
    return quadratic_family(problem)


# one small SDP (measured p50 ≈ 0.04 s on fresh problems, benchmarks/fresh_problems.py) placed before the
# validated tubes, which cost seconds each: a budget then ends on a proved global claim, not on nothing.  It says
# less than an equilibrium, a basin or a limit: when the float solution settles, prove() holds it (SHARPER) while
# the later routes of sharper regimes try
declare("trace-growth", 52, ("BOUNDED", "GLOBAL_EXISTENCE"), _trace_growth_applies, searching(find_trace_growth),
        modes=("point", "uniform"),
        doc="Every Σ₀ ⪰ 0 has a global solution, bounded or growing at most like e^{κt} (a trace functional, "
            "S-procedure); quadratic flows, any drift, d ≤ 8.")
