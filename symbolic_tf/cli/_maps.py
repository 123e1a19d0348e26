"""``symtf regime-map``: a certified regime map of a 2-D slice (cells, certificates, figure)."""
from __future__ import annotations

from pathlib import Path

from ..spec.errors import InvalidParameters
from ._options import add_json, add_out, command, int_type, positive_float
from ._output import emit

__all__ = ["PARSERS"]


def _cmd_regime_map(args) -> int:
    """A certified regime map of a slice: map.json (every cell and its certificate) + figure."""
    from ..atomic import write_json_atomic
    from ..plots import regime_map_figure
    from ..regimes.executors import make_executor
    from ..regimes.maps import BUDGET_REASON, run_map, theory_fields, validate_spec
    from ..spec.mapspec import load_map_spec

    # --workers, --dask-local, --chunk-size, --budget are refused by their argparse types first
    spec = load_map_spec(args.spec)
    validate_spec(spec)  # unknown variant, missing matrices: refused before anything is written
    out = Path(args.out)
    if args.resume and not out.is_dir():
        raise InvalidParameters("--resume", f"nothing to resume: {str(out)!r} is not a folder")
    try:
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        with make_executor(args.workers, args.scheduler, args.dask_local) as ex:
            doc = run_map(spec, out, executor=ex, chunk_size=args.chunk_size, progress=not (args.quiet or args.json),
                          budget=args.budget, resume=args.resume)
            # written before the executor closes: a task still running when the budget ended is not waited for
            write_json_atomic(out / "map.json", doc)
        figs = regime_map_figure(doc, out / "map", theory=theory_fields(spec))
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    t, r = doc["totals"], doc["run"]
    lines = [f"{spec.name or args.spec}: {len(doc['cells'])} cells, {100 * t['decided_fraction']:.2f}% of the "
             f"area certified ({r['executor']}, {r['workers']} worker(s), {r['wall_seconds']} s, "
             f"{r['cells_per_second']} cells/s" + (f", {r['cells_resumed']} cells resumed" if r["cells_resumed"] else "")
             + ")"]
    lines += [f"  {k}: {100 * v:.2f}% of the area" for k, v in t["fraction_by_regime"].items()]
    if doc["route_reason"]:
        lines.append(f"  no whole-cell certificates: {doc['route_reason']}")
    if not r["complete"]:
        lines.append(f"  the budget of {args.budget:g} s ended: {r['cells_budget']} cell(s) not done are UNDECIDED "
                     f"({BUDGET_REASON!r}); run the same command again (or add --resume) to continue")
    lines.append(f"  wrote {out / 'map.json'}, " + ", ".join(str(f) for f in figs))
    emit(args, {"map": str(out / "map.json"), "figures": [str(f) for f in figs], "totals": t, "run": r},
         "\n".join(lines))
    return 0


def _add_regime_map(sub) -> None:
    s = command(sub, "regime-map", _cmd_regime_map, "certified regime map of a 2-D slice (cells, refinement, figure)")
    s.add_argument("spec", help="map spec (.toml or .json; keys and families: docs/reference/mapspec.md)")
    add_out(s, "out/regime_map", "folder for map.json, its chunks and the figures (default out/regime_map)")
    s.add_argument("--workers", type=int_type(1, 4096), default=None, help="local processes (default: all cores; 1 = serial)")
    s.add_argument("--scheduler", default=None, help="Dask scheduler address tcp://host:port")
    s.add_argument("--dask-local", type=int_type(1, 4096), default=None, metavar="N", help="start a local Dask cluster of N workers")
    s.add_argument("--chunk-size", type=int_type(1), default=None,
                   help="cells per chunk (default: as the run being resumed, else 4 chunks per worker per level)")
    s.add_argument("--budget", type=positive_float, default=None, metavar="SECONDS",
                   help="wall-clock seconds; then the map is written with what is certified so far (cells not done: "
                        "UNDECIDED 'budget') and the run can be resumed")
    s.add_argument("--resume", action="store_true",
                   help="continue the run of this spec in --out (its finished chunks are read back, not recomputed; "
                        "rerunning with the same --out does so too, --resume also requires that there is one)")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"regime-map": _add_regime_map}
