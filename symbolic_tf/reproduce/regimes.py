"""Certified regime maps of the seed papers' settings (``symtf reproduce regimes``).

(a) softmax, V = I, A = [[x, 1/2], [−1/4, y]], fixed Σ₀: the certified blow-up/clustering
    boundary against the theory λ_max(A + Aᵀ) = 0 (docs/mathematics.md §4; for Σ₀ ≻ 0 blow-up ⟺
    λ_max(Σ₀^½(A+Aᵀ)Σ₀^½) > 0 ⟺ λ_max(A + Aᵀ) > 0 by Sylvester's inertia);
(b) the drift model with V = I, F = fI, B = βI (docs/mathematics.md §6) over (β, f): stable equilibrium
    (β < 0 < f), collapse (β < 0, f < 0, or below the threshold 2β·λ_max(Σ₀) + 2f < 0),
    blow-up (above it), with T* over the blow-up region;
(c) the reference "converges or blows up depending on Σ₀" experiment (Castin et al.,
    experiment 6: its fixed A, V with V not a multiple of I) as a Σ₀-disk map (Σ₀ of trace one, no
    drift): cells whose directions lie in a certified basin of the projective disk are certified
    whole (kind ``cell-basin``, :mod:`symbolic_tf.certify.search.cell_basin`: the clustering basin of the
    attracting isotropic point; kind ``cell-grid``, :mod:`symbolic_tf.certify.search._cell_grid`: the
    blow-up crescent, through a growth region around the saddle's unstable manifold that feeds the
    blow-up ray); the rest keep the point classifier's verdicts at their centres,
    shown next to the numerical evidence of the batched integrator (labelled as such, never as
    certified);
(d) the same A and general V with a damping drift F = −I, as a Σ₀-disk map certified whole cell by
    whole cell with validated tubes from each cell's set of Σ₀ (kind ``cell-tube``);
(c′) a Σ₀-disk map where the dependence on Σ₀ *is* certified: V = I, A = diag(3, −1),
    F = −I (threshold case of docs/mathematics.md §6: blow-up ⟺ λ_max(Σ₀^½RΣ₀^½) > 2).

Each map is written as ``OUT/<name>/map.json`` (+ ``map.png``/``.pdf``); ``OUT/regimes.json``
summarises the areas, timings and a cross-check of random interior points of decided cells
(point classifier + high-precision integration, :mod:`symbolic_tf.regimes.crosscheck`).
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..exact.rational import float_of, float_fraction, frac_str

__all__ = ["MAP_SPECS", "map_specs", "run"]


def _exact(M):
    return [[frac_str(float_fraction(e)) for e in row] for row in M]


def map_specs(quick: bool = True) -> dict:
    """The five map specs (documents) of the reproduction.

    Parameters
    ----------
    quick : bool, optional
        Shallower refinement (depth 3 instead of 4) and coarser Σ₀ disks.

    Returns
    -------
    dict
        Map name → map-spec document (:func:`symbolic_tf.spec.mapspec.parse_map_spec` input).
    """
    from .castin2025.conventions import reference_draws

    depth = 3 if quick else 4
    P = reference_draws(6)
    A6 = P["K"].T @ P["Q"]
    return {
        "a_softmax_A": {
            "family": "parameter", "name": "(a) softmax, V = I: A = [[x, 1/2], [−1/4, y]]",
            "resolution": [16, 16], "max_depth": depth,
            "x": {"label": "A₁₁ = x", "range": [-1, 1]}, "y": {"label": "A₂₂ = y", "range": [-1, 1]},
            "problem": {"variant": "softmax", "d": 2, "A": [["x", "1/2"], ["-1/4", "y"]], "V": [[1, 0], [0, 1]],
                        "initial": {"mean": [0, 0], "cov": [[1, "1/4"], ["1/4", "1/2"]]}}},
        "b_drift_beta_f": {
            "family": "parameter", "name": "(b) drift model, V = I, B = βI, F = fI, Σ₀ = diag(1, 1/2)",
            "resolution": [16, 16], "max_depth": depth,
            "x": {"label": "β (attention B = βI)", "range": [-1, 1]},
            "y": {"label": "f (feed-forward F = fI)", "range": [-1, 1]},
            "problem": {"variant": "softmax", "d": 2, "A": [["x", 0], [0, "x"]], "V": [[1, 0], [0, 1]],
                        "F": [["y", 0], [0, "y"]], "b": [0, 0],
                        "initial": {"mean": [0, 0], "cov": [[1, 0], [0, "1/2"]]}}},
        "c_reference_disk": {
            "family": "cov-disk", "name": "(c) reference experiment 6 (V general): Σ₀ disk",
            "resolution": [6, 6] if quick else [12, 12], "max_depth": 1 if quick else 4,
            "problem": {"variant": "softmax", "d": 2, "A": _exact(A6), "V": _exact(P["V"])}},
        "d_drift_disk": {
            "family": "cov-disk", "name": "(d) reference experiment 6 (V general) with damping F = −I: Σ₀ disk",
            "resolution": [8, 8], "max_depth": 2 if quick else 4,
            "problem": {"variant": "softmax", "d": 2, "A": _exact(A6), "V": _exact(P["V"]),
                        "F": [[-1, 0], [0, -1]], "b": [0, 0]}},
        "c_threshold_disk": {
            "family": "cov-disk", "name": "(c′) V = I, A = diag(3, −1), F = −I: Σ₀ disk (threshold)",
            "resolution": [16, 16], "max_depth": depth,
            "problem": {"variant": "softmax", "d": 2, "A": [[3, 0], [0, -1]], "V": [[1, 0], [0, 1]],
                        "F": [[-1, 0], [0, -1]], "b": [0, 0]}},
    }


MAP_SPECS = tuple(map_specs(True))


def _numerical_disk(doc: dict, T: float = 100.0) -> dict:
    """Numerical evidence at the cell centres of a Σ₀-disk map: the batched DOPRI5 integrator
    (blow-up = the norm bound was reached).  Never certified."""
    from ..numeric.codegen import compile_system
    from ..numeric.integrate import integrate
    from ..spec.mapspec import parse_map_spec
    from ..symbolic.systems import system_for_problem
    from ..numeric.codegen import numeric_env

    sd = dict(doc["spec"])
    sd.pop("schema", None)
    spec = parse_map_spec(sd)
    cells = [c for c in doc["cells"] if "point" in c]
    uw = np.array([[float_of(c["point"]["x"]), float_of(c["point"]["y"])] for c in cells])
    inside = np.hypot(uw[:, 0], uw[:, 1]) < 1
    uw = uw[inside]
    S0 = np.stack([np.array([[(1 + u) / 2, w / 2], [w / 2, (1 - u) / 2]]) for u, w in uw])
    p = spec.problem_at(0, 0)
    system = system_for_problem(p)
    sol = integrate(compile_system(system), np.zeros((len(S0), 2)), S0, numeric_env(p, system), T)
    from ..numeric.solution import STATUS_NAMES

    return {"uw": uw.tolist(), "status": [STATUS_NAMES[int(s)].upper() for s in sol.status],
            "t_end": [float(t) for t in sol.t_end], "T": T,
            "integrator": "symbolic_tf.numeric.integrate (DOPRI5, Σ = ΦΣ₀Φᵀ) — numerical evidence"}


def _evidence_figure(doc, ev, stem):
    from ..plots import figure, save_figure

    fig = figure((6.2, 5.6))
    ax = fig.add_subplot(1, 1, 1)
    uw = np.array(ev["uw"])
    st = np.array(ev["status"])
    for name, colour in (("BLOWUP", "#e41a1c"), ("HORIZON", "#377eb8"), ("CONVERGED", "#4daf4a"),
                         ("FAILED", "k"), ("MAX_STEPS", "#999999")):
        m = st == name
        if m.any():
            ax.scatter(uw[m, 0], uw[m, 1], s=40, color=colour, marker="s",
                       label={"BLOWUP": "blew up (norm bound)", "HORIZON": f"bounded to T = {ev['T']:g}"}.get(name, name.lower()))
    th = np.linspace(0, 2 * np.pi, 400)
    ax.plot(np.cos(th), np.sin(th), "k", lw=0.8)
    ax.set_aspect("equal")
    ax.set_xlabel("u = a − b")
    ax.set_ylabel("w = 2c")
    ax.legend(fontsize=7, loc="upper left")
    cert = doc["totals"]["point_verdicts"]
    counts = ", ".join(f"{k} {v}" for k, v in cert.items()) if isinstance(cert, dict) else str(cert)
    ax.set_title(f"{doc['spec']['name']}\nnumerical evidence only (point classifier: {counts})", fontsize=8)
    return save_figure(fig, stem)


def run(out, quick: bool = True, seed: int = 0, progress: bool = True, *, executor=None,
        names=None, crosscheck_points: int | None = None) -> dict:
    """Compute the maps, write JSON + figures, cross-check decided cells; returns the summary.

    Parameters
    ----------
    out : path-like
        Output folder: ``OUT/<name>/map.json`` (+ figures) and ``OUT/regimes.json``.
    quick : bool, optional
        Smaller maps (:func:`map_specs`) and fewer cross-check points.
    seed : int, optional
        Seed of the cross-check points.
    progress : bool, optional
        Print progress to stdout.
    executor : optional
        A map executor (:func:`symbolic_tf.regimes.executors.make_executor`); by default one
        is made and closed here.
    names : collection of str, optional
        Only these maps (keys of :func:`map_specs`).
    crosscheck_points : int, optional
        Random interior points per decided map (default 4 quick, 12 full).

    Returns
    -------
    dict
        The summary written to ``OUT/regimes.json`` (per map: totals, run, route, figures,
        cross-check or numerical evidence), tagged with its schema.
    """
    from ..atomic import write_json_atomic
    from ..plots import regime_map_figure
    from ..regimes.crosscheck import crosscheck
    from ..regimes.executors import make_executor
    from ..regimes.maps import run_map, theory_fields
    from ..spec.mapspec import parse_map_spec

    t0 = time.time()
    out = Path(out)
    specs = map_specs(quick)
    own = executor is None
    ex = executor or make_executor()
    summary = {"paper": "regime maps (issue: certified regime maps)", "quick": bool(quick), "seed": int(seed),
               "maps": {}}
    npts = crosscheck_points if crosscheck_points is not None else (4 if quick else 12)
    try:
        for name, sdoc in specs.items():
            if names and name not in names:
                continue
            if progress:
                print(f"{name}: {sdoc['name']}", flush=True)
            spec = parse_map_spec(sdoc)
            doc = run_map(spec, out / name, executor=ex, progress=progress)
            write_json_atomic(out / name / "map.json", doc)
            figs = [str(f) for f in regime_map_figure(doc, out / name / "map", theory=theory_fields(spec))]
            entry = {"name": sdoc["name"], "totals": doc["totals"], "run": doc["run"], "route": doc["route"],
                     "route_reason": doc["route_reason"], "figures": figs}
            if spec.family == "cov-disk" and doc["totals"]["decided_fraction"] < 1:
                ev = _numerical_disk(doc)
                entry["numerical_evidence"] = {k: ev[k] for k in ("T", "integrator")}
                entry["numerical_evidence"]["counts"] = {s: ev["status"].count(s) for s in set(ev["status"])}
                entry["figures"] += [str(f) for f in _evidence_figure(doc, ev, out / name / "numerical_evidence")]
            if doc["route"] is not None and npts:
                cc = crosscheck(doc, n=npts, seed=seed)
                entry["crosscheck"] = {"points": len(cc), "agree": sum(r["agree"] for r in cc), "records": cc}
            summary["maps"][name] = entry
            if progress:
                t = doc["totals"]
                print(f"  {100 * t['decided_fraction']:.2f}% certified, {len(doc['cells'])} cells, "
                      f"{doc['run']['wall_seconds']} s", flush=True)
    finally:
        if own:
            ex.close()
    summary["total_seconds"] = round(time.time() - t0, 2)
    from ..display import tagged

    summary = tagged("reproduce.regimes", summary)
    write_json_atomic(out / "regimes.json", summary)
    return summary
