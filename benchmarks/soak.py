"""Soak runner for the soundness of ``classify`` (issue 14, "How it must be checked").

Draws N problems from a plain-random generator (numpy Generator; the same boundary-heavy
families as tests/soundness/strategies.py), classifies each, runs the independent oracle
(tests/soundness/oracle.py) on every PROVED verdict and on a sample of UNDECIDED ones (for
context), and prints a per-route table: PROVED, UNDECIDED, oracle-inconclusive, FALSE PROVED,
with total time and problems/s.  Every false PROVED is written to ``--out`` with the problem.

    python benchmarks/soak.py --n 100000 --workers 2 --out soak.json

The seed is fresh from the operating system unless ``--seed`` is given, and is printed.  A soak
is about soundness, not reach: each classification gets a small time budget (``--budget``,
default 1 s; ``classify(budget=…)``), and UNDECIDED is fine — the printed summary gives the
number decided and the rate.  The oracle runs compiled (``--oracle compiled``, a numba DOP853 of
the same equations and tolerances as the SciPy one, tests/soundness/_compiled_oracle.py) unless
``--oracle scipy``; a judgement past ``--oracle-timeout`` CPU seconds (3 s: a stiff Sinkhorn
flow) is inconclusive, counted and printed.  The package is imported once, in the parent, before the workers fork.  A
problem whose classification exceeds ``--timeout`` seconds (a backstop past the budget) is
counted as TIMEOUT (not dropped); the slowest problems are listed with their route.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

_TIMEOUT = 60.0
_MIX = "mixed"
_UNDECIDED_SAMPLE = 0.05
_BUDGET = 1.0
_ORACLE = "compiled"
_EVIDENCE = False
_ORACLE_TIMEOUT = 3.0


# the per-problem backstop counts CPU seconds (SIGVTALRM), so that classify's own budget keeps
# the wall-clock timer (ITIMER_REAL, its backstop for a search stuck in a long solver call)
_GUARD = signal.ITIMER_VIRTUAL


class _Timeout(BaseException):  # not Exception: classify catches those inside routes
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _init(timeout, undecided_sample, budget=None, oracle="compiled", evidence=False, oracle_timeout=3.0):
    global _TIMEOUT, _UNDECIDED_SAMPLE, _BUDGET, _ORACLE, _EVIDENCE, _ORACLE_TIMEOUT
    _TIMEOUT, _UNDECIDED_SAMPLE, _BUDGET, _ORACLE, _EVIDENCE = timeout, undecided_sample, budget, oracle, evidence
    _ORACLE_TIMEOUT = oracle_timeout
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGVTALRM, _alarm)
    from soundness.oracle import use_engine

    use_engine(oracle)


def _preload(oracle):
    """Import (and, for the compiled oracle, compile) everything a worker needs, once, in the
    parent: forked workers inherit it instead of paying it per worker (or per restart)."""
    from soundness import oracle as _o, strategies  # noqa: F401
    from symbolic_tf.certify.search.routes import prepare
    from symbolic_tf.regimes import _evidence, classify  # noqa: F401
    from symbolic_tf.spec import problem  # noqa: F401

    prepare()
    if oracle == "compiled":
        _o.use_engine("compiled")
        _o.warm_up()


def _one(args):
    """Classify problem ``i`` of stream ``seed``; return a small record."""
    i, seed = args
    import numpy as np

    from soundness.oracle import judge, simulate
    from soundness.strategies import random_document
    from symbolic_tf.certify.search.budget import BudgetSpent
    from symbolic_tf.regimes.classify import classify
    from symbolic_tf.spec.problem import parse_problem

    rng = np.random.default_rng([seed, i])
    if _MIX == "general-v":   # issue 15's fixed general-V set (benchmarks/undecided_rate.py)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from undecided_rate import general_v_document

        doc = general_v_document(rng, i)
    else:
        doc = random_document(rng)
    rec = {"i": i, "family": doc["variant"] + ("+drift" if "F" in doc else ""), "d": doc["d"]}
    problem = parse_problem(doc)
    t0 = time.perf_counter()
    c0 = time.process_time()
    signal.setitimer(_GUARD, _TIMEOUT)
    try:
        # the evidence of an UNDECIDED verdict is integrated after the verdict (it decides nothing):
        # off unless --evidence, it is the costliest part of an UNDECIDED classification
        d = classify(problem, budget=_BUDGET, evidence=_EVIDENCE).to_dict()
    except _Timeout:
        rec.update(status="TIMEOUT", route="?", t_classify=time.perf_counter() - t0, doc=doc)
        return rec
    except (Exception, BudgetSpent) as exc:  # noqa: BLE001 - a crash is a finding, recorded with the problem
        # (BudgetSpent escaping classify is one: a spent budget must end in UNDECIDED)
        signal.setitimer(_GUARD, 0)
        rec.update(status="CRASH", route="?", t_classify=time.perf_counter() - t0, doc=doc,
                   error=f"{type(exc).__name__}: {exc}")
        return rec
    finally:
        signal.setitimer(_GUARD, 0)
    rec["t_classify"] = time.perf_counter() - t0
    rec["status"] = d.get("status")
    rec["regime"] = d.get("regime")
    rec["route"] = d.get("route") or "?"
    if rec["status"] == "UNDECIDED":   # what the float integration saw (regimes.evidence), for the report
        ev = d.get("numerical_evidence") or {}
        rec["evidence"] = ev.get("summary")
        rec["reading"] = (ev.get("scale_free") or {}).get("reading") or ev.get("outcome")
    t1 = time.perf_counter()
    signal.setitimer(_GUARD, _ORACLE_TIMEOUT)
    try:
        if d.get("status") == "PROVED":
            j = judge(problem, d)
            rec["oracle"] = j.ok
            rec["oracle_detail"] = j.detail[:500]
            if j.ok is False:
                rec["doc"] = doc
                rec["classification"] = {k: v for k, v in d.items() if k not in ("certificate", "numerical_evidence")}
        elif rng.random() < _UNDECIDED_SAMPLE:
            r = simulate(problem, 50.0, rtol=1e-10, max_evals=100_000)
            rec["context"] = r.status
    except _Timeout:
        rec["oracle"] = None
        rec["oracle_detail"] = f"oracle timeout ({_ORACLE_TIMEOUT:g} CPU s)"
        rec["oracle_timeout"] = True
    except Exception as exc:  # noqa: BLE001
        rec["oracle"] = None
        rec["oracle_detail"] = f"oracle error {type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(_GUARD, 0)
    rec["t_oracle"] = time.perf_counter() - t1
    rec["cpu"] = time.process_time() - c0
    rec["oracle_regime"] = d.get("regime") if d.get("status") == "PROVED" else None
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=None, help="the random stream (default: fresh from the OS, printed)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=1.0,
                    help="classify(budget=…) per problem, seconds (0: no limit)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="per-problem backstop on classify and on the oracle (s; default 3·budget + 10, 60 without a budget)")
    ap.add_argument("--oracle", choices=("compiled", "scipy"), default="compiled",
                    help="the oracle's integrator: numba DOP853 (default) or SciPy's DOP853 (same tolerances)")
    ap.add_argument("--undecided-sample", type=float, default=0.05)
    ap.add_argument("--oracle-timeout", type=float, default=3.0,
                    help="CPU seconds for the oracle's judgement of one PROVED verdict; past it the judgement "
                         "is inconclusive (counted and printed), never a pass")
    ap.add_argument("--evidence", action="store_true",
                    help="integrate classify's numerical evidence for each UNDECIDED verdict (slower; its reading is listed)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop after this wall time and report the problems done so far")
    ap.add_argument("--out", default="soak.json")
    ap.add_argument("--mix", choices=("mixed", "general-v"), default="mixed",
                    help="the soundness suite's random mix, or issue 15's general-V set")
    args = ap.parse_args(argv)
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little") >> 1
    budget = args.budget if args.budget and args.budget > 0 else None
    if args.timeout is None:
        args.timeout = 3 * budget + 10 if budget else 60.0
    print(f"soak: seed {args.seed}, {args.n} problems, {args.workers} workers, classify budget "
          f"{budget if budget else 'none'} s, oracle {args.oracle}", flush=True)

    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - progress without tqdm
        tqdm = None
    import multiprocessing as mp

    t0 = time.perf_counter()
    rows = defaultdict(lambda: defaultdict(int))
    times = defaultdict(list)
    false_proved, crashes, slow, contexts = [], [], [], defaultdict(int)
    per_problem = []
    undecided = []
    tc = to = cpu = 0.0
    oracle_timeouts = 0
    done = 0
    global _MIX
    _MIX = args.mix
    ctx = mp.get_context("fork")
    _preload(args.oracle)
    t0 = time.perf_counter()  # the rate counts problems, not the one-off imports and compilation
    with ctx.Pool(args.workers, initializer=_init, initargs=(args.timeout, args.undecided_sample, budget, args.oracle,
                                                                  args.evidence, args.oracle_timeout),
                  maxtasksperchild=2000) as pool:
        it = pool.imap_unordered(_one, ((i, args.seed) for i in range(args.n)), chunksize=1)
        bar = tqdm(total=args.n, smoothing=0.05, mininterval=2.0) if tqdm else None
        while True:
            left = None if args.max_seconds is None else args.max_seconds - (time.perf_counter() - t0)
            try:
                if left is not None and left <= 0:
                    raise mp.TimeoutError
                rec = it.next(timeout=left)
            except StopIteration:
                break
            except mp.TimeoutError:
                pool.terminate()
                break
            if bar:
                bar.update(1)
            done += 1
            per_problem.append({k: rec.get(k) for k in ("i", "family", "d", "status", "route", "oracle_regime",
                                                         "oracle", "t_classify", "t_oracle", "cpu")})
            route = rec["route"]
            row = rows[route]
            st = rec["status"]
            row[st] += 1
            tc += rec["t_classify"]
            cpu += rec.get("cpu", 0.0)
            oracle_timeouts += bool(rec.get("oracle_timeout"))
            to += rec.get("t_oracle", 0.0)
            times[route].append(rec["t_classify"])
            slow.append((rec["t_classify"], rec["i"], route, rec["family"], rec["d"]))
            slow.sort(reverse=True)
            del slow[10:]
            if st == "PROVED":
                row[{True: "oracle_ok", None: "inconclusive", False: "FALSE"}[rec.get("oracle")]] += 1
                if rec.get("oracle") is False:
                    false_proved.append(rec)
                    msg = f"FALSE PROVED #{rec['i']} route {route}: {rec['oracle_detail'][:200]}"
                    (bar.write if bar else print)(msg)
            elif st == "CRASH":
                crashes.append(rec)
            if st in ("UNDECIDED", "TIMEOUT"):
                undecided.append({k: rec.get(k) for k in ("i", "family", "d", "status", "t_classify", "reading",
                                                          "evidence")})
            if "context" in rec:
                contexts[rec["context"]] += 1
            if bar and done % 50 == 0:
                bar.set_postfix(false=len(false_proved), crash=len(crashes))
        if bar:
            bar.close()
    wall = time.perf_counter() - t0

    hdr = f"{'route':<22}{'PROVED':>8}{'UNDEC':>8}{'ok':>8}{'inconc':>8}{'FALSE':>7}{'crash':>7}{'t/o':>6}{'mean s':>9}{'max s':>8}"
    lines = [hdr, "-" * len(hdr)]
    for route in sorted(rows, key=lambda r: -sum(rows[r].values())):
        r = rows[route]
        ts = times[route]
        lines.append(f"{route:<22}{r['PROVED']:>8}{r['UNDECIDED']:>8}{r['oracle_ok']:>8}{r['inconclusive']:>8}"
                     f"{r['FALSE']:>7}{r['CRASH']:>7}{r['TIMEOUT']:>6}{sum(ts) / len(ts):>9.3f}{max(ts):>8.2f}")
    lines.append("-" * len(hdr))
    lines.append(("(stopped by --max-seconds) " if done < args.n else "") + f"{done} problems in {wall:.1f} s wall ({done / wall:.2f} problems/s with {args.workers} workers); "
                 f"classify {tc / max(done, 1):.3f} s/problem (CPU, per worker), oracle {to / max(done, 1):.3f} s/problem")
    n_proved = sum(r["PROVED"] for r in rows.values())
    n_ok = sum(r["oracle_ok"] for r in rows.values())
    lines.append(f"seed {args.seed}: {done} problems, {done / wall:.2f} problems/s on {args.workers} workers; decided "
                 f"{n_proved}/{done} = {n_proved / max(done, 1):.1%} (classify budget "
                 f"{budget if budget else 'none'} s); oracle agreed on {n_ok}/{n_proved} PROVED, "
                 f"inconclusive on {n_proved - n_ok - len(false_proved)} ({oracle_timeouts} of them past the oracle's "
                 f"{args.oracle_timeout:g} CPU s)")
    lines.append(f"CPU {cpu / max(done, 1):.3f} s/problem in a worker: {args.workers} free cores would run "
                 f"{args.workers * done / max(cpu, 1e-9):.2f} problems/s (the wall rate above counts a shared machine's load)")
    lines.append(f"FALSE PROVED: {len(false_proved)}, crashes: {len(crashes)}; UNDECIDED sample, oracle saw: {dict(contexts)}")
    lines.append("undecided: " + ("; ".join(f"#{u['i']} {u['status']} ({u['reading'] or 'no evidence'})"
                                            for u in sorted(undecided, key=lambda u: u["i"])) or "none"))
    lines.append("slowest: " + "; ".join(f"#{i} {route} {fam} d={d} {t:.1f}s" for t, i, route, fam, d in slow))
    print("\n".join(lines))
    out = {"n": done, "seed": args.seed, "workers": args.workers, "wall_s": wall, "budget": budget,
           "oracle_engine": args.oracle, "decided": n_proved,
           "problems_per_s": done / wall, "cpu_s_per_problem": cpu / max(done, 1), "oracle_timeouts": oracle_timeouts, "classify_s_per_problem": tc / max(done, 1),
           "oracle_s_per_problem": to / max(done, 1),
           "routes": {k: dict(v) for k, v in rows.items()},
           "route_mean_s": {k: sum(v) / len(v) for k, v in times.items()},
           "slowest": [dict(t=t, i=i, route=r, family=f, d=d) for t, i, r, f, d in slow],
           "false_proved": false_proved, "crashes": crashes, "undecided_context": dict(contexts),
           "undecided": sorted(undecided, key=lambda u: u["i"]),
           "table": lines, "per_problem": sorted(per_problem, key=lambda r: r["i"])}
    from symbolic_tf.atomic import write_text_atomic

    write_text_atomic(args.out, json.dumps(out, indent=1, default=str, ensure_ascii=False))
    return 1 if false_proved or crashes else 0


if __name__ == "__main__":
    sys.exit(main())
