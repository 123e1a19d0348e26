"""Checker of ``blowup-taylor-lmi``: a blow-up bracket from a validated Taylor integration
restarting the trace-functional LMI bounds (docs/mathematics.md §5).

Independent of the search (:mod:`symbolic_tf.certify.search._blowup_taylor_lmi`) and of the LMI code: everything
is recomputed here from the embedded exact problem and the stored data

    P, c            the blow-up LMI (P ≻ 0, c > 0, Q_P − c ppᵀ ⪰ 0 on plain svec coordinates)
    u_V, u_A        one rational per head, u_V ≥ ‖C_h‖_F (C_h = W_hV_h), u_A ≥ ‖scale·A_h‖_F
    steps           rational times 0 = t_0 < t_1 < … < t_N
    order, prec     Taylor order k and the working precision (bits) of the ball arithmetic
    method          "qr" (Lohner's QR parallelepipeds intersected with boxes) or "direct" (boxes)
    T_lo, T_hi      the claimed bracket

Verified:

1. the problem is drift-free softmax / multi-head softmax with an initial covariance Σ₀ ≠ 0;
2. exactly over ℚ: P symmetric ≻ 0, c > 0, Q_P − c ppᵀ ⪰ 0, where Q_P is rebuilt entry by
   entry from q_P(Σ) = 2 Σ_h tr(P C_h Σ A_h Σ), i.e. (Q_P)_{kl} = Σ_h [tr(P C_h E_k A_h E_l) +
   tr(P C_h E_l A_h E_k)] for the svec basis E_ii, E_ij + E_ji; u² ≥ ‖·‖_F²;
3. in arb balls at ``prec`` bits, step by step from S_0 = Σ₀: the a priori enclosure
   (deterministic inflate-and-iterate Picard test S_i + [0, h]·f(X) ⊆ X — a failure rejects
   the certificate), the order-k Taylor polynomial T_k at S_i by the coefficient recurrence and
   the Lagrange remainder box Z = h^{k+1}·σ_{k+1}(Y), Y = S_i + [0, h]·f(X).  "direct":
   S_{i+1} = T_k(S_i) + Z.  "qr": with the parallelepiped c + B·r ∋ svec Σ(t_i) and the box
   H = S_i ∪ {c}, svec Σ(t_{i+1}) ∈ W + ([DT_k](H)·B)·r, W = svec(T_k(c) + Z) (mean-value form;
   the Jacobian by differentiating the recurrence along each svec direction); then c' = mid W,
   B' = the Q of a float Householder QR of mid([DT_k]B) (columns ordered by length·width(r)),
   r' = (B'⁻¹[DT_k]B)·r + B'⁻¹(W − c') with a ball inverse of the exact point matrix B', and
   S_{i+1} = box(c' + B'r') ∩ (T_k(H) + Z).  (The float QR only chooses coordinates: any
   invertible B' is sound; it is recomputed by the same deterministic procedure.)
4. at every t_i the restarted bounds lower_i = t_i + 1/(u_Σ Σ_h 2u_{V,h}u_{A,h}) (u_Σ ≥ sup ‖Σ‖_F
   over S_i) and upper_i = t_i + 1/(c·inf tr(PS_i)) (when tr(PS_i) > 0);
5. 0 < T_lo ≤ max_i lower_i and T_hi ≥ min_i upper_i (exact rational comparisons with the ball
   endpoints), T_lo ≤ T_hi.  A wider claimed bracket is still proved; a narrower one is not.
"""
from __future__ import annotations

import flint

from ....exact.definiteness import inertia
from ....exact.precision import working_precision
from ....exact.rational import fmpq_of
from ....spec.errors import InvalidParameters
from ..flows import quadratic_heads
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from ..tube_replay import Field, replay_tube, svec_basis

KIND = "blowup-taylor-lmi"

_T = "tests/soundness/forgeries/test_taylor.py::"
HYPOTHESES = (
    Hypothesis("drift-free-quadratic", "The flow is drift-free softmax or multi-head softmax, "
               "Σ̇ = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ): the tube integrates this field and the LMI bounds only its "
               "quadratic part (F = 0; a bias b, which does not enter Σ̇, is refused as well).", _T + "test_drift"),
    Hypothesis("constant-parameters", "The parameters do not depend on depth t.", _T + "test_schedule"),
    Hypothesis("sigma0-nonzero", "The problem states Σ₀ and Σ₀ ≠ 0: Σ₀ = 0 is the equilibrium 0 and does not blow "
               "up; the claim is about this Σ₀ only.", _T + "test_sigma0_zero"),
    Hypothesis("P-pd", "P = Pᵀ ≻ 0 exactly.", _T + "test_P_not_positive_definite"),
    Hypothesis("c-positive", "c > 0.", _T + "test_c_not_positive"),
    Hypothesis("blowup-lmi", "Q_P − c·ppᵀ ⪰ 0 exactly on the svec coordinates, i.e. q_P(Σ) ≥ c·tr(PΣ)² for every "
               "symmetric Σ: L = tr(PΣ) obeys L̇ ≥ cL², so from L(t_i) > 0 the solution blows up by "
               "t_i + 1/(c·L(t_i)).", _T + "test_lmi_fails"),
    Hypothesis("norm-bounds", "One pair per head with u_V ≥ ‖C_h‖_F and u_A ≥ ‖Ã_h‖_F (u ≥ 0, u² ≥ Σ entries²) and "
               "K = Σ_h 2u_Vu_A > 0: d/dt‖Σ‖_F ≤ K‖Σ‖_F², so the solution exists beyond t_i + 1/(K‖Σ(t_i)‖_F).",
               _T + "test_norm_bounds"),
    Hypothesis("tube", "The validated Taylor tube replays from S₀ = Σ₀: order, precision and method in range, step "
               "times 0 = t_0 < t_1 < …, and at every step the a priori (Picard) enclosure holds, so Σ(t_i) exists "
               "and lies in the recomputed box S_i.", _T + "test_tube"),
    Hypothesis("T-lo", "0 < T_lo ≤ max_i (t_i + 1/(u_Σ,i·K)), u_Σ,i ≥ sup ‖S_i‖_F (the norm bound restarted at each "
               "t_i).", _T + "test_T_lo_not_implied"),
    Hypothesis("T-hi", "T_hi ≥ min_i (t_i + 1/(c·inf tr(PS_i))) over the steps where inf tr(PS_i) > 0 (the LMI "
               "bound restarted at each t_i); some step must have tr(PS_i) > 0.", _T + "test_T_hi_not_implied"),
)
_MAX_ORDER = 60
_MAX_STEPS = 100_000
_PREC_RANGE = (53, 4096)


_bad = refusal(KIND)


def _rat(s) -> flint.fmpq:
    if isinstance(s, bool) or not isinstance(s, (str, int)):
        raise ValueError(f"expected an exact number as a string, got {s!r}")
    return fmpq_of(s)


def _pos_int(x, name, lo, hi):
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        _bad(f"{name} must be an integer in [{lo}, {hi}], got {x!r}")
    return x


# --------------------------------------------------------------------------- exact part
def _value_attention_pairs(problem):
    if problem is None:
        _bad("needs an embedded problem")
    if problem.F is not None and any(e != 0 for row in problem.F for e in row):
        _bad("feed-forward drift F ≠ 0 is not covered")
    if problem.b is not None and any(e != 0 for e in problem.b):
        _bad("bias drift b ≠ 0 is not covered")
    try:
        return quadratic_heads(problem)
    except InvalidParameters as exc:
        _bad(f"the flow is not softmax / multi-head softmax: {exc.reason}")


def _trace(M):
    return sum((M[i, i] for i in range(M.nrows())), flint.fmpq(0))


def _lmi_ok(P, c, pairs, d):
    """Q_P − c·ppᵀ ⪰ 0 with Q_P rebuilt from tr(P C E_k A E_l)."""
    Es = svec_basis(d, flint.fmpq_mat)
    m = len(Es)
    PC = [P * C for C, _ in pairs]
    EA = [[E * A for _, A in pairs] for E in Es]   # E_k A_h
    T = [[flint.fmpq(0)] * m for _ in range(m)]    # T[k][l] = Σ_h tr(P C_h E_k A_h E_l)
    for k in range(m):
        for h, M in enumerate(PC):
            MEA = M * EA[k][h]
            for l in range(m):
                T[k][l] += _trace(MEA * Es[l])
    p = [_trace(P * E) for E in Es]
    M = flint.fmpq_mat(m, m, [T[k][l] + T[l][k] - c * p[k] * p[l] for k in range(m) for l in range(m)])
    return inertia(M)[1] == 0


# --------------------------------------------------------------------------- ball part
def _restart_bounds(t, S, K, P, c):
    n = S.nrows()
    idx = [(i, j) for i in range(n) for j in range(n)]
    sq = flint.arb(0)
    for i, j in idx:
        a = abs(S[i, j]).upper()
        sq += a * a
    lower = t + 1 / (K * sq.sqrt())
    tr = flint.arb(0)
    for i, j in idx:
        tr += P[i, j] * S[j, i]
    upper = t + 1 / (c * tr) if tr > 0 else None
    lower = lower if lower.is_finite() else None
    upper = upper if upper is not None and upper.is_finite() else None
    return lower, upper


def _exact(x: flint.arb) -> flint.fmpq:
    return x.fmpq()


def _approx(q) -> str:
    if q is None:
        return "unavailable"
    try:
        return f"{int(q.p) / int(q.q):.17g}"
    except OverflowError:
        return str(q)


# --------------------------------------------------------------------------- the checker
@kind(KIND, {"P": "rat[][]", "c": "rat", "u_V": "rat[]", "u_A": "rat[]", "order": "int", "prec": "int",
            "method": ("enum", "qr", "direct"), "steps": "rat[]", "T_lo": "rat", "T_hi": "rat"},
      hypotheses=HYPOTHESES)
def check_taylor_blowup(cert, problem):
    """PROVED: this Σ₀ blows up at T* ∈ [T_lo, T_hi] (validated Taylor tube + LMI restarts).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem (quadratic flow without drift, Σ₀).

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("BLOWUP", THIS, {"T_lo", "T_hi"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the problem is not covered, P ≻ 0 or Q_P − c·ppᵀ ⪰ 0 fails, a tube step does not
        validate, or the recomputed bounds do not imply [T_lo, T_hi].
    """
    from ....exact.rational import frac_str

    _check_taylor_blowup(cert, problem)
    T_lo, T_hi = _rat(cert.data["T_lo"]), _rat(cert.data["T_hi"])
    return "PROVED", Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(T_lo), "T_hi": frac_str(T_hi)})


def _check_taylor_blowup(cert, problem):
    pairs = _value_attention_pairs(problem)
    d = problem.d
    if problem.cov is None:
        _bad("the problem has no initial covariance Σ₀")
    S0 = problem.exact.Sigma0
    if all(e == 0 for e in S0.entries()):
        _bad("Σ₀ = 0 does not blow up")
    data = cert.data

    # exact LMI part
    raw = data["P"]
    if not isinstance(raw, list) or len(raw) != d or any(not isinstance(r, list) or len(r) != d for r in raw):
        _bad(f"P must be a {d}×{d} matrix")
    P = flint.fmpq_mat(d, d, [_rat(x) for r in raw for x in r])
    if P != P.transpose():
        _bad("P is not symmetric")
    if inertia(P)[0] != d:
        _bad("P is not positive definite")
    c = _rat(data["c"])
    if not c > 0:
        _bad("c must be positive")
    if not _lmi_ok(P, c, pairs, d):
        _bad("Q_P − c·ppᵀ is not positive semidefinite")
    uV = [_rat(x) for x in data["u_V"]]
    uA = [_rat(x) for x in data["u_A"]]
    if len(uV) != len(pairs) or len(uA) != len(pairs):
        _bad(f"u_V and u_A need one bound per head ({len(pairs)})")
    for name, us, k in (("u_V", uV, 0), ("u_A", uA, 1)):
        for u, pr in zip(us, pairs):
            M = pr[k]
            fro2 = sum((e * e for e in M.entries()), flint.fmpq(0))
            if u < 0 or u * u < fro2:
                _bad(f"{name} = {u} is not an upper bound of the Frobenius norm")
    K = sum((2 * a * b for a, b in zip(uV, uA)), flint.fmpq(0))
    if not K > 0:
        _bad("the norm-growth constant Σ 2u_V u_A must be positive")

    order = _pos_int(data["order"], "order", 1, _MAX_ORDER)
    method = data["method"]
    if method not in ("qr", "direct"):
        _bad(f"method must be 'qr' or 'direct', not {method!r}")
    prec = _pos_int(data["prec"], "prec", *_PREC_RANGE)
    steps = data["steps"]
    if not isinstance(steps, list) or not steps or len(steps) > _MAX_STEPS + 1:
        _bad("steps must be a non-empty list of times")
    ts = [_rat(x) for x in steps]
    if ts[0] != 0:
        _bad("the first step time must be 0")
    if any(b <= a for a, b in zip(ts, ts[1:])):
        _bad("step times must be strictly increasing")
    T_lo, T_hi = _rat(data["T_lo"]), _rat(data["T_hi"])
    if not T_lo > 0:
        _bad("T_lo must be positive")
    if T_lo > T_hi:
        _bad("T_lo > T_hi")

    # ball part: the validated integration, recomputed
    with working_precision(prec):
        Pb, cb, Kb = flint.arb_mat(P), flint.arb(c), flint.arb(K)
        best_lo = best_hi = None

        def record(t, S):
            nonlocal best_lo, best_hi
            lo, hi = _restart_bounds(flint.arb(t), S, Kb, Pb, cb)
            if lo is not None:
                q = _exact(lo.lower())
                best_lo = q if best_lo is None or q > best_lo else best_lo
            if hi is not None:
                q = _exact(hi.upper())
                best_hi = q if best_hi is None or q < best_hi else best_hi

        replay_tube(Field(pairs), S0, ts, order, method, _bad, on_step=record)

    if best_lo is None or T_lo > best_lo:
        _bad(f"T_lo = {T_lo} ≈ {_approx(T_lo)} is not implied: the recomputed lower bound is "
             f"{_approx(best_lo)}")
    if best_hi is None:
        _bad("T_hi is not implied: tr(PS_i) is not positive on any step box (no LMI upper bound)")
    if T_hi < best_hi:
        _bad(f"T_hi = {T_hi} ≈ {_approx(T_hi)} is not implied: the recomputed upper bound is "
             f"{_approx(best_hi)}")
