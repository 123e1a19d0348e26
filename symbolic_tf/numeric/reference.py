"""High-precision reference integration of Gaussian moment systems (≥ 30 correct digits).

Method: an adaptive **Taylor-series method** of high order (57 at the default 40 digits)
on the matrix ODE

    α̇ = mean_rhs(α, Σ),    Σ̇ = cov_rhs(α, Σ)

of a :class:`~symbolic_tf.symbolic.moments.MomentSystem`.  The SymPy matrix-expression
trees are walked **once** and compiled (:mod:`symbolic_tf.numeric._jet_compiler`) into a DAG of
"matrix jet" nodes (:mod:`symbolic_tf.numeric._jets`) (truncated Taylor
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
from ._jet_compiler import JetSystem
from ._jets import arb_matrix_of_sympy, arb_of_fraction, arb_zeros, log2_norm, mp_matrix_of_arb, prec_bits
from ..exact.sympy_bridge import mpf_fraction, sympy_fraction

__all__ = ["ReferenceSolution", "ReferenceIntegrationError", "reference_solve", "reference_solve_problem"]


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
        """(alpha, Sigma) at an output time equal to ``t`` (compared to 1e-(dps) relative).

        Parameters
        ----------
        t : exact time (Fraction, int, str, float by its binary value, or mpf)

        Returns
        -------
        (mpmath.matrix, mpmath.matrix)

        Raises
        ------
        KeyError
            When ``t`` is not an output time.
        """
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
    if isinstance(x, (sp.Float, mpmath.mpf)):
        return mpf_fraction(x)
    try:
        return sympy_fraction(x)
    except ValueError:
        raise TypeError(f"not an exact time: {x!r}") from None


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
    bits = prec_bits(wdps)
    t_start = _time.perf_counter()
    with working_precision(bits), mpmath.workdps(wdps):
        comp = JetSystem(system, env, d, k, wdps)
        N = order or _default_order(dps)
        alpha = arb_matrix_of_sympy(env[S.alpha], wdps) if S.alpha in env else arb_zeros(d, 1)
        Sigma = arb_matrix_of_sympy(env[S.Sigma], wdps)
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
            ln0 = max(log2_norm(alpha), log2_norm(Sigma))
            if ln0 == -math.inf:
                ln0 = 0.0
            hl = math.inf  # log2 h
            for j in (N - 2, N - 1, N):
                lj = max(log2_norm(ya[j]), log2_norm(ys[j]))
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
            harb = arb_of_fraction(h)
            # local truncation estimate (relative): the last two terms of the series at h
            lh = math.log2(float(h)) if h > 0 else -math.inf
            for j in (N - 1, N):
                lj = max(log2_norm(ya[j]), log2_norm(ys[j]))
                if lj > -math.inf:
                    trunc += 2.0 ** min(0.0, lj + j * lh - ln0)
            # dense output inside (t, t + h]
            t_new = t + h
            if want is not None:
                while wi < len(want) and want[wi] <= t_new:
                    th = arb_of_fraction(want[wi] - t)
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
            la, ls = log2_norm(alpha), log2_norm(Sigma)
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
            alpha=[mp_matrix_of_arb(a) for a in out_a],
            Sigma=[mp_matrix_of_arb(s) for s in out_s],
            dps=dps, method=f"taylor(order={N}, jets=flint.arb_mat@{wdps}dps)",
            error_estimate=err, blowup=blowup,
            t_end=mpmath.mpf(t.numerator) / t.denominator,
            alpha_end=mp_matrix_of_arb(alpha), Sigma_end=mp_matrix_of_arb(Sigma),
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
    """:func:`reference_solve` for a :class:`~symbolic_tf.spec.problem.Problem`.

    Parameters
    ----------
    problem : Problem
        Gaussian-closed, with an initial Gaussian.
    T : exact horizon, optional
        Defaults to ``problem.T``.
    **kw
        Passed to :func:`reference_solve` (``k`` defaults to the rows of Q, or d).

    Returns
    -------
    ReferenceSolution

    Raises
    ------
    ValueError
        Without a horizon.
    """
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
