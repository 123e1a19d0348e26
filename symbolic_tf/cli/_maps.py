"""``symtf regime-map``: a certified regime map of a 2-D slice (cells, certificates, figure)."""
from __future__ import annotations

from pathlib import Path

from ..spec.errors import InvalidParameters
from ._options import add_json, add_out, command, int_type
from ._output import emit

__all__ = ["PARSERS"]


def _cmd_regime_map(args) -> int:
    """A certified regime map of a slice: map.json (every cell and its certificate) + figure."""
    from ..atomic import write_json_atomic
    from ..plots import regime_map_figure
    from ..regimes.executors import make_executor
    from ..regimes.maps import run_map, theory_fields, validate_spec
    from ..spec.mapspec import load_map_spec

    # --workers, --dask-local, --chunk-size are ≥ 1 (argparse types): refused before anything
    spec = load_map_spec(args.spec)
    validate_spec(spec)  # unknown variant, missing matrices: refused before anything is written
    out = Path(args.out)
    try:
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        with make_executor(args.workers, args.scheduler, args.dask_local) as ex:
            doc = run_map(spec, out, executor=ex, chunk_size=args.chunk_size, progress=not (args.quiet or args.json))
        write_json_atomic(out / "map.json", doc)
        figs = regime_map_figure(doc, out / "map", theory=theory_fields(spec))
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    t, r = doc["totals"], doc["run"]
    lines = [f"{spec.name or args.spec}: {len(doc['cells'])} cells, {100 * t['decided_fraction']:.2f}% of the "
             f"area certified ({r['executor']}, {r['workers']} worker(s), {r['wall_seconds']} s, "
             f"{r['cells_per_second']} cells/s)"]
    lines += [f"  {k}: {100 * v:.2f}% of the area" for k, v in t["fraction_by_regime"].items()]
    if doc["route_reason"]:
        lines.append(f"  no whole-cell certificates: {doc['route_reason']}")
    lines.append(f"  wrote {out / 'map.json'}, " + ", ".join(str(f) for f in figs))
    emit(args, {"map": str(out / "map.json"), "figures": [str(f) for f in figs], "totals": t, "run": r},
         "\n".join(lines))
    return 0


def _add_regime_map(sub) -> None:
    s = command(sub, "regime-map", _cmd_regime_map, "certified regime map of a 2-D slice (cells, refinement, figure)")
    s.add_argument("spec", help="map spec (.toml or .json)")
    add_out(s, "out/regime_map", "folder for map.json, its chunks and the figures (default out/regime_map)")
    s.add_argument("--workers", type=int_type(1, 4096), default=None, help="local processes (default: all cores; 1 = serial)")
    s.add_argument("--scheduler", default=None, help="Dask scheduler address tcp://host:port")
    s.add_argument("--dask-local", type=int_type(1, 4096), default=None, metavar="N", help="start a local Dask cluster of N workers")
    s.add_argument("--chunk-size", type=int_type(1), default=None, help="cells per chunk (default: 4 chunks per worker per level)")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"regime-map": _add_regime_map}
