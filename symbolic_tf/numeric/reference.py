"""High-precision reference integration of Gaussian moment systems (≥ 30 correct digits).

Method: an adaptive **Taylor-series method** of high order (57 at the default 40 digits)
on the matrix ODE

    α̇ = mean_rhs(α, Σ),    Σ̇ = cov_rhs(α, Σ)

of a :class:`~symbolic_tf.symbolic.moments.MomentSystem`.  The SymPy matrix-expression
trees are walked **once** and compiled into a DAG of "matrix jet" nodes (truncated Taylor
series whose coefficients are ``flint.arb_mat`` matrices at ``dps + 10`` digits); the
Taylor coefficients of the solution then follow from the recurrence
y_{k+1} = f_k(y_0, …, y_k)/(k + 1):

* sums, constant factors and transposes act coefficient-wise;
* products are Cauchy products c_k = Σ_i a_i b_{k−i} (constant factors cost one product);
* inverses Y = X⁻¹: Y_k = −Y_0 Σ_{i≥1} X_i Y_{k−i};
* principal square roots S = M^{1/2} (Sinkhorn): S_0 by a Denman–Beavers iteration, then
  S_0 S_k + S_k S_0 = M_k − Σ_{0<i<k} S_i S_{k−i}, a Sylvester equation solved through
  its (once-inverted) Kronecker matrix.

Sub-expressions free of α and Σ are folded into constants at compile time; identical
sub-expressions are shared.  The step size comes from the decay of the last Taylor
coefficients (Jorba–Zou): h = 0.9 · min_j (ε‖y‖/‖y_j‖)^{1/j}, j ∈ {N−2, N−1, N}, with
ε = 10^{−(dps+8)}.  Dense output is free: the Taylor polynomial is evaluated at every
requested time inside a step.

Blow-up (finite-time explosion, docs/mathematics.md §4/§6): integration stops when ‖Σ‖_max (or
‖α‖_max) exceeds ``blowup_norm`` (1e30), the step size collapses below 10^{−dps}·max(1, T),
or the right-hand side becomes singular (a matrix inverse fails); the solution then has ``blowup=True``, ``t_end`` the last
time reached and only the requested times up to ``t_end``.  Nothing is returned silently
past a blow-up.

``flint`` (python-flint, ball arithmetic) is used internally only for speed (≈ 40× faster
than ``mpmath.matrix``); midpoints are kept after each step, so the balls do not certify
anything here.  Results are returned as ``mpmath`` numbers and matrices.
"""
from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath
import sympy as sp

from ..exact import working_precision
from ..symbolic import symbols as S

__all__ = ["ReferenceSolution", "ReferenceIntegrationError", "reference_solve",
           "reference_solve_problem", "compile_rhs"]


class ReferenceIntegrationError(RuntimeError):
    """The reference integrator could not reach T for a reason other than a blow-up."""


@dataclass
class ReferenceSolution:
    """Output of :func:`reference_solve`.

    Attributes
    ----------
    times : list of mpf
        Output times (the requested ones, or every step point when none were requested);
        after a blow-up only those ≤ ``t_end``.
    alpha, Sigma : lists of mpmath matrices (d×1, d×d) at those times.
    dps : int
        Digits requested (the work is done at ``dps + 10``).
    method : str
    error_estimate : mpf
        Estimated norm-wise relative error (max-entry norm) of the outputs: the sum of the
        local truncation estimates plus rounding; with ``verify=True`` also the difference
        to an independent second run at higher order and precision.  Not a rigorous bound,
        and meaningless close to a blow-up (the problem is ill-conditioned there).
    blowup : bool
    t_end : mpf
        The last time reached (T unless ``blowup``).
    alpha_end, Sigma_end : the state at ``t_end``.
    reason : str
        Why integration stopped early ("" if it reached T).
    steps, order : int
    elapsed : float
        Wall-clock seconds.
    """

    times: list
    alpha: list
    Sigma: list
    dps: int
    method: str
    error_estimate: object
    blowup: bool = False
    t_end: object = None
    alpha_end: object = None
    Sigma_end: object = None
    reason: str = ""
    steps: int = 0
    order: int = 0
    elapsed: float = 0.0
    verified: bool = False
    step_times: list = field(default_factory=list, repr=False)

    def at(self, t):
        """(alpha, Sigma) at an output time equal to ``t`` (compared to 1e-(dps) relative)."""
        t = mpmath.mpf(_to_fraction(t).numerator) / _to_fraction(t).denominator
        for ti, a, s in zip(self.times, self.alpha, self.Sigma):
            if abs(ti - t) <= mpmath.mpf(10) ** (-self.dps) * max(1, abs(t)):
                return a, s
        raise KeyError(f"no output at t = {t}")


# ---------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------
def _to_fraction(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, float, str)):
        return Fraction(x)  # a float is its exact binary value; a string "p/q" or "0.1" is read exactly
    if isinstance(x, sp.Float):
        x = mpmath.mpf(x._mpf_)
    if isinstance(x, mpmath.mpf):
        m, e = x.man_exp
        return Fraction(int(m)) * Fraction(2) ** int(e)
    e = sp.sympify(x)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    raise TypeError(f"not an exact time: {x!r}")


def _arb_of_sympy(e, dps: int):
    e = sp.sympify(e)
    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    f = sp.N(e, dps + 15)
    if not f.is_real or not f.is_number:
        raise TypeError(f"cannot evaluate {e} to a real number")
    return _arb_of_mpf(mpmath.mpf(sp.Float(f, dps + 15)._mpf_))


def _arb_of_mpf(x):
    sign, man, exp, _bc = mpmath.mpf(x)._mpf_
    if man == 0:
        return flint.arb(0)
    man = -man if sign else man
    q = flint.fmpq(man << exp, 1) if exp >= 0 else flint.fmpq(man, 1 << (-exp))
    return flint.arb(q)


def _mpf_of_arb(a):
    m, e = a.mid().man_exp()
    return mpmath.mpf((int(m), int(e)))


def _arb_of_frac(q: Fraction):
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _mat_of_sympy(M, dps: int):
    M = sp.Matrix(M)
    return flint.arb_mat(M.rows, M.cols, [_arb_of_sympy(e, dps) for e in M])


def _mat_of_any(M, dps: int):
    if isinstance(M, flint.arb_mat):
        return M
    if isinstance(M, mpmath.matrix):
        return flint.arb_mat(M.rows, M.cols, [_arb_of_mpf(M[i, j]) for i in range(M.rows)
                                              for j in range(M.cols)])
    return _mat_of_sympy(M, dps)


def _mp_of_mat(M):
    return mpmath.matrix([[_mpf_of_arb(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def _log2norm(M) -> float:
    """log2 of the max-entry norm (approximate, −inf for 0); robust to any exponent."""
    best = -math.inf
    for e in M.entries():
        if not e.is_finite():
            return math.inf
        m, x = e.mid().man_exp()
        m = int(m)
        if m:
            best = max(best, abs(m).bit_length() + int(x))
    return float(best)


def _eye(n):
    return flint.arb_mat(n, n, [flint.arb(1) if i == j else flint.arb(0)
                                for i in range(n) for j in range(n)])


def _zeros(r, c):
    return flint.arb_mat(r, c)


def _sqrtm(M, tol_bits: int):
    """Principal square root (spectrum in Re > 0), Denman–Beavers, real arithmetic."""
    n = M.nrows()
    Y, Z = M.mid(), _eye(n)
    prev = math.inf
    for _ in range(200):
        Yn = ((Y + Z.inv()) * flint.arb(0.5)).mid()
        Z = ((Z + Y.inv()) * flint.arb(0.5)).mid()
        dl, yl = _log2norm(Yn - Y), _log2norm(Yn)
        Y = Yn
        if dl == -math.inf or dl < yl - tol_bits:
            return Y
        if dl < yl - tol_bits // 2 and dl >= prev:  # converged to rounding level
            return Y
        prev = dl
    raise ArithmeticError("matrix square root iteration did not converge (spectrum not in Re > 0?)")


# ---------------------------------------------------------------------------------------
# matrix-jet nodes
# ---------------------------------------------------------------------------------------
class _Node:
    const = False

    def __init__(self):
        self.c = []

    def co(self, i):
        return self.c[i] if i < len(self.c) else None


class _Const(_Node):
    const = True

    def __init__(self, value):
        super().__init__()
        self.c = [value]

    def push(self, k):
        pass


class _State(_Node):
    def push(self, k):  # coefficients are appended by the integrator
        pass


class _Add(_Node):
    def __init__(self, args):
        super().__init__()
        self.args = args

    def push(self, k):
        acc = None
        for a in self.args:
            v = a.co(k)
            if v is not None:
                acc = v if acc is None else acc + v
        self.c.append(None if acc is None else acc.mid())


class _Scale(_Node):
    def __init__(self, s, arg):
        super().__init__()
        self.s, self.arg = s, arg

    def push(self, k):
        v = self.arg.co(k)
        self.c.append(None if v is None else (v * self.s).mid())


class _Transpose(_Node):
    def __init__(self, arg):
        super().__init__()
        self.arg = arg

    def push(self, k):
        v = self.arg.co(k)
        self.c.append(None if v is None else v.transpose())


class _Mul(_Node):
    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b

    def push(self, k):
        a, b = self.a, self.b
        if a.const:
            v = b.c[k]
            self.c.append(None if v is None else (a.c[0] * v).mid())
            return
        if b.const:
            v = a.c[k]
            self.c.append(None if v is None else (v * b.c[0]).mid())
            return
        ac, bc = a.c, b.c
        acc = None
        for i in range(k + 1):
            x = ac[i]
            if x is None:
                continue
            y = bc[k - i]
            if y is None:
                continue
            p = x * y
            acc = p if acc is None else acc + p
        self.c.append(None if acc is None else acc.mid())


class _Inv(_Node):
    def __init__(self, arg):
        super().__init__()
        self.arg = arg

    def push(self, k):
        X = self.arg.c
        if k == 0:
            self.c.append(X[0].inv().mid())
            return
        acc = None
        for i in range(1, k + 1):
            x = X[i]
            if x is None:
                continue
            p = x * self.c[k - i]
            acc = p if acc is None else acc + p
        self.c.append(None if acc is None else (-(self.c[0] * acc)).mid())


class _Sqrt(_Node):
    def __init__(self, arg, tol_bits):
        super().__init__()
        self.arg, self.tol_bits = arg, tol_bits

    def push(self, k):
        M = self.arg.c
        if k == 0:
            S0 = _sqrtm(M[0], self.tol_bits)
            n = S0.nrows()
            K = flint.arb_mat(n * n, n * n)
            for i in range(n):
                for j in range(n):
                    r = i * n + j
                    for m in range(n):
                        K[r, m * n + j] += S0[i, m]  # (S0 X)_{ij}
                        K[r, i * n + m] += S0[m, j]  # (X S0)_{ij}
            self.Kinv, self.n = K.inv().mid(), n
            self.c = [S0]
            return
        C = M[k]
        for i in range(1, k):
            if self.c[i] is not None and self.c[k - i] is not None:
                p = self.c[i] * self.c[k - i]
                C = -p if C is None else C - p
        if C is None:
            self.c.append(None)
            return
        n = self.n
        x = self.Kinv * flint.arb_mat(n * n, 1, C.entries())
        self.c.append(flint.arb_mat(n, n, x.mid().entries()))


# ---------------------------------------------------------------------------------------
# compiler: SymPy matrix expression → jet DAG
# ---------------------------------------------------------------------------------------
class _Compiled:
    """The moment system compiled once into jet nodes (α and Σ are the only variables)."""

    def __init__(self, system, env: dict, d: int, k: int | None, dps: int):
        self.d, self.dps = d, dps
        self.tol_bits = _prec_bits(dps) - 24
        if k is None:
            k = _infer_k(env, d)
        self.dims = {S.d: d, S.k: k}
        self.mat_env, self.scal_env = {}, {}
        for key, val in env.items():
            if isinstance(key, sp.MatrixSymbol):
                self.mat_env[key.name] = val
            else:
                self.scal_env[key] = val
        self.alpha = _State()
        self.Sigma = _State()
        self.nodes: list = []
        self.memo: dict = {}
        self._muls: dict = {}
        mean = system.mean_rhs.subs(self.dims)
        cov = system.cov_rhs.subs(self.dims)
        self.mean = self._c(mean)
        self.cov = self._c(cov)

    # -- leaves --------------------------------------------------------------------------
    def _scalar(self, e):
        e = sp.sympify(e).xreplace(self.scal_env)
        if e.free_symbols:
            raise KeyError(f"no value for {sorted(map(str, e.free_symbols))} in env")
        return _arb_of_sympy(e, self.dps)

    def _leaf(self, e):
        name = e.name
        if name == "alpha":
            return self.alpha
        if name == "Sigma":
            return self.Sigma
        if name not in self.mat_env:
            raise KeyError(f"no value for matrix {name} in env")
        val = _mat_of_sympy(self.mat_env[name], self.dps)
        if (val.nrows(), val.ncols()) != tuple(int(n) for n in e.shape):
            raise ValueError(f"{name}: expected shape {e.shape}, got {val.nrows()}×{val.ncols()}")
        return _Const(val)

    # -- structure -----------------------------------------------------------------------
    def _c(self, e):
        if e in self.memo:
            return self.memo[e]
        if isinstance(e, (sp.MatMul, sp.MatAdd)) and e.shape[0] == e.shape[1]:
            et = self._transpose_expr(e)
            if et != e and et in self.memo:  # e.g. Σ̇ = X + Xᵀ: compute X once
                node = self.memo[et]
                node = _Const(node.c[0].transpose()) if node.const else self._fold(_Transpose(node))
                self.memo[e] = node
                return node
        node = self._build(e)
        if not node.const and not isinstance(node, _State) and not getattr(node, "registered", False):
            node = self._fold(node)
        self.memo[e] = node
        return node

    def _build(self, e):
        if isinstance(e, sp.MatrixSymbol):
            return self._leaf(e)
        if isinstance(e, sp.Identity):
            return _Const(_eye(int(e.shape[0])))
        if isinstance(e, sp.ZeroMatrix):
            return _Const(_zeros(int(e.shape[0]), int(e.shape[1])))
        if isinstance(e, sp.MatrixBase):
            return _Const(flint.arb_mat(e.rows, e.cols, [self._scalar(x) for x in e]))
        if isinstance(e, sp.MatAdd):
            return _Add([self._c(a) for a in e.args])
        if isinstance(e, sp.MatMul):
            scal = [a for a in e.args if not getattr(a, "is_Matrix", False)]
            mats = [a for a in e.args if getattr(a, "is_Matrix", False)]
            s = flint.arb(1)
            for a in scal:
                if any(isinstance(x, sp.MatrixExpr) for x in sp.preorder_traversal(a)):
                    raise TypeError(f"state-dependent scalar factor {a} (e.g. a trace)")
                s = s * self._scalar(a)
            nodes = [self._c(m) for m in mats]
            node = nodes[0]
            for nx in nodes[1:]:
                node = self._mul(node, nx)
            if s != 1:  # exact comparison: s is exact unless irrational
                node = self._fold(_Scale(s, node))
            return node
        if isinstance(e, sp.Transpose):
            return _Transpose(self._c(e.arg))
        if isinstance(e, sp.Inverse):
            return _Inv(self._c(e.arg))
        if isinstance(e, sp.MatPow):
            p = sp.sympify(e.exp)
            base = self._c(e.base)
            if p.is_Integer:
                n = int(p)
                if n == 0:
                    return _Const(_eye(int(e.shape[0])))
                node = base
                for _ in range(abs(n) - 1):
                    node = self._mul(node, base)
                return _Inv(node) if n < 0 else node
            if p == sp.S.Half:
                return _Sqrt(base, self.tol_bits)
            if p == -sp.S.Half:
                return _Inv(self._fold(_Sqrt(base, self.tol_bits)))
            raise TypeError(f"matrix power with exponent {p}")
        raise TypeError(f"cannot compile {type(e).__name__}: {e}")

    def _transpose_expr(self, e):
        """Canonical form of eᵀ (Σ is symmetric)."""
        et = sp.Transpose(e).doit()
        return et.replace(lambda x: isinstance(x, sp.Transpose) and isinstance(x.arg, sp.MatrixSymbol)
                          and x.arg.name == "Sigma", lambda x: x.arg)

    def _mul(self, a, b):
        key = (id(a), id(b))
        if key not in self._muls:
            self._muls[key] = self._fold(_Mul(a, b))
        return self._muls[key]

    def _fold(self, node):
        """Register an intermediate node (or fold it when all its inputs are constant)."""
        if all(getattr(ch, "const", False) for ch in _children(node)):
            node.push(0)  # constant folding
            return _Const(node.c[0])
        node.registered = True
        self.nodes.append(node)
        return node

    # -- evaluation ----------------------------------------------------------------------
    def reset(self, alpha0, Sigma0):
        for n in self.nodes:
            n.c = []
        self.alpha.c = [alpha0]
        self.Sigma.c = [Sigma0]

    def push(self, k):
        """Coefficient k of every node, then coefficient k+1 of α and Σ."""
        for n in self.nodes:
            n.push(k)
        inv = flint.arb(flint.fmpq(1, k + 1))
        ma, mc = self.mean.co(k), self.cov.co(k)
        self.alpha.c.append(_zeros(self.d, 1) if ma is None else (ma * inv).mid())
        self.Sigma.c.append(_zeros(self.d, self.d) if mc is None else (mc * inv).mid())


def _children(node):
    if isinstance(node, _Add):
        return node.args
    if isinstance(node, _Mul):
        return [node.a, node.b]
    if isinstance(node, (_Scale, _Transpose, _Inv, _Sqrt)):
        return [node.arg]
    return []


def _infer_k(env, d):
    for key, val in env.items():
        if isinstance(key, sp.MatrixSymbol) and key.name.split("_")[0] in ("Q", "K"):
            return sp.Matrix(val).rows
    return d


def _prec_bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 16


def compile_rhs(system, env: dict, d: int, k: int | None = None, dps: int = 50):
    """One fast callable ``f(alpha, Sigma) -> (alpha_dot, Sigma_dot)`` (mpmath matrices).

    The expression trees are compiled once; ``alpha``, ``Sigma`` may be mpmath or SymPy
    matrices.  Every other symbol takes its value from ``env``.
    """
    bits = _prec_bits(dps + 10)
    with working_precision(bits):
        comp = _Compiled(system, env, d, k, dps + 10)

    def f(alpha, Sigma):
        with working_precision(bits), mpmath.workdps(dps + 10):
            comp.reset(_mat_of_any(alpha, dps + 10), _mat_of_any(Sigma, dps + 10))
            for n in comp.nodes:
                n.push(0)
            ma, mc = comp.mean.co(0), comp.cov.co(0)
            ma = _zeros(d, 1) if ma is None else ma
            mc = _zeros(d, d) if mc is None else mc
            return _mp_of_mat(ma), _mp_of_mat(mc)

    return f


# ---------------------------------------------------------------------------------------
# the integrator
# ---------------------------------------------------------------------------------------
def _horner(coeffs, theta):
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = acc * theta + c
    return acc


def _default_order(dps: int) -> int:
    # Jorba–Zou: N ≈ −ln(ε)/2 + 1 with ε = 10^-(dps+8)
    return max(12, int(math.ceil(0.5 * math.log(10) * (dps + 8))) + 1)


def _solve_once(system, env, d, T: Fraction, times, dps, k, order, blowup_norm, max_steps):
    wdps = dps + 10
    bits = _prec_bits(wdps)
    t_start = _time.perf_counter()
    with working_precision(bits), mpmath.workdps(wdps):
        comp = _Compiled(system, env, d, k, wdps)
        N = order or _default_order(dps)
        alpha = _mat_of_sympy(env[S.alpha], wdps) if S.alpha in env else _zeros(d, 1)
        Sigma = _mat_of_sympy(env[S.Sigma], wdps)
        if (alpha.nrows(), alpha.ncols()) != (d, 1) or (Sigma.nrows(), Sigma.ncols()) != (d, d):
            raise ValueError("alpha must be d×1 and Sigma d×d")
        log2eps = -(dps + 8) * math.log2(10)
        log2_blow = math.log2(blowup_norm)
        hmin = Fraction(1, 10 ** dps) * max(1, T)
        half = flint.arb(0.5)

        out_t, out_a, out_s = [], [], []
        want = list(times) if times is not None else None
        wi = 0
        if want is not None:
            while wi < len(want) and want[wi] == 0:
                out_t.append(want[wi]); out_a.append(alpha); out_s.append(Sigma); wi += 1
        else:
            out_t.append(Fraction(0)); out_a.append(alpha); out_s.append(Sigma)

        t = Fraction(0)
        steps, trunc = 0, 0.0
        blowup, reason = False, ""
        step_times = [Fraction(0)]
        while t < T:
            if steps >= max_steps:
                raise ReferenceIntegrationError(
                    f"step limit {max_steps} reached at t = {float(t):.6g} (T = {float(T):.6g})")
            comp.reset(alpha, Sigma)
            try:
                for kk in range(N):
                    comp.push(kk)
            except ZeroDivisionError:
                blowup, reason = True, f"right-hand side singular at t = {float(t):.17g}"
                break
            ya, ys = comp.alpha.c, comp.Sigma.c
            ln0 = max(_log2norm(alpha), _log2norm(Sigma))
            if ln0 == -math.inf:
                ln0 = 0.0
            hl = math.inf  # log2 h
            for j in (N - 2, N - 1, N):
                lj = max(_log2norm(ya[j]), _log2norm(ys[j]))
                if lj == math.inf:
                    hl = -math.inf
                    break
                if lj > -math.inf:
                    hl = min(hl, (log2eps + ln0 - lj) / j)
            remaining = T - t
            if hl == math.inf or hl > math.log2(float(remaining)) + 1:
                h = remaining
            else:
                h = Fraction(0.9 * 2.0 ** hl) if hl > -1000 else Fraction(0)
                if h >= remaining:
                    h = remaining
            if h < hmin and h < remaining:
                blowup, reason = True, f"step size collapsed to {float(h):.3g} at t = {float(t):.17g}"
                break
            harb = _arb_of_frac(h)
            # local truncation estimate (relative): the last two terms of the series at h
            lh = math.log2(float(h)) if h > 0 else -math.inf
            for j in (N - 1, N):
                lj = max(_log2norm(ya[j]), _log2norm(ys[j]))
                if lj > -math.inf:
                    trunc += 2.0 ** min(0.0, lj + j * lh - ln0)
            # dense output inside (t, t + h]
            t_new = t + h
            if want is not None:
                while wi < len(want) and want[wi] <= t_new:
                    th = _arb_of_frac(want[wi] - t)
                    out_t.append(want[wi])
                    out_a.append(_horner(ya, th).mid())
                    sg = _horner(ys, th)
                    out_s.append(((sg + sg.transpose()) * half).mid())
                    wi += 1
            alpha = _horner(ya, harb).mid()
            sg = _horner(ys, harb)
            Sigma = ((sg + sg.transpose()) * half).mid()
            t = t_new
            steps += 1
            step_times.append(t)
            if want is None:
                out_t.append(t); out_a.append(alpha); out_s.append(Sigma)
            la, ls = _log2norm(alpha), _log2norm(Sigma)
            if max(la, ls) > log2_blow:
                blowup = True
                if max(la, ls) == math.inf:
                    reason = f"non-finite state at t = {float(t):.17g}"
                else:
                    reason = f"‖{'Σ' if ls >= la else 'α'}‖ exceeded {blowup_norm:.3g} at t = {float(t):.17g}"
                break

        rounding = steps * 2.0 ** (-bits + 8)
        err = mpmath.mpf(trunc + rounding)
        res = ReferenceSolution(
            times=[mpmath.mpf(q.numerator) / q.denominator for q in out_t],
            alpha=[_mp_of_mat(a) for a in out_a],
            Sigma=[_mp_of_mat(s) for s in out_s],
            dps=dps, method=f"taylor(order={N}, jets=flint.arb_mat@{wdps}dps)",
            error_estimate=err, blowup=blowup,
            t_end=mpmath.mpf(t.numerator) / t.denominator,
            alpha_end=_mp_of_mat(alpha), Sigma_end=_mp_of_mat(Sigma),
            reason=reason, steps=steps, order=N,
            step_times=[mpmath.mpf(q.numerator) / q.denominator for q in step_times])
    res.elapsed = _time.perf_counter() - t_start
    return res


def reference_solve(system, env: dict, d: int, T, *, times=None, dps: int = 40, k: int | None = None,
                    order: int | None = None, blowup_norm: float = 1e30, max_steps: int = 20000,
                    verify: bool = False) -> ReferenceSolution:
    """Integrate a moment system to ``dps`` digits (default 40) on [0, T].

    Parameters
    ----------
    system : MomentSystem
    env : dict
        Symbol → exact SymPy value, as :func:`~symbolic_tf.symbolic.moments.problem_env`
        gives; the α and Σ entries are the initial condition (α defaults to 0).
    d : int
        Dimension; ``k`` the number of query/key rows (ℓ2; inferred from env by default).
    T : horizon (Rational, int, str, or a float / mpf / SymPy Float read by its exact binary value).
    times : optional increasing output times in [0, T] (exact like T); by default every step.
    order : Taylor order (default ≈ 1.15·(dps+8)).
    blowup_norm : stop and report ``blowup=True`` when ‖Σ‖_max or ‖α‖_max exceeds it.
    max_steps : raise :class:`ReferenceIntegrationError` after that many steps.
    verify : run a second time at dps+10 and order+10 and add the difference of the two
        runs (norm-wise relative) to ``error_estimate``.

    Returns
    -------
    ReferenceSolution
    """
    T = _to_fraction(T)
    if T <= 0:
        raise ValueError("T must be positive")
    if times is not None:
        times = [_to_fraction(x) for x in times]
        if any(b < a for a, b in zip(times, times[1:])):
            raise ValueError("times must be increasing")
        if times and (times[0] < 0 or times[-1] > T):
            raise ValueError("times must lie in [0, T]")
    res = _solve_once(system, env, d, T, times, dps, k, order, blowup_norm, max_steps)
    if verify:
        # an independent run at higher precision and order, compared at the outputs
        # (or at the end point when no output times were requested)
        check_times = times if times is not None else [_to_fraction(res.t_end)]
        ref = _solve_once(system, env, d, T, check_times, dps + 10, k, res.order + 10,
                          blowup_norm, max_steps)
        if times is not None:
            pairs = list(zip(zip(res.alpha, res.Sigma), zip(ref.alpha, ref.Sigma)))
        else:
            pairs = [((res.alpha_end, res.Sigma_end), (ref.alpha[-1], ref.Sigma[-1]))] if ref.alpha else []
        with mpmath.workdps(dps + 20):
            diff = mpmath.mpf(0)
            for (a1, s1), (a2, s2) in pairs:
                v1, v2 = list(a1) + list(s1), list(a2) + list(s2)
                scale = max([abs(x) for x in v2] + [mpmath.mpf(10) ** -300])
                diff = max(diff, max(abs(x - y) for x, y in zip(v1, v2)) / scale)
            res.error_estimate = res.error_estimate + diff
        res.verified = True
        res.elapsed += ref.elapsed
    return res


def reference_solve_problem(problem, T=None, **kw) -> ReferenceSolution:
    """:func:`reference_solve` for a :class:`~symbolic_tf.spec.problem.Problem`
    (T defaults to ``problem.T``)."""
    from ..symbolic.moments import problem_env
    from ..symbolic.systems import system_for_problem

    system = system_for_problem(problem)
    env = problem_env(problem, system)
    if T is None:
        if problem.T is None:
            raise ValueError("no horizon: pass T or set T in the problem")
        T = problem.T
    kk = len(problem.Q) if problem.Q is not None else problem.d
    kw.setdefault("k", kk)
    return reference_solve(system, env, problem.d, T, **kw)
