"""Moment integration: the toolkit against the reference code as it runs and against SciPy.

Every contestant integrates the same problems (benchmarks/experiments.py) in the same run, and
every row prints its accuracy beside its time.

Contestants
-----------
* ``reference (as it runs)`` — the seed paper's method exactly as its scripts run it
  (benchmarks/reference_method.py): explicit Euler on Σ̇, eigenvalue clipping onto the PSD cone
  after each step, one Σ₀ at a time, with its own stopping rules — blow-up experiment: step 0.01,
  "diverged" at tr Σ > 10³, "converged" at ‖Σ̇‖ < 10⁻⁴, ≤ 10⁵ steps; convergence experiments:
  step 0.3 (softmax, ℓ2) / 0.5 (Sinkhorn), "converged" at ‖Σ̇‖ < 10⁻⁵.
* ``scipy DOP853 / RK45 vectorised`` — ``scipy.integrate.solve_ivp`` on the whole batch as one
  system (Σ of every member flattened; the generated batched numpy RHS), same rtol/atol as ours.
* ``scipy DOP853 / RK45 per member`` — ``solve_ivp`` in a loop, one Σ₀ at a time (timed on a
  subset, ``--scipy-members``, and scaled to the batch: the row says so); in the blow-up
  experiment with a terminal event at ‖Σ‖_F = blowup_norm·(1 + ‖Σ₀‖_F), our own stopping rule.
  A vectorised SciPy run cannot stop members one by one (a terminal event ends the whole
  system), so the blow-up experiment has no vectorised SciPy row.
* tolerances: blow-up experiment — the loosest of 10⁻⁹, 3·10⁻⁹, 10⁻⁸ at which our pair of that order
  meets T* ≤ 10⁻⁸ (5(4): 3·10⁻⁹; 8(5,3): 10⁻⁸), SciPy's pair of the same order at the same value;
  convergence experiments — rtol = 10⁻¹⁰, atol = 10⁻¹³ for everyone.
* ours: ``closed form`` (softmax with V = vI: Σ(t) and T* exactly, docs/mathematics.md §4, §6),
  ``compiled dopri5`` / ``compiled dop853`` (numba kernels, symbolic_tf.numeric._kernels) and
  ``numpy dopri5`` (the batched-BLAS path).

Accuracy
--------
* blow-up experiment: the stop time against the exact T* (max and median relative error);
* convergence experiments: Σ at the horizon against a DOP853 run at rtol = 10⁻¹³ (itself checked
  against the 40-digit Taylor reference, symbolic_tf.numeric.reference, on ``--mp-members``
  members); the reference method's Σ at its own stopping time against the same tight solution
  at that time (max relative Frobenius error).  Ours and SciPy integrate every member to the
  latest time at which the reference stopped (more work than the reference does).

Timings: the minimum of ``--repeats`` runs (default 3) for runs under 2 s, one run otherwise; the load
average is printed at start and end (the figures are only comparable within one run).

Compile cost: the numba kernels are compiled at the first call of a process and cached on disk.
The "cold"/"warm" lines time a fresh process running the compiled blow-up experiment with an
empty cache and again with that cache.  Whole-process lines time ``python -c`` scripts doing the
experiment with the toolkit and with the reference method (numpy import included).

Dense sampling (``--dense`` 400 sample times, the size of the castin2025 experiments' grids): the
blow-up experiment and the softmax convergence experiment run with ``t_eval`` = {0, T} and with
400 uniform times, each row printing the time, the accepted steps per member and the accuracy
(blow-up: T* and the samples before 0.99·T* against the closed form; convergence: the samples
against a DOP853 run at rtol = 10⁻¹³).  Since the samples come from the dense output of the
step covering them, the 400-sample rows take the same steps as the 2-sample rows; on a version
whose steps land on every sample the step counts grow with the grid (run the script's
``--dense-only`` section against such a checkout for the before/after figures).

Run:  python benchmarks/bench_integrate.py [--smoke] [--no-process] [--scipy-members 100] [--dense-only]
``--smoke`` runs everything at toy size (the ``bench_smoke`` pytest marker does).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from experiments import blowup_setup, disk_grid, zero_setup  # noqa: E402,F401
from reference_method import run_member  # noqa: E402

from symbolic_tf.numeric.codegen import compile_system  # noqa: E402
from symbolic_tf.numeric.integrate import BLOWUP, integrate  # noqa: E402
from symbolic_tf.numeric._kernels import PARALLEL_MIN_BATCH  # noqa: E402
from symbolic_tf.symbolic.moments import derive  # noqa: E402

BLOWUP_NORM = 1e9
# blow-up experiment tolerances: the loosest of 1e-9, 3e-9, 1e-8 at which our run of that order meets
# T* ≤ 1e-8 relative (measured: 5(4) pair 4.9e-9 at 3e-9; 8(5,3) pair 1.7e-9 at 1e-8); SciPy's pair of the
# same order runs at the same tolerance
BLOWUP_RTOL_54, BLOWUP_RTOL_853 = 3e-9, 1e-8


def baseline_member(S0, A, V, dt, T, tol=1e-8):
    """The reference method for softmax (kept for bench_certify.py): (Σ at stop, stop time, diverged)."""
    S, t, why = run_member("softmax", S0, {"A": A, "V": V, "tau": 1.0}, dt, T=T, tol=tol)
    return S, t, why == "diverged"


REPEATS = 3


def _timed(fn):
    """(seconds, result): the minimum over REPEATS runs for runs under 2 s (timer noise on a shared
    machine), one run otherwise."""
    best = np.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        out = fn()
        sec = time.perf_counter() - t0
        best = min(best, sec)
        if sec > 2.0:
            break
    return best, out


def _table(title, rows, base_names):
    """rows: (name, seconds, accuracy text, note). Ratios against each baseline row named in base_names."""
    print(f"\n{title}")
    secs = {r[0]: r[1] for r in rows}
    head = f"  {'contestant':<34}{'seconds':>10}" + "".join(f"{'× ' + b[:14]:>18}" for b in base_names)
    print(head + "   accuracy")
    for name, s, acc, note in rows:
        ratios = "".join(f"{secs[b] / s:>17.1f}x" if b in secs and s > 0 else f"{'—':>18}" for b in base_names)
        print(f"  {name:<34}{s:>10.4f}{ratios}   {acc}{('   (' + note + ')') if note else ''}")


def _scipy_blowup_member(rhs1, S0, T, rtol, atol, method):
    from scipy.integrate import solve_ivp

    d = S0.shape[0]
    bound = BLOWUP_NORM * (1 + np.linalg.norm(S0))

    def ev(t, y):
        return np.linalg.norm(y) - bound
    ev.terminal = True
    sol = solve_ivp(lambda t, y: rhs1(y.reshape(d, d)).ravel(), (0, T), S0.ravel(), method=method, rtol=rtol,
                    atol=atol, events=ev)
    return sol.t_events[0][0] if sol.t_events[0].size else np.inf


def blowup_experiment(a):
    S0, prm, Ts = blowup_setup(a.n_blowup)
    B, d = len(S0), 2
    T = 1.5 * Ts.max()
    comp = compile_system(derive("softmax", scale=None))
    atol = 1e-12
    rtol_of = {"dopri5": BLOWUP_RTOL_54, "dop853": BLOWUP_RTOL_853, "RK45": BLOWUP_RTOL_54, "DOP853": BLOWUP_RTOL_853}
    rows = []

    def acc(t_stop):
        e = np.abs(np.asarray(t_stop) - Ts[:len(t_stop)]) / Ts[:len(t_stop)]
        return f"T* rel. error max {e.max():.1e}, median {np.median(e):.1e}"

    # reference as it runs
    nref = min(a.reference_members or B, B)
    sec, out = _timed(lambda: [run_member("softmax", S, prm, 0.01, tol=1e-4) for S in S0[:nref]])
    assert all(o[2] == "diverged" for o in out)
    rows.append(("reference (as it runs)", sec * B / nref, acc([o[1] for o in out]),
                 f"all {B}" if nref == B else f"timed on {nref}, scaled"))
    # ours
    z = np.zeros((B, d))
    for name, extra in (("closed form", dict(closed_form=True)),
                        ("compiled dopri5", dict(backend="compiled")),
                        ("compiled dop853", dict(backend="compiled", method="dop853")),
                        ("numpy dopri5", dict(backend="numpy"))):
        rtol = rtol_of[extra.get("method", "dopri5")]
        kw = dict(rtol=rtol, atol=atol, blowup_norm=BLOWUP_NORM)
        w = min(B, PARALLEL_MIN_BATCH)  # first call on the runner the timed call uses: load/compile
        integrate(comp, z[:w], S0[:w], prm, T, **kw, **extra)
        sec, sol = _timed(lambda: integrate(comp, z, S0, prm, T, **kw, **extra))
        assert np.all(sol.status == BLOWUP)
        rows.append((name, sec, acc(sol.t_end), f"rtol {rtol:g}" if "closed" not in name else "exact formula"))
    # scipy per member
    V, A = prm["V"], prm["A"]

    def rhs1(S):
        return V @ S @ A @ S + S @ A.T @ S @ V.T
    ns = min(a.scipy_members, B)
    idx = np.linspace(0, B - 1, ns).astype(int)
    for method in ("DOP853", "RK45"):
        rtol = rtol_of[method]
        sec, ts = _timed(lambda: [_scipy_blowup_member(rhs1, S0[i], T, rtol, atol, method) for i in idx])
        e = np.abs(np.array(ts) - Ts[idx]) / Ts[idx]
        rows.append((f"scipy {method} per member", sec * B / ns,
                     f"T* rel. error max {e.max():.1e}, median {np.median(e):.1e}",
                     f"rtol {rtol:g}; timed on {ns}, scaled" if ns < B else f"rtol {rtol:g}"))
    _table(f"blow-up experiment: {B} Σ₀, softmax V = I, A + Aᵀ ≻ 0 (T* to ≤ 1e-8 wanted)", rows,
           ["reference (as it runs)", "scipy DOP853 per member"])
    return rows


def _tight(comp, S0, prm, T, t_eval=None):
    B, d = S0.shape[0], S0.shape[1]
    return integrate(comp, np.zeros((B, d)), S0, prm, T, t_eval=t_eval, rtol=1e-13, atol=1e-16, backend="compiled",
                     method="dop853", max_steps=10_000_000)


def _mp_check(system, S0, prm, T, S_tight, dps=40):
    """Relative difference between the tight float run and the 40-digit Taylor reference at T."""
    import mpmath
    import sympy as sp

    from symbolic_tf.numeric.reference import reference_solve
    from symbolic_tf.symbolic import symbols as S

    def M(x):
        return sp.ImmutableMatrix(np.atleast_2d(x).tolist()).applyfunc(sp.Rational)
    env = {S.Sigma: M(S0), S.alpha: sp.zeros(2, 1), S.tau: sp.Rational(float(prm.get("tau", 1.0)))}
    for name, v in prm.items():
        if name != "tau":
            env[S.param_symbol(name)] = M(v)
    res = reference_solve(system, env, 2, sp.Rational(float(T)), times=[sp.Rational(float(T))], dps=dps,
                          max_steps=200_000)
    ref = np.array(mpmath.matrix(res.Sigma[-1]).tolist(), dtype=float)
    return np.linalg.norm(S_tight - ref) / np.linalg.norm(ref)


def convergence_experiment(a, variant):
    from scipy.integrate import solve_ivp

    S0, prm, dt = zero_setup(variant, a.n_zero)
    B, d = len(S0), 2
    system = derive(variant, scale=None)
    comp = compile_system(system)
    rtol, atol = 1e-10, 1e-13
    rows = []
    # reference as it runs
    sec, out = _timed(lambda: [run_member(variant, S, prm, dt, tol=1e-5) for S in S0])
    t_ref = np.array([o[1] for o in out])
    why = [o[2] for o in out]
    Tc = float(t_ref.max())
    times = np.unique(t_ref)
    tight_ref = _tight(comp, S0, prm, Tc, t_eval=np.concatenate([[0.0], times]) if times[0] > 0 else times)
    pos = {t: j for j, t in enumerate(tight_ref.t_eval)}
    err_ref = [np.linalg.norm(o[0] - tight_ref.Sigma[b, pos[o[1]]]) / np.linalg.norm(tight_ref.Sigma[b, pos[o[1]]])
               for b, o in enumerate(out)]
    counts = {w: why.count(w) for w in set(why)}
    rows.append(("reference (as it runs)", sec, f"Σ(t_stop) rel. error max {max(err_ref):.1e}",
                 f"step {dt}, stops {counts}, t_stop ≤ {Tc:.0f}"))
    tight = _tight(comp, S0, prm, Tc)
    S_t = tight.Sigma_end

    def err(S):
        return np.max(np.linalg.norm(S - S_t, axis=(1, 2)) / np.linalg.norm(S_t, axis=(1, 2)))
    z = np.zeros((B, d))
    for name, extra in (("compiled dopri5", dict(backend="compiled")),
                        ("compiled dop853", dict(backend="compiled", method="dop853")),
                        ("numpy dopri5", dict(backend="numpy"))):
        w = min(B, PARALLEL_MIN_BATCH)
        integrate(comp, z[:w], S0[:w], prm, Tc, rtol=rtol, atol=atol, **extra)
        sec, sol = _timed(lambda: integrate(comp, z, S0, prm, Tc, rtol=rtol, atol=atol, **extra))
        rows.append((name, sec, f"Σ(T) rel. error max {err(sol.Sigma_end):.1e}", f"rtol {rtol:g}, T = {Tc:.0f}"))
    # scipy vectorised over the whole batch, and per member
    zero_a = np.zeros((B, d))

    def rhs_batch(t, y):
        return comp.rhs(zero_a, y.reshape(B, d, d), prm)[1].ravel()
    za1 = np.zeros((1, d))

    def rhs_one(t, y):
        return comp.rhs(za1, y.reshape(1, d, d), prm)[1].ravel()
    for method in ("DOP853", "RK45"):
        sec, sol = _timed(lambda: solve_ivp(rhs_batch, (0, Tc), S0.ravel(), method=method, rtol=rtol, atol=atol))
        rows.append((f"scipy {method} vectorised", sec, f"Σ(T) rel. error max {err(sol.y[:, -1].reshape(B, d, d)):.1e}",
                     f"{sol.nfev} RHS calls"))
        ns = min(a.scipy_members, B)
        idx = np.linspace(0, B - 1, ns).astype(int)
        sec, sols = _timed(lambda: [solve_ivp(rhs_one, (0, Tc), S0[i].ravel(), method=method, rtol=rtol, atol=atol)
                                    for i in idx])
        Sx = np.array([s.y[:, -1].reshape(d, d) for s in sols])
        e = np.max(np.linalg.norm(Sx - S_t[idx], axis=(1, 2)) / np.linalg.norm(S_t[idx], axis=(1, 2)))
        rows.append((f"scipy {method} per member", sec * B / ns, f"Σ(T) rel. error max {e:.1e}",
                     f"timed on {ns}, scaled" if ns < B else ""))
    title = (f"convergence experiment, {variant}: {B} Σ₀, K = −Q, V = GGᵀ, to T = {Tc:.0f} "
             f"(the latest reference stop)")
    if a.mp_members:
        checks = [_mp_check(system, S0[b], prm, Tc, S_t[b]) for b in range(min(a.mp_members, B))]
        title += f"; tight run vs 40-digit reference: {max(checks):.1e}"
    _table(title, rows, ["reference (as it runs)", "scipy DOP853 vectorised"])
    return rows


def dense_sampling(a):
    """The blow-up and softmax convergence experiments with 2 and with ``a.dense`` sample times."""
    from symbolic_tf.numeric.closed_form import closed_form

    kinds = (("compiled dopri5", dict(backend="compiled")),
             ("compiled dop853", dict(backend="compiled", method="dop853")),
             ("numpy dopri5", dict(backend="numpy")))
    # blow-up experiment: accuracy against the closed form
    S0, prm, Ts = blowup_setup(a.n_blowup)
    B, d = len(S0), 2
    T = 1.5 * Ts.max()
    comp = compile_system(derive("softmax", scale=None))
    z = np.zeros((B, d))
    rows = []
    for n_eval in (2, a.dense):
        ts = np.linspace(0.0, T, n_eval)
        exact = closed_form(comp.system, z, S0, prm, T, ts).Sigma
        for name, extra in kinds:
            rtol = BLOWUP_RTOL_853 if extra.get("method") == "dop853" else BLOWUP_RTOL_54
            kw = dict(t_eval=ts, rtol=rtol, atol=1e-12, blowup_norm=BLOWUP_NORM, **extra)
            w = min(B, PARALLEL_MIN_BATCH)
            integrate(comp, z[:w], S0[:w], prm, T, **kw)
            sec, sol = _timed(lambda: integrate(comp, z, S0, prm, T, **kw))
            eT = np.abs(sol.t_end - Ts) / Ts
            ok = ts[None, :] <= 0.99 * Ts[:, None]
            es = np.linalg.norm(sol.Sigma - exact, axis=(2, 3)) / np.linalg.norm(exact, axis=(2, 3))
            rows.append((f"{name}, {n_eval} samples", sec, f"T* rel. err. max {eT.max():.1e}; samples (t ≤ 0.99T*) "
                         f"max {es[ok].max():.1e}", f"steps/member {sol.n_steps.mean():.0f}, rejected "
                         f"{sol.n_rejected.mean():.1f}"))
    _table(f"dense sampling, blow-up experiment: {B} Σ₀, t_eval = 2 or {a.dense} uniform times on [0, 1.5·max T*]",
           rows, [rows[0][0]])
    # convergence experiment (softmax): accuracy against a tight run at the same times
    S0, prm, _ = zero_setup("softmax", a.n_zero)
    B = len(S0)
    z = np.zeros((B, d))
    Tc = 60.0 if not a.smoke else 5.0
    comp = compile_system(derive("softmax", scale=None))
    rows = []
    for n_eval in (2, a.dense):
        ts = np.linspace(0.0, Tc, n_eval)
        ref = _tight(comp, S0, prm, Tc, t_eval=ts).Sigma
        for name, extra in kinds:
            kw = dict(t_eval=ts, rtol=1e-10, atol=1e-13, **extra)
            w = min(B, PARALLEL_MIN_BATCH)
            integrate(comp, z[:w], S0[:w], prm, Tc, **kw)
            sec, sol = _timed(lambda: integrate(comp, z, S0, prm, Tc, **kw))
            es = np.linalg.norm(sol.Sigma - ref, axis=(2, 3)) / np.maximum(np.linalg.norm(ref, axis=(2, 3)), 1e-300)
            rows.append((f"{name}, {n_eval} samples", sec, f"samples rel. err. max {es.max():.1e}",
                         f"steps/member {sol.n_steps.mean():.0f}, rejected {sol.n_rejected.mean():.1f}"))
    _table(f"dense sampling, softmax convergence experiment: {B} Σ₀, t_eval = 2 or {a.dense} uniform times on "
           f"[0, {Tc:g}]", rows, [rows[0][0]])


_SCRIPT_OURS = """
import time, sys
t0 = time.perf_counter()
sys.path.insert(0, {bench!r}); sys.path.insert(0, {root!r})
import numpy as np
from experiments import blowup_setup
from symbolic_tf.numeric.codegen import compile_system
from symbolic_tf.numeric.integrate import integrate
from symbolic_tf.symbolic.moments import derive
S0, prm, Ts = blowup_setup({n})
comp = compile_system(derive("softmax", scale=None))
t1 = time.perf_counter()
sol = integrate(comp, np.zeros((len(S0), 2)), S0, prm, 1.5 * Ts.max(), rtol=1e-8, atol=1e-12, blowup_norm=1e9,
                backend="compiled", method="dop853")
t2 = time.perf_counter()
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""


def process_timings(a):
    """Whole-process timings (fresh interpreters): import cost, cold/warm numba cache, reference script."""
    root = str(HERE.parent)
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def wall(cmd, extra_env=None):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(env, **(extra_env or {})), check=True)
        return time.perf_counter() - t0, r.stdout.strip()
    print("\nwhole-process timings (fresh interpreter each)")
    bare, _ = wall([sys.executable, "-c", "pass"])
    imp = min(wall([sys.executable, "-c", "import symbolic_tf"])[0] for _ in range(3))
    print(f"  python -c pass {bare:.3f} s; python -c 'import symbolic_tf' {imp:.3f} s "
          f"(import cost {max(imp - bare, 0):.3f} s)")
    script = _SCRIPT_OURS.format(bench=str(HERE), root=root, n=a.n_blowup)
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold cache", "warm cache"):
            sec, out = wall([sys.executable, "-c", script], {"SYMTF_CACHE": cache})
            setup, run = out.split()[-2:]
            print(f"  toolkit, compiled blow-up experiment, {label}: {sec:.2f} s whole process "
                  f"(imports + setup {setup} s, first integrate call incl. numba load/compile {run} s)")
    sec, out = wall([sys.executable, str(HERE / "reference_method.py"), "blowup", "--n", str(a.n_blowup)])
    print(f"  reference method, blow-up experiment: {sec:.2f} s whole process ({out})")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-blowup", type=int, default=40, help="grid side of the blow-up experiment")
    ap.add_argument("--n-zero", type=int, default=10, help="grid side of the convergence experiments")
    ap.add_argument("--variants", default="softmax,l2,sinkhorn")
    ap.add_argument("--reference-members", type=int, default=0, help="0: time the reference on every member")
    ap.add_argument("--scipy-members", type=int, default=100)
    ap.add_argument("--mp-members", type=int, default=1)
    ap.add_argument("--no-process", action="store_true", help="skip the whole-process timings")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="toy size (CI)")
    ap.add_argument("--dense", type=int, default=400, help="sample times of the dense-sampling section")
    ap.add_argument("--dense-only", action="store_true", help="run only the dense-sampling section")
    a = ap.parse_args(argv)
    if a.smoke:
        a.n_blowup, a.n_zero, a.scipy_members, a.mp_members, a.dense = 6, 3, 3, 0, 20
    global REPEATS
    REPEATS = a.repeats
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; timings: minimum of "
          f"{REPEATS} runs for runs under 2 s, one run otherwise")
    dense_sampling(a)
    if a.dense_only:
        print(f"load average at end {os.getloadavg()[0]:.1f}")
        return
    blowup_experiment(a)
    for v in a.variants.split(","):
        convergence_experiment(a, v)
    if not a.no_process:
        process_timings(a)
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
