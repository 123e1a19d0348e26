"""Soundness soak of the certified cells of written regime maps: every PROVED cell of the chosen kinds (default
``cell-tube-param``) of each ``map.json`` (or a run folder's ``chunks/``) is judged at random interior points by the
independent float oracle of :mod:`map_soak` (``judge_cell``: tests/soundness/oracle.py, DOP853; clustering in factor
form).  Prints agreements, inconclusive judgements and disagreements per map (0 disagreements is the target) and
writes every disagreement to ``--out``.

    .venv/bin/python benchmarks/soak_map_cells.py OUT/map.json … --points 3 --seed 1
    .venv/bin/python benchmarks/soak_map_cells.py OUT --spec SPEC.toml      (a run folder's chunks)
"""
from __future__ import annotations

import argparse
import glob
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402

from map_soak import judge_cell  # noqa: E402
from symbolic_tf.spec.mapspec import load_map_spec, parse_map_spec  # noqa: E402


def _cells(path: str):
    """(spec document, cells) of a map.json, or of a run folder (its chunks; the spec from map.json or resume.json)."""
    p = Path(path)
    if p.is_file():
        m = json.loads(p.read_text())
        if "cells" not in m:    # a standalone cell certificate: data = {"spec", "cell"}
            return m["data"]["spec"], [m["data"]["cell"]]
        return m["spec"], m["cells"]
    doc = None
    for name in ("map.json", "resume.json"):
        if (p / name).is_file():
            d = json.loads((p / name).read_text())
            doc = d.get("spec", doc)
    cells = [r for f in sorted(glob.glob(str(p / "chunks" / "*.json"))) for r in json.loads(Path(f).read_text())["results"]]
    return doc, cells


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("maps", nargs="*", help="map.json files or run folders")
    ap.add_argument("--smoke", action="store_true",
                    help="judge the committed genuine pieces certificate's cell (tests/soundness/forgeries/data)")
    ap.add_argument("--spec", default=None, help="the map spec (TOML) of run folders without a map.json")
    ap.add_argument("--kinds", default="cell-tube-param", help="comma-separated certificate kinds to judge")
    ap.add_argument("--points", type=int, default=3, help="random interior points per cell (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="soak_map_cells.json", help="where the disagreements are written (JSON)")
    args = ap.parse_args(argv)
    kinds = set(args.kinds.split(","))
    if args.smoke:
        args.maps = [str(ROOT / "tests" / "soundness" / "forgeries" / "data" / "cell-tube-param-pieces.json")]
        args.points = 1
    rng = np.random.default_rng(args.seed)
    bad, total = [], 0
    for path in args.maps:
        doc, cells = _cells(path)
        spec = load_map_spec(args.spec) if doc is None else parse_map_spec(doc)
        counts = {"agree": 0, "inconclusive": 0, "disagree": 0}
        for c in cells:
            if c.get("status") != "PROVED" or c["certificate"]["kind"] not in kinds:
                continue
            for j in judge_cell(spec, dict(c, kind=c["certificate"]["kind"]), rng, args.points):
                key = {True: "agree", False: "disagree", None: "inconclusive"}[j["ok"]]
                counts[key] += 1
                if j["ok"] is False:
                    bad.append({"map": path, "cell": c["box"], **j})
        total += counts["disagree"]
        print(f"{path}: {counts}", flush=True)
    Path(args.out).write_text(json.dumps(bad, indent=1))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
