"""Certified regime map of slice (a) at 256×256-equivalent resolution (adaptive) vs baselines.

Slice (a): softmax, V = I, A = [[x, 1/2], [−1/4, y]], (x, y) ∈ [−1, 1]², Σ₀ fixed; initial grid
16×16, quadtree refinement to depth 4 (cells of 1/256 of each range).  Ours: the adaptive map
(whole-cell certificates) on 1 worker, 2 local processes and a 2-worker Dask LocalCluster, plus
the independent re-check of every certificate.  Baselines measured in the same run on random
subsets and scaled to the 65 536 cells of a uniform 256×256 grid: (i) the point classifier at
every cell centre (what one would do without whole-cell arguments; each point certified), and
(ii) whole-cell certification of every cell of the uniform grid (no adaptivity), in batches of 64
cells as the map's chunks (and, for reference, one cell per call).

Run:  .venv/bin/python benchmarks/bench_regime_map.py
"""
from __future__ import annotations

import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.certify.cells import certify_cell, certify_cells, pencil_for  # noqa: E402
from symbolic_tf.regimes.classify import classify  # noqa: E402
from symbolic_tf.regimes.executors import make_executor  # noqa: E402
from symbolic_tf.regimes.maps import check_map, run_map  # noqa: E402
from symbolic_tf.reproduce.regimes import map_specs  # noqa: E402
from symbolic_tf.spec.mapspec import parse_map_spec  # noqa: E402


def main():
    smoke = "--smoke" in sys.argv[1:]  # toy size (the bench_smoke pytest marker)
    doc = map_specs(quick=False)["a_softmax_A"]
    doc = dict(doc, resolution=[4, 4] if smoke else [16, 16], max_depth=1 if smoke else 4)
    spec = parse_map_spec(doc)
    n = 256
    rows = []
    maps = {}
    run_map(spec, chunk_size=64)  # untimed warm-up: imports and caches are not charged to the first contestant
    for label, kw in (("1 worker (serial)", {"workers": 1}), ("2 processes", {"workers": 2}),
                      ("Dask LocalCluster, 2 workers", {"dask_local": 2})):
        t0 = time.perf_counter()
        with make_executor(**kw) as ex:
            t1 = time.perf_counter()
            m = run_map(spec, executor=ex, chunk_size=64)
        wall = time.perf_counter() - t1
        maps[label] = m
        rows.append((label, wall, time.perf_counter() - t0, m))
    t0 = time.perf_counter()
    chk = check_map(maps["1 worker (serial)"])
    t_check = time.perf_counter() - t0

    # baselines on random subsets of the uniform 256×256 grid, scaled
    rng = random.Random(0)
    pen = pencil_for(spec)
    h = Fraction(2, n)
    cells = [(rng.randrange(n), rng.randrange(n)) for _ in range(20 if smoke else 2000)]
    boxes = [(-1 + i * h, -1 + (i + 1) * h, -1 + j * h, -1 + (j + 1) * h) for i, j in cells]
    t0 = time.perf_counter()
    for k in range(0, len(boxes), 64):  # batches of 64 cells, as the map's chunks (one stacked float search each)
        certify_cells(pen, boxes[k:k + 64])
    t_uniform = (time.perf_counter() - t0) / len(cells) * n * n
    t0 = time.perf_counter()
    for b in boxes[:200]:
        certify_cell(pen, b)
    t_one = (time.perf_counter() - t0) / min(len(boxes), 200)
    pts = cells[:5 if smoke else 150]
    t0 = time.perf_counter()
    for i, j in pts:
        classify(spec.problem_at(-1 + (2 * i + 1) * h / 2, -1 + (2 * j + 1) * h / 2))
    t_points = (time.perf_counter() - t0) / len(pts) * n * n

    serial = rows[0][1]
    print("slice (a), 256×256-equivalent adaptive map (16×16 grid, depth 4)")
    for label, wall, total, m in rows:
        t = m["totals"]
        print(f"  {label:<30} {wall:7.2f} s (incl. start-up {total:6.2f} s)  {m['run']['cells_computed']} cells, "
              f"{m['run']['cells_computed'] / wall:8.0f} cells/s  certified {100 * t['decided_fraction']:.3f}% of the area  "
              f"speed-up vs 1 worker {serial / wall:.2f}×")
    same = len({str(sorted(m["cells"], key=lambda c: c["id"])) for m in maps.values()}) == 1
    print(f"  the three maps are identical: {same}")
    print(f"  independent re-check of {chk['cells_checked']} cell + {chk['points_checked']} point certificates: {t_check:.2f} s")
    print(f"baseline (i) point classifier at all {n * n} centres (scaled from {len(pts)}): {t_points:8.1f} s  "
          f"→ adaptive map {t_points / serial:7.0f}× faster (1 worker)")
    print(f"baseline (ii) whole-cell certificates on the uniform {n}×{n} grid (scaled from {len(cells)}): "
          f"{t_uniform:6.1f} s  → adaptive {t_uniform / serial:5.1f}× faster (1 worker)")
    print(f"  one cell at a time (certify_cell, a batch of one): {1 / t_one:6.0f} cells/s; in batches of 64: "
          f"{n * n / t_uniform:6.0f} cells/s")

    # a heavier map: the Σ₀-disk threshold map (c′), centred-form certificates, 256-equivalent
    disk = parse_map_spec(dict(map_specs(quick=False)["c_threshold_disk"], max_depth=1 if smoke else 4,
                               **({"resolution": [4, 4]} if smoke else {})))
    walls = {}
    run_map(disk)  # untimed warm-up
    for label, kw in (("1 worker", {"workers": 1}), ("2 processes", {"workers": 2})):
        with make_executor(**kw) as ex:
            t0 = time.perf_counter()
            m = run_map(disk, executor=ex)
            walls[label] = time.perf_counter() - t0
    print(f"Σ₀-disk map (c′), 256×256-equivalent: {m['run']['cells_computed']} cells, "
          f"{100 * m['totals']['decided_fraction']:.2f}% of the disk certified; 1 worker {walls['1 worker']:.2f} s "
          f"({m['run']['cells_computed'] / walls['1 worker']:.0f} cells/s), 2 processes {walls['2 processes']:.2f} s: "
          f"speed-up {walls['1 worker'] / walls['2 processes']:.2f}×")


if __name__ == "__main__":
    main()
