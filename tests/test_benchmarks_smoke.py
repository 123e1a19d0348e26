"""Every benchmark runs at toy size (marker ``bench_smoke``), so the benchmarks keep working.

Only that they run is checked here: performance is measured by the benchmarks themselves and
reported, never asserted in tests (a loaded machine must not fail the suite).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"

# benchmark file → toy-size arguments
SMOKE_ARGS = {
    "bench_certify.py": ["--smoke"],
    "bench_codegen.py": ["--dims", "2", "--batch", "4"],
    "bench_conjectures.py": ["--examples", "2"],
    "bench_derive.py": ["--dims", "2", "--naive-dim", "2"],
    "bench_general_v_brackets.py": ["--n", "2"],
    "bench_integrate.py": ["--smoke"],
    "bench_lmi.py": ["--dims", "2", "--n", "1"],
    "bench_particles.py": ["--Ns", "200", "--d", "4", "--repeats", "1"],
    "bench_probe.py": ["--smoke"],
    "bench_regime_map.py": ["--smoke"],
    "bench_scaling.py": ["--smoke"],
    "soak.py": ["--n", "3", "--workers", "1", "--oracle", "scipy", "--out", "{tmp}/soak.json"],
    "undecided_rate.py": ["--n", "3", "--workers", "1", "--out", "{tmp}/undecided.json"],
    "map_soak.py": ["--n", "1", "--kinds", "general-V", "--resolution", "1", "--depth", "0", "--points", "1",
                    "--workers", "1", "--seed", "0", "--out", "{tmp}/map_soak.json"],
    "isotropic_drift_probe.py": ["--smoke"],
    "soak_map_cells.py": ["--smoke", "--out", "{tmp}/soak_cells.json"],
    "fresh_problems.py": ["--n", "3", "--workers", "1", "--seed", "0", "--budget", "10", "--out", "{tmp}/fresh.json"],
}
HELPERS = {"experiments.py", "reference_method.py"}  # imported by the benchmarks, not benchmarks


def test_every_benchmark_has_a_smoke_run():
    files = {p.name for p in BENCH.glob("*.py")} - HELPERS
    assert files == set(SMOKE_ARGS), f"add toy-size arguments for {sorted(files ^ set(SMOKE_ARGS))}"


@pytest.mark.bench_smoke
@pytest.mark.parametrize("name", sorted(SMOKE_ARGS))
def test_benchmark_runs_at_toy_size(name, tmp_path):
    if name == "bench_probe.py":
        from symbolic_tf.models.loader import default_model_dir

        if not (Path(default_model_dir()) / "model.safetensors").is_file():
            pytest.skip("the shipped BERT checkpoint is not installed")
    args = [a.replace("{tmp}", str(tmp_path)) for a in SMOKE_ARGS[name]]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(BENCH / name), *args], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, f"{name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    assert r.stdout.strip(), f"{name} printed nothing"
