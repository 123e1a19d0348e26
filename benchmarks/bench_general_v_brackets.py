"""Certified blow-up brackets of issue 15's general-V set (d = 2) vs the float estimates of T*.

The problems: the d = 2 members of the fixed general-V set (``undecided_rate.general_v_document``,
seeds 0 and 1, 60 problems each: softmax with a general V, and the drift model) that blow up, i.e.
those whose ``classify`` verdict is BLOWUP PROVED with a bracket [T_lo, T_hi] (38 of them).

Contestants, all in this run, one problem at a time:

* ours: ``classify`` (route search + the independent checker), a certified bracket;
* the reference code's method as it runs (``reference_method.run_member``: explicit Euler, dt = 0.01,
  PSD clipping, "diverged" once tr Σ > 10³), with the drift term FΣ + ΣFᵀ added for the drift
  problems (the reference code has no drift); its T* estimate is the stop time;
* SciPy's DOP853 (rtol 10⁻¹⁰, atol 10⁻¹²) until ‖Σ‖_F = 10⁹(1 + ‖Σ₀‖_F), per problem (the members
  have different parameters and blow-up times, so there is no common batch to vectorise).

Accuracy: a float estimate's relative error against the certified bracket's midpoint (it is exact
to within the bracket's relative width, printed beside it).

Run:  python benchmarks/bench_general_v_brackets.py [--seeds 0,1] [--n N] [--json OUT]
(``--n``: only the first N d = 2 problems, for a toy-size run).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from reference_method import DIVERGE_TRACE, MAX_STEPS  # noqa: E402
from undecided_rate import general_v_document  # noqa: E402

from symbolic_tf.regimes.classify import classify  # noqa: E402
from symbolic_tf.spec.problem import parse_problem  # noqa: E402

BLOWUP_NORM = 1e9


def _matrices(doc):
    def m(rows):
        return np.array([[float(Fraction(x)) for x in r] for r in rows])

    F = m(doc["F"]) if "F" in doc else np.zeros((doc["d"], doc["d"]))
    return m(doc["V"]), m(doc["A"]), F, m(doc["initial"]["cov"])


def _rhs(V, A, F):
    def f(S):
        H = V @ S @ A @ S + F @ S
        return H + H.T
    return f


def reference_T(doc, dt=0.01):
    """The reference method as it runs (explicit Euler + PSD clipping, diverged at tr Σ > 10³):
    the stop time, or inf if it does not diverge within its step budget."""
    V, A, F, S = _matrices(doc)
    f = _rhs(V, A, F)
    t = 0.0
    for _ in range(MAX_STEPS):
        S = S + dt * f(S)
        w, U = np.linalg.eigh(0.5 * (S + S.T))
        S = (U * np.clip(w, 0, None)) @ U.T
        t += dt
        if not np.isfinite(S).all():
            return t
        if np.trace(S) > DIVERGE_TRACE:
            return t
    return np.inf


def scipy_T(doc, T=1e3):
    """SciPy DOP853 until ‖Σ‖_F reaches 10⁹(1 + ‖Σ₀‖_F): the event time (inf if none)."""
    from scipy.integrate import solve_ivp

    V, A, F, S0 = _matrices(doc)
    f = _rhs(V, A, F)
    d = S0.shape[0]
    bound = BLOWUP_NORM * (1 + np.linalg.norm(S0))

    def ev(_t, y):
        return np.linalg.norm(y) - bound
    ev.terminal = True
    with np.errstate(all="ignore"):
        sol = solve_ivp(lambda _t, y: f(y.reshape(d, d)).ravel(), (0, T), S0.ravel(), method="DOP853",
                        rtol=1e-10, atol=1e-12, events=ev)
    return sol.t_events[0][0] if sol.t_events[0].size else np.inf


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--n", type=int, default=None, help="only the first N d = 2 problems")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    docs = [(s, i, general_v_document(np.random.default_rng([s, i]), i))
            for s in (int(x) for x in a.seeds.split(",")) for i in range(60)]
    docs = [(s, i, doc) for s, i, doc in docs if doc["d"] == 2][:a.n]
    classify(parse_problem(docs[0][2]))     # imports and first-call set-up, not timed
    ours, rows = 0.0, []
    for s, i, doc in docs:
        t0 = time.perf_counter()
        c = classify(parse_problem(doc))
        sec = time.perf_counter() - t0
        if c.status == "PROVED" and c.regime.name == "BLOWUP" and c.T_hi is not None:
            lo, hi = Fraction(c.T_lo), Fraction(c.T_hi)
            rows.append({"seed": s, "i": i, "route": c.route, "seconds": sec, "T_lo": float(lo), "T_hi": float(hi),
                         "rel_width": float((hi - lo) / hi), "doc": doc})
            ours += sec
    if not rows:
        print(f"no certified blow-up among the {len(docs)} problems")
        return
    mids = np.array([(r["T_lo"] + r["T_hi"]) / 2 for r in rows])
    widths = np.array([r["rel_width"] for r in rows])
    out = {"problems": len(rows), "ours_seconds": ours,
           "ours_median_s": float(np.median([r["seconds"] for r in rows])),
           "ours_max_s": max(r["seconds"] for r in rows), "ours_max_rel_width": float(widths.max())}

    def err_text(ts):
        e = np.abs(np.asarray(ts) - mids) / mids
        return e, (f"T* rel. error median {np.median(e):.1e}, max {e.max():.1e}"
                   f"{f', {int(np.isinf(e).sum())} never blew up' if np.isinf(e).any() else ''}")

    table = [("ours: classify (certified)", ours,
              f"certified; bracket rel. width median {np.median(widths):.1e}, max {widths.max():.1e}",
              f"slowest {out['ours_max_s']:.2f} s, median {out['ours_median_s']:.2f} s")]
    for name, fn in (("reference (as it runs)", reference_T), ("scipy DOP853 per member", scipy_T)):
        t0 = time.perf_counter()
        ts = [fn(r["doc"]) for r in rows]
        sec = time.perf_counter() - t0
        e, text = err_text(ts)
        table.append((name, sec, text + " (not certified)", ""))
        out[name] = {"seconds": sec, "rel_error_median": float(np.median(e)), "rel_error_max": float(e.max())}
    print(f"\ngeneral-V blow-up brackets, d = 2: {len(rows)} problems of seeds {a.seeds}")
    print(f"  {'contestant':<30}{'seconds':>10}{'ours / it':>12}   accuracy")
    for name, sec, acc, note in table:
        print(f"  {name:<30}{sec:>10.4f}{ours / sec:>11.3g}x   {acc}{f'   ({note})' if note else ''}")
    if a.json:
        for r in rows:
            r.pop("doc")
        Path(a.json).write_text(json.dumps(dict(out, rows=rows), indent=1))


if __name__ == "__main__":
    main()
