"""An independent numerical oracle for ``classify`` verdicts (issue 14, "How it must be checked").

Nothing here uses symbolic_tf's integrators, closures or code generation: the covariance
right-hand sides are written out by hand from docs/mathematics.md §3, §4, §6 and integrated with SciPy's
DOP853 — or, with ``use_engine("compiled")`` (the soak, benchmarks/soak.py), with the same DOP853
pair compiled by numba (tests/soundness/_compiled_oracle.py: the same equations written again
with loops, the same tolerances and judgement).  Only ``Problem`` (the parsed document) is read
from the toolkit.

Representation.  To follow blow-up, exponential growth and decay to 0 with one integrator the
state is Σ = e^s U with ‖U‖_F = 1 (U symmetric):

    U̇ = G − U⟨U, G⟩,   ṡ = ⟨U, G⟩,   G = f(e^s U)/e^s,

so neither overflow (exponential growth: s grows linearly) nor underflow (decay: s → −∞)
happens, and a finite-time blow-up is s → ∞ in finite time.  A blow-up is *recognised* when s
has risen by 25 (a factor e^25 ≈ 7·10^10) in one stretch and the growth rate ṡ is ≥ 10^6
times what the linear (drift) part alone can produce: then ṡ ≈ 1/(T* − t) and
T̂ = t + 1/ṡ estimates T* to within ~10^-10 relative.  For V = vI (no drift, or F = f·I) the
oracle also uses the closed forms of docs/mathematics.md §4/§6 for T*.

Verdict of the oracle: :class:`Judgement` with ``ok`` True (agrees), False (a clear
contradiction) or None (inconclusive: integrator failure, ambiguous trend, budget).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["Judgement", "judge", "judge_classification", "rhs_for", "simulate", "SimResult",
           "closed_form_Tstar", "frac_matrix", "quantifier_of", "sigma_star_of", "regime_of",
           "claim_text", "use_engine", "engine", "warm_up", "closed_form_outlook"]

RTOL, ATOL = 1e-12, 1e-14
_ENGINE = "scipy"


def use_engine(name: str) -> str:
    """Select the integrator of :func:`simulate` (and so of every judgement): "scipy" (SciPy's
    DOP853, the default) or "compiled" (numba DOP853).  Returns the previous engine."""
    global _ENGINE
    if name not in ("scipy", "compiled"):
        raise ValueError(f"unknown oracle engine {name!r}")
    prev, _ENGINE = _ENGINE, name
    return prev


def engine() -> str:
    """The integrator :func:`simulate` uses now ("scipy" or "compiled")."""
    return _ENGINE


def warm_up() -> None:
    """Compile the compiled engine's kernels now (or load them from numba's cache)."""
    from soundness._compiled_oracle import warm_up as _w

    _w()


@dataclass
class Judgement:
    ok: bool | None
    detail: str

    def __bool__(self):  # pragma: no cover - guard against `if judgement:` mistakes
        raise TypeError("use .ok")


# ------------------------------------------------------------------ the right-hand sides
def _f(M, d=None):
    if M is None:
        return None
    return np.array([[float(x) for x in row] for row in M], dtype=float)


def frac_matrix(M) -> np.ndarray:
    """A matrix of "p/q" strings / Fractions / numbers as floats."""
    return np.array([[float(Fraction(x)) for x in row] for row in M], dtype=float)


def _sinkhorn_gain(Sig, A, cache):
    """M = (Σ⁻¹ + R)⁻¹ = Σ(I + RΣ)⁻¹ for the Gaussian Sinkhorn self-coupling (docs/mathematics.md §3):
    P = Aᵀ(Σ⁻¹+R)⁻¹A, R = A(Σ⁻¹+P)⁻¹Aᵀ, solved by the Sinkhorn fixed-point iteration
    (warm-started from the previous call)."""
    d = len(Sig)
    I = np.eye(d)
    P = cache.get("P", np.zeros((d, d)))
    for _ in range(300):
        N = Sig @ np.linalg.inv(I + P @ Sig)
        R = A @ N @ A.T
        M = Sig @ np.linalg.inv(I + R @ Sig)
        Pn = A.T @ M @ A
        Pn = (Pn + Pn.T) / 2
        if np.max(np.abs(Pn - P)) <= 1e-15 * (1 + np.max(np.abs(Pn))):
            P = Pn
            break
        P = Pn
    cache["P"] = P
    N = Sig @ np.linalg.inv(I + P @ Sig)
    R = A @ N @ A.T
    return Sig @ np.linalg.inv(I + R @ Sig)


@dataclass
class RHS:
    """Σ̇ = f(Σ).  ``quad`` is True when f = Q + L with Q homogeneous quadratic and L linear
    (softmax, multi-head softmax, + drift); then G(U, s) = e^s Q(U) + L(U) exactly."""

    d: int
    f: callable
    Q: callable | None
    F: np.ndarray
    quad: bool
    kind: str
    normF: float = 0.0
    heads: list | None = None   # (kind, A, C, KᵀK, scale) per head: what the compiled engine packs


def rhs_for(problem) -> RHS | None:
    """The covariance vector field of ``problem`` written from docs/mathematics.md (None if the oracle
    has no closure for the variant)."""
    d = problem.d
    s = float(problem.scale)
    F = _f(problem.F) if problem.F is not None else np.zeros((d, d))
    heads = []  # (kind, A_scaled, C = W V, KtK, s)
    if problem.variant in ("softmax", "sinkhorn"):
        A = s * _f(problem.A)
        V = _f(problem.V)
        heads.append((problem.variant, A, V, None, s))
    elif problem.variant == "l2":
        Q, K = _f(problem.Q), _f(problem.K)
        A = K.T @ Q
        heads.append(("l2", s * A, _f(problem.V), K.T @ K, s))
    elif problem.variant == "multihead":
        for h in problem.heads:
            kind = h.variant
            W = _f(h.W) if h.W is not None else np.eye(d)
            if kind == "l2":
                if h.Q is None:
                    return None
                Q, K = _f(h.Q), _f(h.K)
                heads.append(("l2", s * (K.T @ Q), W @ _f(h.V), K.T @ K, s))
            elif kind in ("softmax", "sinkhorn"):
                heads.append((kind, s * _f(h.attention), W @ _f(h.V), None, s))
            else:
                return None
    else:
        return None
    quad = all(k == "softmax" for k, *_ in heads)
    caches = [dict() for _ in heads]

    def Qf(S):
        out = np.zeros((d, d))
        for (kind, A, C, KtK, sc) in heads:
            J = C @ S @ A
            out += J @ S + S @ J.T
        return out

    def f(S):
        J = F.copy()
        out = None
        for (kind, A, C, KtK, sc), cache in zip(heads, caches):
            if kind == "softmax":
                Jh = C @ S @ A
            elif kind == "l2":
                Jh = 2 * C @ S @ np.linalg.inv(np.eye(d) + 2 * sc * KtK @ S) @ A
            else:
                Jh = C @ _sinkhorn_gain(S, A, cache) @ A
            J = J + Jh
        out = J @ S + S @ J.T
        return out

    return RHS(d, f, Qf if quad else None, F, quad, problem.variant,
               normF=float(np.linalg.norm(F, 2)) if d else 0.0, heads=heads)


# ------------------------------------------------------------------ simulation
@dataclass
class SimResult:
    status: str            # "reached" | "blowup" | "failed" | "budget"
    t: float               # time reached (or blow-up estimate T̂ for "blowup")
    Sigma: np.ndarray | None = None     # Σ at t (may be huge/tiny: use U, s)
    U: np.ndarray | None = None
    s: float = 0.0
    samples: list = field(default_factory=list)  # (t, s, U) at requested times
    message: str = ""


class _Budget(Exception):
    pass


def _sym(M):
    return (M + M.T) / 2


def _segment_scipy(ode, t0, y0, t_end, s_top, t_eval, rtol, atol):
    """One stretch of SciPy's DOP853 until t_end or s = s_top: (kind, t, y, samples, message)."""
    def ev(t, y):
        return y[-1] - s_top
    ev.terminal = True
    ev.direction = 1
    sol = solve_ivp(ode, (t0, t_end), y0, method="DOP853", rtol=rtol, atol=atol,
                    events=ev, t_eval=t_eval or None, dense_output=False)
    samples = []
    if t_eval:
        samples = [(float(tt), sol.y[:, k]) for k, tt in enumerate(sol.t) if k < sol.y.shape[1]]
    if sol.status == 1 and sol.t_events[0].size:
        return "event", float(sol.t_events[0][0]), sol.y_events[0][0], samples, ""
    if sol.status != 0:
        return "failed", (float(sol.t[-1]) if sol.t.size else t0), None, samples, sol.message
    # reached t_end: with t_eval solve_ivp returned only those points; integrate the tail if needed
    if t_eval:
        last_t = float(sol.t[-1]) if sol.t.size else t0
        if last_t < t_end:
            try:
                sol2 = solve_ivp(ode, (last_t, t_end), sol.y[:, -1] if sol.t.size else y0,
                                 method="DOP853", rtol=rtol, atol=atol)
            except _Budget:
                return "budget", last_t, None, samples, "budget"
            return "end", t_end, sol2.y[:, -1], samples, ""
    return "end", t_end, sol.y[:, -1], samples, ""


_CHUNK = 1000


def _segment_compiled(rhs, t_end, rtol, atol, max_evals):
    """The compiled engine's stretch (same contract as :func:`_segment_scipy`); counts the
    right-hand side evaluations of the whole simulation against ``max_evals``."""
    from soundness import _compiled_oracle as co

    packed = co.pack_heads(rhs.heads, rhs.F)
    Ps = np.zeros((len(rhs.heads), rhs.d, rhs.d))
    used = [0]

    def segment(t0, y0, s_top, t_eval):
        samples = []
        t, y = t0, y0
        while True:  # in chunks of 1000 evaluations: between them Python sees its signals (a timeout)
            left = max_evals - used[0]
            try:
                code, t, y, ts, ys, m, ev = co.run_segment(packed, Ps, y, t, t_end, s_top,
                                                           np.asarray([x for x in t_eval if x > t or x == t0], float),
                                                           rtol, atol, min(left, _CHUNK))
            except Exception as exc:  # noqa: BLE001 - numba raises its own types for a singular solve
                return "failed", t0, None, samples, f"{type(exc).__name__}: {exc}"
            used[0] += ev
            samples += [(float(ts[k]), ys[k].copy()) for k in range(m)]
            t_eval = [x for x in t_eval if x > (samples[-1][0] if samples else t0)]
            if code != co.BUDGET or left <= _CHUNK or ev == 0:
                break
        if code == co.BUDGET:
            raise _Budget()
        if code == co.FAILED:
            return "failed", float(t), None, samples, "the step size collapsed or the solution is not finite"
        return ("event" if code == co.EVENT else "end"), float(t), y.copy(), samples, ""
    return segment


def simulate(problem, t_end: float, *, times=(), Sigma0=None, rhs: RHS | None = None,
             rtol=RTOL, atol=ATOL, max_evals=400_000) -> SimResult:
    """Integrate Σ from Σ₀ (the problem's, or ``Sigma0``) to ``t_end`` in the (U, s) form."""
    rhs = rhs or rhs_for(problem)
    if rhs is None:
        return SimResult("failed", 0.0, message=f"oracle has no closure for {problem.variant!r}")
    d = rhs.d
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    n0 = np.linalg.norm(S0)
    if n0 == 0:
        return SimResult("reached", t_end, np.zeros((d, d)), np.zeros((d, d)), -math.inf,
                         samples=[(t, -math.inf, np.zeros((d, d))) for t in sorted(times)])
    U0 = S0 / n0
    s0 = math.log(n0)
    iu = np.triu_indices(d)
    evals = [0]

    def unpack(y):
        U = np.zeros((d, d))
        U[iu] = y[:-1]
        U = U + np.triu(U, 1).T
        return U, y[-1]

    def pack(U, s):
        return np.concatenate([U[iu], [s]])

    lin_bound = 2 * rhs.normF

    def G_of(U, s):
        if rhs.quad:
            G = rhs.F @ U + U @ rhs.F.T
            if s > -700:
                G = G + math.exp(s) * rhs.Q(U)
            return G
        n = math.exp(min(s, 700.0))
        return rhs.f(n * U) / n

    def ode(t, y):
        evals[0] += 1
        if evals[0] > max_evals:
            raise _Budget()
        U, s = unpack(y)
        G = _sym(G_of(U, s))
        ip = float(np.sum(U * G))
        # the −U(‖U‖²−1) term keeps ‖U‖ = 1 without changing the exact solution
        dU = G - U * ip - U * (np.sum(U * U) - 1.0)
        return np.concatenate([dU[iu], [ip]])

    samples = []
    pending = sorted(x for x in times if 0 <= x <= t_end)
    compiled = _ENGINE == "compiled" and rhs.heads is not None
    segment = _segment_compiled(rhs, t_end, rtol, atol, max_evals) if compiled else \
        (lambda t0, y0, s_top, t_eval: _segment_scipy(ode, t0, y0, t_end, s_top, t_eval, rtol, atol))
    t0, y0 = 0.0, pack(U0, s0)
    while True:
        s_top = y0[-1] + 25.0
        t_eval = [x for x in pending if x >= t0]
        try:
            kind, t_last, y_last, seg_samples, message = segment(t0, y0, s_top, t_eval)
        except _Budget:
            return SimResult("budget", t0, message=f"more than {max_evals} right-hand side evaluations",
                             samples=samples)
        except (np.linalg.LinAlgError, FloatingPointError, ValueError) as exc:
            return SimResult("failed", t0, message=f"{type(exc).__name__}: {exc}", samples=samples)
        for tt, yy in seg_samples:
            U, s = unpack(yy)
            samples.append((float(tt), float(s), U))
        if t_eval:
            pending = [x for x in pending if x > (seg_samples[-1][0] if seg_samples else t0)]
        if kind == "event":
            te, ye = t_last, y_last
            U, s = unpack(ye)
            rate = float(np.sum(U * _sym(G_of(U, s))))
            lam_min = float(np.linalg.eigvalsh(U).min())
            if lam_min < -1e-6:
                # the exact flow keeps Σ ⪰ 0 (congruence); a float solution that left the cone
                # (a singular Σ₀ whose kernel direction picked up a negative rounding error,
                # then driven to −∞ by a negative-definite quadratic term) proves nothing
                return SimResult("failed", te, None, U, s, samples,
                                 message=f"the float solution left the PSD cone (λ_min(Σ)/‖Σ‖ = {lam_min:.3g})")
            if rate > 1e6 * (1.0 + lin_bound) and rate * te > 1e6:
                That = te + 1.0 / rate
                return SimResult("blowup", That, None, U, s, samples,
                                 message=f"s = log‖Σ‖ = {s:.1f} at t = {te!r}, ṡ = {rate:.3g}")
            if s > 650:
                return SimResult("budget", te, None, U, s, samples, message="‖Σ‖ > e^650 (growth)")
            t0, y0 = te, ye
            continue
        if kind == "budget":
            return SimResult("budget", t_last, samples=samples, message=message)
        if kind == "failed":
            return SimResult("failed", t_last, message=message, samples=samples)
        yfin = y_last
        U, s = unpack(yfin)
        Sig = math.exp(s) * U if s < 700 else None
        return SimResult("reached", t_end, Sig, U, float(s), samples)


# ------------------------------------------------------------------ closed forms (V = vI)
def _scalar_v(problem):
    if problem.variant != "softmax" or problem.V is None:
        return None
    V = problem.V
    d = problem.d
    v = V[0][0]
    if all(V[i][j] == (v if i == j else 0) for i in range(d) for j in range(d)):
        return float(v)
    return None


def _psd_sqrt(S):
    w, Q = np.linalg.eigh(_sym(S))
    return (Q * np.sqrt(np.clip(w, 0, None))) @ Q.T


def closed_form_Tstar(problem, Sigma0=None) -> float | None:
    """T* for softmax with V = vI and either no drift or F = f·I (docs/mathematics.md §4, §6):
    ρ = λ_max(Σ₀^{1/2} R Σ₀^{1/2})/2 with R = v(A + Aᵀ)·scale; T* = 1/(2ρ) (f = 0),
    ln(1 + f/ρ)/(2f) when f > −ρ; ∞ otherwise.  None when not applicable."""
    v = _scalar_v(problem)
    if v is None:
        return None
    d = problem.d
    if problem.F is not None:
        Fm = _f(problem.F)
        f = Fm[0, 0]
        if not np.array_equal(Fm, f * np.eye(d)):
            return None
    else:
        f = 0.0
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    A = float(problem.scale) * _f(problem.A)
    R = v * (A + A.T)
    h = _psd_sqrt(S0)
    rho = float(np.max(np.linalg.eigvalsh(_sym(h @ R @ h)))) / 2 if d else 0.0
    if rho <= 1e-300:
        return math.inf
    if f == 0:
        return 1.0 / (2 * rho)
    if f <= -rho:
        return math.inf
    return math.log1p(f / rho) / (2 * f)


def closed_form_outlook(problem, Sigma0=None) -> str | None:
    """What the V = vI closed form says about blow-up: ``"blowup"`` (T* finite), ``"global"`` (f < −ρ
    clearly, or R ⪯ 0), ``"threshold"`` (f = −ρ up to float rounding: there the float integration
    may blow up by rounding, or not, and neither run decides) or None (not applicable)."""
    v = _scalar_v(problem)
    if v is None:
        return None
    d = problem.d
    f = 0.0
    if problem.F is not None:
        Fm = _f(problem.F)
        f = Fm[0, 0]
        if not np.array_equal(Fm, f * np.eye(d)):
            return None
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    A = float(problem.scale) * _f(problem.A)
    h = _psd_sqrt(S0)
    rho = float(np.max(np.linalg.eigvalsh(_sym(h @ (v * (A + A.T)) @ h)))) / 2 if d else 0.0
    if rho <= 1e-300:
        return "global"
    if abs(f + rho) <= 1e-9 * max(abs(f), rho):
        return "threshold"
    return "global" if f < -rho else "blowup"


def _threshold_blowup(problem, Sigma0, r) -> Judgement | None:
    """A float blow-up of a V = vI problem that the closed form puts on (or clearly off) its blow-up
    threshold: inconclusive, not a contradiction of a claimed global solution."""
    if r.status != "blowup":
        return None
    cf = closed_form_outlook(problem, Sigma0)
    if cf in ("threshold", "global"):
        return Judgement(None, f"the float run blows up at T̂ ≈ {r.t!r}, but the V = vI closed form says "
                               f"{'the problem is on its blow-up threshold' if cf == 'threshold' else 'T* = ∞'}: "
                               "float rounding, not a verdict")
    return None


# ------------------------------------------------------------------ reading a classification
def _text(x):
    if isinstance(x, dict):
        return str(x.get("claim_text") or x.get("text") or x)
    return str(x or "")


def _find_key(obj, keys, depth=0):
    if depth > 6:
        return None
    if isinstance(obj, dict):
        for k in keys:
            if k in obj and obj[k] is not None:
                return obj[k]
        for v in obj.values():
            r = _find_key(v, keys, depth + 1)
            if r is not None:
                return r
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            r = _find_key(v, keys, depth + 1)
            if r is not None:
                return r
    return None


def _claim_dict(d: dict) -> dict | None:
    """The structured claim: ``claim_data`` (current shape) or a dict-valued ``claim``."""
    for key in ("claim_data", "claim"):
        c = d.get(key)
        if isinstance(c, dict):
            return c
    return None


def sigma_star_of(d: dict, problem=None):
    """Σ* claimed by a classification dict (claim params, evidence or certificate), or None.
    A "stationary" claim (Σ(t) = Σ₀) has Σ* = the problem's Σ₀."""
    claim = _claim_dict(d)
    if problem is not None and problem.cov is not None and ((claim or {}).get("params") or {}).get("stationary"):
        return frac_matrix(problem.cov)
    for src in ((claim or {}).get("params"), d, d.get("certificate")):
        if src is None:
            continue
        m = _find_key(src, ("Sigma_star", "Sigma_mid"))
        if isinstance(m, dict):
            m = m.get("mid")
        if m is not None:
            try:
                return frac_matrix(m)
            except Exception:  # noqa: BLE001 - an unexpected shape: treat as not given
                return None
    return None


def _param(d: dict, key):
    claim = _claim_dict(d)
    if claim is not None:
        p = claim.get("params") or {}
        if p.get(key) is not None:
            return p[key]
        if claim.get(key) is not None:
            return claim[key]
    return d.get(key)


def regime_of(d: dict):
    claim = _claim_dict(d)
    if claim is not None:
        for key in ("regime", "subject"):
            if claim.get(key) in ("CLUSTERING", "EQUILIBRIUM", "BOUNDED", "GLOBAL_EXISTENCE", "BLOWUP"):
                return claim[key]
    return d.get("regime")


def claim_text(d: dict) -> str:
    claim = _claim_dict(d)
    if claim is not None:
        return str(claim.get("claim_text") or claim.get("text") or "")
    return str(d.get("claim") or "")


def quantifier_of(d: dict) -> tuple[str, int | None]:
    """(kind, rank): kind 'this' (the problem's Σ₀), 'pd' (every Σ₀ ≻ 0), 'psd_nonzero'
    (every Σ₀ ⪰ 0, ≠ 0), 'psd' (every Σ₀ ⪰ 0, 0 included), 'rank' (every Σ₀ ⪰ 0 of rank r),
    'none' (a statement about the parameters only) or 'all' (the text says "every Σ₀" with no
    restriction)."""
    claim = _claim_dict(d) or {}
    q = d.get("quantifier") or claim.get("quantifier")
    text = str(q) if q is not None else claim_text(d)
    if "this" in text and q is not None:
        return "this", None
    if q is not None and "no Σ₀" in text:
        return "none", None
    if "every Σ₀" in text or "for all Σ₀" in text:
        if "of rank" in text:
            r = _param(d, "sigma0_rank")
            return "rank", (int(r) if r is not None else None)
        if "≻ 0" in text:
            return "pd", None
        if "≠ 0" in text:
            return "psd_nonzero", None
        if "⪰ 0" in text:
            return "psd", None
        return "all", None
    return "this", None


# ------------------------------------------------------------------ judgements
def _eig_desc(U, s):
    w = np.linalg.eigvalsh(_sym(U))[::-1]
    return w, s


def judge_blowup(problem, T_lo: float, T_hi: float, Sigma0=None, rhs=None) -> Judgement:
    t_end = T_hi * (1 + 1e-6)
    cf = closed_form_Tstar(problem, Sigma0)
    if cf is not None:
        if not (T_lo * (1 - 1e-9) <= cf <= T_hi * (1 + 1e-6)):
            return Judgement(False, f"closed form T* = {cf!r} outside [{T_lo!r}, {T_hi!r}]")
    r = simulate(problem, t_end, Sigma0=Sigma0, rhs=rhs)
    if r.status == "blowup":
        if r.t < T_lo * (1 - 1e-9):
            if cf is not None and cf >= T_lo * (1 - 1e-9):
                return Judgement(None, f"integrator blow-up estimate {r.t!r} < T_lo but closed form agrees")
            return Judgement(False, f"blows up at T̂ ≈ {r.t!r} < T_lo = {T_lo!r} ({r.message})")
        return Judgement(True, f"blow-up at T̂ ≈ {r.t!r} ∈ [{T_lo!r}, {T_hi!r}]")
    if r.status == "reached":
        if cf is not None and cf <= t_end:
            return Judgement(None, f"integrator reached {t_end!r} finite but closed form T* = {cf!r}")
        return Judgement(False, f"Σ finite at T_hi·(1+1e-6) = {t_end!r}: ‖Σ‖ = e^{r.s:.3g}")
    return Judgement(None, f"integration {r.status} at t = {r.t!r}: {r.message}")


def _horizons(problem, S0):
    return 5.0e2, 5.0e3


def _J(rhs, S, caches):
    """J(Σ) of the congruence form Σ̇ = J(Σ)Σ + ΣJ(Σ)ᵀ (every variant the oracle knows has it)."""
    d = rhs.d
    J = rhs.F.copy()
    for (kind, A, C, KtK, sc), cache in zip(rhs.heads, caches):
        if kind == "softmax":
            J = J + C @ S @ A
        elif kind == "l2":
            J = J + 2 * C @ S @ np.linalg.inv(np.eye(d) + 2 * sc * KtK @ S) @ A
        else:
            J = J + C @ _sinkhorn_gain(S, A, cache) @ A
    return J


def factor_simulate(problem, t_end: float, *, times=(), Sigma0=None, rhs: RHS | None = None,
                    rtol=1e-10, atol=1e-14, max_evals=200_000) -> SimResult:
    """Integrate a singular Σ₀ = X₀X₀ᵀ (X₀ of full column rank r < d) in factor form, Ẋ = J(XXᵀ)X.

    Σ̇ = JΣ + ΣJᵀ keeps rank and Σ ⪰ 0 exactly (Σ = ΦΣ₀Φᵀ), but a float integration of Σ itself leaves the
    rank-r stratum by rounding, and an unstable transversal direction then grows into a spurious blow-up or a
    negative eigenvalue; the factor cannot leave it.  Same result type as :func:`simulate`."""
    from scipy.integrate import solve_ivp

    rhs = rhs or rhs_for(problem)
    if rhs is None or rhs.heads is None:
        return SimResult("failed", 0.0, message="oracle has no closure for this variant")
    d = rhs.d
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    w, Q = np.linalg.eigh(_sym(S0))
    keep = w > 1e-12 * max(1.0, float(np.abs(w).max()))
    X0 = Q[:, keep] * np.sqrt(w[keep])
    r = X0.shape[1]
    caches = [dict() for _ in rhs.heads]
    evals = [0]

    def fx(t, x):
        evals[0] += 1
        if evals[0] > max_evals:
            raise _Budget()
        X = x.reshape(d, r)
        return (_J(rhs, X @ X.T, caches) @ X).ravel()

    def big(t, x):
        return 300.0 - math.log(max(float(x @ x), 1e-300))
    big.terminal = True
    try:
        sol = solve_ivp(fx, (0.0, t_end), X0.ravel(), method="DOP853", rtol=rtol, atol=atol, dense_output=True,
                        events=[big])
    except _Budget:
        return SimResult("budget", 0.0, message=f"factor form: more than {max_evals} evaluations")

    def state(t):
        X = sol.sol(t).reshape(d, r)
        S = X @ X.T
        n = float(np.linalg.norm(S))
        return S, (math.log(n) if n > 0 else -math.inf), (S / n if n > 0 else S)

    samples = []
    for t in sorted(times):
        if t <= sol.t[-1]:
            S, sv, U = state(t)
            samples.append((t, sv, U))
    S, sv, U = state(sol.t[-1])
    if sol.status == 1:
        return SimResult("blowup", float(sol.t[-1]), S, U, sv, samples, "factor form: ‖X‖² > e³⁰⁰")
    if sol.status != 0 and sv > 20:
        # the step size collapsed with ‖Σ‖ past e²⁰: a blow-up (as the Σ form reads a collapsing step)
        return SimResult("blowup", float(sol.t[-1]), S, U, sv, samples, f"factor form: log‖Σ‖ = {sv:.3g}, {sol.message}")
    if sol.status != 0:
        return SimResult("failed", float(sol.t[-1]), S, U, sv, samples, f"factor form: {sol.message}")
    return SimResult("reached", float(t_end), S, U, sv, samples)


def _singular(problem, Sigma0):
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    w = np.linalg.eigvalsh(_sym(S0))
    return 0 < int(np.sum(w > 1e-12 * max(1.0, float(np.abs(w).max())))) < len(w)


def _global_run(problem, Sigma0=None, rhs=None, H=None):
    S0 = frac_matrix(problem.cov) if Sigma0 is None else Sigma0
    H1, H2 = H or _horizons(problem, S0)
    if _singular(problem, Sigma0) and (rhs or rhs_for(problem)) is not None:
        return factor_simulate(problem, H2, times=(H1 / 100, H1 / 10, H1, H2 / 2), Sigma0=Sigma0, rhs=rhs), H1, H2
    r = simulate(problem, H2, times=(H1 / 100, H1 / 10, H1, H2 / 2), Sigma0=Sigma0, rhs=rhs,
                 rtol=1e-10, atol=1e-14, max_evals=60_000)
    return r, H1, H2


def _spec(U, s):
    w = np.linalg.eigvalsh(_sym(U))
    return np.sort(w)[::-1] * (math.exp(s) if s > -700 else 0.0)


def judge_clustering(problem, rank: int, Sigma0=None, rhs=None) -> Judgement:
    r, H1, H2 = _global_run(problem, Sigma0, rhs)
    cf = _threshold_blowup(problem, Sigma0, r)
    if cf is not None:
        return cf
    if r.status == "blowup":
        return Judgement(False, f"blows up at T̂ ≈ {r.t!r} (claimed global, clustering): {r.message}")
    if r.status != "reached":
        return Judgement(None, f"integration {r.status} at t = {r.t!r}: {r.message}")
    d = problem.d
    S0 = frac_matrix(problem.cov) if Sigma0 is None else Sigma0
    scale = max(1.0, float(np.max(np.abs(np.linalg.eigvalsh(S0)))))
    e1 = next((_spec(U, s) for t, s, U in r.samples if t == H1), None)
    e2 = _spec(r.U, r.s)
    if e1 is None:
        return Judgement(None, "missing sample")
    if e2[0] > 1e3 * max(scale, e1[0]) and e2[0] > 10 * e1[0]:
        return Judgement(False, f"unbounded: λ_max(Σ) = {e1[0]:.3g} at t={H1}, {e2[0]:.3g} at t={H2}")
    zero = 1e-9 * scale
    persist = decay = 0
    amb = []
    for a, b in zip(e1, e2):
        if b <= zero or b <= 0.2 * a:
            decay += 1
        elif b >= 0.9 * a and b > 1e-6 * scale:
            persist += 1
        else:
            amb.append((a, b))
    desc = f"eigenvalues at t={H1:g}: {np.array2string(e1, precision=3)}, t={H2:g}: {np.array2string(e2, precision=3)}"
    if persist > rank or decay > d - rank:
        return Judgement(False, f"claimed limit rank {rank}; {persist} persistent, {decay} decaying; {desc}")
    if persist == rank and decay == d - rank:
        return Judgement(True, desc)
    return Judgement(None, f"ambiguous trend; {desc}")


def judge_equilibrium(problem, Sstar, Sigma0=None, rhs=None) -> Judgement:
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    tol_rank = 1e-12 * max(1.0, np.max(np.abs(S0)))
    r0 = int(np.sum(np.linalg.eigvalsh(_sym(S0)) > tol_rank))
    if Sstar is not None:
        ws = np.linalg.eigvalsh(_sym(Sstar))
        rs = int(np.sum(ws > 1e-9 * max(1.0, np.max(np.abs(ws)))))
        if rs > r0:
            return Judgement(False, f"rank Σ* = {rs} > rank Σ₀ = {r0}: rank is invariant (docs/mathematics.md §4), "
                                    "so Σ(t) cannot converge to Σ*")
    r, H1, H2 = _global_run(problem, Sigma0, rhs, H=(2e2, 2e3))
    cf = _threshold_blowup(problem, Sigma0, r)
    if cf is not None:
        return cf
    if r.status == "blowup":
        return Judgement(False, f"blows up at T̂ ≈ {r.t!r} (claimed convergence to an equilibrium)")
    if r.status != "reached" or r.Sigma is None:
        return Judgement(None, f"integration {r.status} at t = {r.t!r}: {r.message}")
    S1 = next((math.exp(s) * U for t, s, U in r.samples if t == H1 and s < 700), None)
    S2 = r.Sigma
    if S1 is None:
        return Judgement(None, "missing sample")
    sc = max(1.0, np.max(np.abs(S2)))
    step = np.max(np.abs(S2 - S1))
    if Sstar is None:
        if step <= 1e-6 * sc:
            return Judgement(True, f"converges (‖Σ(H2) − Σ(H1)‖ = {step:.2e})")
        if np.max(np.abs(S2)) > 1e6 * max(1.0, np.max(np.abs(S1))):
            return Judgement(False, "‖Σ‖ grows without bound")
        return Judgement(None, f"no convergence visible (‖Σ(H2) − Σ(H1)‖ = {step:.2e})")
    dist2 = np.max(np.abs(S2 - Sstar))
    dist1 = np.max(np.abs(S1 - Sstar))
    scs = max(1.0, np.max(np.abs(Sstar)))
    if dist2 <= 1e-5 * scs:
        return Judgement(True, f"‖Σ(T) − Σ*‖ = {dist2:.2e}")
    if step <= 1e-8 * sc and dist2 > 1e-3 * scs:
        return Judgement(False, f"Σ(t) converges to {np.array2string(S2, precision=6)} ≠ Σ* = "
                                f"{np.array2string(Sstar, precision=6)} (distance {dist2:.3g})")
    if np.max(np.abs(S2)) > 1e6 * scs:
        return Judgement(False, "‖Σ‖ grows far beyond Σ*")
    return Judgement(None, f"distance to Σ*: {dist1:.2e} at H1, {dist2:.2e} at H2")


def judge_bounded(problem, Sigma0=None, rhs=None) -> Judgement:
    r, H1, H2 = _global_run(problem, Sigma0, rhs)
    cf = _threshold_blowup(problem, Sigma0, r)
    if cf is not None:
        return cf
    if r.status == "blowup":
        return Judgement(False, f"blows up at T̂ ≈ {r.t!r} (claimed bounded)")
    if r.status == "budget" and r.s > 650:
        return Judgement(False, f"‖Σ‖ > e^650 at t = {r.t!r} (claimed bounded)")
    if r.status != "reached":
        return Judgement(None, f"integration {r.status} at t = {r.t!r}: {r.message}")
    ss = [s for t, s, U in r.samples] + [r.s]
    S0 = frac_matrix(problem.cov) if Sigma0 is None else Sigma0
    s0 = math.log(max(np.linalg.norm(S0), 1e-300))
    early = max([s0] + [s for t, s, U in r.samples if t <= H1])
    if r.s > early + math.log(1e4) and r.s > max(s for t, s, U in r.samples if t <= H2 / 2) + 0.5:
        return Judgement(False, f"‖Σ‖ grows: log‖Σ‖ = {early:.3g} up to t={H1:g}, {r.s:.3g} at t={H2:g}")
    if r.s <= early + math.log(10):
        return Judgement(True, f"log‖Σ‖ ≤ {max(ss):.3g} on [0, {H2:g}]")
    return Judgement(None, f"growth trend unclear: log‖Σ‖ {early:.3g} → {r.s:.3g}")


def judge_no_blowup(problem, Sigma0=None, rhs=None, H=50.0) -> Judgement:
    r = simulate(problem, H, Sigma0=Sigma0, rhs=rhs, rtol=1e-10, max_evals=60_000)
    cf = _threshold_blowup(problem, Sigma0, r)
    if cf is not None:
        return cf
    if r.status == "blowup":
        return Judgement(False, f"blows up at T̂ ≈ {r.t!r} (claimed global existence)")
    if r.status == "reached":
        return Judgement(True, f"finite on [0, {H:g}] (log‖Σ‖ = {r.s:.3g})")
    return Judgement(None, f"integration {r.status} at t = {r.t!r}: {r.message}")


def _f_or_none(x):
    if x is None:
        return None
    try:
        return float(Fraction(str(x)))
    except (ValueError, ZeroDivisionError):
        return None


def judge(problem, d: dict, Sigma0=None, rhs=None) -> Judgement:
    """Judge one PROVED classification dict for Σ₀ = the problem's (or ``Sigma0``)."""
    if d.get("status") != "PROVED":
        return Judgement(None, "not PROVED")
    regime = regime_of(d)
    rhs = rhs or rhs_for(problem)
    if rhs is None:
        return Judgement(None, f"no oracle closure for {problem.variant!r}")
    try:
        if regime == "BLOWUP":
            lo, hi = _f_or_none(_param(d, "T_lo")), _f_or_none(_param(d, "T_hi"))
            if lo is None or hi is None or Sigma0 is not None:
                r = simulate(problem, 1e3, Sigma0=Sigma0, rhs=rhs, rtol=1e-10, max_evals=60_000)
                if r.status == "blowup":
                    return Judgement(True, f"blows up at T̂ ≈ {r.t!r}")
                if r.status == "reached" and r.s < math.log(1e-6) + math.log(
                        max(1e-300, np.linalg.norm(frac_matrix(problem.cov) if Sigma0 is None else Sigma0))):
                    return Judgement(False, f"no blow-up by t = 1e3 and Σ decays (log‖Σ‖ = {r.s:.3g})")
                return Judgement(None, f"no blow-up seen by t = 1e3 ({r.status})")
            return judge_blowup(problem, lo, hi, Sigma0, rhs)
        if regime == "CLUSTERING":
            rank = _param(d, "rank")
            if rank is None:
                return Judgement(None, "no rank given")
            return judge_clustering(problem, int(rank), Sigma0, rhs)
        if regime == "EQUILIBRIUM":
            return judge_equilibrium(problem, sigma_star_of(d, problem) if Sigma0 is None else
                                     (sigma_star_of(d) if quantifier_of(d)[0] != "this" else None),
                                     Sigma0, rhs)
        if regime == "BOUNDED":
            return judge_bounded(problem, Sigma0, rhs)
        if regime == "GLOBAL_EXISTENCE":
            return judge_no_blowup(problem, Sigma0, rhs)
    except (np.linalg.LinAlgError, FloatingPointError, OverflowError) as exc:
        return Judgement(None, f"oracle error {type(exc).__name__}: {exc}")
    return Judgement(None, f"unknown regime {regime!r}")


def judge_classification(problem, d: dict) -> Judgement:
    """Alias of :func:`judge` for the problem's own Σ₀."""
    return judge(problem, d)
