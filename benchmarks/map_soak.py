"""Soundness soak of certified regime maps (issue 49, Tests: "a soundness soak … 0 disagreements").

Draws random small maps of the issue's four kinds, runs each one's whole-cell search cell by cell (the search
``regime-map`` takes for the slice, the first of the route order, with the same refinement of undecided cells;
the point verdicts a map adds at undecided cells are left out: they certify no cell), and at random interior points of every certified cell integrates the covariance flow in float
with the independent oracle (tests/soundness/oracle.py: the right-hand sides written out again by hand, SciPy's
DOP853 or its numba twin; nothing of the package's integrators) and compares the result with the cell's claim:

- BLOWUP: the float solution blows up inside the cell's bracket [T_lo, T_hi] (or, without a finite bracket,
  blows up at all); for V = vI the closed form T* is compared as well;
- CLUSTERING of rank r: the solution is global and r eigenvalues of Σ persist while d − r decay (integrated in
  factor form Σ = XXᵀ, :func:`judge_clustering_factor`: as Σ itself the decaying eigenvalues exhaust the
  oracle's budget, and every clustering judgement was inconclusive);
- BOUNDED: log‖Σ‖ does not grow over a long horizon; GLOBAL_EXISTENCE: no blow-up on [0, 50];
- EQUILIBRIUM: Σ(t) converges.

The oracle answers *agree*, *disagree* (a clear contradiction: a false certificate) or *inconclusive*
(integrator failure, a trend it cannot call, e.g. a bracket end at the edge of what the float integrator can
separate).  A ``cell-lmi`` cell (a trace functional of a parameter slice) proves its regime for every Σ₀ ⪰ 0
(its checker verifies the inequalities uniformly in Σ₀), so it is judged at the map's Σ₀ and at a random
positive definite Σ₀ as well (a blow-up bracket is the map's Σ₀'s: from a random Σ₀ the flow must blow up).

The four kinds (each map: its coefficients drawn from small rationals, a random sub-box of the coordinates):

``general-V``   a general V over a parameter slice: V = [[1, x], [v₂₁, v₂₂]], A = [[y, a₁₂], [a₂₁, a₂₂]];
``cov``         a Σ₀ slice that is not trace-constant, Σ₀ = [[x, c], [c, y]], with a non-symmetric V, no drift;
``rotation``    a rotation–scaling V = [[1, −x], [x, 1]] against A = [[y, a₁₂], [a₂₁, y + δ]];
``drift``       the drift model with a general V over parameters of F and A: F = [[x, f₁₂], [f₂₁, x]],
                A = [[y, a₁₂], [a₂₁, a₂₂]].

They are random neighbours of the issue's own maps (issue 49's first map, its Σ₀ slice, the rotation–scaling
and drift maps of the cell-lmi tests), so that a good part of each is certified and the soak has cells to judge.

    .venv/bin/python benchmarks/map_soak.py --n 2 --resolution 4 --depth 1 --points 2 --workers 2 --out soak.json

The seed is fresh from the operating system unless ``--seed`` is given, and is printed; the same seed draws
the same maps and points.  Prints per kind: maps, cells, the certified fraction of the area, the map time,
judged points, agreements, inconclusive and disagreements (0/N is the target); every disagreement (and the
first 200 inconclusive judgements) is written to ``--out`` (JSON: the spec, the cell, the point, the oracle's
words).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402

KINDS = ("general-V", "cov", "rotation", "drift")


# ------------------------------------------------------------------------------------------- random maps
def _q(rng, lo: float, hi: float, den: int = 4) -> Fraction:
    """A random rational k/den in [lo, hi]."""
    return Fraction(int(rng.integers(int(np.ceil(lo * den)), int(np.floor(hi * den)) + 1)), den)


def _s(q) -> str:
    return str(Fraction(q))


def _range(rng, lo: float, hi: float, min_width: float) -> list:
    """A random sub-interval [a, b] of [lo, hi], of width at least min_width, with quarter-integer ends."""
    while True:
        a, b = sorted((_q(rng, lo, hi), _q(rng, lo, hi)))
        if b - a >= min_width:
            return [_s(a), _s(b)]


def _pd2(rng) -> list:
    """A random positive definite 2 × 2 Σ₀ with small rational entries."""
    while True:
        a, b, c = _q(rng, 1 / 4, 2), _q(rng, 1 / 4, 2), _q(rng, -1, 1)
        if a * b - c * c > Fraction(1, 16):
            return [[_s(a), _s(c)], [_s(c), _s(b)]]


def _problem(A, V, cov, F=None) -> dict:
    doc = {"variant": "softmax", "d": 2, "A": A, "V": V, "initial": {"mean": [0, 0], "cov": cov}}
    if F is not None:
        doc["F"], doc["b"] = F, [0, 0]
    return doc


def random_map(kind: str, rng, resolution: int, depth: int) -> dict:
    """A random map spec document of one of the four kinds (see the module docstring).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    rng : numpy.random.Generator
        The random stream.
    resolution : int
        n of the n × n level-0 grid.
    depth : int
        The map's max_depth.

    Returns
    -------
    dict
        The spec document (parse with ``parse_map_spec``).
    """
    q = lambda lo=-1, hi=1: _s(_q(rng, lo, hi))  # noqa: E731
    if kind == "general-V":
        a12 = _q(rng, 1 / 2, 1)
        A = [["y", _s(a12)], [_s(-a12 + _q(rng, -1 / 4, 1 / 4)), q(-3 / 2, -1 / 2)]]
        V = [[1, "x"], [q(-1 / 4, 1 / 4), q(3 / 4, 5 / 4)]]
        doc = {"family": "parameter", "x": {"range": _range(rng, -2, 2, 1)}, "y": {"range": _range(rng, -1, 1, 1)},
               "problem": _problem(A, V, _pd2(rng))}
    elif kind == "cov":
        c = _q(rng, -1 / 4, 1 / 4)
        lo = abs(c) + Fraction(1, 8)
        v12, v21 = _q(rng, 1 / 2, 1), _q(rng, -1, -1 / 2)   # V₁₂ ≠ V₂₁: not symmetric (the V = [[1, 1], [−1, 1]])
        A = [[q(1 / 2, 1), q(1 / 4, 3 / 4)], [q(-1 / 2, 0), q(0, 1 / 2)]]
        V = [[1, _s(v12)], [_s(v21), q(3 / 4, 5 / 4)]]
        doc = {"family": "cov", "x": {"range": [_s(lo), _s(lo + 2)]}, "y": {"range": [_s(lo), _s(lo + 2)]},
               "problem": _problem(A, V, [["x", _s(c)], [_s(c), "y"]])}
    elif kind == "rotation":
        delta = _q(rng, -1 / 2, 1 / 2)
        A = [["y", q(1 / 2, 1)], [q(-1 / 4, 1 / 4), "y" if delta == 0 else f"y + {_s(delta)}"]]
        doc = {"family": "parameter", "x": {"range": _range(rng, -2, 2, 1)}, "y": {"range": _range(rng, -1, 1, 1)},
               "problem": _problem(A, [[1, "-x"], ["x", 1]], _pd2(rng))}
    elif kind == "drift":
        A = [["y", q(1 / 2, 1)], [q(-3 / 4, -1 / 4), q(-5 / 4, -3 / 4)]]
        V = [[1, q(1 / 4, 3 / 4)], [q(-1 / 2, 0), q(3 / 4, 5 / 4)]]
        F = [["x", q(0, 3 / 4)], [q(-1 / 4, 1 / 4), "x"]]
        doc = {"family": "parameter", "x": {"range": _range(rng, -1, 1, 1)}, "y": {"range": _range(rng, -2, 1, 1)},
               "problem": _problem(A, V, _pd2(rng), F)}
    else:
        raise ValueError(f"unknown map kind {kind!r}")
    return {**doc, "name": f"soak {kind}", "resolution": [resolution, resolution], "max_depth": depth}


# ------------------------------------------------------------------------------------------- judging
def _interior_points(box, rng, n: int) -> list:
    """n random rational points of the open box, away from its edges (2 % of each side)."""
    x0, x1, y0, y1 = (Fraction(b) for b in box)
    out = []
    for u, v in rng.uniform(0.02, 0.98, size=(n, 2)):
        out.append(((x0 + (x1 - x0) * Fraction(u).limit_denominator(10 ** 6)),
                    (y0 + (y1 - y0) * Fraction(v).limit_denominator(10 ** 6))))
    return out


def _random_pd(rng, d: int = 2) -> np.ndarray:
    G = rng.normal(size=(d, d))
    return G @ G.T + 0.1 * np.eye(d)


H1, H2 = 5.0e2, 5.0e3     # the clustering judgement's horizons (the oracle's)


def judge_clustering_factor(problem, rank: int, Sigma0=None):
    """The oracle's clustering judgement on the factor form of the flow (Σ = XXᵀ, Ẋ = J(XXᵀ)X with X₀ = Σ₀^½).

    A clustering flow drives d − r eigenvalues of Σ to 0 (in the cov slices of the soak, to ~1e-17 by t = 50);
    integrated as Σ itself, DOP853 at rtol 1e-10 then spends its 60 000 right-hand sides near the singular
    stratum (measured: 11 s and the budget for one point of examples/cov_slice_reference.toml) and the oracle
    says "integration budget", inconclusive — every clustering cell of a Σ₀ slice was.  The factor keeps
    Σ ⪰ 0 exactly and integrates the same flow in 1–2 s.  The verdict is the oracle's rule: between t = H₁
    and H₂, r eigenvalues persist (≥ 0.9×) and d − r decay (≤ 0.2× or ≤ 1e-9·scale); a blow-up or an
    unbounded growth is a disagreement.

    Parameters
    ----------
    problem : Problem
        The problem at the point.
    rank : int
        The claimed rank of the limit.
    Sigma0 : numpy.ndarray, optional
        Σ₀ (default the problem's).

    Returns
    -------
    Judgement
        ok True / False / None and the words.
    """
    import math

    from soundness.oracle import Judgement, factor_simulate, frac_matrix

    r = factor_simulate(problem, H2, times=(H1 / 100, H1 / 10, H1, H2 / 2), Sigma0=Sigma0, max_evals=400_000)
    if r.status == "blowup":
        return Judgement(False, f"factor form: blows up at T̂ ≈ {r.t!r} (claimed global, clustering): {r.message}")
    if r.status != "reached":
        return Judgement(None, f"factor form: integration {r.status} at t = {r.t!r}: {r.message}")
    S0 = frac_matrix(problem.cov) if Sigma0 is None else np.asarray(Sigma0, float)
    scale = max(1.0, float(np.max(np.abs(np.linalg.eigvalsh(S0)))))

    def spectrum(U, s):
        return np.sort(np.linalg.eigvalsh((U + U.T) / 2))[::-1] * (math.exp(s) if s > -700 else 0.0)

    e1 = next((spectrum(U, s) for t, s, U in r.samples if t == H1), None)
    if e1 is None:
        return Judgement(None, "factor form: missing sample")
    e2 = spectrum(r.U, r.s)
    desc = f"factor form: eigenvalues at t={H1:g}: {np.array2string(e1, precision=3)}, t={H2:g}: {np.array2string(e2, precision=3)}"
    if e2[0] > 1e3 * max(scale, e1[0]) and e2[0] > 10 * e1[0]:
        return Judgement(False, f"unbounded; {desc}")
    zero = 1e-9 * scale
    persist = sum(1 for a, b in zip(e1, e2) if not (b <= zero or b <= 0.2 * a) and b >= 0.9 * a and b > 1e-6 * scale)
    decay = sum(1 for a, b in zip(e1, e2) if b <= zero or b <= 0.2 * a)
    d = problem.d
    if persist > rank or decay > d - rank:
        return Judgement(False, f"claimed limit rank {rank}; {persist} persistent, {decay} decaying; {desc}")
    if persist == rank and decay == d - rank:
        return Judgement(True, desc)
    return Judgement(None, f"ambiguous trend; {desc}")


def judge_cell(spec, cell: dict, rng, points: int) -> list:
    """Judge one PROVED cell at random interior points with the independent oracle.

    Parameters
    ----------
    spec : MapSpec
        The map's spec.
    cell : dict
        The certified cell: box, regime, rank, T_lo, T_hi, claim and the certificate's ``kind``.
    rng : numpy.random.Generator
        The random stream of the points (and of the random Σ₀).
    points : int
        How many interior points.

    Returns
    -------
    list of dict
        One record per judgement: the point, the Σ₀ used ("map" or a random matrix), ``ok`` (True, False or
        None) and the oracle's words.
    """
    from soundness.oracle import judge

    claim = {"status": "PROVED", "regime": cell["regime"], "rank": cell.get("rank"),
             "T_lo": cell.get("T_lo"), "T_hi": cell.get("T_hi")}
    every = cell.get("kind") == "cell-lmi"   # its trace functional proves the regime for every Σ₀ ⪰ 0
    out = []
    for x, y in _interior_points(cell["box"], rng, points):
        problem = spec.problem_at(x, y)
        sigmas = [None] + ([_random_pd(rng, problem.d)] if every else [])
        for S0 in sigmas:
            try:
                if cell["regime"] == "CLUSTERING" and cell.get("rank") is not None:
                    j = judge_clustering_factor(problem, int(cell["rank"]), S0)
                else:
                    j = judge(problem, claim, Sigma0=S0)
                ok, why = j.ok, j.detail
            except Exception as exc:  # noqa: BLE001 - an oracle crash is inconclusive, never a pass
                ok, why = None, f"oracle error {type(exc).__name__}: {exc}"
            out.append({"point": [str(x), str(y)], "Sigma0": "map" if S0 is None else S0.tolist(),
                        "ok": ok, "why": why})
    return out


_SEARCH: dict = {}


def _search_of(doc: dict):
    """(spec, the whole-cell search of the slice or None, its kind or the reason there is none), cached per
    process for the last spec."""
    from symbolic_tf.certify.search.cell_searches import cell_route
    from symbolic_tf.spec.mapspec import parse_map_spec

    key = repr(doc)
    if key not in _SEARCH:
        _SEARCH.clear()
        spec = parse_map_spec(doc)
        search, why = cell_route(spec)
        _SEARCH[key] = (spec, None, why) if search is None else (spec, search.cells(spec), search.kind)
    return _SEARCH[key]


def _quarters(box):
    x0, x1, y0, y1 = box
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    return [(x0, xm, y0, ym), (x0, xm, ym, y1), (xm, x1, y0, ym), (xm, x1, ym, y1)]


def subtree_task(doc: dict, box: tuple, levels: int, seed: int, points: int) -> dict:
    """Certify one level-0 cell and, where it stays UNDECIDED (and the search does not call it ``final``), its
    quarters down to ``levels`` more levels — the map's own cell search, without the point verdicts a map adds
    at undecided cells — and judge every certified leaf with :func:`judge_cell`.

    Parameters
    ----------
    doc : dict
        The map spec document.
    box : tuple of Fraction
        (x₀, x₁, y₀, y₁) of the level-0 cell.
    levels : int
        How many times an undecided cell may be split.
    seed : int
        The seed of this cell's points.
    points : int
        Random interior points per certified cell.

    Returns
    -------
    dict
        ``area`` (the certified area, exact), ``cells`` (leaf count), ``kind`` (the search's kind or the reason
        there is none) and ``judged``: (cell record, judgements) per certified leaf.
    """
    warnings.simplefilter("ignore")
    spec, search, kind = _search_of(doc)
    rng = np.random.default_rng(seed)
    out = {"area": Fraction(0), "cells": 0, "kind": kind, "judged": []}
    todo = [(box, 0)]
    while todo:
        b, lv = todo.pop()
        r = {"status": "UNDECIDED"} if search is None else search.certify(b)
        if r["status"] == "UNDECIDED" and lv < levels and not r.get("final") and search is not None:
            todo += [(q, lv + 1) for q in _quarters(b)]
            continue
        out["cells"] += 1
        if r["status"] != "PROVED":
            continue
        out["area"] += (b[1] - b[0]) * (b[3] - b[2])
        cell = {"box": [str(v) for v in b], "regime": r.get("regime"), "rank": r.get("rank"),
                "T_lo": r.get("T_lo"), "T_hi": r.get("T_hi"), "claim": r.get("claim", ""),
                "kind": r.get("kind", kind)}
        out["judged"].append((cell, judge_cell(spec, cell, rng, points)))
    return out


# ------------------------------------------------------------------------------------------- the soak
def soak(kinds, n: int, seed: int, resolution: int, depth: int, points: int, workers: int, log=print) -> dict:
    """Run the soak: ``n`` random maps of each kind, every certified cell judged at ``points`` points.

    Parameters
    ----------
    kinds : sequence of str
        Map kinds among :data:`KINDS`.
    n : int
        Maps per kind.
    seed : int
        The seed of the whole soak (maps, points, random Σ₀).
    resolution, depth : int
        The maps' level-0 grid (n × n) and max_depth.
    points : int
        Random interior points per certified cell.
    workers : int
        Processes (1: serial); the level-0 cells of a map are the tasks.
    log : callable
        Where progress lines go.

    Returns
    -------
    dict
        ``rows`` (per kind: maps, cells, certified area fraction, seconds, judged, agree, inconclusive,
        disagree, the routes taken), ``disagreements`` (records with the spec, cell, point and the oracle's
        words) and ``inconclusive`` (the first 200 inconclusive judgements, the same records).
    """
    from concurrent.futures import ProcessPoolExecutor

    rng = np.random.default_rng(seed)
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    rows, bad, unsure = {}, [], []
    try:
        for kind in kinds:
            row = rows[kind] = {"maps": 0, "cells": 0, "certified": 0.0, "seconds": 0.0,
                                "judged": 0, "agree": 0, "inconclusive": 0, "disagree": 0, "routes": {}}
            for k in range(n):
                doc = random_map(kind, rng, resolution, depth)
                (X0, X1), (Y0, Y1) = ([Fraction(v) for v in doc[a]["range"]] for a in ("x", "y"))
                boxes = [(X0 + (X1 - X0) * Fraction(i, resolution), X0 + (X1 - X0) * Fraction(i + 1, resolution),
                          Y0 + (Y1 - Y0) * Fraction(j, resolution), Y0 + (Y1 - Y0) * Fraction(j + 1, resolution))
                         for i in range(resolution) for j in range(resolution)]
                args = [(doc, b, depth, int(rng.integers(2 ** 63)), points) for b in boxes]
                t0 = time.perf_counter()
                results = list(pool.map(subtree_task, *zip(*args)) if pool is not None else
                               (subtree_task(*a) for a in args))
                dt = time.perf_counter() - t0
                frac = float(sum(r["area"] for r in results) / ((X1 - X0) * (Y1 - Y0)))
                route = results[0]["kind"] if results and " " not in results[0]["kind"] else "none"
                row["maps"] += 1
                row["cells"] += sum(r["cells"] for r in results)
                row["certified"] += frac
                row["seconds"] += dt
                row["routes"][route] = row["routes"].get(route, 0) + 1
                n_bad = n_cert = 0
                for r in results:
                    for cell, judgements in r["judged"]:
                        n_cert += 1
                        for jd in judgements:
                            row["judged"] += 1
                            row[{True: "agree", False: "disagree", None: "inconclusive"}[jd["ok"]]] += 1
                            if jd["ok"] is False:
                                n_bad += 1
                                bad.append({"kind": kind, "seed": seed, "map": k, "spec": doc, "cell": cell, **jd})
                            elif jd["ok"] is None and len(unsure) < 200:
                                unsure.append({"kind": kind, "map": k, "spec": doc, "cell": cell, **jd})
                log(f"  {kind} map {k}: route {route}, {sum(r['cells'] for r in results)} cells, {frac:.1%} "
                    f"certified, {n_cert} certified cells judged in {dt:.1f} s, {n_bad} disagreement(s)")
    finally:
        if pool is not None:
            pool.shutdown()
    return {"rows": rows, "disagreements": bad, "inconclusive": unsure}


def main(argv=None) -> int:
    """The command line (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when no certified cell disagrees with the oracle, 1 otherwise.
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2, help="random maps per kind (default 2)")
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated subset of {', '.join(KINDS)}")
    ap.add_argument("--seed", type=int, default=None, help="repeat a soak (default: fresh from the OS)")
    ap.add_argument("--resolution", type=int, default=4, help="n × n level-0 cells (default 4)")
    ap.add_argument("--depth", type=int, default=1, help="max_depth of the maps (default 1)")
    ap.add_argument("--points", type=int, default=2, help="random interior points per certified cell (default 2)")
    ap.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--oracle", choices=("scipy", "compiled"), default="scipy",
                    help="the oracle's integrator (default scipy; compiled = the numba DOP853 twin)")
    ap.add_argument("--out", default="map_soak.json", help="where the disagreements are written (JSON)")
    a = ap.parse_args(argv)
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or a.n < 1 or a.resolution < 1 or a.depth < 0 or a.points < 1 or a.workers < 1:
        ap.error(f"bad arguments (unknown kinds: {unknown})" if unknown else "n, resolution, points, workers ≥ 1; depth ≥ 0")
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(8), "little") >> 1
    print(f"map soak: seed {seed}  ({a.n} map(s) per kind, {a.resolution}×{a.resolution} cells, depth {a.depth}, "
          f"{a.points} point(s) per certified cell, {a.workers} worker(s), oracle {a.oracle})", flush=True)
    warnings.simplefilter("ignore")
    from soundness.oracle import use_engine, warm_up

    use_engine(a.oracle)
    if a.oracle == "compiled":
        warm_up()
    t0 = time.perf_counter()
    res = soak(kinds, a.n, seed, a.resolution, a.depth, a.points, a.workers,
               log=lambda s: print(s, flush=True))
    print(f"\n{'kind':<10} {'maps':>4} {'cells':>6} {'certified':>9} {'seconds':>7} {'judged':>6} "
          f"{'agree':>6} {'inconcl.':>8} {'disagree':>9}  routes")
    total_bad = total = 0
    for kind, r in res["rows"].items():
        total_bad += r["disagree"]
        total += r["judged"]
        routes = ", ".join(f"{k} ×{v}" for k, v in r["routes"].items())
        print(f"{kind:<10} {r['maps']:>4} {r['cells']:>6} {r['certified'] / max(r['maps'], 1):>9.1%} "
              f"{r['seconds']:>7.1f} {r['judged']:>6} {r['agree']:>6} {r['inconclusive']:>8} "
              f"{str(r['disagree']) + '/' + str(r['judged']):>9}  {routes}")
    print(f"\n{total_bad}/{total} disagreements; {time.perf_counter() - t0:.1f} s in all; seed {seed}")
    from symbolic_tf.atomic import write_json_atomic

    write_json_atomic(a.out, {"seed": seed, "argv": sys.argv[1:] if argv is None else list(argv),
                              "disagreements": res["disagreements"], "inconclusive": res["inconclusive"]})
    print(f"wrote {a.out}")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
