"""``symtf reproduce`` and ``symtf run``: the seed papers' experiments and the main report."""
from __future__ import annotations

import time
from pathlib import Path

from ..spec.errors import InvalidParameters
from ._options import add_json, add_out, add_seed, command
from ._output import emit

__all__ = ["PARSERS"]

#: The papers ``symtf reproduce`` knows (one module each in :mod:`symbolic_tf.reproduce`).
PAPERS = ("castin2025", "alcalde2026", "regimes")


def _cmd_reproduce(args) -> int:
    """Reproduce a seed paper's experiments (figures + JSON summary)."""
    if args.paper not in PAPERS:
        raise InvalidParameters("paper", f"unknown paper {args.paper!r}; available: {', '.join(PAPERS)}")
    import importlib

    run = importlib.import_module(f"..reproduce.{args.paper}", __package__).run

    out = Path(args.out or f"out/{args.paper}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot create {str(out)!r}: {exc.strerror or exc}") from None
    t0 = time.perf_counter()
    summary = run(out, quick=args.quick, seed=args.seed, progress=not (args.quiet or args.json))
    text = (f"{args.paper} ({'quick' if args.quick else 'full'}, seed {args.seed}): "
            f"wrote {out / (args.paper + '.json')} and figures in {out / 'figures'} ({time.perf_counter() - t0:.0f} s)")
    if args.paper == "regimes":
        text = "\n".join([text.split(" and figures")[0] + f" ({time.perf_counter() - t0:.0f} s)"] + [
            f"  {m['name']}: {100 * m['totals']['decided_fraction']:.2f}% of the area certified, "
            f"{m['run']['wall_seconds']} s" + (f"; cross-check {m['crosscheck']['agree']}/{m['crosscheck']['points']} "
                                                "points agree" if "crosscheck" in m else "")
            + (f"; {m['route_reason']}" if m.get("route_reason") else "") for m in summary["maps"].values()])
    public = {k: v for k, v in summary.items() if not str(k).startswith("_")}  # "_results": arrays
    return emit(args, public if args.json else {}, text)


def _cmd_run(args) -> int:
    """The main job on built-in defaults: derive every variant, decide invariance, report."""
    from ..report import build_report

    out = Path(args.out)
    try:  # fail before the work, not after it, when the folder cannot be created
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot create the folder {str(out)!r}: "
                                f"{exc.strerror or exc}") from None
    t0 = time.perf_counter()
    try:
        summary = build_report(out, progress=not args.quiet)
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write the report in {str(out)!r}: "
                                f"{exc.strerror or exc}") from None
    print(f"wrote {out / 'report.md'}, {out / 'report.html'} and {out / 'report.json'} "
          f"({len(summary['variants'])} variants, {time.perf_counter() - t0:.1f} s)")
    return 0


def _add_reproduce(sub) -> None:
    s = command(sub, "reproduce", _cmd_reproduce, "reproduce a seed paper's experiments (castin2025, alcalde2026)")
    s.add_argument("paper", help="the paper: " + ", ".join(PAPERS))
    s.add_argument("--quick", action="store_true", help="smaller grids (under two minutes)")
    add_out(s, None, "folder for PAPER.json and the figures (default: out/PAPER)")
    add_seed(s)
    add_json(s)


def _add_run(sub) -> None:
    s = command(sub, "run", _cmd_run, "the main job: derive everything and write a report")
    add_out(s, "out", "folder for report.md and report.json (default out)")


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"reproduce": _add_reproduce, "run": _add_run}
