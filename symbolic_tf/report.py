"""The main job's report: every variant's moment system and Gaussian-invariance verdict.

Written to ``OUT/report.md`` (human) and ``OUT/report.json`` (machine), atomically.
"""
from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

from .atomic import write_json_atomic, write_text_atomic
from .exact.rational import float_of
from .display import verdict_label

__all__ = ["build_report"]


def build_report(out: str | Path, progress: bool = True) -> dict:
    """Build the report: for every variant (and softmax with drift) its Gaussian-invariance verdict
    and, when PROVED, its moment system; the certified regimes of the built-in examples (with
    certificates in ``OUT/certificates/``) and a certified regime map (``OUT/regime_map/``).

    Parameters
    ----------
    out : str or Path
        The output folder ``OUT``; ``report.md`` and ``report.json`` are written there.
    progress : bool
        Print progress lines to stderr.

    Returns
    -------
    dict
        The JSON summary (schema ``symbolic_tf.report/1``): version, variants, regimes and the
        regime map's totals, run and check.
    """
    import sympy as sp

    from . import variants
    from .version import __version__
    from .symbolic.closure import decide_invariance
    from .symbolic.moments import derive

    out = Path(out)
    rows = []
    names = variants.names()
    systems = [(n, {}) for n in names] + [("softmax", {"drift": True})]
    for i, (name, opts) in enumerate(systems, start=1):
        label = name + (" + drift" if opts.get("drift") else "")
        if progress:
            print(f"[{i}/{len(systems)}] {label} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        verdict = decide_invariance(name)
        row = {"variant": label, "invariance": verdict.to_dict()}
        if verdict.status == "PROVED":
            system = derive(name, **opts)
            row["system"] = system.to_dict()
            row["text"] = system.text()
            row["latex"] = system.latex()
        row["seconds"] = round(time.perf_counter() - t0, 3)
        rows.append(row)
        if progress:
            print(f"    {verdict.status} ({row['seconds']} s)", file=sys.stderr, flush=True)

    md = ["# symbolic_tf report: Gaussian moment systems of every attention variant", "",
          f"symbolic_tf {__version__}, SymPy {sp.__version__}, Python {platform.python_version()}", "",
          "Status PROVED: the velocity field is affine in x for every Gaussian (closure rule "
          "applied to the symbolic declaration). REFUTED: exact witness (a derivative of order "
          "≥ 2 of Γ that is provably nonzero). Conventions of docs/mathematics.md §1 (A = KᵀQ, no temperature).", ""]
    for row in rows:
        inv = row["invariance"]
        md += [f"## {row['variant']}", "", f"**Gaussian invariance: {inv['status']}** — {inv['reason']}", ""]
        if "latex" in row:
            md += ["$$", row["latex"], "$$", "", "```", row["text"], "```", ""]
        elif inv["status"] == "REFUTED":
            ev = inv["evidence"]
            md += [f"Witness: instance `{ev['instance']}`; derivative of order {ev['order']}: "
                   f"`{ev['derivative']}`", ""]
    regimes = _certified_examples(out, progress)
    md += ["# Certified regimes of built-in examples", "",
           "Each verdict below carries a certificate in `certificates/`, re-verified by the "
           "independent checker (`symtf check FILE`).", ""]
    for r in regimes:
        line = f"- **{r['name']}** ({r['description']}): {verdict_label(r['regime'], r['status'])}"
        if r.get("T_lo"):
            line += f", T* ∈ [{float_of(r['T_lo']):.15g}, {float_of(r['T_hi']):.15g}]"
        if r.get("rank") is not None:
            line += f", limit rank {r['rank']}"
        line += f"; checked: {r['checked']}"
        md.append(line)
    rmap = _regime_map(out, progress)
    t = rmap["totals"]
    md += ["", "# A certified regime map", "",
           f"{rmap['spec']['name']}: {100 * t['decided_fraction']:.2f}% of the area certified cell by cell "
           f"({len(rmap['cells'])} cells, {rmap['run']['wall_seconds']} s); "
           + ", ".join(f"{k} {100 * v:.1f}%" for k, v in t["fraction_by_regime"].items())
           + f". Files: `regime_map/map.json` (every cell's certificate; `symtf check` re-verifies them), "
           f"`regime_map/map.png`. Re-checked: {rmap['checked']}.", ""]
    write_text_atomic(out / "report.md", "\n".join(md) + "\n")
    summary = {"schema": "symbolic_tf.report/1", "tool": "symbolic_tf", "version": __version__, "variants": rows, "regimes": regimes,
               "regime_map": {"totals": t, "run": rmap["run"], "checked": rmap["checked"]}}
    write_json_atomic(out / "report.json", summary)
    return summary


EXAMPLES = {
    "softmax_identity_blowup": ("softmax, V = I, A + Aᵀ indefinite", {
        "variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/4", "-1/3"]], "V": [[1, 0], [0, 1]],
        "initial": {"cov": [["3/4", "1/8"], ["1/8", "1/4"]]}}),
    "softmax_identity_clustering": ("softmax, V = I, A + Aᵀ ⪯ 0 with a 2-dim kernel", {
        "variant": "softmax", "d": 3, "A": [[-1, 1, 0], [-1, 0, "1/2"], [0, "-1/2", 0]],
        "V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "initial": {"cov": [[1, "1/3", 0], ["1/3", 1, 0], [0, 0, "1/2"]]}}),
    "drift_equilibrium": ("Alcalde's drift model, V = −I, R ≺ 0, F anti-Hurwitz", {
        "variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, 1]], "V": [[-1, 0], [0, -1]],
        "F": [[1, "1/4"], ["-1/4", "3/2"]], "b": [0, 1], "initial": {"cov": [[1, 0], [0, 1]]}}),
    "drift_blowup": ("drift model, V = 2I, F = I/2, R ≻ 0", {
        "variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, "1/3"]], "V": [[2, 0], [0, 2]],
        "F": [["1/2", 0], [0, "1/2"]], "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}),
    "general_V_bounded": ("softmax, non-symmetric V, A = −I (LMI)", {
        "variant": "softmax", "d": 2, "A": [[-1, 0], [0, -1]], "V": [[1, 10], [0, 1]],
        "initial": {"cov": [[1, 0], [0, 1]]}}),
    "sinkhorn_growth": ("Sinkhorn: no finite-time blow-up", {
        "variant": "sinkhorn", "d": 2, "A": [[1, "1/2"], [0, 1]], "V": [[1, 0], [0, 1]],
        "initial": {"cov": [[1, 0], [0, 1]]}}),
}


def _regime_map(out: Path, progress: bool) -> dict:
    """Slice (a) of the regime-map reproduction at 128×128-equivalent resolution, re-checked."""
    from .plots import regime_map_figure
    from .regimes.executors import SerialExecutor
    from .regimes.maps import check_map, run_map, theory_fields
    from .reproduce.regimes import map_specs
    from .spec.mapspec import parse_map_spec

    spec = parse_map_spec(dict(map_specs(quick=True)["a_softmax_A"], max_depth=3))
    doc = run_map(spec, executor=SerialExecutor())
    write_json_atomic(out / "regime_map" / "map.json", doc)
    regime_map_figure(doc, out / "regime_map" / "map", theory=theory_fields(spec), formats=("png",))
    check_map(doc)  # raises CertificationFailed on any bad cell
    doc["checked"] = "OK"
    if progress:
        print(f"  regime map: {100 * doc['totals']['decided_fraction']:.2f}% certified, checked", flush=True)
    return doc


def _certified_examples(out: Path, progress: bool) -> list[dict]:
    """Classify the built-in examples, write their certificates, re-check each one."""
    from .atomic import write_json_atomic
    from .certify.check import check
    from .regimes.classify import classify
    from .spec import parse_problem

    rows = []
    for name, (desc, doc) in EXAMPLES.items():
        t0 = time.perf_counter()
        c = classify(parse_problem(doc))
        row = {"name": name, "description": desc, **c.to_dict()}
        row.pop("certificate", None)
        row["checked"] = False
        if c.certificate is not None:
            path = write_json_atomic(out / "certificates" / f"{name}.json", c.certificate)
            row["certificate_file"] = str(path)
            row["checked"] = check(c.certificate).ok
        row["seconds"] = round(time.perf_counter() - t0, 3)
        if progress:
            print(f"[regime] {name}: {verdict_label(c.regime, c.status)}, checked {row['checked']}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows
