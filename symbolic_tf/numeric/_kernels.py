"""Compiled (numba) moment kernels: the whole adaptive step loop per batch member.

The batched numpy integrator (:mod:`symbolic_tf.numeric.integrate`) pays a fixed Python/numpy
overhead of several hundred µs per step whatever the batch; for small d that overhead is the
whole cost.  This module generates, from the same SymPy closure Γ(x) = J x + c that the numpy
path prints (docs/mathematics.md §3), a numba module that

* evaluates J and c of one member with allocation-free loops over a preallocated workspace
  (every distinct matrix sub-expression is one workspace slot — common-subexpression
  elimination by construction, as in :mod:`~symbolic_tf.numeric.codegen`); the dimension d
  (and k, the query/key rows) are compile-time constants, so LLVM unrolls the small loops;
* runs the complete adaptive integration of one member — the same state (α, Ψ) with
  Σ = ΨΨᵀ (the congruence factor of docs/mathematics.md §4), the same Dormand–Prince 5(4)
  tableau, error norm, step-size rule, dense output (samples, blow-up crossings) and stopping
  rules as the numpy path,
  so that both give the same answer to the integration tolerance and stop for the same reason
  at the same time; or the Dormand–Prince 8(5,3) pair (Hairer's DOP853, SciPy's coefficients)
  with its order-7 continuous extension;
* loops over the batch with ``numba.prange`` (``parallel=True``).

Generated modules are cached on disk beside the numpy ones (``$SYMTF_CACHE`` or
``~/.cache/symbolic_tf/codegen``) and numba caches the machine code beside them
(``cache=True``); :func:`compile_cost` reports what the first call of a process paid.

numba is imported only here, and only when a compiled kernel is requested.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy as sp

from ..atomic import write_text_atomic
from ..spec.errors import InvalidParameters
from ..symbolic import symbols as S
from ..symbolic.walk import MatrixWalker, is_matrix
from .codegen import scalar_code

__all__ = ["available", "kernel_for", "Kernel", "compile_cost", "MAX_COMPILED_D", "KERNEL_VERSION"]

KERNEL_VERSION = "2"  # 2: samples and blow-up crossings from the dense output (steps no longer land on samples)
UNROLL_MAX_D = 4    # fully unrolled entries up to here; loop helpers above (compile time)
PARALLEL_MIN_BATCH = 16  # below this the members run on the calling thread (run_serial*), so one
#   problem (classify's evidence, B = 1) never wakes the thread pool.  On a free 2-core machine the
#   threaded runner wins from B = 25 on (DOP853, softmax: ×0.8 of the serial time at d = 2, ×0.5 at
#   d = 4, ×0.5–0.7 at d = 8; B = 25…200, measured with a serial/threaded toggle)
MAX_COMPILED_D = 8  # the compiled path is built for d ≤ 8 (larger d: batched BLAS, see integrate)

_COST: dict = {}


def available() -> bool:
    """True when numba can be imported (the compiled path is optional at run time)."""
    try:
        import numba  # noqa: F401
    except Exception:  # pragma: no cover - depends on the installation
        return False
    return True


# --------------------------------------------------------------------------------------------
# printing the closure J, c as allocation-free numba statements
# --------------------------------------------------------------------------------------------
def _mul(x: str, y: str) -> str:
    if x == "0.0" or y == "0.0":
        return "0.0"
    if x == "1.0":
        return y
    if y == "1.0":
        return x
    return f"{x} * {y}"


def _sum(terms) -> str:
    terms = [t for t in terms if t != "0.0"]
    return " + ".join(terms) if terms else "0.0"


def _power_by_products(printer, e, base, n, walker, product):
    """Xⁿ (n ≠ 0) as n − 1 products of X (of X⁻¹ when n < 0), each printed by ``product(a, b)``."""
    if n == 0:
        raise printer._unsupported(e)
    one = walker.walk(sp.Inverse(e.base)) if n < 0 else base
    cur = one
    for _ in range(abs(n) - 1):
        cur = product(cur, one)
    return cur


class _Printer:
    """Prints a SymPy matrix expression as unrolled scalar statements: one local per entry.

    Every distinct sub-expression is printed once (common-subexpression elimination by
    construction); transposes cost nothing (an index swap); products with the constants 0 and 1
    of identities and zero matrices are folded away.  Inverses and square roots are the only
    loops (``_inv``, ``_sqrtm`` on workspace slots).  ``sigma`` says where Σ comes from:
    ``"psi"`` (Σ = ΨΨᵀ from the flat state ``y``) or ``"array"`` (the argument ``Sigma``).
    """

    def __init__(self, d: int, k: int, sigma: str):
        self.d, self.k, self.sigma = d, k, sigma
        self.lines: list[str] = []
        self.params: set[str] = set()
        self.count = 0
        self.slots = 0
        self.walker = MatrixWalker(self)

    def shape(self, e) -> tuple[int, int]:
        r, c = (int(sp.sympify(n).subs({S.d: self.d, S.k: self.k})) for n in e.shape)
        return r, c

    def var(self, code: str) -> str:
        if code in ("0.0", "1.0") or code.replace("_", "").isalnum():
            return code
        self.count += 1
        name = f"x{self.count}"
        self.lines.append(f"    {name} = {code}")
        return name

    def _scalar(self, e) -> str:
        return scalar_code(e, self._symbol)

    def _symbol(self, name: str) -> str:
        self.params.add(name)
        return f"p_{name}[0, 0]"

    def _load(self, e):
        d = self.d
        r, c = self.shape(e)
        if e.name == "alpha":
            src = (lambda i, j: f"y[{i}]") if self.sigma == "psi" else (lambda i, j: f"alpha[{i}, 0]")
            return [[self.var(src(i, 0))] for i in range(d)]
        if e.name == "Sigma":
            if self.sigma == "psi":  # Σ = ΨΨᵀ, Ψ row-major in y[d:]
                M = [[None] * d for _ in range(d)]
                for i in range(d):
                    for j in range(i, d):
                        M[i][j] = M[j][i] = self.var(_sum(f"y[{d + i * d + m}] * y[{d + j * d + m}]" for m in range(d)))
                return M
            return [[self.var(f"Sigma[{i}, {j}]") for j in range(d)] for i in range(d)]
        self.params.add(e.name)
        return [[self.var(f"p_{e.name}[{i}, {j}]") for j in range(c)] for i in range(r)]

    def mat(self, e):
        return self.walker.walk(e)

    @staticmethod
    def _unsupported(e):
        return TypeError(f"cannot print matrix expression {type(e).__name__}: {e}")

    def matrix_symbol(self, e):
        out = []
        for row in self._load(e):
            out.append([self.var(x) if not x.startswith("x") else x for x in row])
        return out

    def identity(self, e):
        return [["1.0" if i == j else "0.0" for j in range(self.d)] for i in range(self.d)]

    def zero(self, e):
        r, c = self.shape(e)
        return [["0.0"] * c for _ in range(r)]

    def explicit(self, e):
        raise self._unsupported(e)

    def scalar(self, e):
        raise self._unsupported(e)

    def matadd(self, e, args):
        r, c = len(args[0]), len(args[0][0])
        return [[self.var(_sum(a[i][j] for a in args)) for j in range(c)] for i in range(r)]

    def _product(self, x, y):
        return [[self.var(_sum(_mul(x[i][m], y[m][j]) for m in range(len(y))))
                 for j in range(len(y[0]))] for i in range(len(x))]

    def matmul(self, e, scalars, mats):
        cur = mats[0]
        for y in mats[1:]:
            cur = self._product(cur, y)
        if scalars:
            s = self.var(self._scalar(sp.Mul(*scalars)))
            cur = [[self.var(_mul(s, x)) for x in row] for row in cur]
        return cur

    def transpose(self, e, arg):
        return [list(col) for col in zip(*arg)]

    def inverse(self, e, arg):
        if len(arg) <= 3:
            return self._cofactor_inverse(arg)
        return self._loop_call(arg, "_inv({m}, {o}, W[{w}])", 1)

    def sqrt(self, e, base):
        return self._loop_call(base, "_sqrtm({m}, {o}, " + ", ".join(f"W[{{w{i}}}]" for i in range(5)) + ")", 5)

    def integer_power(self, e, base, n, walker):
        return _power_by_products(self, e, base, n, walker, self._product)

    def real_power(self, e, base, p, walker):
        raise self._unsupported(e)

    def _cofactor_inverse(self, x):
        """X⁻¹ = adj(X)/det X unrolled (n ≤ 3); a singular X gives inf/NaN entries, as the numpy path's NaN."""
        n = len(x)
        if n == 1:
            return [[self.var(f"1.0 / {x[0][0]}")]]

        def minor(i, j):
            rows = [r for r in range(n) if r != i]
            cols = [c for c in range(n) if c != j]
            if n == 2:
                return x[rows[0]][cols[0]]
            (a, b), (c, d) = [[x[r][q] for q in cols] for r in rows]
            return self.var(f"{a} * {d} - {b} * {c}")
        cof = [[minor(i, j) for j in range(n)] for i in range(n)]
        det = self.var(" + ".join(f"{'-' if j % 2 else ''}{x[0][j]} * {cof[0][j]}" for j in range(n)).replace("+ -", "- "))
        rdet = self.var(f"1.0 / {det}")
        return [[self.var(f"{'-' if (i + j) % 2 else ''}{cof[j][i]} * {rdet}") for j in range(n)] for i in range(n)]

    def _loop_call(self, x, template: str, n_scratch: int):
        """A square-matrix function evaluated by a loop helper on workspace slots."""
        n = len(x)
        m, o = self.slots, self.slots + 1
        scratch = list(range(self.slots + 2, self.slots + 2 + n_scratch))
        self.slots += 2 + n_scratch
        for i in range(n):
            for j in range(n):
                self.lines.append(f"    W[{m}, {i}, {j}] = {x[i][j]}")
        fmt = {"m": f"W[{m}, :{n}, :{n}]", "o": f"W[{o}, :{n}, :{n}]", "w": scratch[0]}
        fmt.update({f"w{i}": s for i, s in enumerate(scratch)})
        self.lines.append("    " + template.format(**fmt))
        return [[self.var(f"W[{o}, {i}, {j}]") for j in range(n)] for i in range(n)]


class _LoopPrinter:
    """Matrix backend of :class:`~symbolic_tf.symbolic.walk.MatrixWalker`: loop-helper calls on
    workspace slots (one per subtree).

    Used for d > ``UNROLL_MAX_D``, where fully unrolled code costs minutes of compilation: the
    dimensions are still compile-time constants (slot views have literal sizes)."""

    def __init__(self, d: int, k: int):
        self.d, self.k = d, k
        self.lines: list[str] = []
        self.params: set[str] = set()
        self.slots = 0
        self.walker = MatrixWalker(self)

    shape = _Printer.shape
    _scalar = _Printer._scalar
    _symbol = _Printer._symbol
    _unsupported = _Printer._unsupported
    explicit = _Printer.explicit
    scalar = _Printer.scalar
    real_power = _Printer.real_power

    def slot(self, shape) -> str:
        r, c = shape
        name = f"w{self.slots}"
        self.lines.append(f"    {name} = W[{self.slots}, :{r}, :{c}]")
        self.slots += 1
        return name

    def mat(self, e) -> str:
        return self.walker.walk(e)

    def matrix_symbol(self, e):
        if e.name in ("alpha", "Sigma"):
            return e.name
        self.params.add(e.name)
        return f"p_{e.name}"

    def _into(self, shape, line) -> str:
        """A new slot of ``shape`` and the statement ``line(slot)`` that fills it; returns the slot."""
        out = self.slot(shape)
        self.lines.append("    " + line(out))
        return out

    def identity(self, e):
        return self._into((self.d, self.d), lambda out: f"_eye({out})")

    def zero(self, e):
        return self._into(self.shape(e), lambda out: f"{out}[:, :] = 0.0")

    def matadd(self, e, args):
        out = self._into(self.shape(e), lambda out: f"_copy({args[0]}, {out})")
        for a in args[1:]:
            self.lines.append(f"    _addto({a}, {out})")
        return out

    def matmul(self, e, scalars, mats):
        factors = [a for a in e.args if is_matrix(a)]
        cur, shp = mats[0], self.shape(factors[0])
        for a, m in zip(factors[1:], mats[1:]):
            shp = (shp[0], self.shape(a)[1])
            cur = self._into(shp, lambda out: f"_mm({cur}, {m}, {out})")
        if scalars:
            cur = self._into(shp, lambda out: f"_copy({cur}, {out})")
            self.lines.append(f"    _scale({cur}, {self._scalar(sp.Mul(*scalars))})")
        return cur

    def transpose(self, e, arg):
        return self._into(self.shape(e), lambda out: f"_tr({arg}, {out})")

    def inverse(self, e, arg):
        return self._into(self.shape(e), lambda out: f"_inv({arg}, {out}, W[{self._scratch()}])")

    def sqrt(self, e, base):
        return self._into(self.shape(e), lambda out: f"_sqrtm({base}, {out}, "
                          + ", ".join(f"W[{self._scratch()}]" for _ in range(5)) + ")")

    def integer_power(self, e, base, n, walker):
        return _power_by_products(self, e, base, n, walker,
                                  lambda a, b: self._into(self.shape(e), lambda out: f"_mm({a}, {b}, {out})"))

    def _scratch(self) -> int:
        self.slots += 1
        return self.slots - 1


def _entrywise(name: str, args: str, over: str, statement: str) -> str:
    """The numba source of helper ``name(args)``: ``statement`` at every entry (i, j) of ``over``."""
    return f'''
@njit(cache=True, error_model="numpy")
def {name}({args}):
    for i in range({over}.shape[0]):
        for j in range({over}.shape[1]):
            {statement}

'''


# The loop helpers of the generated module: the entry-wise ones from one template, the product
# written out.
_HELPERS = (_entrywise("_eye", "out", "out", "out[i, j] = 1.0 if i == j else 0.0")
            + _entrywise("_copy", "x, out", "x", "out[i, j] = x[i, j]")
            + _entrywise("_addto", "x, out", "x", "out[i, j] += x[i, j]")
            + _entrywise("_scale", "out, s", "out", "out[i, j] *= s")
            + _entrywise("_tr", "x, out", "x", "out[j, i] = x[i, j]") + '''
@njit(cache=True, error_model="numpy")
def _stage(y, K, row, s, hh, yt):
    """yt = y + hh·Σ_{q<s} row[q]·K[q]: the state at which a Runge–Kutta stage is evaluated."""
    for i in range(y.shape[0]):
        acc = 0.0
        for q in range(s):
            acc += row[q] * K[q, i]
        yt[i] = y[i] + hh * acc


@njit(cache=True, error_model="numpy")
def _mm(x, y, out):
    for i in range(x.shape[0]):
        for j in range(y.shape[1]):
            s = 0.0
            for l in range(x.shape[1]):
                s += x[i, l] * y[l, j]
            out[i, j] = s


@njit(cache=True, error_model="numpy")
def _inv(x, out, work):
    """Gauss–Jordan with partial pivoting; a singular or non-finite x gives NaN (as the numpy path)."""
    n = x.shape[0]
    a = work[:n, :n]
    for i in range(n):
        for j in range(n):
            a[i, j] = x[i, j]
            out[i, j] = 1.0 if i == j else 0.0
    for col in range(n):
        p = col
        best = abs(a[col, col])
        for r in range(col + 1, n):
            if abs(a[r, col]) > best:
                best = abs(a[r, col])
                p = r
        if not (best > 0.0) or not np.isfinite(best):
            for i in range(n):
                for j in range(n):
                    out[i, j] = np.nan
            return
        if p != col:
            for j in range(n):
                tmp = a[col, j]
                a[col, j] = a[p, j]
                a[p, j] = tmp
                tmp = out[col, j]
                out[col, j] = out[p, j]
                out[p, j] = tmp
        piv = 1.0 / a[col, col]
        for j in range(n):
            a[col, j] *= piv
            out[col, j] *= piv
        for r in range(n):
            if r != col:
                f = a[r, col]
                if f != 0.0:
                    for j in range(n):
                        a[r, j] -= f * a[col, j]
                        out[r, j] -= f * out[col, j]


@njit(cache=True, error_model="numpy")
def _sqrtm(m, out, z, yi, zi, yn, work):
    """Principal square root by the Denman–Beavers iteration (spectrum in Re > 0)."""
    n = m.shape[0]
    y = out
    zz = z[:n, :n]
    yyi = yi[:n, :n]
    zzi = zi[:n, :n]
    yyn = yn[:n, :n]
    for i in range(n):
        for j in range(n):
            y[i, j] = m[i, j]
            zz[i, j] = 1.0 if i == j else 0.0
    for it in range(60):
        _inv(y, yyi, work)
        _inv(zz, zzi, work)
        diff = 0.0
        big = 0.0
        for i in range(n):
            for j in range(n):
                yyn[i, j] = 0.5 * (y[i, j] + zzi[i, j])
                zz[i, j] = 0.5 * (zz[i, j] + yyi[i, j])
                dv = abs(yyn[i, j] - y[i, j])
                if dv > diff:
                    diff = dv
                av = abs(yyn[i, j])
                if av > big:
                    big = av
        for i in range(n):
            for j in range(n):
                y[i, j] = yyn[i, j]
        if not diff > 1e-15 * max(1.0, big):
            break
''')

_MEMBER = '''@njit(cache=True, error_model="numpy")
def _member{M}(b, a0, Psi0, S0, scale0, t_eval, T, rtol, atol, blowup_norm, h_min, stop_conv, conv_tol, h0,
            max_steps, {Pargs}, out_a, out_S, status, t_end, a_end, Psi_end, n_steps, n_rej):
{pviews}
    n = t_eval.shape[0]
    N = D + D * D
    W = np.zeros((NW, MW, MW))
    Sg = np.empty((D, D))
    J = np.empty((D, D))
    c = np.empty((D, 1))
    al = np.empty((D, 1))
    K = np.empty((16, N))
    F = np.empty((7, N))
    y = np.empty(N)
    yt = np.empty(N)
    yn = np.empty(N)
    for i in range(D):
        y[i] = a0[b, i]
        for j in range(D):
            y[D + i * D + j] = Psi0[b, i, j]
    AA, BB, EE, E3, ORDER = {TAB}
    nst = {NST}
    nb = {NB}
    ne = {NE}
    last = {LAST}
    t = 0.0
    h = h0
    have_last = False
    rejected_last = False
    st = 0
    nacc = 0
    nrej = 0
    nxt = 0
    while nxt < n and t_eval[nxt] <= 0.0:
        for i in range(D):
            out_a[b, nxt, i] = y[i]
            for j in range(D):
                out_S[b, nxt, i, j] = S0[b, i, j]
        nxt += 1
    iters = 0
    nS = 0.0
    expo = -1.0 / ORDER
    while st == 0:
        iters += 1
        if iters > max_steps:
            st = 5
            break
        rem = T - t  # steps land on T only; samples come from the dense output
        if rem < 0.0:
            rem = 0.0
        hh = h if h < rem else rem
        if hh <= 0.0:
            hh = h
        if not have_last:  # else K[0] holds f at the state (first same as last, copied on acceptance)
{TS0}            _f(y, K[0], {pnames}, W)
        for s in range(1, nst):
            _stage(y, K, AA[s], s, hh, yt)
{TSS}            _f(yt, K[s], {pnames}, W)
        finite = True
        for i in range(N):
            acc = 0.0
            for q in range(nb):
                acc += BB[q] * K[q, i]
            yn[i] = y[i] + hh * acc
            if not np.isfinite(yn[i]):
                finite = False
        if {IS8}:  # DOP853's error estimators use f at the new point (reused if accepted)
{TSN}            _f(yn, K[nst], {pnames}, W)
        err5 = 0.0
        err3 = 0.0
        for i in range(N):
            e5 = 0.0
            e3 = 0.0
            for q in range(ne):
                e5 += EE[q] * K[q, i]
                e3 += E3[q] * K[q, i]
            sc = atol + rtol * max(abs(y[i]), abs(yn[i]))
            err5 += (hh * e5 / sc) ** 2
            err3 += (hh * e3 / sc) ** 2
        if not {IS8}:
            err = np.sqrt(err5 / N)
        else:  # Hairer's DOP853 combination of the 5th- and 3rd-order estimates (SciPy's rule)
            den = err5 + 0.01 * err3
            err = 0.0 if den == 0.0 else err5 / np.sqrt(den * N)
        finite = finite and np.isfinite(err)
        accept = finite and err <= 1.0
        if finite:
            fac = 0.9 * max(err, 1e-10) ** expo
        else:
            fac = 0.2
        fac = min(max(fac, 0.2), 5.0)
        if not accept:
            fac = min(fac, 1.0)
        elif {IS8} and rejected_last:  # SciPy's DOP853 rule: no growth right after a rejection
            fac = min(fac, 1.0)
        rejected_last = not accept
        h_new = hh * fac
        t_old = t
        blown = False
        if accept:
            tn = t + hh
            if abs(tn - T) <= 1e-14 * max(1.0, T):
                tn = T
            nS = _sym_norm(yn, Sg)  # Sg = Σ at the new state, for the convergence test below
            blown = nS > blowup_norm * scale0[b]
            if blown or (nxt < n and t_eval[nxt] <= tn * (1 + 1e-14) + 1e-300):
                if {IS8}:  # DOP853's continuous extension: 3 more stages, then the coefficients F
                    for j in range(3):
                        s = 13 + j
                        _stage(y, K, AX[j], s, hh, yt)
{TSX}                        _f(yt, K[s], {pnames}, W)
                    for i in range(N):
                        dy = yn[i] - y[i]
                        F[0, i] = dy
                        F[1, i] = hh * K[0, i] - dy
                        F[2, i] = 2.0 * dy - hh * (K[12, i] + K[0, i])
                        for r in range(4):
                            acc = 0.0
                            for q in range(16):
                                acc += DX[r, q] * K[q, i]
                            F[3 + r, i] = hh * acc
                th_stop = 1.0
                if blown:  # the crossing ‖Σ(θ)‖_F = blowup_norm·scale on the interpolant (bisection)
                    thr = blowup_norm * scale0[b]
                    lo = 0.0
                    hi = 1.0
                    for it in range(BISECT):
                        mid = 0.5 * (lo + hi)
                        _interp(y, K, F, hh, mid, yt, {IS8})
                        if _sym_norm(yt, Sg) > thr:
                            hi = mid
                        else:
                            lo = mid
                    th_stop = hi
                    _interp(y, K, F, hh, hi, yn, {IS8})
                    tn = t + hi * hh
                while nxt < n and t_eval[nxt] <= tn * (1 + 1e-14) + 1e-300:
                    th = (t_eval[nxt] - t) / hh
                    if th >= th_stop or t_eval[nxt] >= tn:  # at (or past) the stop: the end state itself
                        _sym_norm(yn, Sg)
                        for i in range(D):
                            out_a[b, nxt, i] = yn[i]
                    else:
                        _interp(y, K, F, hh, th, yt, {IS8})
                        _sym_norm(yt, Sg)
                        for i in range(D):
                            out_a[b, nxt, i] = yt[i]
                    for i in range(D):
                        for j in range(D):
                            out_S[b, nxt, i, j] = Sg[i, j]
                    nxt += 1
                nS = _sym_norm(yn, Sg)  # the samples used Sg; yn is the stop state (a crossing, if blown)
            t = tn
            for i in range(N):
                y[i] = yn[i]
                K[0, i] = K[last, i]
            have_last = True
            nacc += 1
        else:
            nrej += 1
        if accept and hh < h and fac >= 1.0:
            h = max(h, h_new)
        else:
            h = h_new
        if accept:
            if blown:
                st = 2
            elif stop_conv:
                for i in range(D):
                    al[i, 0] = y[i]
{TSC}                jc(al, Sg, {pnames}, W, J, c)
                s2 = 0.0
                for i in range(D):
                    for j in range(D):
                        v = 0.0
                        for m in range(D):
                            v += J[i, m] * Sg[m, j] + Sg[i, m] * J[j, m]
                        s2 += v * v
                if np.sqrt(s2) < conv_tol * (1.0 + nS):
                    st = 3
            if st == 0 and t >= T * (1 - 1e-15):
                st = 1
        if st == 0 and h < h_min * max(1.0, t):
            st = 2
        if st == 0 and (not finite) and hh < h_min * 10 * max(1.0, t_old):
            st = 2
    nS = _sym_norm(y, Sg)
    while nxt < n:
        for i in range(D):
            out_a[b, nxt, i] = y[i]
            for j in range(D):
                out_S[b, nxt, i, j] = Sg[i, j]
        nxt += 1
    status[b] = st
    t_end[b] = t
    for i in range(D):
        a_end[b, i] = y[i]
        for j in range(D):
            Psi_end[b, i, j] = y[D + i * D + j]
    n_steps[b] = nacc
    n_rej[b] = nrej


@njit(cache=True, parallel=True, error_model="numpy")
def run{M}(a0, Psi0, S0, scale0, t_eval, T, rtol, atol, blowup_norm, h_min, stop_conv, conv_tol, h0, max_steps,
        {Pargs}, out_a, out_S, status, t_end, a_end, Psi_end, n_steps, n_rej):
    for bb in prange(a0.shape[0]):
        b = np.int64(bb)
        _member{M}(b, a0, Psi0, S0, scale0, t_eval, T, rtol, atol, blowup_norm, h_min, stop_conv, conv_tol, h0[b],
                max_steps, {Pargs}, out_a, out_S, status, t_end, a_end, Psi_end, n_steps, n_rej)


@njit(cache=True, error_model="numpy")
def run_serial{M}(a0, Psi0, S0, scale0, t_eval, T, rtol, atol, blowup_norm, h_min, stop_conv, conv_tol, h0, max_steps,
               {Pargs}, out_a, out_S, status, t_end, a_end, Psi_end, n_steps, n_rej):
    """``run`` without threads (small batches: starting the thread pool costs more than it saves)."""
    for b in range(a0.shape[0]):
        _member{M}(b, a0, Psi0, S0, scale0, t_eval, T, rtol, atol, blowup_norm, h_min, stop_conv, conv_tol, h0[b],
                max_steps, {Pargs}, out_a, out_S, status, t_end, a_end, Psi_end, n_steps, n_rej)


'''

_PEVAL = '''

@njit(cache=True, error_model="numpy")
def _peval(P, b, t, out):
    """out = Σ_k P[b, k] t^k (Horner): a parameter polynomial in the (local) time at t."""
    bb = 0 if P.shape[0] == 1 else b
    n = P.shape[1]
    for i in range(P.shape[2]):
        for j in range(P.shape[3]):
            acc = P[bb, n - 1, i, j]
            for k in range(n - 2, -1, -1):
                acc = acc * t + P[bb, k, i, j]
            out[i, j] = acc
'''


_STEPPER = '''
@njit(cache=True, error_model="numpy")
def _interp(y, K, F, hh, th, out, is8):
    """The continuous extension of the accepted step from y at θ = th ∈ [0, 1] into out:
    DOPRI5 order 4, y + h Σ_s k_s Σ_j P5[s, j] θ^(j+1); DOP853 order 7 from the coefficients F
    (``symbolic_tf.numeric._tableaus``)."""
    N = y.shape[0]
    if is8:
        x = th
        u = 1.0 - th
        for i in range(N):
            v = F[6, i] * x
            v = (v + F[5, i]) * u
            v = (v + F[4, i]) * x
            v = (v + F[3, i]) * u
            v = (v + F[2, i]) * x
            v = (v + F[1, i]) * u
            v = (v + F[0, i]) * x
            out[i] = y[i] + v
    else:
        w0 = th * (P5[0, 0] + th * (P5[0, 1] + th * (P5[0, 2] + th * P5[0, 3])))
        w2 = th * (P5[2, 0] + th * (P5[2, 1] + th * (P5[2, 2] + th * P5[2, 3])))
        w3 = th * (P5[3, 0] + th * (P5[3, 1] + th * (P5[3, 2] + th * P5[3, 3])))
        w4 = th * (P5[4, 0] + th * (P5[4, 1] + th * (P5[4, 2] + th * P5[4, 3])))
        w5 = th * (P5[5, 0] + th * (P5[5, 1] + th * (P5[5, 2] + th * P5[5, 3])))
        w6 = th * (P5[6, 0] + th * (P5[6, 1] + th * (P5[6, 2] + th * P5[6, 3])))
        for i in range(N):
            out[i] = y[i] + hh * (w0 * K[0, i] + w2 * K[2, i] + w3 * K[3, i] + w4 * K[4, i] + w5 * K[5, i]
                                  + w6 * K[6, i])

@njit(cache=True, error_model="numpy")
def _sym_norm(y, Sg):
    """Sg = sym(ΨΨᵀ) (exactly symmetric) from the flat state; returns ‖Sg‖_F."""
    s = 0.0
    for i in range(D):
        for j in range(i, D):
            x = 0.0
            z = 0.0
            for m in range(D):
                x += y[D + i * D + m] * y[D + j * D + m]
                z += y[D + j * D + m] * y[D + i * D + m]
            v = 0.5 * (x + z)
            Sg[i, j] = v
            Sg[j, i] = v
            s += v * v if i == j else 2.0 * v * v
    return np.sqrt(s)


@njit(cache=True, error_model="numpy")
def _rhs_member(b, alpha, Sigma, {Pargs}, out_a, out_S):
{pviews}
    W = np.zeros((NW, MW, MW))
    J = np.empty((D, D))
    c = np.empty((D, 1))
    a = np.empty((D, 1))
    for i in range(D):
        a[i, 0] = alpha[b, i]
    Sg = Sigma[b]
    jc(a, Sg, {pnames}, W, J, c)
    for i in range(D):
        s = c[i, 0]
        for j in range(D):
            s += J[i, j] * a[j, 0]
            v = 0.0
            for m in range(D):
                v += J[i, m] * Sg[m, j] + Sg[i, m] * J[j, m]
            out_S[b, i, j] = v
        out_a[b, i] = s


@njit(cache=True, error_model="numpy")
def rhs_batch(alpha, Sigma, {Pargs}, out_a, out_S):
    """(α̇, Σ̇) = (Jα + c, JΣ + ΣJᵀ) for a batch (a check against the numpy RHS)."""
    for bb in range(alpha.shape[0]):
        b = np.int64(bb)
        _rhs_member(b, alpha, Sigma, {Pargs}, out_a, out_S)
'''


def _tableaux() -> str:
    """Dormand–Prince 5(4) and 8(5,3) coefficients as module constants (numba globals)."""
    global _TABLEAUX
    if _TABLEAUX is not None:
        return _TABLEAUX
    from . import _tableaus as tb

    A5 = np.zeros((7, 7))
    for i, row in enumerate(tb.DOPRI5_A):
        A5[i, :len(row)] = row
    n8 = tb.DOP853_N_STAGES + 1  # 12 stages + the function value at the new point (for the error)
    A8 = np.zeros((n8, n8))
    A8[:tb.DOP853_N_STAGES, :tb.DOP853_N_STAGES] = np.array(tb.DOP853_A)
    B8 = np.zeros(n8)
    B8[:tb.DOP853_N_STAGES] = tb.DOP853_B
    C8 = A8.sum(axis=1)  # autonomous systems: c_i = Σ_j a_ij (unused by the kernels)
    E5 = np.zeros(n8)
    E5[:] = tb.DOP853_E5
    E3 = np.zeros(n8)
    E3[:] = tb.DOP853_E3

    def arr(x):
        return "np.array(" + repr(np.asarray(x).tolist()) + ")"

    _TABLEAUX = (f"C5 = {arr(tb.DOPRI5_C)}\nA5 = {arr(A5)}\nB5 = {arr(tb.DOPRI5_B5)}\nE5 = {arr(tb.DOPRI5_E)}\n"
            f"C8 = {arr(C8)}\nA8 = {arr(A8)}\nB8 = {arr(B8)}\nE8_5 = {arr(E5)}\nE8_3 = {arr(E3)}\n"
            f"NSTAGE = np.array([7, {tb.DOP853_N_STAGES}])\nNB = np.array([7, {tb.DOP853_N_STAGES}])\n"
            f"NE = np.array([7, {n8}])\nLAST = np.array([6, {tb.DOP853_N_STAGES}])\n"
            f"P5 = {arr(tb.DOPRI5_P)}\nAX = {arr(tb.DOP853_A_EXTRA)}\nCX = {arr(tb.DOP853_C_EXTRA)}\n"
            f"DX = {arr(tb.DOP853_D)}\nBISECT = {tb.DENSE_BISECTIONS}\n")
    return _TABLEAUX


def generate_kernel_source(system, d: int, k: int | None = None) -> str:
    """The numba source of ``_f``, ``jc``, ``run`` and ``rhs_batch`` for ``system`` at dimension d (k rows of Q, K).

    ``_f(y, out, params, W)`` is the right-hand side of the flat state y = (α, Ψ row-major):
    out = (Jα + c, JΨ) with J, c evaluated at Σ = ΨΨᵀ (docs/mathematics.md §3–4), fully unrolled.
    ``jc(alpha, Sigma, params, W, J, c)`` writes J and c at a given Σ (convergence test, RHS checks).
    """
    k = d if k is None else k
    if max(d, k) > UNROLL_MAX_D:
        return _generate_looped(system, d, k)
    # the state's right-hand side, Σ built from Ψ
    pf = _Printer(d, k, "psi")
    J = pf.mat(system.closure.J)
    c = pf.mat(system.closure.c)
    lines = list(pf.lines)
    for i in range(d):
        lines.append(f"    out[{i}] = " + _sum([_mul(J[i][j], f"y[{j}]") for j in range(d)] + [c[i][0]]))
    for i in range(d):
        for j in range(d):
            lines.append(f"    out[{d + i * d + j}] = " + _sum(_mul(J[i][m], f"y[{d + m * d + j}]") for m in range(d)))
    # J and c at a given Σ
    pj = _Printer(d, k, "array")
    J2 = pj.mat(system.closure.J)
    c2 = pj.mat(system.closure.c)
    lines2 = list(pj.lines)
    for i in range(d):
        for j in range(d):
            lines2.append(f"    J[{i}, {j}] = {J2[i][j]}")
        lines2.append(f"    c[{i}, 0] = {c2[i][0]}")
    params = sorted(pf.params | pj.params)
    pargs = ", ".join(f"p_{p}" for p in params)
    Pargs = ", ".join(f"P_{p}" for p in params)
    pviews = "\n".join(f"    p_{p} = P_{p}[0 if P_{p}.shape[0] == 1 else b]" for p in params)
    src = _head(system, d, k, params, max(pf.slots, pj.slots, 1))
    src += _HELPERS
    src += (f"\n\n@njit(cache=True, error_model='numpy')\ndef _f(y, out, {pargs}, W):\n"
            '    """out = (Jα + c, JΨ) at the flat state y = (α, Ψ), Σ = ΨΨᵀ."""\n' + "\n".join(lines) + "\n")
    src += (f"\n\n@njit(cache=True, error_model='numpy')\ndef jc(alpha, Sigma, {pargs}, W, J, c):\n"
            '    """J and c of Γ(x) = J x + c at (α, Σ), written into J, c."""\n' + "\n".join(lines2) + "\n")
    return src + _steppers(pargs, Pargs, pviews, params)


def _head(system, d, k, params, nw) -> str:
    return (f'"""Generated by symbolic_tf.numeric._kernels (version {KERNEL_VERSION}) — do not edit.\n\n'
            f"System: {system.variant}{' + drift' if system.drift else ''} at d = {d}, k = {k}\n"
            f"  d/dt alpha = {sp.sstr(system.mean_rhs)}\n  d/dt Sigma = {sp.sstr(system.cov_rhs)}\n"
            '"""\nimport numpy as np\nfrom numba import njit, prange\n\n'
            f"D = {d}\nK = {k}\nPARAMETERS = {params!r}\nNW = {nw}\nMW = {max(d, k)}\n") + _tableaux()


def _generate_looped(system, d: int, k: int) -> str:
    """As :func:`generate_kernel_source` with loop helpers instead of unrolled entries (large d)."""
    pr = _LoopPrinter(d, k)
    Jn = pr.mat(system.closure.J)
    cn = pr.mat(system.closure.c)
    params = sorted(pr.params)
    pargs = ", ".join(f"p_{p}" for p in params)
    Pargs = ", ".join(f"P_{p}" for p in params)
    pviews = "\n".join(f"    p_{p} = P_{p}[0 if P_{p}.shape[0] == 1 else b]" for p in params)
    base = pr.slots
    src = _head(system, d, k, params, base + 4) + _HELPERS
    src += (f"\n\n@njit(cache=True, error_model='numpy')\ndef jc(alpha, Sigma, {pargs}, W, J, c):\n"
            '    """J and c of Γ(x) = J x + c at (α, Σ), written into J, c."""\n' + "\n".join(pr.lines)
            + f"\n    _copy({Jn}, J)\n    _copy({cn}, c)\n")
    src += f"""

@njit(cache=True, error_model="numpy")
def _f(y, out, {pargs}, W):
    \"\"\"out = (Jα + c, JΨ) at the flat state y = (α, Ψ), Σ = ΨΨᵀ.\"\"\"
    a = W[{base}, :D, :1]
    S = W[{base + 1}, :D, :D]
    J = W[{base + 2}, :D, :D]
    c = W[{base + 3}, :D, :1]
    for i in range(D):
        a[i, 0] = y[i]
        for j in range(D):
            s = 0.0
            for m in range(D):
                s += y[D + i * D + m] * y[D + j * D + m]
            S[i, j] = s
    jc(a, S, {pargs}, W, J, c)
    for i in range(D):
        s = c[i, 0]
        for j in range(D):
            s += J[i, j] * y[j]
            v = 0.0
            for m in range(D):
                v += J[i, m] * y[D + m * D + j]
            out[D + i * D + j] = v
        out[i] = s
"""
    return src + _steppers(pargs, Pargs, pviews, params)


def _steppers(pargs: str, Pargs: str, pviews: str, params=()) -> str:
    """The member loops specialised per method (tableau and stage counts are compile-time constants,
    so LLVM unrolls the stage sums and drops zero coefficients), plus the shared helpers.
    ``run5``/``run_serial5``: Dormand–Prince 5(4); ``run8``/``run_serial8``: DOP853.

    ``run5t``/``run8t`` (and ``run_serial*t``) take every parameter as a polynomial in the local
    time, ``P_x`` of shape (B or 1, n_coef, rows, cols), and evaluate it at each stage's own time
    t + c_s·h before the right-hand side (depth schedules with polynomial-in-t entries,
    docs/schedules.md); numba compiles them only when they are first called."""
    out = _STEPPER + _PEVAL

    def tset(when: str, indent: str) -> str:
        return "".join(f"{indent}_peval(P_{p}, b, {when}, p_{p})\n" for p in params)

    stage = "                cs = 0.0\n                for q in range(s):\n                    cs += AA[s, q]\n"
    tviews = "\n".join(f"    p_{p} = np.empty((P_{p}.shape[2], P_{p}.shape[3]))" for p in params)
    for timed in (False, True):
        for m, tab, nst, nb, ne, last, is8 in (("5", "A5, B5, E5, E5, 5.0", 7, 7, 7, 6, "False"),
                                                ("8", "A8, B8, E8_5, E8_3, 8.0", 12, 12, 13, 12, "True")):
            txt = _MEMBER
            marks = (("{TS0}", tset("t", " " * 12)), ("{TSX}", tset("t + CX[j] * hh", " " * 24)), ("{TSS}", stage.replace(" " * 16, " " * 12) + tset("t + cs * hh", " " * 12)),
                     ("{TSN}", tset("t + hh", " " * 12)), ("{TSC}", tset("t", " " * 16))) if timed else \
                (("{TS0}", ""), ("{TSX}", ""), ("{TSS}", ""), ("{TSN}", ""), ("{TSC}", ""))
            for k, v in (("{M}", m + ("t" if timed else "")), ("{TAB}", tab), ("{NST}", str(nst)), ("{NB}", str(nb)),
                         ("{NE}", str(ne)), ("{LAST}", str(last)), ("{IS8}", is8), *marks,
                         ("{pviews}", tviews if timed else pviews)):
                txt = txt.replace(k, v)
            out += "\n\n" + txt
    return out.replace("{pnames}", pargs).replace("{Pargs}", Pargs).replace("{pviews}", pviews)


@dataclass
class Kernel:
    """A compiled kernel of one moment system at one (d, k)."""

    system: object
    d: int
    k: int
    source: str
    path: Path
    module: object
    parameters: tuple

    def pack(self, params: dict, B: int) -> list:
        """Parameters as contiguous (B or 1, rows, cols) float arrays in the kernel's order."""
        out = []
        for name in self.parameters:
            if name not in params:
                raise InvalidParameters(name, f"parameter {name} missing for the compiled {self.system.variant} system")
            v = np.asarray(params[name], dtype=float)
            if v.ndim == 0:
                v = v.reshape(1, 1, 1)
            elif v.ndim == 1:      # a batch of scalars
                v = v[:, None, None]
            elif v.ndim == 2:      # one matrix for the whole batch
                v = v[None]
            if v.ndim != 3 or v.shape[0] not in (1, B):
                raise InvalidParameters(name, f"expected one value or {B} (one per member), got shape {v.shape}")
            out.append(np.ascontiguousarray(v))
        return out

    def pack_poly(self, params: dict, poly: dict, B: int) -> list:
        """Parameters for the ``run*t`` loops: (B or 1, n_coef, rows, cols) coefficient arrays of
        polynomials in the local time (``poly[name]``: (n_coef, …) coefficients, lowest first;
        the other parameters are constant polynomials).
        """
        out = []
        for name, v in zip(self.parameters, self.pack(params, B)):
            if name in poly:
                c = np.asarray(poly[name], dtype=float)
                c = c.reshape((c.shape[0],) + v.shape[1:])[None]
            else:
                c = v[:, None]
            out.append(np.ascontiguousarray(c))
        return out

    def rhs(self, alpha, Sigma, params):
        """α̇ (B,d) and Σ̇ (B,d,d) evaluated by the compiled closure."""
        Sigma = np.ascontiguousarray(np.asarray(Sigma, dtype=float).reshape(-1, self.d, self.d))
        B = Sigma.shape[0]
        alpha = np.ascontiguousarray(np.broadcast_to(np.asarray(alpha, dtype=float).reshape(-1, self.d), (B, self.d)))
        out_a = np.empty((B, self.d))
        out_S = np.empty((B, self.d, self.d))
        self.module.rhs_batch(alpha, Sigma, *self.pack(params, B), out_a, out_S)
        return out_a, out_S


_KERNELS: dict = {}
_TABLEAUX: str | None = None
_BY_SYSTEM: dict = {}


def compile_cost() -> dict:
    """Seconds spent by this process generating/loading/compiling each kernel (first calls)."""
    return dict(_COST)


def kernel_for(system, d: int, k: int | None = None, cache: Path | None = None) -> Kernel:
    """Generate (or fetch from the on-disk cache) and import the numba kernel of ``system``.

    The numba machine code itself is compiled at the first call of :func:`Kernel.run` in a
    process and cached on disk (``cache=True``): a cold cache pays seconds once, a warm one
    loads in tens of milliseconds (``benchmarks/bench_integrate.py`` prints both).  The cache key
    is the SHA-256 of the generated source, so a change of the generated code never reuses a
    stale kernel.
    """
    from .codegen import cache_dir

    k = d if k is None else k
    if not 1 <= d <= MAX_COMPILED_D:
        raise InvalidParameters("d", f"the compiled kernels cover 1 ≤ d ≤ {MAX_COMPILED_D}, got {d}")
    fast = (id(system), d, k, str(cache))
    hit = _BY_SYSTEM.get(fast)
    if hit is not None and hit.system is system:  # printing the source again costs SymPy time
        return hit
    t0 = time.perf_counter()
    src = generate_kernel_source(system, d, k)
    key = hashlib.sha256(src.encode()).hexdigest()[:24]
    folder = Path(cache) if cache is not None else cache_dir()
    if (key, folder) in _KERNELS:
        _BY_SYSTEM[fast] = _KERNELS[(key, folder)]
        return _KERNELS[(key, folder)]
    path = folder / f"kernel_{key}.py"
    if not path.exists() or path.read_text(encoding="utf-8") != src:
        write_text_atomic(path, src)
    name = f"symtf_kernel_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's on-disk cache re-imports the defining module by name
    spec.loader.exec_module(module)
    kern = Kernel(system, d, k, src, path, module, tuple(module.PARAMETERS))
    _KERNELS[(key, folder)] = kern
    _BY_SYSTEM[fast] = kern
    _COST[(system.variant, system.drift, system.heads, d, k)] = {"load": time.perf_counter() - t0}
    return kern
