"""The whole suite: run the experiments, draw their figures, write ``castin2025.json``."""
from __future__ import annotations

import time
from pathlib import Path

from .conventions import CONVENTIONS, EXPERIMENTS, FULL, PAPER, QUICK
from ._experiments import exp_blowup, exp_line, exp_mixed, exp_plane, exp_ranks, exp_two_lines, exp_zero
from ._runs import jsonable, progress_log, to_json

__all__ = ["FUNCS", "run"]

#: experiment name → its function
FUNCS = {"zero": exp_zero, "line": exp_line, "plane": exp_plane, "two_lines": exp_two_lines,
         "blowup": exp_blowup, "mixed": exp_mixed, "ranks": exp_ranks}


def run(out, quick: bool = True, seed: int = 0, progress: bool = True, *, source: str = "generator",
        experiments=EXPERIMENTS) -> dict:
    """Run the experiments, write ``out/figures/*.png|pdf`` and ``out/castin2025.json``; return the summary."""
    from ...atomic import write_json_atomic
    from ...display import tagged
    from ._figures import castin_figures

    out = Path(out)
    figdir = out / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    sizes = QUICK if quick else FULL
    t_start = time.perf_counter()
    progress_log(progress, f"{'quick' if quick else 'full'} run, seed {seed}, source {source}, output {out}")
    results, figures, timings = {}, {}, {}
    for name in experiments:
        t0 = time.perf_counter()
        kw = dict(sizes[name])
        if name != "ranks":
            kw["source"] = source
        exp = FUNCS[name](seed, progress=progress, **kw)
        t_exp = time.perf_counter() - t0
        figs = castin_figures(exp, figdir)
        timings[name] = {"compute_s": round(t_exp, 2), "figures_s": round(time.perf_counter() - t0 - t_exp, 2)}
        figures[name] = [str(Path(p).relative_to(out)) for p in figs]
        results[name] = to_json(exp)
        progress_log(progress, f"experiment {name}: {t_exp:.1f} s compute, {len(figs)} figure files")
    summary = {
        "paper": PAPER,
        "mode": "quick" if quick else "full",
        "seed": int(seed),
        "source": source,
        "sizes": sizes,
        "conventions": CONVENTIONS,
        "experiments": results,
        "figures": figures,
        "timings": timings,
        "total_seconds": round(time.perf_counter() - t_start, 2),
    }
    summary = tagged("reproduce.castin2025", jsonable(summary))
    write_json_atomic(out / "castin2025.json", summary)
    progress_log(progress, f"done in {summary['total_seconds']:.1f} s -> {out / 'castin2025.json'}")
    return summary
