"""Trace-functional LMI certificates for the softmax covariance flow (docs/mathematics.md §5).

For the softmax flow Σ̇ = Σ_h C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ (single head: C = V; multi-head:
C_h = W_hV_h, W_h = I by default; A scaled by the temperature) and a symmetric P, the
functional L(Σ) = tr(PΣ) has

    L̇ = q_P(Σ) := 2 Σ_h tr(P C_h Σ A_h Σ),

a quadratic form in the symmetric matrix Σ, linear in P.  On the *plain* svec coordinates
s ∈ ℝ^m, m = d(d+1)/2, Σ = Σ_k s_k E_k with E_ii = e_ie_iᵀ and E_ij = e_ie_jᵀ + e_je_iᵀ
(i < j; so s_k is the entry Σ_ij, no √2 and everything stays rational):

    q_P(Σ) = sᵀ Q_P s,   tr(PΣ) = pᵀ s,   Q_P = Sᵀ(K + Kᵀ)S,   K = Σ_h (P C_h)ᵀ ⊗ A_h,

with S the d²×m matrix whose column k is vec E_k (row-major vec).

Two certificate kinds (checked independently by :mod:`symbolic_tf.certify.check.lmi` and its kinds):

``bounded-lmi``  P ≻ 0 with Q_P ⪯ 0: tr(PΣ(t)) is non-increasing, so for every Σ₀ ⪰ 0 the
                 solution is global and bounded (‖Σ‖ ≤ tr Σ ≤ tr(PΣ₀)/λ_min(P)).
``blowup-lmi``   P ≻ 0, c > 0 with Q_P − c ppᵀ ⪰ 0: L̇ ≥ cL², so every Σ₀ ⪰ 0, Σ₀ ≠ 0
                 blows up before T_hi = 1/(c tr(PΣ₀)); the norm bound
                 ‖Σ̇‖_F ≤ Σ_h 2‖C_h‖_F‖A_h‖_F ‖Σ‖_F² gives T* ≥ T_lo = 1/(u_Σ Σ_h 2 u_{C_h} u_{A_h})
                 for rational u's ≥ the Frobenius norms.

Search (floats search, rationals decide):

1. exact structured candidates first — P = I, P = C⁻¹ for a symmetric positive definite value
   matrix C (a head's or their sum); the theory says P = V⁻¹ proves boundedness whenever
   V = Vᵀ ≻ 0 and A + Aᵀ ⪯ 0, including singular A + Aᵀ where a rounded float P fails;
2. a parametrised cvxpy SDP (built once per (kind, d) and reused: the data enter as the
   numeric m²×m matrix G with vec Q_P = G·svec(P), a DPP parameter).  Bounded: maximise t
   with Q_P + tΠ ⪯ 0, P ⪰ tI, tr P = d over svec P = Bz, B spanning {P : Q_P N = 0}, where N
   spans the *forced* kernel (svec Sym(K) for K = ker(A+Aᵀ) and K = ker C, exactly; extended
   by facial reduction from the rationalised numerical kernel of the solution) and Π
   projects on N^⊥.  Blow-up: minimise γ with
   [[Q_P, p], [pᵀ, γ]] ⪰ 0, P ⪰ δI, tr(PΣ̂) = 1 (Σ̂ ≈ Σ₀ normalised), i.e. c = 1/γ;
3. rounding: P ← Fraction.limit_denominator(10^k) entrywise for increasing k (svec, so
   symmetric by construction), then an exact orthogonal projection onto {P : Q_P N = 0};
   the blow-up constant is then exact: c_max = 1/(pᵀQ_P⁻¹p) for Q_P ≻ 0, rounded *down*;
4. exact verification (charpoly inertia over ℚ), then the independent checker
   :func:`symbolic_tf.certify.check.check` on the finished certificate.  Any solver failure,
   infeasibility or failed verification gives UNDECIDED with the reason — never a wrong label.

The cached cvxpy problems are module state: not thread-safe (use processes).
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ...exact.definiteness import inertia, is_pd, kernel_basis
from ...exact.rational import frac_str, fraction_of, Q as _Q
from ...spec.errors import CertificationFailed
from ...spec.errors import InvalidParameters
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ...variants import quadratic_heads
from ..check.certificate import Certificate, mat_str, vec_str

__all__ = ["KIND_BOUNDED", "KIND_BLOWUP", "NotApplicable", "lmi_heads", "svec_index", "q_matrix",
           "p_vector", "g_matrix", "find_bounded_certificate", "find_blowup_certificate",
           "clear_cache"]

KIND_BOUNDED = "bounded-lmi"
KIND_BLOWUP = "blowup-lmi"
ARGUMENT = "lmi-trace-functional"

BOUNDED_CLAIM = ("for every Σ₀ ⪰ 0 the covariance flow is global and bounded: "
                 "tr(PΣ(t)) ≤ tr(PΣ₀) for all t ≥ 0")

_T_TOL = 1e-7          # |margin| below this counts as "on the boundary" (normalised data)
_ROUND_DIGITS = (3, 4, 5, 6, 8, 10, 12)
_DELTA = 1e-4          # P ⪰ δI in the blow-up program (keeps the rounded P definite)


class NotApplicable(ValueError):
    """The problem is not a drift-free softmax / multi-head-softmax problem."""


class _SolverFailure(RuntimeError):
    pass


_NUMERIC_ERRORS = (ValueError, ArithmeticError, np.linalg.LinAlgError)


# --------------------------------------------------------------------------- exact data
def lmi_heads(problem) -> list[tuple[flint.fmpq_mat, flint.fmpq_mat]]:
    """[(C_h, A_h)] exactly (A_h scaled by the temperature); raises :class:`NotApplicable`."""
    if problem.F is not None and any(x != 0 for row in problem.F for x in row):
        raise NotApplicable("the LMI certificates cover the drift-free flow only (F ≠ 0)")
    if problem.b is not None and any(x != 0 for x in problem.b):
        raise NotApplicable("the LMI certificates cover the drift-free flow only (b ≠ 0)")
    try:
        return quadratic_heads(problem)
    except InvalidParameters as exc:
        raise NotApplicable(f"the LMI certificates cover the quadratic (softmax-type) covariance flow only: "
                            f"{exc}") from None


def svec_index(d: int) -> list[tuple[int, int]]:
    """The svec order: (i, j), i ≤ j, row by row."""
    return [(i, j) for i in range(d) for j in range(i, d)]


def _svec_mat_exact(d: int) -> flint.fmpq_mat:
    idx = svec_index(d)
    m = len(idx)
    S = flint.fmpq_mat(d * d, m)
    for k, (i, j) in enumerate(idx):
        S[i * d + j, k] = 1
        S[j * d + i, k] = 1
    return S


def _svec_mat_float(d: int) -> np.ndarray:
    idx = svec_index(d)
    S = np.zeros((d * d, len(idx)))
    for k, (i, j) in enumerate(idx):
        S[i * d + j, k] = 1.0
        S[j * d + i, k] = 1.0
    return S


def _kron(X: flint.fmpq_mat, Y: flint.fmpq_mat) -> flint.fmpq_mat:
    n, p = X.nrows(), Y.nrows()
    xs = [[X[i, j] for j in range(n)] for i in range(n)]
    ys = [[Y[k, l] for l in range(p)] for k in range(p)]
    ent = [xs[i][j] * ys[k][l] for i in range(n) for k in range(p) for j in range(n) for l in range(p)]
    return flint.fmpq_mat(n * p, n * p, ent)


def q_matrix(P: flint.fmpq_mat, heads, S: flint.fmpq_mat | None = None) -> flint.fmpq_mat:
    """Q_P (m×m, exact): q_P(Σ) = sᵀQ_Ps on plain svec coordinates."""
    d = P.nrows()
    S = _svec_mat_exact(d) if S is None else S
    K = None
    for C, A in heads:
        k = _kron((P * C).transpose(), A)
        K = k if K is None else K + k
    return S.transpose() * (K + K.transpose()) * S


def p_vector(P: flint.fmpq_mat) -> list:
    """p with tr(PΣ) = pᵀs: p_k = P_ii, or 2P_ij for i < j."""
    return [P[i, j] if i == j else 2 * P[i, j] for i, j in svec_index(P.nrows())]


def _sym_from_svec(x, d: int) -> flint.fmpq_mat:
    P = flint.fmpq_mat(d, d)
    for k, (i, j) in enumerate(svec_index(d)):
        P[i, j] = x[k]
        P[j, i] = x[k]
    return P


def g_matrix(heads_float, d: int) -> np.ndarray:
    """The m²×m float matrix G with vec_rowmajor(Q_P) = G·svec(P) (P = Σ_r x_r E_r)."""
    idx = svec_index(d)
    m = len(idx)
    S = _svec_mat_float(d)
    G = np.zeros((m * m, m))
    for r, (i, j) in enumerate(idx):
        E = np.zeros((d, d))
        E[i, j] = E[j, i] = 1.0
        K = sum(np.kron((E @ C).T, A) for C, A in heads_float)
        G[:, r] = (S.T @ (K + K.T) @ S).reshape(-1)
    return G


def _to_float(M: flint.fmpq_mat) -> np.ndarray:
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def _nullspace(M: flint.fmpq_mat) -> list[list]:
    """A rational basis of ker M (from the reduced row echelon form)."""
    return kernel_basis(M)


# --------------------------------------------------------------------------- exact tests
def _bounded_ok(P: flint.fmpq_mat, heads, S) -> bool:
    return is_pd(P) and inertia(q_matrix(P, heads, S))[0] == 0


def _blowup_c(P: flint.fmpq_mat, heads, S):
    """Largest (rounded-down) rational c with Q_P − c ppᵀ ⪰ 0, verified exactly; else None."""
    if not is_pd(P):
        return None
    Qm = q_matrix(P, heads, S)
    m = Qm.nrows()
    if inertia(Qm)[0] != m:  # Q_P must be PD for a usable c (q_P(vvᵀ) > 0 is necessary)
        return None
    p = p_vector(P)
    pv = flint.fmpq_mat(m, 1, p)
    qinv_p = (pv.transpose() * Qm.solve(pv))[0, 0]
    cmax = fraction_of(1 / qinv_p)
    if cmax <= 0:
        return None
    # round down to ~10 significant digits: short data, and still within 1e-9 of optimal
    c = _round_sig(cmax, up=False)
    cq = _Q(c)
    M = Qm - (pv * pv.transpose()) * cq
    if inertia(M)[1] != 0:
        return None
    return c


# --------------------------------------------------------------------------- candidates
def _structured_candidates(heads, d):
    """Exact P's suggested by the theory: I, and C⁻¹ for symmetric PD value matrices."""
    I = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    out = [("P = I", I)]
    Cs = [C for C, _ in heads]
    if len(Cs) > 1:
        tot = Cs[0]
        for C in Cs[1:]:
            tot = tot + C
        Cs = Cs + [tot]
    seen = {tuple(I.entries())}
    for k, C in enumerate(Cs):
        if C != C.transpose() or inertia(C)[0] != d:
            continue
        P = C.inv()
        key = tuple(P.entries())
        if key in seen:
            continue
        seen.add(key)
        name = "P = V⁻¹" if len(heads) == 1 else (f"P = C_{k}⁻¹" if k < len(heads) else "P = (Σ_h C_h)⁻¹")
        out.append((name, P))
    return out


# --------------------------------------------------------------------------- cvxpy programs
@dataclass
class _Program:
    problem: object
    params: dict
    vars: dict


_PROGRAMS: dict[tuple[str, int], _Program] = {}


def clear_cache() -> None:
    """Forget the cached parametrised cvxpy problems."""
    _PROGRAMS.clear()


def _svec_expr(P, d):
    import cvxpy as cp

    return cp.hstack([P[i, j] for i, j in svec_index(d)])


def _build_bounded(d: int) -> _Program:
    """max t  s.t.  Q_P + tΠ ⪯ 0,  P ⪰ tI,  tr P = d,  svec P = Bz.

    B (m×m, zero-padded) spans {x : Q_x N = 0} for the forced kernel N (B = I without one),
    so the kernel constraints cost no equality rows; GB = G·B and the trace row w·B are
    numeric parameters (DPP: parameter @ variable only)."""
    import cvxpy as cp

    m = d * (d + 1) // 2
    z = cp.Variable(m)
    t = cp.Variable()
    GB = cp.Parameter((m * m, m))
    B = cp.Parameter((m, m))
    tw = cp.Parameter(m)
    Pc = cp.Parameter((m, m), symmetric=True)
    Qe = cp.reshape(GB @ z, (m, m), order="C")
    Qs = (Qe + Qe.T) / 2
    Pe = cp.reshape(_svec_mat_float(d) @ (B @ z), (d, d), order="C")
    Ps = (Pe + Pe.T) / 2
    cons = [Qs + t * Pc << 0, Ps - t * np.eye(d) >> 0, tw @ z == d]
    prob = cp.Problem(cp.Maximize(t), cons)
    return _Program(prob, {"GB": GB, "B": B, "tw": tw, "Pc": Pc}, {"z": z, "t": t})


def _build_blowup(d: int) -> _Program:
    import cvxpy as cp

    m = d * (d + 1) // 2
    P = cp.Variable((d, d), symmetric=True)
    g = cp.Variable()
    x = _svec_expr(P, d)
    G = cp.Parameter((m * m, m))
    Sh = cp.Parameter((d, d), symmetric=True)
    Dp = np.diag([1.0 if i == j else 2.0 for i, j in svec_index(d)])
    p = Dp @ x
    Qe = cp.reshape(G @ x, (m, m), order="C")
    Qs = (Qe + Qe.T) / 2
    M = cp.bmat([[Qs, cp.reshape(p, (m, 1), order="C")],
                 [cp.reshape(p, (1, m), order="C"), cp.reshape(g, (1, 1), order="C")]])
    cons = [M >> 0, P - _DELTA * np.eye(d) >> 0, cp.sum(cp.multiply(Sh, P)) == 1]
    prob = cp.Problem(cp.Minimize(g), cons)
    return _Program(prob, {"G": G, "Sh": Sh}, {"P": P, "g": g})


def _program(kind: str, d: int, reuse: bool) -> _Program:
    key = (kind, d)
    if reuse and key in _PROGRAMS:
        return _PROGRAMS[key]
    prog = _build_bounded(d) if kind == "bounded" else _build_blowup(d)
    if reuse:
        _PROGRAMS[key] = prog
    return prog


def _solvers(solver):
    if solver is None:
        return ["CLARABEL", "SCS"]
    return [solver] if isinstance(solver, str) else list(solver)


def _solve(prog: _Program, solver, numerical: dict) -> str:
    """Solve with the first solver that reports an optimal status; return its name."""
    import cvxpy as cp

    errors = []
    for name in _solvers(solver):
        kw = {"eps": 1e-9, "max_iters": 20000} if name.upper() == "SCS" else {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "may be inaccurate": status says it
                prog.problem.solve(solver=name, **kw)
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        st = prog.problem.status
        if st in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            numerical.setdefault("solver_calls", []).append({
                "solver": name, "status": st,
                "compile_s": getattr(prog.problem, "compilation_time", None),
                "solve_s": getattr(prog.problem.solver_stats, "solve_time", None)})
            return name
        errors.append(f"{name}: status {st}")
    raise _SolverFailure("; ".join(errors) or "no solver")


# --------------------------------------------------------------------------- rounding
def _round_svec(xf: np.ndarray, digits: int) -> list:
    D = 10 ** digits
    return [_Q(Fraction(float(v)).limit_denominator(D)) for v in xf]


def _projector(L: flint.fmpq_mat | None):
    """x ↦ x − Rᵀ(RRᵀ)⁻¹Rx onto ker L (R a row basis of L), exactly; None if L is None."""
    if L is None:
        return None
    Rr, rk = L.rref()
    if rk == 0:
        return None
    n = L.ncols()
    R = flint.fmpq_mat(rk, n, [Rr[i, j] for i in range(rk) for j in range(n)])
    RRt = R * R.transpose()

    def proj(x):
        xv = flint.fmpq_mat(n, 1, x)
        y = xv - R.transpose() * RRt.solve(R * xv)
        return [y[i, 0] for i in range(n)]
    return proj


def _kernel_constraints(N: list, Qbasis: list) -> flint.fmpq_mat | None:
    """Rows of the linear map x ↦ (Q_x n)_{n ∈ N} (x = svec P), exactly."""
    if not N:
        return None
    m = len(Qbasis)
    rows = []
    for n in N:
        nv = flint.fmpq_mat(m, 1, n)
        cols = [Qr * nv for Qr in Qbasis]  # column r: Q_{E_r} n
        for k in range(m):
            rows.append([cols[r][k, 0] for r in range(m)])
    return flint.fmpq_mat(len(rows), m, [e for row in rows for e in row])


def _orth(N_float: np.ndarray) -> np.ndarray:
    if N_float.size == 0:
        return N_float
    q, r = np.linalg.qr(N_float)
    keep = np.abs(np.diag(r)) > 1e-12 * max(1.0, np.abs(r).max())
    return q[:, keep]


def _rationalise_subspace(B: np.ndarray, limit: int = 3) -> list[list]:
    """Candidate rational bases (small denominators first) of the column space of the float
    matrix B: B is brought to a reduced echelon-like form (identity on well-conditioned pivot
    rows), then each entry is replaced by its best rational approximation with denominator
    ≤ D for D = 1, 2, …, 10⁶; every distinct basis within 10⁻⁴ (relative) is a candidate."""
    from scipy.linalg import qr

    m, r = B.shape
    _, _, piv = qr(B.T, pivoting=True)
    rows = np.sort(piv[:r])
    try:
        Bn = B @ np.linalg.inv(B[rows, :])  # Bn[rows] = I
    except np.linalg.LinAlgError:
        return []
    scale = max(1.0, float(np.abs(Bn).max()))
    out, seen = [], set()
    for D in (1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 30, 50, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6):
        R = [[Fraction(float(v)).limit_denominator(D) for v in row] for row in Bn]
        err = max(abs(float(R[i][j]) - Bn[i, j]) for i in range(m) for j in range(r))
        key = tuple(map(tuple, R))
        if err < 1e-4 * scale and key not in seen:
            seen.add(key)
            out.append([[_Q(R[i][j]) for i in range(m)] for j in range(r)])
            if len(out) >= limit:
                break
    return out


# --------------------------------------------------------------------------- search: bounded
def _common_kernel(mats, d) -> list:
    stack = flint.fmpq_mat(d * len(mats), d)
    for h, M in enumerate(mats):
        for i in range(d):
            for j in range(d):
                stack[h * d + i, j] = M[i, j]
    return _nullspace(stack)


def _structural_kernel(heads, d) -> list:
    """Exact directions every NSD Q_P must annihilate.

    q_P(uuᵀ) = 2 Σ_h (uᵀA_hu)(uᵀPC_hu) vanishes for every P when u ∈ ∩_h ker(A_h + A_hᵀ) or
    u ∈ ∩_h ker C_h; for NSD Q_P such a zero of the form lies in the kernel, hence so does
    the span of {uuᵀ} = Sym(K) for each of these subspaces K: svec(uvᵀ + vuᵀ), u, v ∈ K."""
    out = []
    for K in (_common_kernel([A + A.transpose() for _, A in heads], d),
              _common_kernel([C for C, _ in heads], d)):
        for a in range(len(K)):
            for b in range(a, len(K)):
                u, v = K[a], K[b]
                out.append([u[i] * v[j] + v[i] * u[j] for i, j in svec_index(d)])
    return out


def _independent(vectors: list) -> list:
    if not vectors:
        return []
    m = len(vectors[0])
    M = flint.fmpq_mat(len(vectors), m, [e for v in vectors for e in v])
    R, rk = M.rref()
    return [[R[i, j] for j in range(m)] for i in range(rk)]


def _kernel_sizes(lam: np.ndarray) -> list[int]:
    """Plausible numerical-kernel sizes: k smallest |λ| below 10⁻³·scale and separated from
    the next one by a factor ≥ 100 (or all of them)."""
    a = np.sort(np.abs(lam))
    if a.size == 0:
        return []
    scale = max(1.0, float(a.max()))
    out = []
    for i in range(len(a)):
        if a[i] >= 1e-3 * scale:
            break
        if i + 1 == len(a) or a[i + 1] > 100 * max(a[i], 1e-14 * scale):
            out.append(i + 1)
    return out


_MAX_SOLVES = 12


def _search_bounded(heads, d, solver, reuse, numerical):
    """Return (P exact, description) or (None, reason).

    Stage with the current exact forced kernel N: maximise the margin t of Q_P + tΠ ⪯ 0,
    Q_P N = 0, P ⪰ tI, tr P = d; round + project + verify; on failure extend N by a
    rationalised numerical kernel of Q_P on N^⊥ (facial reduction) and recurse."""
    m = d * (d + 1) // 2
    Sx = _svec_mat_exact(d)
    hf = [(_to_float(C), _to_float(A)) for C, A in heads]
    G = g_matrix(hf, d)
    eta = float(np.abs(G).max())
    if eta == 0:
        return None, "Q_P ≡ 0 and P = I was rejected: inconsistent"
    G = G / eta
    prog = _program("bounded", d, reuse)
    Qbasis: list = []
    st = {"solves": 0, "reason": None}

    def basis():
        if not Qbasis:
            Qbasis.extend(q_matrix(_sym_from_svec([flint.fmpq(int(r == k)) for k in range(m)], d), heads, Sx)
                          for r in range(m))
        return Qbasis

    def stage(N, depth):
        if st["solves"] >= _MAX_SOLVES:
            return None
        st["solves"] += 1
        Nf = _orth(np.array([[float(e) for e in v] for v in N]).T) if N else np.zeros((m, 0))
        Pi = Nf @ Nf.T
        proj = None
        B = np.eye(m)
        if N:
            Lx = _kernel_constraints(N, basis())
            rho = Lx.rank()
            if rho >= m:
                if depth == 0:
                    st["reason"] = "the forced kernel leaves only P = 0: no trace functional"
                return None
            proj = _projector(Lx)
            B = np.zeros((m, m))
            B[:, : m - rho] = np.linalg.svd(_to_float(Lx))[2][rho:].T
        prog.params["GB"].value = G @ B
        prog.params["B"].value = B
        prog.params["tw"].value = np.array([1.0 if i == j else 0.0 for i, j in svec_index(d)]) @ B
        prog.params["Pc"].value = np.eye(m) - Pi
        try:
            used = _solve(prog, solver, numerical)
        except _SolverFailure as exc:
            if depth == 0:
                st["reason"] = f"SDP solver failed: {exc}"
            return None
        t = float(prog.vars["t"].value)
        xf = B @ np.asarray(prog.vars["z"].value, dtype=float)
        numerical.setdefault("margins", []).append(t)
        if t < -_T_TOL:
            if depth == 0:
                st["reason"] = (f"the LMI Q_P ⪯ 0, P ≻ 0 looks infeasible (best margin {t:.3g} < 0 "
                                f"with {used}); no trace functional certifies boundedness")
            return None
        for digits in _ROUND_DIGITS:
            x = _round_svec(xf, digits)
            if proj is not None:
                x = proj(x)
            P = _sym_from_svec(x, d)
            if _bounded_ok(P, heads, Sx):
                numerical["rounding_digits"] = digits
                numerical["forced_kernel_dim"] = len(N)
                desc = f"SDP ({used}) + rounding to 10^-{digits}"
                if N:
                    desc += f" + exact projection on the forced kernel (dim {len(N)})"
                return P, desc
        if depth == 0:
            st["reason"] = (f"boundary case (best margin {t:.3g}): rounded SDP solutions and the "
                            "facial reduction failed exact verification")
            Pf = _to_float(_sym_from_svec([_Q(Fraction(float(v))) for v in xf], d))
            lp = np.linalg.eigvalsh((Pf + Pf.T) / 2)
            if lp[0] <= 1e-6 * max(abs(lp[-1]), 1e-300):
                # the margin is 0 because P itself is singular at the optimum (not Q_P's kernel, which the
                # facial reduction handles): tr(PΣ) then bounds Σ on range P only — no P ≻ 0 is in sight
                st["reason"] = (f"boundary case (best margin {t:.3g}): the SDP's best P with Q_P ⪯ 0 is singular "
                                f"(λ_min(P)/λ_max(P) ≈ {lp[0] / lp[-1]:.2g}, rank ≈ "
                                f"{int(np.sum(lp > 1e-6 * lp[-1]))}); tr(PΣ) bounds Σ on range P only, and no "
                                "trace functional with P ≻ 0 is in sight")
        if depth >= 3:
            return None
        # facial reduction: the numerical kernel of Q_P on N^⊥, rationalised
        Qf = (G @ xf).reshape(m, m)
        Qf = (Qf + Qf.T) / 2
        U = np.linalg.svd(np.eye(m) - Pi)[0][:, : m - Nf.shape[1]] if N else np.eye(m)
        lam, vec = np.linalg.eigh(U.T @ Qf @ U)
        order = np.argsort(np.abs(lam))
        for k in _kernel_sizes(lam):
            for rat in _rationalise_subspace(U @ vec[:, order[:k]]):
                N2 = _independent(N + rat)
                if len(N2) == len(N):
                    continue
                res = stage(N2, depth + 1)
                if res is not None:
                    return res
        return None

    res = stage(_independent(_structural_kernel(heads, d)), 0)
    numerical["sdp_solves"] = st["solves"]
    if res is None:
        return None, st["reason"] or "no certificate found"
    return res


# --------------------------------------------------------------------------- search: blow-up
def _frob_upper(M: flint.fmpq_mat, digits: int = 6) -> Fraction:
    """A rational u ≥ ‖M‖_F (u² ≥ Σ entries², exactly)."""
    s = sum((fraction_of(e) ** 2 for e in M.entries()), Fraction(0))
    D = 10 ** digits
    n = math.ceil(s * D * D)
    u = Fraction(math.isqrt(n) + 1, D)
    assert u * u >= s
    return u


def _round_sig(q: Fraction, up: bool, digits: int = 10) -> Fraction:
    """q rounded (up or down) to about ``digits`` significant decimal digits, exactly."""
    if q <= 0:
        return q
    e = len(str(q.numerator)) - len(str(q.denominator))  # ≈ log10 q (±1), no float range
    D = 10 ** max(digits - e, 0)
    n = math.ceil(q * D) if up else math.floor(q * D)
    r = Fraction(n, D)
    return r if (r >= q if up else 0 < r <= q) else q


def _approx(q: Fraction) -> str:
    try:
        return f"{float(q):.6g}"
    except OverflowError:
        return f"~1e{len(str(q.numerator)) - len(str(q.denominator))}"


def _search_blowup(heads, d, Sigma0, solver, reuse, numerical):
    """Return [(P exact, c, description)] verified exactly, possibly empty, and a reason."""
    Sx = _svec_mat_exact(d)
    hf = [(_to_float(C), _to_float(A)) for C, A in heads]
    G = g_matrix(hf, d)
    eta = float(np.abs(G).max())
    if eta == 0:
        return [], "Q_P ≡ 0: no blow-up certificate"
    G = G / eta
    if Sigma0 is not None and np.abs(Sigma0).max() > 0:
        Sh = Sigma0 / np.trace(Sigma0) + (1e-3 / d) * np.eye(d)
    else:
        Sh = np.eye(d) / d
    prog = _program("blowup", d, reuse)
    prog.params["G"].value = G
    prog.params["Sh"].value = (Sh + Sh.T) / 2
    try:
        used = _solve(prog, solver, numerical)
    except _SolverFailure as exc:
        return [], f"SDP solver failed: {exc} (the blow-up LMI needs A + Aᵀ ≻ 0 on every direction)"
    gval = float(prog.vars["g"].value)
    numerical["c_float"] = eta / gval if gval > 0 else None
    Pf = np.array(prog.vars["P"].value)
    xf = np.array([Pf[i, j] for i, j in svec_index(d)])
    out = []
    for digits in _ROUND_DIGITS[:5]:
        P = _sym_from_svec(_round_svec(xf, digits), d)
        c = _blowup_c(P, heads, Sx)
        if c is not None:
            out.append((P, c, f"SDP ({used}) + rounding to 10^-{digits}"))
            numerical["rounding_digits"] = digits
            break
    if out:
        return out, ""
    # say why: a solver answer that violates the LMI in floats means no Σ₀-uniform certificate exists
    # (the blow-up, if any, depends on Σ₀), not that the rounding lost a certificate
    lam_P = float(np.linalg.eigvalsh((Pf + Pf.T) / 2).min())
    m = int(round(math.sqrt(G.shape[0])))
    Qf = (G @ xf).reshape(m, m) * eta
    lam_Q = float(np.linalg.eigvalsh((Qf + Qf.T) / 2).min())
    if lam_P <= 0 or lam_Q <= 0:
        what = f"λ_min(P) ≈ {lam_P:.3g}, λ_min(Q_P) ≈ {lam_Q:.3g}"
        return [], (f"the blow-up LMI (P ≻ 0, Q_P ≻ 0 on the PSD cone) looks infeasible ({what}): no blow-up "
                    "certificate uniform in Σ₀")
    return out, "rounded SDP solutions failed exact verification"


# --------------------------------------------------------------------------- public API
def _undecided(claim, reason, numerical=None) -> Verdict:
    return Verdict(UNDECIDED, claim, ARGUMENT, {}, dict(numerical or {}), reason)


def _finish(problem, kind, claim_d, data, numerical, summary) -> Verdict:
    from ..check import check

    claim = claim_d.text()
    cert = Certificate.for_problem(problem, kind, claim_d, PROVED, data)
    try:
        check(cert)  # the independent checker: a PROVED verdict must re-verify
    except CertificationFailed as exc:
        return _undecided(claim, f"the certificate failed the independent check: {exc}", numerical)
    return Verdict(PROVED, claim, ARGUMENT, {"certificate": cert.to_dict()}, numerical, summary)


def find_bounded_certificate(problem, solver=None, *, reuse: bool = True) -> Verdict:
    """Search a ``bounded-lmi`` certificate: P ≻ 0 with Q_P ⪯ 0 (boundedness for every Σ₀ ⪰ 0)."""
    t0 = time.perf_counter()
    claim = BOUNDED_CLAIM
    numerical: dict = {}
    try:
        heads = lmi_heads(problem)
    except NotApplicable as exc:
        return _undecided(claim, str(exc))
    d = problem.d
    Sx = _svec_mat_exact(d)
    found = None
    for name, P in _structured_candidates(heads, d):
        if _bounded_ok(P, heads, Sx):
            found = (P, f"structured candidate {name}")
            break
    if found is None:
        try:
            P, desc = _search_bounded(heads, d, solver, reuse, numerical)
        except _NUMERIC_ERRORS as exc:  # e.g. entries beyond the float range
            P, desc = None, f"numerical search failed: {type(exc).__name__}: {exc}"
        if P is None:
            numerical["seconds"] = time.perf_counter() - t0
            return _undecided(claim, desc, numerical)
        found = (P, desc)
    P, desc = found
    numerical["method"] = desc
    numerical["seconds"] = time.perf_counter() - t0
    data = {"P": mat_str(P)}
    from ..check.claims import Claim, Quantifier

    return _finish(problem, KIND_BOUNDED, Claim("BOUNDED", Quantifier.EVERY_PSD, {}), data, numerical,
                   f"tr(PΣ) is non-increasing ({desc}); Q_P ⪯ 0 and P ≻ 0 verified exactly")


def find_blowup_certificate(problem, solver=None, *, reuse: bool = True) -> Verdict:
    """Search a ``blowup-lmi`` certificate: P ≻ 0, c > 0 with Q_P − c ppᵀ ⪰ 0.

    For the problem's initial covariance Σ₀ (if given, and ≠ 0) the certificate brackets the
    blow-up time: T* ∈ [T_lo, T_hi], T_hi = 1/(c tr(PΣ₀)) (minimised over the candidates),
    T_lo = 1/(u_Σ Σ_h 2u_{C_h}u_{A_h}) from the Frobenius-norm growth bound.
    """
    t0 = time.perf_counter()
    numerical: dict = {}
    claim0 = "for every Σ₀ ⪰ 0, Σ₀ ≠ 0, Σ(t) blows up in finite time, T* ≤ 1/(c·tr(PΣ₀))"
    try:
        heads = lmi_heads(problem)
    except NotApplicable as exc:
        return _undecided(claim0, str(exc))
    d = problem.d
    S0 = problem.exact.Sigma0 if problem.cov is not None else None
    if S0 is not None and all(e == 0 for e in S0.entries()):
        return _undecided(claim0, "Σ₀ = 0 is an equilibrium: it does not blow up")
    Sx = _svec_mat_exact(d)
    cands = []
    for name, P in _structured_candidates(heads, d):
        c = _blowup_c(P, heads, Sx)
        if c is not None:
            cands.append((P, c, f"structured candidate {name}"))
    try:
        found, reason = _search_blowup(heads, d, _to_float(S0) if S0 is not None else None,
                                       solver, reuse, numerical)
    except _NUMERIC_ERRORS as exc:  # e.g. entries beyond the float range
        found, reason = [], f"numerical search failed: {type(exc).__name__}: {exc}"
    cands += found
    if not cands:
        numerical["seconds"] = time.perf_counter() - t0
        return _undecided(claim0, reason or "no blow-up certificate found", numerical)

    def rate(item):  # c·tr(PΣ̂): larger is a smaller T_hi
        P, c, _ = item
        W = S0 if S0 is not None else flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
        tr = sum((fraction_of((P * W)[i, i]) for i in range(d)), Fraction(0))
        return c * tr

    P, c, desc = max(cands, key=rate)
    numerical["method"] = desc
    data = {"P": mat_str(P), "c": frac_str(c)}
    claim = claim0
    summary = f"L = tr(PΣ) satisfies L̇ ≥ cL² with c = {frac_str(c)} ({desc})"
    if S0 is not None:
        trPS = rate((P, Fraction(1), None))
        T_hi = _round_sig(1 / (c * trPS), up=True)
        uV = [_frob_upper(C) for C, _ in heads]
        uA = [_frob_upper(A) for _, A in heads]
        uS = _frob_upper(S0)
        T_lo = _round_sig(1 / (uS * sum((2 * a * b for a, b in zip(uV, uA)), Fraction(0))), up=False)
        # T_lo rounded down and T_hi rounded up to ~10 digits (the checker accepts a wider bracket)
        data.update({"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi), "u_V": vec_str(uV),
                     "u_A": vec_str(uA), "u_Sigma": frac_str(uS)})
        claim = (claim0 + f"; for the given Σ₀: T* ∈ [{frac_str(T_lo)}, {frac_str(T_hi)}] "
                 f"≈ [{_approx(T_lo)}, {_approx(T_hi)}]")
        numerical["T_lo"], numerical["T_hi"] = _approx(T_lo), _approx(T_hi)
        summary += f"; T* ∈ [{_approx(T_lo)}, {_approx(T_hi)}]"
    numerical["seconds"] = time.perf_counter() - t0
    from ..check.claims import Claim, Quantifier

    claim_d = (Claim("BLOWUP", Quantifier.THIS, {"T_lo": data["T_lo"], "T_hi": data["T_hi"]}) if "T_lo" in data
               else Claim("BLOWUP", Quantifier.EVERY_NONZERO, {}))
    return _finish(problem, KIND_BLOWUP, claim_d, data, numerical, summary)


# ---- route ----
from .routes import declare, driftless_softmax_family, needs, searching  # noqa: E402 - routes last

declare("lmi-bounded", 40, ("BOUNDED",), needs(driftless_softmax_family),
        searching(find_bounded_certificate, unless=("blowup",)), modes=("point", "uniform"),
        doc="Every Σ₀ stays bounded (tr(PΣ), P ≻ 0, with q_P ⪯ 0: an LMI decided exactly); quadratic flows without "
            "drift.")
